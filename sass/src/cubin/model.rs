//! The in-memory form of a cubin: what [`super::read`] returns and [`super::write`] takes.
//!
//! Everything a file holds is either a field here or derived from the fields by a fixed rule
//! (documented on the writer). Orders matter: kernels, globals, functions and relocations are
//! written in `Vec` order.

use super::family::family;
use super::reloc::Reloc;

/// Default toolkit version written into cubins: 13.5, the ptxas release whose output we mirror.
pub const DEFAULT_TOOLKIT_VERSION: u32 = 135;

/// Byte offset of the first kernel parameter in constant bank 0 for sm_75..sm_89
/// (`c[0x0][0x160]`); [`param_base`] gives it for every SM.
pub const PARAM_BASE: u32 = 0x160;

/// Byte offset of the first kernel parameter in constant bank 0 on `sm`, as ptxas 13.5 lays
/// out `.nv.constant0.<k>` and `EIATTR_PARAM_CBANK`: 0x160 up to sm_89, 0x210 from sm_90.
pub fn param_base(sm: u32) -> u32 {
    family(sm).param_base
}

/// Bytes of shared memory ptxas 13.5 reserves at the start of every kernel's shared window
/// on `sm`: 0 up to sm_89, 0x400 (1 KiB) from sm_90, where user variables start at 0x400.
/// [`KernelImage::shared_size`] includes them; the writer adds nothing.
pub fn reserved_shared(sm: u32) -> u32 {
    family(sm).reserved_shared
}

/// The two CUDA ELF layouts.
///
/// The writer defaults to **V8**, not V7: the CUDA 13.5 tools (`nvdisasm`, `cuobjdump -sass`)
/// print "Disassembling Std Elf to Old format or Old Elf to Std format not supported yet,
/// switching to Old format" and "Dataflow analysis disabled due to previous warnings" for every
/// V7 file (OSABI 0x33), including ptxas 11.1's own output, and no V7 variant avoids it, while
/// V8 files are accepted silently. V7 remains available for older drivers (CUDA <= 12), which
/// load V7 but whose support for V8 could not be tested here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ElfFlavour {
    /// "Old ELF": OSABI 0x33, ABI version 7, e_flags `sm | 0x500 | sm << 16`, no notes, no
    /// call graph, barrier count in the `.text` section flags. Written by CUDA <= 12.
    V7,
    /// "Std ELF": OSABI 0x41, ABI version 8, e_flags `0x06000004 | sm << 8`, `.note.nv.*`
    /// notes, `SHF_INFO_LINK` flags, barrier count in `.nv.info`. Written by ptxas 13.x.
    #[default]
    V8,
}

/// The ELF file type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ObjectKind {
    /// `ET_EXEC`: a loadable cubin (what `ptxas` writes by default). The only kind we write.
    #[default]
    Executable,
    /// `ET_REL`: a relocatable cubin (`ptxas -c`), for `nvlink`. Read only.
    Relocatable,
}

/// ELF symbol binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Binding {
    /// `STB_LOCAL`: not visible outside the module (`.entry` without `.visible`, `$str`, ...).
    Local,
    /// `STB_GLOBAL`: `.visible` / `.extern`.
    #[default]
    Global,
    /// `STB_WEAK`: `.weak`.
    Weak,
}

/// The `.note.nv.tkinfo` contents (V8 only): which tool wrote the file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ToolInfo {
    /// Object file name (ptxas leaves it empty).
    pub object_name: String,
    /// Tool name, e.g. "ptxas".
    pub tool_name: String,
    /// Tool version, e.g. "Cuda compilation tools, release 13.5, V13.5.37".
    pub tool_version: String,
    /// Build branch, e.g. "Build cuda_13.5.r13.5/compiler.39125733_0".
    pub tool_branch: String,
    /// Command-line options, e.g. "-O 3 -arch sm_75 ".
    pub tool_options: String,
}

impl Default for ToolInfo {
    fn default() -> Self {
        ToolInfo {
            object_name: String::new(),
            tool_name: "ptxc".into(),
            tool_version: concat!("ptxc ", env!("CARGO_PKG_VERSION")).into(),
            tool_branch: String::new(),
            tool_options: "-arch sm_75 ".into(),
        }
    }
}

