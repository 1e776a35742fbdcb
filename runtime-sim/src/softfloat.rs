//! Exact arithmetic on binary floating-point values and correct rounding into any IEEE
//! format (f16, f32, f64) or to an integer, in every rounding mode. The engines use the
//! host's operations for round-to-nearest where they are exact and this module everywhere
//! else: directed rounding, conversions, half precision fused multiply-add.
//!
//! A finite value is held as `(-1)^sign * mant * 2^exp` plus a sticky flag meaning "and a
//! little more below the last bit of `mant`"; sums and products of two or three operands of
//! up to 53 bits are computed exactly or with a sticky bit far below the rounding position,
//! which is all correct rounding needs.

use crate::fp::Rnd;

/// An IEEE binary interchange format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    /// Explicit fraction bits.
    pub frac: u32,
    /// Exponent bits.
    pub exp: u32,
}

/// Half precision.
pub const F16: Format = Format { frac: 10, exp: 5 };
/// Single precision.
pub const F32: Format = Format { frac: 23, exp: 8 };
/// Double precision.
pub const F64: Format = Format { frac: 52, exp: 11 };

impl Format {
    fn bias(self) -> i32 {
        (1 << (self.exp - 1)) - 1
    }
    fn exp_mask(self) -> u64 {
        (1 << self.exp) - 1
    }
    /// The bit pattern of +infinity.
    pub fn inf(self) -> u64 {
        self.exp_mask() << self.frac
    }
    /// The canonical NaN the GPU produces (all fraction bits set, sign clear).
    pub fn canonical_nan(self) -> u64 {
        self.inf() | ((1 << self.frac) - 1)
    }
    /// The largest finite value's bit pattern.
    pub fn max_finite(self) -> u64 {
        self.inf() - 1
    }
    /// The sign bit.
    pub fn sign_bit(self) -> u64 {
        1 << (self.frac + self.exp)
    }
    /// True if the bit pattern `x` (of this format, upper bits ignored) is a NaN.
    pub fn is_nan(self, x: u64) -> bool {
        let magnitude = x & (self.sign_bit() - 1);
        magnitude > self.inf()
    }
}

/// A classified value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    /// Not a number.
    Nan,
    /// Infinity with a sign.
    Inf(bool),
    /// Zero with a sign.
    Zero(bool),
    /// A finite non-zero value.
    Finite(Exact),
}

/// `(-1)^sign * (mant + (sticky ? epsilon : 0)) * 2^exp`, `mant` non-zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exact {
    /// Negative.
    pub sign: bool,
    /// Integer significand.
    pub mant: u128,
    /// Power of two of the significand's last bit.
    pub exp: i32,
    /// More non-zero bits below `mant`.
    pub sticky: bool,
}

/// Splits a bit pattern of format `f` into its value; `ftz` flushes subnormals to zero.
pub fn unpack(bits: u64, f: Format, ftz: bool) -> Value {
    let sign = bits & f.sign_bit() != 0;
    let e = ((bits >> f.frac) & f.exp_mask()) as i32;
    let frac = bits & ((1 << f.frac) - 1);
    if e as u64 == f.exp_mask() {
        return if frac == 0 { Value::Inf(sign) } else { Value::Nan };
    }
    if e == 0 {
        if frac == 0 || ftz {
            return Value::Zero(sign);
        }
        return Value::Finite(Exact {
            sign,
            mant: frac as u128,
            exp: 1 - f.bias() - f.frac as i32,
            sticky: false,
        });
    }
    Value::Finite(Exact {
        sign,
        mant: (frac | 1 << f.frac) as u128,
        exp: e - f.bias() - f.frac as i32,
        sticky: false,
    })
}

/// Shifts `m` right by `n` bits, returning the result and whether non-zero bits fell off.
fn shift_right(m: u128, n: u32) -> (u128, bool) {
    if n == 0 {
        (m, false)
    } else if n >= 128 {
        (0, m != 0)
    } else {
        (m >> n, m & ((1u128 << n) - 1) != 0)
    }
}

/// Whether the magnitude must be incremented after truncation.
fn round_up(mode: Rnd, sign: bool, lsb: bool, half: bool, sticky: bool) -> bool {
    match mode {
        Rnd::Rn => half && (sticky || lsb),
        Rnd::Rz => false,
        Rnd::Rp => !sign && (half || sticky),
        Rnd::Rm => sign && (half || sticky),
    }
}

