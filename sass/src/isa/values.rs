//! The value types of the multi-valued modifiers: each variant is one code of the modifier's
//! field (docs/ENCODING-SM75.md, section B, lists where the fields are). The forms spell the
//! codes; these enums give them meaning.

use super::modifier::{Mod, ModSet, ModValue};

/// Declares a value type: its variants with their codes, the modifier it belongs to, and the
/// value a form without the modifier behaves as.
macro_rules! values {
    (
        $(#[$meta:meta])*
        $name:ident for $id:ident, absent $absent:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $code:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl ModValue for $name {
            const ID: Mod = Mod::$id;

            fn code(self) -> u16 {
                match self {
                    $( $name::$variant => $code ),+
                }
            }

            fn from_code(code: u16) -> Option<Self> {
                match code {
                    $( $code => Some($name::$variant), )+
                    _ => None,
                }
            }
        }

        impl Default for $name {
            /// The behaviour of a form without this modifier.
            fn default() -> Self {
                $name::$absent
            }
        }

        impl $name {
            /// The field's code of the value.
            pub fn code(self) -> u16 {
                ModValue::code(self)
            }

            /// This value as a setting of its modifier.
            pub fn set(self) -> ModSet {
                ModValue::set(self)
            }

            /// The value of a field code, if the code has a meaning.
            pub fn from_code(code: u16) -> Option<Self> {
                <Self as ModValue>::from_code(code)
            }
        }
    };
}

mod bulk;
pub use bulk::*;

values! {
    /// SHF's operand width and signedness.
    ShfType for ShfType, absent U32 {
        /// Signed 64-bit.
        S64 = 0,
        /// Unsigned 64-bit.
        U64 = 1,
        /// Signed 32-bit.
        S32 = 2,
        /// Unsigned 32-bit.
        U32 = 3,
    }
}

values! {
    /// Integer comparison of ISETP.
    IntCmp for IntCmp, absent F {
        /// Always false.
        F = 0,
        /// Less than.
        Lt = 1,
        /// Equal.
        Eq = 2,
        /// Less or equal.
        Le = 3,
        /// Greater than.
        Gt = 4,
        /// Not equal.
        Ne = 5,
        /// Greater or equal.
        Ge = 6,
        /// Always true.
        T = 7,
    }
}

values! {
    /// How a compare's result combines with its predicate input.
    BoolOp for BoolOp, absent And {
        /// AND.
        And = 0,
        /// OR.
        Or = 1,
        /// XOR.
        Xor = 2,
    }
}

values! {
    /// PRMT's byte selection mode (PTX `prmt` modes).
    PrmtMode for PrmtMode, absent Index {
        /// Each selector nibble picks a byte (with sign replication in bit 3).
        Index = 0,
        /// Forward 4 extract.
        F4e = 1,
        /// Backward 4 extract.
        B4e = 2,
        /// Replicate 8.
        Rc8 = 3,
        /// Edge clamp left.
        Ecl = 4,
        /// Edge clamp right.
        Ecr = 5,
        /// Replicate 16.
        Rc16 = 6,
    }
}

values! {
    /// P2R's destination byte.
    ByteSel for ByteSel, absent B0 {
        /// Byte 0.
        B0 = 0,
        /// Byte 1.
        B1 = 1,
        /// Byte 2.
        B2 = 2,
        /// Byte 3.
        B3 = 3,
    }
}

values! {
    /// IDP's shape: four 8-bit products, or two 16x8-bit products with the low or high bytes of B.
    IdpKind for IdpKind, absent FourA {
        /// `.4A`: four bytes.
        FourA = 0,
        /// `.2A.LO`: two halves times B's low bytes.
        TwoALo = 1,
        /// `.2A.HI`: two halves times B's high bytes.
        TwoAHi = 3,
    }
}

values! {
    /// How a multiply treats zero (FMUL/FFMA: `.FMZ`; HMUL2/HFMA2 also `.FTZ`).
    Fmz for Fmz, absent Ieee {
        /// IEEE.
        Ieee = 0,
        /// `.FMZ`: 0 times anything (even infinity or NaN) is 0.
        Fmz = 1,
        /// `.FTZ` (half precision): subnormals flush.
        Ftz = 2,
    }
}

values! {
    /// Rounding of a float result (`.RM`, `.RP`, `.RZ`) or of a float-to-integer conversion
    /// (`.FLOOR`, `.CEIL`, `.TRUNC`).
    Rounding for Rnd, absent Rn {
        /// To nearest, ties to even.
        Rn = 0,
        /// Toward minus infinity.
        Rm = 1,
        /// Toward plus infinity.
        Rp = 2,
        /// Toward zero.
        Rz = 3,
    }
}

values! {
    /// Float comparison (FSETP, FSET, HSETP2, HSET2): ordered and unordered forms.
    FloatCmp for FloatCmp, absent F {
        /// Always false.
        F = 0,
        /// Ordered less than.
        Lt = 1,
        /// Ordered equal.
        Eq = 2,
        /// Ordered less or equal.
        Le = 3,
        /// Ordered greater than.
        Gt = 4,
        /// Ordered not equal.
        Ne = 5,
        /// Ordered greater or equal.
        Ge = 6,
        /// Neither is NaN.
        Num = 7,
        /// Either is NaN.
        Nan = 8,
        /// Unordered or less than.
        Ltu = 9,
        /// Unordered or equal.
        Equ = 10,
        /// Unordered or less or equal.
        Leu = 11,
        /// Unordered or greater than.
        Gtu = 12,
        /// Unordered or not equal.
        Neu = 13,
        /// Unordered or greater or equal.
        Geu = 14,
        /// Always true.
        T = 15,
    }
}

values! {
    /// DSETP's comparison: the codes of [`FloatCmp`], with 0 and 15 meaning minimum and
    /// maximum (the predicate says which operand is smaller or larger).
    DoubleCmp for DoubleCmp, absent Min {
        /// `.MIN`.
        Min = 0,
        /// Ordered less than.
        Lt = 1,
        /// Ordered equal.
        Eq = 2,
        /// Ordered less or equal.
        Le = 3,
        /// Ordered greater than.
        Gt = 4,
        /// Ordered not equal.
        Ne = 5,
        /// Ordered greater or equal.
        Ge = 6,
        /// Neither is NaN.
        Num = 7,
        /// Either is NaN.
        Nan = 8,
        /// Unordered or less than.
        Ltu = 9,
        /// Unordered or equal.
        Equ = 10,
        /// Unordered or less or equal.
        Leu = 11,
        /// Unordered or greater than.
        Gtu = 12,
        /// Unordered or not equal.
        Neu = 13,
        /// Unordered or greater or equal.
        Geu = 14,
        /// `.MAX`.
        Max = 15,
    }
}

values! {
    /// FMUL's scale of the result by a power of two.
    FmulScale for FmulScale, absent One {
        /// Divide by 8.
        D8 = 1,
        /// Divide by 4.
        D4 = 2,
        /// Divide by 2.
        D2 = 3,
        /// No scaling.
        One = 4,
        /// Multiply by 2.
        M2 = 5,
        /// Multiply by 4.
        M4 = 6,
        /// Multiply by 8.
        M8 = 7,
    }
}

values! {
    /// MUFU's function.
    MufuFunc for MufuFunc, absent Rcp {
        /// Cosine of 2*pi*x.
        Cos = 0,
        /// Sine of 2*pi*x.
        Sin = 1,
        /// Two to the x.
        Ex2 = 2,
        /// Base-2 logarithm.
        Lg2 = 3,
        /// Reciprocal.
        Rcp = 4,
        /// Reciprocal square root.
        Rsq = 5,
        /// Reciprocal of an f64's high word.
        Rcp64h = 6,
        /// Reciprocal square root of an f64's high word.
        Rsq64h = 7,
        /// Square root.
        Sqrt = 8,
        /// Hyperbolic tangent.
        Tanh = 9,
    }
}

values! {
    /// The integer type of a conversion: log2 of the byte size, doubled, plus one if signed.
    IntType for IntType, absent S32 {
        /// u8.
        U8 = 0,
        /// s8.
        S8 = 1,
        /// u16.
        U16 = 2,
        /// s16.
        S16 = 3,
        /// u32.
        U32 = 4,
        /// s32.
        S32 = 5,
        /// u64.
        U64 = 6,
        /// s64.
        S64 = 7,
    }
}

impl IntType {
    /// Size in bits.
    pub fn bits(self) -> u32 {
        8 << (self.code() / 2)
    }

    /// Signed.
    pub fn signed(self) -> bool {
        self.code() & 1 == 1
    }
}

values! {
    /// The float type of a conversion.
    FloatType for FloatType, absent F32 {
        /// f16.
        F16 = 1,
        /// f32.
        F32 = 2,
        /// f64.
        F64 = 3,
    }
}

/// F2F's and FRND's destination and source float types: `dst | src << 2` (a modifier split
/// over two fields).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FloatPair {
    /// Destination type.
    pub dst: FloatType,
    /// Source type.
    pub src: FloatType,
}