/// A whole cubin.
#[derive(Debug, Clone, PartialEq)]
pub struct CubinModule {
    /// Target SM, e.g. 75 (90 for sm_90 and sm_90a).
    pub sm: u32,
    /// The architecture-specific target (sm_90a). ptxas 13.5 marks it only in `.nv.compat`
    /// (`EICOMPAT_ATTR_CUDA_ACCELERATOR_TARGET` 1) and in the tool options of
    /// `.note.nv.tkinfo`; `e_flags` are those of sm_90.
    pub arch_specific: bool,
    /// The PTX `.target` the code was compiled from (e.g. 30 for `.target sm_30`): written in
    /// `.note.nv.cuinfo` (V8) and in `e_flags` bits 16–23 (V7).
    pub virtual_sm: u32,
    /// ELF layout to write; the layout found when reading.
    pub flavour: ElfFlavour,
    /// `ET_EXEC` or `ET_REL`.
    pub kind: ObjectKind,
    /// `EI_ABIVERSION` when it is not the flavour's usual one (7 or 8): ptxas writes 2 when
    /// it disabled the calling ABI ("multiple return values found, disabling ABI").
    pub abi_version: Option<u8>,
    /// Toolkit version ×10 (+ minor): 135 = 13.5. Written as `EIATTR_CUDA_API_VERSION`, in
    /// `.note.nv.cuinfo` (V8) and as `e_version` (V7).
    pub toolkit_version: u32,
    /// `.note.nv.tkinfo` (V8).
    pub tool: ToolInfo,
    /// `.nv.compat` (sm_90 on): what the code needs from the driver.
    pub compat: CompatInfo,
    /// Kernels (and, in relocatable files, device functions with their own section), in
    /// section order. ptxas lists them in reverse PTX order.
    pub kernels: Vec<KernelImage>,
    /// Module-scope variables of the `.global` and `.const` spaces, in symbol-table order.
    pub globals: Vec<GlobalVar>,
    /// `.nv.constant3` contents: user `.const` data (the variables are in `globals`).
    pub const_bank3: Vec<u8>,
    /// `.rel.nv.constant3`: addresses patched into `.const` initialisers.
    pub const_bank3_relocs: Vec<Reloc>,
    /// `.nv.constant4` contents: the 64-bit addresses of globals that the code loads from
    /// `c[0x4][..]`, filled in by `const_bank4_relocs`.
    pub const_bank4: Vec<u8>,
    /// `.rel.nv.constant4`: one `R_CUDA_64` per address slot of `const_bank4`.
    pub const_bank4_relocs: Vec<Reloc>,
    /// `.rel.nv.global.init`: addresses patched into `.global` initialisers.
    pub global_init_relocs: Vec<Reloc>,
    /// ptxas resolved relocations in `.nv.global.init` itself (addresses of the module's
    /// functions in initialisers): for sm_90 it keeps an empty `.rela.nv.global.init`.
    pub resolved_global_init_relocs: bool,
    /// Undefined symbols (`vprintf`, `__assertfail`, texture references, ...).
    pub externs: Vec<ExternSymbol>,
    /// `.debug_frame` and its relocations; `None` makes the writer generate one FDE per
    /// kernel without call-frame instructions.
    pub debug_frame: Option<RawSection>,
    /// Other sections kept verbatim, with their relocations: line tables (`.debug_line`,
    /// `.nv_debug_line_sass`, `.nv_debug_ptx_txt`) and anything the reader does not model.
    pub extra_sections: Vec<RawSection>,
    /// `.nv.rel.action` contents (relocation action table). Up to sm_89 the section is always
    /// written; from sm_90 on (where ptxas writes none) only when this is not empty.
    pub reloc_actions: Vec<u8>,
    /// `.nv.info` records the model has no field for, written after the known ones.
    pub other_module_attrs: Vec<NvInfoAttr>,
    /// Section, symbol and string order recorded by the reader so that a rewrite reproduces
    /// the input exactly. `None` (the default) uses the writer's own order, which is ptxas'
    /// order for modules without module-scope data shared by several kernels.
    pub layout: Option<LayoutHints>,
}

impl CubinModule {
    /// The architecture of the code, if ptxc knows its SM number.
    pub fn arch(&self) -> Option<crate::isa::Arch> {
        crate::isa::Arch::from_sm(self.sm, self.arch_specific)
    }