/// Rounds an exact value into format `f`; `ftz` flushes subnormal results to zero.
pub fn round(x: Exact, f: Format, mode: Rnd, ftz: bool) -> u64 {
    let sign_bits = if x.sign { f.sign_bit() } else { 0 };
    let len = 128 - x.mant.leading_zeros() as i32;
    let top = x.exp + len - 1;
    let emin = 1 - f.bias();
    let emax = f.bias();
    let q = (top - f.frac as i32).max(emin - f.frac as i32);
    let (mut m, half, sticky) = if q > x.exp {
        let shift = (q - x.exp) as u32;
        let (kept, lost_below) = shift_right(x.mant, shift - 1);
        (kept >> 1, kept & 1 == 1, lost_below || x.sticky)
    } else {
        ((x.mant) << (x.exp - q) as u32, false, x.sticky)
    };
    let mut q = q;
    if round_up(mode, x.sign, m & 1 == 1, half, sticky) {
        m += 1;
        if m >> (f.frac + 1) != 0 {
            m >>= 1;
            q += 1;
        }
    }
    if m == 0 {
        return sign_bits;
    }
    let top = q + 127 - m.leading_zeros() as i32;
    if top > emax {
        let to_inf = match mode {
            Rnd::Rn => true,
            Rnd::Rz => false,
            Rnd::Rp => !x.sign,
            Rnd::Rm => x.sign,
        };
        return sign_bits | if to_inf { f.inf() } else { f.max_finite() };
    }
    if m >> f.frac == 0 {
        // Subnormal.
        if ftz {
            return sign_bits;
        }
        return sign_bits | m as u64;
    }
    let e = (top + f.bias()) as u64;
    sign_bits | e << f.frac | (m as u64 & ((1 << f.frac) - 1))
}

/// Rounds to an integer in mode `mode`: the sign and magnitude.
pub fn round_to_integer(x: Exact, mode: Rnd) -> (bool, u128) {
    if x.exp >= 0 {
        let len = 128 - x.mant.leading_zeros() as i32;
        let m = if len + x.exp > 120 {
            1u128 << 120
        } else {
            x.mant << x.exp
        };
        return (x.sign, m);
    }
    let shift = (-x.exp) as u32;
    let (kept, lost) = shift_right(x.mant, shift - 1);
    let (m, half, sticky) = (kept >> 1, kept & 1 == 1, lost || x.sticky);
    let m = if round_up(mode, x.sign, m & 1 == 1, half, sticky) {
        m + 1
    } else {
        m
    };
    (x.sign, m)
}

/// Normalises the significand so that its top bit is bit 125 (exactly, or with sticky).
fn normalise(x: Exact) -> Exact {
    let len = 128 - x.mant.leading_zeros() as i32;
    let d = 126 - len;
    if d >= 0 {
        Exact {
            mant: x.mant << d,
            exp: x.exp - d,
            ..x
        }
    } else {
        let (m, lost) = shift_right(x.mant, (-d) as u32);
        Exact {
            mant: m,
            exp: x.exp - d,
            sticky: x.sticky || lost,
            ..x
        }
    }
}

/// The exact (or sticky-exact) sum of two finite values; `None` for an exact zero.
pub fn add_exact(a: Exact, b: Exact) -> Option<Exact> {
    let (a, b) = (normalise(a), normalise(b));
    let (x, y) = if a.exp >= b.exp { (a, b) } else { (b, a) };
    let d = (x.exp - y.exp) as u32;
    let (ym, lost) = shift_right(y.mant, d);
    let y_sticky = y.sticky || lost;
    if x.sign == y.sign {
        return Some(Exact {
            sign: x.sign,
            mant: x.mant + ym,
            exp: x.exp,
            sticky: x.sticky || y_sticky,
        });
    }
    // Opposite signs: |x| - |y|.
    let (big, small, sign, small_sticky) = if x.mant >= ym {
        (x.mant, ym, x.sign, y_sticky)
    } else {
        (ym, x.mant, y.sign, x.sticky)
    };
    let diff = big - small;
    if small_sticky && diff > 0 {
        // big - (small + eps) = (diff - 1) + (1 - eps).
        return Some(Exact {
            sign,
            mant: diff - 1,
            exp: x.exp,
            sticky: true,
        })
        .filter(|e| e.mant != 0 || e.sticky);
    }
    (diff != 0).then_some(Exact {
        sign,
        mant: diff,
        exp: x.exp,
        sticky: x.sticky && sign == x.sign,
    })
}

