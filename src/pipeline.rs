//! The whole compiler: PTX text to cubin bytes, with diagnostics rendered against the source.

pub use ptxc_backend::compile::{Compiled, Resources};
use ptxc_backend::compile::{Options, Stage, compile_module};
use ptxc_frontend::Diagnostic;
use ptxc_sass::cubin::ElfFlavour;
use ptxc_sass::isa::Arch;

/// Intermediate forms that `--dump` can print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dump {
    /// The SSA IR after lowering.
    Mir,
    /// VCode after instruction selection.
    Vcode,
    /// SASS with control codes.
    Sass,
}

/// Compiler options.
#[derive(Clone, Debug)]
pub struct CompileOptions {
    /// The architecture to compile for.
    pub arch: Arch,
    /// ELF flavour of the cubin.
    pub flavour: ElfFlavour,
    /// Forms to print to standard error.
    pub dumps: Vec<Dump>,
    /// Print each kernel's resources to standard error, as `ptxas -v` does.
    pub verbose: bool,
    /// Post-allocation scheduling heuristic (`None` keeps the selected order).
    pub sched: Option<String>,
    /// Pre-allocation scheduling heuristic (`--pre-sched`).
    pub pre_sched: String,
    /// `--dump-mir[=PASS]`: print the MIR after the optimisation passes up to PASS (`Some("")`:
    /// after every pass).
    pub dump_mir_after: Option<String>,
    /// `--max-registers N`: the most general registers per thread (spilling the rest).
    pub max_registers: Option<u32>,
    /// Contract float multiplies and adds without rounding modifiers into fused
    /// multiply-adds (`--fmad`, default true, as ptxas).
    pub fmad: bool,
    /// Write line tables mapping the SASS to the `.loc` lines and to the PTX lines
    /// (`--lineinfo`, ptxas's `-lineinfo`).
    pub line_info: bool,
    /// Optimisations switched off (`--disable`).
    pub disabled: Vec<ptxc_backend::compile::Optimisation>,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            arch: Arch::default(),
            flavour: ElfFlavour::default(),
            dumps: Vec::new(),
            verbose: false,
            sched: Some(ptxc_backend::compile::DEFAULT_SCHED.to_string()),
            pre_sched: ptxc_backend::compile::DEFAULT_PRE_SCHED.to_string(),
            dump_mir_after: None,
            max_registers: None,
            fmad: true,
            line_info: false,
            disabled: Vec::new(),
        }
    }
}

/// Parses, checks and lowers PTX `src` to MIR for its own `.target` (diagnostics rendered
/// against the source): modules whose `.target` is sm_90 or later get Hopper's `mbarrier`
/// layout, as compiling them does (the transaction counts exist only there).
pub fn lower_ptx(src: &str, file_name: &str) -> Result<ptxc_mir::ir::Module, CompileError> {
    lower_ptx_with(src, file_name, None)
}

/// Parses, checks and lowers PTX `src` to MIR for `arch` (the target's form of `mbarrier`,
/// and the `mma` forms its tensor cores lack expanded), with diagnostics rendered against the
/// source.
pub fn lower_ptx_for(src: &str, file_name: &str, arch: Arch) -> Result<ptxc_mir::ir::Module, CompileError> {
    lower_ptx_with(src, file_name, Some(lower_options(arch)))
}

fn lower_ptx_with(
    src: &str,
    file_name: &str,
    options: Option<ptxc_mir::lower::LowerOptions>,
) -> Result<ptxc_mir::ir::Module, CompileError> {
    let render = |d: &[Diagnostic]| CompileError(ptxc_frontend::render_diagnostics(file_name, src, d));
    let checked = ptxc_frontend::parse_and_check(src).map_err(|d| render(&d))?;
    let options = options.unwrap_or(ptxc_mir::lower::LowerOptions {
        hopper_mbarrier: checked.target_sm >= 90,
        rank_in_shared_addresses: checked.target_sm >= 90,
        ..Default::default()
    });
    let module = ptxc_mir::lower::lower_module_with(&checked, options).map_err(|errs| {
        let diags: Vec<Diagnostic> = errs
            .iter()
            .map(|e| Diagnostic::error(e.message.clone(), e.span))
            .collect();
        render(&diags)
    })?;
    for f in &module.functions {
        if let Err(e) = ptxc_mir::ir::verify(f) {
            return Err(CompileError(format!("{file_name}: internal error: {e}")));
        }
    }
    Ok(module)
}

/// What `arch` asks of the lowering to MIR (calls inlined, as the MIR interpreter runs
/// them; compiling keeps them).
pub fn lower_options(arch: Arch) -> ptxc_mir::lower::LowerOptions {
    ptxc_mir::lower::LowerOptions {
        hopper_mbarrier: arch >= Arch::Sm90,
        no_sub_byte_mma: arch >= Arch::Sm90,
        no_hmma_884: arch >= Arch::Sm80,
        rank_in_shared_addresses: arch >= Arch::Sm90,
        keep_calls: false,
    }
}