    /// An empty module for `arch` (sm_90a sets [`CubinModule::arch_specific`]).
    pub fn for_arch(arch: crate::isa::Arch) -> Self {
        let mut m = CubinModule::new(arch.sm());
        m.arch_specific = arch == crate::isa::Arch::Sm90a;
        m
    }
}

/// ptxas 13.5's `.nv.rel.action` table: one action for `R_CUDA_CONST_FIELD22_37`.
pub const PTXAS_RELOC_ACTIONS: [u8; 16] = [0x73, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x11, 0x25, 0x00, 0x05, 0x36];

impl CubinModule {
    /// An empty module for `sm`, in the default flavour, with ptxas 13.5 conventions (no
    /// `.nv.rel.action` table from sm_90 on).
    pub fn new(sm: u32) -> Self {
        let reloc_actions = if family(sm).rel_action_always {
            PTXAS_RELOC_ACTIONS.to_vec()
        } else {
            Vec::new()
        };
        CubinModule {
            sm,
            arch_specific: false,
            virtual_sm: sm,
            flavour: ElfFlavour::default(),
            kind: ObjectKind::Executable,
            abi_version: None,
            toolkit_version: DEFAULT_TOOLKIT_VERSION,
            tool: ToolInfo::default(),
            compat: CompatInfo::default(),
            kernels: Vec::new(),
            globals: Vec::new(),
            const_bank3: Vec::new(),
            const_bank3_relocs: Vec::new(),
            const_bank4: Vec::new(),
            const_bank4_relocs: Vec::new(),
            global_init_relocs: Vec::new(),
            resolved_global_init_relocs: false,
            externs: Vec::new(),
            debug_frame: None,
            extra_sections: Vec::new(),
            reloc_actions,
            other_module_attrs: Vec::new(),
            layout: None,
        }
    }

    /// The kernel called `name`.
    pub fn kernel(&self, name: &str) -> Option<&KernelImage> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// The module variable called `name`.
    pub fn global(&self, name: &str) -> Option<&GlobalVar> {
        self.globals.iter().find(|g| g.name == name)
    }
}

