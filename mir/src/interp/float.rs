//! Float operations with PTX's modes: rounding (exact, via [`ptxc_softfloat`]), `.ftz`
//! (subnormal inputs and results flushed to signed zero), `.sat` (clamp to [0, 1], NaN to
//! +0), NaN handling of min/max, and the approximate functions.
//!
//! The approximations are computed in double precision and rounded to nearest, so they are
//! far inside the PTX ISA's bounds (rcp/sqrt/rsqrt within 1 ulp, ex2 within 2 ulp, lg2 and
//! sin/cos within 2^-22 / 2^-20.5 absolute error): they are usually the correctly rounded
//! value, which hardware may miss by an ulp.

use crate::ir::{Aux, ConvertInfo, FloatMode, Opcode, Rounding, Type};
use ptxc_softfloat::{self as sf, Format, IntType, nvidia};

impl From<Rounding> for sf::Rounding {
    fn from(r: Rounding) -> sf::Rounding {
        match r {
            Rounding::Rn => sf::Rounding::Rn,
            Rounding::Rz => sf::Rounding::Rz,
            Rounding::Rm => sf::Rounding::Rm,
            Rounding::Rp => sf::Rounding::Rp,
        }
    }
}

/// The format of a float type (`f16x2` lanes are f16, `bf16x2` lanes bf16).
pub fn fmt_of(ty: Type) -> Format {
    match ty {
        Type::F64 => sf::F64,
        Type::F16 | Type::F16x2 => sf::F16,
        Type::Bf16 | Type::Bf16x2 => sf::BF16,
        _ => sf::F32,
    }
}

fn mode(aux: &Aux) -> FloatMode {
    match aux {
        Aux::Float(m) => *m,
        _ => FloatMode::default(),
    }
}

/// The rounding of an operation: its explicit mode, else `default`.
fn rounding(r: Option<Rounding>, default: Rounding) -> sf::Rounding {
    r.unwrap_or(default).into()
}

/// Applies `f` to each lane of an `f16x2` or `bf16x2`, or once to a scalar.
fn lanes(ty: Type, args: [u64; 3], f: impl Fn(Format, [u64; 3]) -> u64) -> u64 {
    if !ty.is_pair() {
        return f(fmt_of(ty), args);
    }
    let lane = |k: u32| f(fmt_of(ty), args.map(|a| (a >> (16 * k)) & 0xffff)) & 0xffff;
    lane(0) | lane(1) << 16
}

fn pre(x: u64, f: Format, m: FloatMode) -> u64 {
    sf::flush_if(m.ftz, x, f)
}

/// `.relu`: a negative result (-0 included) becomes +0; a NaN stays NaN.
fn relu(x: u64, f: Format, on: bool) -> u64 {
    if on && f.is_negative(x) && !f.is_nan(x) { 0 } else { x }
}

fn post(x: u64, f: Format, m: FloatMode) -> u64 {
    let x = relu(sf::flush_if(m.ftz, x, f), f, m.relu);
    if !m.sat {
        return x;
    }
    // f16 arithmetic with .sat gives +0 for -0 on the hardware (HADD2/HMUL2/HFMA2.SAT);
    // f32 keeps -0 (FADD/FMUL/FFMA.SAT). PTX allows both.
    if f == sf::F16 && x == f.zero(true) {
        return 0;
    }
    sf::saturate(x, f)
}

/// Two-operand float operations.
pub fn float_binary(op: Opcode, ty: Type, aux: &Aux, a: u64, b: u64) -> u64 {
    let m = mode(aux);
    let r = rounding(m.rnd, Rounding::Rn);
    lanes(ty, [a, b, 0], |f, [a, b, _]| {
        if matches!(op, Opcode::Fmin | Opcode::Fmax) {
            return min_max(op == Opcode::Fmax, f, m, a, b);
        }
        let (a, b) = (pre(a, f, m), pre(b, f, m));
        let v = match op {
            Opcode::Fadd => sf::add(a, b, f, r),
            Opcode::Fsub => sf::sub(a, b, f, r),
            Opcode::Fmul => sf::mul(a, b, f, r),
            Opcode::Fdiv if m.ftz => sf::div_ftz(a, b, f, r),
            Opcode::Fdiv | Opcode::FdivFull => sf::div(a, b, f, r),
            Opcode::FdivApprox => {
                let rcp = approx(Opcode::FrcpApprox, b, f);
                sf::mul(a, pre(rcp, f, m), f, sf::Rounding::Rn)
            }
            _ => f.canonical_nan(),
        };
        post(v, f, m)
    })
}

/// `fmin`/`fmax` of one lane: operands flushed under `.ftz`; `.NaN` gives the canonical NaN
/// for a NaN operand; `.xorsign.abs` compares the absolute values and gives the result the
/// XOR of the operands' signs (unless it is a NaN).
fn min_max(max: bool, f: Format, m: FloatMode, a: u64, b: u64) -> u64 {
    let (a, b) = (pre(a, f, m), pre(b, f, m));
    let signs = (f.is_negative(a), f.is_negative(b));
    let (a, b) = if m.xorsign {
        (a & !f.sign_bit(), b & !f.sign_bit())
    } else {
        (a, b)
    };
    let mode = sf::MinMaxMode {
        max,
        nan: m.nan,
        xorsign: m.xorsign.then_some(signs),
    };
    sf::flush_if(m.ftz, sf::min_max_with(a, b, f, mode), f)
}

