//! IEEE 754 arithmetic, correctly rounded in every mode: add, sub, mul, fma, div, rcp and
//! sqrt. Operands and results are bit patterns of one format; a NaN result is the format's
//! canonical NaN.

use crate::class::{Class, Num, classify};
use crate::format::Format;
use crate::round::{Rounding, round};

fn bitlen(m: u128) -> i32 {
    128 - m.leading_zeros() as i32
}

/// The sum of two finite non-zero values of at most 106 significant bits each, exact or
/// with a sticky last bit far below any rounding position; `None` if it is exactly zero.
pub(crate) fn add_exact(a: Num, b: Num) -> Option<Num> {
    let top = |x: Num| x.exp + bitlen(x.mant) - 1;
    let (big, small) = if top(a) >= top(b) { (a, b) } else { (b, a) };
    // The larger operand's leading bit goes to bit 125 (at least 19 zero bits below its
    // last bit); the smaller one is aligned to it, keeping a sticky bit if bits fall off.
    // Bits fall off only if the smaller operand is below 2^106 units, so the difference of
    // magnitudes is above 2^124 units and the sticky bit lies far below any rounding.
    let shift = 125 - (bitlen(big.mant) - 1);
    let (mb, exp) = (big.mant << shift, big.exp - shift);
    let d = small.exp - exp;
    let ms = if d >= 0 {
        small.mant << d
    } else if d <= -128 {
        1
    } else {
        let k = (-d) as u32;
        (small.mant >> k) | (small.mant & ((1u128 << k) - 1) != 0) as u128
    };
    let (neg, mant) = if big.neg == small.neg {
        (big.neg, mb + ms)
    } else if mb >= ms {
        (big.neg, mb - ms)
    } else {
        (small.neg, ms - mb)
    };
    (mant != 0).then_some(Num { neg, mant, exp })
}

/// `a + b`.
pub fn add(a: u64, b: u64, f: Format, r: Rounding) -> u64 {
    use Class::*;
    match (classify(a, f), classify(b, f)) {
        (Nan, _) | (_, Nan) => f.canonical_nan(),
        (Inf(x), Inf(y)) if x != y => f.canonical_nan(),
        (Inf(x), _) | (_, Inf(x)) => f.inf(x),
        (Zero(x), Zero(y)) if x == y => f.zero(x),
        (Zero(_), Zero(_)) => f.zero(r.exact_zero_is_negative()),
        (Zero(_), Finite(_)) => b & f.mask(),
        (Finite(_), Zero(_)) => a & f.mask(),
        (Finite(x), Finite(y)) => match add_exact(x, y) {
            Some(s) => round(s, f, r),
            None => f.zero(r.exact_zero_is_negative()),
        },
    }
}

/// `a - b`.
pub fn sub(a: u64, b: u64, f: Format, r: Rounding) -> u64 {
    // Negating a NaN keeps it a NaN.
    add(a, b ^ f.sign_bit(), f, r)
}

/// `a * b`.
pub fn mul(a: u64, b: u64, f: Format, r: Rounding) -> u64 {
    use Class::*;
    let (ca, cb) = (classify(a, f), classify(b, f));
    let neg = ca.neg() != cb.neg();
    match (ca, cb) {
        (Nan, _) | (_, Nan) => f.canonical_nan(),
        (Inf(_), Zero(_)) | (Zero(_), Inf(_)) => f.canonical_nan(),
        (Inf(_), _) | (_, Inf(_)) => f.inf(neg),
        (Zero(_), _) | (_, Zero(_)) => f.zero(neg),
        (Finite(x), Finite(y)) => round(
            Num {
                neg,
                mant: x.mant * y.mant,
                exp: x.exp + y.exp,
            },
            f,
            r,
        ),
    }
}

/// `a * b + c` with a single rounding.
pub fn fma(a: u64, b: u64, c: u64, f: Format, r: Rounding) -> u64 {
    use Class::*;
    let (ca, cb, cc) = (classify(a, f), classify(b, f), classify(c, f));
    if ca == Nan || cb == Nan || cc == Nan {
        return f.canonical_nan();
    }
    let pneg = ca.neg() != cb.neg();
    let product = match (ca, cb) {
        (Inf(_), Zero(_)) | (Zero(_), Inf(_)) => return f.canonical_nan(),
        (Inf(_), _) | (_, Inf(_)) => Inf(pneg),
        (Zero(_), _) | (_, Zero(_)) => Zero(pneg),
        (Finite(x), Finite(y)) => Finite(Num {
            neg: pneg,
            mant: x.mant * y.mant,
            exp: x.exp + y.exp,
        }),
        _ => unreachable!("NaN operands are handled above"),
    };
    match (product, cc) {
        (Inf(x), Inf(y)) if x != y => f.canonical_nan(),
        (Inf(x), _) | (_, Inf(x)) => f.inf(x),
        (Zero(x), Zero(y)) if x == y => f.zero(x),
        (Zero(_), Zero(_)) => f.zero(r.exact_zero_is_negative()),
        (Zero(_), Finite(_)) => c & f.mask(),
        (Finite(p), Zero(_)) => round(p, f, r),
        (Finite(p), Finite(z)) => match add_exact(p, z) {
            Some(s) => round(s, f, r),
            None => f.zero(r.exact_zero_is_negative()),
        },
        _ => unreachable!("NaN operands are handled above"),
    }
}

/// The quotient of two finite non-zero values with at least 74 significant bits, the last
/// one sticky.
pub(crate) fn quotient(a: Num, b: Num) -> Num {
    let s = 125 - (bitlen(a.mant) - 1);
    let num = a.mant << s;
    let (q, rem) = (num / b.mant, num % b.mant);
    Num {
        neg: a.neg != b.neg,
        mant: q << 1 | (rem != 0) as u128,
        exp: a.exp - s - b.exp - 1,
    }
}

/// `a / b`.
pub fn div(a: u64, b: u64, f: Format, r: Rounding) -> u64 {
    use Class::*;
    let (ca, cb) = (classify(a, f), classify(b, f));
    let neg = ca.neg() != cb.neg();
    match (ca, cb) {
        (Nan, _) | (_, Nan) | (Inf(_), Inf(_)) | (Zero(_), Zero(_)) => f.canonical_nan(),
        (Inf(_), _) | (_, Zero(_)) => f.inf(neg),
        (Zero(_), _) | (_, Inf(_)) => f.zero(neg),
        (Finite(x), Finite(y)) => round(quotient(x, y), f, r),
    }
}

/// `1 / a`, correctly rounded (PTX `rcp` without `.approx`).
pub fn rcp(a: u64, f: Format, r: Rounding) -> u64 {
    div(f.one(), a, f, r)
}

/// The square root of `a` (`-0` for `-0`, NaN for other negative values).
pub fn sqrt(a: u64, f: Format, r: Rounding) -> u64 {
    match classify(a, f) {
        Class::Nan | Class::Inf(true) | Class::Finite(Num { neg: true, .. }) => f.canonical_nan(),
        Class::Inf(false) | Class::Zero(_) => a & f.mask(),
        Class::Finite(Num { mant, exp, .. }) => {
            // A radicand of 125 or 126 bits with an even exponent has a 63-bit root.
            let mut s = 125 - (bitlen(mant) - 1);
            if (exp - s) % 2 != 0 {
                s -= 1;
            }
            let m = mant << s;
            let root = m.isqrt();
            let sticky = m != root * root;
            let n = Num {
                neg: false,
                mant: root << 1 | sticky as u128,
                exp: (exp - s) / 2 - 1,
            };
            round(n, f, r)
        }
    }
}
