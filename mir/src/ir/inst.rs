//! MIR instructions: an opcode, the operation type, SSA arguments and opcode-specific data.
//! Every instruction has one uniform shape so that generic passes (verifier, DCE, CSE, copy
//! propagation) need no per-opcode code.

use super::entities::{Block, Value};
use super::types::Type;
pub use ptxc_frontend::checked::SpecialReg;
use smallvec::SmallVec;

/// The operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Opcode {
    /// Integer or float constant; bits in `Aux::Imm`.
    Const,
    /// An undefined value (a register read before any write).
    Undef,
    /// A kernel parameter at `Aux::Param` byte offset.
    Param,
    /// A special register (`Aux::Special`).
    Special,
    /// Copy of the argument (kept only transiently; copy propagation removes it).
    Copy,
    /// Reinterprets the bits of the argument as `ty` (same width).
    Bitcast,
    Iadd,
    Isub,
    /// Low half of the product.
    Imul,
    /// High half of the signed / unsigned product.
    ImulHiS,
    ImulHiU,
    /// Full product of `ty`-sized sources, result twice as wide.
    ImulWideS,
    ImulWideU,
    /// `a * b + c`, low half.
    Imad,
    /// `wide(a * b) + c` with `c` twice as wide.
    ImadWideS,
    ImadWideU,
    Ineg,
    And,
    Or,
    Xor,
    Not,
    Shl,
    ShrS,
    ShrU,
    MinS,
    MinU,
    MaxS,
    MaxU,
    /// Integer compare: `Aux::Cond`; result is a predicate.
    Icmp,
    /// `args[0] ? args[1] : args[2]` (args[0] is a predicate).
    Select,
    Fadd,
    Fsub,
    Fmul,
    /// Fused multiply-add.
    Ffma,
    Fneg,
    Fabs,
    Fmin,
    Fmax,
    /// Float compare: `Aux::Cond`; result is a predicate.
    Fcmp,
    /// Conversion between types (`Aux::Convert`).
    Convert,
    /// Memory load (`Aux::Mem`); `args[0]` is the address; one result per vector element.
    Load,
    /// Memory store (`Aux::Mem`); `args[0]` is the address, then the values.
    Store,
    /// Unconditional branch (`Aux::Branch` with one target).
    Jump,
    /// Conditional branch on `args[0]` (`Aux::Branch` with two targets).
    Brif,
    /// End of the thread.
    Exit,
}

impl Opcode {
    /// The text-form name.
    pub fn name(self) -> &'static str {
        use Opcode::*;
        match self {
            Const => "const",
            Undef => "undef",
            Param => "param",
            Special => "special",
            Copy => "copy",
            Bitcast => "bitcast",
            Iadd => "iadd",
            Isub => "isub",
            Imul => "imul",
            ImulHiS => "imul_hi_s",
            ImulHiU => "imul_hi_u",
            ImulWideS => "imul_wide_s",
            ImulWideU => "imul_wide_u",
            Imad => "imad",
            ImadWideS => "imad_wide_s",
            ImadWideU => "imad_wide_u",
            Ineg => "ineg",
            And => "and",
            Or => "or",
            Xor => "xor",
            Not => "not",
            Shl => "shl",
            ShrS => "shr_s",
            ShrU => "shr_u",
            MinS => "min_s",
            MinU => "min_u",
            MaxS => "max_s",
            MaxU => "max_u",
            Icmp => "icmp",
            Select => "select",
            Fadd => "fadd",
            Fsub => "fsub",
            Fmul => "fmul",
            Ffma => "ffma",
            Fneg => "fneg",
            Fabs => "fabs",
            Fmin => "fmin",
            Fmax => "fmax",
            Fcmp => "fcmp",
            Convert => "convert",
            Load => "load",
            Store => "store",
            Jump => "jump",
            Brif => "brif",
            Exit => "exit",
        }
    }

    /// True for block terminators.
    pub fn is_terminator(self) -> bool {
        matches!(self, Opcode::Jump | Opcode::Brif | Opcode::Exit)
    }

    /// True if the instruction has an effect besides its results (cannot be removed or merged).
    pub fn has_side_effects(self) -> bool {
        matches!(self, Opcode::Store | Opcode::Jump | Opcode::Brif | Opcode::Exit)
    }
}

/// Comparison conditions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Cond {
    Eq,
    Ne,
    /// Signed (integers) or ordered (floats) comparisons.
    Lt,
    Le,
    Gt,
    Ge,
    /// Unsigned integer comparisons.
    Ult,
    Ule,
    Ugt,
    Uge,
    /// Unordered float comparisons (true if either is NaN).
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    /// Neither is NaN / either is NaN.
    Num,
    Nan,
}

