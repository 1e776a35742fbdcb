//! The `ptxc` command: `compile`, `disasm`, `run`, `sched-report`, and ptxas mode (`ptxc ptxas
//! ARGS...`, or the executable invoked under the name `ptxas`).

use clap::{Parser, Subcommand, ValueEnum};
use ptxc::pipeline::{CompileOptions, Dump, compile_ptx};
use ptxc_backend::compile::TARGETS;
use ptxc_sass::cubin::ElfFlavour;
use ptxc_sass::isa::Arch;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "ptxc",
    version,
    about = "PTX to Turing (sm_75) SASS compiler and SM simulator"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Compile a PTX file to a cubin.
    Compile {
        /// Input PTX.
        input: PathBuf,
        /// Output cubin.
        #[arg(short, long)]
        output: PathBuf,
        /// Target architecture (`sm_75`).
        #[arg(long, default_value = "sm_75")]
        arch: String,
        /// ELF flavour of the cubin.
        #[arg(long, value_enum, default_value_t = Flavour::V8)]
        elf: Flavour,
        /// Print an intermediate form to standard error (repeatable).
        #[arg(long, value_enum)]
        dump: Vec<DumpArg>,
        /// Print the MIR after the optimisation passes up to PASS (constfold, copyprop, gvn,
        /// licm, strength, addrfold, dce), or after all of them.
        #[arg(long, value_name = "PASS", num_args = 0..=1, default_missing_value = "")]
        dump_mir: Option<String>,
        /// Print each kernel's resources (registers, constant and shared memory, stack, spills).
        #[arg(short, long)]
        verbose: bool,
        /// Post-allocation scheduling heuristic: source, critical-path, loads-first, or none.
        #[arg(long, default_value = ptxc_backend::compile::DEFAULT_SCHED)]
        sched: String,
        /// Pre-allocation scheduling heuristic: none, pressure (fewest values live at once),
        /// critical-path, or budget (critical path while the registers live stay below the
        /// budget occupancy allows, then pressure).
        #[arg(long, value_name = "NAME", default_value = ptxc_backend::compile::DEFAULT_PRE_SCHED)]
        pre_sched: String,
        /// Use at most N registers per thread, spilling the rest to local memory (like ptxas'
        /// -maxrregcount; at least 16).
        #[arg(long, value_name = "N")]
        max_registers: Option<u32>,
        /// Contract float multiplies and adds without rounding modifiers into fused
        /// multiply-adds, as ptxas does by default (`--fmad=false` keeps them apart).
        #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
        fmad: bool,
        /// Write line tables (`.debug_line` from the `.loc` lines, `.nv_debug_line_sass` from
        /// the PTX lines), as ptxas's `-lineinfo`.
        #[arg(long)]
        lineinfo: bool,
        /// Switch an optimisation off (repeatable): if-convert (short branch arms as
        /// guarded code), uniform-branches (no convergence barrier for branches on
        /// warp-uniform conditions), guarded-selects (a select of a value computed for it
        /// alone as that instruction under a guard), warp-aggregation (one atomic per warp
        /// on a warp-uniform address), uniform-registers (warp-uniform values in uniform
        /// registers and uniform address parts).
        #[arg(long, value_enum, value_name = "OPT")]
        disable: Vec<OptArg>,
    },
    /// List the SASS of every kernel of a cubin (ours or ptxas's).
    Disasm {
        /// Input cubin.
        input: PathBuf,
        /// Show control codes ([wait:read:write:yield:stall]).
        #[arg(long)]
        controls: bool,
    },
    /// Run a kernel on the simulator.
    Run {
        /// A .cubin, or a .ptx compiled first.
        module: PathBuf,
        /// Launch specification (TOML).
        #[arg(long)]
        launch: PathBuf,
        /// Directory for the buffers after the run (`<name>.npy`).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Write statistics as JSON.
        #[arg(long)]
        stats: Option<PathBuf>,
        /// Device model: small, t4, 2080ti (sm_75), a100 (sm_80), 3090 (sm_86), 4090, l4
        /// (sm_89). Default: the first model of the cubin's architecture.
        #[arg(long)]
        device: Option<String>,
        /// Execution engine: the SM simulator on the compiled SASS, or the MIR interpreter.
        #[arg(long, value_enum, default_value_t = Engine::Sim)]
        engine: Engine,
        /// Simulator engine.
        #[arg(long, value_enum, default_value_t = Mode::Timed)]
        mode: Mode,
        /// Write a Chrome trace-event timeline (one track per warp; open in Perfetto).
        #[arg(long)]
        trace: Option<PathBuf>,
        /// Fault after this many warp instructions (catches infinite loops; default 2^32).
        #[arg(long)]
        max_instructions: Option<u64>,
        /// Write the kernel's printf and assertion output to this file instead of standard
        /// output.
        #[arg(long, value_name = "FILE")]
        printf_out: Option<PathBuf>,
        /// Target architecture a .ptx module is compiled for. Default: the `--device`'s, or
        /// else the newest one ptxc compiles for that the PTX's `.target` allows.
        #[arg(long)]
        arch: Option<String>,
    },
    /// Behave as NVIDIA's ptxas for sm_75: `ptxc ptxas [ptxas options] IN.ptx` (also when the
    /// executable is invoked as `ptxas`); `ptxc ptxas --help` lists the options.
    #[command(disable_help_flag = true)]
    Ptxas {
        /// ptxas's arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Compile a kernel with every scheduling heuristic, run each on the timed simulator and
    /// compare cycles, stalls, registers and instruction counts.
    SchedReport {
        /// Input PTX.
        input: PathBuf,
        /// Launch specification (TOML).
        #[arg(long)]
        launch: PathBuf,
        /// A cubin of the same PTX to compare against (for example ptxas' output).
        #[arg(long, value_name = "CUBIN")]
        baseline: Option<PathBuf>,
        /// Device model (see `run --device`).
        #[arg(long, default_value = "small")]
        device: String,
        /// Register limit for every variant (as `compile --max-registers`).
        #[arg(long, value_name = "N")]
        max_registers: Option<u32>,
    },
    /// Check ptxc and the simulator on a real GPU: run the conformance set, the kernel set and
    /// the benchmark suite through the CUDA driver and on the simulator, compare every output
    /// buffer and the measured with the simulated cycles. Exit codes: 0 every output agrees,
    /// 1 error, 2 bad arguments, 3 some output differs or a kernel failed on the GPU only,
    /// 69 no GPU (no driver library, cuInit failed, or no device).
    HwCheck {
        /// Write the report here: JSON when the name ends in `.json`, else Markdown.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// The CUDA driver library to open (default: `PTXC_LIBCUDA`, else `libcuda.so.1` by
        /// the system's library search).
        #[arg(long, value_name = "PATH")]
        libcuda: Option<PathBuf>,
        /// The device to use.
        #[arg(long, value_name = "N", default_value_t = 0)]
        gpu: u32,
        /// NVIDIA's ptxas, to check its cubins too (default: `PTXC_HW_CHECK_PTXAS`; without
        /// either, only ptxc's cubins run).
        #[arg(long, value_name = "PATH")]
        ptxas: Option<PathBuf>,
        /// The sets to run (comma-separated: conformance, kernels, suite).
        #[arg(long, value_delimiter = ',', default_value = "conformance,kernels,suite")]
        sets: Vec<String>,
        /// Only kernels whose name contains this.
        #[arg(long, value_name = "TEXT")]
        filter: Option<String>,
        /// Timed launches per kernel (0: no timing).
        #[arg(long, value_name = "N", default_value_t = 20)]
        repeat: u32,
        /// The simulator's device model (see `run --device`; default: the first model of
        /// the GPU's architecture).
        #[arg(long)]
        device: Option<String>,
        /// The repository checkout holding `tests/` and `benches/`.
        #[arg(long, value_name = "DIR", default_value = ".")]
        root: PathBuf,
        /// Where the kernel set's inputs are: `DIR/<name>/<buffer>.npy`.
        #[arg(long, value_name = "DIR")]
        kernel_inputs: Option<PathBuf>,
        /// A folder for generated inputs and ptxas's cubins (default: a new temporary one).
        #[arg(long, value_name = "DIR")]
        work: Option<PathBuf>,
        /// Do not print a line per kernel.
        #[arg(short, long)]
        quiet: bool,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Engine {
    Sim,
    Mir,
}

#[derive(Clone, Copy, ValueEnum)]
enum Flavour {
    V7,
    V8,
}

#[derive(Clone, Copy, ValueEnum)]
enum Mode {
    Functional,
    Timed,
}

/// `--disable` values.
#[derive(Clone, Copy, ValueEnum)]
enum OptArg {
    IfConvert,
    UniformBranches,
    GuardedSelects,
    WarpAggregation,
    UniformRegisters,
    MirPasses,
}

impl From<OptArg> for ptxc_backend::compile::Optimisation {
    fn from(o: OptArg) -> Self {
        match o {
            OptArg::IfConvert => Self::IfConvert,
            OptArg::UniformBranches => Self::UniformBranches,
            OptArg::GuardedSelects => Self::GuardedSelects,
            OptArg::WarpAggregation => Self::WarpAggregation,
            OptArg::UniformRegisters => Self::UniformRegisters,
            OptArg::MirPasses => Self::MirPasses,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum DumpArg {
    Mir,
    Vcode,
    Sass,
}

fn main() -> ExitCode {
    // A reader that closes the pipe early (`ptxc run ... | head -1`) ends ptxc as it ends
    // other Unix tools, by SIGPIPE, instead of a panic in `println!`.
    // SAFETY: restoring the default disposition of one signal, before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    ptxc::memory::keep_mmap_threshold();
    let args: Vec<String> = std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect();
    if let Some(rest) = ptxas_args(&args) {
        exit_now(ptxas(rest));
    }
    let cli = Cli::parse();
    if let Command::Ptxas { args } = &cli.command {
        exit_now(ptxas(args));
    }
    if let Command::HwCheck { .. } = &cli.command {
        // The driver library it loads may have exit handlers of its own: a normal exit.
        return hw_check(cli.command);
    }
    exit_now(match run(cli) {
        Ok(()) => 0,
        Err(msg) => {
            eprintln!("{}", msg.trim_end());
            1
        }
    })
}

/// Ends the process with `code` once the output is flushed, without the exit handlers: the
/// allocator's would return every page to the system one by one (tens of `madvise` calls),
/// which the kernel does anyway, and at once, when the process ends. A small compilation
/// spent several per cent of its time there.
fn exit_now(code: u8) -> ! {
    use std::io::Write;
    // As at a normal exit, a failed flush (a closed pipe) is not an error.
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: fflush(NULL) flushes every C stream; _exit ends the process (every thread) and
    // returns nothing. No thread of ptxc is running work at this point.
    unsafe {
        libc::fflush(std::ptr::null_mut());
        libc::_exit(i32::from(code))
    }
}

/// The ptxas arguments when the command line asks for ptxas mode.
fn ptxas_args(args: &[String]) -> Option<&[String]> {
    if ptxc::ptxas::invoked_as_ptxas(args.first()?) {
        Some(&args[1..])
    } else if args.get(1).is_some_and(|a| a == "ptxas") {
        Some(&args[2..])
    } else {
        None
    }
}

fn ptxas(args: &[String]) -> u8 {
    ptxc::ptxas::run(args, &mut std::io::stdout().lock(), &mut std::io::stderr().lock())
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Compile {
            input,
            output,
            arch,
            elf,
            dump,
            dump_mir,
            verbose,
            sched,
            pre_sched,
            max_registers,
            fmad,
            lineinfo,
            disable,
        } => {
            let arch = target_arch(&arch)?;
            let opts = CompileOptions {
                arch,
                flavour: match elf {
                    Flavour::V7 => ElfFlavour::V7,
                    Flavour::V8 => ElfFlavour::V8,
                },
                dumps: dump
                    .into_iter()
                    .map(|d| match d {
                        DumpArg::Mir => Dump::Mir,
                        DumpArg::Vcode => Dump::Vcode,
                        DumpArg::Sass => Dump::Sass,
                    })
                    .collect(),
                dump_mir_after: dump_mir,
                verbose,
                sched: (sched != "none").then_some(sched),
                pre_sched,
                max_registers,
                fmad,
                line_info: lineinfo,
                disabled: disable.into_iter().map(Into::into).collect(),
            };
            let cubin = compile_file(&input, &opts)?;
            write_atomically(&output, &cubin)
        }
        Command::Ptxas { .. } => Err("error: ptxas mode runs before the other commands".into()),
        Command::HwCheck { .. } => Err("error: hw-check runs before the other commands".into()),
        Command::Disasm { input, controls } => {
            let bytes = std::fs::read(&input).map_err(|e| format!("{}: {e}", input.display()))?;
            let text = ptxc::disasm::disassemble(&bytes, controls).map_err(|e| format!("{}: {e}", input.display()))?;
            print!("{text}");
            Ok(())
        }
        Command::SchedReport {
            input,
            launch,
            baseline,
            device,
            max_registers,
        } => {
            let config = device_config(&device)?;
            let run_opts = ptxc::run::RunOptions {
                config,
                engine: ptxc_sim::Engine::Timed,
                trace: false,
                printf: ptxc::run::PrintfSink::Stdout,
                device_named: true,
            };
            let spec = ptxc::launch::load(&launch)?;
            let src = read_text(&input)?;
            let base = CompileOptions {
                max_registers,
                ..CompileOptions::default()
            };
            let baseline_bytes = match &baseline {
                Some(p) => Some(std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?),
                None => None,
            };
            let label = baseline.as_ref().map(|p| format!("baseline {}", p.display()));
            let rows = ptxc::sched_report::report_rows(
                &src,
                &input.display().to_string(),
                &spec,
                &base,
                &run_opts,
                label.as_deref().zip(baseline_bytes.as_deref()),
            )?;
            print!("{}", ptxc::sched_report::render(&rows, baseline.is_some()));
            Ok(())
        }
        Command::Run {
            module,
            launch,
            out,
            stats,
            device,
            engine: run_engine,
            mode,
            trace,
            max_instructions,
            printf_out,
            arch,
        } => {
            let device_named = device.is_some();
            let mut config = match &device {
                Some(name) => device_config(name)?,
                None => ptxc_sim::Config::default(),
            };
            if let Some(n) = max_instructions {
                config.instruction_limit = n;
            }
            let engine = match mode {
                Mode::Functional => ptxc_sim::Engine::Functional,
                Mode::Timed => ptxc_sim::Engine::Timed,
            };
            if trace.is_some() && engine != ptxc_sim::Engine::Timed {
                return Err("error: --trace needs --mode timed".into());
            }
            let opts = ptxc::run::RunOptions {
                config,
                engine,
                trace: trace.is_some(),
                printf: match printf_out {
                    Some(p) => ptxc::run::PrintfSink::File(p),
                    None => ptxc::run::PrintfSink::Stdout,
                },
                device_named,
            };
            let spec = ptxc::launch::load(&launch)?;
            if run_engine == Engine::Mir {
                let src = read_text(&module)?;
                let m = ptxc::pipeline::lower_ptx(&src, &module.display().to_string()).map_err(|e| e.0)?;
                // The target's shared layout (Hopper reserves 1 KiB before the variables).
                let mut config = opts.config.clone();
                config.arch = run_arch(arch.as_deref(), device_named.then_some(config.arch), &src)?;
                let result = ptxc::run::run_mir(&m, &spec, config).map_err(|e| format!("error: {e}"))?;
                return report(&result, out.as_deref(), stats.as_deref());
            }
            let cubin = if module.extension().is_some_and(|e| e == "ptx") {
                let device_arch = device_named.then_some(opts.config.arch);
                let arch = run_arch(arch.as_deref(), device_arch, &read_text(&module)?)?;
                compile_file(
                    &module,
                    &CompileOptions {
                        arch,
                        ..CompileOptions::default()
                    },
                )?
            } else {
                std::fs::read(&module).map_err(|e| format!("{}: {e}", module.display()))?
            };
            let result = ptxc::run::run(&cubin, &spec, &opts).map_err(|e| format!("error: {e}"))?;
            if let (Some(path), Some(t)) = (&trace, &result.trace) {
                std::fs::write(path, t.to_json()).map_err(|e| format!("{}: {e}", path.display()))?;
            }
            report(&result, out.as_deref(), stats.as_deref())
        }
    }
}

/// `ptxc hw-check`: its exit code is the outcome (see [`ptxc::hwcheck`]).
fn hw_check(command: Command) -> ExitCode {
    use ptxc::hwcheck::{self, cuda};
    let Command::HwCheck {
        out,
        libcuda,
        gpu,
        ptxas,
        sets,
        filter,
        repeat,
        device,
        root,
        kernel_inputs,
        work,
        quiet,
    } = command
    else {
        return ExitCode::from(hwcheck::EXIT_ERROR);
    };
    let fail = |msg: String| {
        eprintln!("error: {}", msg.trim_end());
        ExitCode::from(hwcheck::EXIT_ERROR)
    };
    let sets = match sets
        .iter()
        .map(|s| {
            hwcheck::cases::Set::from_name(s.trim())
                .ok_or_else(|| format!("unknown set `{s}` (sets: conformance, kernels, suite)"))
        })
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let library = cuda::library_path(libcuda.as_deref());
    let mut device_gpu = match cuda::CudaGpu::open(&library, gpu) {
        Ok(g) => g,
        Err(cuda::OpenError::Unavailable(why)) => {
            eprintln!("no GPU: {why}");
            eprintln!("hw-check needs an NVIDIA GPU and its driver (see docs/HW_CHECK.md); nothing was checked");
            return ExitCode::from(hwcheck::EXIT_NO_GPU);
        }
        Err(cuda::OpenError::Failed(why)) => return fail(why),
    };
    if !root.join("tests/data/conformance").is_dir() {
        return fail(format!(
            "{} is not a ptxc checkout (no tests/data/conformance); run from the repository root or give --root",
            root.display()
        ));
    }
    let temporary = work.is_none();
    let scratch = match work {
        Some(dir) => dir,
        None => std::env::temp_dir().join(format!("ptxc-hw-check-{}", std::process::id())),
    };
    let opts = hwcheck::check::CheckOptions {
        root,
        work: scratch,
        sets,
        ptxas: ptxas.or_else(|| std::env::var_os("PTXC_HW_CHECK_PTXAS").map(PathBuf::from)),
        kernel_inputs,
        repeat,
        model: device,
        filter,
    };
    let mut progress = |line: &str| {
        if !quiet {
            println!("{line}");
        }
    };
    let checked = hwcheck::check::check(&mut device_gpu, &opts, &mut progress);
    if temporary {
        let _ = std::fs::remove_dir_all(&opts.work);
    }
    let report = match checked {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    print!("{}", report.summary());
    if let Some(path) = out {
        let text = if path.extension().is_some_and(|e| e == "json") {
            report.to_json()
        } else {
            report.to_markdown()
        };
        if let Err(e) = std::fs::write(&path, text) {
            return fail(format!("{}: {e}", path.display()));
        }
    }
    ExitCode::from(if report.disagrees() {
        hwcheck::EXIT_DISAGREE
    } else {
        hwcheck::EXIT_AGREE
    })
}

/// The device model `--device` names.
fn device_config(name: &str) -> Result<ptxc_sim::Config, String> {
    ptxc_sim::Config::by_name(name).ok_or_else(|| {
        format!(
            "error: unknown device `{name}` (devices: {})",
            ptxc_sim::Config::device_names(None)
        )
    })
}

/// The architecture `--arch` names, if ptxc compiles for it.
fn target_arch(name: &str) -> Result<Arch, String> {
    let described = || TARGETS.iter().map(|a| a.name()).collect::<Vec<_>>().join(", ");
    match Arch::from_name(name) {
        Some(a) if TARGETS.contains(&a) => Ok(a),
        _ => Err(format!(
            "error: unsupported architecture `{name}` (ptxc compiles for {})",
            described()
        )),
    }
}

/// The architecture `ptxc run` takes a `.ptx` module `src` for: `--arch` if given, else the
/// named device's, else the one the module's `.target` allows ([`ptx_target_arch`]).
fn run_arch(arch: Option<&str>, device: Option<Arch>, src: &str) -> Result<Arch, String> {
    match (arch, device) {
        (Some(name), _) => target_arch(name),
        (None, Some(a)) => Ok(a),
        (None, None) => Ok(ptx_target_arch(src)),
    }
}

/// The newest architecture ptxc compiles for that the `.target` of `src` allows (sm_75 for
/// older targets, and when the module does not check: its compilation reports why).
fn ptx_target_arch(src: &str) -> Arch {
    let checked = ptxc_frontend::parse_and_check(src).ok();
    if checked.as_ref().is_some_and(|m| m.arch_specific) {
        return Arch::Sm90a;
    }
    let sm = checked.map_or(0, |m| m.target_sm);
    TARGETS
        .iter()
        .copied()
        .filter(|a| a.sm() <= sm && *a != Arch::Sm90a)
        .max_by_key(|a| a.sm())
        .unwrap_or(Arch::Sm75)
}

fn read_text(input: &Path) -> Result<String, String> {
    let bytes = std::fs::read(input).map_err(|e| format!("{}: {e}", input.display()))?;
    Ok(ptxc_frontend::source_text(bytes))
}

fn compile_file(input: &Path, opts: &CompileOptions) -> Result<Vec<u8>, String> {
    let src = read_text(input)?;
    compile_ptx(&src, &input.display().to_string(), opts).map_err(|e| e.0)
}

/// Writes `bytes` through a temporary file so that a failure leaves nothing behind.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let tmp = path.with_extension("ptxc-tmp");
    std::fs::write(&tmp, bytes).map_err(|e| format!("{}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("{}: {e}", path.display())
    })
}

fn report(result: &ptxc::run::RunOutput, out: Option<&Path>, stats: Option<&Path>) -> Result<(), String> {
    for r in &result.driver_reports {
        eprintln!("warning: {r}");
    }
    for (name, a) in &result.buffers {
        println!(
            "{name}: {} x {} = {}",
            a.dtype.name(),
            a.len(),
            ptxc::run::preview(a, 8)
        );
    }
    let s = &result.stats;
    println!(
        "stats: engine {}, cycles {}, warp instructions {}, thread instructions {}, hazards {}, CTAs {}, warps {}",
        s.engine, s.cycles, s.warp_instructions, s.thread_instructions, s.hazards, s.ctas, s.warps
    );
    if s.engine == "timed" {
        let st = &s.stalls;
        println!(
            "timing: IPC {:.3} on {} SM(s); stalls (warp-cycles): scoreboard {}, stall count {}, pipe busy {}, bank conflict {}, barrier {}, yield {}, not selected {}; bank-conflict bubbles {}, reuse hits {}",
            s.ipc,
            s.sms_used,
            st.scoreboard,
            st.stall_count,
            st.pipe_busy,
            st.bank_conflict,
            st.barrier,
            st.yield_,
            st.not_selected,
            s.bank_conflicts,
            s.reuse_hits
        );
    }
    for h in &s.hazard_reports {
        println!(
            "hazard: kernel `{}`, block {:?}, warp {}, /*{:04x}*/: {}",
            h.kernel, h.ctaid, h.warp, h.pc, h.what
        );
    }
    if let Some(dir) = out {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for (name, a) in &result.buffers {
            ptxc::npy::write(&dir.join(format!("{name}.npy")), a)?;
        }
    }
    if let Some(path) = stats {
        let json = serde_json::to_string_pretty(s).map_err(|e| e.to_string())?;
        std::fs::write(path, json + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}
