//! The back end's driver: MIR kernel to encoded SASS, and a module of kernels to a cubin.

use crate::emit::layout::Assembled;
use crate::emit::{EmitError, emit};
use crate::isel::{IselError, select};
use crate::regalloc::{AllocError, allocate};
use crate::sched::assign_control;
use crate::vars::{KernelVars, ModuleVars};
use ptxc_mir::analysis::spin_loops::CalleeSpin;
use ptxc_mir::ir::{Function, Module};
use ptxc_sass::cubin::{self, CubinModule, ElfFlavour, KernelImage, KernelParam};
use ptxc_sass::isa::Arch;
use ptxc_sass::isa::EncodeError;

/// A back-end failure.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BackendError {
    /// Instruction selection.
    #[error("{0}")]
    Isel(#[from] IselError),
    /// Register allocation.
    #[error("{0}")]
    Alloc(#[from] AllocError),
    /// Emission.
    #[error("{0}")]
    Emit(#[from] EmitError),
    /// Encoding (a back-end bug: an instruction the ISA description cannot encode).
    #[error("encoding: {0}")]
    Encode(#[from] EncodeError),
    /// Invalid options.
    #[error("{0}")]
    Options(String),
    /// Variables that cannot be laid out.
    #[error("{0}")]
    Layout(#[from] crate::vars::LayoutError),
}

impl BackendError {
    /// The byte offset in the PTX source of the instruction the error is about, if known.
    pub fn source_offset(&self) -> Option<u32> {
        match self {
            BackendError::Isel(e) => e.at.offset(),
            _ => None,
        }
    }
}

/// Stages whose text form can be dumped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// VCode after instruction selection.
    Vcode,
    /// SASS after scheduling (with control codes).
    Sass,
}

/// The architectures the back end generates code for (a subset of the described ones,
/// `ptxc_sass::isa::table::DESCRIBED`).
pub const TARGETS: &[Arch] = &[Arch::Sm75, Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90, Arch::Sm90a];

/// Options of the back end.
#[derive(Clone, Debug)]
pub struct Options {
    /// The architecture to compile for.
    pub arch: Arch,
    /// ELF flavour of the cubin.
    pub flavour: ElfFlavour,
    /// Post-allocation scheduling heuristic (`None`: keep the selected order).
    pub post_sched: Option<String>,
    /// Pre-allocation scheduling heuristic (one of `sched::pre_ra::NAMES`).
    pub pre_sched: String,
    /// Most general registers a kernel may use (ptxas' `-maxrregcount`); values that do
    /// not fit are spilled to local memory. A kernel's `.maxnreg` lowers it further.
    pub max_registers: Option<u32>,
    /// Contract float multiplies and adds without rounding modifiers into fused
    /// multiply-adds (ptxas's `--fmad`, on by default).
    pub fmad: bool,
    /// Write line tables from these PTX lines (ptxas's `-lineinfo`).
    pub line_map: Option<std::sync::Arc<crate::lines::LineMap>>,
    /// Optimisations switched off (`ptxc compile --disable`).
    pub disabled: Vec<Optimisation>,
}

/// An optimisation that `ptxc compile --disable NAME` switches off, to measure what it
/// brings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Optimisation {
    /// Short branch arms as guarded code: selected so at the end of the branching block
    /// (`isel/ifconvert.rs`), and after allocation (`emit/predicate.rs`).
    IfConvert,
    /// No convergence barrier for a branch whose condition is the same in every thread of
    /// the warp (`mir/src/analysis/divergence.rs`); off, every conditional branch gets one.
    UniformBranches,
    /// A select whose one value is computed for it alone becomes that instruction under the
    /// select's guard, writing the other value's register in place (`isel/guarded_select.rs`);
    /// off, the value is computed unguarded and merged with SEL.
    GuardedSelects,
    /// Atomics on an address the same in every thread of the warp done once per warp, by
    /// one leader thread, as ptxas does (`isel/aggregate.rs`).
    WarpAggregation,
    /// Warp-uniform values in uniform registers, computed by uniform instructions and read
    /// as uniform address parts (`uniform/`); off, every value is in general registers.
    UniformRegisters,
    /// The MIR optimisation passes of `ptxc_mir::opt::DEFAULT_PIPELINE` (constant folding,
    /// copy propagation, value numbering, strength reduction, address folding, dead code)
    /// before legalization; off, the back end selects the MIR as lowered from the PTX.
    MirPasses,
}

/// The default post-allocation scheduling heuristic.
pub const DEFAULT_SCHED: &str = "critical-path";
/// The default pre-allocation scheduling heuristic.
pub const DEFAULT_PRE_SCHED: &str = "budget";

impl Default for Options {
    fn default() -> Self {
        Options {
            arch: Arch::Sm75,
            flavour: ElfFlavour::default(),
            post_sched: Some(DEFAULT_SCHED.to_string()),
            pre_sched: DEFAULT_PRE_SCHED.to_string(),
            max_registers: None,
            fmad: true,
            line_map: None,
            disabled: Vec::new(),
        }
    }
}

/// The resources of a compiled kernel, as `ptxas -v` reports them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Resources {
    /// Kernel name.
    pub name: String,
    /// Registers per thread (as recorded in the cubin).
    pub registers: u32,
    /// CTA barriers used.
    pub barriers: u32,
    /// Bytes of constant bank 0 (driver area + parameters).
    pub cmem0: u32,
    /// Static shared memory in bytes.
    pub smem: u32,
    /// Local memory frame per thread in bytes.
    pub stack_frame: u32,
    /// Bytes stored by register spills.
    pub spill_stores: u32,
    /// Bytes loaded by register spills.
    pub spill_loads: u32,
}

impl Resources {
    /// The lines `ptxas -v` prints for a kernel, with `tool` in place of "ptxas".
    pub fn report(&self, tool: &str) -> String {
        format!(
            "{tool} info    : Compiling entry function '{n}' for 'sm_75'\n\
             {tool} info    : Function properties for {n}\n\
             \x20   {} bytes stack frame, {} bytes spill stores, {} bytes spill loads\n\
             {tool} info    : Used {} registers, used {} barriers{}{}, {} bytes cmem[0]\n",
            self.stack_frame,
            self.spill_stores,
            self.spill_loads,
            self.registers,
            self.barriers,
            if self.stack_frame > 0 {
                format!(", {} bytes cumulative stack size", self.stack_frame)
            } else {
                String::new()
            },
            if self.smem > 0 {
                format!(", {} bytes smem", self.smem)
            } else {
                String::new()
            },
            self.cmem0,
            n = self.name,
        )
    }
}

/// A kernel compiled to SASS.
#[derive(Clone, Debug)]
pub struct CompiledKernel {
    /// Name.
    pub name: String,
    /// Code and EXIT offsets.
    pub assembled: Assembled,
    /// Highest general register used.
    pub highest_gpr: Option<u32>,
    /// Stack frame bytes (local variables and spill slots).
    pub frame_size: u32,
    /// Bytes written by spill stores.
    pub spill_stores: u32,
    /// Bytes read by spill reloads.
    pub spill_loads: u32,
    /// Warnings for the user (a register limit raised to what the kernel needs).
    pub warnings: Vec<String>,
    /// `EIATTR_UNUSED_LOAD_BYTE_OFFSET`: (byte offset, used-byte mask) of each load that
    /// the code does not read in full.
    pub unused_load_bytes: Vec<[u32; 2]>,
    /// Some loop is left by a divergent branch (`EIATTR_CRS_STACK_SIZE`).
    pub divergent_loop: bool,
    /// Stack bytes per thread: the kernel's frame and the deepest chain of its device
    /// functions' frames.
    pub stack_size: u32,
    /// The device functions placed after the kernel's code.
    pub functions: Vec<LinkedFunction>,
}

/// A device function in a kernel's text section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkedFunction {
    /// The function's name in the PTX.
    pub name: String,
    /// Byte offset of its first instruction.
    pub offset: u32,
    /// Bytes of code.
    pub size: u32,
    /// Its stack frame in bytes.
    pub frame_size: u32,
    /// Its linkage, which its symbol's binding follows.
    pub linkage: ptxc_mir::ir::Linkage,
}