impl Cond {
    /// The text-form name.
    pub fn name(self) -> &'static str {
        use Cond::*;
        match self {
            Eq => "eq",
            Ne => "ne",
            Lt => "lt",
            Le => "le",
            Gt => "gt",
            Ge => "ge",
            Ult => "ult",
            Ule => "ule",
            Ugt => "ugt",
            Uge => "uge",
            Equ => "equ",
            Neu => "neu",
            Ltu => "ltu",
            Leu => "leu",
            Gtu => "gtu",
            Geu => "geu",
            Num => "num",
            Nan => "nan",
        }
    }
}

/// Float rounding modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Rounding {
    Rn,
    Rz,
    Rm,
    Rp,
}

/// Float behaviour of an arithmetic instruction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FloatMode {
    /// Explicit rounding; `None` means round-to-nearest and contraction into FMA is allowed.
    pub rnd: Option<Rounding>,
    /// Flush subnormal inputs and results to zero.
    pub ftz: bool,
    /// Clamp the result to [0, 1].
    pub sat: bool,
}

/// Memory spaces of loads and stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Space {
    Global,
    Shared,
    Local,
    Const,
    Param,
    Generic,
}

impl Space {
    /// The text-form name.
    pub fn name(self) -> &'static str {
        match self {
            Space::Global => "global",
            Space::Shared => "shared",
            Space::Local => "local",
            Space::Const => "const",
            Space::Param => "param",
            Space::Generic => "generic",
        }
    }
}

/// A memory access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemInfo {
    /// State space.
    pub space: Space,
    /// Constant byte offset added to the address.
    pub offset: i64,
    /// Vector width (1, 2 or 4 elements of `InstData::ty`).
    pub vector: u8,
    /// Read through the non-coherent (read-only) path.
    pub non_coherent: bool,
    /// `.volatile` or strong ordering.
    pub volatile: bool,
}

/// How a conversion treats its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConvertInfo {
    /// Source type.
    pub from: Type,
    /// Source is signed (integers).
    pub from_signed: bool,
    /// Destination is signed (integers).
    pub to_signed: bool,
    /// Rounding (float results: rn/rz/rm/rp; integer results from floats: the `i` modes).
    pub rnd: Option<Rounding>,
    /// Saturate to the destination range.
    pub sat: bool,
    /// Flush subnormals.
    pub ftz: bool,
}

/// A branch target with its block arguments.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BlockCall {
    /// Target block.
    pub block: Block,
    /// Arguments for its parameters.
    pub args: SmallVec<[Value; 4]>,
}

/// Opcode-specific data.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Aux {
    /// Nothing.
    None,
    /// Constant bits (zero-extended to 64).
    Imm(u64),
    /// Comparison condition.
    Cond(Cond),
    /// Float arithmetic behaviour.
    Float(FloatMode),
    /// Memory access.
    Mem(MemInfo),
    /// Special register.
    Special(SpecialReg),
    /// Kernel parameter byte offset.
    Param(u32),
    /// Conversion details.
    Convert(ConvertInfo),
    /// Branch targets: one for `jump`, `[then, else]` for `brif`.
    Branch(SmallVec<[BlockCall; 2]>),
}

/// One instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct InstData {
    /// The operation.
    pub op: Opcode,
    /// The operation type (for compares: the operand type; for stores: the stored type).
    pub ty: Type,
    /// SSA arguments.
    pub args: SmallVec<[Value; 3]>,
    /// Opcode-specific data.
    pub aux: Aux,
}

impl InstData {
    /// Branch targets, if this is a branch.
    pub fn targets(&self) -> &[BlockCall] {
        match &self.aux {
            Aux::Branch(t) => t,
            _ => &[],
        }
    }

    /// Mutable branch targets.
    pub fn targets_mut(&mut self) -> &mut [BlockCall] {
        match &mut self.aux {
            Aux::Branch(t) => t,
            _ => &mut [],
        }
    }

    /// Every value the instruction reads, including branch arguments.
    pub fn all_args(&self) -> impl Iterator<Item = Value> + '_ {
        self.args
            .iter()
            .copied()
            .chain(self.targets().iter().flat_map(|t| t.args.iter().copied()))
    }

    /// Applies `f` to every value the instruction reads.
    pub fn map_args(&mut self, mut f: impl FnMut(Value) -> Value) {
        for a in self.args.iter_mut() {
            *a = f(*a);
        }
        for t in self.targets_mut() {
            for a in t.args.iter_mut() {
                *a = f(*a);
            }
        }
    }
}
