//! `cargo run --release --bin bench-report`: measures ptxc against ptxas on the benchmark
//! suite (`benches/suite/*.toml`, kernels from `tests/kernels`) and on the largest corpus
//! file, and writes `docs/BENCHMARKS.md`. Per kernel: simulated cycles of both cubins on the
//! timed engine and their ratio, registers, SASS instruction counts and the simulator's speed.
//! Compile cost is measured on whole processes (wall time, CPU time, peak memory; medians of
//! several runs, ptxc and ptxas alternating) for every suite kernel, the largest corpus file
//! and a 10 MB module made of copies of it. `--compile-only` measures just the compile costs
//! and replaces only that section of the document; `--modules-only` measures just the corpus
//! file and the large module and prints their table without writing the document; `--help`
//! lists the options.
//! NVIDIA's ptxas serves only as the baseline (from the CUDA oracle, `CUDA_ORACLE_BIN`).

use ptxc::bench::compare_compilers;
use ptxc::bench::module_gen::replicate_to_size;
use ptxc::bench::process::ProcessCost;
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
/// Repetitions for the 10 MB module (each ptxas run takes many seconds).
const LARGE_MODULE_RUNS: usize = 3;
/// Size of the large module.
const LARGE_MODULE_BYTES: usize = 10 * 1000 * 1000;

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
    compile: [ProcessCost; 2],
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

/// The whole-process compile costs of the suite kernel of `spec_path`: [ptxc, ptxas].
/// The PTX of suite kernel `name`: `tests/kernels/<name>.ptx`, or for the tensor-core
/// kernels `tests/tensor/<name>.ptx`.
fn suite_ptx(name: &str) -> PathBuf {
    let plain = root().join("tests/kernels").join(format!("{name}.ptx"));
    if plain.exists() {
        plain
    } else {
        root().join("tests/tensor").join(format!("{name}.ptx"))
    }
}

fn suite_compile_cost(
    bin: &Path,
    ptxc_exe: &Path,
    spec_path: &Path,
    scratch: &Path,
) -> Result<[ProcessCost; 2], String> {
    let spec = launch::load(spec_path)?;
    let ptx = suite_ptx(&spec.kernel);
    compare_compilers(
        ptxc_exe,
        &bin.join("ptxas"),
        &ptx,
        &scratch.join("timing.cubin"),
        COMPILE_RUNS,
    )
}

