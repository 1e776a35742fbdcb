//! Exact IEEE arithmetic in every rounding mode for f16, f32 and f64: each operation forms
//! its exact result (or the result with a sticky bit below ample guard bits) as an integer
//! significand and exponent, and [`round`] rounds it once into the target format.
//! NaN results are the canonical NaN of the format (all ones below the sign bit), as NVIDIA
//! hardware produces.

use crate::ir::Rounding;

/// A binary floating-point format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fmt {
    /// Exponent field width.
    pub exp_bits: u32,
    /// Fraction field width.
    pub man_bits: u32,
}

/// IEEE half.
pub const F16: Fmt = Fmt {
    exp_bits: 5,
    man_bits: 10,
};
/// IEEE single.
pub const F32: Fmt = Fmt {
    exp_bits: 8,
    man_bits: 23,
};
/// IEEE double.
pub const F64: Fmt = Fmt {
    exp_bits: 11,
    man_bits: 52,
};

impl Fmt {
    fn bias(self) -> i32 {
        (1 << (self.exp_bits - 1)) - 1
    }
    fn width(self) -> u32 {
        1 + self.exp_bits + self.man_bits
    }
    fn sign_bit(self) -> u64 {
        1 << (self.width() - 1)
    }
    /// The canonical NaN.
    pub fn nan(self) -> u64 {
        self.sign_bit() - 1
    }
    /// Infinity with the given sign.
    pub fn inf(self, neg: bool) -> u64 {
        let e = ((1u64 << self.exp_bits) - 1) << self.man_bits;
        e | if neg { self.sign_bit() } else { 0 }
    }
    /// Zero with the given sign.
    pub fn zero(self, neg: bool) -> u64 {
        if neg { self.sign_bit() } else { 0 }
    }
    fn max_finite(self, neg: bool) -> u64 {
        self.inf(neg) - 1
    }
}

/// A decoded value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Not a number.
    Nan,
    /// Infinity (negative?).
    Inf(bool),
    /// Zero (negative?).
    Zero(bool),
    /// `(-1)^neg * mant * 2^exp`, `mant != 0`.
    Finite {
        /// Sign.
        neg: bool,
        /// Integer significand.
        mant: u128,
        /// Exponent of its last bit.
        exp: i32,
    },
}

/// Decodes `bits` of format `f`.
pub fn unpack(bits: u64, f: Fmt) -> Class {
    let neg = bits & f.sign_bit() != 0;
    let e = ((bits >> f.man_bits) & ((1 << f.exp_bits) - 1)) as i32;
    let m = bits & ((1 << f.man_bits) - 1);
    let emax = (1 << f.exp_bits) - 1;
    match (e, m) {
        (e, 0) if e == emax => Class::Inf(neg),
        (e, _) if e == emax => Class::Nan,
        (0, 0) => Class::Zero(neg),
        (0, m) => Class::Finite {
            neg,
            mant: m as u128,
            exp: 1 - f.bias() - f.man_bits as i32,
        },
        (e, m) => Class::Finite {
            neg,
            mant: (m | 1 << f.man_bits) as u128,
            exp: e - f.bias() - f.man_bits as i32,
        },
    }
}

/// True if `bits` is a subnormal of format `f`.
pub fn is_subnormal(bits: u64, f: Fmt) -> bool {
    let e = (bits >> f.man_bits) & ((1 << f.exp_bits) - 1);
    e == 0 && bits & ((1 << f.man_bits) - 1) != 0
}

/// Flushes a subnormal to a zero of the same sign.
pub fn flush(bits: u64, f: Fmt) -> u64 {
    if is_subnormal(bits, f) {
        bits & f.sign_bit()
    } else {
        bits
    }
}

fn bitlen(m: u128) -> i32 {
    128 - m.leading_zeros() as i32
}

