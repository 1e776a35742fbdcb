//! Every instruction the back end emits decodes in nvdisasm to our own text: each kernel of
//! the conformance set, the CUDA C kernel set (`tests/kernels`), the op tests (`tests/ops`),
//! the tensor-core kernels (`tests/tensor`) and the examples is compiled by ptxc (and
//! Ampere's tensor-core kernels, `tests/ampere/mma_m16n8.ptx` and `mma_f64.ptx`, and
//! half-precision kernels, `tests/ampere/half.ptx` and `half86.ptx`, and the cache hints of
//! `tests/ampere/cache_hints.ptx`, for sm_80, sm_86 and sm_89), and `nvdisasm -c` of the cubin must list exactly
//! what `ptxc disasm` lists, with and without `--max-registers 16` (forced spills).

mod common;

use common::*;
use ptxc::pipeline::{CompileOptions, compile_ptx};
use std::path::{Path, PathBuf};

/// The PTX files of one folder.
fn ptx_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    v.sort();
    assert!(!v.is_empty(), "no PTX in {}", dir.display());
    v
}

/// Compiles `ptx` and returns a description of every way nvdisasm disagrees with us.
fn check(ptx: &Path, opts: &CompileOptions, scratch: &Path) -> Option<String> {
    let name = ptx.file_stem().unwrap().to_string_lossy().into_owned();
    let src = std::fs::read_to_string(ptx).unwrap();
    let cubin = match compile_ptx(&src, &name, opts) {
        Ok(c) => c,
        Err(e) => return Some(format!("{name}: does not compile: {}", e.0)),
    };
    let path = scratch.join(format!("{name}.cubin"));
    std::fs::write(&path, &cubin).unwrap();
    let nv = oracle("nvdisasm", &["-c", path.to_str().unwrap()]);
    let nv_err = text(&nv.stderr);
    if !nv.status.success() || !nv_err.trim().is_empty() {
        return Some(format!("{name}: nvdisasm: {nv_err}"));
    }
    let want = listing_by_section(&text(&nv.stdout));
    let got = listing_by_section(&ptxc::disasm::disassemble(&cubin, false).unwrap());
    if want.is_empty() {
        return Some(format!("{name}: nvdisasm listed nothing"));
    }
    let diffs: Vec<String> = want
        .iter()
        .filter(|(a, w)| got.get(a) != Some(w))
        .map(|((k, a), w)| {
            let ours = got.get(&(k.clone(), *a)).map_or("-", |s| s);
            format!("  {k} {a:#06x}: nvdisasm `{w}`, ptxc `{ours}`")
        })
        .chain(
            got.keys()
                .filter(|a| !want.contains_key(a))
                .map(|(k, a)| format!("  {k} {a:#06x}: only in ptxc")),
        )
        .collect();
    (!diffs.is_empty()).then(|| format!("{name}:\n{}", diffs.join("\n")))
}

/// Checks every kernel of `files` for sm_75, in parallel, with and without forced spills.
fn check_all(label: &str, files: &[PathBuf]) {
    check_all_for(label, files, ptxc_sass::isa::Arch::Sm75);
}