/// A compilation failure: the rendered diagnostics.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct CompileError(pub String);

/// Compiles PTX `src` (named `file_name` in messages) to a cubin.
pub fn compile_ptx(src: &str, file_name: &str, opts: &CompileOptions) -> Result<Vec<u8>, CompileError> {
    let compiled = compile_ptx_module(src, file_name, opts)?;
    for w in &compiled.warnings {
        eprintln!("{file_name}: warning: {w}");
    }
    if opts.verbose {
        for r in &compiled.resources {
            eprint!("{}", r.report("ptxc"));
        }
    }
    Ok(compiled.cubin)
}

/// Compiles PTX `src` and returns the cubin with each kernel's resources and the warnings,
/// printing nothing but the requested dumps.
pub fn compile_ptx_module(src: &str, file_name: &str, opts: &CompileOptions) -> Result<Compiled, CompileError> {
    let render = |d: &[Diagnostic]| CompileError(ptxc_frontend::render_diagnostics(file_name, src, d));
    let checked = ptxc_frontend::parse_and_check(src).map_err(|d| render(&d))?;
    if checked.arch_specific && opts.arch != Arch::Sm90a {
        return Err(CompileError(format!(
            "{file_name}: error: PTX with .target sm_{}a can only be compiled for sm_{}a, not {}",
            checked.target_sm,
            checked.target_sm,
            opts.arch.name()
        )));
    }
    if checked.target_sm > opts.arch.sm() {
        return Err(CompileError(format!(
            "{file_name}: error: target sm_{} is newer than {}",
            checked.target_sm,
            opts.arch.name()
        )));
    }
    // Calls of device functions stay calls, as ptxas keeps them.
    let options = ptxc_mir::lower::LowerOptions {
        keep_calls: true,
        ..lower_options(opts.arch)
    };
    let line_map = opts
        .line_info
        .then(|| std::sync::Arc::new(crate::lineinfo::line_map(src, &checked)));
    // Lowering consumes the checked tree, freeing each kernel's body once it is lowered.
    let module = ptxc_mir::lower::lower_module_owned(checked, options).map_err(|errs| {
        let diags: Vec<Diagnostic> = errs
            .iter()
            .map(|e| Diagnostic::error(e.message.clone(), e.span))
            .collect();
        render(&diags)
    })?;
    // The syntax tree is freed: its pages go back before the kernels compile elsewhere.
    crate::memory::return_free_pages();
    {
        use rayon::prelude::*;
        let verify = |f: &ptxc_mir::ir::Function| {
            std::iter::once(f)
                .chain(&f.callees)
                .try_for_each(|g| ptxc_mir::ir::verify(g).map_err(|e| e.to_string()))
        };
        // One kernel is verified on this thread, without starting rayon's pool.
        let verified: Result<(), String> = if module.functions.len() > 1 {
            module.functions.par_iter().try_for_each(verify)
        } else {
            module.functions.iter().try_for_each(verify)
        };
        verified.map_err(|e| CompileError(format!("{file_name}: internal error: {e}")))?;
    }
    for f in &module.functions {
        if opts.dumps.contains(&Dump::Mir) {
            eprintln!("{f}");
        }
        if let Some(last) = &opts.dump_mir_after {
            let mut g = f.clone();
            let last = (!last.is_empty()).then_some(last.as_str());
            let mut callees = std::mem::take(&mut g.callees);
            for h in std::iter::once(&mut g).chain(&mut callees) {
                ptxc_mir::opt::run_until(h, last).map_err(|e| CompileError(format!("error: {e}")))?;
            }
            g.callees = callees;
            eprintln!("// {} after {}\n{g}", f.name, last.unwrap_or("every pass"));
        }
    }
    let backend_opts = Options {
        arch: opts.arch,
        flavour: opts.flavour,
        post_sched: opts.sched.clone(),
        pre_sched: opts.pre_sched.clone(),
        max_registers: opts.max_registers,
        fmad: opts.fmad,
        disabled: opts.disabled.clone(),
        line_map,
    };
    let as_dump = |stage: Stage| match stage {
        Stage::Vcode => Dump::Vcode,
        Stage::Sass => Dump::Sass,
    };
    let wanted = |stage: Stage| opts.dumps.contains(&as_dump(stage));
    let mut dump = |kernel: &str, stage: Stage, text: &str| {
        eprintln!("// {kernel} after {:?}\n{text}", as_dump(stage));
    };
    compile_module(module, &backend_opts, &wanted, &mut dump).map_err(|e| match e.source_offset() {
        // An instruction the back end cannot select is shown in its source line.
        Some(at) => render(&[Diagnostic::error(
            e.to_string(),
            ptxc_frontend::ast::Span::new(at as usize, at as usize + 1),
        )]),
        None => CompileError(format!("{file_name}: error: {e}")),
    })
}
