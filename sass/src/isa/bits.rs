//! Bit fields of a 128-bit SASS instruction word (`inst = word0 | word1 << 64`).

/// A contiguous bit range `lo .. lo+len` of the 128-bit instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BitField {
    /// Lowest bit.
    pub lo: u8,
    /// Number of bits (1..=64).
    pub len: u8,
}

impl BitField {
    /// The field `lo .. lo+len`.
    pub const fn new(lo: u8, len: u8) -> BitField {
        BitField { lo, len }
    }

    /// A mask of the field's bits in the 128-bit word.
    pub const fn mask(self) -> u128 {
        let ones = if self.len >= 64 {
            u64::MAX as u128
        } else {
            (1u128 << self.len) - 1
        };
        ones << self.lo
    }

    /// The largest value the field holds.
    pub const fn max(self) -> u64 {
        if self.len >= 64 {
            u64::MAX
        } else {
            (1u64 << self.len) - 1
        }
    }

    /// Reads the field (zero-extended).
    pub fn get(self, inst: u128) -> u64 {
        ((inst >> self.lo) as u64) & self.max()
    }

    /// Reads the field sign-extended from its top bit.
    pub fn get_signed(self, inst: u128) -> i64 {
        let v = self.get(inst);
        let shift = 64 - self.len as u32;
        ((v << shift) as i64) >> shift
    }

    /// Writes `value` (truncated to the field width) into the field.
    pub fn set(self, inst: &mut u128, value: u64) {
        *inst = (*inst & !self.mask()) | (((value & self.max()) as u128) << self.lo);
    }

    /// True if `value` fits as an unsigned value.
    pub fn fits_unsigned(self, value: u64) -> bool {
        value <= self.max()
    }

    /// True if `value` fits as a two's-complement signed value.
    pub fn fits_signed(self, value: i64) -> bool {
        let half = 1i128 << (self.len - 1);
        (value as i128) >= -half && (value as i128) < half
    }
}

/// Shorthand for [`BitField::new`].
pub const fn bits(lo: u8, len: u8) -> BitField {
    BitField::new(lo, len)
}

/// Splits an instruction into its two little-endian 64-bit words.
pub fn to_words(inst: u128) -> (u64, u64) {
    (inst as u64, (inst >> 64) as u64)
}

/// Joins two 64-bit words (word0 at the lower address) into an instruction.
pub fn from_words(w0: u64, w1: u64) -> u128 {
    w0 as u128 | (w1 as u128) << 64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn get_set_roundtrip_across_word_boundary() {
        let f = bits(32, 50);
        let mut x = 0u128;
        f.set(&mut x, (1u64 << 50) - 16);
        assert_eq!(f.get(x), (1u64 << 50) - 16);
        assert_eq!(f.get_signed(x), -16);
        assert!(f.fits_signed(-16));
        assert!(!bits(40, 24).fits_signed(1 << 23));
    }
}
