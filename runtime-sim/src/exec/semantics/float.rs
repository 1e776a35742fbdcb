//! Single-precision instructions: FADD, FMUL, FFMA, FSETP, FSET, FMNMX, FSEL (FCHK is in
//! [`super::fchk`]).

use super::{each, set_compare, write_dst};
use crate::decoded::{Decoded, SrcOp};
use crate::error::SimError;
use crate::exec::ctx::Ctx;
use crate::exec::warp::{WARP, Warp};
use crate::fp::{self, Rnd};
use ptxc_sass::isa::values::FmulScale;
use ptxc_softfloat as sf;

type R = Result<(), SimError>;

/// A float source row with `|x|` and `-x` applied.
#[inline]
pub fn frow(ctx: &Ctx, w: &Warp, s: &SrcOp) -> [f32; WARP] {
    let raw = ctx.row(w, s);
    let mut mask_and = u32::MAX;
    let mut mask_xor = 0;
    if s.abs {
        mask_and = 0x7fff_ffff;
    }
    if s.neg {
        mask_xor = 0x8000_0000;
    }
    let mut out = [0f32; WARP];
    for (o, v) in out.iter_mut().zip(raw) {
        *o = f32::from_bits((v & mask_and) ^ mask_xor);
    }
    out
}

/// Flushes (under `.FTZ`), canonicalises NaNs, saturates (under `.SAT`) and writes a row
/// of results.
fn write_results(w: &mut Warp, d: &Decoded, exec: u32, mut out: [f32; WARP]) {
    if d.m.ftz {
        fp::flush_row(&mut out);
    }
    fp::canon_row(&mut out);
    if d.m.sat {
        for v in out.iter_mut() {
            *v = fp::saturate(*v);
        }
    }
    let mut bits = [0u32; WARP];
    for (b, v) in bits.iter_mut().zip(out) {
        *b = v.to_bits();
    }
    write_dst(w, &d.dst, exec, &bits);
}

/// The A and B rows of a float instruction, flushed under `.FTZ`.
fn ab(ctx: &Ctx, w: &Warp, d: &Decoded) -> ([f32; WARP], [f32; WARP]) {
    let (mut a, mut b) = (frow(ctx, w, &d.a), frow(ctx, w, &d.b));
    if d.m.ftz {
        fp::flush_row(&mut a);
        fp::flush_row(&mut b);
    }
    (a, b)
}

/// FADD.
pub fn fadd(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (a, b) = ab(ctx, w, d);
    let mut out = [0f32; WARP];
    match fp::rnd(d.m.rnd) {
        Rnd::Rn => {
            for l in 0..WARP {
                out[l] = a[l] + b[l];
            }
        }
        rnd => {
            for l in 0..WARP {
                out[l] = fp::add(a[l], b[l], rnd, d.m.ftz);
            }
        }
    }
    write_results(w, d, exec, out);
    Ok(())
}

/// The power of two of FMUL's `.D8 .. .M8` scale.
fn scale_factor(scale: FmulScale) -> f32 {
    match scale {
        FmulScale::D8 => 0.125,
        FmulScale::D4 => 0.25,
        FmulScale::D2 => 0.5,
        FmulScale::One => 1.0,
        FmulScale::M2 => 2.0,
        FmulScale::M4 => 4.0,
        FmulScale::M8 => 8.0,
    }
}

/// `.FMZ`: a zero factor makes the product +0 even for infinity and NaN.
fn apply_fmz(d: &Decoded, a: &mut [f32; WARP], b: &mut [f32; WARP]) {
    if d.m.fmz {
        for l in 0..WARP {
            if a[l] == 0.0 || b[l] == 0.0 {
                a[l] = 0.0;
                b[l] = 0.0;
            }
        }
    }
}

