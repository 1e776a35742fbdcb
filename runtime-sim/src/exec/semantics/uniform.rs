//! The uniform datapath: one value per warp in uniform registers (UR0..UR62, URZ) and
//! uniform predicates (UP0..UP6, UPT). UMOV, UIADD3, ULOP3, USHF, USEL, UISETP, ULEA, UIMAD
//! (.WIDE), UPOPC, UPRMT, USGXT, UBREV, UFLO, UBMSK, UPLOP3, and R2UR (a vector register of
//! the first executing lane).

use super::bits::{bit_mask, find_leading, permute, sign_extend};
use super::combine;
use super::int::{funnel, icmp, icmp_ex, ineg, lut3};
use crate::decoded::{Decoded, PredOp, SrcOp};
use crate::error::SimError;
use crate::exec::ctx::Ctx;
use crate::exec::warp::{Warp, lanes};

type R = Result<(), SimError>;

/// A uniform source value.
fn u(ctx: &Ctx, w: &Warp, s: &SrcOp) -> u32 {
    ctx.src32(w, s, 0)
}

/// A uniform (or general, lane 0) predicate source.
fn up(w: &Warp, p: PredOp) -> bool {
    w.pred_mask(p, 1) != 0
}

/// Writes a uniform destination (and, if it is a general register, every lane).
fn set(w: &mut Warp, d: &Decoded, v: u32) {
    if d.dst.uniform {
        w.set_ureg(d.dst.reg, v);
    } else {
        w.write_row(d.dst.reg, u32::MAX, &[v; 32]);
    }
}

/// Writes a predicate destination (uniform or general).
fn set_p(w: &mut Warp, p: PredOp, v: bool) {
    if p.uniform {
        w.set_upred(p.idx, v);
    } else {
        w.set_pred(p.idx, u32::MAX, if v { u32::MAX } else { 0 });
    }
}

/// Runs `f` once if any lane executes.
fn once(exec: u32, f: impl FnOnce()) -> R {
    if exec != 0 {
        f();
    }
    Ok(())
}

/// UMOV.
pub fn umov(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let v = u(ctx, w, &d.b);
    once(exec, || set(w, d, v))
}

/// UIADD3.
pub fn uiadd3(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let x = d.m.x;
    let carry = if x {
        up(w, d.ps[0]) as u64 + up(w, d.ps[1]) as u64
    } else {
        0
    };
    let sum = ineg(u(ctx, w, &d.a), &d.a, x) + ineg(u(ctx, w, &d.b), &d.b, x) + ineg(u(ctx, w, &d.c), &d.c, x) + carry;
    once(exec, || {
        set(w, d, sum as u32);
        let k = sum >> 32;
        set_p(w, d.pd[0], k >= 1);
        set_p(w, d.pd[1], k >= 2);
    })
}

/// UIADD3.64 (sm_90): the 64-bit sum of register pairs (an immediate B sign-extended), each
/// negated where its `-` says. ptxas leaves the predicate outputs UPT; their carry semantics
/// are not modelled.
pub fn uiadd3_64(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32, exec: u32) -> R {
    if d.pd.iter().any(|p| p.idx != ptxc_sass::isa::PT) {
        return super::unsupported(ctx, w, d, group, exec);
    }
    let value = |s: &SrcOp| {
        let v = match s.src {
            crate::decoded::Src::Imm(i) => i as u32 as i32 as i64 as u64,
            _ => ctx.src64(w, s, 0),
        };
        if s.neg { v.wrapping_neg() } else { v }
    };
    let sum = value(&d.a).wrapping_add(value(&d.b)).wrapping_add(value(&d.c));
    once(exec, || {
        w.set_ureg(d.dst.reg, sum as u32);
        if d.dst.reg != ptxc_sass::isa::URZ {
            w.set_ureg(d.dst.reg + 1, (sum >> 32) as u32);
        }
    })
}