/// One kernel: its `.text.<name>` section and everything attached to it.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelImage {
    /// Symbol name (the PTX name, mangled as in the PTX).
    pub name: String,
    /// `true` for an `.entry` (symbol flag `STO_CUDA_ENTRY`); `false` only for device functions
    /// that a relocatable file keeps in their own section.
    pub entry: bool,
    /// Symbol binding: `Global` for `.visible .entry`, `Local` for a plain `.entry`.
    pub binding: Binding,
    /// The whole `.text.<name>` section as stored, including the `BRA`-self/`NOP` padding.
    pub code: Vec<u8>,
    /// Parameters (`EIATTR_KPARAM_INFO`), by ascending ordinal.
    pub params: Vec<KernelParam>,
    /// Bytes of parameters (`EIATTR_CBANK_PARAM_SIZE`).
    pub param_size: u32,
    /// Size of `.nv.constant0.<name>` when it is not `param_base(sm) + param_size` (CUDA 11
    /// put texture and surface descriptors after the parameters).
    pub const_bank0_size: Option<u32>,
    /// Registers per thread, as stored (`.text` `sh_info` bits 24–31 up to sm_89, and
    /// `EIATTR_REGCOUNT`).
    pub reg_count: u32,
    /// Bytes of static shared memory (`.nv.shared.<name>` size), as the producer lays it out.
    /// From sm_90 on this includes the [`reserved_shared`] bytes ptxas reserves at the start
    /// of the window (user variables start at 0x400), and ptxas writes the section, of at
    /// least 0x400 bytes, for every kernel with static or dynamic shared memory (a
    /// module-scope `.extern .shared` gives every kernel one): a kernel with only dynamic
    /// shared memory has `shared_size` 0x400.
    pub shared_size: u32,
    /// Alignment of `.nv.shared.<name>` (16 when the module declares `.extern .shared`).
    pub shared_align: u32,
    /// The module declares dynamic shared memory: ptxas then gives every kernel a
    /// `.nv.shared.<name>` section (size 0 when it has no static shared memory, align 16).
    /// When reading, set when the section exists with alignment 16.
    pub uses_dynamic_shared: bool,
    /// Bytes of local memory per thread (`EIATTR_FRAME_SIZE`).
    pub frame_size: u32,
    /// `EIATTR_MIN_STACK_SIZE`; `None` omits the record (relocatable files).
    pub min_stack_size: Option<u32>,
    /// `EIATTR_MAX_STACK_SIZE`, written by CUDA 11 (V7) and relocatable files only.
    pub max_stack_size: Option<u32>,
    /// `.maxntid` (`EIATTR_MAX_THREADS`).
    pub max_ntid: Option<[u32; 3]>,
    /// `.reqntid` (`EIATTR_REQNTID`).
    pub req_ntid: Option<[u32; 3]>,
    /// `EIATTR_MAXREG_COUNT`: ptxas writes 0xff without `.maxnreg`; `None` omits the record.
    pub max_reg_count: Option<u32>,
    /// Named barriers used: highest barrier id + 1 (`EIATTR_NUM_BARRIERS` in V8, `.text`
    /// flags bits 20–26 in V7).
    pub num_barriers: u32,
    /// Byte offsets of every `EXIT` (`EIATTR_EXIT_INSTR_OFFSETS`).
    pub exit_offsets: Vec<u32>,
    /// Byte offsets of `SHFL`/warp-sync instructions (`EIATTR_COOP_GROUP_INSTR_OFFSETS`).
    pub coop_group_offsets: Vec<u32>,
    /// `EIATTR_COOP_GROUP_MASK_REGIDS`: ptxas writes one `0xffffffff` per entry of
    /// `coop_group_offsets`.
    pub coop_group_mask_regids: Vec<u32>,
    /// Byte offsets of warp-wide integer instructions (`EIATTR_INT_WARP_WIDE_INSTR_OFFSETS`).
    pub int_warp_wide_offsets: Vec<u32>,
    /// Byte offsets of system calls, e.g. `vprintf` (`EIATTR_SYSCALL_OFFSETS`).
    pub syscall_offsets: Vec<u32>,
    /// Loads of several registers some of which are never read
    /// (`EIATTR_UNUSED_LOAD_BYTE_OFFSET`): byte offset and mask of the used bytes, 4 bits per
    /// register.
    pub unused_load_bytes: Vec<[u32; 2]>,
    /// `SR_CTAID.Z` is read (`EIATTR_CTAIDZ_USED`; ptxas 13.5 writes the record up to sm_89
    /// only).
    pub ctaid_z_used: bool,
    /// The code addresses shared memory. For sm_90 ptxas resolves the relocations of these
    /// accesses itself: it keeps an empty `.rela.text.<name>` (as for kernels with
    /// functions), and after the first such kernel's symbol a nameless local symbol (its
    /// dropped `.nv.reservedSmem.cap`). Not written before sm_90, and read from sm_90 files
    /// only.
    pub uses_shared_memory: bool,
    /// `.reqnctapercluster` (`EIATTR_CTA_PER_CLUSTER`, sm_90).
    pub cluster_dims: Option<[u32; 3]>,
    /// `.maxclusterrank` (`EIATTR_MAX_CLUSTER_RANK`, sm_90).
    pub max_cluster_rank: Option<u32>,
    /// `.explicitcluster` (`EIATTR_EXPLICIT_CLUSTER`, sm_90).
    pub explicit_cluster: bool,
    /// `EIATTR_CRS_STACK_SIZE` (0 when the code has a convergence barrier, `WARPSYNC`, a
    /// subroutine call or a divergent loop).
    pub crs_stack_size: Option<u32>,
    /// Undefined symbols the kernel refers to (`EIATTR_EXTERNS`); calls to the functions among
    /// them also make the V8 `.nv.callgraph` edges.
    pub externs: Vec<String>,
    /// Relocations against the code (`.rel.text.<name>` / `.rela.text.<name>`).
    pub relocs: Vec<Reloc>,
    /// `.nv.constant2.<name>`: per-kernel constants ptxas placed in bank 2 (empty: none).
    pub const_bank2: Vec<u8>,
    /// `.rel.nv.constant0.<name>`: e.g. texture header indices (CUDA 11).
    pub const_bank0_relocs: Vec<Reloc>,
    /// Relocations against `.nv.constant2.<name>`.
    pub const_bank2_relocs: Vec<Reloc>,
    /// Other function symbols inside this section (called device functions), symbol order.
    pub functions: Vec<DeviceFunction>,
    /// `.nv.info.<name>` records the model has no field for, placed by the family's record
    /// order (unlisted ones last). A record with the id of one the family writes with a
    /// fixed value (e.g. sm_90's `EIATTR_PREEXIT_USED` 0, which is 1 when the code uses
    /// `griddepcontrol.launch_dependents`, or `EIATTR_SPARSE_MMA_MASK` 0, 0x10 with
    /// `mma.sp`) replaces that record.
    pub other_attrs: Vec<NvInfoAttr>,
}

