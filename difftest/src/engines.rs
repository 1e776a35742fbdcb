//! The three executions of a case: the MIR interpreter on the unoptimised MIR, ptxc's cubin on
//! the timed simulator, and ptxas's cubin (the oracle) on the timed simulator. Each gives an
//! [`Outcome`]: the output words, or why there are none. Panics in any stage are caught and
//! reported as outcomes.

use crate::generator::Case;
use crate::program::Program;
use ptxc_sim::{Config, Device, Engine, LaunchDims};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The launch of a kernel `difftest(in, out)`: its shape and buffers.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    /// Blocks (x).
    pub grid: u32,
    /// Threads per block (x).
    pub block: u32,
    /// The input buffer.
    pub input: Vec<u64>,
    /// The output buffer before the kernel.
    pub output: Vec<u64>,
}

impl Launch {
    /// The launch of a generated case.
    pub fn of(case: &Case) -> Launch {
        Launch {
            grid: case.program.grid,
            block: case.program.block,
            input: case.input.clone(),
            output: case.program.initial_output(),
        }
    }
}

/// What one execution produced.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The output buffer after the kernel.
    Words(Vec<u64>),
    /// The simulator reported hazards (count, first report); the words are still compared.
    Hazards(u64, String, Vec<u64>),
    /// The PTX did not compile.
    CompileError(String),
    /// The launch failed (fault, deadlock, unsupported instruction).
    RunError(String),
    /// A stage panicked.
    Panic(String),
}

impl Outcome {
    /// The output words, if the kernel ran to the end.
    pub fn words(&self) -> Option<&[u64]> {
        match self {
            Outcome::Words(w) | Outcome::Hazards(_, _, w) => Some(w),
            _ => None,
        }
    }

    /// A one-line summary.
    pub fn summary(&self) -> String {
        let first = |s: &str| {
            s.lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("")
                .trim()
                .to_string()
        };
        match self {
            Outcome::Words(w) => format!("{} words", w.len()),
            Outcome::Hazards(n, h, _) => format!("{n} hazard(s), first: {h}"),
            Outcome::CompileError(e) => format!("compile error: {}", first(e)),
            Outcome::RunError(e) => format!("run error: {}", first(e)),
            Outcome::Panic(e) => format!("panic: {}", first(e)),
        }
    }
}

/// How a compile error of ptxas that is a crash (no message) starts.
pub const CRASH: &str = "ptxas crashed";

/// Where and how the executions run.
#[derive(Clone, Debug)]
pub struct Engines {
    /// `ptxas` (None: no oracle, only the interpreter and ptxc are compared).
    pub ptxas: Option<PathBuf>,
    /// A private scratch directory for the oracle's files.
    pub scratch: PathBuf,
    /// Device of the simulator runs.
    pub config: Config,
}

impl Engines {
    /// Engines with an explicit oracle.
    pub fn new(ptxas: Option<PathBuf>, scratch: &Path) -> Engines {
        let config = Config {
            instruction_limit: 5_000_000,
            ..Config::small()
        };
        Engines {
            ptxas,
            scratch: scratch.to_path_buf(),
            config,
        }
    }

    /// The MIR interpreter on the unoptimised MIR.
    pub fn mir(&self, ptx: &str, l: &Launch) -> Outcome {
        guarded(|| {
            let module = match ptxc::pipeline::lower_ptx(ptx, "difftest.ptx") {
                Ok(m) => m,
                Err(e) => return Outcome::CompileError(e.0),
            };
            run_mir(&module, l, &self.config)
        })
    }

    /// ptxc's cubin on the timed simulator.
    pub fn ptxc(&self, ptx: &str, l: &Launch) -> Outcome {
        guarded(|| {
            let opts = ptxc::pipeline::CompileOptions::default();
            match ptxc::pipeline::compile_ptx_module(ptx, "difftest.ptx", &opts) {
                Ok(c) => run_cubin(&c.cubin, l, &self.config),
                Err(e) => Outcome::CompileError(e.0),
            }
        })
    }

    /// ptxas's cubin on the timed simulator (None without an oracle).
    pub fn ptxas(&self, ptx: &str, l: &Launch) -> Option<Outcome> {
        let ptxas = self.ptxas.as_ref()?;
        Some(match self.ptxas_cubin(ptxas, ptx) {
            Ok(cubin) => self.kernel(&cubin, Program::KERNEL, l),
            Err(e) => Outcome::CompileError(e),
        })
    }

    /// Kernel `name` of a compiled module on the timed simulator.
    pub fn kernel(&self, cubin: &[u8], name: &str, l: &Launch) -> Outcome {
        guarded(|| run_kernel(cubin, name, l, &self.config))
    }

