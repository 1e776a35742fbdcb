//! Modifiers by meaning. Every modifier field of every form is named by a [`Mod`]; its values
//! are the codes of a value type ([`ModValue`], in [`values`](super::values)) or, for one-bit
//! flags, 0 and 1. The back end sets modifiers with [`ModSet`]s built from these types, the
//! simulator reads them back into typed fields, and the disassembler prints each form's own
//! spelling of a code. A typo is a compile error; a table value that its type does not know
//! fails `tests::every_table_value_has_a_meaning`.

use super::values::*;

/// A modifier, by meaning. Forms spell the same meaning differently (`.RZ` in FADD, `.TRUNC`
/// in F2I): the spelling belongs to the form, the meaning to this enum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mod {
    // Integer arithmetic and logic.
    /// Signed operands (a flag whose clear value prints `.U32`).
    Signed,
    /// `.X`: add the carry-in predicates (IADD3, IMAD, LEA).
    X,
    /// `.HI`: the high word (LEA, SHF, IMAD) .
    Hi,
    /// `.SX32`: sign-extend the 32-bit A before shifting (LEA.HI).
    Sx32,
    /// `.W`: wrap the amount instead of clamping it (SHF, SGXT, BMSK).
    Wrap,
    /// SHF's direction: set is right (`.R`), clear is left (`.L`).
    Right,
    /// SHF's width and signedness ([`ShfType`]).
    ShfType,
    /// `.PAND`: the predicate output is the AND of the result bits (LOP3).
    Pand,
    /// `.EX`: a compare extended with the previous compare's result (ISETP).
    Ex,
    /// Integer comparison ([`IntCmp`]).
    IntCmp,
    /// How a compare combines with its predicate input ([`BoolOp`]).
    BoolOp,
    /// PRMT's byte selection mode ([`PrmtMode`]).
    PrmtMode,
    /// P2R's destination byte ([`ByteSel`]).
    ByteSel,
    /// FLO: `.SH` returns a shift amount instead of a bit position.
    ShiftAmount,
    /// IDP: A's elements are signed.
    ASigned,
    /// IDP: B's elements are signed.
    BSigned,
    /// IDP's shape ([`IdpKind`]).
    IdpKind,
    /// `.OR` of R2UR (sm_90): the predicate output is ORed into the predicate (not yet
    /// simulated: ptxc's simulator runs no sm_90 code).
    OrPred,
    // Floating point.
    /// `.FTZ`: subnormal inputs and results flush to zero.
    Ftz,
    /// `.SAT`: the result clamps to [0, 1].
    Sat,
    /// Zero-product handling of multiplies ([`Fmz`]).
    Fmz,
    /// Rounding of a float result or of a float-to-integer conversion ([`Rounding`]).
    Rnd,
    /// Float comparison ([`FloatCmp`]).
    FloatCmp,
    /// DSETP's comparison ([`DoubleCmp`]).
    DoubleCmp,
    /// FMUL's power-of-two scale of the result ([`FmulScale`]).
    FmulScale,
    /// MUFU's function ([`MufuFunc`]).
    MufuFunc,
    /// MUFU: an f16 source and result.
    MufuF16,
    /// HADD2/HMUL2/HFMA2: an f32 result (`.F32`).
    HalfF32,
    /// `.BF`: the compare writes 1.0 / 0.0 instead of a mask (HSET2).
    BoolFloat,
    /// `.H_AND`: HSETP2 combines the two halves' results.
    HalfAnd,
    /// `.NTZ` of F2I (no effect on the result: the hardware's marker of PTX `cvt.rzi` paths).
    Ntz,
    /// `.BF16` / `.BF16_V2`: the half-precision values are bfloat16 (HFMA2, F2FP).
    Bf16,
    /// `.RELU`: negative results become zero (F2FP, F2IP).
    Relu,
    /// `.SATFINITE`: results beyond the largest finite value clamp to it (F2FP, HMMA); IMMA's
    /// `.SAT`: results clamp to the s32 range.
    SatFinite,
    /// F2FP's `.MERGE_C` (code 1, not described) instead of `.PACK_AB` (code 0).
    MergeC,
    /// `.NAN`: a min/max with a NaN operand gives the canonical NaN (FMNMX, HMNMX2; sm_80).
    Nan,
    /// `.XORSIGN`: a min/max result's sign is the XOR of the operands' signs (sm_86).
    XorSign,
    /// The integer type of a conversion ([`IntType`]).
    IntType,
    /// The float type of a conversion ([`FloatType`]).
    FloatType,
    /// F2F's and FRND's destination and source float types ([`FloatPair`]).
    FloatPair,
    // Memory.
    /// `.E`: 64-bit addresses.
    E,
    /// Access size ([`MemSize`]).
    Size,
    /// Memory-model semantics of an access ([`MemSem`]).
    Sem,
    /// Scope of an access or a fence ([`Scope`]).
    Scope,
    /// `.PRIVATE`: the address is private to the thread.
    Private,
    /// Semantics and scope of an access in one field, from sm_80 on ([`MemOrder`]).
    Order,
    /// The access's uniform register is a memory descriptor (sm_80 on), not an address
    /// part; nvdisasm does not print it.
    Desc,
    /// The memory descriptor carries an L2 cache policy (PTX `.L2::cache_hint`, sm_80 on):
    /// nvdisasm prints it before the address, `desc[UR4][R2.64]`.
    PolicyDesc,
    /// Cache eviction policy ([`CachePolicy`]).
    Cache,
    /// L2 prefetch size hint ([`Prefetch`]).
    Prefetch,
    /// `.ZD`: zero the destination when the access is not done.
    ZeroDst,
    /// LDGSTS allocates the copied line in L1 (`.ca`); clear prints `.BYPASS` (`.cg`).
    L1Allocate,
    /// LDGSTS `.ZFILL`: the low address bits count trailing bytes to zero-fill, and a false
    /// predicate operand zero-fills the whole copy.
    Zfill,
    /// LDS `.U`: a warp-uniform address.
    UniformAddr,
    /// LDC's indexing mode ([`LdcMode`]).
    LdcMode,
    /// LDSM's matrix count ([`LdsmCount`]).
    LdsmCount,
    /// LDSM's shape ([`LdsmShape`]).
    LdsmShape,
    /// An atomic operation ([`AtomOp`]).
    AtomOp,
    /// An atomic's data type ([`AtomType`]).
    AtomType,
    /// An integer atomic's data type on Hopper ([`HopperAtomType`]).
    HopperAtomType,
    /// A floating-point atomic's data type on Hopper ([`FloatAtomType`]).
    FloatAtomType,
    /// Compare-and-swap flavour ([`CasKind`]).
    CasKind,
    /// QSPC's space ([`QspcSpace`]).
    QspcSpace,
    /// MEMBAR's semantics ([`MembarSem`]).
    MembarSem,
    /// `.MMIO` of MEMBAR.
    Mmio,
    /// CCTL's cache ([`CctlCache`]).
    CctlCache,
    /// CCTL's operation ([`CctlOp`]).
    CctlOp,
    // Warp-wide operations.
    /// SHFL's lane mode ([`ShflMode`]).
    ShflMode,
    /// VOTE's mode ([`VoteMode`]).
    VoteMode,
    /// MATCH's mode ([`MatchMode`]).
    MatchMode,
    /// MATCH `.U64`: 64-bit values.
    Match64,
    /// REDUX's reduction ([`ReduxOp`]).
    ReduxOp,
    // Control flow and synchronisation.
    /// BRA's kind ([`BranchKind`]).
    BranchKind,
    /// BRA `.INC` (with `.DIV`/`.CONV` bookkeeping; no effect in the simulator).
    BranchInc,
    /// BRA `.DEC`.
    BranchDec,
    /// EXIT `.KEEPREFCOUNT`.
    KeepRefCount,
    /// EXIT `.PREEMPTED`.
    Preempted,
    /// EXIT `.NO_ATEXIT`.
    NoAtExit,
    /// CALL `.NOINC`.
    NoInc,
    /// RET `.NODEC`.
    NoDec,
    /// BMOV `.CLEAR`: clear the convergence barrier after reading it.
    Clear,
    /// BAR's mode ([`BarMode`]).
    BarMode,
    /// BAR.RED's reduction ([`BarRedOp`]).
    BarRedOp,
    /// BAR `.DEFER_BLOCKING`.
    Defer,
    /// BPT's mode ([`BptMode`]).
    BptMode,
    /// DEPBAR `.LE`.
    DepbarLe,
    /// NANOSLEEP `.RAND`.
    Rand,
    /// NANOSLEEP `.WARP`.
    SleepWarp,
    /// CS2R: a 64-bit read (clear: `.32`).
    Wide,
    /// WARPSYNC `.EXCLUSIVE` (sm_80): the lanes of the mask run alone past the WARPSYNC
    /// (ptxas's `redux.sync` with a register mask).
    Exclusive,
    // Tensor cores.
    /// HMMA's result type ([`HmmaDType`]).
    HmmaDType,
    /// HMMA's accumulator type ([`HmmaCType`]).
    HmmaCType,
    /// HMMA.884's step ([`HmmaStep`]).
    HmmaStep,
    /// HMMA's multiplicand type on sm_80 and later ([`HmmaAType`]).
    HmmaAType,
    /// IMMA's A element type ([`ImmaAType`]).
    ImmaAType,
    /// IMMA's B element type ([`ImmaBType`]).
    ImmaBType,
    /// BMMA's bit operation ([`BmmaOp`], sm_80 on).
    BmmaOp,
    /// The mbarrier operation of generic ATOM ([`MbarrierOp`], sm_80 on).
    MbarrierOp,
    /// HGMMA's N / 8 - 1 (bits 53..57; no spelling: N is in the mnemonic), a modifier so
    /// that building an HGMMA by role picks the form of its N.
    GmmaN,
    /// ELECT's `.IGNOREKILL` (a flag).
    IgnoreKill,
    /// FENCE.VIEW.ASYNC's memory ([`AsyncView`]).
    AsyncView,
    /// What a SYNCS.ARRIVE adds ([`ArrivalKind`], sm_90).
    ArrivalKind,
    /// SYNCS.ARRIVE's `.RED`: no result (a flag).
    NoResult,
    /// SYNCS.ARRIVE's `.OPTOUT`: the arriving threads leave the barrier (a flag, PTX
    /// `arrive_drop`).
    OptOut,
    /// SYNCS.ARRIVE's `.TMASK` (a flag; not simulated).
    TxMask,
    /// SYNCS.PHASECHK's `.TRYWAIT` (a flag, PTX `try_wait`).
    TryWait,
    /// SYNCS.CCTL's operation ([`SyncsCctlOp`]).
    SyncsCctlOp,
    /// What Hopper's ARRIVES.LDGSTSBAR counts ([`ArrivesCount`]).
    ArrivesCount,
    /// VIMNMX's operand type ([`MinMaxType`], sm_90).
    MinMaxType,
    /// WARPSYNC's `.COLLECTIVE` (sm_90, a flag): the lanes of the mask run the region up to
    /// ENDCOLLECTIVE as their own group.
    Collective,
    /// NANOSLEEP's `.SYNCS` (sm_90, a flag): ptxas's back-off in an mbarrier wait loop.
    SleepSyncs,
    // Bulk copies, TMA and register reconfiguration (sm_90).
    /// The tensor's dimension count ([`TmaDim`]).
    TmaDim,
    /// `.IM2COL` (a flag): the TMA instruction's im2col mode.
    Im2col,
    /// `.MULTICAST` (a flag): a load into the shared memory of several CTAs of the cluster,
    /// the CTA mask in the high half of the extra uniform register.
    Multicast,
    /// A bulk copy's memories ([`BulkDirection`]).
    BulkDirection,
    /// A bulk or TMA reduction ([`BulkRedOp`]).
    BulkRedOp,
    /// A bulk reduction's element type ([`BulkRedType`]).
    BulkRedType,
    /// UBLKCP's `.SEQUENCED` (a flag; ptxas emits none).
    Sequenced,
    /// UTMACCTL's operation ([`TensorMapCctl`]).
    TensorMapCctl,
    /// USETMAXREG's operation ([`MaxRegMode`]).
    MaxRegMode,
    /// USETMAXREG's `.CTAPOOL` (a flag that is always set: the registers go to or come from
    /// the CTA's pool).
    CtaPool,
}