impl ModValue for FloatPair {
    const ID: Mod = Mod::FloatPair;

    fn code(self) -> u16 {
        self.dst.code() | self.src.code() << 2
    }

    fn from_code(code: u16) -> Option<Self> {
        Some(FloatPair {
            dst: FloatType::from_code(code & 3)?,
            src: FloatType::from_code(code >> 2)?,
        })
    }
}

impl Default for FloatPair {
    /// f32 from f32.
    fn default() -> Self {
        FloatPair {
            dst: FloatType::F32,
            src: FloatType::F32,
        }
    }
}

values! {
    /// Size of a memory access.
    MemSize for Size, absent B32 {
        /// Zero-extended byte.
        U8 = 0,
        /// Sign-extended byte.
        S8 = 1,
        /// Zero-extended 16 bits.
        U16 = 2,
        /// Sign-extended 16 bits.
        S16 = 3,
        /// 32 bits.
        B32 = 4,
        /// 64 bits (a register pair).
        B64 = 5,
        /// 128 bits (a register quad).
        B128 = 6,
        /// `.U.128`: 128 bits, warp-uniform address.
        U128 = 7,
    }
}

impl MemSize {
    /// Bytes accessed.
    pub fn bytes(self) -> u32 {
        match self {
            MemSize::U8 | MemSize::S8 => 1,
            MemSize::U16 | MemSize::S16 => 2,
            MemSize::B32 => 4,
            MemSize::B64 => 8,
            MemSize::B128 | MemSize::U128 => 16,
        }
    }