/// ULOP3.LUT.
pub fn ulop3(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let r = lut3(d.other as u8, u(ctx, w, &d.a), u(ctx, w, &d.b), u(ctx, w, &d.c));
    let pin = up(w, d.ps[0]);
    once(exec, || {
        set(w, d, r);
        set_p(w, d.pd[0], if d.m.pand { r != 0 && pin } else { r != 0 || pin });
    })
}

/// USHF.
pub fn ushf(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let m = d.m;
    let r = funnel(
        m.right,
        m.shf_type,
        m.wrap,
        m.hi,
        u(ctx, w, &d.a),
        u(ctx, w, &d.b),
        u(ctx, w, &d.c),
    );
    once(exec, || set(w, d, r))
}

/// USEL.
pub fn usel(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let r = if up(w, d.ps[0]) {
        u(ctx, w, &d.a)
    } else {
        u(ctx, w, &d.b)
    };
    once(exec, || set(w, d, r))
}

/// UISETP.
pub fn uisetp(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (a, b) = (u(ctx, w, &d.a), u(ctx, w, &d.b));
    let r = if d.m.ex {
        icmp_ex(d.m.int_cmp, a, b, d.m.signed, up(w, d.ps[1]))
    } else {
        icmp(d.m.int_cmp, a, b, d.m.signed)
    };
    let p = up(w, d.ps[0]);
    once(exec, || {
        set_p(w, d.pd[0], combine(d.m.bop, r, p));
        set_p(w, d.pd[1], combine(d.m.bop, !r, p));
    })
}

/// ULEA.
pub fn ulea(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let s = (d.other & 31) as u32;
    let a = u(ctx, w, &d.a);
    let a = if d.a.not || (d.a.neg && d.m.x) {
        !a
    } else if d.a.neg {
        a.wrapping_neg()
    } else {
        a
    };
    let shifted = if d.m.hi {
        let high = if d.m.sx32 {
            ((a as i32) >> 31) as u32
        } else {
            u(ctx, w, &d.c)
        };
        (((high as u64) << 32 | a as u64) << s >> 32) as u32
    } else {
        a << s
    };
    let cin = d.m.x && up(w, d.ps[0]);
    let sum = shifted as u64 + ineg(u(ctx, w, &d.b), &d.b, d.m.x) + cin as u64;
    once(exec, || {
        set(w, d, sum as u32);
        set_p(w, d.pd[0], (sum >> 32) & 1 == 1);
    })
}

/// UIMAD.
pub fn uimad(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let p = u(ctx, w, &d.a).wrapping_mul(u(ctx, w, &d.b)) as u64;
    let cin = d.m.x && up(w, d.ps[0]);
    let sum = p + ineg(u(ctx, w, &d.c), &d.c, d.m.x) + cin as u64;
    once(exec, || {
        set(w, d, sum as u32);
        set_p(w, d.pd[0], (sum >> 32) & 1 == 1);
    })
}

/// UIMAD.WIDE: `d:d+1 = a * b + c:c+1 (+ the carry-in UPs under .X)`, the carry out of the
/// 64-bit addition to UPd, as IMAD.WIDE (ptxas's constant `mul.hi.u64` chains two of them
/// through UP0).
pub fn uimad_wide(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (a, b) = (u(ctx, w, &d.a), u(ctx, w, &d.b));
    let p = if d.m.signed {
        (a as i32 as i64).wrapping_mul(b as i32 as i64) as u64
    } else {
        a as u64 * b as u64
    };
    let c = ctx.src64(w, &d.c, 0);
    let c = if d.c.not || (d.c.neg && d.m.x) {
        !c
    } else if d.c.neg {
        c.wrapping_neg()
    } else {
        c
    };
    let cin = d.m.x && up(w, d.ps[0]);
    let (r, o1) = p.overflowing_add(c);
    let (r, o2) = r.overflowing_add(cin as u64);
    once(exec, || {
        w.set_ureg(d.dst.reg, r as u32);
        if d.dst.reg < 62 {
            w.set_ureg(d.dst.reg + 1, (r >> 32) as u32);
        }
        set_p(w, d.pd[0], o1 | o2);
    })
}

