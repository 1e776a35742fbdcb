//! MIR instructions: an opcode, the operation type, SSA arguments and opcode-specific data.
//! Every instruction has one uniform shape so that generic passes (verifier, DCE, CSE, copy
//! propagation) need no per-opcode code.

use super::entities::{Block, Value};
pub use super::opcode::Opcode;
use super::types::Type;
pub use ptxc_frontend::checked::SpecialReg;
use smallvec::SmallVec;

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

/// Every condition, for parsing.
pub const CONDS: &[Cond] = &[
    Cond::Eq,
    Cond::Ne,
    Cond::Lt,
    Cond::Le,
    Cond::Gt,
    Cond::Ge,
    Cond::Ult,
    Cond::Ule,
    Cond::Ugt,
    Cond::Uge,
    Cond::Equ,
    Cond::Neu,
    Cond::Ltu,
    Cond::Leu,
    Cond::Gtu,
    Cond::Geu,
    Cond::Num,
    Cond::Nan,
];

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

impl Rounding {
    /// The text-form name.
    pub fn name(self) -> &'static str {
        match self {
            Rounding::Rn => "rn",
            Rounding::Rz => "rz",
            Rounding::Rm => "rm",
            Rounding::Rp => "rp",
        }
    }
}

/// Every rounding mode, for parsing.
pub const ROUNDINGS: &[Rounding] = &[Rounding::Rn, Rounding::Rz, Rounding::Rm, Rounding::Rp];

/// Float behaviour of an arithmetic instruction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FloatMode {
    /// Explicit rounding; `None` means round-to-nearest and contraction into FMA is allowed.
    pub rnd: Option<Rounding>,
    /// Flush subnormal inputs and results to zero.
    pub ftz: bool,
    /// Clamp the result to [0, 1].
    pub sat: bool,
    /// `.relu`: a negative result becomes +0 (half `fma`, sm_80).
    pub relu: bool,
    /// `.NaN`: `fmin`/`fmax` with a NaN operand give the canonical NaN (sm_80).
    pub nan: bool,
    /// `.xorsign.abs`: `fmin`/`fmax` of the absolute values, with the XOR of the operands'
    /// signs (sm_86).
    pub xorsign: bool,
}

/// Memory spaces of loads and stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(missing_docs)]
pub enum Space {
    Global,
    /// The executing CTA's shared memory (`.shared::cta`). On sm_90 an address may carry
    /// the CTA's rank in its cluster in bits 24..31 (ptxas's form, `LowerOptions`).
    Shared,
    Local,
    Const,
    Param,
    Generic,
    /// The shared memory of the cluster's CTAs (`.shared::cluster`, sm_90): a 32-bit
    /// address whose bits 24..31 are the rank of the CTA whose memory it names.
    SharedCluster,
}

/// Every space with its text-form name.
pub const SPACES: &[(Space, &str)] = &[
    (Space::Global, "global"),
    (Space::Shared, "shared"),
    (Space::Local, "local"),
    (Space::Const, "const"),
    (Space::Param, "param"),
    (Space::Generic, "generic"),
    (Space::SharedCluster, "shared_cluster"),
];

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
            Space::SharedCluster => "shared_cluster",
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
    /// Cache hints (`.L1::evict_*`, `.L2::64B`..`.L2::256B`): no effect on the results.
    pub hint: CacheHint,
}

/// The L1 eviction priority of an access (`.L1::evict_*`, `.L1::no_allocate`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Evict {
    /// `.L1::evict_normal` or none.
    #[default]
    Normal,
    /// `.L1::evict_first`.
    First,
    /// `.L1::evict_last`.
    Last,
    /// `.L1::evict_unchanged`.
    Unchanged,
    /// `.L1::no_allocate`.
    NoAllocate,
    /// Last use (the `.lu` cache operator): the line may be evicted after this access.
    LastUse,
}

/// Text-form names of [`Evict`] (the PTX spellings without `L1::`).
pub const EVICT_NAMES: &[(Evict, &str)] = &[
    (Evict::First, "evict_first"),
    (Evict::Last, "evict_last"),
    (Evict::Unchanged, "evict_unchanged"),
    (Evict::NoAllocate, "no_allocate"),
    (Evict::LastUse, "last_use"),
];

/// The L2 prefetch size of a load (`.L2::64B`, `.L2::128B`, `.L2::256B`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum L2Prefetch {
    /// None.
    #[default]
    None,
    /// 64 bytes.
    B64,
    /// 128 bytes.
    B128,
    /// 256 bytes (sm_80 on).
    B256,
}

