//! Binary interchange formats: the field widths of a format and the bit patterns of its
//! special values.

/// A binary floating-point format: a sign bit, `exp_bits` exponent bits and `man_bits`
/// explicit fraction bits, at most 64 bits wide, in the low bits of a `u64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Format {
    exp_bits: u32,
    man_bits: u32,
}

/// IEEE binary16 (half).
pub const F16: Format = Format::new(5, 10);
/// bfloat16: f32's exponent with 7 fraction bits.
pub const BF16: Format = Format::new(8, 7);
/// TensorFloat-32: f32's exponent with f16's 10 fraction bits, 19 bits wide (in a 32-bit
/// register it occupies the upper 19 bits, the lower 13 being zero).
pub const TF32: Format = Format::new(8, 10);
/// IEEE binary32 (single).
pub const F32: Format = Format::new(8, 23);
/// IEEE binary64 (double).
pub const F64: Format = Format::new(11, 52);

impl Format {
    /// The format with `exp_bits` exponent bits (2 to 11) and `man_bits` fraction bits (1 to
    /// 52).
    #[inline]
    pub const fn new(exp_bits: u32, man_bits: u32) -> Format {
        assert!(exp_bits >= 2 && exp_bits <= 11 && man_bits >= 1 && man_bits <= 52);
        Format { exp_bits, man_bits }
    }

    /// Exponent field width.
    #[inline]
    pub const fn exp_bits(self) -> u32 {
        self.exp_bits
    }

    /// Fraction field width (the precision less the implicit bit).
    #[inline]
    pub const fn man_bits(self) -> u32 {
        self.man_bits
    }

    /// Total width in bits.
    #[inline]
    pub const fn width(self) -> u32 {
        1 + self.exp_bits + self.man_bits
    }

    /// The exponent bias (also the largest unbiased exponent of a finite value).
    #[inline]
    pub const fn bias(self) -> i32 {
        (1 << (self.exp_bits - 1)) - 1
    }

    /// The unbiased exponent of the smallest normal value.
    #[inline]
    pub const fn emin(self) -> i32 {
        1 - self.bias()
    }

    /// All bits of the format.
    #[inline]
    pub const fn mask(self) -> u64 {
        u64::MAX >> (64 - self.width())
    }

    /// The sign bit.
    #[inline]
    pub const fn sign_bit(self) -> u64 {
        1 << (self.exp_bits + self.man_bits)
    }

    /// The fraction field.
    #[inline]
    pub const fn man_mask(self) -> u64 {
        (1 << self.man_bits) - 1
    }

    /// The exponent field (also the bits of +infinity).
    #[inline]
    pub const fn exp_mask(self) -> u64 {
        ((1 << self.exp_bits) - 1) << self.man_bits
    }

    /// Zero with the given sign.
    #[inline]
    pub const fn zero(self, neg: bool) -> u64 {
        if neg { self.sign_bit() } else { 0 }
    }

    /// Infinity with the given sign.
    #[inline]
    pub const fn inf(self, neg: bool) -> u64 {
        self.exp_mask() | self.zero(neg)
    }

    /// The largest finite magnitude with the given sign.
    #[inline]
    pub const fn max_finite(self, neg: bool) -> u64 {
        self.inf(neg) - 1
    }

    /// The smallest normal magnitude with the given sign.
    #[inline]
    pub const fn min_normal(self, neg: bool) -> u64 {
        (1 << self.man_bits) | self.zero(neg)
    }

    /// +1.0.
    #[inline]
    pub const fn one(self) -> u64 {
        (self.bias() as u64) << self.man_bits
    }

    /// The canonical NaN of NVIDIA's arithmetic: sign clear, every other bit set
    /// (`0x7fff` f16 and bf16, `0x7fffffff` f32, `0x7fffffffffffffff` f64).
    #[inline]
    pub const fn canonical_nan(self) -> u64 {
        self.sign_bit() - 1
    }

    /// True if `x` is a NaN (bits above the format are ignored, as in every function here).
    #[inline]
    pub const fn is_nan(self, x: u64) -> bool {
        x & (self.sign_bit() - 1) > self.exp_mask()
    }

    /// True if `x` is an infinity.
    #[inline]
    pub const fn is_inf(self, x: u64) -> bool {
        x & (self.sign_bit() - 1) == self.exp_mask()
    }

    /// True if `x` is a zero of either sign.
    #[inline]
    pub const fn is_zero(self, x: u64) -> bool {
        x & (self.sign_bit() - 1) == 0
    }

    /// True if `x` is subnormal (not zero, exponent field zero).
    #[inline]
    pub const fn is_subnormal(self, x: u64) -> bool {
        x & self.exp_mask() == 0 && x & self.man_mask() != 0
    }

    /// True if the sign bit of `x` is set (NaNs included).
    #[inline]
    pub const fn is_negative(self, x: u64) -> bool {
        x & self.sign_bit() != 0
    }
}
