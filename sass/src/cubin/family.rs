//! What ptxas 13.5 writes differently for each group of architectures ("family"), as data:
//! the parameter base, the reserved shared memory, the `.nv.info.<k>` records with a fixed
//! value and the record order, the section order, the relocation order and the layout
//! switches. The writer and the reader look the family up with [`family`]; nothing else in
//! the cubin code tests the SM number.
//!
//! The sm_90 facts come from `cuobjdump -elf` / `readelf` of ptxas 13.5 output for the
//! conformance kernels, `tests/kernels` and the corpus compiled with `-arch=sm_90` (and
//! `sm_89` to compare), and from hand-written probes (clusters, PDL, mbarriers, TMA, WMMA,
//! `mma.sp`, `brx.idx`, printf, `.reqntid`/`.maxntid`) compiled for sm_90 and sm_90a:
//!
//! - `e_flags` keep the V8 formula (`0x06005a04`; sm_90a is not marked there, only in
//!   `.nv.compat`); `.note.nv.cuinfo` gets `SHF_INFO_LINK` and `sh_info` = `.nv.compat`.
//! - `.nv.compat` (`SHT_CUDA_COMPAT_INFO`) follows `.nv.info` (see `compat.rs`).
//! - Kernel parameters start at `c[0x0][0x210]` (0x160 before); every kernel's shared window
//!   starts with 1 KiB that ptxas reserves (user variables at 0x400), and `.nv.shared.<k>`
//!   sizes include it.
//! - All relocations are `Elf64_Rela`, their sections kernel by kernel (code, then bank 2)
//!   before the module's; ptxas keeps an empty `.rela.text.<k>` when it resolved the
//!   kernel's relocations itself (shared-memory references, calls), an empty
//!   `.rela.nv.constant2.<k>` for the `brx.idx` jump tables it puts in bank 2 (whose section
//!   symbol is `.nv.constant.optimizer.<k>`), and an empty `.rela.nv.global.init` when it
//!   resolved function addresses in initialisers.
//! - No `.nv.rel.action`; `.text.<k>` `sh_info` holds only the symbol index (the register
//!   count is in `.nv.info` alone); `.nv.constant0.<k>` sections and their section symbols
//!   come last (so local symbols follow global ones; `.symtab` `sh_info` is the last local
//!   index + 1); a NOBITS `.nv.shared.reserved.0` follows the first kernel's shared memory,
//!   with the weak symbols `.nv.reservedSmem.offset0` (undefined object, size 4) and
//!   `__nv_reservedSMEM_offset_0_alias` (`st_other` 0xa0, in `.nv.shared.reserved.0`).
//! - The string tables hold the names in header and symbol order (no dropped names), the
//!   section names followed by 14 zero bytes.
//! - Program headers: PHDR (R), LOAD (R) over the header table, then one LOAD per run of
//!   allocated sections with equal permissions, in section order. The section header table
//!   follows the last section's bytes 4-aligned (8-aligned before).
//! - The code padding starts with a differently encoded `BRA` to itself.
//! - `EIATTR_CTAIDZ_USED` is not written; `.nv.info`'s `MIN_STACK_SIZE` records follow the
//!   kernel symbol order; an undefined symbol follows the first kernel referring to it.
//!   (Probes show ptxas does the last two for sm_75 too; the sm_75 layout is kept as it was.)

use super::eiattr::id;
use super::model::NvInfoAttr;
use super::text::{BRA_SELF, BRA_SELF_SM90};

/// A `.nv.info.<k>` record ptxas writes with a fixed value in every kernel of a family.
/// A record with the same id in `KernelImage::other_attrs` replaces it.
#[derive(Debug, Clone, Copy)]
pub struct Constant {
    /// Attribute id.
    pub id: u8,
    /// Format and value.
    pub value: Value,
    /// Only written in the V8 flavour (CUDA 11's V7 files lack it).
    pub v8_only: bool,
}