/// Text-form names of [`L2Prefetch`] (the PTX spellings without `L2::`).
pub const L2_PREFETCH_NAMES: &[(L2Prefetch, &str)] = &[
    (L2Prefetch::B64, "64B"),
    (L2Prefetch::B128, "128B"),
    (L2Prefetch::B256, "256B"),
];

/// The cache hints of an access; they do not change its results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CacheHint {
    /// L1 eviction priority.
    pub evict: Evict,
    /// L2 prefetch size.
    pub l2_prefetch: L2Prefetch,
    /// `.L2::cache_hint`: the access's last argument is a 64-bit L2 cache policy (an `i64`
    /// after the address of a load, after the values of a store).
    pub policy: bool,
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
    /// `.relu`: a negative result becomes +0 (f32 to f16/bf16, sm_80).
    pub relu: bool,
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
    /// A state space (`to_generic`, `from_generic`, `is_space`).
    Space(Space),
    /// A variable: index into [`crate::ir::Function::vars`].
    Var(u32),
    /// An atomic operation.
    Atom(AtomInfo),
}

/// Atomic read-modify-write operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum AtomOp {
    Add,
    /// Float addition (f32 in global memory flushes subnormals).
    Fadd,
    MinS,
    MinU,
    MaxS,
    MaxU,
    /// `old >= b ? 0 : old + 1`.
    Inc,
    /// `old == 0 || old > b ? b : old - 1`.
    Dec,
    And,
    Or,
    Xor,
    Exch,
    /// Compare `args[1]` and swap in `args[2]`.
    Cas,
    /// One arrival on the 64-bit `mbarrier` at the address (`docs/MBARRIER.md`); the
    /// operand is unused (0). Returns the barrier as it was.
    Arrive,
    /// Arrivals on a Hopper `mbarrier` (`mbar_arrive`).
    HopperArrive,
    /// Arrivals on a Hopper `mbarrier` that leave it (`arrive_drop`, `mbar_arrive`).
    HopperDrop,
    /// One more pending arrival on a Hopper `mbarrier` (`mbar_arrive`).
    HopperPending,
    /// One arrival on a Hopper `mbarrier` that also expects `args[1]` more transaction bytes
    /// (`arrive.expect_tx`, `mbar_arrive`).
    HopperArriveTx,
    /// `args[1]` more transaction bytes expected on a Hopper `mbarrier` (`expect_tx`).
    HopperExpectTx,
    /// `args[1]` transaction bytes completed on a Hopper `mbarrier` (`complete_tx`).
    HopperCompleteTx,
}

/// Names of [`AtomOp`] in the text form.
pub const ATOM_OPS: &[(AtomOp, &str)] = &[
    (AtomOp::Add, "add"),
    (AtomOp::Fadd, "fadd"),
    (AtomOp::MinS, "min_s"),
    (AtomOp::MinU, "min_u"),
    (AtomOp::MaxS, "max_s"),
    (AtomOp::MaxU, "max_u"),
    (AtomOp::Inc, "inc"),
    (AtomOp::Dec, "dec"),
    (AtomOp::And, "and"),
    (AtomOp::Or, "or"),
    (AtomOp::Xor, "xor"),
    (AtomOp::Exch, "exch"),
    (AtomOp::Cas, "cas"),
    (AtomOp::Arrive, "arrive"),
    (AtomOp::HopperArrive, "hopper_arrive"),
    (AtomOp::HopperDrop, "hopper_drop"),
    (AtomOp::HopperPending, "hopper_pending"),
    (AtomOp::HopperArriveTx, "hopper_arrive_tx"),
    (AtomOp::HopperExpectTx, "hopper_expect_tx"),
    (AtomOp::HopperCompleteTx, "hopper_complete_tx"),
];

impl AtomOp {
    /// The text-form name.
    pub fn name(self) -> &'static str {
        ATOM_OPS
            .iter()
            .find(|(o, _)| *o == self)
            .map(|(_, n)| *n)
            .unwrap_or("?")
    }
}

/// An atomic access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AtomInfo {
    /// The operation.
    pub op: AtomOp,
    /// State space of the address.
    pub space: Space,
    /// Constant byte offset added to the address.
    pub offset: i64,
    /// Written as PTX `red` (a reduction without a result) rather than `atom`.
    pub red: bool,
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
