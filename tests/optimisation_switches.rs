//! Every optimisation `ptxc compile --disable` switches off leaves correct, hazard-free code
//! and changes the code it should: with each switch (and with all of them) the conformance
//! kernels reproduce the hardware outputs and the benchmark suite's buffers equal the
//! default build's, on the timed simulator; and the command line's switch reaches the
//! code (a uniform loop gets its convergence barrier back, a guarded load its branch, a
//! guarded multiply its select, an atomic on a warp-uniform address one instruction per
//! thread, a warp-uniform address part its general register, folded arithmetic its
//! instructions).

mod common;

use common::suite::{buffers_differ, compile_and_run, suite};
use common::zluda;
use common::*;
use ptxc::pipeline::CompileOptions;
use ptxc_backend::compile::Optimisation;
use rayon::prelude::*;

/// Kernels whose results depend on the order of float atomics (checked against a reference
/// within a bound by the kernel-set test, not byte for byte).
const ORDER_DEPENDENT: [&str; 1] = ["reduce_block"];

/// The option sets under test: each switch alone, then all of them.
fn switch_sets() -> Vec<Vec<Optimisation>> {
    let all = vec![
        Optimisation::IfConvert,
        Optimisation::UniformBranches,
        Optimisation::GuardedSelects,
        Optimisation::WarpAggregation,
        Optimisation::UniformRegisters,
        Optimisation::MirPasses,
    ];
    let mut sets: Vec<Vec<Optimisation>> = all.iter().map(|&o| vec![o]).collect();
    sets.push(all);
    sets
}

fn options(disabled: &[Optimisation]) -> CompileOptions {
    CompileOptions {
        disabled: disabled.to_vec(),
        ..CompileOptions::default()
    }
}

