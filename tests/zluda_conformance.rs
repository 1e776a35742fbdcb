//! NVIDIA's hardware results for the ZLUDA conformance kernels, reproduced by running ptxas's
//! cubins on our simulator (the simulator's semantics), ptxc's cubins (the compiler's), and
//! the MIR interpreter on the same launch specs and device memory (`ptxc run --engine mir`,
//! the reference of differential testing).
//! Kernels not yet supported are listed; the test fails when a listed kernel starts passing
//! (shrink the list) or an unlisted one fails (a regression).

mod common;

use common::zluda::{Case, cases};
use common::*;
use ptxc::run::{RunOptions, run, run_mir};
use ptxc_sass::isa::Arch;
use std::collections::BTreeSet;

/// Runs one case from a cubin: `Ok` if the output matches hardware with zero hazards.
fn check_cubin(case: &Case, cubin: &[u8], dir: &std::path::Path) -> Result<(), String> {
    let spec = case.spec(dir);
    let out = run(cubin, &spec, &RunOptions::default())?;
    if out.stats.hazards > 0 {
        return Err(format!(
            "{} hazards: {:?}",
            out.stats.hazards,
            out.stats.hazard_reports.first()
        ));
    }
    case.check(&out.buffers["output"].bytes)
}

/// Runs every case through `make_cubin` and compares the failures with `known`.
fn conformance(
    tag: &str,
    known: &[&str],
    make_cubin: impl Fn(&Case, &std::path::Path) -> Result<Vec<u8>, String> + Sync,
) {
    conformance_runs(tag, known, |c, dir| {
        make_cubin(c, dir).and_then(|cubin| check_cubin(c, &cubin, dir))
    });
}

/// Runs every case with `run_case` and compares the failures with `known`.
fn conformance_runs(
    tag: &str,
    known: &[&str],
    run_case: impl Fn(&Case, &std::path::Path) -> Result<(), String> + Sync,
) {
    let dir = scratch(&format!("zluda_{tag}"));
    let cases = cases();
    assert_eq!(cases.len(), 158, "the manifest lists 158 kernels");
    let results: Vec<(String, Result<(), String>)> = std::thread::scope(|s| {
        let chunks: Vec<_> = cases.chunks(cases.len().div_ceil(2)).collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                let (dir, run_case) = (&dir, &run_case);
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|c| (c.name.clone(), run_case(c, dir)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("worker")).collect()
    });
    let failed: BTreeSet<&str> = results
        .iter()
        .filter(|(_, r)| r.is_err())
        .map(|(n, _)| n.as_str())
        .collect();
    let known: BTreeSet<&str> = known.iter().copied().collect();
    println!(
        "{tag}: {} of {} kernels reproduce the hardware outputs",
        results.len() - failed.len(),
        results.len()
    );
    for (n, r) in &results {
        if let Err(e) = r {
            println!("  {n}: {}", e.lines().next().unwrap_or(""));
        }
    }
    let regressions: Vec<_> = failed.difference(&known).collect();
    let fixed: Vec<_> = known.difference(&failed).collect();
    assert!(regressions.is_empty(), "{tag}: newly failing: {regressions:?}");
    assert!(
        fixed.is_empty(),
        "{tag}: now passing, remove from the known list: {fixed:?}"
    );
}

/// ptxas's cubins for `arch` (on that architecture's default device model).
fn ptxas_conformance(arch: &str, known: &[&str]) {
    conformance(&format!("ptxas_{arch}"), known, |case, dir| {
        let out = dir.join(format!("{}.{arch}.cubin", case.name));
        let o = oracle(
            "ptxas",
            &[
                &format!("-arch={arch}"),
                "-O3",
                case.ptx_path().to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ],
        );
        if !o.status.success() {
            return Err(format!("ptxas: {}", text(&o.stderr)));
        }
        std::fs::read(&out).map_err(|e| e.to_string())
    });
}

#[test]
fn ptxas_cubins_reproduce_hardware_outputs_on_the_simulator() {
    ptxas_conformance("sm_75", KNOWN_PTXAS);
}

