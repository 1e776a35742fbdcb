//! The checked module: what `sema` produces from the syntax tree. Names are resolved to ids,
//! scopes are flattened, every instruction has a known opcode, a normalised modifier set and
//! typed operands. This is the input of the MIR lowering.

use crate::ast::{ScalarType, Span, StateSpace};
use std::collections::HashMap;

/// A register (a `.reg` variable, after scopes are flattened) in one function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegId(pub u32);

/// A variable in memory (`.local`, `.shared`, `.global`, `.const`, `.param`) visible in a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

/// A label in one function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LabelId(pub u32);

/// The whole checked module.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckedModule {
    /// `.version`.
    pub version: (u32, u32),
    /// The `sm_NN` target number (75 for `sm_75`, 90 for `sm_90a`).
    pub target_sm: u32,
    /// The target is architecture-specific (`sm_90a`): only that architecture runs it.
    pub arch_specific: bool,
    /// Module-scope variables (`.global`, `.const`, `.shared` incl. `.extern .shared`).
    pub globals: Vec<VarInfo>,
    /// Functions with bodies, in source order (kernels and device functions).
    pub functions: Vec<CheckedFunction>,
    /// The `.file` directives, in source order (the files `.loc` lines refer to).
    pub files: Vec<SourceFile>,
    /// Each function's position in `functions` by name ([`CheckedModule::index_functions`]).
    function_index: HashMap<String, usize>,
}

impl CheckedModule {
    /// The module of these parts, its functions indexed by name.
    pub fn new(
        version: (u32, u32),
        target_sm: u32,
        arch_specific: bool,
        globals: Vec<VarInfo>,
        functions: Vec<CheckedFunction>,
        files: Vec<SourceFile>,
    ) -> CheckedModule {
        let mut m = CheckedModule {
            version,
            target_sm,
            arch_specific,
            globals,
            functions,
            files,
            function_index: HashMap::new(),
        };
        m.index_functions();
        m
    }

    /// Indexes `functions` by name again, after the list has changed.
    pub fn index_functions(&mut self) {
        self.function_index = self
            .functions
            .iter()
            .enumerate()
            .map(|(i, f)| (f.name.clone(), i))
            .collect();
    }

    /// The function named `name`: looked up in the index, or searched for where the list
    /// has changed since it was indexed (a module's names are unique).
    pub fn function(&self, name: &str) -> Option<&CheckedFunction> {
        let indexed = self.function_index.get(name).and_then(|&i| self.functions.get(i));
        match indexed.filter(|f| f.name == name) {
            Some(f) => Some(f),
            None => self.functions.iter().find(|f| f.name == name),
        }
    }
}

/// A `.file N "name"` directive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    /// The number `.loc` uses.
    pub index: u32,
    /// The path as written.
    pub name: String,
    /// The whole directive (with its optional timestamp and size).
    pub span: Span,
}

/// A register declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct RegInfo {
    /// The name as written (after `%r<N>` expansion, e.g. `%r3`).
    pub name: String,
    /// Its type.
    pub ty: ScalarType,
    /// `.v2`/`.v4` vector registers have a width; scalars 1.
    pub vector: u32,
}

/// A variable in memory.
#[derive(Clone, Debug, PartialEq)]
pub struct VarInfo {
    /// The name.
    pub name: String,
    /// Its state space.
    pub space: StateSpace,
    /// Element type.
    pub ty: ScalarType,
    /// Total size in bytes (0 for `.extern .shared` dynamic arrays).
    pub size: u64,
    /// Alignment in bytes.
    pub align: u32,
    /// Initial bytes (little-endian), if initialised.
    pub init: Option<Vec<u8>>,
    /// Addresses of other variables stored in the initialiser: (byte offset, variable, generic?).
    pub init_relocs: Vec<(u64, VarId, bool)>,
    /// `.extern`.
    pub is_extern: bool,
    /// Where it was declared.
    pub span: Span,
}

