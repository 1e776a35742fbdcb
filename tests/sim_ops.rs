//! The op tests (`tests/ops/*.ptx`) three ways: ptxas's cubin on the simulator (timed
//! engine), the MIR interpreter, and ptxc's cubin on the simulator (default registers and
//! `--max-registers 16`) must write the same output words, with zero hazards on the
//! simulator. Each op test is a kernel `(in, out)` launched as 2 blocks of 64 threads with
//! four u32 inputs per thread and `// outputs: N` u32 results per thread.
//!
//! The same tests run on sm_80, sm_86, sm_89 and sm_90 (the PTX's `.target` raised to the
//! architecture and `.version` to 7.8): ptxas's and ptxc's cubins for the target against the
//! MIR interpreter, with zero hazards. This holds the simulator's newer-architecture forms
//! and timing to ptxas's code for them (ptxas reads an `I2FP` result with `FSETP` 4 cycles
//! later on sm_90, which an FMA-timed `I2FP` turned into a hazard and a stale compare).
//!
//! The ptxc-against-MIR half needs no NVIDIA tool; the ptxas half needs ptxas (`CUDA_ORACLE_BIN`,
//! or installed by `scripts/cuda-oracle`).

mod common;

use common::rng::xorshift64;
use common::*;
use ptxc::launch::{LaunchSpec, ParamSpec};
use ptxc::run::{RunOptions, run, run_mir};
use ptxc_sass::isa::Arch;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Threads per block and blocks of an op test launch.
const BLOCK: u32 = 64;
const GRID: u32 = 2;

/// The op tests.
fn op_tests() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("tests/ops"))
        .expect("tests/ops")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    v.sort();
    v
}

/// The `// outputs: N` header.
fn outputs(ptx: &str) -> usize {
    ptx.lines()
        .find_map(|l| l.trim().strip_prefix("// outputs:"))
        .and_then(|n| n.trim().parse().ok())
        .expect("an `// outputs: N` line")
}

/// The kernel name (the first `.entry`).
fn kernel_name(ptx: &str) -> String {
    let at = ptx.find(".entry").expect("an .entry") + ".entry".len();
    ptx[at..]
        .trim_start()
        .split(|c: char| c == '(' || c.is_whitespace())
        .next()
        .expect("a name")
        .to_string()
}

/// Deterministic inputs: small and large values, signs, powers of two, and floats.
pub fn inputs() -> Vec<u32> {
    let edges = [
        0u32,
        1,
        2,
        31,
        32,
        0xffff_ffff,
        0x8000_0000,
        0x7fff_ffff,
        0x3f80_0000,
        0xbf80_0000,
        0x7f80_0000,
        0x7fc0_0000,
    ];
    xorshift64()
        .take((GRID * BLOCK * 4) as usize)
        .enumerate()
        .map(|(i, x)| match i % 5 {
            0 => edges[(x % edges.len() as u64) as usize],
            1 => (x >> 40) as u32 & 0xff,
            _ => (x >> 16) as u32,
        })
        .collect()
}

/// The launch spec of an op test; the input goes to `dir/in.npy`.
fn spec(kernel: &str, n_out: usize, dir: &Path) -> LaunchSpec {
    let buffers = in_out_buffers(dir, ("in", &inputs()), ("out", n_out * (GRID * BLOCK) as usize));
    LaunchSpec {
        kernel: kernel.to_string(),
        grid: [GRID, 1, 1],
        block: [BLOCK, 1, 1],
        dynamic_shared_bytes: 1024,
        cluster: None,
        params: ["in", "out"]
            .iter()
            .map(|b| ParamSpec::Ptr {
                buffer: b.to_string(),
                offset: 0,
            })
            .collect(),
        buffers,
        symbols: BTreeMap::new(),
        limits: Default::default(),
    }
}

/// Runs a cubin on the timed engine: its output words, or why not.
fn simulate(cubin: &[u8], spec: &LaunchSpec) -> Result<Vec<u32>, String> {
    let out = run(cubin, spec, &RunOptions::default())?;
    if out.stats.hazards > 0 {
        return Err(format!(
            "{} hazards, first: {:?}",
            out.stats.hazards,
            out.stats.hazard_reports.first()
        ));
    }
    let s = &out.stats;
    if s.warp_cycles != s.warp_instructions + s.stalls.total() {
        return Err(format!(
            "{} warp-cycles are not {} issues plus the stalls {:?}",
            s.warp_cycles, s.warp_instructions, s.stalls
        ));
    }
    Ok(words(&out.buffers["out"].bytes))
}