/// Fewest registers `--max-registers` accepts (ptxas' minimum for `-maxrregcount`).
pub const MIN_REGISTERS: u32 = 16;

/// Receives the text of a stage, produced on demand (formatting costs time nobody needs
/// unless a dump was asked for).
pub type DumpSink<'a> = &'a mut dyn FnMut(Stage, &dyn Fn() -> String);

/// Compiles one kernel; `dump` receives the text of each stage.
pub fn compile_function(
    f: &Function,
    vars: &KernelVars,
    opts: &Options,
    dump: DumpSink,
) -> Result<CompiledKernel, BackendError> {
    compile_kernel(f.clone(), vars, opts, dump)
}

/// Compiles one kernel, consuming its MIR (legalized in place), with its device functions
/// (`Function::callees`) placed after its code in order (`link.rs`).
pub fn compile_kernel(
    f: Function,
    vars: &KernelVars,
    opts: &Options,
    dump: DumpSink,
) -> Result<CompiledKernel, BackendError> {
    crate::link::compile_linked(f, vars, opts, dump)
}

/// One function compiled to final blocks, before its place in the text section is known.
pub(crate) struct Code {
    /// Name.
    pub name: String,
    /// Scheduled blocks with control codes.
    pub blocks: Vec<crate::emit::CodeBlock>,
    /// Stack frame bytes (local variables and spill slots).
    pub frame_size: u32,
    /// Bytes written by spill stores.
    pub spill_stores: u32,
    /// Bytes read by spill reloads.
    pub spill_loads: u32,
    /// Warnings for the user.
    pub warnings: Vec<String>,
    /// Loads the code does not read in full (`VCode::partly_used_loads`).
    pub partly_used_loads: Vec<(ptxc_mir::ir::SrcLoc, u32)>,
    /// Some loop is left by a divergent branch.
    pub divergent_loop: bool,
    /// The convergence barriers held while the code runs: its callees' start after them.
    pub barriers_held: u8,
    /// The function's linkage.
    pub linkage: ptxc_mir::ir::Linkage,
}