/// A parameter (or return value) with its position in the parameter block.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamInfo {
    /// The name.
    pub name: String,
    /// `.param` or `.reg` (device functions only).
    pub space: StateSpace,
    /// The parameter as a variable in the `.param` space (always present, also for `.reg`
    /// parameters, where it is the call slot): `[name+4]` addresses resolve to it.
    pub var: VarId,
    /// For `.reg` parameters: the register the body reads (or writes, for return values).
    pub reg: Option<RegId>,
    /// Element type.
    pub ty: ScalarType,
    /// Size in bytes (element size times array length).
    pub size: u32,
    /// Alignment in bytes.
    pub align: u32,
    /// Byte offset in the parameter block (natural alignment, PTX rules).
    pub offset: u32,
    /// Where it was declared.
    pub span: Span,
}

/// A checked function.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckedFunction {
    /// Its name.
    pub name: String,
    /// `.entry`?
    pub is_entry: bool,
    /// The linkage directive written before it (`.visible`, `.weak`, none).
    pub linkage: crate::ast::Linkage,
    /// Parameters in order with their layout.
    pub params: Vec<ParamInfo>,
    /// Return values (device functions).
    pub returns: Vec<ParamInfo>,
    /// Registers, indexed by [`RegId`].
    pub regs: Vec<RegInfo>,
    /// Variables visible in the function, indexed by [`VarId`]: the module globals first (same
    /// order as [`CheckedModule::globals`]), then the function's own `.local`/`.shared`/`.param`.
    pub vars: Vec<VarInfo>,
    /// Label names, indexed by [`LabelId`].
    pub labels: Vec<String>,
    /// `.maxntid`.
    pub max_ntid: Option<[u32; 3]>,
    /// `.reqntid`.
    pub req_ntid: Option<[u32; 3]>,
    /// `.maxnreg`.
    pub max_nreg: Option<u32>,
    /// `.minnctapersm`.
    pub min_ncta_per_sm: Option<u32>,
    /// `.noreturn`.
    pub noreturn: bool,
    /// The cluster directives (sm_90).
    pub cluster: ClusterDirectives,
    /// The body as a flat list (nested scopes flattened).
    pub body: Vec<CheckedStmt>,
    /// The whole function.
    pub span: Span,
}

/// A kernel's cluster directives (sm_90): `.explicitcluster`, `.reqnctapercluster`,
/// `.maxclusterrank`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClusterDirectives {
    /// `.explicitcluster`: the kernel must be launched with a cluster shape.
    pub explicit: bool,
    /// `.reqnctapercluster`: the cluster shape every launch must use.
    pub req_ncta: Option<[u32; 3]>,
    /// `.maxclusterrank`: at most this many CTAs per cluster.
    pub max_rank: Option<u32>,
}

/// A statement of a checked body.
#[derive(Clone, Debug, PartialEq)]
pub enum CheckedStmt {
    /// A label definition.
    Label(LabelId),
    /// An instruction.
    Inst(CheckedInst),
    /// A `.loc` line marker.
    Loc {
        /// `.file` index.
        file: u32,
        /// Line.
        line: u32,
        /// Column.
        col: u32,
    },
}

/// A checked instruction. `call` operands are normalised to
/// `[List(returns), Func(name) or Reg(target), List(arguments)]`, plus `Prototype(label)` for
/// an indirect call; every other opcode keeps the written order.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckedInst {
    /// `@p` / `@!p`: the predicate register and negation.
    pub guard: Option<(RegId, bool)>,
    /// The opcode.
    pub op: Opcode,
    /// Normalised modifiers.
    pub mods: Mods,
    /// Operands, in the written order.
    pub operands: Vec<CheckedOperand>,
    /// The whole instruction.
    pub span: Span,
    /// The shape and types of a tensor-core instruction (`mma`, `wmma`, `movmatrix`).
    pub tensor: Option<crate::tensor::TensorOp>,
}

/// The value ptxc gives the address of device function `name` (in initialisers and `mov`):
/// a distinct tag in an address range no memory occupies, from a hash of the name. Such an
/// address can be compared, stored and called through, never dereferenced.
pub fn function_address(name: &str) -> u64 {
    let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    });
    0xfff0_0000_0000_0000 | (hash & 0x0000_ffff_ffff_fff0)
}

