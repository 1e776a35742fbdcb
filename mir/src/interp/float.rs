//! Float operations with PTX's modes: rounding (exact, via [`super::softfloat`]), `.ftz`
//! (subnormal inputs and results flushed to signed zero), `.sat` (clamp to [0, 1], NaN to
//! +0), NaN handling of min/max, and the approximate functions.
//!
//! The approximations are computed in double precision and rounded to nearest, so they are
//! far inside the PTX ISA's bounds (rcp/sqrt/rsqrt within 1 ulp, ex2 within 2 ulp, lg2 and
//! sin/cos within 2^-22 / 2^-20.5 absolute error): they are usually the correctly rounded
//! value, which hardware may miss by an ulp.

use super::softfloat::{self as sf, Fmt};
use crate::ir::{Aux, ConvertInfo, FloatMode, Opcode, Rounding, Type};

/// The format of a float type (`f16x2` lanes are f16).
pub fn fmt_of(ty: Type) -> Fmt {
    match ty {
        Type::F64 => sf::F64,
        Type::F16 | Type::F16x2 => sf::F16,
        _ => sf::F32,
    }
}

fn mode(aux: &Aux) -> FloatMode {
    match aux {
        Aux::Float(m) => *m,
        _ => FloatMode::default(),
    }
}

/// Applies `f` to each f16 lane of an `f16x2`, or once to a scalar.
fn lanes(ty: Type, args: [u64; 3], f: impl Fn(Fmt, [u64; 3]) -> u64) -> u64 {
    if ty != Type::F16x2 {
        return f(fmt_of(ty), args);
    }
    let lane = |k: u32| f(sf::F16, args.map(|a| (a >> (16 * k)) & 0xffff)) & 0xffff;
    lane(0) | lane(1) << 16
}

fn pre(x: u64, f: Fmt, m: FloatMode) -> u64 {
    if m.ftz { sf::flush(x, f) } else { x }
}

fn post(x: u64, f: Fmt, m: FloatMode) -> u64 {
    let x = if m.ftz { sf::flush(x, f) } else { x };
    if !m.sat {
        return x;
    }
    // f16 arithmetic with .sat gives +0 for -0 on the hardware (HADD2/HMUL2/HFMA2.SAT);
    // f32 keeps -0 (FADD/FMUL/FFMA.SAT). PTX allows both.
    if f == sf::F16 && x == 0x8000 {
        return 0;
    }
    let v = sf::to_f64(x, f);
    // NaN and negative results become +0; -0 stays (it is inside [0, 1]).
    if v.is_nan() || v < 0.0 {
        0
    } else if v >= 1.0 {
        sf::from_f64(1.0, f)
    } else {
        x
    }
}

/// Two-operand float operations.
pub fn float_binary(op: Opcode, ty: Type, aux: &Aux, a: u64, b: u64) -> u64 {
    let m = mode(aux);
    let r = m.rnd.unwrap_or(Rounding::Rn);
    lanes(ty, [a, b, 0], |f, [a, b, _]| {
        let (a, b) = (pre(a, f, m), pre(b, f, m));
        let v = match op {
            Opcode::Fadd => sf::add(a, b, f, r),
            Opcode::Fsub => sf::sub(a, b, f, r),
            Opcode::Fmul => sf::mul(a, b, f, r),
            Opcode::Fdiv if m.ftz => sf::div_ftz(a, b, f, r),
            Opcode::Fdiv | Opcode::FdivFull => sf::div(a, b, f, r),
            Opcode::FdivApprox => {
                let rcp = approx(Opcode::FrcpApprox, b, f);
                sf::mul(a, pre(rcp, f, m), f, Rounding::Rn)
            }
            Opcode::Fmin | Opcode::Fmax => min_max(op == Opcode::Fmax, a, b, f),
            _ => f.nan(),
        };
        post(v, f, m)
    })
}

