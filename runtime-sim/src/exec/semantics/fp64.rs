//! Double precision: DADD, DMUL, DFMA (with rounding modes) and DSETP. Register operands
//! are pairs; an immediate is the high word of an f64 (its low word is zero).

use super::{combine, set_compare, write_dst64};
use crate::decoded::{Decoded, Src, SrcOp};
use crate::error::SimError;
use crate::exec::ctx::Ctx;
use crate::exec::warp::{WARP, Warp, lanes};
use crate::fp::{self, Rnd};
use ptxc_sass::isa::values::{DoubleCmp, FloatCmp};

type R = Result<(), SimError>;

/// An f64 source of `lane` with `|x|` and `-x` applied.
#[inline]
pub fn dsrc(ctx: &Ctx, w: &Warp, s: &SrcOp, lane: usize) -> f64 {
    let bits = match s.src {
        Src::Imm(v) => (v & 0xffff_ffff) << 32,
        _ => ctx.src64(w, s, lane),
    };
    let mut x = f64::from_bits(bits);
    if s.abs {
        x = x.abs();
    }
    if s.neg {
        x = -x;
    }
    x
}

fn run(ctx: &Ctx, w: &mut Warp, d: &Decoded, exec: u32, f: impl Fn(f64, f64, f64, Rnd) -> f64) {
    let rnd = fp::rnd(d.m.rnd);
    let mut out = [0u64; WARP];
    for l in lanes(exec) {
        let (a, b, c) = (dsrc(ctx, w, &d.a, l), dsrc(ctx, w, &d.b, l), dsrc(ctx, w, &d.c, l));
        out[l] = f(a, b, c, rnd).to_bits();
    }
    write_dst64(w, &d.dst, exec, &out);
}

/// DADD.
pub fn dadd(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    run(ctx, w, d, exec, |a, b, _, r| fp::dadd(a, b, r));
    Ok(())
}

/// DMUL.
pub fn dmul(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    run(ctx, w, d, exec, |a, b, _, r| fp::dmul(a, b, r));
    Ok(())
}

/// DFMA.
pub fn dfma(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    run(ctx, w, d, exec, fp::dfma);
    Ok(())
}

/// `DSETP.MIN` / `DSETP.MAX` (compare codes 0 and 15): whether `a` is the minimum
/// (maximum) of `a` and `b` in the sense of `fmin`/`fmax`: a NaN loses, -0 < +0. ptxas
/// selects `fmin(a, b)` with it (`DSETP.MIN.AND P3, P4, R2, 1, PT; FSEL ..., P3`).
pub fn picks_a(max: bool, a: f64, b: f64) -> bool {
    if b.is_nan() {
        return true;
    }
    if a.is_nan() {
        return false;
    }
    if a == b {
        // Equal values: -0 is the smaller zero.
        return a.is_sign_negative() != max || a.is_sign_negative() == b.is_sign_negative();
    }
    (a < b) != max
}

/// DSETP: f64 compare into two predicates (`r` and `!r`, combined with the predicate
/// source). `.MIN`/`.MAX` instead give "select a" and "both are NaN" (ptxas then makes the
/// result a quiet NaN: `@P4 LOP3.LUT R15, R14(0x80000), 0x3ff00000, RZ, 0xfc`).
pub fn dsetp(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (mut r, mut both_nan) = (0u32, 0u32);
    for l in lanes(exec) {
        let (a, b) = (dsrc(ctx, w, &d.a, l), dsrc(ctx, w, &d.b, l));
        let v = match d.m.double_cmp {
            DoubleCmp::Min => picks_a(false, a, b),
            DoubleCmp::Max => picks_a(true, a, b),
            c => fp::compare(FloatCmp::from_code(c.code()).expect("DSETP shares FSETP's codes"), a, b),
        };
        r |= (v as u32) << l;
        both_nan |= ((a.is_nan() && b.is_nan()) as u32) << l;
    }
    if matches!(d.m.double_cmp, DoubleCmp::Min | DoubleCmp::Max) {
        let p = w.pred_mask(d.ps[0], exec);
        let (mut p0, mut p1) = (0u32, 0u32);
        for l in lanes(exec) {
            let pin = (p >> l) & 1 == 1;
            p0 |= (combine(d.m.bop, (r >> l) & 1 == 1, pin) as u32) << l;
            p1 |= (combine(d.m.bop, (both_nan >> l) & 1 == 1, pin) as u32) << l;
        }
        w.set_pred(d.pd[0].idx, exec, p0);
        w.set_pred(d.pd[1].idx, exec, p1);
    } else {
        set_compare(w, d, exec, r);
    }
    Ok(())
}
