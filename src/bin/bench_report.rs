//! `cargo run --release --bin bench-report`: measures ptxc against ptxas on the benchmark
//! suite (`benches/suite/*.toml`, kernels from `tests/kernels`) and on the largest corpus
//! file, and writes `docs/BENCHMARKS.md`. Per kernel: simulated cycles of both cubins on the
//! timed engine and their ratio, registers, SASS instruction counts, compile wall time of
//! both compilers (median of several runs) and their ratio, and the simulator's speed.
//! NVIDIA's ptxas serves only as the baseline (from the CUDA oracle, `CUDA_ORACLE_BIN`).

use ptxc::launch::{self, LaunchSpec};
use ptxc::pipeline::{CompileOptions, compile_ptx_module};
use ptxc::run::{RunOptions, run};
use ptxc::sched_report::static_counts;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Compile-time repetitions (the median is reported).
const COMPILE_RUNS: usize = 5;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The folder of ptxas: `CUDA_ORACLE_BIN`, or what `scripts/cuda-oracle install` prints (it
/// installs NVIDIA's tools from the package registry once, into a cache folder).
fn oracle_bin() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("CUDA_ORACLE_BIN") {
        return Ok(PathBuf::from(p));
    }
    let tool = root().join("scripts/cuda-oracle");
    let o = Command::new(&tool)
        .arg("install")
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("{}: {e} (or set CUDA_ORACLE_BIN)", tool.display()))?;
    let out = String::from_utf8_lossy(&o.stdout);
    let line = out.lines().last().unwrap_or("").trim();
    if !o.status.success() || line.is_empty() {
        return Err(
            "`scripts/cuda-oracle install` failed (it needs Python 3 with pip and pypi.org); \
                    or set CUDA_ORACLE_BIN to a folder with ptxas"
                .into(),
        );
    }
    Ok(PathBuf::from(line))
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Median wall time of `f` over `runs` runs.
fn time_it(runs: usize, mut f: impl FnMut() -> Result<(), String>) -> Result<Duration, String> {
    let mut v = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        f()?;
        v.push(t.elapsed());
    }
    Ok(median(v))
}

