//! Rounding an exact value once: into a format (with IEEE's subnormals, overflow and signed
//! zeros), to an integer, and IEEE's "tiny after rounding" test.

use crate::class::Num;
use crate::format::Format;

/// A rounding-direction attribute, named as in PTX.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// To nearest, ties to even (`.rn`; IEEE roundTiesToEven).
    Rn,
    /// To nearest, ties away from zero (`.rna`; IEEE roundTiesToAway).
    Rna,
    /// Toward zero (`.rz`).
    Rz,
    /// Toward minus infinity (`.rm`).
    Rm,
    /// Toward plus infinity (`.rp`).
    Rp,
}

impl Rounding {
    /// Every mode.
    pub const ALL: [Rounding; 5] = [Rounding::Rn, Rounding::Rna, Rounding::Rz, Rounding::Rm, Rounding::Rp];

    /// Whether a value of sign `neg` whose magnitude was truncated, leaving `rest` below the
    /// kept last bit `lsb`, rounds up in magnitude.
    fn increments(self, neg: bool, lsb: bool, rest: Rest) -> bool {
        match self {
            Rounding::Rn => rest == Rest::Above || (rest == Rest::Half && lsb),
            Rounding::Rna => rest >= Rest::Half,
            Rounding::Rz => false,
            Rounding::Rp => !neg && rest != Rest::Zero,
            Rounding::Rm => neg && rest != Rest::Zero,
        }
    }

    /// Whether a result of sign `neg` that overflows becomes infinity (else the largest
    /// finite value).
    fn overflows_to_inf(self, neg: bool) -> bool {
        match self {
            Rounding::Rn | Rounding::Rna => true,
            Rounding::Rz => false,
            Rounding::Rp => !neg,
            Rounding::Rm => neg,
        }
    }

    /// The sign of an exact zero sum of operands of opposite signs (IEEE 6.3: -0 when
    /// rounding toward minus infinity, else +0).
    pub(crate) fn exact_zero_is_negative(self) -> bool {
        self == Rounding::Rm
    }
}

/// The discarded part of a truncated significand, relative to half a unit of the last kept
/// bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Rest {
    Zero,
    Below,
    Half,
    Above,
}

fn bitlen(m: u128) -> i32 {
    128 - m.leading_zeros() as i32
}

/// `mant` shifted right by `shift > 0` bits, and what fell off.
fn split(mant: u128, shift: i32) -> (u128, Rest) {
    if shift > 128 {
        return (0, if mant == 0 { Rest::Zero } else { Rest::Below });
    }
    let shift = shift as u32;
    let kept = mant.checked_shr(shift).unwrap_or(0);
    let rem = mant & (u128::MAX >> (128 - shift));
    let half = 1u128 << (shift - 1);
    let rest = match rem {
        0 => Rest::Zero,
        r if r < half => Rest::Below,
        r if r == half => Rest::Half,
        _ => Rest::Above,
    };
    (kept, rest)
}

/// Rounds `n` into format `f` with mode `r`.
pub(crate) fn round(n: Num, f: Format, r: Rounding) -> u64 {
    let p = f.man_bits() as i32;
    let top = bitlen(n.mant) - 1 + n.exp;
    // The exponent of the result's last bit: `p` bits below its leading bit, but not below
    // the subnormal grid.
    let mut q = top.max(f.emin()) - p;
    let mut int = if q <= n.exp {
        n.mant << (n.exp - q)
    } else {
        let (kept, rest) = split(n.mant, q - n.exp);
        kept + r.increments(n.neg, kept & 1 == 1, rest) as u128
    };
    if int >> (p + 1) != 0 {
        int >>= 1;
        q += 1;
    }
    if int >> p == 0 {
        // Subnormal or zero (a normal result has its leading bit at `p`).
        return f.zero(n.neg) | int as u64;
    }
    if q + p > f.bias() {
        return if r.overflows_to_inf(n.neg) {
            f.inf(n.neg)
        } else {
            f.max_finite(n.neg)
        };
    }
    let biased = (q + p + f.bias()) as u64;
    f.zero(n.neg) | biased << p | (int as u64 & f.man_mask())
}

/// The magnitude of `n` rounded to an integer with mode `r`, saturated at `u128::MAX`.
pub(crate) fn round_int(n: Num, r: Rounding) -> u128 {
    if n.exp >= 0 {
        return if bitlen(n.mant) + n.exp > 127 {
            u128::MAX
        } else {
            n.mant << n.exp
        };
    }
    let (kept, rest) = split(n.mant, -n.exp);
    kept + r.increments(n.neg, kept & 1 == 1, rest) as u128
}

/// Whether `n`, rounded with mode `r` to the precision of `f` as if the exponent range were
/// unbounded, is below the smallest normal magnitude of `f` (IEEE's "tininess after
/// rounding").
pub(crate) fn tiny_after_rounding(n: Num, f: Format, r: Rounding) -> bool {
    let p = f.man_bits() as i32;
    let top = bitlen(n.mant) - 1 + n.exp;
    if top >= f.emin() {
        return false;
    }
    // Only rounding up to the next power of two, `2^emin`, can reach the normal range.
    let shift = bitlen(n.mant) - 1 - p;
    if top + 1 < f.emin() || shift <= 0 {
        return true;
    }
    let (kept, rest) = split(n.mant, shift);
    let all_ones = kept == (1u128 << (p + 1)) - 1;
    !(all_ones && r.increments(n.neg, true, rest))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::F32;

    #[test]
    fn tininess_after_rounding() {
        // (2^25 - 1) 2^-151 = 2^-126 - 2^-151 rounds to 2^-126 with 24 bits when rounding up
        // (or to nearest: it is a tie between 2^-126 - 2^-150 (odd) and 2^-126).
        let n = |neg| Num {
            neg,
            mant: (1 << 25) - 1,
            exp: -151,
        };
        assert!(!tiny_after_rounding(n(false), F32, Rounding::Rp));
        assert!(!tiny_after_rounding(n(false), F32, Rounding::Rn));
        assert!(!tiny_after_rounding(n(false), F32, Rounding::Rna));
        assert!(tiny_after_rounding(n(false), F32, Rounding::Rz));
        assert!(tiny_after_rounding(n(false), F32, Rounding::Rm));
        assert!(!tiny_after_rounding(n(true), F32, Rounding::Rm));
        // 2^-126 - 3 2^-152 is nearer 2^-126 - 2^-150: only rounding up reaches 2^-126.
        let below = Num {
            neg: false,
            mant: (1 << 26) - 3,
            exp: -152,
        };
        assert!(tiny_after_rounding(below, F32, Rounding::Rn));
        assert!(!tiny_after_rounding(below, F32, Rounding::Rp));
        // Normal values are never tiny.
        let normal = Num {
            neg: false,
            mant: 1,
            exp: -126,
        };
        assert!(!tiny_after_rounding(normal, F32, Rounding::Rz));
    }

    #[test]
    fn rounding_to_integers() {
        let n = |mant, exp| Num { neg: false, mant, exp };
        assert_eq!(round_int(n(5, -1), Rounding::Rn), 2);
        assert_eq!(round_int(n(5, -1), Rounding::Rna), 3);
        assert_eq!(round_int(n(7, -1), Rounding::Rn), 4);
        assert_eq!(round_int(n(1, -200), Rounding::Rp), 1);
        assert_eq!(round_int(n(1, -200), Rounding::Rn), 0);
        assert_eq!(round_int(n(1, 200), Rounding::Rz), u128::MAX);
    }
}