/// Compiles one function (a kernel or a device function) to final blocks, the kernel's
/// device functions being as `callee_spin` says for spin loops; `dump` receives its VCode.
pub(crate) fn compile_code(
    mut f: Function,
    vars: &KernelVars,
    callee_spin: &[CalleeSpin],
    opts: &Options,
    dump: DumpSink,
) -> Result<Code, BackendError> {
    if !opts.disabled.contains(&Optimisation::MirPasses) {
        ptxc_mir::opt::run_passes(&mut f, ptxc_mir::opt::DEFAULT_PIPELINE).map_err(BackendError::Options)?;
    }
    // Spin loops are found on the PTX's operations, before legalization adds loops.
    let spin_headers = match opts.arch {
        Arch::Sm75 => ptxc_mir::analysis::spin_loops::spin_loop_headers(&f, callee_spin),
        _ => Default::default(),
    };
    crate::legalize::zero_adds::run(&mut f, vars);
    let subroutines = crate::legalize::legalize(&mut f, &crate::legalize::LegalizeOptions { fmad: opts.fmad });
    // The expansions of division, remainder and the float functions repeat work (two
    // remainders by one divisor share its reciprocal) and, by a loop-invariant operand, are
    // invariant in turn: value numbering merges them (not comparisons, P0..P6 are few, nor
    // constants), and out of the loop they go (a comparison only with all its readers).
    ptxc_mir::opt::gvn::run_on_computations(&mut f);
    ptxc_mir::opt::licm::run_except_predicates(&mut f);
    crate::legalize::wide_loads::run(&mut f, vars);
    let f = &f;
    let hard_limit = [opts.max_registers, f.max_nreg].into_iter().flatten().min();
    let limit = hard_limit.unwrap_or(255);
    if limit < MIN_REGISTERS {
        return Err(BackendError::Options(format!(
            "kernel `{}`: a register limit of {limit} is below the minimum of {MIN_REGISTERS}",
            f.name
        )));
    }
    // Slow paths are subroutines unless their return addresses would not fit the limit;
    // then they are selected in line.
    let ctx = Selection {
        spin_headers: &spin_headers,
        hard_limit,
    };
    let lowered = match lower_uniform_or_not(f, vars, opts, &subroutines, &ctx)? {
        Some(l) => l,
        None => lower_uniform_or_not(f, vars, opts, &[], &ctx)?.expect("no return address to place"),
    };
    let Lowered {
        vcode,
        alloc,
        emission,
        mut blocks,
    } = lowered;
    dump(Stage::Vcode, &|| vcode.to_string());
    crate::emit::zero_pairs::run(&mut blocks, opts.arch);
    if let Some(name) = &opts.post_sched {
        let h = crate::sched::heuristics::by_name(name).ok_or_else(|| {
            BackendError::Options(format!(
                "unknown scheduling heuristic `{name}` (known: {})",
                crate::sched::heuristics::NAMES.join(", ")
            ))
        })?;
        crate::sched::list::schedule(&mut blocks, h.as_ref(), opts.arch);
    }
    crate::emit::pipe_balance::run(&mut blocks, opts.arch);
    assign_control(&mut blocks, opts.arch);
    crate::emit::fix_return_addresses(&mut blocks);
    let mut warnings: Vec<String> = alloc
        .raised_limit
        .map(|n| {
            format!(
                "kernel `{}`: adjusting the register limit of {limit} to {n}, the fewest its widest instructions need",
                f.name
            )
        })
        .into_iter()
        .collect();
    if !f.setmaxnreg.is_empty() {
        warnings.push(format!(
            "kernel `{}`: `setmaxnreg` ignored: ptxc gives the whole kernel one register count",
            f.name
        ));
    }
    let barriers_held = crate::link::barriers_held(&blocks).max(vars.barrier_base);
    Ok(Code {
        name: f.name.clone(),
        blocks,
        frame_size: alloc.frame.size,
        spill_stores: emission.spill_stores,
        spill_loads: emission.spill_loads,
        warnings,
        partly_used_loads: vcode.partly_used_loads,
        divergent_loop: vcode.divergent_loop,
        barriers_held,
        linkage: f.linkage,
    })
}