/// [`check_all`] for `arch`.
fn check_all_for(label: &str, files: &[PathBuf], arch: ptxc_sass::isa::Arch) {
    use rayon::prelude::*;
    let dir = scratch(&format!("encodings_{label}_{}", arch.name()));
    let base = CompileOptions {
        arch,
        ..CompileOptions::default()
    };
    let limited = CompileOptions {
        max_registers: Some(16),
        ..base.clone()
    };
    let failures: Vec<String> = [("default", base), ("max16", limited)]
        .iter()
        .flat_map(|(variant, opts)| {
            let sub = dir.join(variant);
            std::fs::create_dir_all(&sub).unwrap();
            files
                .par_iter()
                .filter_map(|f| check(f, opts, &sub).map(|m| format!("[{variant}] {m}")))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn conformance_kernels_decode_to_our_text() {
    check_all("zluda", &ptx_files(&zluda_dir()));
}

#[test]
fn kernel_set_decodes_to_our_text() {
    check_all("kernels", &ptx_files(&root().join("tests/kernels")));
}

#[test]
fn op_tests_examples_and_sm75_prefetches_decode_to_our_text() {
    let mut files = ptx_files(&root().join("tests/ops"));
    files.extend(ptx_files(&root().join("examples")));
    files.push(root().join("tests/data/prefetch_sm75.ptx"));
    check_all("ops", &files);
}

#[test]
fn tensor_core_kernels_decode_to_our_text() {
    check_all("tensor", &ptx_files(&root().join("tests/tensor")));
}

/// Ampere's tensor-core kernels (`tests/ampere/mma_m16n8.ptx`, `mma_f64.ptx` with DMMA.884,
/// `mma_more.ptx` with HMMA.1684, the 4-bit IMMA and BMMA shapes, and Turing's integer kernels
/// `tests/tensor/mma_int.ptx`), m8n8k4 of f16 (`tests/tensor/mma_sync.ptx`, expanded: there is
/// no HMMA.884 from sm_80 on), the asynchronous copies of `cp_async.ptx` (ptxc's LDGSTS has no
/// descriptor: nvdisasm prints its global address `[R2.64]`, without the URZ), `redux.sync`
/// with run-time masks (`redux_mask.ptx`: WARPSYNC.EXCLUSIVE) and `createpolicy.range`.
#[test]
fn ampere_mma_kernels_decode_to_our_text_on_sm80_sm86_sm89() {
    use ptxc_sass::isa::Arch;
    let files = [
        root().join("tests/ampere/mma_m16n8.ptx"),
        root().join("tests/ampere/mma_f64.ptx"),
        root().join("tests/ampere/cp_async.ptx"),
        root().join("tests/ampere/redux_mask.ptx"),
        root().join("tests/ampere/createpolicy_range.ptx"),
        root().join("tests/ampere/mma_more.ptx"),
        root().join("tests/tensor/mma_int.ptx"),
        root().join("tests/tensor/mma_sync.ptx"),
    ];
    for arch in [Arch::Sm80, Arch::Sm86, Arch::Sm89] {
        check_all_for("ampere", &files, arch);
    }
}

/// Ampere's half-precision and bf16 forms (`tests/ampere/half.ptx` on sm_80, sm_86 and
/// sm_89; `half86.ptx`, `.xorsign`, on sm_86 and sm_89).
#[test]
fn ampere_half_kernels_decode_to_our_text_on_sm80_sm86_sm89() {
    use ptxc_sass::isa::Arch;
    let half = root().join("tests/ampere/half.ptx");
    let half86 = root().join("tests/ampere/half86.ptx");
    check_all_for("ampere_half", std::slice::from_ref(&half), Arch::Sm80);
    for arch in [Arch::Sm86, Arch::Sm89] {
        check_all_for("ampere_half", &[half.clone(), half86.clone()], arch);
    }
}

/// The cache hints of loads and stores (`tests/ampere/cache_hints.ptx`: `.EF`, `.EL`, `.EU`,
/// `.NA`, `.LTC64B`..`.LTC256B`), `.L2::cache_hint` policies (`desc[UR4][Ra.64]` from a
/// parameter, a constant and a computed policy), prefetches (CCTL, CCTLL) and the mbarrier
/// kernels on shared and generic addresses, on sm_80, sm_86 and sm_89.
#[test]
fn ampere_cache_hint_kernels_decode_to_our_text_on_sm80_sm86_sm89() {
    use ptxc_sass::isa::Arch;
    let files = [
        "cache_hints.ptx",
        "cache_policy_hint.ptx",
        "cache_policy_computed.ptx",
        "prefetch.ptx",
        "mbarrier.ptx",
        "mbarrier_generic.ptx",
        "cp_async_mbarrier.ptx",
        "cp_async_mbarrier_lanes.ptx",
    ]
    .map(|f| root().join("tests/ampere").join(f));
    for arch in [Arch::Sm80, Arch::Sm86, Arch::Sm89] {
        check_all_for("ampere_cache_hints", &files, arch);
    }
}

fn zluda_dir() -> PathBuf {
    common::zluda::dir()
}

/// Hopper (sm_90): the conformance set, the kernel set, the op tests, the examples, the
/// tensor-core kernels, Ampere's kernels (tensor cores, asynchronous copies, half
/// precision, cache hints, mbarriers) and the cluster kernels decode in `nvdisasm` to ptxc's
/// text; among them the forms Hopper's tensor cores lack, which ptxc expands (m8n8k4 of f16
/// in `mma_sync.ptx`, 4-bit and `.xor.popc` products in `mma_int.ptx`, `wmma.ptx` and
/// `mma_more.ptx`).
#[test]
fn every_kernel_decodes_to_our_text_on_sm90() {
    use ptxc_sass::isa::Arch;
    let mut files = ptx_files(&zluda_dir());
    for dir in ["tests/kernels", "tests/ops", "examples", "tests/tensor", "tests/ampere"] {
        files.extend(ptx_files(&root().join(dir)));
    }
    files.extend(cluster_kernels());
    check_all_for("hopper", &files, Arch::Sm90);
}

/// The cluster kernels of `tests/hopper` (`.target sm_90`).
fn cluster_kernels() -> Vec<PathBuf> {
    let all = ptx_files(&root().join("tests/hopper"));
    let cluster: Vec<PathBuf> = all
        .into_iter()
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("cluster_"))
        })
        .collect();
    assert!(cluster.len() >= 3, "{cluster:?}");
    cluster
}

/// sm_90a: ptxc's code for the warpgroup kernels (`tests/hopper`: the wgmma kernels and
/// Triton's matmuls; HGMMA, WARPGROUP.ARRIVE and .DEPBAR, R2UR of the descriptors, VOTEU of a
/// run-time scale-d, MEMBAR and FENCE.VIEW.ASYNC, STSM), the cluster kernels and the cluster
/// probes of `tests/hopper_isa` (S2R SR_CgaCtaId, PRMT, LD/ST/ATOM at `{a, SR_SWINHI}`,
/// QSPC.E.D, SYNCS.ARRIVE.TRANS64.RED, CGAERRBAR, UCGABAR_ARV/WAIT) decodes in `nvdisasm` to
/// ptxc's text.
#[test]
fn the_warpgroup_kernels_decode_to_our_text_on_sm90a() {
    use ptxc_sass::isa::Arch;
    let mut files = ptx_files(&root().join("tests/hopper"));
    assert!(files.len() >= 4, "{files:?}");
    files.extend(
        ["cluster_sregs", "cluster_memory", "cluster_barrier"]
            .map(|p| root().join(format!("tests/hopper_isa/{p}.ptx"))),
    );
    check_all_for("hopper_sm90a", &files, Arch::Sm90a);
}