/// A modifier's value type: an enum whose variants are the codes the modifier's field holds.
pub trait ModValue: Copy + Sized {
    /// The modifier these values belong to.
    const ID: Mod;
    /// The field's code of the value.
    fn code(self) -> u16;
    /// The value of a field code, if the code has a meaning.
    fn from_code(code: u16) -> Option<Self>;
    /// This value as a setting of its modifier.
    fn set(self) -> ModSet {
        ModSet {
            id: Self::ID,
            code: self.code(),
        }
    }
}

/// One modifier set to one code: what the back end asks an instruction to carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ModSet {
    /// The modifier.
    pub id: Mod,
    /// Its code.
    pub code: u16,
}

impl<T: ModValue> From<T> for ModSet {
    fn from(v: T) -> ModSet {
        v.set()
    }
}

impl Mod {
    /// This flag set (`true`) or clear.
    pub fn flag(self, on: bool) -> ModSet {
        debug_assert!(self.is_flag(), "{self:?} is not a flag");
        ModSet {
            id: self,
            code: u16::from(on),
        }
    }

    /// True for one-bit flags (codes 0 and 1).
    pub fn is_flag(self) -> bool {
        matches!(self.meaning(), Meaning::Flag)
    }

    /// Whether `code` has a meaning for this modifier.
    pub fn accepts(self, code: u16) -> bool {
        match self.meaning() {
            Meaning::Flag => code <= 1,
            Meaning::Values(valid) => valid(code),
        }
    }