/// The exact product of two finite values of at most 64 significant bits each.
pub fn mul_exact(a: Exact, b: Exact) -> Exact {
    let shrink = |x: Exact| {
        let len = 128 - x.mant.leading_zeros() as i32;
        if len > 64 {
            let (m, lost) = shift_right(x.mant, (len - 64) as u32);
            Exact {
                mant: m,
                exp: x.exp + len - 64,
                sticky: x.sticky || lost,
                ..x
            }
        } else {
            x
        }
    };
    let (a, b) = (shrink(a), shrink(b));
    Exact {
        sign: a.sign != b.sign,
        mant: a.mant * b.mant,
        exp: a.exp + b.exp,
        sticky: a.sticky || b.sticky,
    }
}

/// IEEE addition in format `f` (NaN results are canonical).
pub fn add(a: u64, b: u64, f: Format, mode: Rnd, ftz: bool) -> u64 {
    match (unpack(a, f, ftz), unpack(b, f, ftz)) {
        (Value::Nan, _) | (_, Value::Nan) => f.canonical_nan(),
        (Value::Inf(s), Value::Inf(t)) if s != t => f.canonical_nan(),
        (Value::Inf(s), _) | (_, Value::Inf(s)) => inf(f, s),
        (Value::Zero(s), Value::Zero(t)) => zero(f, if s == t { s } else { mode == Rnd::Rm }),
        (Value::Zero(_), Value::Finite(x)) | (Value::Finite(x), Value::Zero(_)) => round(x, f, mode, ftz),
        (Value::Finite(x), Value::Finite(y)) => match add_exact(x, y) {
            Some(s) => round(s, f, mode, ftz),
            None => zero(f, mode == Rnd::Rm),
        },
    }
}

/// IEEE multiplication in format `f`.
pub fn mul(a: u64, b: u64, f: Format, mode: Rnd, ftz: bool) -> u64 {
    match (unpack(a, f, ftz), unpack(b, f, ftz)) {
        (Value::Nan, _) | (_, Value::Nan) => f.canonical_nan(),
        (Value::Inf(_), Value::Zero(_)) | (Value::Zero(_), Value::Inf(_)) => f.canonical_nan(),
        (Value::Inf(s), Value::Inf(t)) => inf(f, s != t),
        (Value::Inf(s), Value::Finite(x)) | (Value::Finite(x), Value::Inf(s)) => inf(f, s != x.sign),
        (Value::Zero(s), Value::Zero(t)) => zero(f, s != t),
        (Value::Zero(s), Value::Finite(x)) | (Value::Finite(x), Value::Zero(s)) => zero(f, s != x.sign),
        (Value::Finite(x), Value::Finite(y)) => round(mul_exact(x, y), f, mode, ftz),
    }
}

/// IEEE fused multiply-add `a * b + c` in format `f` with one rounding.
pub fn fma(a: u64, b: u64, c: u64, f: Format, mode: Rnd, ftz: bool) -> u64 {
    let (va, vb, vc) = (unpack(a, f, ftz), unpack(b, f, ftz), unpack(c, f, ftz));
    if matches!(va, Value::Nan) || matches!(vb, Value::Nan) || matches!(vc, Value::Nan) {
        return f.canonical_nan();
    }
    // The product as a value.
    let product = match (va, vb) {
        (Value::Inf(_), Value::Zero(_)) | (Value::Zero(_), Value::Inf(_)) => return f.canonical_nan(),
        (Value::Inf(s), Value::Inf(t)) => Value::Inf(s != t),
        (Value::Inf(s), Value::Finite(x)) | (Value::Finite(x), Value::Inf(s)) => Value::Inf(s != x.sign),
        (Value::Zero(s), Value::Zero(t)) => Value::Zero(s != t),
        (Value::Zero(s), Value::Finite(x)) | (Value::Finite(x), Value::Zero(s)) => Value::Zero(s != x.sign),
        (Value::Finite(x), Value::Finite(y)) => Value::Finite(mul_exact(x, y)),
        _ => unreachable!("NaN handled above"),
    };
    match (product, vc) {
        (Value::Inf(s), Value::Inf(t)) if s != t => f.canonical_nan(),
        (Value::Inf(s), _) | (_, Value::Inf(s)) => inf(f, s),
        (Value::Zero(s), Value::Zero(t)) => zero(f, if s == t { s } else { mode == Rnd::Rm }),
        (Value::Zero(_), Value::Finite(x)) | (Value::Finite(x), Value::Zero(_)) => round(x, f, mode, ftz),
        (Value::Finite(x), Value::Finite(y)) => match add_exact(x, y) {
            Some(s) => round(s, f, mode, ftz),
            None => zero(f, mode == Rnd::Rm),
        },
        _ => f.canonical_nan(),
    }
}

