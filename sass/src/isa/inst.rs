//! A SASS instruction as values: the form it uses, its guard, operand values, modifier
//! values and control code. The encoder turns it into 128 bits, the decoder back.

use super::control::Control;
use smallvec::SmallVec;

/// Index of a form in the ISA table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FormId(pub u16);

/// RZ, the zero register.
pub const RZ: u8 = 255;
/// URZ, the uniform zero register.
pub const URZ: u8 = 63;
/// PT, the true predicate.
pub const PT: u8 = 7;

/// The value of one operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// General register (255 = RZ); for tuples, the first register.
    Reg(u8),
    /// Uniform register (63 = URZ).
    UReg(u8),
    /// Predicate (7 = PT) and its negation.
    Pred {
        /// Index (7 = PT).
        idx: u8,
        /// Negated.
        neg: bool,
    },
    /// Raw immediate bits.
    Imm(u64),
    /// `c[bank][offset]`, optionally indexed by a register (`c[0x3][R27+0x10]`).
    CBank {
        /// Constant bank.
        bank: u8,
        /// Byte offset.
        offset: i32,
        /// Index register.
        reg: Option<u8>,
    },
    /// `[base + uniform + offset]` with a scale field (0 = none, 1 = X4, 2 = X8, 3 = X16).
    Mem {
        /// Address register (255 = RZ).
        base: u8,
        /// Uniform register, in the uniform-address forms.
        uniform: Option<u8>,
        /// Byte offset.
        offset: i32,
        /// Scale (`.X4`, `.X8`, `.X16`) of shared-memory addresses.
        scale: u8,
    },
    /// Branch offset in bytes relative to the next instruction.
    Rel(i64),
    /// Special register number.
    SReg(u8),
    /// Convergence barrier register.
    Barrier(u8),
    /// The value of an operand that is fixed text (`PR`).
    Fixed,
}

/// One operand: a value plus its source modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Operand {
    /// The value.
    pub value: Value,
    /// `-x`.
    pub neg: bool,
    /// `|x|`.
    pub abs: bool,
    /// `~x`.
    pub not: bool,
    /// Half-precision swizzle field value.
    pub swizzle: u8,
}

impl Operand {
    /// An operand without modifiers.
    pub fn new(value: Value) -> Operand {
        Operand {
            value,
            neg: false,
            abs: false,
            not: false,
            swizzle: 0,
        }
    }

    /// A register operand.
    pub fn reg(r: u8) -> Operand {
        Operand::new(Value::Reg(r))
    }

    /// A predicate operand.
    pub fn pred(idx: u8, neg: bool) -> Operand {
        Operand::new(Value::Pred { idx, neg })
    }

    /// An immediate operand.
    pub fn imm(bits: u64) -> Operand {
        Operand::new(Value::Imm(bits))
    }

    /// This operand negated.
    pub fn negated(mut self) -> Operand {
        self.neg = !self.neg;
        self
    }
}

/// A complete instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Inst {
    /// The form (encoding) used.
    pub form: FormId,
    /// Guard predicate index (7 = PT = always).
    pub guard: u8,
    /// Guard negation (`@!P0`).
    pub guard_neg: bool,
    /// Operands, in the form's order.
    pub operands: SmallVec<[Operand; 6]>,
    /// Modifier values, in the form's order.
    pub mods: SmallVec<[u16; 6]>,
    /// Control code.
    pub ctrl: Control,
}

impl Inst {
    /// True if the instruction always executes (guard PT).
    pub fn unguarded(&self) -> bool {
        self.guard == PT && !self.guard_neg
    }
}
