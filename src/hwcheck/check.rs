//! The check itself: every case compiled by ptxc (and by ptxas when one is given) for the
//! GPU's architecture, run on the simulator and on the GPU, buffers compared, cycles paired.
//!
//! Cycles on the GPU come from CUDA events around each of `repeat` launches, every one on
//! freshly copied inputs (see
//! `docs/HW_CHECK.md`); both sides are taken net of an empty kernel's launch, so the fixed
//! launch cost the events include does not swamp small kernels.

use super::cases::{Case, Set, cases};
use super::compare::{BufferDiff, compare};
use super::gpu::Gpu;
use super::report::{Outcome, Report, Row};
use crate::pipeline::{CompileOptions, compile_ptx};
use crate::run::{PrintfSink, RunOptions};
use ptxc_sass::isa::Arch;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// What to check and how.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// The repository's root (where `tests/` and `benches/` are).
    pub root: PathBuf,
    /// A folder for generated inputs and ptxas's cubins.
    pub work: PathBuf,
    /// The sets to run.
    pub sets: Vec<Set>,
    /// NVIDIA's ptxas, to check its cubins too.
    pub ptxas: Option<PathBuf>,
    /// Where the kernel set's inputs are (`<dir>/<name>/<buffer>.npy`).
    pub kernel_inputs: Option<PathBuf>,
    /// Timed launches per kernel (0: no timing).
    pub repeat: u32,
    /// The simulator's device model (default: the first model of the GPU's architecture).
    pub model: Option<String>,
    /// Only kernels whose name contains this.
    pub filter: Option<String>,
}

/// Which compiler made a cubin.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Compiler {
    /// ptxc.
    Ptxc,
    /// NVIDIA's ptxas.
    Ptxas,
}

impl Compiler {
    /// The name (`ptxc`).
    pub fn name(self) -> &'static str {
        match self {
            Compiler::Ptxc => "ptxc",
            Compiler::Ptxas => "ptxas",
        }
    }
}

/// The empty kernel whose launch is the baseline of the cycle comparison.
const EMPTY_KERNEL: &str = "hw_check_empty";

/// Runs the check on `gpu`; `progress` hears one line per kernel.
pub fn check(gpu: &mut dyn Gpu, opts: &CheckOptions, progress: &mut dyn FnMut(&str)) -> Result<Report, String> {
    let info = gpu.info().clone();
    let arch = Arch::from_sm(info.sm, false).ok_or_else(|| {
        format!(
            "the GPU is compute capability {}.{}, an architecture ptxc does not know",
            info.sm / 10,
            info.sm % 10
        )
    })?;
    let model = match &opts.model {
        Some(name) => ptxc_sim::Config::by_name(name).ok_or_else(|| {
            format!(
                "unknown device model `{name}` (models: {})",
                ptxc_sim::Config::device_names(None)
            )
        })?,
        None => ptxc_sim::Config::for_arch(arch)
            .ok_or_else(|| format!("the simulator has no device model of {}", arch.name()))?,
    };
    std::fs::create_dir_all(&opts.work).map_err(|e| format!("{}: {e}", opts.work.display()))?;
    let runner = Runner {
        arch,
        model: &model,
        opts,
    };
    let mut compilers = vec![Compiler::Ptxc];
    if opts.ptxas.is_some() {
        compilers.push(Compiler::Ptxas);
    }
    let baseline = runner.baseline(gpu, &compilers);
    let mut rows = Vec::new();
    for &set in &opts.sets {
        for case in cases(set, &opts.root, &opts.work, opts.kernel_inputs.as_deref())? {
            if opts.filter.as_ref().is_some_and(|f| !case.name.contains(f.as_str())) {
                continue;
            }
            for &compiler in &compilers {
                let row = runner.row(gpu, &case, compiler);
                progress(&row.line());
                rows.push(row);
            }
        }
    }
    Ok(Report::new(info, arch, model.name, opts.repeat, baseline, rows))
}

/// The empty kernel's cycles on the GPU and the simulator, per compiler.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Baseline {
    /// Which compiler's cubin.
    pub compiler: Compiler,
    /// Measured cycles of one launch.
    pub gpu_cycles: f64,
    /// Simulated cycles.
    pub sim_cycles: f64,
}

/// What every case shares.
struct Runner<'a> {
    arch: Arch,
    model: &'a ptxc_sim::Config,
    opts: &'a CheckOptions,
}

