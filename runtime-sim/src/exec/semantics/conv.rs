//! Conversions: I2F, F2I, F2F, FRND, I2I, I2IP. The number types and the rounding mode come
//! from the modifiers' spellings (`.F16`, `.S64`, `.TRUNC`, `.RP` ...), see
//! [`crate::decoded::NumType`]. Float-to-integer conversions saturate; NaN becomes 0 under
//! `.NTZ` ("NaN to zero", which ptxas sets for f16/f32 sources and results of 32 bits or
//! fewer) and `1 << (w - 1)` otherwise, as the PTX ISA specifies for `cvt`.

use super::write_dst;
use crate::decoded::{Decoded, NumType, Src, SrcOp};
use crate::error::SimError;
use crate::exec::ctx::Ctx;
use crate::exec::warp::{WARP, Warp, lanes};
use crate::fp;
use ptxc_softfloat::{self as sf, F16, F32, F64, Format, IntType, nvidia};

type R = Result<(), SimError>;

fn format(t: NumType) -> Format {
    match t {
        NumType::F16 => F16,
        NumType::F64 => F64,
        _ => F32,
    }
}

/// The single source of a conversion (B, or A) for `lane`: `width` bytes, with float
/// `|x|`/`-x` applied for float sources.
fn source(ctx: &Ctx, w: &Warp, d: &Decoded, t: NumType, lane: usize) -> u64 {
    let s: &SrcOp = if d.b.present() { &d.b } else { &d.a };
    let mut v = match (s.src, t.bytes()) {
        // A 64-bit immediate (f64, or the 64-bit integer of I2F) is its upper word.
        (Src::Imm(x), 8) => (x & 0xffff_ffff) << 32,
        (_, 8) => ctx.src64(w, s, lane),
        _ => ctx.src32(w, s, lane) as u64,
    };
    // Sub-word sources: the suffix selects the byte (`.B1`..`.B3`) or half (`.H1`).
    match t.bytes() {
        1 => v >>= 8 * (s.swizzle as u64 & 3),
        2 => v >>= 16 * (s.swizzle as u64 & 1),
        _ => {}
    }
    if t.is_float() {
        let f = format(t);
        if t == NumType::F16 {
            v &= 0xffff;
        }
        if s.abs {
            v &= !f.sign_bit();
        }
        if s.neg {
            v ^= f.sign_bit();
        }
    } else if s.neg {
        v = (v as i64).wrapping_neg() as u64;
    }
    v
}

/// An integer source value of type `t`, sign- or zero-extended from its width.
fn int_value(v: u64, t: NumType) -> i128 {
    let bits = 8 * t.bytes();
    let m = if bits >= 64 { v } else { v & ((1u64 << bits) - 1) };
    if t.is_signed() && bits < 128 {
        let shift = 64 - bits;
        ((m << shift) as i64 >> shift) as i128
    } else {
        m as i128
    }
}

/// Writes `values` (of type `t`) to the destination.
fn write(w: &mut Warp, d: &Decoded, exec: u32, t: NumType, values: &[u64; WARP]) {
    if t.bytes() == 8 {
        super::write_dst64(w, &d.dst, exec, values);
    } else {
        let out: [u32; WARP] = std::array::from_fn(|l| values[l] as u32);
        write_dst(w, &d.dst, exec, &out);
    }
}

/// I2F: integer to float.
pub fn i2f(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (dst, src) = (d.m.dst_num, d.m.src_num);
    let rnd = fp::rnd(d.m.rnd);
    let mut out = [0u64; WARP];
    for l in lanes(exec) {
        let v = int_value(source(ctx, w, d, src, l), src);
        out[l] = sf::from_int(v, format(dst), rnd);
    }
    write(w, d, exec, dst, &out);
    Ok(())
}