/// The single source of a uniform one-operand instruction, with `~`.
fn unary(ctx: &Ctx, w: &Warp, d: &Decoded) -> u32 {
    let s = if d.b.present() { &d.b } else { &d.a };
    let v = u(ctx, w, s);
    if s.not || s.neg { !v } else { v }
}

/// UPOPC.
pub fn upopc(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let v = unary(ctx, w, d).count_ones();
    once(exec, || set(w, d, v))
}

/// UBREV.
pub fn ubrev(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let v = unary(ctx, w, d).reverse_bits();
    once(exec, || set(w, d, v))
}

/// UFLO.
pub fn uflo(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let v = find_leading(unary(ctx, w, d), d.m.signed, d.m.shift_amount);
    once(exec, || set(w, d, v))
}

/// UPRMT.
pub fn uprmt(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let v = permute(d.m.prmt, u(ctx, w, &d.a), u(ctx, w, &d.b), u(ctx, w, &d.c));
    once(exec, || set(w, d, v))
}

/// USGXT.
pub fn usgxt(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let v = sign_extend(u(ctx, w, &d.a), u(ctx, w, &d.b), d.m.signed, d.m.wrap);
    once(exec, || set(w, d, v))
}

/// UBMSK.
pub fn ubmsk(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let v = bit_mask(u(ctx, w, &d.a), u(ctx, w, &d.b), d.m.wrap);
    once(exec, || set(w, d, v))
}

/// UPLOP3.LUT on uniform predicates, or on the sign bits of uniform registers (`UR4.SIGN`).
pub fn uplop3(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let inputs = if d.a.present() {
        [&d.a, &d.b, &d.c].map(|s| u(ctx, w, s) >> 31 == 1)
    } else {
        [0, 1, 2].map(|i| up(w, d.ps[i]))
    };
    let idx = (inputs[0] as u64) << 2 | (inputs[1] as u64) << 1 | inputs[2] as u64;
    once(exec, || {
        set_p(w, d.pd[0], (d.other >> idx) & 1 == 1);
        set_p(w, d.pd[1], (d.aux >> idx) & 1 == 1);
    })
}

/// R2UR: the first executing lane's register into a uniform register. The predicate
/// destination (`R2UR P1, UR6, R7`) is set in the lanes whose register differs from the value
/// taken and cleared in the others. This rests on ptxas's SASS alone: its loop for
/// `cp.async.mbarrier.arrive` on a per-lane barrier address (`@P0 R2UR P1, UR6, R7; @!P1
/// ARRIVES.LDGSTSBAR.64 [UR6]; @P0 PLOP3.LUT P0, PT, P1, ...; @P1 BRA loop`) arrives once per
/// lane only if the lanes holding the value taken see the predicate clear.
pub fn r2ur(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    if exec == 0 {
        return Ok(());
    }
    let lane = exec.trailing_zeros() as usize;
    let s = if d.a.present() { &d.a } else { &d.b };
    let v = ctx.src32(w, s, lane);
    let mut differs = lanes(exec)
        .filter(|&l| ctx.src32(w, s, l) != v)
        .fold(0u32, |m, l| m | 1 << l);
    // `.OR` (Hopper) accumulates: ptxas 13.5 chains `R2UR P2, UR6, R0; R2UR.OR P2, UR7, R12;
    // R2UR.OR P2, UR8, R9` to ask whether any of several values differs between the lanes
    // (`createpolicy_range` on sm_90); the reading of `.OR` as "or into Pd" rests on that SASS.
    if d.m.or_pred {
        differs |= w.pred_mask(d.pd[0], exec);
    }
    w.set_ureg(d.dst.reg, v);
    w.set_pred(d.pd[0].idx, exec, differs);
    Ok(())
}