/// The value of a [`Constant`].
#[derive(Debug, Clone, Copy)]
pub enum Value {
    /// `EIFMT_BVAL`.
    Byte(u8),
    /// `EIFMT_HVAL`.
    Half(u16),
    /// `EIFMT_SVAL` words.
    Words(&'static [u32]),
}

impl Constant {
    /// The record.
    pub fn record(&self) -> NvInfoAttr {
        match self.value {
            Value::Byte(v) => NvInfoAttr::bval(self.id, v),
            Value::Half(v) => NvInfoAttr::hval(self.id, v),
            Value::Words(w) => NvInfoAttr::words(self.id, w),
        }
    }
}

/// Section groups, in the order a family writes them (see `write/sections.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SectionGroup {
    /// `.shstrtab`, `.strtab`, `.symtab`.
    Tables,
    /// `.debug_frame`.
    DebugFrame,
    /// Sections kept verbatim (line tables, ...).
    Extra,
    /// `.note.nv.tkinfo`, `.note.nv.cuinfo` (V8).
    Notes,
    /// `.nv.info`.
    ModuleInfo,
    /// `.nv.compat`.
    Compat,
    /// `.nv.info.<k>`.
    KernelInfo,
    /// `.nv.callgraph` (V8).
    Callgraph,
    /// `.nv.rel.action`.
    RelAction,
    /// `.rel*` / `.rela*`, in the family's [`RelocTarget`] order.
    Relocations,
    /// `.nv.constant4`.
    Bank4,
    /// `.nv.constant3`.
    Bank3,
    /// Per kernel `.nv.constant2.<k>` then `.nv.constant0.<k>`.
    KernelBanks,
    /// Per kernel `.nv.constant2.<k>`.
    Bank2,
    /// `.text.<k>`.
    Text,
    /// `.nv.global.init`, shared memory, `.nv.global`.
    Data,
    /// Per kernel `.nv.constant0.<k>`.
    Bank0,
}

/// Relocation targets, in the order a family writes their relocation sections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RelocTarget {
    /// Per kernel: `.text.<k>`, `.nv.constant0.<k>`, `.nv.constant2.<k>`.
    Kernels,
    /// Sections kept verbatim.
    Extra,
    /// `.text.<k>`.
    Text,
    /// `.nv.constant0.<k>`.
    Bank0,
    /// `.nv.constant2.<k>`.
    Bank2,
    /// `.nv.constant4`.
    Bank4,
    /// `.nv.constant3`.
    Bank3,
    /// `.nv.global.init`.
    GlobalInit,
    /// `.debug_frame`.
    DebugFrame,
}

/// How ptxas 13.5 lays out the cubins of a group of architectures.
#[derive(Debug)]
pub struct Family {
    /// Byte offset of the first kernel parameter in constant bank 0.
    pub param_base: u32,
    /// Bytes of shared memory ptxas reserves at the start of every kernel's shared window
    /// (included in `.nv.shared.<k>` sizes).
    pub reserved_shared: u32,
    /// `.nv.info.<k>` records with a fixed value (also the module-level 0x5f record of
    /// modules without kernels).
    pub kernel_constants: &'static [Constant],
    /// `.nv.info.<k>` record order. Records the writer derives from the model are written
    /// only if listed; verbatim records (`other_attrs`) not listed go last.
    pub kernel_attr_order: &'static [u8],
    /// Section groups in header order.
    pub sections: &'static [SectionGroup],
    /// Relocation sections in header order.
    pub reloc_targets: &'static [RelocTarget],
    /// Every relocation is an `Elf64_Rela`, and ptxas keeps empty relocation sections for
    /// relocations it resolved.
    pub rela_only: bool,
    /// `.text.<k>` `sh_info` bits 24–31 hold the register count.
    pub regcount_in_text_info: bool,
    /// `.nv.rel.action` is written even when the model has no actions.
    pub rel_action_always: bool,
    /// `.nv.shared.reserved.0` and the reserved shared-memory symbols exist.
    pub reserved_smem: bool,
    /// Local symbols all precede the others (otherwise the `.nv.constant0.<k>` section
    /// symbols come last).
    pub locals_first: bool,
    /// The string tables list the names in final header and symbol order (otherwise ptxas'
    /// creation order with the names of dropped sections).
    pub final_order_strings: bool,
    /// Program headers: one LOAD per run of allocated sections with equal permissions
    /// (otherwise one R+X LOAD over all read-only ones, one R+W over the writable ones).
    pub segments_by_run: bool,
    /// Alignment of the section header table after the last section's bytes.
    pub header_table_align: u64,
    /// Name prefix of the `.nv.constant2.<k>` section symbols.
    pub bank2_symbol_prefix: &'static str,
    /// An undefined symbol follows the first kernel that refers to it (otherwise the first
    /// kernel).
    pub externs_with_first_user: bool,
    /// `.nv.info`'s `MIN_STACK_SIZE` records come in kernel symbol order (otherwise kernel
    /// order; the two differ when a local kernel follows a global one).
    pub min_stack_by_symbol: bool,
    /// The `BRA`-to-itself instruction that starts the code padding.
    pub bra_self: [u8; 16],
}

/// `EIATTR_LANGUAGE` value for PTX.
const LANGUAGE_PTX: &[u32] = &[3];