/// Converts between formats (or rounds within one) in mode `mode`; NaN becomes canonical.
pub fn convert(bits: u64, from: Format, to: Format, mode: Rnd, ftz: bool) -> u64 {
    match unpack(bits, from, ftz) {
        Value::Nan => to.canonical_nan(),
        Value::Inf(s) => inf(to, s),
        Value::Zero(s) => zero(to, s),
        Value::Finite(x) => round(x, to, mode, ftz),
    }
}

/// Rounds to an integral value in the same format (FRND).
pub fn round_integral(bits: u64, f: Format, mode: Rnd, ftz: bool) -> u64 {
    match unpack(bits, f, ftz) {
        Value::Nan => f.canonical_nan(),
        Value::Finite(x) if x.exp < 0 => {
            let (sign, m) = round_to_integer(x, mode);
            if m == 0 {
                zero(f, sign)
            } else {
                round(
                    Exact {
                        sign,
                        mant: m,
                        exp: 0,
                        sticky: false,
                    },
                    f,
                    mode,
                    ftz,
                )
            }
        }
        Value::Zero(s) => zero(f, s),
        _ => bits,
    }
}

/// Converts a signed or unsigned integer to format `f`.
pub fn from_int(v: i128, f: Format, mode: Rnd) -> u64 {
    if v == 0 {
        return 0;
    }
    round(
        Exact {
            sign: v < 0,
            mant: v.unsigned_abs(),
            exp: 0,
            sticky: false,
        },
        f,
        mode,
        false,
    )
}

/// Converts a float to an integer of `bits` bits (signed or not), rounding in `mode` and
/// saturating; NaN gives 0 (the GPU's rule).
pub fn to_int(x: u64, f: Format, mode: Rnd, ftz: bool, bits: u32, signed: bool) -> i128 {
    let (lo, hi): (i128, i128) = if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    match unpack(x, f, ftz) {
        Value::Nan => 0,
        Value::Zero(_) => 0,
        Value::Inf(s) => {
            if s {
                lo
            } else {
                hi
            }
        }
        Value::Finite(e) => {
            let (sign, m) = round_to_integer(e, mode);
            let m = m.min(1u128 << 100) as i128;
            let v = if sign { -m } else { m };
            v.clamp(lo, hi)
        }
    }
}

fn inf(f: Format, sign: bool) -> u64 {
    f.inf() | if sign { f.sign_bit() } else { 0 }
}