/// `fma`.
pub fn float_ternary(ty: Type, aux: &Aux, a: u64, b: u64, c: u64) -> u64 {
    let m = mode(aux);
    let r = rounding(m.rnd, Rounding::Rn);
    lanes(ty, [a, b, c], |f, [a, b, c]| {
        post(sf::fma(pre(a, f, m), pre(b, f, m), pre(c, f, m), f, r), f, m)
    })
}

/// One-operand float operations.
pub fn float_unary(op: Opcode, ty: Type, aux: &Aux, a: u64) -> u64 {
    let m = mode(aux);
    let r = rounding(m.rnd, Rounding::Rn);
    lanes(ty, [a, 0, 0], |f, [a, _, _]| {
        match op {
            // Sign operations are exact bit operations (flushing first under .ftz), except
            // that a NaN gives the canonical NaN, as the hardware's code does (PTX leaves the
            // NaN unspecified).
            Opcode::Fneg | Opcode::Fabs if f.is_nan(a) => f.canonical_nan(),
            Opcode::Fneg => pre(a, f, m) ^ f.sign_bit(),
            Opcode::Fabs => pre(a, f, m) & !f.sign_bit(),
            Opcode::Fflush => sf::flush(a, f),
            _ => {
                let a = pre(a, f, m);
                let v = match op {
                    Opcode::Frint => sf::round_to_integral(a, f, r),
                    Opcode::Frcp if m.ftz => sf::div_ftz(f.one(), a, f, r),
                    Opcode::Frcp => sf::rcp(a, f, r),
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

/// The approximate functions, computed in double precision.
fn approx(op: Opcode, a: u64, f: Format) -> u64 {
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
    if y.is_nan() {
        f.canonical_nan()
    } else {
        sf::from_f64(y, f, sf::Rounding::Rn)
    }
}

/// `convert` between integer and float types.
pub fn convert(info: &ConvertInfo, to: Type, a: u64) -> u64 {
    let from = info.from;
    match (from.is_float(), to.is_float()) {
        (false, false) => int_to_int(info, to, a),
        (false, true) => {
            let v = int_value(a, from.bits(), info.from_signed);
            let x = sf::from_int(v, fmt_of(to), rounding(info.rnd, Rounding::Rn));
            // `.sat` clamps the result to [0, 1].
            let m = FloatMode {
                rnd: None,
                ftz: false,
                sat: info.sat,
                nan: false,
                relu: false,
                xorsign: false,
            };
            post(x, fmt_of(to), m)
        }
        (true, false) => float_to_int(info, to, a),
        (true, true) => {
            let m = FloatMode {
                rnd: None,
                ftz: info.ftz,
                sat: info.sat,
                nan: false,
                relu: false,
                xorsign: false,
            };
            // `.ftz` on a conversion applies to f32 inputs and f32 results only (an f16
            // subnormal converted to f32 is kept).
            let f32_only = |t: Type| FloatMode {
                ftz: m.ftz && t == Type::F32,
                ..m
            };
            let (ff, tf) = (fmt_of(from), fmt_of(to));
            if from == Type::Bf16 && to == Type::F32 {
                // bf16 is the high half of an f32: the bits move (NaN payloads too).
                return (a & 0xffff) << 16;
            }
            let a = pre(a, ff, f32_only(from));
            let v = if ff == tf {
                sf::canonicalize(a, ff)
            } else if m.ftz && to == Type::F32 && from == Type::F64 {
                // Flushed when tiny after rounding with an unbounded exponent (ptxas's rule).
                sf::convert_ftz(a, ff, tf, rounding(info.rnd, Rounding::Rn))
            } else {
                sf::convert(a, ff, tf, rounding(info.rnd, Rounding::Rn))
            };
            let v = relu(post(v, tf, f32_only(to)), tf, info.relu);
            // A saturating conversion gives +0 for -0 on the hardware (F2F.SAT, HADD2.F32.SAT),
            // unlike f32 arithmetic with .sat (FADD/FMUL/FFMA.SAT keep -0); PTX allows both.
            if info.sat && v == tf.zero(true) { 0 } else { v }
        }
    }
}

/// `fpack`: two f32 values converted to the lanes of a half pair, the first into the high
/// half.
pub fn pack(info: &ConvertInfo, to: Type, a: u64, b: u64) -> u64 {
    let lane = if to == Type::Bf16x2 { Type::Bf16 } else { Type::F16 };
    convert(info, lane, a) << 16 | convert(info, lane, b)
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

/// Float to integer: rounded (toward zero unless a mode is given), saturated, and a NaN
/// converted by NVIDIA's rule ([`nvidia::nan_to_zero`]).
fn float_to_int(info: &ConvertInfo, to: Type, a: u64) -> u64 {
    let ff = fmt_of(info.from);
    let a = sf::flush_if(info.ftz, a, ff);
    let ty = IntType::new(to.bits(), info.to_signed);
    let v = sf::to_int(a, ff, rounding(info.rnd, Rounding::Rz), ty)
        .unwrap_or_else(|| nvidia::nan_to_int(ty, nvidia::nan_to_zero(ff, ty)));
    v as u64 & to.mask()
}
