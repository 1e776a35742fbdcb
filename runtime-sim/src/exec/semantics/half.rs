//! Packed half precision: HADD2, HMUL2, HFMA2, HSETP2, HSET2, HMNMX2 (sm_80). A 32-bit register
//! holds two f16 values (H0 in the low half); a source swizzle selects `.H1_H0` (as is),
//! `.H0_H0`, `.H1_H1` or `.F32` (an f32 operand converted to f16 toward zero). `.F32` on the
//! instruction writes the low lane's f16 result widened to f32 (ptxas folds
//! `cvt.f32.f16` of a half result into it: `HMUL2.F32 R17, R8.H0_H0, R5.H0_H0`).

use super::{combine, write_dst};
use crate::decoded::{Decoded, Src, SrcOp};
use crate::error::SimError;
use crate::exec::ctx::Ctx;
use crate::exec::warp::{WARP, Warp};
use crate::fp::Rnd;
use ptxc_softfloat::{self as sf, BF16, F16, F32};

type R = Result<(), SimError>;

/// Source swizzle codes.
const SWZ_H1_H0: u8 = 0;
const SWZ_F32: u8 = 1;
const SWZ_H0_H0: u8 = 2;
const SWZ_H1_H1: u8 = 3;

/// The two f16 lanes (low, high) of a source value with its swizzle and modifiers.
pub fn halves(v: u32, s: &SrcOp) -> [u16; 2] {
    let (lo, hi) = (v as u16, (v >> 16) as u16);
    let mut pair = match s.swizzle {
        SWZ_H0_H0 => [lo, lo],
        SWZ_H1_H1 => [hi, hi],
        SWZ_F32 => {
            // An f32 operand is converted toward zero: ptxas compiles `cvt.rz.f16.f32` (and
            // only that rounding) to `HADD2 Rd, Ra.F32, -RZ.H0_H0`.
            let h = sf::convert(v as u64, F32, F16, Rnd::Rz) as u16;
            [h, h]
        }
        SWZ_H1_H0 | 4.. => [lo, hi],
    };
    for h in pair.iter_mut() {
        if s.abs {
            *h &= 0x7fff;
        }
        if s.neg {
            *h ^= 0x8000;
        }
    }
    pair
}

/// The row of a half source (immediates are two halves).
fn hrow(ctx: &Ctx, w: &Warp, s: &SrcOp) -> [[u16; 2]; WARP] {
    let raw = match s.src {
        Src::None => [0; WARP],
        _ => ctx.row(w, s),
    };
    raw.map(|v| halves(v, s))
}

/// True when the instruction writes one f32 (`.F32`).
fn f32_result(d: &Decoded) -> bool {
    d.m.half_f32
}

/// Applies `op` to each f16 lane (operands and result flushed under `.FTZ`; the low lane,
/// widened to f32, under `.F32`) and writes the result. Under `.BF16_V2` (HFMA2, sm_80) the
/// lanes are bf16; under `.RELU` (HFMA2, sm_80) a negative result (-0 included) becomes +0
/// and a NaN stays the canonical NaN, as F2FP.RELU does.
fn binary(ctx: &Ctx, w: &mut Warp, d: &Decoded, exec: u32, op: impl Fn(u64, u64, u64, sf::Format) -> u64) {
    let (a, b, c) = (hrow(ctx, w, &d.a), hrow(ctx, w, &d.b), hrow(ctx, w, &d.c));
    let ftz = d.m.ftz;
    let wide = f32_result(d);
    let fmt = if d.m.bf16 { BF16 } else { F16 };
    let sat = |x: u64, f: sf::Format| -> u64 {
        if !d.m.sat {
            return x;
        }
        // Clamp to [0, 1]: NaN and negatives give +0.
        let one = if f == F16 {
            0x3c00
        } else if f == BF16 {
            0x3f80
        } else {
            0x3f80_0000
        };
        let sign = f.sign_bit();
        if x & sign != 0 || (x & !sign) > f.inf(false) {
            0
        } else if (x & !sign) >= one {
            one
        } else {
            x
        }
    };
    let relu = |x: u64| -> u64 {
        if d.m.relu && x & fmt.sign_bit() != 0 && !fmt.is_nan(x) {
            0
        } else {
            x
        }
    };
    let out: [u32; WARP] = std::array::from_fn(|l| {
        let lane = |i: usize| {
            let [x, y, z] = [a[l][i], b[l][i], c[l][i]].map(|h| sf::flush_if(ftz, h as u64, fmt));
            relu(sat(sf::flush_if(ftz, op(x, y, z, fmt), fmt), fmt))
        };
        if wide {
            // `.F32`: the low lane's f16 result, widened.
            sf::convert(lane(0), fmt, F32, Rnd::Rn) as u32
        } else {
            lane(0) as u32 | (lane(1) as u32) << 16
        }
    });
    write_dst(w, &d.dst, exec, &out);
}