    /// What the codes of this modifier mean.
    fn meaning(self) -> Meaning {
        use Meaning::Flag;
        match self {
            Mod::Signed | Mod::X | Mod::Hi | Mod::Sx32 | Mod::Wrap | Mod::Right | Mod::Pand | Mod::Ex => Flag,
            Mod::ShiftAmount | Mod::ASigned | Mod::BSigned => Flag,
            Mod::Ftz | Mod::Sat | Mod::MufuF16 | Mod::HalfF32 | Mod::BoolFloat | Mod::HalfAnd | Mod::Ntz => Flag,
            Mod::Desc | Mod::PolicyDesc => Flag,
            Mod::L1Allocate | Mod::Zfill => Flag,
            Mod::E | Mod::Private | Mod::ZeroDst | Mod::UniformAddr | Mod::Mmio | Mod::Match64 => Flag,
            Mod::BranchInc | Mod::BranchDec | Mod::KeepRefCount | Mod::Preempted | Mod::NoAtExit => Flag,
            Mod::NoInc | Mod::NoDec | Mod::Clear | Mod::Defer | Mod::DepbarLe | Mod::Rand => Flag,
            Mod::SleepWarp | Mod::Wide | Mod::Exclusive | Mod::OrPred => Flag,
            Mod::Bf16 | Mod::Relu | Mod::SatFinite | Mod::MergeC | Mod::Nan | Mod::XorSign => Flag,
            Mod::ShfType => values::<ShfType>(self),
            Mod::IntCmp => values::<IntCmp>(self),
            Mod::BoolOp => values::<BoolOp>(self),
            Mod::PrmtMode => values::<PrmtMode>(self),
            Mod::ByteSel => values::<ByteSel>(self),
            Mod::IdpKind => values::<IdpKind>(self),
            Mod::Fmz => values::<Fmz>(self),
            Mod::Rnd => values::<Rounding>(self),
            Mod::FloatCmp => values::<FloatCmp>(self),
            Mod::DoubleCmp => values::<DoubleCmp>(self),
            Mod::FmulScale => values::<FmulScale>(self),
            Mod::MufuFunc => values::<MufuFunc>(self),
            Mod::IntType => values::<IntType>(self),
            Mod::FloatType => values::<FloatType>(self),
            Mod::FloatPair => values::<FloatPair>(self),
            Mod::Size => values::<MemSize>(self),
            Mod::Sem => values::<MemSem>(self),
            Mod::Scope => values::<Scope>(self),
            Mod::Order => values::<MemOrder>(self),
            Mod::Cache => values::<CachePolicy>(self),
            Mod::Prefetch => values::<Prefetch>(self),
            Mod::LdcMode => values::<LdcMode>(self),
            Mod::LdsmCount => values::<LdsmCount>(self),
            Mod::LdsmShape => values::<LdsmShape>(self),
            Mod::AtomOp => values::<AtomOp>(self),
            Mod::AtomType => values::<AtomType>(self),
            Mod::HopperAtomType => values::<HopperAtomType>(self),
            Mod::FloatAtomType => values::<FloatAtomType>(self),
            Mod::CasKind => values::<CasKind>(self),
            Mod::QspcSpace => values::<QspcSpace>(self),
            Mod::MembarSem => values::<MembarSem>(self),
            Mod::CctlCache => values::<CctlCache>(self),
            Mod::CctlOp => values::<CctlOp>(self),
            Mod::ShflMode => values::<ShflMode>(self),
            Mod::VoteMode => values::<VoteMode>(self),
            Mod::MatchMode => values::<MatchMode>(self),
            Mod::ReduxOp => values::<ReduxOp>(self),
            Mod::BranchKind => values::<BranchKind>(self),
            Mod::BarMode => values::<BarMode>(self),
            Mod::BarRedOp => values::<BarRedOp>(self),
            Mod::BptMode => values::<BptMode>(self),
            Mod::HmmaDType => values::<HmmaDType>(self),
            Mod::HmmaCType => values::<HmmaCType>(self),
            Mod::HmmaStep => values::<HmmaStep>(self),
            Mod::HmmaAType => values::<HmmaAType>(self),
            Mod::ImmaAType => values::<ImmaAType>(self),
            Mod::ImmaBType => values::<ImmaBType>(self),
            Mod::BmmaOp => values::<BmmaOp>(self),
            Mod::MbarrierOp => values::<MbarrierOp>(self),
            Mod::GmmaN => Meaning::Values(|code| code < 32),
            Mod::IgnoreKill => Meaning::Flag,
            Mod::AsyncView => values::<AsyncView>(self),
            Mod::ArrivalKind => values::<ArrivalKind>(self),
            Mod::NoResult | Mod::OptOut | Mod::TxMask | Mod::TryWait | Mod::Collective => Flag,
            Mod::SyncsCctlOp => values::<SyncsCctlOp>(self),
            Mod::MinMaxType => values::<MinMaxType>(self),
            Mod::ArrivesCount => values::<ArrivesCount>(self),
            Mod::SleepSyncs | Mod::Im2col | Mod::Multicast | Mod::Sequenced | Mod::CtaPool => Flag,
            Mod::TmaDim => values::<TmaDim>(self),
            Mod::BulkDirection => values::<BulkDirection>(self),
            Mod::BulkRedOp => values::<BulkRedOp>(self),
            Mod::BulkRedType => values::<BulkRedType>(self),
            Mod::TensorMapCctl => values::<TensorMapCctl>(self),
            Mod::MaxRegMode => values::<MaxRegMode>(self),
        }
    }
}

