//! The kernels of PTX that needs sm_80 (`tests/ampere`), on sm_80, sm_86, sm_89 and sm_90: ptxas's
//! cubin and ptxc's cubin on the simulator (timed engine, zero hazards) and the MIR
//! interpreter must all write what a host reference computes.
//!
//! `cp_async`: one block of 64 threads copies pieces of `in` into shared memory with
//! `cp.async` (16-byte `.cg`, 8- and 4-byte `.ca`, and zero-filling copies with a src-size),
//! in two commit groups, and writes 14 words per thread.
//!
//! The ptxas half needs ptxas (`CUDA_ORACLE_BIN`, or installed by `scripts/cuda-oracle`).

mod common;

use common::*;
use ptxc::launch::LaunchSpec;
use ptxc::run::{RunOptions, run, run_mir};
use ptxc_sass::isa::Arch;
use std::path::Path;

/// The targets the kernels run on.
const TARGETS: [Arch; 4] = [Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90];
/// Threads of the `cp_async` block.
const THREADS: usize = 64;
/// Words of `in` the `cp_async` kernel reads (up to byte 5120).
const IN_WORDS: usize = 1280;
/// Words each thread writes.
const OUT_PER_THREAD: usize = 14;

/// Deterministic input words.
fn input() -> Vec<u32> {
    (0..IN_WORDS as u32)
        .map(|i| i.wrapping_mul(0x9e37_79b9) ^ (i << 7) ^ 0x5a5a_0000)
        .collect()
}

/// The first `valid` bytes of the `words` at byte `at` of `input`, the rest zero.
fn zero_filled(input: &[u32], at: usize, words: usize, valid: usize) -> Vec<u32> {
    let bytes: Vec<u8> = input.iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut piece = bytes[at..at + 4 * words].to_vec();
    piece[valid..].fill(0);
    common::words(&piece)
}

/// What `cp_async` writes, computed on the host.
fn cp_async_reference(input: &[u32]) -> Vec<u32> {
    let mut out = Vec::new();
    for t in 0..THREADS {
        let n = (t + 1) % THREADS;
        out.push(input[4 * t]);
        out.push(input[4 * t + 3]);
        out.extend_from_slice(&input[4 * n..4 * n + 4]);
        out.extend_from_slice(&input[256 + 2 * n..256 + 2 * n + 2]);
        out.push(input[384 + n]);
        out.extend(zero_filled(input, 2048 + 4 * n, 1, n & 3));
        out.extend(zero_filled(input, 4096 + 16 * n, 4, n & 15));
    }
    out
}

/// The launch of `cp_async`; the input goes to `dir/in.npy`.
fn spec(dir: &Path) -> LaunchSpec {
    let buffers = in_out_buffers(dir, ("in", &input()), ("out", THREADS * OUT_PER_THREAD));
    one_block_spec("cp_async", THREADS as u32, buffers, &["in", "out"])
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
    Ok(words(&out.buffers["out"].bytes))
}

/// The first differences from the reference (thread, word, values).
fn differences(want: &[u32], got: &[u32]) -> Vec<String> {
    if want.len() != got.len() {
        return vec![format!("{} words, want {}", got.len(), want.len())];
    }
    want.iter()
        .zip(got)
        .enumerate()
        .filter(|(_, (w, g))| w != g)
        .take(6)
        .map(|(i, (w, g))| {
            format!(
                "thread {} word {}: {g:#x}, want {w:#x}",
                i / OUT_PER_THREAD,
                i % OUT_PER_THREAD
            )
        })
        .collect()
}

fn ptx_path() -> std::path::PathBuf {
    root().join("tests/ampere/cp_async.ptx")
}

#[test]
fn cp_async_on_the_mir_interpreter_equals_the_host_reference() {
    let src = std::fs::read_to_string(ptx_path()).unwrap();
    let dir = scratch("sim_ampere_mir");
    let spec = spec(&dir);
    let module = ptxc::pipeline::lower_ptx(&src, "cp_async").unwrap_or_else(|e| panic!("{}", e.0));
    let mir = run_mir(&module, &spec, Default::default()).unwrap_or_else(|e| panic!("MIR interpreter: {e}"));
    let diff = differences(&cp_async_reference(&input()), &words(&mir.buffers["out"].bytes));
    assert!(diff.is_empty(), "{}", diff.join("\n"));
}

#[test]
fn cp_async_compiled_by_ptxc_equals_the_host_reference_with_zero_hazards() {
    let src = std::fs::read_to_string(ptx_path()).unwrap();
    let want = cp_async_reference(&input());
    let mut failures = Vec::new();
    for arch in TARGETS {
        let dir = scratch(&format!("sim_ampere_ptxc_{}", arch.name()));
        let spec = spec(&dir);
        for max_registers in [None, Some(16)] {
            let opts = ptxc::pipeline::CompileOptions {
                arch,
                max_registers,
                ..Default::default()
            };
            let result = ptxc::pipeline::compile_ptx(&src, "cp_async", &opts)
                .map_err(|e| format!("compile: {}", e.0))
                .and_then(|c| simulate(&c, &spec));
            match result {
                Err(e) => failures.push(format!("{} {max_registers:?}: {e}", arch.name())),
                Ok(got) => failures.extend(
                    differences(&want, &got)
                        .into_iter()
                        .map(|d| format!("{}: {d}", arch.name())),
                ),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn cp_async_compiled_by_ptxas_equals_the_host_reference_with_zero_hazards() {
    let want = cp_async_reference(&input());
    let mut failures = Vec::new();
    for arch in TARGETS {
        let dir = scratch(&format!("sim_ampere_ptxas_{}", arch.name()));
        let spec = spec(&dir);
        let cubin = dir.join("ptxas.cubin");
        ptxas_for(arch.name(), &ptx_path(), &cubin);
        match simulate(&std::fs::read(&cubin).unwrap(), &spec) {
            Err(e) => failures.push(format!("{}: {e}", arch.name())),
            Ok(got) => failures.extend(
                differences(&want, &got)
                    .into_iter()
                    .map(|d| format!("{}: {d}", arch.name())),
            ),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