/// HADD2.
pub fn hadd2(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    binary(ctx, w, d, exec, |a, b, _, f| sf::add(a, b, f, Rnd::Rn));
    Ok(())
}

/// HMUL2.
pub fn hmul2(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    binary(ctx, w, d, exec, |a, b, _, f| sf::mul(a, b, f, Rnd::Rn));
    Ok(())
}

/// HFMA2.
pub fn hfma2(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    binary(ctx, w, d, exec, |a, b, c, f| sf::fma(a, b, c, f, Rnd::Rn));
    Ok(())
}

/// HMNMX2 (sm_80): the lane-wise minimum (predicate true) or maximum of two f16 (or bf16,
/// `.BF16_V2`) pairs, operands flushed under `.FTZ`; `.NAN` gives the canonical NaN for a
/// NaN operand, `.XORSIGN` (sm_86) the XOR of the register lanes' signs (taken before the
/// sources' `|x|`) on a non-NaN result.
pub fn hmnmx2(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (a, b) = (hrow(ctx, w, &d.a), hrow(ctx, w, &d.b));
    let plain = |s: &SrcOp| SrcOp {
        abs: false,
        neg: false,
        ..*s
    };
    let (ra, rb) = (hrow(ctx, w, &plain(&d.a)), hrow(ctx, w, &plain(&d.b)));
    let p = w.pred_mask(d.ps[0], u32::MAX);
    let fmt = if d.m.bf16 { BF16 } else { F16 };
    let sign = |h: u16| h as u64 & fmt.sign_bit() != 0;
    let out: [u32; WARP] = std::array::from_fn(|l| {
        let lane = |i: usize| {
            let mode = sf::MinMaxMode {
                max: (p >> l) & 1 == 0,
                nan: d.m.nan,
                xorsign: d.m.xorsign.then(|| (sign(ra[l][i]), sign(rb[l][i]))),
            };
            let [x, y] = [a[l][i], b[l][i]].map(|h| sf::flush_if(d.m.ftz, h as u64, fmt));
            sf::min_max_with(x, y, fmt, mode) as u32
        };
        lane(0) | lane(1) << 16
    });
    write_dst(w, &d.dst, exec, &out);
    Ok(())
}

/// An f16 as f64 (flushed under `ftz`).
fn wide(h: u16, ftz: bool) -> f64 {
    let bits = sf::convert(sf::flush_if(ftz, h as u64, F16), F16, F32, Rnd::Rn);
    f32::from_bits(bits as u32) as f64
}

/// Per-lane comparison results of the low and high halves.
fn hcompare(ctx: &Ctx, w: &Warp, d: &Decoded) -> [[bool; 2]; WARP] {
    let (a, b) = (hrow(ctx, w, &d.a), hrow(ctx, w, &d.b));
    std::array::from_fn(|l| {
        [0, 1].map(|i| crate::fp::compare(d.m.float_cmp, wide(a[l][i], d.m.ftz), wide(b[l][i], d.m.ftz)))
    })
}

/// True under `.H_AND` (both halves combined into one result).
fn h_and(d: &Decoded) -> bool {
    d.m.half_and
}

/// HSETP2: compares both halves; P0/P1 get the low/high results combined with the
/// predicate source (under `.H_AND`, both halves AND-ed into P0 and its complement P1).
pub fn hsetp2(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let r = hcompare(ctx, w, d);
    let pin = w.pred_mask(d.ps[0], u32::MAX);
    let both = h_and(d);
    let (mut p0, mut p1) = (0u32, 0u32);
    for (l, rl) in r.iter().enumerate() {
        let p = (pin >> l) & 1 == 1;
        let (x, y) = if both {
            let v = rl[0] && rl[1];
            (combine(d.m.bop, v, p), combine(d.m.bop, !v, p))
        } else {
            (combine(d.m.bop, rl[0], p), combine(d.m.bop, rl[1], p))
        };
        p0 |= (x as u32) << l;
        p1 |= (y as u32) << l;
    }
    w.set_pred(d.pd[0].idx, exec, p0);
    w.set_pred(d.pd[1].idx, exec, p1);
    Ok(())
}

/// HSET2: compares both halves into a register (`.BF`: 1.0 / 0.0 halves, else 0xffff / 0).
pub fn hset2(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let r = hcompare(ctx, w, d);
    let pin = w.pred_mask(d.ps[0], u32::MAX);
    let bf = d.m.bool_float;
    let out: [u32; WARP] = std::array::from_fn(|l| {
        let p = (pin >> l) & 1 == 1;
        let half = |i: usize| {
            let v = combine(d.m.bop, r[l][i], p);
            match (v, bf) {
                (true, true) => 0x3c00u32,
                (true, false) => 0xffff,
                (false, _) => 0,
            }
        };
        half(0) | half(1) << 16
    });
    write_dst(w, &d.dst, exec, &out);
    Ok(())
}