/// F2I: float to integer (saturating; a NaN gives [`nvidia::nan_to_int`]: 0 under `.NTZ`,
/// else `1 << (bits - 1)`).
pub fn f2i(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (dst, src) = (d.m.dst_num, d.m.src_num);
    let rnd = fp::rnd(d.m.rnd);
    let f = format(src);
    let ty = IntType::new(8 * dst.bytes(), dst.is_signed());
    let mut out = [0u64; WARP];
    for l in lanes(exec) {
        let x = sf::flush_if(d.m.ftz, source(ctx, w, d, src, l), f);
        let v = sf::to_int(x, f, rnd, ty).unwrap_or_else(|| nvidia::nan_to_int(ty, d.m.ntz));
        out[l] = v as u64;
    }
    write(w, d, exec, dst, &out);
    Ok(())
}

/// F2F: float to float (or, between equal formats, round to integral).
pub fn f2f(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (dst, src) = (d.m.dst_num, d.m.src_num);
    let rnd = fp::rnd(d.m.rnd);
    let mut out = [0u64; WARP];
    for l in lanes(exec) {
        let x = sf::flush_if(d.m.ftz, source(ctx, w, d, src, l), format(src));
        let r = if dst == src {
            sf::round_to_integral(x, format(src), rnd)
        } else {
            sf::convert(x, format(src), format(dst), rnd)
        };
        let mut r = sf::flush_if(d.m.ftz, r, format(dst));
        if d.m.sat {
            r = saturate(r, format(dst));
        }
        out[l] = r;
    }
    write(w, d, exec, dst, &out);
    Ok(())
}

/// Clamps a float bit pattern to [0, 1] (NaN and -0 to +0).
fn saturate(x: u64, f: Format) -> u64 {
    match sf::saturate(x, f) {
        z if z == f.zero(true) => 0,
        v => v,
    }
}

/// FRND: round to an integral value in the same format.
pub fn frnd(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let t = if d.m.dst_num.is_float() {
        d.m.dst_num
    } else {
        d.m.src_num
    };
    let t = if t.is_float() { t } else { NumType::F32 };
    let (rnd, f) = (fp::rnd(d.m.rnd), format(t));
    let mut out = [0u64; WARP];
    for l in lanes(exec) {
        let x = sf::flush_if(d.m.ftz, source(ctx, w, d, t, l), f);
        out[l] = sf::flush_if(d.m.ftz, sf::round_to_integral(x, f, rnd), f);
    }
    write(w, d, exec, t, &out);
    Ok(())
}

/// Saturates or wraps an integer to type `t`.
fn narrow(v: i128, t: NumType, sat: bool) -> u64 {
    let bits = 8 * t.bytes();
    if sat {
        let (lo, hi) = if t.is_signed() {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        };
        v.clamp(lo, hi) as u64
    } else {
        let m = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
        let x = v as u64 & m;
        // Sub-word results are sign- or zero-extended to 32 bits.
        int_value(x, t) as u64 & 0xffff_ffff
    }
}

/// I2I: integer to integer (with `.SAT`).
pub fn i2i(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (dst, src) = (d.m.dst_num, d.m.src_num);
    let mut out = [0u64; WARP];
    for l in lanes(exec) {
        let v = int_value(source(ctx, w, d, src, l), src);
        out[l] = narrow(v, dst, d.m.sat);
    }
    write(w, d, exec, dst, &out);
    Ok(())
}

/// I2IP: converts `a` and `b` (32-bit) to a narrow type with saturation and packs them
/// above the low bits of `c` (`.H1`: its high half): `d = c << 2w | a << w | b` for width
/// `w` (PTX `cvt.pack`).
pub fn i2ip(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (dst, src) = (d.m.dst_num, d.m.src_num);
    let (a, b, c) = (ctx.row(w, &d.a), ctx.row(w, &d.b), ctx.row(w, &d.c));
    let bits = 8 * dst.bytes();
    let m = (1u32 << bits) - 1;
    let out: [u32; WARP] = std::array::from_fn(|l| {
        let x = narrow(int_value(a[l] as u64, src), dst, d.m.sat) as u32 & m;
        let y = narrow(int_value(b[l] as u64, src), dst, d.m.sat) as u32 & m;
        let high = c[l] >> (16 * (d.c.swizzle as u32 & 1));
        high.checked_shl(2 * bits).unwrap_or(0) | x << bits | y
    });
    write_dst(w, &d.dst, exec, &out);
    Ok(())
}