impl Runner<'_> {
    /// The empty kernel's launch on both sides, for each compiler whose cubin of it builds
    /// and runs (none when timing is off).
    fn baseline(&self, gpu: &mut dyn Gpu, compilers: &[Compiler]) -> Vec<Baseline> {
        if self.opts.repeat == 0 {
            return Vec::new();
        }
        let ptx = self.opts.work.join(format!("{EMPTY_KERNEL}.ptx"));
        let text = format!(
            ".version 7.8\n.target {}\n.address_size 64\n.visible .entry {EMPTY_KERNEL}()\n{{\n\tret;\n}}\n",
            self.arch.name()
        );
        if std::fs::write(&ptx, text).is_err() {
            return Vec::new();
        }
        let spec = crate::launch::LaunchSpec {
            kernel: EMPTY_KERNEL.into(),
            grid: [1, 1, 1],
            block: [32, 1, 1],
            dynamic_shared_bytes: 0,
            cluster: None,
            params: Vec::new(),
            buffers: Default::default(),
            symbols: Default::default(),
            limits: Default::default(),
        };
        compilers
            .iter()
            .filter_map(|&compiler| {
                let cubin = self.compile(&ptx, compiler).ok()?;
                let sim = self.simulate(&cubin, &spec).ok()?;
                let run = gpu.launch(&cubin, &spec, self.opts.repeat).ok()?;
                Some(Baseline {
                    compiler,
                    gpu_cycles: run.cycles?,
                    sim_cycles: sim.stats.cycles as f64,
                })
            })
            .collect()
    }

    /// One case with one compiler.
    fn row(&self, gpu: &mut dyn Gpu, case: &Case, compiler: Compiler) -> Row {
        let mut row = Row {
            set: case.set,
            kernel: case.name.clone(),
            compiler,
            outcome: Outcome::Agree,
            sim_cycles: None,
            gpu_cycles: None,
        };
        row.outcome = match self.outcome(gpu, case, compiler, &mut row) {
            Ok(diffs) if diffs.is_empty() => Outcome::Agree,
            Ok(diffs) => Outcome::Differ(diffs),
            Err(o) => o,
        };
        row
    }

    fn outcome(
        &self,
        gpu: &mut dyn Gpu,
        case: &Case,
        compiler: Compiler,
        row: &mut Row,
    ) -> Result<Vec<BufferDiff>, Outcome> {
        let spec = case.spec.as_ref().map_err(|e| Outcome::Skipped(e.clone()))?;
        if compiler == Compiler::Ptxc && !ptxc_backend::compile::TARGETS.contains(&self.arch) {
            return Err(Outcome::Skipped(format!(
                "ptxc does not compile for {}",
                self.arch.name()
            )));
        }
        let cubin = self.compile(&case.ptx, compiler).map_err(Outcome::CompileError)?;
        let sim = self.simulate(&cubin, spec).map_err(Outcome::SimError)?;
        row.sim_cycles = Some(sim.stats.cycles as f64);
        let run = gpu.launch(&cubin, spec, self.opts.repeat).map_err(Outcome::GpuError)?;
        row.gpu_cycles = run.cycles;
        Ok(compare(&run.buffers, &sim.buffers))
    }

    /// The cubin of `ptx` by `compiler` for the GPU's architecture.
    fn compile(&self, ptx: &Path, compiler: Compiler) -> Result<Vec<u8>, String> {
        match (compiler, &self.opts.ptxas) {
            (Compiler::Ptxas, Some(ptxas)) => self.ptxas(ptxas, ptx),
            _ => {
                let bytes = std::fs::read(ptx).map_err(|e| format!("{}: {e}", ptx.display()))?;
                let src = ptxc_frontend::source_text(bytes);
                let opts = CompileOptions {
                    arch: self.arch,
                    ..CompileOptions::default()
                };
                compile_ptx(&src, &ptx.display().to_string(), &opts).map_err(|e| e.0)
            }
        }
    }

    /// ptxas's cubin (`-arch=sm_XX -O3`).
    fn ptxas(&self, ptxas: &Path, ptx: &Path) -> Result<Vec<u8>, String> {
        let stem = ptx
            .file_stem()
            .map_or("kernel".into(), |s| s.to_string_lossy().into_owned());
        let out = self.opts.work.join(format!("{stem}.{}.cubin", self.arch.name()));
        let o = std::process::Command::new(ptxas)
            .arg(format!("-arch={}", self.arch.name()))
            .arg("-O3")
            .arg(ptx)
            .arg("-o")
            .arg(&out)
            .output()
            .map_err(|e| format!("{}: {e}", ptxas.display()))?;
        if !o.status.success() {
            return Err(format!("ptxas: {}", String::from_utf8_lossy(&o.stderr).trim()));
        }
        std::fs::read(&out).map_err(|e| format!("{}: {e}", out.display()))
    }

    /// The timed simulator's run of `cubin`.
    fn simulate(&self, cubin: &[u8], spec: &crate::launch::LaunchSpec) -> Result<crate::run::RunOutput, String> {
        let opts = RunOptions {
            config: self.model.clone(),
            engine: ptxc_sim::Engine::Timed,
            trace: false,
            printf: PrintfSink::Collect,
            device_named: true,
        };
        crate::run::run(cubin, spec, &opts)
    }
}