    /// Registers of the data operand.
    pub fn registers(self) -> u8 {
        self.bytes().div_ceil(4) as u8
    }

    /// Sign-extends a narrow load.
    pub fn signed(self) -> bool {
        matches!(self, MemSize::S8 | MemSize::S16)
    }

    /// The size of an access of `bytes` (unsigned for narrow ones), if there is one.
    pub fn of_bytes(bytes: u32) -> Option<MemSize> {
        Some(match bytes {
            1 => MemSize::U8,
            2 => MemSize::U16,
            4 => MemSize::B32,
            8 => MemSize::B64,
            16 => MemSize::B128,
            _ => return None,
        })
    }
}

values! {
    /// Memory-model semantics of an access.
    MemSem for Sem, absent Weak {
        /// `.CONSTANT`: read-only for the kernel's lifetime.
        Constant = 0,
        /// Weak (no spelling).
        Weak = 1,
        /// `.STRONG`: relaxed, at the access's scope.
        Strong = 2,
        /// `.MMIO`.
        Mmio = 3,
    }
}

values! {
    /// Scope of an access or a fence.
    Scope for Scope, absent Sys {
        /// The CTA.
        Cta = 0,
        /// The SM.
        Sm = 1,
        /// The GPU.
        Gpu = 2,
        /// The system.
        Sys = 3,
        /// `.VC` (MEMBAR only).
        Vc = 5,
    }
}

