//! Integer types of the generated instructions and their register classes.

use crate::program::{Class, ImmTy};
use crate::rng::Rng;

/// An integer type (`u16` ... `s64`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntTy {
    /// Width in bits (16, 32 or 64).
    pub bits: u32,
    /// Signed?
    pub signed: bool,
}

impl IntTy {
    /// Every 16/32/64-bit integer type.
    pub const ALL: [IntTy; 6] = [
        IntTy::new(16, false),
        IntTy::new(16, true),
        IntTy::new(32, false),
        IntTy::new(32, true),
        IntTy::new(64, false),
        IntTy::new(64, true),
    ];

    /// A type.
    pub const fn new(bits: u32, signed: bool) -> IntTy {
        IntTy { bits, signed }
    }

    /// A random type, 32-bit more often than the others.
    pub fn random(rng: &mut Rng) -> IntTy {
        let bits = [16, 32, 32, 64][rng.index(4)];
        IntTy::new(bits, rng.chance(50))
    }

    /// `u32`, `s64`, ...
    pub fn name(self) -> String {
        format!("{}{}", if self.signed { 's' } else { 'u' }, self.bits)
    }

    /// `b32`, ...
    pub fn bname(self) -> String {
        format!("b{}", self.bits)
    }

    /// Register class of this width.
    pub fn class(self) -> Class {
        class_of_bits(self.bits)
    }

    /// Immediate type.
    pub fn imm(self) -> ImmTy {
        match (self.bits, self.signed) {
            (16, false) => ImmTy::U16,
            (16, true) => ImmTy::S16,
            (32, false) => ImmTy::U32,
            (32, true) => ImmTy::S32,
            (_, false) => ImmTy::U64,
            (_, true) => ImmTy::S64,
        }
    }

    /// The type twice as wide (for `.wide`).
    pub fn wide(self) -> IntTy {
        IntTy::new(self.bits * 2, self.signed)
    }
}

/// The integer register class of a width.
pub fn class_of_bits(bits: u32) -> Class {
    match bits {
        16 => Class::B16,
        32 => Class::B32,
        _ => Class::B64,
    }
}
