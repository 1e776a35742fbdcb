//! Integer, logic, predicate and special-register instructions.

use super::ctx::Ctx;
use super::warp::{Warp, lanes};
use crate::decoded::{Decoded, PredOp};
use ptxc_backend::isa::Op;

/// Applies an integer negation (`-x`, two's complement) or, in `.X` forms, a complement.
fn ineg(v: u32, neg: bool, x: bool) -> u64 {
    match (neg, x) {
        (false, _) => v as u64,
        (true, true) => !v as u64,
        (true, false) => (!v) as u64 + 1,
    }
}

fn pred_bit(w: &Warp, p: PredOp, lane: usize) -> bool {
    let v = (w.preds[p.idx as usize & 7] >> lane) & 1 == 1;
    v != p.neg
}

/// Executes an integer instruction for the lanes of `mask`.
pub fn exec(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, mask: u32) {
    match d.op {
        Op::Mov => each(w, mask, |w, l| ctx.src32(w, &d.b, l), d.dst),
        Op::Iadd3 => iadd3(ctx, w, d, mask),
        Op::Imad => each(
            w,
            mask,
            |w, l| {
                let (a, b, c) = (ctx.src32(w, &d.a, l), ctx.src32(w, &d.b, l), ctx.src32(w, &d.c, l));
                let c = ineg(c, d.c.neg, d.m.x) as u32;
                let carry = d.m.x && pred_bit(w, d.ps[0], l);
                a.wrapping_mul(b).wrapping_add(c).wrapping_add(carry as u32)
            },
            d.dst,
        ),
        Op::ImadHi => each(
            w,
            mask,
            |w, l| {
                let (a, b, c) = (ctx.src32(w, &d.a, l), ctx.src32(w, &d.b, l), ctx.src32(w, &d.c, l));
                let hi = if d.m.signed {
                    ((a as i32 as i64 * b as i32 as i64) >> 32) as u32
                } else {
                    ((a as u64 * b as u64) >> 32) as u32
                };
                hi.wrapping_add(c)
            },
            d.dst,
        ),
        Op::ImadWide => {
            for l in lanes(mask) {
                let (a, b) = (ctx.src32(w, &d.a, l), ctx.src32(w, &d.b, l));
                let c = ctx.src64(w, &d.c, l);
                let c = if d.c.neg { c.wrapping_neg() } else { c };
                let p = if d.m.signed {
                    (a as i32 as i64).wrapping_mul(b as i32 as i64) as u64
                } else {
                    a as u64 * b as u64
                };
                w.set_reg64(d.dst, l, p.wrapping_add(c));
            }
        }
        Op::Lea | Op::LeaHi => lea(ctx, w, d, mask),
        Op::Lop3 => lop3(ctx, w, d, mask),
        Op::Shf => each(
            w,
            mask,
            |w, l| shf(d, ctx.src32(w, &d.a, l), ctx.src32(w, &d.b, l), ctx.src32(w, &d.c, l)),
            d.dst,
        ),
        Op::Isetp => isetp(ctx, w, d, mask),
        Op::Sel => each(
            w,
            mask,
            |w, l| {
                if pred_bit(w, d.ps[0], l) {
                    ctx.src32(w, &d.a, l)
                } else {
                    ctx.src32(w, &d.b, l)
                }
            },
            d.dst,
        ),
        Op::Imnmx => each(
            w,
            mask,
            |w, l| {
                let (a, b) = (ctx.src32(w, &d.a, l), ctx.src32(w, &d.b, l));
                let max = !pred_bit(w, d.ps[0], l);
                match (d.m.signed, max) {
                    (true, false) => (a as i32).min(b as i32) as u32,
                    (true, true) => (a as i32).max(b as i32) as u32,
                    (false, false) => a.min(b),
                    (false, true) => a.max(b),
                }
            },
            d.dst,
        ),
        Op::Plop3 => plop3(w, d, mask),
        _ => unreachable!("not an integer instruction: {:?}", d.op),
    }
}

/// Writes `f(lane)` to `dst` for each lane of `mask` (values are computed before writing).
fn each(w: &mut Warp, mask: u32, mut f: impl FnMut(&Warp, usize) -> u32, dst: u8) {
    let mut out = [0u32; 32];
    for l in lanes(mask) {
        out[l] = f(w, l);
    }
    for l in lanes(mask) {
        w.set_reg(dst, l, out[l]);
    }
}

fn iadd3(ctx: &Ctx, w: &mut Warp, d: &Decoded, mask: u32) {
    let mut c0 = 0u32;
    let mut c1 = 0u32;
    let mut out = [0u32; 32];
    for l in lanes(mask) {
        let a = ineg(ctx.src32(w, &d.a, l), d.a.neg, d.m.x);
        let b = ineg(ctx.src32(w, &d.b, l), d.b.neg, d.m.x);
        let c = ineg(ctx.src32(w, &d.c, l), d.c.neg, d.m.x);
        let carry = if d.m.x {
            pred_bit(w, d.ps[0], l) as u64 + pred_bit(w, d.ps[1], l) as u64
        } else {
            0
        };
        let sum = a + b + c + carry;
        out[l] = sum as u32;
        c0 |= (((sum >> 32) & 1) as u32) << l;
        c1 |= (((sum >> 33) & 1) as u32) << l;
    }
    for l in lanes(mask) {
        w.set_reg(d.dst, l, out[l]);
    }
    w.set_pred(d.pd[0], mask, c0);
    w.set_pred(d.pd[1], mask, c1);
}