/// Rounds `(-1)^neg * mant * 2^exp` (`mant != 0`) into `f` with mode `r`.
pub fn round(neg: bool, mant: u128, exp: i32, f: Fmt, r: Rounding) -> u64 {
    let man_bits = f.man_bits as i32;
    let emin = 1 - f.bias();
    let top = bitlen(mant) - 1 + exp;
    let mut q_exp = top.max(emin) - man_bits;
    let shift = q_exp - exp;
    let (mut int, rem_state) = if shift <= 0 {
        (mant << (-shift) as u32, 0)
    } else if shift >= 128 {
        (0, 1)
    } else {
        let rem = mant & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        let state = match rem.cmp(&half) {
            _ if rem == 0 => 0,
            std::cmp::Ordering::Less => 1,
            std::cmp::Ordering::Equal => 2,
            std::cmp::Ordering::Greater => 3,
        };
        (mant >> shift, state)
    };
    let inc = match r {
        Rounding::Rn => rem_state == 3 || (rem_state == 2 && int & 1 == 1),
        Rounding::Rz => false,
        Rounding::Rp => !neg && rem_state != 0,
        Rounding::Rm => neg && rem_state != 0,
    };
    int += inc as u128;
    if int >> (man_bits + 1) != 0 {
        int >>= 1;
        q_exp += 1;
    }
    if q_exp + man_bits > f.bias() {
        let to_inf = match r {
            Rounding::Rn => true,
            Rounding::Rz => false,
            Rounding::Rp => !neg,
            Rounding::Rm => neg,
        };
        return if to_inf { f.inf(neg) } else { f.max_finite(neg) };
    }
    let sign = if neg { f.sign_bit() } else { 0 };
    if int >> man_bits == 0 {
        return sign | int as u64;
    }
    let biased = (q_exp + man_bits + f.bias()) as u64;
    sign | biased << f.man_bits | (int as u64 & ((1 << f.man_bits) - 1))
}

/// The exact sum of two finite non-zero values as (neg, mant, exp), or `None` for zero.
fn add_exact(a: (bool, u128, i32), b: (bool, u128, i32)) -> Option<(bool, u128, i32)> {
    let top = |x: (bool, u128, i32)| x.2 + bitlen(x.1) - 1;
    let (big, small) = if top(a) >= top(b) { (a, b) } else { (b, a) };
    let shift_big = 125 - (bitlen(big.1) - 1);
    let mb = big.1 << shift_big;
    let e = big.2 - shift_big;
    let d = small.2 - e;
    let ms = if d >= 0 {
        small.1 << d
    } else if -d >= 128 {
        1
    } else {
        let k = -d;
        (small.1 >> k) | ((small.1 & ((1u128 << k) - 1)) != 0) as u128
    };
    if big.0 == small.0 {
        return Some((big.0, mb + ms, e));
    }
    match mb.cmp(&ms) {
        std::cmp::Ordering::Equal => None,
        std::cmp::Ordering::Greater => Some((big.0, mb - ms, e)),
        std::cmp::Ordering::Less => Some((small.0, ms - mb, e)),
    }
}

fn exact_zero(f: Fmt, r: Rounding) -> u64 {
    f.zero(r == Rounding::Rm)
}

/// `a + b`.
pub fn add(a: u64, b: u64, f: Fmt, r: Rounding) -> u64 {
    use Class::*;
    match (unpack(a, f), unpack(b, f)) {
        (Nan, _) | (_, Nan) => f.nan(),
        (Inf(x), Inf(y)) if x != y => f.nan(),
        (Inf(x), _) | (_, Inf(x)) => f.inf(x),
        (Zero(x), Zero(y)) if x == y => f.zero(x),
        (Zero(_), Zero(_)) => exact_zero(f, r),
        (Zero(_), _) => b,
        (_, Zero(_)) => a,
        (
            Finite {
                neg: n1,
                mant: m1,
                exp: e1,
            },
            Finite {
                neg: n2,
                mant: m2,
                exp: e2,
            },
        ) => match add_exact((n1, m1, e1), (n2, m2, e2)) {
            None => exact_zero(f, r),
            Some((n, m, e)) => round(n, m, e, f, r),
        },
    }
}

/// `a - b`.
pub fn sub(a: u64, b: u64, f: Fmt, r: Rounding) -> u64 {
    let nb = if matches!(unpack(b, f), Class::Nan) {
        b
    } else {
        b ^ f.sign_bit()
    };
    add(a, nb, f, r)
}