/// The differences between two output arrays (thread, output index, values), at most 6.
fn differences(n_out: usize, want: &[u32], got: &[u32]) -> Vec<String> {
    want.iter()
        .zip(got)
        .enumerate()
        .filter(|(_, (w, g))| w != g)
        .take(6)
        .map(|(i, (w, g))| format!("thread {} output {}: {g:#x}, want {w:#x}", i / n_out, i % n_out))
        .collect()
}

/// Which compilers' cubins an op test runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Compilers {
    /// ptxc's, with default registers and with `--max-registers 16`.
    Ptxc,
    /// ptxas's.
    Ptxas,
}

/// The op test's PTX for `arch`: as written for sm_75, else with `.target` raised to the
/// architecture and `.version` to 7.8 (the first version that knows sm_90).
fn source_for(src: &str, arch: Arch) -> String {
    if arch == Arch::Sm75 {
        return src.to_string();
    }
    src.lines()
        .map(|l| {
            if l.starts_with(".version") {
                ".version 7.8".to_string()
            } else if l.starts_with(".target") {
                format!(".target {}", arch.name())
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs one op test on the MIR interpreter and on the cubins of `which` for `arch`; the
/// failures.
fn check(path: &Path, which: Compilers, arch: Arch) -> Vec<String> {
    let name = path.file_stem().unwrap().to_string_lossy().into_owned();
    let src = source_for(&std::fs::read_to_string(path).unwrap(), arch);
    let (kernel, n_out) = (kernel_name(&src), outputs(&src));
    let dir = scratch(&format!("sim_ops_{name}_{which:?}_{}", arch.name()));
    let spec = spec(&kernel, n_out, &dir);
    let mut failures = Vec::new();
    let name = format!("{name} ({})", arch.name());

    let module = ptxc::pipeline::lower_ptx(&src, &name).unwrap_or_else(|e| panic!("{name}: {}", e.0));
    let config = ptxc_sim::Config::for_arch(arch).expect("a device model of the target");
    let mir = run_mir(&module, &spec, config).unwrap_or_else(|e| panic!("{name} on the MIR interpreter: {e}"));
    let want = words(&mir.buffers["out"].bytes);

    let mut runs: Vec<(String, Result<Vec<u32>, String>)> = Vec::new();
    if which == Compilers::Ptxas {
        let (ptx, cubin) = (dir.join("op.ptx"), dir.join("ptxas.cubin"));
        std::fs::write(&ptx, &src).unwrap();
        ptxas_for(arch.name(), &ptx, &cubin);
        runs.push(("ptxas".into(), simulate(&std::fs::read(&cubin).unwrap(), &spec)));
    }
    let ptxc_runs: &[Option<u32>] = if which == Compilers::Ptxc {
        &[None, Some(16)]
    } else {
        &[]
    };
    for &max_registers in ptxc_runs {
        let opts = ptxc::pipeline::CompileOptions {
            arch,
            max_registers,
            ..Default::default()
        };
        let tag = match max_registers {
            None => "ptxc".to_string(),
            Some(n) => format!("ptxc --max-registers {n}"),
        };
        let result = ptxc::pipeline::compile_ptx(&src, &name, &opts)
            .map_err(|e| format!("compile: {}", e.0))
            .and_then(|c| simulate(&c, &spec));
        runs.push((tag, result));
    }
    for (tag, result) in runs {
        match result {
            Err(e) => failures.push(format!("{name} ({tag}): {e}")),
            Ok(got) => {
                let diff = differences(n_out, &want, &got);
                if !diff.is_empty() {
                    failures.push(format!("{name} ({tag}) differs from the MIR:\n  {}", diff.join("\n  ")));
                }
            }
        }
    }
    failures
}

fn check_all(which: Compilers, archs: &[Arch]) {
    let tests = op_tests();
    assert!(!tests.is_empty(), "no op tests in tests/ops");
    let failures: Vec<String> = archs
        .iter()
        .flat_map(|&arch| tests.iter().flat_map(move |p| check(p, which, arch)))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The architectures after Turing the op tests also run on.
const NEWER: [Arch; 4] = [Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90];

#[test]
fn op_tests_agree_on_ptxc_and_the_mir_with_zero_hazards() {
    check_all(Compilers::Ptxc, &[Arch::Sm75]);
}

#[test]
fn op_tests_agree_on_ptxas_and_the_mir_with_zero_hazards() {
    check_all(Compilers::Ptxas, &[Arch::Sm75]);
}

#[test]
fn op_tests_agree_on_ptxc_and_the_mir_on_newer_targets() {
    check_all(Compilers::Ptxc, &NEWER);
}

#[test]
fn op_tests_agree_on_ptxas_and_the_mir_on_newer_targets() {
    check_all(Compilers::Ptxas, &NEWER);
}