/// `fma`.
pub fn float_ternary(ty: Type, aux: &Aux, a: u64, b: u64, c: u64) -> u64 {
    let m = mode(aux);
    let r = m.rnd.unwrap_or(Rounding::Rn);
    lanes(ty, [a, b, c], |f, [a, b, c]| {
        post(sf::fma(pre(a, f, m), pre(b, f, m), pre(c, f, m), f, r), f, m)
    })
}

/// One-operand float operations.
pub fn float_unary(op: Opcode, ty: Type, aux: &Aux, a: u64) -> u64 {
    let m = mode(aux);
    let r = m.rnd.unwrap_or(Rounding::Rn);
    lanes(ty, [a, 0, 0], |f, [a, _, _]| {
        let sign = 1u64 << (f.exp_bits + f.man_bits);
        match op {
            // Sign operations are exact bit operations (flushing first under .ftz), except
            // that a NaN gives the canonical NaN, as the hardware's code does (PTX leaves the
            // NaN unspecified).
            Opcode::Fneg | Opcode::Fabs if matches!(sf::unpack(a, f), sf::Class::Nan) => f.nan(),
            Opcode::Fneg => pre(a, f, m) ^ sign,
            Opcode::Fabs => pre(a, f, m) & !sign,
            Opcode::Fflush => sf::flush(a, f),
            _ => {
                let a = pre(a, f, m);
                let v = match op {
                    Opcode::Frint => sf::round_to_integral(a, f, r),
                    Opcode::Frcp if m.ftz => sf::div_ftz(sf::from_f64(1.0, f), a, f, r),
                    Opcode::Frcp => sf::div(sf::from_f64(1.0, f), a, f, r),
                    Opcode::Fsqrt => sf::sqrt(a, f, r),
                    other => approx(other, a, f),
                };
                post(v, f, m)
            }
        }
    })
}

/// `fdiv_check`: whether the fast path of an f32 division (`r = rcp(b)` refined once,
/// `q = a * r`, residual `a - b * q`, `q + r * residual`) might not be correctly rounded.
/// It is taken only when both operands are normal, `rcp(b)` is normal (`|b| < 2^126`), the
/// residual is exact (`|a| >= 2^-101`) and the quotient's exponent is normal with a margin.
/// (Conservative: a `true` only costs the exact slow path.) Other types always check.
pub fn fdiv_check(a: u64, b: u64, ty: Type) -> bool {
    if ty != Type::F32 {
        return true;
    }
    let exponent = |x: u64| ((x >> 23) & 0xff) as i32;
    let (ea, eb) = (exponent(a), exponent(b));
    let normal = |e: i32| (1..=254).contains(&e);
    let quotient = ea - eb + 127;
    !normal(ea) || !normal(eb) || eb > 252 || ea < 26 || !(2..=253).contains(&quotient)
}

/// min/max: a NaN operand yields the other, -0 < +0.
fn min_max(max: bool, a: u64, b: u64, f: Fmt) -> u64 {
    let (x, y) = (sf::to_f64(a, f), sf::to_f64(b, f));
    match (x.is_nan(), y.is_nan()) {
        (true, true) => f.nan(),
        (true, false) => b,
        (false, true) => a,
        _ => {
            let a_first = if x == y {
                // Equal values: only the zeros differ, by sign.
                let a_neg = a >> (f.exp_bits + f.man_bits) & 1 == 1;
                a_neg != max
            } else {
                (x < y) != max
            };
            if a_first { a } else { b }
        }
    }
}

/// The approximate functions, computed in double precision.
fn approx(op: Opcode, a: u64, f: Fmt) -> u64 {
    let x = sf::to_f64(a, f);
    let y = match op {
        Opcode::FrcpApprox => 1.0 / x,
        Opcode::FsqrtApprox => x.sqrt(),
        Opcode::FrsqrtApprox => 1.0 / x.sqrt(),
        Opcode::Fex2Approx => x.exp2(),
        Opcode::Flg2Approx => x.log2(),
        Opcode::FsinApprox => x.sin(),
        Opcode::FcosApprox => x.cos(),
        Opcode::FtanhApprox => x.tanh(),
        _ => f64::NAN,
    };
    if y.is_nan() { f.nan() } else { sf::from_f64(y, f) }
}