/// `a * b`.
pub fn mul(a: u64, b: u64, f: Fmt, r: Rounding) -> u64 {
    use Class::*;
    match (unpack(a, f), unpack(b, f)) {
        (Nan, _) | (_, Nan) => f.nan(),
        (Inf(_), Zero(_)) | (Zero(_), Inf(_)) => f.nan(),
        (Inf(x), Inf(y)) => f.inf(x != y),
        (Zero(x), Zero(y)) => f.zero(x != y),
        (Inf(x), Finite { neg: y, .. }) | (Finite { neg: y, .. }, Inf(x)) => f.inf(x != y),
        (Zero(x), Finite { neg: y, .. }) | (Finite { neg: y, .. }, Zero(x)) => f.zero(x != y),
        (
            Finite {
                neg: n1,
                mant: m1,
                exp: e1,
            },
            Finite {
                neg: n2,
                mant: m2,
                exp: e2,
            },
        ) => round(n1 != n2, m1 * m2, e1 + e2, f, r),
    }
}

/// `a * b + c` with one rounding.
pub fn fma(a: u64, b: u64, c: u64, f: Fmt, r: Rounding) -> u64 {
    use Class::*;
    let (ca, cb, cc) = (unpack(a, f), unpack(b, f), unpack(c, f));
    if matches!(ca, Nan) || matches!(cb, Nan) || matches!(cc, Nan) {
        return f.nan();
    }
    let sign = |k: Class| match k {
        Inf(n) | Zero(n) | Finite { neg: n, .. } => n,
        Nan => false,
    };
    let pneg = sign(ca) != sign(cb);
    let p_inf = matches!(ca, Inf(_)) || matches!(cb, Inf(_));
    let p_zero = matches!(ca, Zero(_)) || matches!(cb, Zero(_));
    if p_inf && p_zero {
        return f.nan();
    }
    if p_inf {
        return match cc {
            Inf(n) if n != pneg => f.nan(),
            _ => f.inf(pneg),
        };
    }
    if let Inf(n) = cc {
        return f.inf(n);
    }
    if p_zero {
        return match cc {
            Zero(n) if n == pneg => f.zero(n),
            Zero(_) => exact_zero(f, r),
            _ => c,
        };
    }
    let (Finite { mant: m1, exp: e1, .. }, Finite { mant: m2, exp: e2, .. }) = (ca, cb) else {
        unreachable!("finite product")
    };
    let p = (pneg, m1 * m2, e1 + e2);
    let sum = match cc {
        Zero(_) => Some(p),
        Finite { neg, mant, exp } => add_exact(p, (neg, mant, exp)),
        _ => unreachable!("handled"),
    };
    match sum {
        None => exact_zero(f, r),
        Some((n, m, e)) => round(n, m, e, f, r),
    }
}

/// `a / b`.
pub fn div(a: u64, b: u64, f: Fmt, r: Rounding) -> u64 {
    use Class::*;
    match (unpack(a, f), unpack(b, f)) {
        (Nan, _) | (_, Nan) | (Inf(_), Inf(_)) | (Zero(_), Zero(_)) => f.nan(),
        (Inf(x), Zero(y)) | (Inf(x), Finite { neg: y, .. }) => f.inf(x != y),
        (Finite { neg: x, .. }, Zero(y)) => f.inf(x != y),
        (Zero(x), Inf(y)) | (Zero(x), Finite { neg: y, .. }) => f.zero(x != y),
        (Finite { neg: x, .. }, Inf(y)) => f.zero(x != y),
        (
            Finite {
                neg: n1,
                mant: m1,
                exp: e1,
            },
            Finite {
                neg: n2,
                mant: m2,
                exp: e2,
            },
        ) => {
            let (q, e) = quotient(m1, e1, m2, e2);
            round(n1 != n2, q, e, f, r)
        }
    }
}

/// The quotient of two finite non-zero magnitudes `m1 * 2^e1 / (m2 * 2^e2)` as
/// `(mant, exp)`, with enough bits and a sticky bit to round it in any format.
fn quotient(m1: u128, e1: i32, m2: u128, e2: i32) -> (u128, i32) {
    let s = 125 - (bitlen(m1) - 1);
    let num = m1 << s;
    let (q, rem) = (num / m2, num % m2);
    (q << 1 | (rem != 0) as u128, e1 - s - e2 - 1)
}