#[test]
fn conformance_kernels_with_each_optimisation_off() {
    let dir = scratch("optimisation_switches_zluda");
    let cases = zluda::cases();
    let failures: Vec<String> = switch_sets()
        .par_iter()
        .enumerate()
        .flat_map(|(n, disabled)| {
            let dir = dir.join(n.to_string());
            std::fs::create_dir_all(&dir).unwrap();
            cases
                .iter()
                .filter_map(|case| {
                    let src = std::fs::read_to_string(case.ptx_path()).unwrap();
                    let result = compile_and_run(&src, &case.name, &case.spec(&dir), &options(disabled))
                        .and_then(|out| case.check(&out.buffers["output"].bytes));
                    result.err().map(|e| format!("{disabled:?} {}: {e}", case.name))
                })
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn benchmark_suite_with_each_optimisation_off_matches_the_default_build() {
    let failures: Vec<String> = suite()
        .par_iter()
        .flat_map(|(name, ptx, spec)| {
            let src = std::fs::read_to_string(ptx).unwrap();
            let reference = match compile_and_run(&src, name, spec, &CompileOptions::default()) {
                Ok(r) => r,
                Err(e) => return vec![format!("default {name}: {e}")],
            };
            switch_sets()
                .iter()
                .filter_map(|disabled| match compile_and_run(&src, name, spec, &options(disabled)) {
                    Err(e) => Some(format!("{disabled:?} {name}: {e}")),
                    Ok(out) => (!ORDER_DEPENDENT.contains(&name.as_str()) && buffers_differ(&out, &reference))
                        .then(|| format!("{disabled:?} {name}: buffers differ from the default build's")),
                })
                .collect()
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The listing of `ptx` compiled by the command line with `extra` arguments.
fn listing_with(ptx: &str, extra: &[&str], out: &str) -> String {
    // A directory per output: `scratch` empties its directory, and the tests run at once.
    let dir = scratch(&format!("optimisation_switches_cli_{out}"));
    let (ptx, cubin) = (root().join(ptx), dir.join(out));
    let mut args = vec!["compile", ptx.to_str().unwrap(), "-o", cubin.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = ptxc(&args);
    assert!(o.status.success(), "{}", text(&o.stderr));
    disasm(&cubin)
}

fn count(listing: &str, mnemonic: &str) -> usize {
    listing.lines().filter(|l| l.contains(mnemonic)).count()
}

/// `ptx` compiled with `--disable switch` has more `mnemonic` lines than by default.
fn switch_adds(ptx: &str, switch: &str, mnemonic: &str) {
    let stem = std::path::Path::new(ptx).file_stem().unwrap().to_str().unwrap();
    let default = listing_with(ptx, &[], &format!("{stem}_default.cubin"));
    let off = listing_with(ptx, &["--disable", switch], &format!("{stem}_off.cubin"));
    let (n_off, n_default) = (count(&off, mnemonic), count(&default, mnemonic));
    assert!(
        n_off > n_default,
        "{mnemonic}: {n_off} with the switch off, {n_default} by default"
    );
}

#[test]
fn disabling_uniform_branches_brings_the_barriers_of_uniform_loops_back() {
    // matmul_tiled's tile loop runs a parameter's number of times: a uniform loop.
    switch_adds("tests/kernels/matmul_tiled.ptx", "uniform-branches", "BSSY");
}

#[test]
fn disabling_if_conversion_branches_around_guarded_code() {
    // transpose_tiled guards its loads and stores with a bounds check per thread.
    switch_adds("tests/kernels/transpose_tiled.ptx", "if-convert", "BRA");
}

#[test]
fn disabling_guarded_selects_brings_the_selects_back() {
    // nbody_f32's rsqrt.approx scales subnormal inputs and results under a guard
    // (`@P0 FMUL R, R, 16777216`); without the switch each scaling is an FSEL of constants.
    switch_adds("tests/kernels/nbody_f32.ptx", "guarded-selects", "FSEL");
}

#[test]
fn disabling_warp_aggregation_gives_each_thread_its_atomic() {
    // atom_add adds a value loaded from one address to one shared word: aggregated, the
    // active mask comes from VOTEU and the leader's old value from SHFL.IDX.
    let ptx = "tests/data/conformance/atom_add.ptx";
    let default = listing_with(ptx, &[], "atom_add_default.cubin");
    let off = listing_with(ptx, &["--disable", "warp-aggregation"], "atom_add_off.cubin");
    for mnemonic in ["VOTEU.ANY", "SHFL.IDX"] {
        assert_eq!(count(&default, mnemonic), 1, "{mnemonic} by default:\n{default}");
        assert_eq!(count(&off, mnemonic), 0, "{mnemonic} with the switch off:\n{off}");
    }
}

#[test]
fn disabling_uniform_registers_takes_the_address_parts_back_to_general_registers() {
    // scan_block's double buffer offset is the same in every thread: by default it is a
    // uniform register read by the shared accesses (`LDS R4, [R3+UR22]`).
    let ptx = "tests/kernels/scan_block.ptx";
    let default = listing_with(ptx, &[], "scan_block_default.cubin");
    let off = listing_with(ptx, &["--disable", "uniform-registers"], "scan_block_off.cubin");
    let uniform_addresses = |l: &str| l.lines().filter(|l| l.contains("LDS") && l.contains("+UR")).count();
    assert!(uniform_addresses(&default) >= 2, "by default:\n{default}");
    assert_eq!(uniform_addresses(&off), 0, "with the switch off:\n{off}");
    assert_eq!(count(&off, "USHF"), 0, "with the switch off:\n{off}");
}

#[test]
fn disabling_mir_passes_keeps_the_folded_arithmetic() {
    // addc_cc_s32 sets the carry flag with `add.cc.u32 cc, 0xffffffff, 1` and builds its
    // result with `mov.b64 {a, b}`: constant folding leaves one IADD3.X, and the pair needs
    // no shift; without the passes the constant add and the 64-bit shifts stay.
    let ptx = "tests/data/conformance/addc_cc_s32.ptx";
    let default = listing_with(ptx, &[], "addc_default.cubin");
    let off = listing_with(ptx, &["--disable", "mir-passes"], "addc_off.cubin");
    assert_eq!(count(&default, "IADD3.X"), 2, "by default:\n{default}");
    assert_eq!(count(&default, "SHF"), 0, "by default:\n{default}");
    assert!(count(&off, "SHF") > 0, "with the switch off:\n{off}");
}

#[test]
fn an_unknown_optimisation_is_refused() {
    let o = ptxc(&[
        "compile",
        root().join("examples/vector_add.ptx").to_str().unwrap(),
        "-o",
        scratch("optimisation_switches_cli_refused")
            .join("never.cubin")
            .to_str()
            .unwrap(),
        "--disable",
        "if-conversion",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("if-convert"), "{}", text(&o.stderr));
}
