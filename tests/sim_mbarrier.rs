//! `mbarrier` on shared memory (sm_80, `tests/ampere/mbarrier.ptx`), on sm_80, sm_86, sm_89
//! and sm_90: a producer/consumer kernel of 64 threads over three barrier phases (`init`,
//! `arrive`, `arrive.noComplete` with a count, `arrive_drop`, `arrive_drop.noComplete`,
//! `test_wait` with a state and with `.parity`, `pending_count`, `inval`). ptxas's cubin and
//! ptxc's cubin on the simulator (timed engine, zero hazards) and the MIR interpreter must all
//! write what a host reference computes; both cubins must disassemble with nvdisasm as with
//! `ptxc disasm`, and ptxc's arrivals must be the ATOMS.ARRIVE.64 ptxas uses. The same kernel
//! on generic addresses (`mbarrier_generic.ptx`) runs the same three ways: ptxc converts the
//! address to a shared one (ATOMS.ARRIVE.64), ptxas keeps it generic (ATOM.E.ARRIVE.64).
//! On sm_90 ptxas uses Hopper's SYNCS instructions (init by SYNCS.EXCH, arrivals of a whole
//! warp, PHASECHK waits), so the sums of pending counts its code writes are the warps'
//! ([`warp_arrival_reference`]); so does ptxc's, which lowers `mbarrier` for sm_90 to the
//! same SYNCS instructions (its `init` is one STS.64 of ptxas's words where ptxas swaps them
//! in with SYNCS.EXCH.64).
//!
//! The ptxas half needs ptxas (`CUDA_ORACLE_BIN`, or installed by `scripts/cuda-oracle`).

mod common;

use common::*;
use ptxc::launch::LaunchSpec;
use ptxc::run::{RunOptions, run, run_mir};
use ptxc_sass::isa::Arch;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The targets the kernel runs on.
const TARGETS: [Arch; 4] = [Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90];
/// Threads of the block.
const THREADS: usize = 64;
/// Words of `out`: four per thread and the two sums of pending counts.
const OUT_WORDS: usize = 4 * THREADS + 2;

/// Deterministic input words.
fn input() -> Vec<u32> {
    (0..THREADS as u32)
        .map(|i| i.wrapping_mul(0x9e37_79b9) ^ (i << 7) ^ 0x5a5a_0000)
        .collect()
}

/// What the kernel writes, computed on the host.
fn reference(input: &[u32]) -> Vec<u32> {
    let phase0: Vec<u32> = input.iter().map(|v| v.wrapping_mul(3).wrapping_add(1)).collect();
    let phase1: Vec<u32> = input.iter().map(|v| v ^ 0x5a5a_5a5a).collect();
    let read0 = |t: usize| phase0[(t + 33) % THREADS];
    let phase2: Vec<u32> = (0..32).map(|t| input[t].wrapping_add(read0(t))).collect();
    let mut out = Vec::with_capacity(OUT_WORDS);
    for t in 0..THREADS {
        // The late test_waits: phase 0's state complete (1), parity 1 not (0), parity 0 (4).
        out.extend([read0(t), phase1[(t + 17) % THREADS], phase2[(t + 5) % 32], 5]);
    }
    // Every arrival of a phase sees a different pending count: n, n-1, .., 1.
    out.extend([(1..=64).sum::<u32>(), (1..=32).sum::<u32>()]);
    out
}

/// What both compilers' code writes on `arch`: Hopper's arrivals are a warp's.
fn expected_for(arch: Arch) -> Vec<u32> {
    if arch >= Arch::Sm90 {
        warp_arrival_reference(&input())
    } else {
        reference(&input())
    }
}

/// [`reference`] where a warp arrives at once and its 32 threads see the same pending count
/// (ptxas's sm_90 code, SYNCS.ARRIVE: `runtime-sim/src/exec/semantics/syncs.rs`): 64 and 32
/// in the first phase, 32 in the last.
fn warp_arrival_reference(input: &[u32]) -> Vec<u32> {
    let mut out = reference(input);
    out.truncate(4 * THREADS);
    out.extend([64 * 32 + 32 * 32, 32 * 32]);
    out
}