#[test]
fn ptxas_sm80_cubins_reproduce_hardware_outputs_on_the_simulator() {
    ptxas_conformance("sm_80", KNOWN_PTXAS_SM8X);
}

#[test]
fn ptxas_sm86_cubins_reproduce_hardware_outputs_on_the_simulator() {
    ptxas_conformance("sm_86", KNOWN_PTXAS_SM8X);
}

#[test]
fn ptxas_sm89_cubins_reproduce_hardware_outputs_on_the_simulator() {
    ptxas_conformance("sm_89", KNOWN_PTXAS_SM8X);
}

#[test]
fn ptxas_sm90_cubins_reproduce_hardware_outputs_on_the_simulator() {
    ptxas_conformance("sm_90", KNOWN_PTXAS_SM90);
}

/// ptxc's cubins for `arch`.
fn ptxc_conformance(arch: Arch, known: &[&str]) {
    let tag = if arch == Arch::Sm75 {
        "ptxc".to_string()
    } else {
        format!("ptxc_{}", arch.name())
    };
    conformance(&tag, known, |case, _| {
        let src = std::fs::read_to_string(case.ptx_path()).map_err(|e| e.to_string())?;
        let opts = ptxc::pipeline::CompileOptions {
            arch,
            ..Default::default()
        };
        ptxc::pipeline::compile_ptx(&src, &case.name, &opts).map_err(|e| e.0)
    });
}

#[test]
fn mir_interpreter_reproduces_hardware_outputs_on_device_memory() {
    conformance_runs("mir", KNOWN_MIR, |case, dir| {
        let src = std::fs::read_to_string(case.ptx_path()).map_err(|e| e.to_string())?;
        let module = ptxc::pipeline::lower_ptx(&src, &case.name).map_err(|e| e.0)?;
        let out = run_mir(&module, &case.spec(dir), Default::default())?;
        case.check(&out.buffers["output"].bytes)
    });
}

/// Kernels the MIR interpreter does not yet run to the hardware outputs.
const KNOWN_MIR: &[&str] = &[];

#[test]
fn ptxc_cubins_reproduce_hardware_outputs_on_the_simulator() {
    ptxc_conformance(Arch::Sm75, KNOWN_PTXC);
}

#[test]
fn ptxc_sm80_cubins_reproduce_hardware_outputs_on_the_simulator() {
    ptxc_conformance(Arch::Sm80, KNOWN_PTXC);
}

#[test]
fn ptxc_sm86_cubins_reproduce_hardware_outputs_on_the_simulator() {
    ptxc_conformance(Arch::Sm86, KNOWN_PTXC);
}

#[test]
fn ptxc_sm89_cubins_reproduce_hardware_outputs_on_the_simulator() {
    ptxc_conformance(Arch::Sm89, KNOWN_PTXC);
}

#[test]
fn ptxc_sm90_cubins_reproduce_hardware_outputs_on_the_simulator() {
    ptxc_conformance(Arch::Sm90, KNOWN_PTXC);
}

/// Kernels whose ptxas cubin does not yet reproduce the hardware outputs on the simulator.
const KNOWN_PTXAS: &[&str] = &[];

/// Kernels whose sm_80, sm_86 and sm_89 ptxas cubins do not yet reproduce the hardware
/// outputs: `vote_all_sub` takes the slow path of `vote.sync` with lane 0 gone (`BRA.CONV
/// ~URZ` not taken, then `WARPSYNC 0xffffffff` while lane 0 waits at `BSYNC`), which the
/// simulator reports as a barrier deadlock; what the hardware does there is not established.
const KNOWN_PTXAS_SM8X: &[&str] = &["vote_all_sub"];

/// Kernels whose sm_90 ptxas cubins do not yet reproduce the hardware outputs (ptxas 13.5
/// writes `vote_all_sub` for sm_90 without Ampere's slow path).
const KNOWN_PTXAS_SM90: &[&str] = &[];

/// Kernels ptxc does not yet compile to the hardware outputs.
const KNOWN_PTXC: &[&str] = &[];