impl KernelImage {
    /// A visible `.entry` with `code`, ptxas' defaults and no parameters.
    pub fn new(name: impl Into<String>, code: Vec<u8>) -> Self {
        KernelImage {
            name: name.into(),
            entry: true,
            binding: Binding::Global,
            code,
            params: Vec::new(),
            param_size: 0,
            const_bank0_size: None,
            reg_count: 0,
            shared_size: 0,
            shared_align: 4,
            uses_dynamic_shared: false,
            frame_size: 0,
            min_stack_size: Some(0),
            max_stack_size: None,
            max_ntid: None,
            req_ntid: None,
            max_reg_count: Some(0xff),
            num_barriers: 0,
            exit_offsets: Vec::new(),
            coop_group_offsets: Vec::new(),
            coop_group_mask_regids: Vec::new(),
            int_warp_wide_offsets: Vec::new(),
            syscall_offsets: Vec::new(),
            unused_load_bytes: Vec::new(),
            ctaid_z_used: false,
            uses_shared_memory: false,
            cluster_dims: None,
            max_cluster_rank: None,
            explicit_cluster: false,
            crs_stack_size: None,
            externs: Vec::new(),
            relocs: Vec::new(),
            const_bank2: Vec::new(),
            const_bank0_relocs: Vec::new(),
            const_bank2_relocs: Vec::new(),
            functions: Vec::new(),
            other_attrs: Vec::new(),
        }
    }

    /// Whether the kernel has a `.nv.shared.<name>` section.
    pub fn has_shared_section(&self) -> bool {
        self.shared_size > 0 || self.uses_dynamic_shared
    }
}

/// One kernel parameter (`EIATTR_KPARAM_INFO`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KernelParam {
    /// Position in the PTX parameter list.
    pub ordinal: u32,
    /// Byte offset from the start of the parameters (`c[0x0][param_base(sm)]`).
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
    /// Info word bits 0–7: log2 alignment of the pointee (0 in ptxas output).
    pub pointee_log_align: u8,
    /// Info word bits 8–11: address space of the pointee (0 in ptxas output).
    pub space: u8,
    /// Info word bits 12–16: constant bank (0x1f in ptxas output).
    pub cbank: u8,
    /// Info word bit 17: passed in shared memory instead of a constant bank.
    pub in_shared_memory: bool,
}

impl KernelParam {
    /// A parameter as ptxas describes it: constant bank 0x1f, no pointee information.
    pub fn new(ordinal: u32, offset: u32, size: u32) -> Self {
        KernelParam {
            ordinal,
            offset,
            size,
            pointee_log_align: 0,
            space: 0,
            cbank: 0x1f,
            in_shared_memory: false,
        }
    }
}

/// A non-entry function symbol inside a kernel's text section.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DeviceFunction {
    /// Symbol name.
    pub name: String,
    /// Binding: ptxas uses `Local` for internal functions, `Global`/`Weak` for visible ones.
    pub binding: Binding,
    /// Byte offset in the kernel's code.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
    /// `EIATTR_FRAME_SIZE` for this function in `.nv.info`; `None` omits the record.
    pub frame_size: Option<u32>,
    /// `EIATTR_MIN_STACK_SIZE` for this function (V7 / CUDA 11 only).
    pub min_stack_size: Option<u32>,
    /// `EIATTR_MAX_STACK_SIZE` for this function (V7 / CUDA 11 only).
    pub max_stack_size: Option<u32>,
}

/// The state space of a module variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GlobalSpace {
    /// `.global`: `.nv.global.init` when initialised, `.nv.global` (NOBITS) otherwise.
    Global,
    /// `.const`: constant bank 3; the bytes live in [`CubinModule::const_bank3`].
    Const,
}

