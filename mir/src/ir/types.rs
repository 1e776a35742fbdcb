//! Value types of the MIR. Integers are bit patterns: signedness lives on the operations.

use std::fmt;

/// The type of an SSA value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// A predicate (one bit per thread).
    Pred,
    /// 8-bit integer.
    I8,
    /// 16-bit integer.
    I16,
    /// 32-bit integer.
    I32,
    /// 64-bit integer.
    I64,
    /// IEEE half.
    F16,
    /// Two packed halves.
    F16x2,
    /// bfloat16 (sm_80 on).
    Bf16,
    /// Two packed bfloat16 values.
    Bf16x2,
    /// IEEE single.
    F32,
    /// IEEE double.
    F64,
}

impl Type {
    /// Size in bits (1 for predicates).
    pub fn bits(self) -> u32 {
        match self {
            Type::Pred => 1,
            Type::I8 => 8,
            Type::I16 | Type::F16 | Type::Bf16 => 16,
            Type::I32 | Type::F32 | Type::F16x2 | Type::Bf16x2 => 32,
            Type::I64 | Type::F64 => 64,
        }
    }

    /// Size in bytes in memory.
    pub fn bytes(self) -> u32 {
        self.bits().div_ceil(8)
    }

    /// True for integer types.
    pub fn is_int(self) -> bool {
        matches!(self, Type::I8 | Type::I16 | Type::I32 | Type::I64)
    }

    /// True for float types.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            Type::F16 | Type::F16x2 | Type::Bf16 | Type::Bf16x2 | Type::F32 | Type::F64
        )
    }

    /// True for the packed pairs (`f16x2`, `bf16x2`).
    pub fn is_pair(self) -> bool {
        matches!(self, Type::F16x2 | Type::Bf16x2)
    }

    /// The integer type of `bits` bits.
    pub fn int(bits: u32) -> Option<Type> {
        match bits {
            8 => Some(Type::I8),
            16 => Some(Type::I16),
            32 => Some(Type::I32),
            64 => Some(Type::I64),
            _ => None,
        }
    }

    /// Every type.
    pub const ALL: &'static [Type] = &[
        Type::Pred,
        Type::I8,
        Type::I16,
        Type::I32,
        Type::I64,
        Type::F16,
        Type::F16x2,
        Type::Bf16,
        Type::Bf16x2,
        Type::F32,
        Type::F64,
    ];

    /// The type with text-form name `name`.
    pub fn from_name(name: &str) -> Option<Type> {
        Type::ALL.iter().copied().find(|t| t.name() == name)
    }

    /// Mask of the low `bits()` bits.
    pub fn mask(self) -> u64 {
        if self.bits() >= 64 {
            u64::MAX
        } else {
            (1u64 << self.bits()) - 1
        }
    }

    /// The text-form name.
    pub fn name(self) -> &'static str {
        match self {
            Type::Pred => "pred",
            Type::I8 => "i8",
            Type::I16 => "i16",
            Type::I32 => "i32",
            Type::I64 => "i64",
            Type::F16 => "f16",
            Type::F16x2 => "f16x2",
            Type::Bf16 => "bf16",
            Type::Bf16x2 => "bf16x2",
            Type::F32 => "f32",
            Type::F64 => "f64",
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