/// Whether `(-1)^neg * mant * 2^exp`, rounded with mode `r` to the precision of `f` as if
/// its exponent were unbounded, is below the smallest normal of `f` (IEEE's "tininess after
/// rounding").
pub fn tiny_after_rounding(neg: bool, mant: u128, exp: i32, f: Fmt, r: Rounding) -> bool {
    let man_bits = f.man_bits as i32;
    let emin = 1 - f.bias();
    let top = bitlen(mant) - 1 + exp;
    if top >= emin {
        return false;
    }
    // Rounding up to the next power of two is the only way to reach the normal range.
    let shift = bitlen(mant) - 1 - man_bits;
    if top + 1 < emin || shift <= 0 {
        return true;
    }
    let kept = mant >> shift;
    let rem = mant & ((1u128 << shift) - 1);
    let half = 1u128 << (shift - 1);
    let all_ones = kept == (1u128 << (man_bits + 1)) - 1;
    let up = match r {
        Rounding::Rn => rem > half || (rem == half && kept & 1 == 1),
        Rounding::Rz => false,
        Rounding::Rp => !neg && rem != 0,
        Rounding::Rm => neg && rem != 0,
    };
    !(all_ones && up)
}

/// `a / b` (operands already flushed) with NVIDIA's `.ftz` rule for IEEE division and
/// reciprocal: the result is flushed to a signed zero when it is tiny after rounding with an
/// unbounded exponent, so a quotient just below the smallest normal that would round up to
/// it on the subnormal grid still gives zero. ptxas's `div.rp.ftz.f32` routine shows it:
/// `2^-126 / (1 + 2^-23)` gives +0, not `2^-126`.
pub fn div_ftz(a: u64, b: u64, f: Fmt, r: Rounding) -> u64 {
    if let (
        Class::Finite {
            neg: n1,
            mant: m1,
            exp: e1,
        },
        Class::Finite {
            neg: n2,
            mant: m2,
            exp: e2,
        },
    ) = (unpack(a, f), unpack(b, f))
    {
        let (neg, (q, e)) = (n1 != n2, quotient(m1, e1, m2, e2));
        if tiny_after_rounding(neg, q, e, f, r) {
            return f.zero(neg);
        }
        return round(neg, q, e, f, r);
    }
    div(a, b, f, r)
}

/// `sqrt(a)`.
pub fn sqrt(a: u64, f: Fmt, r: Rounding) -> u64 {
    match unpack(a, f) {
        Class::Nan | Class::Inf(true) | Class::Finite { neg: true, .. } => f.nan(),
        Class::Inf(false) | Class::Zero(_) => a,
        Class::Finite { mant, exp, .. } => {
            let mut s = 125 - (bitlen(mant) - 1);
            if (exp - s) % 2 != 0 {
                s -= 1;
            }
            let m = mant << s;
            let root = m.isqrt();
            let rem = m - root * root;
            round(false, root << 1 | (rem != 0) as u128, (exp - s) / 2 - 1, f, r)
        }
    }
}

/// Converts `a` from format `from` to format `to`.
pub fn convert(a: u64, from: Fmt, to: Fmt, r: Rounding) -> u64 {
    match unpack(a, from) {
        Class::Nan => to.nan(),
        Class::Inf(n) => to.inf(n),
        Class::Zero(n) => to.zero(n),
        Class::Finite { neg, mant, exp } => round(neg, mant, exp, to, r),
    }
}

/// Converts an integer (`neg`, magnitude) to format `f`.
pub fn from_int(neg: bool, magnitude: u64, f: Fmt, r: Rounding) -> u64 {
    if magnitude == 0 {
        return f.zero(false);
    }
    round(neg, magnitude as u128, 0, f, r)
}

/// The value of `a` as an `f64` (exact for every format here).
pub fn to_f64(a: u64, f: Fmt) -> f64 {
    f64::from_bits(convert(a, f, F64, Rounding::Rn))
}

