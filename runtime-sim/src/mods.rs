//! The modifiers of a decoded instruction as the typed values the engines read, taken once
//! at load time from the ISA description's modifier fields. Every [`Mod`] is handled by an
//! exhaustive `match`: a new modifier does not compile until the simulator says what it does
//! (or why it does nothing).

use ptxc_sass::isa::values::*;
use ptxc_sass::isa::{Inst, Mod, ModValue, Op};

/// A number type named by a conversion's or an atomic's modifiers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum NumType {
    U8,
    S8,
    U16,
    S16,
    U32,
    #[default]
    S32,
    U64,
    S64,
    F16,
    F32,
    F64,
    /// Two packed halves (atomics).
    F16x2,
}

impl NumType {
    /// Size in bytes.
    pub fn bytes(self) -> u32 {
        match self {
            NumType::U8 | NumType::S8 => 1,
            NumType::U16 | NumType::S16 | NumType::F16 => 2,
            NumType::U32 | NumType::S32 | NumType::F32 | NumType::F16x2 => 4,
            NumType::U64 | NumType::S64 | NumType::F64 => 8,
        }
    }

    /// A floating-point type.
    pub fn is_float(self) -> bool {
        matches!(self, NumType::F16 | NumType::F32 | NumType::F64 | NumType::F16x2)
    }

    /// A signed integer type.
    pub fn is_signed(self) -> bool {
        matches!(self, NumType::S8 | NumType::S16 | NumType::S32 | NumType::S64)
    }
}

impl From<IntType> for NumType {
    fn from(t: IntType) -> NumType {
        match t {
            IntType::U8 => NumType::U8,
            IntType::S8 => NumType::S8,
            IntType::U16 => NumType::U16,
            IntType::S16 => NumType::S16,
            IntType::U32 => NumType::U32,
            IntType::S32 => NumType::S32,
            IntType::U64 => NumType::U64,
            IntType::S64 => NumType::S64,
        }
    }
}

impl From<FloatType> for NumType {
    fn from(t: FloatType) -> NumType {
        match t {
            FloatType::F16 => NumType::F16,
            FloatType::F32 => NumType::F32,
            FloatType::F64 => NumType::F64,
        }
    }
}

impl From<AtomType> for NumType {
    fn from(t: AtomType) -> NumType {
        match t {
            AtomType::U32 => NumType::U32,
            AtomType::S32 => NumType::S32,
            AtomType::U64 => NumType::U64,
            AtomType::F32 => NumType::F32,
            AtomType::F16x2 => NumType::F16x2,
            AtomType::S64 => NumType::S64,
            AtomType::F64 => NumType::F64,
        }
    }
}

/// The operation of an atomic or reduction, compare-and-swap included.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum AtomicOp {
    #[default]
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

impl From<AtomOp> for AtomicOp {
    fn from(op: AtomOp) -> AtomicOp {
        match op {
            AtomOp::Add | AtomOp::SafeAdd => AtomicOp::Add,
            AtomOp::Min => AtomicOp::Min,
            AtomOp::Max => AtomicOp::Max,
            AtomOp::Inc => AtomicOp::Inc,
            AtomOp::Dec => AtomicOp::Dec,
            AtomOp::And => AtomicOp::And,
            AtomOp::Or => AtomicOp::Or,
            AtomOp::Xor => AtomicOp::Xor,
            AtomOp::Exch => AtomicOp::Exch,
        }
    }
}