/// A kernel selected, allocated and emitted (its registers recoloured).
struct Lowered {
    vcode: crate::vcode::VCode,
    alloc: crate::regalloc::Allocation,
    emission: crate::emit::Emission,
    blocks: Vec<crate::emit::CodeBlock>,
}

/// What every selection of one kernel shares.
struct Selection<'a> {
    /// Headers of the loops that get a forward-progress latch (`isel/progress.rs`).
    spin_headers: &'a rustc_hash::FxHashSet<ptxc_mir::ir::Block>,
    /// The register limit of `--max-registers` and `.maxnreg`, if any.
    hard_limit: Option<u32>,
}

/// [`lower`] with uniform registers unless switched off, and again without them where
/// more uniform values are live at once than there are uniform registers.
fn lower_uniform_or_not(
    f: &Function,
    vars: &KernelVars,
    opts: &Options,
    subroutines: &[crate::legalize::Subroutine],
    ctx: &Selection,
) -> Result<Option<Lowered>, BackendError> {
    let uniform = !opts.disabled.contains(&Optimisation::UniformRegisters);
    match lower(f, vars, opts, subroutines, ctx, uniform) {
        Err(BackendError::Alloc(AllocError::UniformSpill { .. })) => lower(f, vars, opts, subroutines, ctx, false),
        other => other,
    }
}