    /// Runs `ptxas -arch=sm_75 -O3` on `ptx`.
    pub fn ptxas_cubin(&self, ptxas: &Path, ptx: &str) -> Result<Vec<u8>, String> {
        std::fs::create_dir_all(&self.scratch).map_err(|e| format!("{}: {e}", self.scratch.display()))?;
        let (src, out) = (self.scratch.join("oracle.ptx"), self.scratch.join("oracle.cubin"));
        std::fs::write(&src, ptx).map_err(|e| format!("{}: {e}", src.display()))?;
        let _ = std::fs::remove_file(&out);
        let o = Command::new(ptxas)
            .args(["-arch=sm_75", "-O3"])
            .arg(&src)
            .arg("-o")
            .arg(&out)
            .output()
            .map_err(|e| format!("{}: {e}", ptxas.display()))?;
        if !o.status.success() {
            let err = String::from_utf8_lossy(&o.stderr).into_owned();
            if err.trim().is_empty() {
                return Err(format!("{CRASH} ({})", o.status));
            }
            return Err(err);
        }
        std::fs::read(&out).map_err(|e| format!("{}: {e}", out.display()))
    }
}

/// Runs `f`, turning a panic into [`Outcome::Panic`].
fn guarded(f: impl FnOnce() -> Outcome) -> Outcome {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(o) => o,
        Err(e) => {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "(no message)".into());
            Outcome::Panic(msg)
        }
    }
}

/// Allocates the input and output buffers of `l` on `dev`: (input address, output
/// address, output length in bytes).
fn buffers(dev: &mut Device, l: &Launch) -> Result<(u64, u64, usize), String> {
    let input: Vec<u8> = l.input.iter().flat_map(|w| w.to_le_bytes()).collect();
    let output: Vec<u8> = l.output.iter().flat_map(|w| w.to_le_bytes()).collect();
    let a = dev.alloc(input.len());
    dev.write(a, &input).map_err(|e| e.to_string())?;
    let b = dev.alloc(output.len());
    dev.write(b, &output).map_err(|e| e.to_string())?;
    Ok((a, b, output.len()))
}

fn words(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks(8)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(b)
        })
        .collect()
}

fn params(a: u64, b: u64) -> Vec<u8> {
    let mut p = a.to_le_bytes().to_vec();
    p.extend_from_slice(&b.to_le_bytes());
    p
}

fn dims(l: &Launch) -> LaunchDims {
    LaunchDims {
        grid: [l.grid, 1, 1],
        block: [l.block, 1, 1],
        dynamic_shared: 0,
        cluster: None,
    }
}

/// Runs a cubin's kernel [`Program::KERNEL`] on the timed simulator.
pub fn run_cubin(cubin: &[u8], l: &Launch, config: &Config) -> Outcome {
    run_kernel(cubin, Program::KERNEL, l, config)
}

/// Runs kernel `name` of a cubin on the timed simulator.
pub fn run_kernel(cubin: &[u8], name: &str, l: &Launch, config: &Config) -> Outcome {
    let mut dev = Device::new(config.clone());
    let module = match dev.load(cubin) {
        Ok(m) => m,
        Err(e) => return Outcome::RunError(format!("load: {e}")),
    };
    let (a, b, len) = match buffers(&mut dev, l) {
        Ok(x) => x,
        Err(e) => return Outcome::RunError(e),
    };
    let stats = match dev.launch_with(&module, name, &dims(l), &params(a, b), Engine::Timed, None) {
        Ok(s) => s,
        Err(e) => return Outcome::RunError(e.to_string()),
    };
    let out = match dev.read(b, len) {
        Ok(o) => words(&o),
        Err(e) => return Outcome::RunError(e.to_string()),
    };
    if stats.hazards > 0 {
        let first = stats
            .hazard_reports
            .first()
            .map(|h| format!("/*{:04x}*/ {}", h.pc, h.what))
            .unwrap_or_default();
        return Outcome::Hazards(stats.hazards, first, out);
    }
    Outcome::Words(out)
}

/// Runs the kernel of a MIR module on the interpreter.
pub fn run_mir(module: &ptxc_mir::ir::Module, l: &Launch, config: &Config) -> Outcome {
    let Some(func) = module.functions.iter().find(|f| f.name == Program::KERNEL) else {
        return Outcome::CompileError(format!("no kernel `{}`", Program::KERNEL));
    };
    let mut dev = Device::new(config.clone());
    let (a, b, len) = match buffers(&mut dev, l) {
        Ok(x) => x,
        Err(e) => return Outcome::RunError(e),
    };
    let d = dims(l);
    let cfg = ptxc_mir::interp::LaunchConfig {
        grid: d.grid,
        block: d.block,
        dynamic_shared: 0,
        reserved_shared: 0,
        cluster: None,
        params: params(a, b),
    };
    if let Err(e) = ptxc_mir::interp::launch(func, &cfg, &mut ptxc::run::DeviceMemory(&mut dev)) {
        return Outcome::RunError(e.to_string());
    }
    match dev.read(b, len) {
        Ok(o) => Outcome::Words(words(&o)),
        Err(e) => Outcome::RunError(e.to_string()),
    }
}