/// Modifier values the engines use. A form without a modifier behaves as its value type's
/// `Default` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct Mods {
    // Integer.
    pub signed: bool,
    pub x: bool,
    pub hi: bool,
    pub sx32: bool,
    pub wrap: bool,
    pub right: bool,
    pub shf_type: ShfType,
    /// FENCE.VIEW.ASYNC's memory.
    pub async_view: AsyncView,
    /// VIMNMX's `.U16x2`/`.S16x2`: two 16-bit lanes.
    pub lanes16: bool,
    /// What a SYNCS.ARRIVE adds to its barrier.
    pub arrival: ArrivalKind,
    /// SYNCS.ARRIVE's `.OPTOUT` (`arrive_drop`).
    pub opt_out: bool,
    /// SYNCS.ARRIVE's `.TMASK`.
    pub tx_mask: bool,
    /// What Hopper's ARRIVES.LDGSTSBAR counts (`None` before sm_90).
    pub arrives_count: Option<ArrivesCount>,
    pub pand: bool,
    pub ex: bool,
    pub int_cmp: IntCmp,
    pub bop: BoolOp,
    pub prmt: PrmtMode,
    pub byte: ByteSel,
    pub shift_amount: bool,
    pub idp: IdpKind,
    pub a_signed: bool,
    pub b_signed: bool,
    // Floating point.
    pub ftz: bool,
    pub sat: bool,
    pub fmz: bool,
    pub rnd: Rounding,
    pub float_cmp: FloatCmp,
    pub double_cmp: DoubleCmp,
    pub scale: FmulScale,
    pub mufu: MufuFunc,
    pub mufu_f16: bool,
    pub half_f32: bool,
    pub bool_float: bool,
    pub half_and: bool,
    pub ntz: bool,
    /// bf16 instead of f16 (HFMA2.BF16_V2, F2FP.BF16).
    pub bf16: bool,
    pub relu: bool,
    /// F2FP's `.MERGE_C`: B alone into the low half.
    pub merge_c: bool,
    /// `.NAN` of FMNMX/HMNMX2: a NaN operand gives the canonical NaN.
    pub nan: bool,
    /// `.XORSIGN` of FMNMX/HMNMX2: the result's sign is the XOR of the operands' signs.
    pub xorsign: bool,
    /// Destination type of a conversion.
    pub dst_num: NumType,
    /// Source type of a conversion.
    pub src_num: NumType,
    // Memory.
    pub size: MemSize,
    pub atom_op: AtomicOp,
    pub atom_type: NumType,
    /// `.CAST`: a compare-and-swap that returns whether it swapped.
    pub cas_try: bool,
    pub ldsm_count: LdsmCount,
    pub ldsm_shape: LdsmShape,
    /// LDGSTS `.ZFILL`.
    pub zfill: bool,
    pub qspc: QspcSpace,
    // Warp-wide.
    pub shfl: ShflMode,
    pub vote: VoteMode,
    pub match_mode: MatchMode,
    pub match64: bool,
    pub redux: ReduxOp,
    // Control flow and synchronisation.
    pub branch: BranchKind,
    pub clear: bool,
    /// WARPSYNC `.EXCLUSIVE`.
    pub exclusive: bool,
    /// R2UR `.OR` (sm_90).
    pub or_pred: bool,
    pub bar: BarMode,
    pub bar_redop: BarRedOp,
    pub wide: bool,
    // Tensor cores.
    pub hmma_d: HmmaDType,
    pub hmma_c: HmmaCType,
    pub hmma_step: HmmaStep,
    pub hmma_a: HmmaAType,
    pub imma_a: ImmaAType,
    /// BMMA's bit operation.
    pub bmma_op: BmmaOp,
    pub imma_b: ImmaBType,
    /// `.SATFINITE` (HMMA) / `.SAT` (IMMA).
    pub sat_finite: bool,
}

impl Default for Mods {
    fn default() -> Self {
        Mods {
            signed: true,
            x: false,
            hi: false,
            sx32: false,
            wrap: false,
            right: false,
            shf_type: ShfType::default(),
            async_view: AsyncView::default(),
            lanes16: false,
            arrival: ArrivalKind::default(),
            opt_out: false,
            tx_mask: false,
            arrives_count: None,
            pand: false,
            ex: false,
            int_cmp: IntCmp::default(),
            bop: BoolOp::default(),
            prmt: PrmtMode::default(),
            byte: ByteSel::default(),
            shift_amount: false,
            idp: IdpKind::default(),
            a_signed: true,
            b_signed: true,
            ftz: false,
            sat: false,
            fmz: false,
            rnd: Rounding::default(),
            float_cmp: FloatCmp::default(),
            double_cmp: DoubleCmp::default(),
            scale: FmulScale::default(),
            mufu: MufuFunc::default(),
            mufu_f16: false,
            half_f32: false,
            bool_float: false,
            half_and: false,
            ntz: false,
            bf16: false,
            relu: false,
            merge_c: false,
            nan: false,
            xorsign: false,
            dst_num: NumType::default(),
            src_num: NumType::default(),
            size: MemSize::default(),
            atom_op: AtomicOp::default(),
            atom_type: NumType::U32,
            cas_try: false,
            ldsm_count: LdsmCount::default(),
            ldsm_shape: LdsmShape::default(),
            zfill: false,
            qspc: QspcSpace::default(),
            shfl: ShflMode::default(),
            vote: VoteMode::default(),
            match_mode: MatchMode::default(),
            match64: false,
            redux: ReduxOp::default(),
            branch: BranchKind::default(),
            clear: false,
            exclusive: false,
            or_pred: false,
            bar: BarMode::default(),
            bar_redop: BarRedOp::default(),
            wide: false,
            hmma_d: HmmaDType::default(),
            hmma_c: HmmaCType::default(),
            hmma_step: HmmaStep::default(),
            hmma_a: HmmaAType::default(),
            imma_a: ImmaAType::default(),
            bmma_op: BmmaOp::default(),
            imma_b: ImmaBType::default(),
            sat_finite: false,
        }
    }
}