/// Selects, allocates and emits `f` with the slow paths `subroutines` names called as
/// subroutines, with uniform values in uniform registers if `uniform`; None when the
/// return addresses do not fit the register limit.
fn lower(
    f: &Function,
    vars: &KernelVars,
    opts: &Options,
    subroutines: &[crate::legalize::Subroutine],
    ctx: &Selection,
    uniform: bool,
) -> Result<Option<Lowered>, BackendError> {
    let hard_limit = ctx.hard_limit;
    let mut vcode = select(f, vars, opts.arch, &opts.disabled, subroutines, ctx.spin_headers)?;
    if uniform {
        crate::uniform::promote(&mut vcode);
    }
    let shape = crate::sched::budget::KernelShape {
        threads: f.req_ntid.or(f.max_ntid).map(|d| d.iter().product()),
        shared: vars.shared_size,
        limit: hard_limit,
    };
    let budget = crate::sched::budget::register_budget(opts.arch, &shape);
    if !crate::sched::pre_ra::schedule(&mut vcode, &opts.pre_sched, budget) {
        return Err(BackendError::Options(format!(
            "unknown pre-allocation scheduling heuristic `{}` (known: {})",
            opts.pre_sched,
            crate::sched::pre_ra::NAMES.join(", ")
        )));
    }
    let limit = hard_limit.unwrap_or(255);
    let alloc = allocate(&mut vcode, limit)?;
    let calls = vcode.insts.iter().any(|i| i.is_call());
    let if_convert = !opts.disabled.contains(&Optimisation::IfConvert);
    let mut emission = emit(&vcode, &alloc, if_convert)?;
    let mut blocks = std::mem::take(&mut emission.blocks);
    if !crate::emit::subroutine::assign_return_pairs(&mut blocks) {
        return Ok(None);
    }
    if !calls && !vcode.device_function {
        // Renaming registers would move the ABI's fixed registers of a call sequence (or
        // of a device function's prologue and return).
        // The budget heuristic may also spend registers the occupancy leaves free on
        // keeping a definition off a register a memory access is still to read.
        let room = (opts.pre_sched == "budget").then(|| (budget - 1 - cubin::EXTRA_REGISTERS) as i32);
        crate::regalloc::compact::compact(&mut blocks, room);
        crate::regalloc::banks::spread_banks(&mut blocks);
    }
    let allowed = alloc.raised_limit.unwrap_or(limit);
    if !subroutines.is_empty() && cubin::register_count(highest_register(&blocks)) > allowed {
        return Ok(None);
    }
    Ok(Some(Lowered {
        vcode,
        alloc,
        emission,
        blocks,
    }))
}

/// The highest general register the code names.
fn highest_register(blocks: &[crate::emit::CodeBlock]) -> Option<u32> {
    crate::emit::highest_gpr(blocks.iter().flat_map(|b| &b.insts).map(|e| &e.inst))
}

/// A listing of assembled code: address, control code, text.
pub fn sass_text(a: &Assembled) -> String {
    use ptxc_sass::isa::text::{AddressLabels, inst_text};
    let mut s = String::new();
    for (i, inst) in a.insts.iter().enumerate() {
        let addr = 16 * i as u64;
        s.push_str(&format!(
            "/*{addr:04x}*/ {} {} ;\n",
            inst.ctrl,
            inst_text(inst, addr, &AddressLabels)
        ));
    }
    s
}

/// A compiled module: the cubin and each kernel's resources.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The cubin bytes.
    pub cubin: Vec<u8>,
    /// Resources per kernel, in module order.
    pub resources: Vec<Resources>,
    /// Warnings for the user.
    pub warnings: Vec<String>,
}