/// `convert` between integer and float types.
pub fn convert(info: &ConvertInfo, to: Type, a: u64) -> u64 {
    let from = info.from;
    let r = info.rnd;
    match (from.is_float(), to.is_float()) {
        (false, false) => int_to_int(info, to, a),
        (false, true) => {
            let v = int_value(a, from.bits(), info.from_signed);
            let x = sf::from_int(v < 0, v.unsigned_abs() as u64, fmt_of(to), r.unwrap_or(Rounding::Rn));
            // `.sat` clamps the result to [0, 1].
            let m = FloatMode {
                rnd: None,
                ftz: false,
                sat: info.sat,
            };
            post(x, fmt_of(to), m)
        }
        (true, false) => float_to_int(info, to, a),
        (true, true) => {
            let m = FloatMode {
                rnd: None,
                ftz: info.ftz,
                sat: info.sat,
            };
            // `.ftz` on a conversion applies to f32 inputs and f32 results only (an f16
            // subnormal converted to f32 is kept).
            let f32_only = |t: Type| FloatMode {
                ftz: m.ftz && t == Type::F32,
                ..m
            };
            let (ff, tf) = (fmt_of(from), fmt_of(to));
            let a = pre(a, ff, f32_only(from));
            let v = if ff == tf {
                if matches!(sf::unpack(a, ff), sf::Class::Nan) {
                    ff.nan()
                } else {
                    a
                }
            } else {
                sf::convert(a, ff, tf, r.unwrap_or(Rounding::Rn))
            };
            let v = post(v, tf, f32_only(to));
            // A saturating conversion gives +0 for -0 on the hardware (F2F.SAT, HADD2.F32.SAT),
            // unlike f32 arithmetic with .sat (FADD/FMUL/FFMA.SAT keep -0); PTX allows both.
            let neg_zero = 1u64 << (tf.exp_bits + tf.man_bits);
            if info.sat && v == neg_zero { 0 } else { v }
        }
    }
}

fn int_value(a: u64, bits: u32, signed: bool) -> i128 {
    let m = if bits >= 64 { u64::MAX } else { (1 << bits) - 1 };
    let a = a & m;
    if signed && bits < 64 && a >> (bits - 1) & 1 == 1 {
        a as i128 - (1i128 << bits)
    } else if signed && bits == 64 {
        a as i64 as i128
    } else {
        a as i128
    }
}

fn int_range(bits: u32, signed: bool) -> (i128, i128) {
    if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

fn int_to_int(info: &ConvertInfo, to: Type, a: u64) -> u64 {
    let v = int_value(a, info.from.bits(), info.from_signed);
    let v = if info.sat {
        let (lo, hi) = int_range(to.bits(), info.to_signed);
        v.clamp(lo, hi)
    } else {
        v
    };
    v as u64 & to.mask()
}

fn float_to_int(info: &ConvertInfo, to: Type, a: u64) -> u64 {
    let ff = fmt_of(info.from);
    let a = if info.ftz { sf::flush(a, ff) } else { a };
    let x = sf::to_f64(a, ff);
    if x.is_nan() {
        return if to.bits() == 64 || info.from == Type::F64 {
            (1u64 << (to.bits() - 1)) & to.mask()
        } else {
            0
        };
    }
    let y = match info.rnd.unwrap_or(Rounding::Rz) {
        Rounding::Rn => x.round_ties_even(),
        Rounding::Rz => x.trunc(),
        Rounding::Rm => x.floor(),
        Rounding::Rp => x.ceil(),
    };
    let (lo, hi) = int_range(to.bits(), info.to_signed);
    let v = if y <= lo as f64 {
        lo
    } else if y >= hi as f64 {
        hi
    } else {
        y as i128
    };
    v as u64 & to.mask()
}