values! {
    /// Semantics and scope of a global or generic access from sm_80 on, one code for both
    /// (bits 77..81); named by nvdisasm's spelling of the loads. Stores and atomics spell code
    /// 4 `.STRONG.SM.PRIVATE` (they have no `.CONSTANT`).
    MemOrder for Order, absent Weak {
        /// Weak (no spelling).
        Weak = 0,
        /// `.CONSTANT.PRIVATE`.
        ConstantPrivate = 1,
        /// `.CONSTANT.CTA`.
        ConstantCta = 2,
        /// `.CONSTANT.CTA.PRIVATE`.
        ConstantCtaPrivate = 3,
        /// `.CONSTANT` (ld.global.nc).
        Constant = 4,
        /// `.STRONG.SM`.
        StrongSm = 5,
        /// `.STRONG.GPU.PRIVATE`.
        StrongGpuPrivate = 6,
        /// `.STRONG.GPU`.
        StrongGpu = 7,
        /// `.MMIO.GPU`.
        MmioGpu = 8,
        /// `.CONSTANT.SM`.
        ConstantSm = 9,
        /// `.STRONG.SYS`.
        StrongSys = 10,
        /// `.CONSTANT.SM.PRIVATE`.
        ConstantSmPrivate = 11,
        /// `.MMIO.SYS`.
        MmioSys = 12,
        /// `.CONSTANT.VC`.
        ConstantVc = 13,
        /// `.CONSTANT.VC.PRIVATE`.
        ConstantVcPrivate = 14,
        /// `.CONSTANT.GPU`.
        ConstantGpu = 15,
    }
}

impl MemOrder {
    /// The semantics part.
    pub fn sem(self) -> MemSem {
        use MemOrder::*;
        match self {
            Weak => MemSem::Weak,
            StrongSm | StrongGpuPrivate | StrongGpu | StrongSys => MemSem::Strong,
            MmioGpu | MmioSys => MemSem::Mmio,
            _ => MemSem::Constant,
        }
    }

    /// The scope part (weak and plain constant accesses: the system).
    pub fn scope(self) -> Scope {
        use MemOrder::*;
        match self {
            ConstantCta | ConstantCtaPrivate => Scope::Cta,
            StrongSm | ConstantSm | ConstantSmPrivate => Scope::Sm,
            StrongGpuPrivate | StrongGpu | MmioGpu | ConstantGpu => Scope::Gpu,
            ConstantVc | ConstantVcPrivate => Scope::Vc,
            _ => Scope::Sys,
        }
    }

    /// The code of an sm_75 semantics and scope pair, as ptxas writes them (a strong CTA
    /// access is `.STRONG.SM`, as on sm_75 ptxas writes `.STRONG.CTA` for none).
    pub fn of(sem: MemSem, scope: Scope) -> MemOrder {
        match (sem, scope) {
            (MemSem::Weak, _) => MemOrder::Weak,
            (MemSem::Constant, _) => MemOrder::Constant,
            (MemSem::Strong, Scope::Cta | Scope::Sm) => MemOrder::StrongSm,
            (MemSem::Strong, Scope::Gpu) => MemOrder::StrongGpu,
            (MemSem::Strong, _) => MemOrder::StrongSys,
            (MemSem::Mmio, Scope::Gpu) => MemOrder::MmioGpu,
            (MemSem::Mmio, _) => MemOrder::MmioSys,
        }
    }
}

values! {
    /// Cache eviction policy of an access.
    CachePolicy for Cache, absent Normal {
        /// Evict first.
        Ef = 0,
        /// Normal (no spelling).
        Normal = 1,
        /// Evict last.
        El = 2,
        /// Last use.
        Lu = 3,
        /// Evict unchanged.
        Eu = 4,
        /// No allocate.
        Na = 5,
    }
}

values! {
    /// L2 prefetch size hint of a load.
    Prefetch for Prefetch, absent None {
        /// None.
        None = 0,
        /// 64 bytes.
        B64 = 1,
        /// 128 bytes.
        B128 = 2,
        /// 256 bytes (LDGSTS, sm_80 on).
        B256 = 3,
    }
}

values! {
    /// LDC's indexing mode.
    LdcMode for LdcMode, absent Plain {
        /// Plain.
        Plain = 0,
        /// `.IL`.
        Il = 1,
        /// `.IS`.
        Is = 2,
        /// `.ISL`.
        Isl = 3,
    }
}