/// A kernel finished for the cubin: its image, what the module needs besides, and the stage
/// texts it produced for `--dump`.
struct FinishedKernel {
    image: KernelImage,
    resources: Resources,
    warnings: Vec<String>,
    /// PTX positions of the instructions (kept only when line tables are written).
    srclocs: Vec<ptxc_mir::ir::SrcLoc>,
    texts: Vec<(Stage, String)>,
}

/// Compiles every kernel of `m` into a cubin, the kernels in parallel (rayon, the largest
/// first: `largest_first.rs`) when there are several. `wanted` says which stages to print;
/// `dump` receives them in module order after compilation.
/// The module is consumed: each kernel's MIR is freed once compiled, and each kernel is
/// reduced to its image (code bytes and attributes) inside the parallel step, so that
/// memory holds at most one kernel's intermediate forms per thread.
pub fn compile_module(
    m: Module,
    opts: &Options,
    wanted: &(dyn Fn(Stage) -> bool + Sync),
    dump: &mut dyn FnMut(&str, Stage, &str),
) -> Result<Compiled, BackendError> {
    let mut module = CubinModule::for_arch(opts.arch);
    module.flavour = opts.flavour;
    module.tool.tool_options = format!("-arch {} ", opts.arch.name());
    let module_vars = ModuleVars::new(&m, opts.arch.reserved_shared())?;
    let finish = |f: Function| finish_kernel(f, &module_vars, opts, wanted);
    // The largest kernels first, so that none is left to finish alone at the end.
    let compiled: Vec<Result<FinishedKernel, BackendError>> =
        crate::largest_first::map_largest_first(m.functions, kernel_size, finish);
    let mut resources = Vec::new();
    let mut warnings = Vec::new();
    let mut kernel_srclocs = Vec::new();
    for result in compiled {
        let k = result?;
        for (stage, text) in &k.texts {
            dump(&k.image.name, *stage, text);
        }
        warnings.extend(k.warnings);
        kernel_srclocs.push((k.image.name.clone(), k.srclocs, k.image.code.len() as u64));
        resources.push(k.resources);
        module.kernels.push(k.image);
    }
    module_vars.install(&mut module);
    if let Some(map) = &opts.line_map {
        let kernels: Vec<crate::lines::KernelLines> = kernel_srclocs
            .iter()
            .map(|(name, srclocs, code_size)| crate::lines::KernelLines {
                name,
                srclocs,
                code_size: *code_size,
            })
            .collect();
        module.extra_sections.extend(crate::lines::line_sections(map, &kernels));
    }
    Ok(Compiled {
        cubin: cubin::write(&module),
        resources,
        warnings,
    })
}

/// A kernel's size for scheduling the compilation: its MIR instructions and its device
/// functions' (compile time grows about linearly with them).
fn kernel_size(f: &Function) -> usize {
    f.insts.len() + f.callees.iter().map(|c| c.insts.len()).sum::<usize>()
}