/// A resolved operand.
#[derive(Clone, Debug, PartialEq)]
pub enum CheckedOperand {
    /// A register.
    Reg(RegId),
    /// `!p`.
    NotReg(RegId),
    /// An element of a vector register: `%v.x` is `(reg, 0)`.
    RegElem(RegId, u8),
    /// An integer immediate (as written, 64-bit two's complement).
    Int(i64),
    /// A float immediate; `single` is true for `0f` literals.
    Float {
        /// The value (f32 literals widened exactly).
        value: f64,
        /// True for `0f` literals.
        single: bool,
    },
    /// A special register.
    Special(SpecialReg),
    /// The address of a variable (`mov.u64 %rd, var;`, `cvta.shared.u64 %rd, var;`).
    VarAddr(VarId),
    /// A memory address.
    Address {
        /// Register, variable or absolute.
        base: AddrBase,
        /// Byte offset.
        offset: i64,
    },
    /// `{a, b, ...}`: every element is a register, an immediate or the sink.
    Vector(Vec<CheckedOperand>),
    /// `[map, {c0, ...}]` (TMA): the tensor map's address (a generic address in a register,
    /// or a parameter, constant or global variable) and the box's 32-bit coordinates.
    TensorAddress {
        /// The map's address.
        map: Box<CheckedOperand>,
        /// The coordinates, registers or immediates.
        coords: Vec<CheckedOperand>,
    },
    /// A branch target.
    Label(LabelId),
    /// A function name (`call`).
    Func(String),
    /// An argument list of `call`.
    List(Vec<CheckedOperand>),
    /// `reg + imm` used as a value (`st.u64 [a], %rd1 + 1;`): the register's value plus a
    /// constant.
    RegOffset(RegId, i64),
    /// `var + imm` used as a value: the variable's address plus a constant.
    VarAddrOffset(VarId, i64),
    /// The `.callprototype` label of an indirect `call`.
    Prototype(String),
    /// The two destinations `a|p` of `setp`, `shfl` and `match`: the value (or `_`) and the
    /// predicate (or `_`).
    PredPair(Box<CheckedOperand>, Box<CheckedOperand>),
    /// `_`.
    Sink,
}

/// The base of an address operand.
#[derive(Clone, Debug, PartialEq)]
pub enum AddrBase {
    /// `[%rd1+8]`
    Reg(RegId),
    /// `[var+8]` (incl. kernel parameters, which are variables in the `.param` space).
    Var(VarId),
    /// `[0x100]`
    Absolute,
}

/// Special registers readable on sm_75.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum SpecialReg {
    Tid(u8),
    Ntid(u8),
    Ctaid(u8),
    Nctaid(u8),
    LaneId,
    WarpId,
    NWarpId,
    SmId,
    NSmId,
    GridId,
    LaneMaskEq,
    LaneMaskLe,
    LaneMaskLt,
    LaneMaskGe,
    LaneMaskGt,
    Clock,
    Clock64,
    GlobalTimer,
    GlobalTimerLo,
    GlobalTimerHi,
    TotalSmemSize,
    DynamicSmemSize,
    WarpSize,
    /// `%clusterid.{x,y,z}` (sm_90): the cluster's position in the grid.
    ClusterId(u8),
    /// `%nclusterid.{x,y,z}` (sm_90): clusters per grid dimension.
    NClusterId(u8),
    /// `%cluster_ctaid.{x,y,z}` (sm_90): the CTA's position in its cluster.
    ClusterCtaId(u8),
    /// `%cluster_nctaid.{x,y,z}` (sm_90): CTAs per cluster dimension.
    ClusterNctaId(u8),
    /// `%cluster_ctarank` (sm_90): the CTA's rank in its cluster (x fastest).
    ClusterCtaRank,
    /// `%cluster_nctarank` (sm_90): CTAs per cluster.
    ClusterNctaRank,
    /// `%is_explicit_cluster` (sm_90, `.pred`): the launch gave a cluster shape. Read as a
    /// 32-bit word by the MIR (`special`): 1 when it did, else 0.
    IsExplicitCluster,
}