/// sm_75 (ptxas 13.5 and CUDA 11.1).
static TURING: Family = Family {
    param_base: 0x160,
    reserved_shared: 0,
    kernel_constants: &[
        constant(id::LANGUAGE, Value::Words(LANGUAGE_PTX), true),
        constant(id::SW_WAR, Value::Words(&[1]), false),
        constant(id::UNNAMED_5F, Value::Half(0), true),
    ],
    kernel_attr_order: &PRE_HOPPER_ORDER,
    sections: &PRE_HOPPER_SECTIONS,
    reloc_targets: &PRE_HOPPER_RELOCS,
    rela_only: false,
    regcount_in_text_info: true,
    rel_action_always: true,
    reserved_smem: false,
    locals_first: true,
    final_order_strings: false,
    segments_by_run: false,
    header_table_align: 8,
    bank2_symbol_prefix: ".nv.constant2.",
    externs_with_first_user: false,
    min_stack_by_symbol: false,
    bra_self: BRA_SELF,
};

/// sm_80, sm_86, sm_89: as sm_75 without `EIATTR_SW_WAR`.
static AMPERE: Family = Family {
    kernel_constants: &[
        constant(id::LANGUAGE, Value::Words(LANGUAGE_PTX), true),
        constant(id::UNNAMED_5F, Value::Half(0), true),
    ],
    ..TURING
};

/// sm_90 and sm_90a (and, unchecked, later SMs).
static HOPPER: Family = Family {
    param_base: 0x210,
    reserved_shared: 0x400,
    kernel_constants: &[
        constant(id::LANGUAGE, Value::Words(LANGUAGE_PTX), true),
        // 0x10 with `mma.sp` (put the record in `other_attrs`).
        constant(id::SPARSE_MMA_MASK, Value::Half(0), false),
        constant(id::UNNAMED_5F, Value::Half(0x101), true),
        constant(id::SW_WAR, Value::Words(&[8]), false),
        constant(id::NVSAL_SW_WAR, Value::Half(1), false),
        // 1 with `griddepcontrol.launch_dependents` (put the record in `other_attrs`).
        constant(id::PREEXIT_USED, Value::Byte(0), false),
    ],
    kernel_attr_order: &HOPPER_ORDER,
    sections: &[
        SectionGroup::Tables,
        SectionGroup::DebugFrame,
        SectionGroup::Extra,
        SectionGroup::Notes,
        SectionGroup::ModuleInfo,
        SectionGroup::Compat,
        SectionGroup::KernelInfo,
        SectionGroup::Callgraph,
        SectionGroup::RelAction,
        SectionGroup::Relocations,
        SectionGroup::Bank4,
        SectionGroup::Bank3,
        SectionGroup::Bank2,
        SectionGroup::Text,
        SectionGroup::Data,
        SectionGroup::Bank0,
    ],
    reloc_targets: &[
        RelocTarget::Kernels,
        RelocTarget::Extra,
        RelocTarget::Bank4,
        RelocTarget::Bank3,
        RelocTarget::GlobalInit,
        RelocTarget::DebugFrame,
    ],
    rela_only: true,
    regcount_in_text_info: false,
    rel_action_always: false,
    reserved_smem: true,
    locals_first: false,
    final_order_strings: true,
    segments_by_run: true,
    header_table_align: 4,
    bank2_symbol_prefix: ".nv.constant.optimizer.",
    externs_with_first_user: true,
    min_stack_by_symbol: true,
    bra_self: BRA_SELF_SM90,
};

const PRE_HOPPER_SECTIONS: [SectionGroup; 14] = [
    SectionGroup::Tables,
    SectionGroup::DebugFrame,
    SectionGroup::Extra,
    SectionGroup::Notes,
    SectionGroup::ModuleInfo,
    SectionGroup::KernelInfo,
    SectionGroup::Callgraph,
    SectionGroup::RelAction,
    SectionGroup::Relocations,
    SectionGroup::Bank4,
    SectionGroup::Bank3,
    SectionGroup::KernelBanks,
    SectionGroup::Text,
    SectionGroup::Data,
];

const PRE_HOPPER_RELOCS: [RelocTarget; 8] = [
    RelocTarget::Extra,
    RelocTarget::Text,
    RelocTarget::Bank0,
    RelocTarget::Bank2,
    RelocTarget::Bank4,
    RelocTarget::Bank3,
    RelocTarget::GlobalInit,
    RelocTarget::DebugFrame,
];

