//! Typed immediates and their PTX spelling (hex for unsigned, decimal for signed, `0f`/`0d`
//! bit patterns for floats, so every value round-trips exactly).

/// Type of an immediate operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImmTy {
    /// 16-bit unsigned or untyped bits.
    U16,
    /// 16-bit signed.
    S16,
    /// 32-bit unsigned or untyped bits.
    U32,
    /// 32-bit signed.
    S32,
    /// 64-bit unsigned or untyped bits.
    U64,
    /// 64-bit signed.
    S64,
    /// f32 bit pattern.
    F32,
    /// f64 bit pattern.
    F64,
}

impl ImmTy {
    /// Width in bits.
    pub fn bits(self) -> u32 {
        match self {
            ImmTy::U16 | ImmTy::S16 => 16,
            ImmTy::U32 | ImmTy::S32 | ImmTy::F32 => 32,
            ImmTy::U64 | ImmTy::S64 | ImmTy::F64 => 64,
        }
    }

    /// The immediate type of a PTX type name (`b32` → U32); None for predicates and others.
    pub fn of(ty: &str) -> Option<ImmTy> {
        Some(match ty {
            "b16" | "u16" => ImmTy::U16,
            "s16" => ImmTy::S16,
            "b32" | "u32" => ImmTy::U32,
            "s32" => ImmTy::S32,
            "b64" | "u64" => ImmTy::U64,
            "s64" => ImmTy::S64,
            "f32" => ImmTy::F32,
            "f64" => ImmTy::F64,
            _ => return None,
        })
    }

    /// Mask of the value bits.
    pub fn mask(self) -> u64 {
        if self.bits() == 64 {
            u64::MAX
        } else {
            (1u64 << self.bits()) - 1
        }
    }
}

/// An immediate: a bit pattern of a type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Imm {
    /// Its type.
    pub ty: ImmTy,
    /// Its bits (only the low `ty.bits()` matter).
    pub bits: u64,
}

impl Imm {
    /// An immediate of `ty` with `bits` truncated to the type.
    pub fn new(ty: ImmTy, bits: u64) -> Imm {
        Imm {
            ty,
            bits: bits & ty.mask(),
        }
    }
}

impl std::fmt::Display for Imm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let b = self.bits & self.ty.mask();
        match self.ty {
            ImmTy::U16 | ImmTy::U32 | ImmTy::U64 => write!(f, "0x{b:X}"),
            ImmTy::S16 => write!(f, "{}", b as u16 as i16),
            ImmTy::S32 => write!(f, "{}", b as u32 as i32),
            ImmTy::S64 if b == 1 << 63 => write!(f, "0x8000000000000000"),
            ImmTy::S64 => write!(f, "{}", b as i64),
            ImmTy::F32 => write!(f, "0f{b:08X}"),
            ImmTy::F64 => write!(f, "0d{b:016X}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings() {
        assert_eq!(Imm::new(ImmTy::U32, u64::MAX).to_string(), "0xFFFFFFFF");
        assert_eq!(Imm::new(ImmTy::S32, 0x8000_0000).to_string(), "-2147483648");
        assert_eq!(Imm::new(ImmTy::S16, 0xffff).to_string(), "-1");
        assert_eq!(Imm::new(ImmTy::F32, 0x3f80_0000).to_string(), "0f3F800000");
        assert_eq!(Imm::new(ImmTy::S64, 1 << 63).to_string(), "0x8000000000000000");
    }
}