impl SpecialReg {
    /// The first sm that has the register, if not every target has it.
    pub fn first_sm(self) -> Option<u32> {
        use SpecialReg::*;
        match self {
            ClusterId(_) | NClusterId(_) | ClusterCtaId(_) | ClusterNctaId(_) | ClusterCtaRank | ClusterNctaRank
            | IsExplicitCluster => Some(90),
            _ => None,
        }
    }
}

/// PTX opcodes accepted for sm_75.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Opcode {
    Abs,
    Activemask,
    Add,
    Addc,
    And,
    Atom,
    Bar,
    Barrier,
    Bfe,
    Bfi,
    Bfind,
    Bmsk,
    Bra,
    Brev,
    Brkpt,
    Call,
    Clz,
    Cnot,
    Copysign,
    Cos,
    /// `createpolicy.fractional` (sm_80): an L2 cache eviction policy.
    Createpolicy,
    /// `cp.async` and its `commit_group`, `wait_group` and `wait_all` (sm_80).
    CpAsync,
    Cvt,
    Cvta,
    Div,
    Dp2a,
    Dp4a,
    /// `elect.sync d|p, membermask` (sm_90): one leader thread.
    Elect,
    Ex2,
    Exit,
    Fence,
    Fma,
    Isspacep,
    Ld,
    Ldu,
    Ldmatrix,
    Lg2,
    Lop3,
    Mad,
    Mad24,
    Madc,
    /// `mapa{.shared::cluster}.{u32|u64} d, a, rank` (sm_90): the address of `a`'s location
    /// in the shared memory of the cluster's CTA `rank`.
    Mapa,
    Match,
    Max,
    /// `mbarrier` on shared memory (sm_80): init, arrivals, test_wait, pending_count, inval.
    Mbarrier,
    Membar,
    Min,
    /// `mma.sync` (details in [`CheckedInst::tensor`]).
    Mma,
    /// `stmatrix.sync.aligned.m8n8.xN[.trans].shared.b16` (sm_90): operands address, registers.
    Stmatrix,
    /// `setmaxnreg.{inc|dec}.sync.aligned.u32 n` (sm_90a): the warp's register budget.
    Setmaxnreg,
    Mov,
    /// `movmatrix`.
    Movmatrix,
    Mul,
    Mul24,
    Nanosleep,
    Neg,
    Not,
    Or,
    Pmevent,
    Popc,
    Prefetch,
    Prmt,
    Rcp,
    Red,
    Redux,
    Rem,
    Ret,
    Rsqrt,
    Sad,
    Selp,
    Set,
    Setp,
    Shf,
    Shfl,
    Shl,
    Shr,
    Sin,
    Slct,
    Sqrt,
    St,
    Sub,
    Subc,
    Szext,
    Tanh,
    Testp,
    Trap,
    Vote,
    Vshl,
    Vshr,
    /// `wmma.load`, `wmma.store`, `wmma.mma` (details in [`CheckedInst::tensor`]).
    Wmma,
    /// `wgmma.mma_async`, `.fence`, `.commit_group`, `.wait_group` (sm_90a; details in
    /// [`CheckedInst::tensor`]).
    Wgmma,
    Xor,
}

