//! The reference: `rustc_apfloat` (a port of LLVM's APFloat) on the same bit patterns.

use ptxc_softfloat::Rounding;
use rustc_apfloat::ieee::{IeeeFloat, Semantics};
use rustc_apfloat::{Float, FloatConvert, Round};

/// TensorFloat-32 (8 exponent bits, 10 fraction bits), which apfloat does not define.
pub struct Tf32S;

impl Semantics for Tf32S {
    const BITS: usize = 19;
    const EXP_BITS: usize = 8;
}

/// A format with `B` bits and `E` exponent bits: with a wider exponent than a format of the
/// same precision, it rounds "as if the exponent range were unbounded".
pub struct WideS<const B: usize, const E: usize>;

impl<const B: usize, const E: usize> Semantics for WideS<B, E> {
    const BITS: usize = B;
    const EXP_BITS: usize = E;
}

/// apfloat's name of a rounding mode.
pub fn round(r: Rounding) -> Round {
    match r {
        Rounding::Rn => Round::NearestTiesToEven,
        Rounding::Rna => Round::NearestTiesToAway,
        Rounding::Rz => Round::TowardZero,
        Rounding::Rm => Round::TowardNegative,
        Rounding::Rp => Round::TowardPositive,
    }
}

/// The value of bit pattern `x`.
pub fn val<S: Semantics>(x: u64) -> IeeeFloat<S> {
    IeeeFloat::<S>::from_bits(x as u128)
}

/// The bit pattern of `v`.
pub fn bits<S: Semantics>(v: IeeeFloat<S>) -> u64 {
    v.to_bits() as u64
}

/// The arithmetic operations compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Fma,
}

/// `op` on `a`, `b` (and `c`) in format `S` with mode `r`.
pub fn arith<S: Semantics>(op: Op, a: u64, b: u64, c: u64, r: Rounding) -> u64 {
    let (x, y, z, r) = (val::<S>(a), val::<S>(b), val::<S>(c), round(r));
    let v = match op {
        Op::Add => x.add_r(y, r),
        Op::Sub => x.sub_r(y, r),
        Op::Mul => x.mul_r(y, r),
        Op::Div => x.div_r(y, r),
        Op::Fma => x.mul_add_r(y, z, r),
    };
    bits(v.value)
}

/// Converts `a` from format `S` to format `T`.
pub fn convert<S: Semantics, T: Semantics>(a: u64, r: Rounding) -> u64
where
    IeeeFloat<S>: FloatConvert<IeeeFloat<T>>,
{
    let v: IeeeFloat<T> = val::<S>(a).convert_r(round(r), &mut false).value;
    bits(v)
}

/// Rounds `a` to an integral value.
pub fn round_to_integral<S: Semantics>(a: u64, r: Rounding) -> u64 {
    bits(val::<S>(a).round_to_integral(round(r)).value)
}

/// Converts `a` to an integer of `width` bits (saturating; NaN gives 0).
pub fn to_int<S: Semantics>(a: u64, r: Rounding, width: u32, signed: bool) -> i128 {
    let x = val::<S>(a);
    if signed && width == 1 {
        // apfloat cannot convert to a 1-bit signed integer (it shifts by 128): saturate the
        // 2-bit result to [-1, 0] instead.
        return x.to_i128_r(2, round(r), &mut false).value.clamp(-1, 0);
    }
    if signed {
        x.to_i128_r(width as usize, round(r), &mut false).value
    } else {
        x.to_u128_r(width as usize, round(r), &mut false).value as i128
    }
}

/// Converts the integer `v`.
pub fn from_int<S: Semantics>(v: i128, r: Rounding) -> u64 {
    bits(IeeeFloat::<S>::from_i128_r(v, round(r)).value)
}

/// IEEE 754-2019 minimum/maximum for non-NaN operands (-0 < +0), minNum/maxNum's "a NaN
/// operand yields the other" otherwise.
pub fn min_max<S: Semantics>(a: u64, b: u64, max: bool) -> u64 {
    let (x, y) = (val::<S>(a), val::<S>(b));
    let v = match (x.is_nan() || y.is_nan(), max) {
        (true, false) => x.min(y),
        (true, true) => x.max(y),
        (false, false) => x.minimum(y),
        (false, true) => x.maximum(y),
    };
    bits(v)
}
