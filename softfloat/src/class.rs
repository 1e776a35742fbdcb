//! Decoding a bit pattern into its class and, for finite non-zero values, an integer
//! significand and exponent.

use crate::format::Format;

/// A finite non-zero value `(-1)^neg * mant * 2^exp`.
///
/// A value computed inexactly keeps a sticky 1 in the last bit of `mant`, which must then lie
/// at least two bits below the position it is rounded at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Num {
    /// Negative.
    pub neg: bool,
    /// Integer significand, non-zero.
    pub mant: u128,
    /// Power of two of the last bit of `mant`.
    pub exp: i32,
}

/// A decoded bit pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    /// Not a number (any payload).
    Nan,
    /// Infinity (negative?).
    Inf(bool),
    /// Zero (negative?).
    Zero(bool),
    /// Finite and non-zero.
    Finite(Num),
}

impl Class {
    /// The sign of a non-NaN value.
    pub fn neg(self) -> bool {
        match self {
            Class::Inf(n) | Class::Zero(n) | Class::Finite(Num { neg: n, .. }) => n,
            Class::Nan => false,
        }
    }
}

/// Decodes `x` (bits above the format ignored).
#[inline]
pub(crate) fn classify(x: u64, f: Format) -> Class {
    let neg = f.is_negative(x);
    let e = ((x & f.exp_mask()) >> f.man_bits()) as i32;
    let m = x & f.man_mask();
    let emax = (1 << f.exp_bits()) - 1;
    let man_bits = f.man_bits() as i32;
    match (e, m) {
        (e, 0) if e == emax => Class::Inf(neg),
        (e, _) if e == emax => Class::Nan,
        (0, 0) => Class::Zero(neg),
        (0, m) => Class::Finite(Num {
            neg,
            mant: m as u128,
            exp: f.emin() - man_bits,
        }),
        (e, m) => Class::Finite(Num {
            neg,
            mant: (m | 1 << f.man_bits()) as u128,
            exp: e - f.bias() - man_bits,
        }),
    }
}