/// The launch; the input goes to `dir/in.npy`.
fn spec(dir: &Path) -> LaunchSpec {
    let buffers = in_out_buffers(dir, ("in", &input()), ("out", OUT_WORDS));
    one_block_spec("mbarrier", THREADS as u32, buffers, &["in", "out"])
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

/// The first differences from the reference (word, values).
fn differences(want: &[u32], got: &[u32]) -> Vec<String> {
    if want.len() != got.len() {
        return vec![format!("{} words, want {}", got.len(), want.len())];
    }
    want.iter()
        .zip(got)
        .enumerate()
        .filter(|(_, (w, g))| w != g)
        .take(6)
        .map(|(i, (w, g))| format!("word {i}: {g:#x}, want {w:#x}"))
        .collect()
}

/// The kernel on `.shared` addresses and the same kernel on generic addresses.
const KERNELS: [&str; 2] = ["mbarrier.ptx", "mbarrier_generic.ptx"];

fn kernel_path(name: &str) -> PathBuf {
    root().join("tests/ampere").join(name)
}

/// ptxc's cubin of the kernel file `name` for `arch`.
fn compile(name: &str, arch: Arch, max_registers: Option<u32>) -> Result<Vec<u8>, String> {
    let src = std::fs::read_to_string(kernel_path(name)).unwrap();
    let opts = ptxc::pipeline::CompileOptions {
        arch,
        max_registers,
        ..Default::default()
    };
    ptxc::pipeline::compile_ptx(&src, "mbarrier", &opts).map_err(|e| format!("compile: {}", e.0))
}

#[test]
fn mbarrier_on_the_mir_interpreter_equals_the_host_reference() {
    for name in KERNELS {
        let src = std::fs::read_to_string(kernel_path(name)).unwrap();
        let dir = scratch("sim_mbarrier_mir");
        let spec = spec(&dir);
        let module = ptxc::pipeline::lower_ptx(&src, "mbarrier").unwrap_or_else(|e| panic!("{name}: {}", e.0));
        let mir =
            run_mir(&module, &spec, Default::default()).unwrap_or_else(|e| panic!("{name}: MIR interpreter: {e}"));
        let diff = differences(&reference(&input()), &words(&mir.buffers["out"].bytes));
        assert!(diff.is_empty(), "{name}: {}", diff.join("\n"));
        // The lowering for Hopper (`mbar_arrive`, `mbar_phase_test`): the interpreter arrives
        // one thread at a time, so each thread sees its own pending count.
        let checked = ptxc_frontend::parse_and_check(&src).expect("checked");
        let options = ptxc_mir::lower::LowerOptions {
            hopper_mbarrier: true,
            ..Default::default()
        };
        let module = ptxc_mir::lower::lower_module_with(&checked, options).expect("lowered");
        let mir = run_mir(&module, &spec, Default::default()).unwrap_or_else(|e| panic!("{name}: Hopper MIR: {e}"));
        let diff = differences(&reference(&input()), &words(&mir.buffers["out"].bytes));
        assert!(diff.is_empty(), "{name} (Hopper lowering): {}", diff.join("\n"));
    }
}

#[test]
fn mbarrier_compiled_by_ptxc_equals_the_host_reference_with_zero_hazards() {
    let mut failures = Vec::new();
    for (name, arch) in KERNELS.iter().flat_map(|n| TARGETS.map(|a| (n, a))) {
        let want = expected_for(arch);
        let dir = scratch(&format!("sim_mbarrier_ptxc_{}", arch.name()));
        let spec = spec(&dir);
        for max_registers in [None, Some(16)] {
            match compile(name, arch, max_registers).and_then(|c| simulate(&c, &spec)) {
                Err(e) => failures.push(format!("{name} {} {max_registers:?}: {e}", arch.name())),
                Ok(got) => failures.extend(
                    differences(&want, &got)
                        .into_iter()
                        .map(|d| format!("{name} {}: {d}", arch.name())),
                ),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn mbarrier_compiled_by_ptxas_equals_the_host_reference_with_zero_hazards() {
    let mut failures = Vec::new();
    for (name, arch) in KERNELS.iter().flat_map(|n| TARGETS.map(|a| (n, a))) {
        let want = expected_for(arch);
        let dir = scratch(&format!("sim_mbarrier_ptxas_{}_{name}", arch.name()));
        let spec = spec(&dir);
        let cubin = dir.join("ptxas.cubin");
        ptxas_for(arch.name(), &kernel_path(name), &cubin);
        match simulate(&std::fs::read(&cubin).unwrap(), &spec) {
            Err(e) => failures.push(format!("{name} {}: {e}", arch.name())),
            Ok(got) => failures.extend(
                differences(&want, &got)
                    .into_iter()
                    .map(|d| format!("{name} {}: {d}", arch.name())),
            ),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// nvdisasm's listing of a cubin and `ptxc disasm`'s.
fn listings(cubin: &Path) -> (BTreeMap<u64, String>, BTreeMap<u64, String>) {
    let c = cubin.to_str().unwrap();
    let want = listing(&text(&oracle("nvdisasm", &["-c", c]).stdout));
    let got = listing(&text(&ptxc(&["disasm", c]).stdout));
    (want, got)
}

#[test]
fn mbarrier_cubins_disassemble_as_nvdisasm_reads_them() {
    for (name, arch) in KERNELS.iter().flat_map(|n| TARGETS.map(|a| (n, a))) {
        let dir = scratch(&format!("sim_mbarrier_disasm_{}_{name}", arch.name()));
        let ours = dir.join("ptxc.cubin");
        std::fs::write(&ours, compile(name, arch, None).unwrap()).unwrap();
        let theirs = dir.join("ptxas.cubin");
        ptxas_for(arch.name(), &kernel_path(name), &theirs);
        // ptxc arrives through shared addresses; ptxas keeps a generic address generic.
        let generic = *name == KERNELS[1];
        // Hopper: every arrival is a SYNCS.ARRIVE (with a count and for arrive_drop too).
        let hopper = arch >= Arch::Sm90;
        let (arrive, expected) = if hopper {
            ("SYNCS.ARRIVE.TRANS64.", 5)
        } else {
            ("ATOMS.ARRIVE.64 ", 3)
        };
        let theirs_arrive = if generic && !hopper {
            "ATOM.E.ARRIVE.64."
        } else {
            arrive
        };
        for (who, cubin, arrive) in [("ptxc", &ours, arrive), ("ptxas", &theirs, theirs_arrive)] {
            let (want, got) = listings(cubin);
            assert!(
                !want.is_empty(),
                "{name} {who} {}: nvdisasm listed nothing",
                arch.name()
            );
            assert_eq!(got, want, "{name} {who} {}", arch.name());
            let arrivals = |l: &BTreeMap<u64, String>| l.values().filter(|t| t.contains(arrive)).count();
            // Phase 0, phase 2 and the 31 arrive_drops of phase 1: three arrivals in the code
            // (on Hopper also the two with counts, which Ampere's code makes with ATOMS.ADD).
            assert_eq!(arrivals(&want), expected, "{name} {who} {}: {want:#?}", arch.name());
        }
    }
}

#[test]
fn mbarrier_refusals_name_what_is_missing() {
    let dir = scratch("sim_mbarrier_refusals");
    let cases = [
        ("sm_80", "mbarrier.try_wait.shared.b64 %p1, [bar], %rd1;", "needs sm_90"),
        (
            "sm_80",
            "mbarrier.arrive.shared.b64 %rd1, [bar], 2;",
            "needs `.noComplete` before sm_90",
        ),
        (
            "sm_80",
            "mbarrier.arrive_drop.shared.b64 %rd1, [bar], 2;",
            "needs `.noComplete` before sm_90",
        ),
        (
            "sm_80",
            "mbarrier.arrive.noComplete.shared.b64 %rd1, [bar];",
            "needs a count",
        ),
        ("sm_80", "mbarrier.init.global.b64 [bar], 1;", "does not take `.global`"),
        ("sm_75", "mbarrier.init.shared.b64 [bar], 1;", "needs sm_80"),
    ];
    for (k, (target, line, want)) in cases.iter().enumerate() {
        let ptx = format!(
            ".version 8.0\n.target {target}\n.address_size 64\n.visible .entry k()\n{{\n.reg .b64 %rd<2>;\n.reg .pred %p<2>;\n.shared .align 8 .b64 bar;\n{line}\nret;\n}}\n"
        );
        let path = dir.join(format!("case{k}.ptx"));
        std::fs::write(&path, ptx).unwrap();
        let o = ptxc_compile(target, &path, &dir.join(format!("case{k}.cubin")));
        let err = text(&o.stderr);
        assert!(!o.status.success() && err.contains(want), "{line}: {err}");
    }
}
