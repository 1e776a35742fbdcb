//! IEEE f32 division, reciprocal and square root (`div.rn`, `rcp.rn`, `sqrt.rn`, their
//! directed-rounding and `.ftz` forms).
//!
//! Round to nearest keeps ptxas's fast paths:
//! - `a / b`: `r = rcp(b)`, `r' = r + r(1 - b r)`, `q = a r'`, `q' = q + r'(a - b q)`, taken
//!   when `FCHK` (MIR `fdiv_check`) passes;
//! - `1 / a`: `r = rcp(a)`, `r + r(1 - a r)`, when `a`'s exponent field is in 1..=252
//!   (`(bits + 0x1800000) & 0x7f800000 > 0x1ffffff`);
//! - `sqrt(a)`: `y = rsqrt(a)`, `s = a y`, `s + (a - s s) y / 2`, when
//!   `bits - 0xd000000 <= 0x727fffff` (positive, exponent field 26..=254).
//!
//! `sqrt.rn`'s slow path stays in f32, as ptxas's does: it scales a value below the fast
//! path's range by 2^64 into it and the root back by 2^-32, both exactly.
//!
//! Every other case, and every directed rounding (ptxas always calls its full routine for
//! those), takes the slow path: zero, infinite and NaN operands get their IEEE results
//! directly; finite operands (subnormals included) are widened to f64, where the same
//! Newton-Raphson sequences are far inside their valid range, and the f64 result is rounded
//! to f32 in the requested mode. That is exact: a quotient or square root of f32 values is
//! never within 2^-46 (relative) of an f32 value or midpoint without being equal to it, so
//! a result rounded to nearest in f64 rounds to f32 as the exact one does (in every mode).
//! `.ftz` flushes the operands at the start of the slow path and the result at its end (the
//! fast path never sees or makes a subnormal).

use super::builder::Builder;
use ptxc_mir::ir::{Aux, Cond, FloatMode, InstData, Opcode, Rounding, Type, Value};

/// Expands an f32 `fdiv`, `frcp` or `fsqrt`.
pub fn expand(b: &mut Builder, d: &InstData) -> Option<Value> {
    let (&Aux::Float(m), Type::F32) = (&d.aux, d.ty) else {
        return None;
    };
    let rnd = m.rnd.unwrap_or(Rounding::Rn);
    let nearest = rnd == Rounding::Rn && !m.sat;
    let v = match d.op {
        Opcode::Fdiv if nearest => divide(b, m.ftz, d.args[0], d.args[1]),
        Opcode::Fdiv if rnd != Rounding::Rn => {
            let (x, y) = (d.args[0], d.args[1]);
            let r = b.call(Type::F32, |b| slow_divide(b, m.ftz, rnd, x, y));
            saturate(b, m, r)
        }
        Opcode::Fdiv => {
            let r = slow_divide(b, m.ftz, rnd, d.args[0], d.args[1]);
            saturate(b, m, r)
        }
        Opcode::Frcp if nearest => reciprocal(b, m.ftz, d.args[0]),
        Opcode::Frcp if rnd != Rounding::Rn => {
            let x = d.args[0];
            let r = b.call(Type::F32, |b| {
                let one = b.f32(1.0);
                slow_divide(b, m.ftz, rnd, one, x)
            });
            saturate(b, m, r)
        }
        Opcode::Frcp => {
            let one = b.f32(1.0);
            let r = slow_divide(b, m.ftz, rnd, one, d.args[0]);
            saturate(b, m, r)
        }
        Opcode::Fsqrt if nearest => square_root(b, m.ftz, d.args[0]),
        Opcode::Fsqrt if rnd != Rounding::Rn => {
            let x = d.args[0];
            let r = b.call(Type::F32, |b| slow_sqrt(b, m.ftz, rnd, x));
            saturate(b, m, r)
        }
        Opcode::Fsqrt => {
            let r = slow_sqrt(b, m.ftz, rnd, d.args[0]);
            saturate(b, m, r)
        }
        _ => return None,
    };
    Some(v)
}

/// `.sat` on a result (`cvt.sat`-style clamp to [0, 1], NaN to 0).
fn saturate(b: &mut Builder, m: FloatMode, v: Value) -> Value {
    if !m.sat {
        return v;
    }
    let zero = b.f32(0.0);
    b.fop(
        Opcode::Fadd,
        Type::F32,
        &[v, zero],
        FloatMode {
            rnd: Some(Rounding::Rn),
            ftz: m.ftz,
            sat: true,
            nan: false,
            relu: false,
            xorsign: false,
        },
    )
}

/// `fma(x, y, z)` rounded to nearest.
fn fma(b: &mut Builder, x: Value, y: Value, z: Value) -> Value {
    b.fma(Type::F32, x, y, z, Rounding::Rn)
}