/// The value of `code` as a `T` (the decoder only accepts codes with a meaning).
fn value<T: ModValue + Default>(code: u16) -> T {
    T::from_code(code).unwrap_or_default()
}

/// Conversion types by the modifiers seen, assigned to source and destination by operation.
#[derive(Default)]
struct Types {
    int: Option<IntType>,
    float: Option<FloatType>,
    pair: Option<FloatPair>,
}

impl Mods {
    /// The modifier values of `inst`.
    pub fn of(inst: &Inst) -> Mods {
        let mut m = Mods::default();
        let mut types = Types::default();
        for (desc, &code) in inst.desc().mods.iter().zip(&inst.mods) {
            m.set(desc.id, code, &mut types);
        }
        m.assign_types(inst.desc().op, &types);
        m
    }

    /// Records modifier `id` set to `code`.
    fn set(&mut self, id: Mod, code: u16, types: &mut Types) {
        let on = code != 0;
        match id {
            Mod::Signed => self.signed = on,
            Mod::X => self.x = on,
            Mod::Hi => self.hi = on,
            Mod::Sx32 => self.sx32 = on,
            Mod::Wrap => self.wrap = on,
            Mod::Right => self.right = on,
            Mod::ShfType => self.shf_type = value(code),
            Mod::Pand => self.pand = on,
            Mod::Ex => self.ex = on,
            Mod::IntCmp => self.int_cmp = value(code),
            Mod::BoolOp => self.bop = value(code),
            Mod::PrmtMode => self.prmt = value(code),
            Mod::ByteSel => self.byte = value(code),
            Mod::ShiftAmount => self.shift_amount = on,
            Mod::ASigned => self.a_signed = on,
            Mod::BSigned => self.b_signed = on,
            Mod::IdpKind => self.idp = value(code),
            Mod::Ftz => self.ftz = on,
            Mod::Sat => self.sat = on,
            Mod::Fmz => match value::<Fmz>(code) {
                Fmz::Ieee => {}
                Fmz::Fmz => self.fmz = true,
                // HMUL2/HFMA2 keep their flush mode in this field.
                Fmz::Ftz => self.ftz = true,
            },
            Mod::Rnd => self.rnd = value(code),
            Mod::FloatCmp => self.float_cmp = value(code),
            Mod::DoubleCmp => self.double_cmp = value(code),
            Mod::FmulScale => self.scale = value(code),
            Mod::MufuFunc => self.mufu = value(code),
            Mod::MufuF16 => self.mufu_f16 = on,
            Mod::HalfF32 => self.half_f32 = on,
            Mod::BoolFloat => self.bool_float = on,
            Mod::HalfAnd => self.half_and = on,
            Mod::Ntz => self.ntz = on,
            Mod::Bf16 => self.bf16 = on,
            Mod::Relu => self.relu = on,
            Mod::Nan => self.nan = on,
            Mod::XorSign => self.xorsign = on,
            Mod::ReduxOp => self.redux = value(code),
            Mod::IntType => types.int = Some(value(code)),
            Mod::FloatType => types.float = Some(value(code)),
            Mod::FloatPair => types.pair = Some(value(code)),
            Mod::Size => self.size = value(code),
            Mod::AtomOp => self.atom_op = value::<AtomOp>(code).into(),
            Mod::AtomType => self.atom_type = value::<AtomType>(code).into(),
            Mod::HopperAtomType => self.atom_type = value::<HopperAtomType>(code).semantic().into(),
            Mod::FloatAtomType => self.atom_type = value::<FloatAtomType>(code).semantic().into(),
            Mod::CasKind => {
                self.atom_op = AtomicOp::Cas;
                self.cas_try = value::<CasKind>(code) != CasKind::Cas;
            }
            Mod::LdsmCount => self.ldsm_count = value(code),
            Mod::LdsmShape => self.ldsm_shape = value(code),
            Mod::Zfill => self.zfill = on,
            Mod::QspcSpace => self.qspc = value(code),
            Mod::ShflMode => self.shfl = value(code),
            Mod::VoteMode => self.vote = value(code),
            Mod::MatchMode => self.match_mode = value(code),
            Mod::Match64 => self.match64 = on,
            Mod::BranchKind => self.branch = value(code),
            Mod::Clear => self.clear = on,
            Mod::Exclusive => self.exclusive = on,
            Mod::OrPred => self.or_pred = on,
            Mod::BarMode => self.bar = value(code),
            Mod::BarRedOp => self.bar_redop = value(code),
            Mod::Wide => self.wide = on,
            Mod::HmmaDType => self.hmma_d = value(code),
            Mod::HmmaCType => self.hmma_c = value(code),
            Mod::HmmaStep => self.hmma_step = value(code),
            Mod::HmmaAType => self.hmma_a = value(code),
            Mod::ImmaAType => self.imma_a = value(code),
            Mod::BmmaOp => self.bmma_op = value(code),
            Mod::ImmaBType => self.imma_b = value(code),
            Mod::SatFinite => self.sat_finite = on,
            // Addressing: read with the operands (`Addr::wide`, the base's width suffix, a
            // uniform register that is a memory descriptor).
            Mod::E | Mod::Desc | Mod::PolicyDesc => {}
            // The operation of generic mbarrier ATOMs is their Op (one form each).
            Mod::MbarrierOp => {}
            // N is read from the form (`gmma::shape_of`).
            Mod::GmmaN => {}
            // The simulator kills no threads: `.IGNOREKILL` changes nothing.
            Mod::IgnoreKill => {}
            Mod::AsyncView => self.async_view = value(code),
            Mod::ArrivalKind => self.arrival = value(code),
            Mod::MinMaxType => {
                self.signed = code & 1 == 1;
                self.lanes16 = code >= 2;
            }
            Mod::OptOut => self.opt_out = on,
            // A collective region runs as an exclusive one (`semantics/flow.rs`).
            Mod::Collective => self.exclusive |= on,
            Mod::TxMask => self.tx_mask = on,
            Mod::ArrivesCount => self.arrives_count = Some(value(code)),
            // A result the instruction does not write is RZ; PHASECHK's `.TRYWAIT` may
            // wait a while before it answers, which the simulator does not.
            Mod::NoResult | Mod::TryWait => {}
            // SYNCS.CCTL's operation: the simulator has no caches.
            Mod::SyncsCctlOp => {}
            // NANOSLEEP's `.SYNCS` is a timing hint like its delay.
            Mod::SleepSyncs => {}
            // The modifiers of Hopper's TMA, bulk-copy and USETMAXREG instructions, which
            // the simulator reports as unsupported.
            Mod::TmaDim
            | Mod::Im2col
            | Mod::Multicast
            | Mod::BulkDirection
            | Mod::BulkRedOp
            | Mod::BulkRedType
            | Mod::Sequenced
            | Mod::TensorMapCctl
            | Mod::MaxRegMode
            | Mod::CtaPool => {}
            Mod::MergeC => self.merge_c = on,
            // Memory-model and cache hints: the simulator's memory is sequentially
            // consistent and has no caches that these would change the results of.
            Mod::Sem
            | Mod::Order
            | Mod::Scope
            | Mod::Private
            | Mod::Cache
            | Mod::Prefetch
            | Mod::L1Allocate
            | Mod::ZeroDst
            | Mod::UniformAddr
            | Mod::LdcMode
            | Mod::MembarSem
            | Mod::Mmio
            | Mod::CctlCache
            | Mod::CctlOp => {}
            // Scheduling and bookkeeping hints without an effect on results: the warp's
            // reconvergence counters (`.INC`/`.DEC`, `.NOINC`/`.NODEC`), exit bookkeeping,
            // barrier blocking, sleep options and the depth test of DEPBAR (the timed
            // engine reads its operands).
            Mod::BranchInc
            | Mod::BranchDec
            | Mod::KeepRefCount
            | Mod::Preempted
            | Mod::NoAtExit
            | Mod::NoInc
            | Mod::NoDec
            | Mod::Defer
            | Mod::BptMode
            | Mod::DepbarLe
            | Mod::Rand
            | Mod::SleepWarp => {}
        }
    }

    /// Source and destination types of the conversions (and the saturation of I2I).
    fn assign_types(&mut self, op: Op, t: &Types) {
        let int = || NumType::from(t.int.unwrap_or_default());
        let float = || NumType::from(t.float.unwrap_or_default());
        let pair = t.pair.unwrap_or_default();
        (self.dst_num, self.src_num) = match op {
            Op::I2f => (float(), int()),
            Op::F2i => (int(), float()),
            Op::F2f | Op::Frnd => (pair.dst.into(), pair.src.into()),
            Op::I2i | Op::I2ip => (int(), NumType::S32),
            Op::F2ip => (int(), NumType::F32),
            _ => return,
        };
    }
}