/// Normalised modifiers of an instruction: each category at most once, whatever the written
/// order. Which categories an opcode accepts is the per-opcode table's business.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mods {
    /// Type suffixes in written order (`cvt.f32.s32` = `[F32, S32]`; `mul.wide.s32` = `[S32]`).
    pub types: Vec<ScalarType>,
    /// State space (`ld.global`, `cvta.to.shared`: `Shared`).
    pub space: Option<StateSpace>,
    /// `cvta.to.*` (conversion from generic to the space) rather than `cvta.*`.
    pub to_space: bool,
    /// Rounding mode.
    pub rounding: Option<Rounding>,
    /// `.ftz`.
    pub ftz: bool,
    /// `.sat` (and `.satfinite`).
    pub sat: bool,
    /// `.approx` / `.full` precision of div/rcp/sqrt/transcendentals.
    pub approx: bool,
    /// `.full` (div.full.f32).
    pub full: bool,
    /// `.lo` / `.hi` / `.wide` for mul/mad/mul24/mad24/madc, `.lo`/`.hi` for dp2a.
    pub mul_mode: Option<MulMode>,
    /// `.cc` (writes the carry flag).
    pub cc: bool,
    /// Comparison of setp/set/slct.
    pub cmp: Option<CmpOp>,
    /// Boolean combine of setp/set (`.and/.or/.xor`), or vote mode for vote, or reduction op of bar.red.
    pub bool_op: Option<BoolOp>,
    /// Atomic/reduction operation.
    pub atom_op: Option<AtomOp>,
    /// `.v2` / `.v4`.
    pub vector: Option<u8>,
    /// Cache operator (`.ca/.cg/.cs/.lu/.cv/.wb/.wt/.nc`).
    pub cache: Option<CacheOp>,
    /// Memory ordering (`.relaxed/.acquire/.release/.acq_rel/.sc/.volatile/.weak`).
    pub order: Option<MemOrder>,
    /// Scope (`.cta/.gpu/.sys`).
    pub scope: Option<MemScope>,
    /// shfl mode.
    pub shfl_mode: Option<ShflMode>,
    /// vote mode (`.all/.any/.uni/.ballot`), also `match.any`/`match.all`.
    pub vote_mode: Option<VoteMode>,
    /// `.sync` (shfl/vote/bar/barrier/match).
    pub sync: bool,
    /// `.aligned`.
    pub aligned: bool,
    /// `.uni` on bra/call/ret.
    pub uni: bool,
    /// `.shiftamt` (bfind), `.clamp`/`.wrap` (shf), `.l`/`.r` (shf), etc.: other flags as
    /// written, in written order (`arrive`/`red`/`warp` of bar, `m8n8`/`x4`/`trans` of
    /// ldmatrix, prmt modes, testp classes, `pack` of cvt, `add`/`min`/`max` of video ops,
    /// `L1`/`L2` of prefetch, cache-eviction hints such as `L2::128B`).
    pub flags: Vec<String>,
}

impl Mods {
    /// True if `flag` (e.g. `"shiftamt"`) was written.
    pub fn has_flag(&self, flag: &str) -> bool {
        self.flags.iter().any(|f| f == flag)
    }

    /// The first type suffix.
    pub fn ty(&self) -> Option<ScalarType> {
        self.types.first().copied()
    }
}

/// Rounding modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Rounding {
    /// `.rn` (floating-point result, nearest even)
    Rn,
    Rz,
    Rm,
    Rp,
    /// `.rni` (integer result, nearest even)
    Rni,
    Rzi,
    Rmi,
    Rpi,
    /// `.rna` (nearest, ties away)
    Rna,
}

/// `mul`/`mad` result selection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum MulMode {
    Lo,
    Hi,
    Wide,
}

/// Comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Lo,
    Ls,
    Hi,
    Hs,
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    Num,
    Nan,
}

/// Boolean combination operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum BoolOp {
    And,
    Or,
    Xor,
    Popc,
}

/// Atomic and reduction operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum AtomOp {
    Add,
    Min,
    Max,
    Inc,
    Dec,
    And,
    Or,
    Xor,
    Exch,
    Cas,
}

/// Cache operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum CacheOp {
    Ca,
    Cg,
    Cs,
    Lu,
    Cv,
    Wb,
    Wt,
    Nc,
}

/// Memory ordering semantics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum MemOrder {
    Weak,
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    Sc,
    Volatile,
}

/// Memory scopes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum MemScope {
    Cta,
    /// `.cluster` (sm_90): the CTAs of the cluster.
    Cluster,
    Gpu,
    Sys,
}

/// `shfl` modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

/// `vote` modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum VoteMode {
    All,
    Any,
    Uni,
    Ballot,
}