/// What a modifier's codes mean.
#[derive(Clone, Copy)]
enum Meaning {
    /// 0 and 1.
    Flag,
    /// The codes of a value type.
    Values(fn(u16) -> bool),
}

/// The meaning of modifier `id` as the codes of `T` (whose own id must be `id`).
fn values<T: ModValue>(id: Mod) -> Meaning {
    debug_assert_eq!(T::ID, id, "value type of {id:?}");
    Meaning::Values(|code| T::from_code(code).is_some())
}

#[cfg(test)]
mod tests {
    use crate::isa::isa;

    #[test]
    fn every_table_value_has_a_meaning() {
        for (_, form) in isa().forms() {
            for m in &form.mods {
                for &(code, spelling) in m.values {
                    assert!(
                        m.id.accepts(code),
                        "{}: {:?} has no meaning for code {code} (`{spelling}`)",
                        form.mnemonic,
                        m.id
                    );
                }
                assert!(m.id.accepts(m.default), "{}: default of {:?}", form.mnemonic, m.id);
            }
        }
    }

    #[test]
    fn value_types_name_their_own_modifier() {
        // `meaning` checks `T::ID == id` in debug builds; calling it for every modifier
        // checks the table of value types.
        for (_, form) in isa().forms() {
            for m in &form.mods {
                let _ = m.id.meaning();
            }
        }
    }
}
