//! Double precision: DADD, DMUL, DFMA (with rounding modes) and DSETP. Register operands
//! are pairs; an immediate is the high word of an f64 (its low word is zero).

use super::{set_compare, write_dst64};
use crate::decoded::{Decoded, Src, SrcOp};
use crate::error::SimError;
use crate::exec::ctx::Ctx;
use crate::exec::warp::{WARP, Warp, lanes};
use crate::fp::{self, Rnd};

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
    let rnd = Rnd::from_bits(d.m.rnd);
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

/// DSETP: f64 compare into two predicates.
pub fn dsetp(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let mut r = 0u32;
    for l in lanes(exec) {
        let (a, b) = (dsrc(ctx, w, &d.a, l), dsrc(ctx, w, &d.b, l));
        r |= (fp::compare(d.m.cmp, a, b) as u32) << l;
    }
    set_compare(w, d, exec, r);
    Ok(())
}
