//! MUFU, the special-function unit. The hardware computes approximations (about 1 ulp for
//! RCP/RSQ/SQRT, 2 ulp for EX2/LG2 in their full ranges, absolute error around 2^-21 for
//! SIN/COS); we use the correctly rounded values, which lie within those bounds. Inputs and
//! outputs are flushed to zero. SIN and COS take their argument in revolutions (ptxas
//! multiplies by 1/(2π) first); RCP64H and RSQ64H work on the high word of an f64.

use super::write_dst;
use crate::decoded::Decoded;
use crate::error::SimError;
use crate::exec::ctx::Ctx;
use crate::exec::warp::{WARP, Warp};
use crate::fp::{self, Rnd};
use ptxc_sass::isa::values::MufuFunc;
use ptxc_softfloat::{self as sf, BF16, F16, F32};

/// The f32 result of a single-precision function.
pub fn eval32(func: MufuFunc, x: f32) -> f32 {
    let x = fp::flush(x);
    let xd = x as f64;
    let r = match func {
        MufuFunc::Cos => (xd * std::f64::consts::TAU).cos() as f32,
        MufuFunc::Sin => (xd * std::f64::consts::TAU).sin() as f32,
        MufuFunc::Ex2 => xd.exp2() as f32,
        MufuFunc::Lg2 => xd.log2() as f32,
        MufuFunc::Rcp => (1.0 / xd) as f32,
        MufuFunc::Rsq => (1.0 / xd.sqrt()) as f32,
        MufuFunc::Sqrt => xd.sqrt() as f32,
        MufuFunc::Tanh => xd.tanh() as f32,
        // Only MUFU.RCP64H and RSQ64H take f64 high words (`eval64h`).
        MufuFunc::Rcp64h | MufuFunc::Rsq64h => f32::NAN,
    };
    fp::canon(fp::flush(r))
}

/// The high word of an f64 function of the f64 whose high word is `hi`.
pub fn eval64h(func: MufuFunc, hi: u32) -> u32 {
    let x = f64::from_bits((hi as u64) << 32);
    let r = match func {
        MufuFunc::Rcp64h => 1.0 / x,
        _ => 1.0 / x.sqrt(),
    };
    let r = fp::flush64(r);
    if r.is_nan() {
        0x7fff_ffff
    } else {
        (r.to_bits() >> 32) as u32
    }
}

/// MUFU.
pub fn mufu(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> Result<(), SimError> {
    let code = d.m.mufu;
    let out: [u32; WARP] = if matches!(code, MufuFunc::Rcp64h | MufuFunc::Rsq64h) {
        let raw = ctx.row(w, &d.b);
        let (and, xor) = (
            if d.b.abs { 0x7fff_ffff } else { u32::MAX },
            if d.b.neg { 0x8000_0000 } else { 0 },
        );
        raw.map(|v| eval64h(code, (v & and) ^ xor))
    } else if d.m.mufu_f16 || d.m.bf16 {
        // MUFU.F16 / .BF16 (sm_90): a half source (`.H1` selects the high half), a half
        // result (rounded to nearest even: a model).
        let fmt = if d.m.bf16 { BF16 } else { F16 };
        let raw = ctx.row(w, &d.b);
        raw.map(|v| {
            let mut h = (v >> (16 * (d.b.swizzle as u32 & 1))) as u64 & 0xffff;
            if d.b.abs {
                h &= 0x7fff;
            }
            if d.b.neg {
                h ^= 0x8000;
            }
            let x = f32::from_bits(sf::convert(h, fmt, F32, Rnd::Rn) as u32);
            let r = eval32(code, x).to_bits() as u64;
            sf::convert(r, F32, fmt, Rnd::Rn) as u32
        })
    } else {
        super::float::frow(ctx, w, &d.b).map(|x| eval32(code, x).to_bits())
    };
    write_dst(w, &d.dst, exec, &out);
    Ok(())
}