fn measure(bin: &Path, spec_path: &Path, scratch: &Path, compile: [ProcessCost; 2]) -> Result<KernelRow, String> {
    let spec = launch::load(spec_path)?;
    let ptx = suite_ptx(&spec.kernel);
    let src = std::fs::read_to_string(&ptx).map_err(|e| format!("{}: {e}", ptx.display()))?;
    let theirs_path = scratch.join(format!("{}.cubin", spec.kernel));
    let ours = ptxc_compile(&src, &spec.kernel)?;
    ptxas(bin, &ptx, &theirs_path)?;
    let theirs = std::fs::read(&theirs_path).map_err(|e| e.to_string())?;
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

/// Compile costs of one module: its description and [ptxc, ptxas].
struct ModuleCost {
    what: String,
    /// Size of the PTX in bytes.
    bytes: usize,
    cost: [ProcessCost; 2],
}

/// The one-minute load average of the machine (`/proc/loadavg`), if known.
fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// A sentence on the machine's load around the measurement (both compilers share it: the
/// ratios hold, the absolute times grow with it).
fn load_note(before: Option<f64>, after: Option<f64>) -> String {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    match (before, after) {
        (Some(a), Some(b)) => format!(
            "The machine has {cores} cores; its one-minute load average was {a:.1} before the \
             measurement and {b:.1} after it (other work shares the cores: absolute times grow \
             with the load, and ptxc's parallel compilation gains less when the cores are busy)."
        ),
        _ => format!("The machine has {cores} cores."),
    }
}

/// The suite's specifications (`benches/suite/*.toml`), sorted.
fn suite_specs() -> Result<Vec<PathBuf>, String> {
    let mut specs: Vec<PathBuf> = std::fs::read_dir(root().join("benches/suite"))
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    specs.sort();
    Ok(specs)
}

/// The whole-process compile costs of every suite kernel, named, in the specifications' order.
fn suite_compile_costs(bin: &Path, ptxc_exe: &Path, scratch: &Path) -> Result<Vec<(String, [ProcessCost; 2])>, String> {
    let specs = suite_specs()?;
    eprint!("compile costs of {} suite kernels ... ", specs.len());
    let costs = specs
        .iter()
        .map(|spec| {
            let name = spec.file_stem().unwrap_or_default().to_string_lossy().into_owned();
            suite_compile_cost(bin, ptxc_exe, spec, scratch).map(|c| (name, c))
        })
        .collect::<Result<Vec<_>, _>>()?;
    eprintln!("done");
    Ok(costs)
}

/// `doc` with its section under the second-level heading starting with `heading` (up to the
/// next second-level heading) replaced by `section` (which starts with a blank line and its
/// own heading); `None` when the document has no such section.
fn replace_section(doc: &str, heading: &str, section: &str) -> Option<String> {
    let mut offset = 0;
    let mut start = None;
    let mut end = doc.len();
    for line in doc.split_inclusive('\n') {
        if line.starts_with("## ") {
            if start.is_some() {
                end = offset;
                break;
            }
            if line.starts_with(heading) {
                start = Some(offset);
            }
        }
        offset += line.len();
    }
    let before = doc[..start?].trim_end();
    let body = section.trim_matches('\n');
    let after = &doc[end..];
    Some(if after.is_empty() {
        format!("{before}\n\n{body}\n")
    } else {
        format!("{before}\n\n{body}\n\n{after}")
    })
}

/// The largest corpus file.
fn corpus_file() -> Result<PathBuf, String> {
    let dir = root().join("tests/data/corpus");
    std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .max_by_key(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
        .ok_or_else(|| "no corpus file".into())
}

/// Whole-process compile costs of the largest corpus file and of a 10 MB module made of
/// renamed copies of it.
fn module_costs(bin: &Path, ptxc_exe: &Path, scratch: &Path) -> Result<[ModuleCost; 2], String> {
    let file = corpus_file()?;
    let src = std::fs::read_to_string(&file).map_err(|e| e.to_string())?;
    let name = file.file_name().unwrap_or_default().to_string_lossy().into_owned();
    let out = scratch.join("module.cubin");
    let ptxas = bin.join("ptxas");
    eprint!("corpus file ... ");
    let corpus = compare_compilers(ptxc_exe, &ptxas, &file, &out, COMPILE_RUNS)?;
    eprintln!("{}", cost_line(&corpus));
    let (large, copies) = replicate_to_size(&src, LARGE_MODULE_BYTES)?;
    let large_path = scratch.join("large_module.ptx");
    std::fs::write(&large_path, &large).map_err(|e| format!("{}: {e}", large_path.display()))?;
    eprint!("{} MB module ... ", large.len() / 1_000_000);
    let big = compare_compilers(ptxc_exe, &ptxas, &large_path, &out, LARGE_MODULE_RUNS)?;
    eprintln!("{}", cost_line(&big));
    Ok([
        ModuleCost {
            what: format!("{name} ({} KB)", src.len() / 1024),
            bytes: src.len(),
            cost: corpus,
        },
        ModuleCost {
            what: format!(
                "{copies} renamed copies of it as one module ({:.1} MB, {LARGE_MODULE_RUNS} runs)",
                large.len() as f64 / 1e6
            ),
            bytes: large.len(),
            cost: big,
        },
    ])
}

fn cost_line(c: &[ProcessCost; 2]) -> String {
    format!(
        "wall {:.0} vs {:.0} ms, CPU {:.0} vs {:.0} ms, peak {:.1} vs {:.1} MiB",
        ms(c[0].wall),
        ms(c[1].wall),
        ms(c[0].cpu),
        ms(c[1].cpu),
        c[0].peak_mib(),
        c[1].peak_mib()
    )
}

/// The ptxc executable beside this one, built first (a no-op when it is up to date) so that
/// the measured process is the current compiler.
fn ptxc_executable() -> Result<PathBuf, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--release", "--quiet", "--bin", "ptxc", "--manifest-path"])
        .arg(root().join("Cargo.toml"))
        .status()
        .map_err(|e| format!("cargo build --bin ptxc: {e}"))?;
    if !status.success() {
        return Err("cargo build --release --bin ptxc failed".into());
    }
    let me = std::env::current_exe().map_err(|e| e.to_string())?;
    let exe = me.with_file_name(format!("ptxc{}", std::env::consts::EXE_SUFFIX));
    if !exe.exists() {
        return Err(format!("{} not found (run bench-report with --release)", exe.display()));
    }
    Ok(exe)
}

fn render(rows: &[KernelRow], modules: &[ModuleCost; 2], load: &str) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "# Benchmarks: ptxc against ptxas\n\n\
         Produced by `cargo run --release --bin bench-report` (needs the CUDA oracle for ptxas: \
         `CUDA_ORACLE_BIN`, or `scripts/cuda-oracle install`). Machine: {}.\n\n\
         Kernels: `tests/kernels/<name>.ptx` (the tensor-core GEMMs `tests/tensor/<name>.ptx`; nvcc -O3 output), launched as \
         `benches/suite/<name>.toml` says (deterministic random inputs). ptxas is \
         `ptxas -arch=sm_75 -O3`; ptxc runs with its defaults. Cycles come from the timed \
         simulator (small device configuration) for both cubins; \"same out\" says whether \
         both cubins produced byte-identical buffers (float results may differ in the last \
         bits where the compilers contract or order operations differently); both cubins' results \
         are checked against Rust host references by `tests/sim_kernels.rs` and \
         `tests/suite_references.rs`. \
         Simulator speed is warp instructions per second of wall time on ptxc's cubin.\n\n",
        machine()
    );
    s.push_str(
        "| kernel | cycles ptxc | cycles ptxas | ratio | regs ptxc | regs ptxas | insts ptxc | insts ptxas | \
         same out | sim functional Mwi/s | sim timed Mwi/s |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|:-:|---:|---:|\n",
    );
    for r in rows {
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {:.3} | {} | {} | {} | {} | {} | {:.2} | {:.2} |",
            r.name,
            r.cycles[0],
            r.cycles[1],
            r.cycles[0] as f64 / r.cycles[1].max(1) as f64,
            r.registers[0],
            r.registers[1],
            r.instructions[0],
            r.instructions[1],
            if r.same_output { "yes" } else { "no" },
            r.sim_rate[0] / 1e6,
            r.sim_rate[1] / 1e6,
        );
    }
    let cycles = geomean(rows.iter().map(|r| r.cycles[0] as f64 / r.cycles[1].max(1) as f64));
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
         - hazards reported by the simulator over all runs: {hazards}; warp instructions simulated (ptxc, timed): {warp_instructions}\n",
        rows.len(),
    );
    let costs: Vec<(String, [ProcessCost; 2])> = rows.iter().map(|r| (r.name.clone(), r.compile)).collect();
    s.push_str(&render_compile_costs(&costs, modules, load));
    s
}