values! {
    /// LDSM's number of 8x8 matrices.
    LdsmCount for LdsmCount, absent X1 {
        /// One.
        X1 = 0,
        /// Two.
        X2 = 1,
        /// Four.
        X4 = 2,
    }
}

values! {
    /// LDSM's shape.
    LdsmShape for LdsmShape, absent M88 {
        /// 8x8 of 16-bit elements.
        M88 = 0,
        /// 8x8 transposed.
        Mt88 = 1,
        /// 8x16 of 8-bit elements.
        M816 = 2,
        /// 8x32 of 4-bit elements.
        M832 = 3,
    }
}

values! {
    /// An atomic or reduction operation.
    AtomOp for AtomOp, absent Add {
        /// Add.
        Add = 0,
        /// Minimum.
        Min = 1,
        /// Maximum.
        Max = 2,
        /// Wrapping increment.
        Inc = 3,
        /// Wrapping decrement.
        Dec = 4,
        /// AND.
        And = 5,
        /// OR.
        Or = 6,
        /// XOR.
        Xor = 7,
        /// Exchange.
        Exch = 8,
        /// `.SAFEADD`.
        SafeAdd = 9,
    }
}

values! {
    /// An atomic's data type.
    AtomType for AtomType, absent U32 {
        /// u32.
        U32 = 0,
        /// s32.
        S32 = 1,
        /// 64-bit integer.
        U64 = 2,
        /// f32 (flushing subnormals, rounding to nearest).
        F32 = 3,
        /// Two f16.
        F16x2 = 4,
        /// s64.
        S64 = 5,
        /// f64.
        F64 = 6,
    }
}

values! {
    /// An integer atomic's data type on Hopper (RED, ATOMG and ATOM, bits 73..75): `.S64` moves
    /// to code 3 (nvdisasm SM90 prints 4 as `.128` and 5..7 as `INVALID`), and the float types
    /// leave for their own forms ([`FloatAtomType`]).
    HopperAtomType for HopperAtomType, absent U32 {
        /// u32.
        U32 = 0,
        /// s32.
        S32 = 1,
        /// 64-bit integer.
        U64 = 2,
        /// s64.
        S64 = 3,
    }
}

values! {
    /// A floating-point atomic's data type on Hopper (RED 0x9a6, ATOMG 0x9a3 and ATOM 0x9a2,
    /// bits 73..76, bit 87 clear): the types ptxc compiles and simulates. nvdisasm SM90 also
    /// prints `.F16x4`, `.F16x8`, `.BF16x2`..`.BF16x8`, `.F32x2`, `.F32x4` and `.F32.RN`
    /// (without FTZ) for codes 1..5 and 10..14; those are not described.
    FloatAtomType for FloatAtomType, absent F16x2 {
        /// Two f16 (`.F16x2.RN`).
        F16x2 = 0,
        /// f32 flushing subnormals (`.F32.FTZ.RN`).
        F32 = 9,
        /// f64 (`.F64.RN`).
        F64 = 15,
    }
}

impl HopperAtomType {
    /// The type as [`AtomType`] names it.
    pub fn semantic(self) -> AtomType {
        match self {
            HopperAtomType::U32 => AtomType::U32,
            HopperAtomType::S32 => AtomType::S32,
            HopperAtomType::U64 => AtomType::U64,
            HopperAtomType::S64 => AtomType::S64,
        }
    }
}

impl FloatAtomType {
    /// The type as [`AtomType`] names it.
    pub fn semantic(self) -> AtomType {
        match self {
            FloatAtomType::F16x2 => AtomType::F16x2,
            FloatAtomType::F32 => AtomType::F32,
            FloatAtomType::F64 => AtomType::F64,
        }
    }
}