/// sm_75..sm_89 kernel record order (ptxas 13.5 and 11.1), as the writer has always used it.
/// Probes show ptxas itself puts `UNUSED_LOAD_BYTE_OFFSET` and `INT_WARP_WIDE_INSTR_OFFSETS`
/// before `COOP_GROUP_*`/`SYSCALL_OFFSETS`, and `REQNTID`/`MAX_THREADS` before
/// `CRS_STACK_SIZE` when a kernel has both; no test kernel has such pairs, and the order is
/// kept so that sm_75..sm_89 output does not change.
const PRE_HOPPER_ORDER: [u8; 22] = [
    id::LANGUAGE,
    id::SW_WAR,
    id::CUDA_API_VERSION,
    id::PARAM_CBANK,
    id::CBANK_PARAM_SIZE,
    id::KPARAM_INFO,
    id::MAXREG_COUNT,
    id::NUM_BARRIERS,
    id::BINDLESS_SURFACE_BANK,
    id::BINDLESS_TEXTURE_BANK,
    id::EXTERNS,
    id::UNNAMED_5F,
    id::COOP_GROUP_MASK_REGIDS,
    id::COOP_GROUP_INSTR_OFFSETS,
    id::INT_WARP_WIDE_INSTR_OFFSETS,
    id::SYSCALL_OFFSETS,
    id::UNUSED_LOAD_BYTE_OFFSET,
    id::EXIT_INSTR_OFFSETS,
    id::CTAIDZ_USED,
    id::CRS_STACK_SIZE,
    id::REQNTID,
    id::MAX_THREADS,
];

/// sm_90 kernel record order, established on the test kernels and on probes that combine
/// the attributes pairwise. Code-dependent records: cluster records (from `.maxclusterrank`,
/// `.explicitcluster`, `.reqnctapercluster`), `WMMA_USED` (`wmma.*`), `NUM_BARRIERS`
/// (`bar.sync`/`barrier.cluster`), `EXTERNS`, the instruction-offset lists, the mbarrier
/// records (`mbarrier.*`), `INDIRECT_BRANCH_TARGETS` (`brx.idx`), `REQNTID`/`MAX_THREADS`,
/// `CRS_STACK_SIZE`, the parameter records; `SPARSE_MMA_MASK` and `PREEXIT_USED` are constants
/// that code changes (see [`HOPPER`]'s constants). `CTAIDZ_USED` is not written for sm_90.
const HOPPER_ORDER: [u8; 29] = [
    id::LANGUAGE,
    id::CUDA_API_VERSION,
    id::KPARAM_INFO,
    id::MAX_CLUSTER_RANK,
    id::EXPLICIT_CLUSTER,
    id::CTA_PER_CLUSTER,
    id::SPARSE_MMA_MASK,
    id::WMMA_USED,
    id::MAXREG_COUNT,
    id::NUM_BARRIERS,
    id::EXTERNS,
    id::UNNAMED_5F,
    id::UNUSED_LOAD_BYTE_OFFSET,
    id::INT_WARP_WIDE_INSTR_OFFSETS,
    id::COOP_GROUP_MASK_REGIDS,
    id::COOP_GROUP_INSTR_OFFSETS,
    id::SYSCALL_OFFSETS,
    id::MBARRIER_INSTR_OFFSETS,
    id::NUM_MBARRIERS,
    id::EXIT_INSTR_OFFSETS,
    id::INDIRECT_BRANCH_TARGETS,
    id::REQNTID,
    id::MAX_THREADS,
    id::CRS_STACK_SIZE,
    id::CBANK_PARAM_SIZE,
    id::PARAM_CBANK,
    id::SW_WAR,
    id::NVSAL_SW_WAR,
    id::PREEXIT_USED,
];

const fn constant(id: u8, value: Value, v8_only: bool) -> Constant {
    Constant { id, value, v8_only }
}

/// The family of `sm`: sm_90 on is Hopper, sm_80..sm_89 Ampere, below Turing.
pub fn family(sm: u32) -> &'static Family {
    match sm {
        90.. => &HOPPER,
        80..=89 => &AMPERE,
        _ => &TURING,
    }
}

impl Family {
    /// The fixed-value record `id`, if the family has one.
    pub fn constant(&self, id: u8) -> Option<&Constant> {
        self.kernel_constants.iter().find(|c| c.id == id)
    }

    /// Position of `id` in the kernel record order (unlisted: last).
    pub fn kernel_rank(&self, id: u8) -> usize {
        self.kernel_attr_order
            .iter()
            .position(|&a| a == id)
            .unwrap_or(usize::MAX)
    }

    /// Whether `record` is the family's fixed-value record (same id, format and value).
    pub fn is_constant(&self, record: &NvInfoAttr) -> bool {
        self.constant(record.id).is_some_and(|c| c.record() == *record)
    }
}