/// `div.rn.f32`: FCHK-guarded fast path, slow path out of line.
fn divide(b: &mut Builder, ftz: bool, x: Value, y: Value) -> Value {
    let r = b.mufu(Opcode::FrcpApprox, Type::F32, y);
    let slow = b.bin(Opcode::FdivCheck, Type::F32, x, y);
    let ny = b.neg(Type::F32, y);
    let one = b.f32(1.0);
    let e = fma(b, ny, r, one);
    let r1 = fma(b, r, e, r);
    let zero = b.f32(0.0);
    let q = fma(b, x, r1, zero);
    let rem = fma(b, ny, q, x);
    let q1 = fma(b, r1, rem, q);
    b.with_slow_path(Type::F32, slow, q1, |b| slow_divide(b, ftz, Rounding::Rn, x, y))
}

/// `rcp.rn.f32`: exponent-checked fast path.
fn reciprocal(b: &mut Builder, ftz: bool, x: Value) -> Value {
    let bits = b.bitcast(Type::I32, x);
    let k = b.i32(0x180_0000);
    let t = b.bin(Opcode::Iadd, Type::I32, bits, k);
    let mask = b.i32(0x7f80_0000);
    let t = b.bin(Opcode::And, Type::I32, t, mask);
    let limit = b.i32(0x1ff_ffff);
    let slow = b.icmp(Cond::Ule, Type::I32, t, limit);
    let r = b.mufu(Opcode::FrcpApprox, Type::F32, x);
    let m1 = b.f32(-1.0);
    let e = fma(b, x, r, m1);
    let ne = b.neg(Type::F32, e);
    let r1 = fma(b, r, ne, r);
    b.with_slow_path(Type::F32, slow, r1, |b| {
        let one = b.f32(1.0);
        slow_divide(b, ftz, Rounding::Rn, one, x)
    })
}

/// `sqrt.rn.f32`: range-checked fast path.
fn square_root(b: &mut Builder, ftz: bool, x: Value) -> Value {
    let bits = b.bitcast(Type::I32, x);
    let k = b.i32(-0xd00_0000);
    let t = b.bin(Opcode::Iadd, Type::I32, bits, k);
    let limit = b.i32(0x727f_ffff);
    let slow = b.icmp(Cond::Ugt, Type::I32, t, limit);
    let r = newton_sqrt(b, x);
    b.with_slow_path(Type::F32, slow, r, |b| slow_sqrt_nearest(b, ftz, x))
}

/// The fast path's square root of `x`: `y = rsqrt(x)`, `s = x y`, `s + (x - s s) y / 2`,
/// correctly rounded to nearest for `x` positive with exponent field 26..=254.
fn newton_sqrt(b: &mut Builder, x: Value) -> Value {
    let y = b.mufu(Opcode::FrsqrtApprox, Type::F32, x);
    let flush = FloatMode {
        rnd: Some(Rounding::Rn),
        ftz: true,
        sat: false,
        nan: false,
        relu: false,
        xorsign: false,
    };
    let s = b.fop(Opcode::Fmul, Type::F32, &[x, y], flush);
    let half = b.f32(0.5);
    let h = b.fop(Opcode::Fmul, Type::F32, &[y, half], flush);
    let ns = b.neg(Type::F32, s);
    let e = fma(b, ns, s, x);
    fma(b, e, h, s)
}

/// The slow path of `sqrt.rn.f32`, in f32 as ptxas's: ±0 and +inf stay, negative values and
/// NaN give NaN, and a positive value below the fast path's range (exponent field under 26,
/// subnormals included unless `ftz` flushed them) is scaled by 2^64 into it, exactly, and
/// its square root by 2^-32 back, exactly (the root of the smallest subnormal, 2^-74.5, is
/// normal). The slow path is taken only outside the fast path's range, so no positive
/// finite value it sees overflows when scaled.
fn slow_sqrt_nearest(b: &mut Builder, ftz: bool, x: Value) -> Value {
    let x = flushed(b, ftz, x);
    let (regular, special) = sqrt_cases(b, Type::F32, x, 0x7fff_ffff);
    let up = b.f32(2f32.powi(64));
    let scaled = b.mul(Type::F32, x, up, Rounding::Rn);
    let root = newton_sqrt(b, scaled);
    let down = b.f32(2f32.powi(-32));
    let root = b.mul(Type::F32, root, down, Rounding::Rn);
    b.select(Type::F32, regular, root, special)
}

/// `x` flushed if `ftz`.
fn flushed(b: &mut Builder, ftz: bool, x: Value) -> Value {
    if ftz {
        b.fop(Opcode::Fflush, Type::F32, &[x], FloatMode::default())
    } else {
        x
    }
}

/// True if `x` is finite and not zero.
pub fn finite_nonzero(b: &mut Builder, ty: Type, x: Value) -> Value {
    let ax = b.abs(ty, x);
    let inf = if ty == Type::F64 {
        b.f64(f64::INFINITY)
    } else {
        b.f32(f32::INFINITY)
    };
    let zero = b.k(ty, 0);
    let finite = b.fcmp(Cond::Lt, ty, ax, inf);
    let nonzero = b.fcmp(Cond::Ne, ty, x, zero);
    b.pred(Opcode::And, finite, nonzero)
}