impl AtomType {
    /// The type as Hopper's RED, ATOMG and ATOM spell it: an integer type or a float type.
    pub fn on_hopper(self) -> ModSet {
        match self {
            AtomType::U32 => HopperAtomType::U32.set(),
            AtomType::S32 => HopperAtomType::S32.set(),
            AtomType::U64 => HopperAtomType::U64.set(),
            AtomType::S64 => HopperAtomType::S64.set(),
            AtomType::F16x2 => FloatAtomType::F16x2.set(),
            AtomType::F32 => FloatAtomType::F32.set(),
            AtomType::F64 => FloatAtomType::F64.set(),
        }
    }
}

values! {
    /// Compare-and-swap flavour.
    CasKind for CasKind, absent Cas {
        /// Returns the old value.
        Cas = 0,
        /// `.CAST`: returns whether it swapped.
        Cast = 1,
        /// `.CAST.SPIN`.
        CastSpin = 3,
    }
}

values! {
    /// QSPC's space.
    QspcSpace for QspcSpace, absent Global {
        /// Global.
        Global = 0,
        /// Local.
        Local = 1,
        /// Shared.
        Shared = 2,
        /// The shared memory of the CTA's cluster (`.D`, Hopper).
        Cluster = 3,
    }
}

values! {
    /// MEMBAR's semantics.
    MembarSem for MembarSem, absent Plain {
        /// `.SC`: sequentially consistent.
        Sc = 0,
        /// `.ALL`.
        All = 1,
        /// Plain (no spelling).
        Plain = 2,
    }
}

values! {
    /// CCTL's cache.
    CctlCache for CctlCache, absent Default {
        /// Default.
        Default = 0,
        /// `.U`.
        U = 1,
        /// `.C`.
        C = 2,
        /// `.I`.
        I = 3,
    }
}

values! {
    /// CCTL's operation.
    CctlOp for CctlOp, absent Pf1 {
        /// Prefetch to L1.
        Pf1 = 0,
        /// Prefetch to L2.
        Pf2 = 1,
        /// Write back.
        Wb = 2,
        /// Invalidate.
        Iv = 3,
        /// Invalidate all.
        IvAll = 4,
        /// `.RS`.
        Rs = 5,
        /// Invalidate all, persisting.
        IvAllP = 6,
        /// Write back all.
        WbAll = 7,
        /// Write back all, persisting.
        WbAllP = 8,
        /// `.PML2`: prefetch to L2 and mark the line evict-last (sm_80 on).
        Pml2 = 9,
        /// `.DML2` (sm_80 on; printed by nvdisasm 13.5, not seen from ptxas).
        Dml2 = 10,
        /// `.RML2` (sm_80 on; printed by nvdisasm 13.5, not seen from ptxas).
        Rml2 = 11,
    }
}

values! {
    /// SHFL's lane mode.
    ShflMode for ShflMode, absent Idx {
        /// Lane index.
        Idx = 0,
        /// Lane minus delta.
        Up = 1,
        /// Lane plus delta.
        Down = 2,
        /// Lane XOR mask.
        Bfly = 3,
    }
}

values! {
    /// VOTE's mode.
    VoteMode for VoteMode, absent Any {
        /// All lanes.
        All = 0,
        /// Any lane.
        Any = 1,
        /// All lanes equal.
        Eq = 2,
    }
}

values! {
    /// MATCH's mode.
    MatchMode for MatchMode, absent Any {
        /// `.ALL`: the mask if every lane holds the same value.
        All = 0,
        /// `.ANY`: the lanes holding the same value.
        Any = 1,
    }
}

values! {
    /// BRA's kind.
    BranchKind for BranchKind, absent Plain {
        /// Lane by lane.
        Plain = 0,
        /// `.U`: taken when every lane of the group takes it.
        Uniform = 1,
        /// `.DIV`.
        Div = 2,
        /// `.CONV`.
        Conv = 3,
        /// `.U.ANY` (Hopper, bit 84 with `.U`): every lane of the group branches when any
        /// takes it.
        UniformAny = 5,
    }
}

values! {
    /// BAR's mode.
    BarMode for BarMode, absent Sync {
        /// Wait until the barrier completes.
        Sync = 0,
        /// Arrive without waiting.
        Arv = 1,
        /// Reduce a predicate and wait.
        Red = 2,
        /// `.SCAN`.
        Scan = 3,
        /// All barriers.
        SyncAll = 4,
    }
}