/// Compiles kernel `f` and reduces it to what the cubin needs.
fn finish_kernel(
    f: Function,
    module_vars: &ModuleVars,
    opts: &Options,
    wanted: &(dyn Fn(Stage) -> bool + Sync),
) -> Result<FinishedKernel, BackendError> {
    let vars = module_vars.kernel(&f);
    let mut image = kernel_shell(&f, &vars);
    let facts = crate::attrs::MirFacts::of(&f);
    let mut texts = Vec::new();
    let k = compile_kernel(f, &vars, opts, &mut |stage, text| {
        if wanted(stage) {
            texts.push((stage, text()));
        }
    })?;
    let srclocs = if opts.line_map.is_some() {
        k.assembled.srclocs
    } else {
        Vec::new()
    };
    let mut code = k.assembled.code;
    cubin::pad_text_for(&mut code, opts.arch.sm());
    code.shrink_to_fit();
    image.code = code;
    image.reg_count = cubin::register_count(k.highest_gpr);
    image.coop_group_offsets =
        crate::attrs::coop_group_offsets(&facts, &k.assembled.insts, &k.assembled.warp_wide_offsets);
    image.int_warp_wide_offsets = k.assembled.warp_wide_offsets.clone();
    image.coop_group_mask_regids = vec![crate::attrs::NO_MASK_REGISTER; image.coop_group_offsets.len()];
    image.crs_stack_size = crate::attrs::crs_stack_size(&k.assembled.insts, k.divergent_loop);
    image.ctaid_z_used = crate::attrs::ctaid_z_used(&k.assembled.insts);
    image.unused_load_bytes = k.unused_load_bytes;
    image.externs = facts.driver_calls.iter().map(|d| d.name().to_string()).collect();
    image.syscall_offsets = crate::attrs::syscall_offsets(&k.assembled.insts);
    image.exit_offsets = k.assembled.exit_offsets;
    image.frame_size = k.frame_size;
    if k.stack_size > 0 {
        image.min_stack_size = Some(k.stack_size);
        image.max_stack_size = Some(k.stack_size);
    }
    image.functions = k
        .functions
        .iter()
        .map(|d| cubin::DeviceFunction {
            name: format!("${}${}", image.name, d.name),
            binding: match d.linkage {
                ptxc_mir::ir::Linkage::Internal => cubin::Binding::Local,
                ptxc_mir::ir::Linkage::Visible => cubin::Binding::Global,
                ptxc_mir::ir::Linkage::Weak => cubin::Binding::Weak,
            },
            offset: d.offset.into(),
            size: d.size.into(),
            frame_size: Some(d.frame_size),
            min_stack_size: None,
            max_stack_size: None,
        })
        .collect();
    let resources = Resources {
        name: image.name.clone(),
        registers: image.reg_count,
        barriers: image.num_barriers,
        cmem0: opts.arch.param_base() + image.param_size,
        smem: image.shared_size,
        stack_frame: image.frame_size,
        spill_stores: k.spill_stores,
        spill_loads: k.spill_loads,
    };
    Ok(FinishedKernel {
        image,
        resources,
        warnings: k.warnings,
        srclocs,
        texts,
    })
}

/// The image of kernel `f` with everything but its code (which compilation fills in).
fn kernel_shell(f: &Function, vars: &KernelVars) -> KernelImage {
    let mut img = KernelImage::new(f.name.clone(), Vec::new());
    img.params = f
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| KernelParam::new(i as u32, p.offset, p.size))
        .collect();
    img.param_size = f.params.iter().map(|p| p.offset + p.size).max().unwrap_or(0);
    img.num_barriers = std::iter::once(f)
        .chain(&f.callees)
        .map(barriers_used)
        .max()
        .unwrap_or(0);
    img.shared_size = vars.shared_size;
    img.shared_align = vars.shared_align;
    img.uses_dynamic_shared = vars.dynamic_shared;
    img.uses_shared_memory = vars.shared_size > 0;
    img.req_ntid = f.req_ntid;
    img.max_ntid = f.max_ntid;
    img.cluster_dims = f.cluster_dims;
    img.max_cluster_rank = f.max_cluster_rank;
    img.explicit_cluster = f.explicit_cluster;
    if let Some(n) = f.max_nreg {
        img.max_reg_count = Some(n);
    }
    img
}

/// CTA barriers a kernel uses: the highest barrier id + 1 (all 16 if an id is computed).
fn barriers_used(f: &Function) -> u32 {
    use ptxc_mir::ir::{Aux, Opcode};
    let mut n = 0;
    for d in f.insts.values() {
        if !matches!(
            d.op,
            Opcode::BarSync | Opcode::BarArrive | Opcode::BarRedPopc | Opcode::BarRedAnd | Opcode::BarRedOr
        ) {
            continue;
        }
        let id = match f.values[d.args[0]].def {
            ptxc_mir::ir::ValueDef::Result(i, _) if f.insts[i].op == Opcode::Const => match f.insts[i].aux {
                Aux::Imm(k) => k.min(15) as u32,
                _ => 15,
            },
            _ => 15,
        };
        n = n.max(id + 1);
    }
    n
}
