//! Single-precision float instructions and MUFU.

use super::ctx::Ctx;
use super::int::combine;
use super::warp::{Warp, lanes};
use crate::decoded::{Decoded, SrcOp};
use crate::fp::{self, Rnd};
use ptxc_backend::isa::Op;

/// A float source with `-` and `|x|` applied (and flushed under `.FTZ` by the operation).
fn fsrc(ctx: &Ctx, w: &Warp, s: &SrcOp, lane: usize) -> f32 {
    let mut x = f32::from_bits(ctx.src32(w, s, lane));
    if s.abs {
        x = x.abs();
    }
    if s.neg {
        x = -x;
    }
    x
}

/// Executes a float instruction for the lanes of `mask`.
pub fn exec(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, mask: u32) {
    let rnd = Rnd::from_bits(d.m.rnd);
    let ftz = d.m.ftz;
    let post = |x: f32| if d.m.sat { fp::saturate(x) } else { x };
    match d.op {
        Op::Fadd => each(w, mask, d.dst, |w, l| {
            post(fp::add(fsrc(ctx, w, &d.a, l), fsrc(ctx, w, &d.b, l), rnd, ftz))
        }),
        Op::Fmul => each(w, mask, d.dst, |w, l| {
            post(fp::mul(fsrc(ctx, w, &d.a, l), fsrc(ctx, w, &d.b, l), rnd, ftz))
        }),
        Op::Ffma => each(w, mask, d.dst, |w, l| {
            post(fp::fma(
                fsrc(ctx, w, &d.a, l),
                fsrc(ctx, w, &d.b, l),
                fsrc(ctx, w, &d.c, l),
                rnd,
                ftz,
            ))
        }),
        Op::Fmnmx => each(w, mask, d.dst, |w, l| {
            let max = w.pred_mask(d.ps[0], 1 << l) == 0;
            fp::min_max(fsrc(ctx, w, &d.a, l), fsrc(ctx, w, &d.b, l), max, ftz)
        }),
        Op::Fsel => {
            let mut out = [0u32; 32];
            for l in lanes(mask) {
                let s = if w.pred_mask(d.ps[0], 1 << l) != 0 { &d.a } else { &d.b };
                out[l] = ctx.src32(w, s, l);
            }
            for l in lanes(mask) {
                w.set_reg(d.dst, l, out[l]);
            }
        }
        Op::Fsetp => fsetp(ctx, w, d, mask),
        Op::Mufu => each(w, mask, d.dst, |w, l| mufu(d.m.func, fsrc(ctx, w, &d.b, l))),
        _ => unreachable!("not a float instruction: {:?}", d.op),
    }
}

fn each(w: &mut Warp, mask: u32, dst: u8, mut f: impl FnMut(&Warp, usize) -> f32) {
    let mut out = [0u32; 32];
    for l in lanes(mask) {
        out[l] = f(w, l).to_bits();
    }
    for l in lanes(mask) {
        w.set_reg(dst, l, out[l]);
    }
}

/// FSETP comparison codes (sm75-encoding.md B.2).
fn fcmp(code: u8, a: f32, b: f32) -> bool {
    let unordered = a.is_nan() || b.is_nan();
    match code {
        0 => false,
        1 => a < b,
        2 => a == b,
        3 => a <= b,
        4 => a > b,
        5 => a != b && !unordered,
        6 => a >= b,
        7 => !unordered,
        8 => unordered,
        9 => unordered || a < b,
        10 => unordered || a == b,
        11 => unordered || a <= b,
        12 => unordered || a > b,
        13 => a != b,
        14 => unordered || a >= b,
        _ => true,
    }
}

fn fsetp(ctx: &Ctx, w: &mut Warp, d: &Decoded, mask: u32) {
    let (mut p0, mut p1) = (0u32, 0u32);
    for l in lanes(mask) {
        let (mut a, mut b) = (fsrc(ctx, w, &d.a, l), fsrc(ctx, w, &d.b, l));
        if d.m.ftz {
            a = fp::flush(a);
            b = fp::flush(b);
        }
        let r = fcmp(d.m.cmp, a, b);
        let p = w.pred_mask(d.ps[0], 1 << l) != 0;
        p0 |= (combine(d.m.bop, r, p) as u32) << l;
        p1 |= (combine(d.m.bop, !r, p) as u32) << l;
    }
    w.set_pred(d.pd[0], mask, p0);
    w.set_pred(d.pd[1], mask, p1);
}

/// MUFU functions: the host's correctly rounded functions stand in for the hardware's
/// approximations (within their documented error bounds); SIN/COS take the argument in
/// revolutions (x / 2π), as ptxas pre-scales it.
fn mufu(func: u8, x: f32) -> f32 {
    let x = fp::flush(x);
    let r = match func {
        0 => (x as f64 * std::f64::consts::TAU).cos() as f32,
        1 => (x as f64 * std::f64::consts::TAU).sin() as f32,
        2 => x.exp2(),
        3 => x.log2(),
        4 => 1.0 / x,
        5 => 1.0 / x.sqrt(),
        8 => x.sqrt(),
        9 => x.tanh(),
        _ => f32::NAN,
    };
    fp::flush(r)
}