values! {
    /// BAR.RED's reduction.
    BarRedOp for BarRedOp, absent Popc {
        /// Count of true predicates.
        Popc = 0,
        /// All true.
        And = 1,
        /// Any true.
        Or = 2,
    }
}

values! {
    /// BPT's mode.
    BptMode for BptMode, absent Trap {
        /// Pause.
        Pause = 2,
        /// Trap.
        Trap = 3,
        /// Interrupt.
        Int = 4,
        /// Drain.
        Drain = 5,
        /// Quiet pause.
        PauseQuiet = 6,
    }
}

values! {
    /// REDUX's reduction over the active lanes.
    ReduxOp for ReduxOp, absent And {
        /// Bitwise AND (no spelling).
        And = 0,
        /// Bitwise OR.
        Or = 1,
        /// Bitwise XOR.
        Xor = 2,
        /// Sum.
        Sum = 3,
        /// Minimum.
        Min = 4,
        /// Maximum.
        Max = 5,
    }
}

// Tensor cores (`sm75/mma.rs`).

values! {
    /// HMMA's result (D) type.
    HmmaDType for HmmaDType, absent F16 {
        /// f16 pairs.
        F16 = 0,
        /// f32.
        F32 = 1,
    }
}

values! {
    /// HMMA's accumulator (C) type.
    HmmaCType for HmmaCType, absent F16 {
        /// f16 pairs.
        F16 = 0,
        /// f32.
        F32 = 1,
    }
}

values! {
    /// Which register pair of D an HMMA.884 step writes (and which part of C it reads).
    HmmaStep for HmmaStep, absent Step0 {
        /// Step 0.
        Step0 = 0,
        /// Step 1.
        Step1 = 1,
        /// Step 2 (f32 results only).
        Step2 = 2,
        /// Step 3 (f32 results only).
        Step3 = 3,
    }
}

values! {
    /// HMMA's multiplicand (A and B) element type on sm_80 and later (bits 82..83).
    HmmaAType for HmmaAType, absent F16 {
        /// f16.
        F16 = 0,
        /// bfloat16.
        Bf16 = 1,
        /// TensorFloat-32 (f32 registers of which the multiplier reads sign, exponent and
        /// the upper 10 fraction bits).
        Tf32 = 2,
    }
}

values! {
    /// IMMA's A element type: signedness in the low bit, 4-bit elements in the high bit.
    ImmaAType for ImmaAType, absent U8 {
        /// Unsigned 8-bit.
        U8 = 0,
        /// Signed 8-bit.
        S8 = 1,
        /// Unsigned 4-bit.
        U4 = 2,
        /// Signed 4-bit.
        S4 = 3,
    }
}

values! {
    /// IMMA's B element type (codes as [`ImmaAType`]).
    ImmaBType for ImmaBType, absent U8 {
        /// Unsigned 8-bit.
        U8 = 0,
        /// Signed 8-bit.
        S8 = 1,
        /// Unsigned 4-bit.
        U4 = 2,
        /// Signed 4-bit.
        S4 = 3,
    }
}

values! {
    /// BMMA's bit operation before the population count (sm_80 bits 77..78; 1 prints
    /// `INVALID1`): `.XOR.POPC` or `.AND.POPC`.
    BmmaOp for BmmaOp, absent Xor {
        /// `popc(a ^ b)`.
        Xor = 0,
        /// `popc(a & b)`.
        And = 2,
    }
}

values! {
    /// The memory FENCE.VIEW.ASYNC orders for the async proxy (bit 72): `.S` shared
    /// (`fence.proxy.async.shared::cta`, and the state-space-less form after a MEMBAR) or
    /// `.G` global (`fence.proxy.async.global`).
    AsyncView for AsyncView, absent Shared {
        /// `.S`
        Shared = 0,
        /// `.G`
        Global = 1,
    }
}