/// The cases of a square root of `x` (of type `ty`): whether `x` is positive and finite
/// (the root is computed), and the result otherwise: ±0 and +inf stay, negative values and
/// NaN give the NaN `nan` (its bits).
pub fn sqrt_cases(b: &mut Builder, ty: Type, x: Value, nan: u64) -> (Value, Value) {
    let (zero, inf) = if ty == Type::F64 {
        (b.f64(0.0), b.f64(f64::INFINITY))
    } else {
        (b.f32(0.0), b.f32(f32::INFINITY))
    };
    let positive = b.fcmp(Cond::Gt, ty, x, zero);
    let finite = b.fcmp(Cond::Lt, ty, x, inf);
    let regular = b.pred(Opcode::And, positive, finite);
    let is_zero = b.fcmp(Cond::Eq, ty, x, zero);
    let is_inf = b.fcmp(Cond::Eq, ty, x, inf);
    let keep = b.pred(Opcode::Or, is_zero, is_inf);
    let nan = b.k(ty, nan);
    let special = b.select(ty, keep, x, nan);
    (regular, special)
}

/// The IEEE quotient when `x` or `y` is zero, infinite or NaN: `x * c` with `c` = ±inf for a
/// zero `y`, ±0 for an infinite one, `y` itself for a NaN and ±1 for any other.
pub fn special_quotient(b: &mut Builder, ty: Type, x: Value, y: Value) -> Value {
    let (zero, inf, one) = if ty == Type::F64 {
        (b.f64(0.0), b.f64(f64::INFINITY), b.f64(1.0))
    } else {
        (b.f32(0.0), b.f32(f32::INFINITY), b.f32(1.0))
    };
    let ay = b.abs(ty, y);
    let is_zero = b.fcmp(Cond::Eq, ty, y, zero);
    let is_inf = b.fcmp(Cond::Eq, ty, ay, inf);
    let is_nan = b.fcmp(Cond::Nan, ty, y, y);
    let m = b.select(ty, is_inf, zero, one);
    let m = b.select(ty, is_zero, inf, m);
    let c = b.op(Opcode::Fcopysign, ty, &[y, m], Aux::None);
    let c = b.select(ty, is_nan, y, c);
    b.mul(ty, x, c, Rounding::Rn)
}

/// The f32 quotient through f64 (see the module documentation), in mode `rnd`.
fn slow_divide(b: &mut Builder, ftz: bool, rnd: Rounding, x: Value, y: Value) -> Value {
    let (x, y) = (flushed(b, ftz, x), flushed(b, ftz, y));
    let fx = finite_nonzero(b, Type::F32, x);
    let fy = finite_nonzero(b, Type::F32, y);
    let both = b.pred(Opcode::And, fx, fy);
    let special = special_quotient(b, Type::F32, x, y);
    let (wx, wy) = (b.f32_to_f64(x), b.f32_to_f64(y));
    let q = super::fp64::newton_quotient(b, wx, wy).0;
    let q = narrow_quotient(b, q, rnd, ftz);
    b.select(Type::F32, both, q, special)
}

/// The f32 square root through f64, in mode `rnd`: ±0 stays, +inf stays, negative values
/// and NaN give NaN.
fn slow_sqrt(b: &mut Builder, ftz: bool, rnd: Rounding, x: Value) -> Value {
    let x = flushed(b, ftz, x);
    let (regular, special) = sqrt_cases(b, Type::F32, x, 0x7fff_ffff);
    let wx = b.f32_to_f64(x);
    let s = super::fp64::newton_sqrt(b, wx).0;
    let s = narrow(b, s, rnd, ftz);
    b.select(Type::F32, regular, s, special)
}

/// An f64 quotient rounded to f32 in mode `rnd`; under `ftz` NVIDIA's rule for division
/// (as ptxas's routines and the interpreter's `div_ftz` apply it): the result is a signed
/// zero when it is tiny after rounding with an unbounded exponent, which the same rounding of
/// `q * 2^64` (exact, and in the normal range for every tiny quotient) shows.
fn narrow_quotient(b: &mut Builder, q: Value, rnd: Rounding, ftz: bool) -> Value {
    let r = narrow(b, q, rnd, false);
    if !ftz {
        return r;
    }
    let scale = b.f64(2f64.powi(64));
    let scaled = b.mul(Type::F64, q, scale, Rounding::Rn);
    let scaled = narrow(b, scaled, rnd, false);
    let magnitude = b.abs(Type::F32, scaled);
    let smallest_normal = b.f32(f32::MIN_POSITIVE * 2f32.powi(64));
    let tiny = b.fcmp(Cond::Lt, Type::F32, magnitude, smallest_normal);
    let zero = b.f32(0.0);
    let signed_zero = b.op(Opcode::Fcopysign, Type::F32, &[r, zero], Aux::None);
    b.select(Type::F32, tiny, signed_zero, r)
}

/// An f64 value rounded to f32 in mode `rnd`, flushed if `ftz`.
fn narrow(b: &mut Builder, v: Value, rnd: Rounding, ftz: bool) -> Value {
    let info = super::builder::float_convert(Type::F64, Some(rnd), false);
    let r = b.convert(Type::F32, v, info);
    flushed(b, ftz, r)
}