/// FMUL (with `.FMZ` and the `.D2/.M2...` result scale).
pub fn fmul(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (mut a, mut b) = ab(ctx, w, d);
    apply_fmz(d, &mut a, &mut b);
    let scale = scale_factor(d.m.scale);
    let rnd = fp::rnd(d.m.rnd);
    let mut out = [0f32; WARP];
    if scale == 1.0 && rnd == Rnd::Rn {
        for l in 0..WARP {
            out[l] = a[l] * b[l];
        }
    } else {
        for l in 0..WARP {
            out[l] = if scale == 1.0 {
                fp::mul(a[l], b[l], rnd, d.m.ftz)
            } else {
                // The scale is exact: fold it into one factor unless that over/underflows.
                let xs = a[l] * scale;
                if xs.is_finite() && xs.is_normal() {
                    fp::mul(xs, b[l], rnd, d.m.ftz)
                } else {
                    fp::mul(fp::mul(a[l], b[l], rnd, d.m.ftz), scale, rnd, d.m.ftz)
                }
            };
        }
    }
    write_results(w, d, exec, out);
    Ok(())
}

/// FFMA.
pub fn ffma(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (mut a, mut b) = ab(ctx, w, d);
    let mut c = frow(ctx, w, &d.c);
    if d.m.ftz {
        fp::flush_row(&mut c);
    }
    apply_fmz(d, &mut a, &mut b);
    let mut out = [0f32; WARP];
    match fp::rnd(d.m.rnd) {
        Rnd::Rn => fp::fma_rows(&a, &b, &c, &mut out),
        rnd => {
            for l in 0..WARP {
                out[l] = fp::fma(a[l], b[l], c[l], rnd, d.m.ftz);
            }
        }
    }
    write_results(w, d, exec, out);
    Ok(())
}

/// The comparison results of FSETP/FSET for every lane.
fn fcompare(ctx: &Ctx, w: &Warp, d: &Decoded) -> u32 {
    let (a, b) = (frow(ctx, w, &d.a), frow(ctx, w, &d.b));
    let mut r = 0u32;
    for l in 0..WARP {
        let (x, y) = if d.m.ftz {
            (fp::flush(a[l]), fp::flush(b[l]))
        } else {
            (a[l], b[l])
        };
        r |= (fp::compare(d.m.float_cmp, x as f64, y as f64) as u32) << l;
    }
    r
}

/// FSETP: float compare into two predicates.
pub fn fsetp(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let r = fcompare(ctx, w, d);
    set_compare(w, d, exec, r);
    Ok(())
}

/// FSET: float compare into a register (`.BF`: 1.0 / 0.0, otherwise all ones / zero; sm_75
/// has only `.BF`).
pub fn fset(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let r = fcompare(ctx, w, d);
    let p = w.pred_mask(d.ps[0], u32::MAX);
    let bf = d.m.bool_float;
    each(w, d, exec, |_, l| {
        let v = super::combine(d.m.bop, (r >> l) & 1 == 1, (p >> l) & 1 == 1);
        match (v, bf) {
            (true, true) => 1.0f32.to_bits(),
            (true, false) => u32::MAX,
            (false, _) => 0,
        }
    });
    Ok(())
}

/// FMNMX: minimum when the predicate is true, maximum when false; `.NAN` (sm_80) gives the
/// canonical NaN for a NaN operand, `.XORSIGN` (sm_86) the XOR of the registers' signs
/// (before the sources' `|x|`) on a non-NaN result.
pub fn fmnmx(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (a, b) = (frow(ctx, w, &d.a), frow(ctx, w, &d.b));
    let (ra, rb) = (ctx.row(w, &d.a), ctx.row(w, &d.b));
    let p = w.pred_mask(d.ps[0], u32::MAX);
    let out: [u32; WARP] = std::array::from_fn(|l| {
        let mode = sf::MinMaxMode {
            max: (p >> l) & 1 == 0,
            nan: d.m.nan,
            xorsign: d.m.xorsign.then(|| ((ra[l] >> 31) == 1, (rb[l] >> 31) == 1)),
        };
        let [x, y] = [a[l], b[l]].map(|v| sf::flush_if(d.m.ftz, v.to_bits() as u64, sf::F32));
        sf::min_max_with(x, y, sf::F32, mode) as u32
    });
    write_dst(w, &d.dst, exec, &out);
    Ok(())
}

/// FSEL: `d = p ? a : b` (bit patterns).
pub fn fsel(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (a, b) = (frow(ctx, w, &d.a), frow(ctx, w, &d.b));
    let p = w.pred_mask(d.ps[0], u32::MAX);
    let out: [u32; WARP] = std::array::from_fn(|l| if (p >> l) & 1 == 1 { a[l] } else { b[l] }.to_bits());
    write_dst(w, &d.dst, exec, &out);
    Ok(())
}