values! {
    /// What a Hopper `SYNCS.ARRIVE.TRANS64` does to its barrier (bits 84..86; 0 prints
    /// nothing, 6 and 7 `INVALIDn`): an arrival count and a transaction count, each 0, 1 or
    /// the register operand (`R`) or a transaction count (`X`).
    ArrivalKind for ArrivalKind, absent OneExpectTx {
        /// No suffix: one arrival, and the register's count of transaction bytes more expected
        /// (PTX `mbarrier.arrive.expect_tx`).
        OneExpectTx = 0,
        /// `.A1T0`: one arrival (PTX `mbarrier.arrive`).
        One = 1,
        /// `.A0T1`: no arrival, one more pending (PTX `cp.async.mbarrier.arrive`, which then
        /// arrives with `ARRIVES.LDGSTSBAR.64.TRANSCNT`).
        OnePending = 2,
        /// `.A0TR`: no arrival, the register's count of transaction bytes more expected (PTX
        /// `mbarrier.expect_tx`, with `.RED`).
        ExpectTx = 3,
        /// `.A0TX`: no arrival, the register's count of transaction bytes completed (PTX
        /// `mbarrier.complete_tx`, with `.RED`).
        CompleteTx = 4,
        /// `.ART0`: as many arrivals as the register holds (PTX `mbarrier.arrive` with a
        /// count).
        FromRegister = 5,
    }
}

values! {
    /// VIMNMX's operand type (sm_90, bits 72..73).
    MinMaxType for MinMaxType, absent S32 {
        /// `.U32`
        U32 = 0,
        /// signed 32-bit (nothing printed)
        S32 = 1,
        /// `.U16x2`: two unsigned halves
        U16x2 = 2,
        /// `.S16x2`: two signed halves
        S16x2 = 3,
    }
}

values! {
    /// SYNCS.CCTL's operation (bit 72).
    SyncsCctlOp for SyncsCctlOp, absent Iv {
        /// `.IV`: invalidate (PTX `mbarrier.inval`).
        Iv = 0,
        /// `.WB`: write back.
        Wb = 1,
    }
}

values! {
    /// What Hopper's `ARRIVES.LDGSTSBAR.64` does once the thread's copies land (bits 70..71).
    ArrivesCount for ArrivesCount, absent ArvCnt {
        /// `.ARVCNT`: an arrival (PTX `cp.async.mbarrier.arrive.noinc`).
        ArvCnt = 1,
        /// `.TRANSCNT`: an arrival that a `SYNCS.ARRIVE.TRANS64.A0T1` announced (PTX
        /// `cp.async.mbarrier.arrive`).
        TransCnt = 2,
    }
}

values! {
    /// The mbarrier operation of generic `ATOM` (sm_80 bits 87..90, where the ordinary
    /// atomics keep their operation; other codes are illegal under nvdisasm).
    MbarrierOp for MbarrierOp, absent Arrive {
        /// `.ARRIVE`: one arrival on a 64-bit barrier.
        Arrive = 9,
        /// `.POPC.INC`: each active lane adds one to a 32-bit word.
        PopcInc = 10,
    }
}

/// Element type of an IMMA operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ImmaElem {
    /// Bits per element (8 or 4).
    pub bits: u32,
    /// Signed elements.
    pub signed: bool,
}

impl ImmaAType {
    /// Width and signedness.
    pub fn elem(self) -> ImmaElem {
        imma_elem(self.code())
    }
}

impl ImmaBType {
    /// Width and signedness.
    pub fn elem(self) -> ImmaElem {
        imma_elem(self.code())
    }
}

fn imma_elem(code: u16) -> ImmaElem {
    ImmaElem {
        bits: if code & 2 != 0 { 4 } else { 8 },
        signed: code & 1 != 0,
    }
}

/// The storage order of a tensor-core multiplicand, the operand suffix `.ROW` / `.COL` of
/// HMMA.884, IMMA and BMMA (the suffix field's code).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaLayout {
    /// Row-major (`.ROW`).
    Row = 0,
    /// Column-major (`.COL`).
    Col = 1,
}

impl MmaLayout {
    /// The suffix field's code.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The layout of a suffix code.
    pub fn from_code(code: u8) -> MmaLayout {
        if code & 1 == 0 { MmaLayout::Row } else { MmaLayout::Col }
    }
}
