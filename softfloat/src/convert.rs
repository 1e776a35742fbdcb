//! Conversions: between formats, to and from integers of any width and signedness, to an
//! integral value of the same format, and to and from the host's `f64`.

use crate::class::{Class, Num, classify};
use crate::format::{F64, Format};
use crate::round::{Rounding, round, round_int};

/// An integer type: its width (1 to 64 bits) and signedness.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IntType {
    /// Width in bits.
    pub bits: u32,
    /// Two's complement (else unsigned).
    pub signed: bool,
}

impl IntType {
    /// The integer type of `bits` bits (1 to 64).
    pub const fn new(bits: u32, signed: bool) -> IntType {
        assert!(bits >= 1 && bits <= 64);
        IntType { bits, signed }
    }

    /// The smallest value.
    pub const fn min(self) -> i128 {
        if self.signed { -(1i128 << (self.bits - 1)) } else { 0 }
    }

    /// The largest value.
    pub const fn max(self) -> i128 {
        if self.signed {
            (1i128 << (self.bits - 1)) - 1
        } else {
            (1i128 << self.bits) - 1
        }
    }
}

/// Converts `a` from format `from` to format `to`, rounding with `r` (exact when `to` is
/// wider). A NaN becomes `to`'s canonical NaN.
pub fn convert(a: u64, from: Format, to: Format, r: Rounding) -> u64 {
    match classify(a, from) {
        Class::Nan => to.canonical_nan(),
        Class::Inf(n) => to.inf(n),
        Class::Zero(n) => to.zero(n),
        Class::Finite(x) => round(x, to, r),
    }
}

/// Converts the integer `v` to format `f` (zero gives +0).
pub fn from_int(v: i128, f: Format, r: Rounding) -> u64 {
    if v == 0 {
        return f.zero(false);
    }
    let n = Num {
        neg: v < 0,
        mant: v.unsigned_abs(),
        exp: 0,
    };
    round(n, f, r)
}

/// Converts `a` to an integer of type `ty`, rounding with `r` and saturating to the type's
/// range (infinities included); `None` for a NaN, whose integer is the caller's rule (NVIDIA's
/// is [`crate::nvidia::nan_to_int`]).
pub fn to_int(a: u64, f: Format, r: Rounding, ty: IntType) -> Option<i128> {
    let (neg, magnitude) = match classify(a, f) {
        Class::Nan => return None,
        Class::Zero(_) => return Some(0),
        Class::Inf(n) => (n, u128::MAX),
        Class::Finite(x) => (x.neg, round_int(x, r)),
    };
    Some(if neg {
        if magnitude > ty.min().unsigned_abs() {
            ty.min()
        } else {
            -(magnitude as i128)
        }
    } else {
        magnitude.min(ty.max() as u128) as i128
    })
}

/// Rounds `a` to an integral value in the same format with mode `r` (IEEE
/// roundToIntegral; a zero result keeps the sign of `a`: -0.3 gives -0).
pub fn round_to_integral(a: u64, f: Format, r: Rounding) -> u64 {
    match classify(a, f) {
        Class::Nan => f.canonical_nan(),
        // Already integral: every bit of the significand is at or above the units.
        Class::Finite(x) if x.exp < 0 => match round_int(x, r) {
            0 => f.zero(x.neg),
            m => round(
                Num {
                    neg: x.neg,
                    mant: m,
                    exp: 0,
                },
                f,
                r,
            ),
        },
        _ => a & f.mask(),
    }
}

/// The value of `a` as an `f64` (exact for every format of at most 11 exponent and 52
/// fraction bits; a NaN is the canonical one).
pub fn to_f64(a: u64, f: Format) -> f64 {
    f64::from_bits(convert(a, f, F64, Rounding::Rn))
}

/// Rounds `x` into format `f` with mode `r`.
pub fn from_f64(x: f64, f: Format, r: Rounding) -> u64 {
    convert(x.to_bits(), F64, f, r)
}