/// Rounds an `f64` into `f` (round to nearest even).
pub fn from_f64(x: f64, f: Fmt) -> u64 {
    convert(x.to_bits(), F64, f, Rounding::Rn)
}

/// Rounds `a` to an integral value of the same format.
pub fn round_to_integral(a: u64, f: Fmt, r: Rounding) -> u64 {
    let x = to_f64(a, f);
    if !x.is_finite() {
        return if x.is_nan() { f.nan() } else { a };
    }
    let y = match r {
        Rounding::Rn => x.round_ties_even(),
        Rounding::Rz => x.trunc(),
        Rounding::Rm => x.floor(),
        Rounding::Rp => x.ceil(),
    };
    // Keep the sign of zero results (-0.3 rounds to -0).
    from_f64(if y == 0.0 { 0.0f64.copysign(x) } else { y }, f)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32op(op: fn(u64, u64, Fmt, Rounding) -> u64, a: f32, b: f32, r: Rounding) -> f32 {
        f32::from_bits(op(a.to_bits() as u64, b.to_bits() as u64, F32, r) as u32)
    }

    #[test]
    fn nearest_matches_the_host() {
        let vals = [1.0f32, 3.0, 0.1, -7.25, 1e-40, 3.4e38, -2.5e-38, 16777217.0, 1.0e-7];
        for &a in &vals {
            for &b in &vals {
                assert_eq!(f32op(add, a, b, Rounding::Rn), a + b, "{a} + {b}");
                assert_eq!(f32op(mul, a, b, Rounding::Rn), a * b, "{a} * {b}");
                assert_eq!(f32op(div, a, b, Rounding::Rn), a / b, "{a} / {b}");
                assert_eq!(
                    f32::from_bits(fma(
                        a.to_bits() as u64,
                        b.to_bits() as u64,
                        1.5f32.to_bits() as u64,
                        F32,
                        Rounding::Rn
                    ) as u32),
                    a.mul_add(b, 1.5)
                );
            }
            if a >= 0.0 {
                assert_eq!(
                    f32::from_bits(sqrt(a.to_bits() as u64, F32, Rounding::Rn) as u32),
                    a.sqrt()
                );
            }
        }
    }

    #[test]
    fn directed_modes_bracket_the_exact_result() {
        let (a, b) = (1.0f32, 1.0e-8f32);
        assert_eq!(f32op(add, a, b, Rounding::Rp), f32::from_bits(1.0f32.to_bits() + 1));
        assert_eq!(f32op(add, a, b, Rounding::Rm), 1.0);
        assert_eq!(f32op(add, -a, -b, Rounding::Rz), -1.0);
        assert_eq!(f32op(mul, 3.4e38, 10.0, Rounding::Rz), f32::MAX);
    }

    #[test]
    fn ftz_division_flushes_results_tiny_after_unbounded_rounding() {
        let (min_normal, one_ulp_up) = (0x0080_0000u64, 0x3f80_0001u64);
        // On the subnormal grid 2^-126 / (1 + 2^-23) rounds up to 2^-126 ...
        assert_eq!(div(min_normal, one_ulp_up, F32, Rounding::Rp), min_normal);
        // ... with 24 bits and an unbounded exponent it stays below it, so .ftz gives 0.
        assert_eq!(div_ftz(min_normal, one_ulp_up, F32, Rounding::Rp), 0);
        assert_eq!(div_ftz(min_normal | 1 << 31, one_ulp_up, F32, Rounding::Rm), 1 << 31);
        // Exactly representable normal and subnormal results.
        assert_eq!(div_ftz(min_normal, 0x3f80_0000, F32, Rounding::Rp), min_normal);
        assert_eq!(div_ftz(min_normal, 0x4000_0000, F32, Rounding::Rp), 0);
        // A quotient that rounds up across 2^-126 with 24 bits is not tiny.
        assert!(!tiny_after_rounding(false, (1 << 25) - 1, -151, F32, Rounding::Rp));
        assert!(tiny_after_rounding(false, (1 << 25) - 1, -151, F32, Rounding::Rz));
    }
}