fn ptxas(bin: &Path, ptx: &Path, out: &Path) -> Result<(), String> {
    let o = Command::new(bin.join("ptxas"))
        .args(["-arch=sm_75", "-O3"])
        .arg(ptx)
        .arg("-o")
        .arg(out)
        .output()
        .map_err(|e| format!("ptxas: {e}"))?;
    if !o.status.success() {
        return Err(format!(
            "ptxas {}: {}",
            ptx.display(),
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    Ok(())
}

fn ptxc_compile(src: &str, name: &str) -> Result<Vec<u8>, String> {
    compile_ptx_module(src, name, &CompileOptions::default())
        .map(|c| c.cubin)
        .map_err(|e| e.0)
}

/// One kernel's measurements.
struct KernelRow {
    name: String,
    cycles: [u64; 2],
    registers: [u32; 2],
    instructions: [usize; 2],
    compile: [Duration; 2],
    warp_instructions: u64,
    sim_rate: [f64; 2],
    same_output: bool,
    hazards: u64,
}

/// Warp instructions per second of running `cubin` on `engine`, and the run.
fn simulate(cubin: &[u8], spec: &LaunchSpec, engine: ptxc_sim::Engine) -> Result<(f64, ptxc::run::RunOutput), String> {
    let opts = RunOptions {
        engine,
        ..RunOptions::default()
    };
    let t = Instant::now();
    let out = run(cubin, spec, &opts)?;
    let rate = out.stats.warp_instructions as f64 / t.elapsed().as_secs_f64().max(1e-9);
    Ok((rate, out))
}

fn measure(bin: &Path, spec_path: &Path, scratch: &Path) -> Result<KernelRow, String> {
    let spec = launch::load(spec_path)?;
    let ptx = root().join("tests/kernels").join(format!("{}.ptx", spec.kernel));
    let src = std::fs::read_to_string(&ptx).map_err(|e| format!("{}: {e}", ptx.display()))?;
    let theirs_path = scratch.join(format!("{}.cubin", spec.kernel));
    let ours = ptxc_compile(&src, &spec.kernel)?;
    ptxas(bin, &ptx, &theirs_path)?;
    let theirs = std::fs::read(&theirs_path).map_err(|e| e.to_string())?;
    let compile = [
        time_it(COMPILE_RUNS, || ptxc_compile(&src, &spec.kernel).map(|_| ()))?,
        time_it(COMPILE_RUNS, || ptxas(bin, &ptx, &theirs_path))?,
    ];
    let (ours_regs, ours_insts) = static_counts(&ours, &spec.kernel)?;
    let (theirs_regs, theirs_insts) = static_counts(&theirs, &spec.kernel)?;
    let (timed_rate, ours_run) = simulate(&ours, &spec, ptxc_sim::Engine::Timed)?;
    let (functional_rate, _) = simulate(&ours, &spec, ptxc_sim::Engine::Functional)?;
    let (_, theirs_run) = simulate(&theirs, &spec, ptxc_sim::Engine::Timed)?;
    let same_output = ours_run
        .buffers
        .iter()
        .all(|(k, a)| theirs_run.buffers.get(k).is_some_and(|b| b.bytes == a.bytes));
    Ok(KernelRow {
        name: spec.kernel.clone(),
        cycles: [ours_run.stats.cycles, theirs_run.stats.cycles],
        registers: [ours_regs, theirs_regs],
        instructions: [ours_insts, theirs_insts],
        compile,
        warp_instructions: ours_run.stats.warp_instructions,
        sim_rate: [functional_rate, timed_rate],
        same_output,
        hazards: ours_run.stats.hazards + theirs_run.stats.hazards,
    })
}

fn geomean(v: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = v.fold((0.0, 0usize), |(s, n), x| (s + x.ln(), n + 1));
    if n == 0 { f64::NAN } else { (sum / n as f64).exp() }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("{cpu}, {cores} cores available, {}", std::env::consts::OS)
}

/// The corpus file's compile times: (ptxc, ptxas).
fn corpus_times(bin: &Path, scratch: &Path) -> Result<(String, Duration, Duration), String> {
    let dir = root().join("tests/data/corpus");
    let biggest = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .max_by_key(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
        .ok_or("no corpus file")?;
    let src = std::fs::read_to_string(&biggest).map_err(|e| e.to_string())?;
    let name = biggest.file_name().unwrap().to_string_lossy().into_owned();
    let out = scratch.join("corpus.cubin");
    let ours = time_it(COMPILE_RUNS, || ptxc_compile(&src, &name).map(|_| ()))?;
    let theirs = time_it(COMPILE_RUNS, || ptxas(bin, &biggest, &out))?;
    Ok((format!("{name} ({} KB)", src.len() / 1024), ours, theirs))
}

fn render(rows: &[KernelRow], corpus: &(String, Duration, Duration)) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "# Benchmarks: ptxc against ptxas\n\n\
         Produced by `cargo run --release --bin bench-report` (needs the CUDA oracle for ptxas: \
         `CUDA_ORACLE_BIN`, or `scripts/cuda-oracle install`). Machine: {}.\n\n\
         Kernels: `tests/kernels/<name>.ptx` (nvcc -O3 output), launched as \
         `benches/suite/<name>.toml` says (deterministic random inputs). ptxas is \
         `ptxas -arch=sm_75 -O3`; ptxc runs with its defaults. Cycles come from the timed \
         simulator (small device configuration) for both cubins; \"same out\" says whether \
         both cubins produced byte-identical buffers (float results may differ in the last \
         bits where the compilers contract or order operations differently); both cubins' results \
         are checked against Rust host references by `tests/sim_kernels.rs` and \
         `tests/suite_references.rs`. Compile times are \
         wall-clock medians of {COMPILE_RUNS} runs (ptxc in-process, ptxas as a process). \
         Simulator speed is warp instructions per second of wall time on ptxc's cubin.\n\n",
        machine()
    );
    s.push_str(
        "| kernel | cycles ptxc | cycles ptxas | ratio | regs ptxc | regs ptxas | insts ptxc | insts ptxas | \
         compile ptxc ms | compile ptxas ms | speed-up | same out | sim functional Mwi/s | sim timed Mwi/s |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:-:|---:|---:|\n",
    );
    for r in rows {
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {:.3} | {} | {} | {} | {} | {:.2} | {:.2} | {:.1}x | {} | {:.2} | {:.2} |",
            r.name,
            r.cycles[0],
            r.cycles[1],
            r.cycles[0] as f64 / r.cycles[1].max(1) as f64,
            r.registers[0],
            r.registers[1],
            r.instructions[0],
            r.instructions[1],
            ms(r.compile[0]),
            ms(r.compile[1]),
            r.compile[1].as_secs_f64() / r.compile[0].as_secs_f64().max(1e-9),
            if r.same_output { "yes" } else { "no" },
            r.sim_rate[0] / 1e6,
            r.sim_rate[1] / 1e6,
        );
    }
    let cycles = geomean(rows.iter().map(|r| r.cycles[0] as f64 / r.cycles[1].max(1) as f64));
    let speedup = geomean(
        rows.iter()
            .map(|r| r.compile[1].as_secs_f64() / r.compile[0].as_secs_f64().max(1e-9)),
    );
    let regs = geomean(
        rows.iter()
            .map(|r| r.registers[0] as f64 / r.registers[1].max(1) as f64),
    );
    let insts = geomean(
        rows.iter()
            .map(|r| r.instructions[0] as f64 / r.instructions[1].max(1) as f64),
    );
    let hazards: u64 = rows.iter().map(|r| r.hazards).sum();
    let warp_instructions: u64 = rows.iter().map(|r| r.warp_instructions).sum();
    let _ = write!(
        s,
        "\n## Geometric means over {} kernels\n\n\
         - simulated cycles, ptxc / ptxas: **{cycles:.3}**\n\
         - registers, ptxc / ptxas: {regs:.3}; SASS instructions, ptxc / ptxas: {insts:.3}\n\
         - compile time, ptxas / ptxc (speed-up): **{speedup:.1}x**\n\
         - hazards reported by the simulator over all runs: {hazards}; warp instructions simulated (ptxc, timed): {warp_instructions}\n\n\
         ## The 1 MB corpus file\n\n\
         {}: ptxc {:.0} ms, ptxas {:.0} ms, speed-up **{:.1}x** (medians of {COMPILE_RUNS} runs).\n",
        rows.len(),
        corpus.0,
        ms(corpus.1),
        ms(corpus.2),
        corpus.2.as_secs_f64() / corpus.1.as_secs_f64().max(1e-9),
    );
    s
}

fn main() {
    if let Err(e) = real_main() {
        eprintln!("bench-report: {e}");
        std::process::exit(1);
    }
}

fn real_main() -> Result<(), String> {
    let bin = oracle_bin()?;
    let scratch = std::env::temp_dir().join("ptxc-bench-report");
    std::fs::create_dir_all(&scratch).map_err(|e| e.to_string())?;
    let mut specs: Vec<PathBuf> = std::fs::read_dir(root().join("benches/suite"))
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    specs.sort();
    let mut rows = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        eprint!(
            "[{}/{}] {} ... ",
            i + 1,
            specs.len(),
            spec.file_stem().unwrap().to_string_lossy()
        );
        let t = Instant::now();
        let row = measure(&bin, spec, &scratch)?;
        eprintln!(
            "cycles {} vs {} ({:.2}x), {:.1}s",
            row.cycles[0],
            row.cycles[1],
            row.cycles[0] as f64 / row.cycles[1].max(1) as f64,
            t.elapsed().as_secs_f64()
        );
        rows.push(row);
    }
    eprint!("corpus file ... ");
    let corpus = corpus_times(&bin, &scratch)?;
    eprintln!("ptxc {:.0} ms, ptxas {:.0} ms", ms(corpus.1), ms(corpus.2));
    let doc = render(&rows, &corpus);
    let path = root().join("docs/BENCHMARKS.md");
    std::fs::write(&path, &doc).map_err(|e| format!("{}: {e}", path.display()))?;
    print!("{doc}");
    eprintln!("wrote {}", path.display());
    Ok(())
}
