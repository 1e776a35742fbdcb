//! Section names and section-type constants of CUDA ELF files.

/// `.shstrtab`.
pub const SHSTRTAB: &str = ".shstrtab";
/// `.strtab`.
pub const STRTAB: &str = ".strtab";
/// `.symtab`.
pub const SYMTAB: &str = ".symtab";
/// `.debug_frame`.
pub const DEBUG_FRAME: &str = ".debug_frame";
/// Module attributes.
pub const NV_INFO: &str = ".nv.info";
/// Call graph (V8).
pub const CALLGRAPH: &str = ".nv.callgraph";
/// Relocation action table.
pub const REL_ACTION: &str = ".nv.rel.action";
/// Constant bank 3: user `.const` data.
pub const CONSTANT3: &str = ".nv.constant3";
/// Constant bank 4: addresses of globals.
pub const CONSTANT4: &str = ".nv.constant4";
/// Initialised `.global` data.
pub const GLOBAL_INIT: &str = ".nv.global.init";
/// Zero-initialised `.global` data (NOBITS).
pub const GLOBAL: &str = ".nv.global";
/// The shared memory ptxas reserves in every kernel's window (sm_90; NOBITS, size 0).
pub const RESERVED_SHARED: &str = ".nv.shared.reserved.0";
/// Undefined weak object (size 4) naming the reserved shared memory's offset (sm_90).
pub const RESERVED_SMEM_OFFSET: &str = ".nv.reservedSmem.offset0";
/// Weak symbol in [`RESERVED_SHARED`] (sm_90).
pub const RESERVED_SMEM_ALIAS: &str = "__nv_reservedSMEM_offset_0_alias";
/// The name ptxas leaves in `.strtab` for the nameless local symbol that follows the first
/// kernel addressing shared memory (sm_90; the symbol's `st_name` is 0, `st_other`
/// `STV_INTERNAL`). The reader gives that symbol this name.
pub const RESERVED_SMEM_CAP: &str = ".nv.reservedSmem.cap";

/// Prefix of kernel code sections.
pub const TEXT_PREFIX: &str = ".text.";
/// Prefix of kernel attribute sections.
pub const INFO_PREFIX: &str = ".nv.info.";
/// Prefix of kernel constant bank 0 (parameters).
pub const CONSTANT0_PREFIX: &str = ".nv.constant0.";
/// Prefix of kernel constant bank 2 (compiler constants).
pub const CONSTANT2_PREFIX: &str = ".nv.constant2.";
/// Prefix of kernel shared memory (NOBITS).
pub const SHARED_PREFIX: &str = ".nv.shared.";

/// `SHT_CUDA_INFO`: `.nv.info*`.
pub const SHT_CUDA_INFO: u32 = 0x7000_0000;
/// `SHT_CUDA_CALLGRAPH`: `.nv.callgraph`.
pub const SHT_CUDA_CALLGRAPH: u32 = 0x7000_0001;
/// `SHT_CUDA_RELOCINFO`: `.nv.rel.action`.
pub const SHT_CUDA_RELOCINFO: u32 = 0x7000_000b;
/// `SHF_INFO_LINK`: `sh_info` holds a section index (set on V8 `.nv.info.*`, `.rel*`).
pub const SHF_INFO_LINK: u64 = 0x40;
/// Flags of `.note.nv.tkinfo`.
pub const TKINFO_FLAGS: u64 = 0x200_0000;
/// Flags of `.note.nv.cuinfo`.
pub const CUINFO_FLAGS: u64 = 0x100_0000;
/// `STO_CUDA_ENTRY`: `st_other` flag of kernel symbols.
pub const STO_CUDA_ENTRY: u8 = 0x10;
/// `st_other` of [`RESERVED_SMEM_ALIAS`] (cuobjdump: `RESERVED_SHARED`).
pub const STO_RESERVED_SHARED: u8 = 0xa0;
/// `STV_INTERNAL`: `st_other` of the [`RESERVED_SMEM_CAP`] symbol.
pub const STV_INTERNAL: u8 = 1;

/// `<prefix><kernel>`.
pub fn kernel_section(prefix: &str, kernel: &str) -> String {
    format!("{prefix}{kernel}")
}

/// The relocation section for `target`: `.rel<target>` or `.rela<target>`.
pub fn reloc_section(target: &str, with_addends: bool) -> String {
    if with_addends {
        format!(".rela{target}")
    } else {
        format!(".rel{target}")
    }
}