/// The whole-process compile table: every suite kernel, the suite as a whole, the corpus file
/// and the large module, with ptxc / ptxas ratios.
fn render_compile_costs(rows: &[(String, [ProcessCost; 2])], modules: &[ModuleCost; 2], load: &str) -> String {
    let mut s = format!(
        "\n## Compile cost, whole processes\n\n\
         Each compiler runs as the process a user runs (`ptxc compile in.ptx -o out.cubin`, \
         `ptxas -arch=sm_75 -O3 in.ptx -o out.cubin`), alternating, {COMPILE_RUNS} times per input \
         unless noted; medians of wall time, CPU time (user + system, all threads) and peak \
         resident memory as the kernel accounts them (`wait4`). Ratios are ptxc / ptxas (below 1: \
         ptxc cheaper). The suite row adds the kernels' wall and CPU times and takes the largest \
         peak. {load}\n\n\
         | input | wall ptxc ms | wall ptxas ms | ratio | CPU ptxc ms | CPU ptxas ms | ratio | peak ptxc MiB | peak ptxas MiB | ratio |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    );
    for (name, cost) in rows {
        cost_row(&mut s, &format!("`{name}`"), cost);
    }
    let total = |i: usize| ProcessCost {
        wall: rows.iter().map(|r| r.1[i].wall).sum(),
        cpu: rows.iter().map(|r| r.1[i].cpu).sum(),
        peak_rss: rows.iter().map(|r| r.1[i].peak_rss).max().unwrap_or(0),
    };
    cost_row(
        &mut s,
        &format!("**suite** ({} kernels)", rows.len()),
        &[total(0), total(1)],
    );
    for m in modules {
        cost_row(&mut s, &m.what, &m.cost);
    }
    let [small, large] = modules;
    let _ = write!(
        s,
        "\nScaling: the large module, {:.1}x the 1 MB file's size, takes {:.1}x its wall time in \
         ptxc ({:.1}x its CPU time), {:.1}x in ptxas.\n",
        large.bytes as f64 / small.bytes.max(1) as f64,
        large.cost[0].wall.as_secs_f64() / small.cost[0].wall.as_secs_f64().max(1e-9),
        large.cost[0].cpu.as_secs_f64() / small.cost[0].cpu.as_secs_f64().max(1e-9),
        large.cost[1].wall.as_secs_f64() / small.cost[1].wall.as_secs_f64().max(1e-9),
    );
    s
}

fn cost_row(s: &mut String, what: &str, c: &[ProcessCost; 2]) {
    let ratio = |a: f64, b: f64| a / b.max(1e-9);
    let _ = writeln!(
        s,
        "| {what} | {:.1} | {:.1} | {:.3} | {:.1} | {:.1} | {:.3} | {:.1} | {:.1} | {:.3} |",
        ms(c[0].wall),
        ms(c[1].wall),
        ratio(ms(c[0].wall), ms(c[1].wall)),
        ms(c[0].cpu),
        ms(c[1].cpu),
        ratio(ms(c[0].cpu), ms(c[1].cpu)),
        c[0].peak_mib(),
        c[1].peak_mib(),
        ratio(c[0].peak_mib(), c[1].peak_mib()),
    );
}

/// The second-level headings this report writes; every other section of the document
/// (written by other tools, such as `scripts/bench-targets`' per-target sections) is kept.
const OWN_SECTIONS: &[&str] = &["## Geometric means", "## Compile cost", "## The 1 MB corpus file"];

/// The sections of `doc` from its first second-level heading this report does not write.
fn kept_sections(doc: &str) -> String {
    let mut offset = 0;
    for line in doc.split_inclusive('\n') {
        if line.starts_with("## ") && !OWN_SECTIONS.iter().any(|h| line.starts_with(h)) {
            return format!("\n{}", &doc[offset..]);
        }
        offset += line.len();
    }
    String::new()
}

fn main() {
    if let Err(e) = real_main() {
        eprintln!("bench-report: {e}");
        std::process::exit(1);
    }
}

/// `--help`.
const USAGE: &str = "usage: bench-report [--compile-only | --modules-only]\n\
\n\
Measures ptxc against ptxas (from CUDA_ORACLE_BIN) and writes docs/BENCHMARKS.md.\n\
  (no option)      everything: simulated cycles, registers, instructions, simulator speed and\n\
                   compile costs; rewrites the document (keeping sections it does not write)\n\
  --compile-only   only the whole-process compile costs (suite kernels, the corpus file, the\n\
                   10 MB module); replaces just that section of the document\n\
  --modules-only   only the corpus file and the 10 MB module, printed, the document untouched\n";

fn real_main() -> Result<(), String> {
    if std::env::args().any(|a| a == "--help" || a == "-h") {
        print!("{USAGE}");
        return Ok(());
    }
    let bin = oracle_bin()?;
    let ptxc_exe = ptxc_executable()?;
    let scratch = std::env::temp_dir().join("ptxc-bench-report");
    std::fs::create_dir_all(&scratch).map_err(|e| e.to_string())?;
    if std::env::args().any(|a| a == "--compile-only") {
        // Only the compile-cost section, measured and replaced in the document.
        let before = load_average();
        let costs = suite_compile_costs(&bin, &ptxc_exe, &scratch)?;
        let modules = module_costs(&bin, &ptxc_exe, &scratch)?;
        let section = render_compile_costs(&costs, &modules, &load_note(before, load_average()));
        let path = root().join("docs/BENCHMARKS.md");
        let previous = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let doc = replace_section(&previous, "## Compile cost", &section)
            .ok_or_else(|| format!("{}: no compile-cost section to replace", path.display()))?;
        std::fs::write(&path, &doc).map_err(|e| format!("{}: {e}", path.display()))?;
        print!("{section}");
        eprintln!("wrote the compile-cost section of {}", path.display());
        return Ok(());
    }
    if std::env::args().any(|a| a == "--modules-only") {
        // Only the whole-process costs of the corpus file and the large module, printed.
        let before = load_average();
        let modules = module_costs(&bin, &ptxc_exe, &scratch)?;
        print!(
            "{}",
            render_compile_costs(&[], &modules, &load_note(before, load_average()))
        );
        return Ok(());
    }
    let specs = suite_specs()?;
    // Compile costs first, while this process is small: Linux carries the peak resident set of
    // a process across `exec`, so a child spawned by a large process reports at least the
    // parent's size as its own peak.
    let before = load_average();
    let costs: Vec<[ProcessCost; 2]> = suite_compile_costs(&bin, &ptxc_exe, &scratch)?
        .into_iter()
        .map(|(_, c)| c)
        .collect();
    let modules = module_costs(&bin, &ptxc_exe, &scratch)?;
    let load = load_note(before, load_average());
    let mut rows = Vec::new();
    for (i, (spec, &compile)) in specs.iter().zip(&costs).enumerate() {
        eprint!(
            "[{}/{}] {} ... ",
            i + 1,
            specs.len(),
            spec.file_stem().unwrap().to_string_lossy()
        );
        let t = Instant::now();
        let row = measure(&bin, spec, &scratch, compile)?;
        eprintln!(
            "cycles {} vs {} ({:.2}x), {:.1}s",
            row.cycles[0],
            row.cycles[1],
            row.cycles[0] as f64 / row.cycles[1].max(1) as f64,
            t.elapsed().as_secs_f64()
        );
        rows.push(row);
    }
    let path = root().join("docs/BENCHMARKS.md");
    let mut doc = render(&rows, &modules, &load);
    let previous = std::fs::read_to_string(&path).unwrap_or_default();
    doc.push_str(&kept_sections(&previous));
    std::fs::write(&path, &doc).map_err(|e| format!("{}: {e}", path.display()))?;
    print!("{doc}");
    eprintln!("wrote {}", path.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{kept_sections, replace_section};

    #[test]
    fn one_section_is_replaced_and_the_rest_kept() {
        let doc = "# B\n\ntext\n\n## Compile cost, whole processes\n\n| old |\n\n## Ampere\n\nrows\n";
        let new = "\n## Compile cost, whole processes\n\n| new |\n";
        assert_eq!(
            replace_section(doc, "## Compile cost", new).unwrap(),
            "# B\n\ntext\n\n## Compile cost, whole processes\n\n| new |\n\n## Ampere\n\nrows\n"
        );
        let last = "# B\n\n## Compile cost\n\n| old |\n";
        assert_eq!(
            replace_section(last, "## Compile cost", "\n## Compile cost\n\n| new |\n").unwrap(),
            "# B\n\n## Compile cost\n\n| new |\n"
        );
        assert_eq!(replace_section("# B\n", "## Compile cost", new), None);
    }

    #[test]
    fn foreign_sections_are_kept_and_own_ones_replaced() {
        let doc = "# Benchmarks\n\ntext\n\n## Geometric means over 3 kernels\n\n- x\n\n\
                   ## Compile cost, whole processes\n\n| a |\n\n## Ampere and Ada\n\n### sm_80\n\nrows\n";
        assert_eq!(kept_sections(doc), "\n## Ampere and Ada\n\n### sm_80\n\nrows\n");
        assert_eq!(kept_sections("# Benchmarks\n\n## Geometric means\n"), "");
    }
}