/// F2FP.PACK_AB (sm_80): A and B (f32) rounded to f16 or bf16 (`.BF16`), A into the high
/// half and B into the low; F2FP.MERGE_C: B alone into the low half, the high half +0
/// (ptxas writes C = RZ; another C faults, its merge not being established). `.RELU` makes negative results +0 (a NaN stays NaN);
/// `.SATFINITE` clamps infinite results to the largest finite value of their sign (PTX
/// `cvt.rn.satfinite`).
pub fn f2fp(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32, exec: u32) -> R {
    let to = if d.m.bf16 { sf::BF16 } else { F16 };
    let rnd = fp::rnd(d.m.rnd);
    let half = |v: u32| -> u32 {
        let mut h = sf::convert(v as u64, F32, to, rnd);
        let negative = h & to.sign_bit() != 0;
        let nan = (h & !to.sign_bit()) > to.inf(false);
        if d.m.relu && negative && !nan {
            h = 0;
        }
        if d.m.sat_finite && !nan && (h & !to.sign_bit()) == to.inf(false) {
            h = (to.inf(false) - 1) | (h & to.sign_bit());
        }
        h as u32
    };
    if d.m.merge_c && !matches!(d.c.src, Src::Reg(ptxc_sass::isa::RZ) | Src::None) {
        return Err(SimError::Unsupported {
            at: ctx.at(w, group.trailing_zeros() as usize, d.pc),
            what: format!("{} (a C operand other than RZ: the merge is not established)", d.text()),
        });
    }
    let mut out = [0u32; WARP];
    for l in lanes(exec) {
        let b = half(ctx.src32(w, &d.b, l));
        out[l] = if d.m.merge_c {
            b
        } else {
            half(ctx.src32(w, &d.a, l)) << 16 | b
        };
    }
    write_dst(w, &d.dst, exec, &out);
    Ok(())
}

/// F2IP.U8/S8.F32 (sm_86): B converted (saturating, NaN to 0 under `.NTZ`) into the low
/// byte. ptxas emits it with A and C zero only (`F2IP.U8.F32.TRUNC.NTZ R7, RZ, R0, RZ` for
/// `cvt.rzi.u8.f32`); how a non-zero A or C combine is not established, so such an
/// instruction faults.
pub fn f2ip(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32, exec: u32) -> R {
    let zero = |s: &SrcOp| matches!(s.src, Src::Reg(ptxc_sass::isa::RZ) | Src::None);
    if !zero(&d.a) || !zero(&d.c) {
        return Err(SimError::Unsupported {
            at: ctx.at(w, group.trailing_zeros() as usize, d.pc),
            what: format!("{} (a non-zero A or C operand: semantics not established)", d.text()),
        });
    }
    let dst = d.m.dst_num;
    let ty = IntType::new(8 * dst.bytes(), dst.is_signed());
    let rnd = fp::rnd(d.m.rnd);
    let mut out = [0u32; WARP];
    for l in lanes(exec) {
        let mut x = ctx.src32(w, &d.b, l) as u64;
        if d.m.relu && x & F32.sign_bit() != 0 && (x & !F32.sign_bit()) <= F32.inf(false) {
            x = 0;
        }
        let v = sf::to_int(x, F32, rnd, ty).unwrap_or_else(|| nvidia::nan_to_int(ty, d.m.ntz));
        out[l] = (v as u32) & 0xff;
    }
    write_dst(w, &d.dst, exec, &out);
    Ok(())
}