fn lea(ctx: &Ctx, w: &mut Warp, d: &Decoded, mask: u32) {
    let s = (d.other & 31) as u32;
    let mut carry_out = 0u32;
    let mut out = [0u32; 32];
    for l in lanes(mask) {
        let a = ctx.src32(w, &d.a, l);
        let a = if d.a.neg {
            if d.m.x { !a } else { a.wrapping_neg() }
        } else {
            a
        };
        let b = ctx.src32(w, &d.b, l);
        let shifted = if d.m.hi {
            let c = if d.m.sx32 {
                ((a as i32) >> 31) as u32
            } else {
                ctx.src32(w, &d.c, l)
            };
            let wide = (c as u64) << 32 | a as u64;
            ((wide << s) >> 32) as u32
        } else {
            a << s
        };
        let carry = d.m.x && pred_bit(w, d.ps[0], l);
        let sum = shifted as u64 + b as u64 + carry as u64;
        out[l] = sum as u32;
        carry_out |= (((sum >> 32) & 1) as u32) << l;
    }
    for l in lanes(mask) {
        w.set_reg(d.dst, l, out[l]);
    }
    w.set_pred(d.pd[0], mask, carry_out);
}

fn lop3(ctx: &Ctx, w: &mut Warp, d: &Decoded, mask: u32) {
    let lut = d.other as u32;
    let mut nonzero = 0u32;
    let mut out = [0u32; 32];
    for l in lanes(mask) {
        let (a, b, c) = (ctx.src32(w, &d.a, l), ctx.src32(w, &d.b, l), ctx.src32(w, &d.c, l));
        let mut r = 0u32;
        for bit in 0..8 {
            if lut & (1 << bit) != 0 {
                let fa = if bit & 4 != 0 { a } else { !a };
                let fb = if bit & 2 != 0 { b } else { !b };
                let fc = if bit & 1 != 0 { c } else { !c };
                r |= fa & fb & fc;
            }
        }
        out[l] = r;
        nonzero |= ((r != 0) as u32) << l;
    }
    for l in lanes(mask) {
        w.set_reg(d.dst, l, out[l]);
    }
    w.set_pred(d.pd[0], mask, nonzero);
}

/// The funnel shift of `(c:a)` by `amount`, clamped to the type width unless `.W`
/// (types: 0 S64, 1 U64, 2 S32, 3 U32; signed right shifts are arithmetic).
fn shf(d: &Decoded, a: u32, amount: u32, c: u32) -> u32 {
    let bits: u32 = if d.m.shf_type >= 2 { 32 } else { 64 };
    let s = if d.m.w { amount & (bits - 1) } else { amount.min(bits) };
    let x = (c as u64) << 32 | a as u64;
    let signed = d.m.shf_type.is_multiple_of(2);
    let r = match (d.m.right, signed) {
        (false, _) => x.checked_shl(s).unwrap_or(0),
        (true, true) => ((x as i64) >> s.min(63)) as u64,
        (true, false) => x.checked_shr(s).unwrap_or(0),
    };
    if d.m.hi { (r >> 32) as u32 } else { r as u32 }
}

/// ISETP compare codes: 0 F, 1 LT, 2 EQ, 3 LE, 4 GT, 5 NE, 6 GE, 7 T.
fn icmp(code: u8, a: u32, b: u32, signed: bool) -> bool {
    let ord = if signed { (a as i32).cmp(&(b as i32)) } else { a.cmp(&b) };
    use std::cmp::Ordering::*;
    match code {
        0 => false,
        1 => ord == Less,
        2 => ord == Equal,
        3 => ord != Greater,
        4 => ord == Greater,
        5 => ord != Equal,
        6 => ord != Less,
        _ => true,
    }
}

/// Combines a comparison with the predicate source (`.AND/.OR/.XOR`).
pub fn combine(bop: u8, r: bool, p: bool) -> bool {
    match bop {
        0 => r && p,
        1 => r || p,
        _ => r ^ p,
    }
}

fn isetp(ctx: &Ctx, w: &mut Warp, d: &Decoded, mask: u32) {
    let (mut p0, mut p1) = (0u32, 0u32);
    for l in lanes(mask) {
        let (a, b) = (ctx.src32(w, &d.a, l), ctx.src32(w, &d.b, l));
        let r = if d.m.ex {
            // The high words of a 64-bit compare; the low-word result comes in as a predicate.
            let low = pred_bit(w, d.ps[1], l);
            match d.m.cmp {
                2 => a == b && low,
                5 => a != b || low,
                // Ordered compares: decided by the high words unless they are equal.
                code => (a != b && icmp(code, a, b, d.m.signed)) || (a == b && low),
            }
        } else {
            icmp(d.m.cmp, a, b, d.m.signed)
        };
        let p = pred_bit(w, d.ps[0], l);
        p0 |= (combine(d.m.bop, r, p) as u32) << l;
        p1 |= (combine(d.m.bop, !r, p) as u32) << l;
    }
    w.set_pred(d.pd[0], mask, p0);
    w.set_pred(d.pd[1], mask, p1);
}

fn plop3(w: &mut Warp, d: &Decoded, mask: u32) {
    let (mut p0, mut p1) = (0u32, 0u32);
    for l in lanes(mask) {
        let idx = (pred_bit(w, d.ps[0], l) as u32) << 2
            | (pred_bit(w, d.ps[1], l) as u32) << 1
            | pred_bit(w, d.ps[2], l) as u32;
        p0 |= (((d.other >> idx) & 1) as u32) << l;
        p1 |= (((d.aux >> idx) & 1) as u32) << l;
    }
    w.set_pred(d.pd[0], mask, p0);
    w.set_pred(d.pd[1], mask, p1);
}