/// A module-scope variable.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GlobalVar {
    /// Symbol name.
    pub name: String,
    /// State space.
    pub space: GlobalSpace,
    /// Byte offset in its section (bank 3 offset for `.const`, as used by the code).
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
    /// Alignment; the section gets the largest alignment of its variables. The reader can only
    /// infer it (largest power of two dividing the offset, at most the section's alignment).
    pub align: u32,
    /// Initial bytes of a `.global` variable (`None`: zero-initialised, in `.nv.global`).
    /// Always `None` for `.const` variables.
    pub init: Option<Vec<u8>>,
    /// Symbol binding.
    pub binding: Binding,
}

/// Symbol type of an undefined symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SymbolKind {
    /// `STT_NOTYPE`.
    NoType,
    /// `STT_OBJECT`.
    Object,
    /// `STT_FUNC`.
    Function,
    /// Any other `st_type` (CUDA uses 10 for texture and 12 for surface references).
    Other(u8),
}

/// An undefined symbol.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ExternSymbol {
    /// Symbol name.
    pub name: String,
    /// Symbol type.
    pub kind: SymbolKind,
    /// Symbol binding.
    pub binding: Binding,
}

/// A section kept as bytes, with relocations written to `.rel<name>` / `.rela<name>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RawSection {
    /// Section name.
    pub name: String,
    /// `sh_type`.
    pub sh_type: u32,
    /// `sh_flags`.
    pub flags: u64,
    /// `sh_addralign`.
    pub align: u64,
    /// `sh_link` (only meaningful for unusual sections; 0 for debug sections).
    pub link: u32,
    /// `sh_info`.
    pub info: u32,
    /// `sh_entsize`.
    pub entsize: u64,
    /// Contents.
    pub data: Vec<u8>,
    /// Relocations against the contents.
    pub relocs: Vec<Reloc>,
}

impl RawSection {
    /// A `PROGBITS` section without flags, byte aligned (how ptxas writes debug sections).
    pub fn progbits(name: impl Into<String>, data: Vec<u8>) -> Self {
        RawSection {
            name: name.into(),
            sh_type: 1,
            flags: 0,
            align: 1,
            link: 0,
            info: 0,
            entsize: 0,
            data,
            relocs: Vec::new(),
        }
    }
}

/// `.nv.compat` (sm_90 on): `EICOMPAT` records in the `.nv.info` record format. The writer
/// derives the accelerator target from [`CubinModule::arch_specific`] and writes ptxas 13.5's
/// constants for the others (internal target 0, unnamed attribute 13 = 0x101, fast-path
/// finalisation 0 0, finalizer version 1.1.0).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CompatInfo {
    /// `EICOMPAT_ATTR_ISA_CLASS`: 1, or 2 when the code uses bulk asynchronous copies
    /// (`cp.async.bulk*`, tensor copies included).
    pub isa_class: u8,
    /// `EICOMPAT_ATTR_INST_TENSORMAP_V1`: 0; 1 when the code uses tensor maps
    /// (`cp.async.bulk.tensor`, `prefetch.tensormap`); 2 with `tensormap.replace` (sm_90a).
    pub tensormap: u8,
    /// Records kept verbatim: one with the id of a record the writer derives replaces it,
    /// others go last. The reader keeps here what differs from the derived records.
    pub other: Vec<NvInfoAttr>,
}

impl Default for CompatInfo {
    fn default() -> Self {
        CompatInfo {
            isa_class: 1,
            tensormap: 0,
            other: Vec::new(),
        }
    }
}

/// One `.nv.info` record kept as it was read.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NvInfoAttr {
    /// Attribute id (`EIATTR_*`).
    pub id: u8,
    /// Format byte (`EIFMT_*`: 1 none, 2 byte, 3 half, 4 sized payload).
    pub format: u8,
    /// The 16-bit value (formats 1–3) or the payload size (format 4, recomputed on write).
    pub value: u16,
    /// Payload (format 4).
    pub payload: Vec<u8>,
}

/// Orders recorded from an input file. The writer puts sections, symbols and strings it
/// finds here in this order (anything else after them), so that reading and writing a cubin
/// gives it back byte for byte, including ptxas' unused names in its string tables.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct LayoutHints {
    /// Section names in section-header order (index 0 excluded).
    pub section_order: Vec<String>,
    /// Symbol names in symbol-table order (index 0 excluded).
    pub symbol_order: Vec<String>,
    /// `.shstrtab` strings in order.
    pub shstrtab: Vec<String>,
    /// `.strtab` strings in order.
    pub strtab: Vec<String>,
}