fn zero(f: Format, sign: bool) -> u64 {
    if sign { f.sign_bit() } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32_of(b: u64) -> f32 {
        f32::from_bits(b as u32)
    }

    #[test]
    fn nearest_matches_the_host() {
        let mut seed = 0x1234_5678_9abc_def0u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..20000 {
            let (a, b, c) = (next(), next(), next());
            let (fa, fb, fc) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
            let check = |got: u64, want: f64| {
                if want.is_nan() {
                    assert_eq!(got, F64.canonical_nan());
                } else {
                    assert_eq!(got, want.to_bits(), "{fa:e} {fb:e} {fc:e}");
                }
            };
            check(add(a, b, F64, Rnd::Rn, false), fa + fb);
            check(mul(a, b, F64, Rnd::Rn, false), fa * fb);
            check(fma(a, b, c, F64, Rnd::Rn, false), fa.mul_add(fb, fc));
            let (xa, xb, xc) = (a as u32 as u64, b as u32 as u64, c as u32 as u64);
            let (ga, gb, gc) = (f32_of(xa), f32_of(xb), f32_of(xc));
            let want = ga.mul_add(gb, gc);
            let got = fma(xa, xb, xc, F32, Rnd::Rn, false);
            if want.is_nan() {
                assert_eq!(got, F32.canonical_nan());
            } else {
                assert_eq!(got, want.to_bits() as u64);
            }
            // Sums of close values cancel exactly.
            let near = (b & 0xffff) | (a & !0xffff);
            check(add(a, near ^ (1 << 63), F64, Rnd::Rn, false), fa - f64::from_bits(near));
            assert_eq!(convert(a, F64, F32, Rnd::Rn, false), {
                let r = fa as f32;
                if r.is_nan() {
                    F32.canonical_nan()
                } else {
                    r.to_bits() as u64
                }
            });
        }
    }

    #[test]
    fn directed_rounding_and_conversions() {
        let one = 1.0f64.to_bits();
        let tiny = 1e-30f64.to_bits();
        assert_eq!(f64::from_bits(add(one, tiny, F64, Rnd::Rp, false)), 1.0 + f64::EPSILON);
        assert_eq!(f64::from_bits(add(one, tiny, F64, Rnd::Rz, false)), 1.0);
        assert_eq!(
            f64::from_bits(add(one, tiny ^ (1 << 63), F64, Rnd::Rz, false)),
            1.0 - f64::EPSILON / 2.0
        );
        assert_eq!(f64::from_bits(add(one, tiny ^ (1 << 63), F64, Rnd::Rn, false)), 1.0);
        let third = convert((1.0f64 / 3.0).to_bits(), F64, F32, Rnd::Rp, false);
        // The nearest f32 to 1/3 lies above it.
        assert_eq!(f32_of(third), 1.0f32 / 3.0);
        let third_rz = convert((1.0f64 / 3.0).to_bits(), F64, F32, Rnd::Rz, false);
        assert_eq!(third_rz as u32, (1.0f32 / 3.0).to_bits() - 1);
        assert_eq!(from_int(16_777_217, F32, Rnd::Rn), 16_777_216f32.to_bits() as u64);
        assert_eq!(from_int(16_777_217, F32, Rnd::Rp), 16_777_218f32.to_bits() as u64);
        assert_eq!(to_int(2.5f32.to_bits() as u64, F32, Rnd::Rn, false, 32, true), 2);
        assert_eq!(to_int(3.5f32.to_bits() as u64, F32, Rnd::Rn, false, 32, true), 4);
        assert_eq!(to_int((-2.5f32).to_bits() as u64, F32, Rnd::Rm, false, 32, true), -3);
        assert_eq!(
            to_int(1e20f32.to_bits() as u64, F32, Rnd::Rz, false, 32, true),
            i32::MAX as i128
        );
        assert_eq!(to_int((-1.0f32).to_bits() as u64, F32, Rnd::Rz, false, 32, false), 0);
        assert_eq!(to_int(f32::NAN.to_bits() as u64, F32, Rnd::Rz, false, 32, true), 0);
        assert_eq!(
            f32_of(round_integral(2.5f32.to_bits() as u64, F32, Rnd::Rn, false)),
            2.0
        );
        assert_eq!(
            f32_of(round_integral((-0.5f32).to_bits() as u64, F32, Rnd::Rn, false)),
            -0.0
        );
        assert_eq!(
            f32_of(round_integral(0.2f32.to_bits() as u64, F32, Rnd::Rp, false)),
            1.0
        );
        // f32 -> f16: 65520 rounds to infinity, 65519 to the largest half.
        assert_eq!(convert(65520f32.to_bits() as u64, F32, F16, Rnd::Rn, false), 0x7c00);
        assert_eq!(convert(65519f32.to_bits() as u64, F32, F16, Rnd::Rn, false), 0x7bff);
        assert_eq!(convert(65520f32.to_bits() as u64, F32, F16, Rnd::Rz, false), 0x7bff);
        // Subnormal halves.
        assert_eq!(convert(2f32.powi(-24).to_bits() as u64, F32, F16, Rnd::Rn, false), 1);
        assert_eq!(convert(2f32.powi(-26).to_bits() as u64, F32, F16, Rnd::Rp, false), 1);
    }
}
