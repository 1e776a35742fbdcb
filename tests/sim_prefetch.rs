//! `prefetch` and `prefetchu` (`tests/data/prefetch_sm75.ptx` for sm_75, `tests/ampere/prefetch.ptx`
//! for sm_80, sm_86, sm_89 and sm_90): every level, on global, generic and local addresses, with the
//! L2 eviction priorities from sm_80 on. Each kernel runs five ways per target (both
//! compilers' cubins on both engines, ptxc's MIR on the interpreter): zero hazards, the same
//! buffer, equal to a host reference (a prefetch changes no value). ptxc's cubin must carry
//! the cache-control instructions ptxas 13.5's carries (`CCTL.E.PF1`, `CCTL.E.PF2`,
//! `CCTL.E.PML2`, `CCTLL.PF1`, `CCTLL.PF2`), compared as nvdisasm text without operands, so
//! a dropped or mis-levelled prefetch fails although the results cannot show it. On sm_75
//! both compilers refuse an L2 eviction priority, ptxc with the location.
//!
//! Needs ptxas (`CUDA_ORACLE_BIN`, or installed by `scripts/cuda-oracle`).

mod common;

use common::five_ways::Cubins;
use common::rng::xorshift64;
use common::*;
use ptxc::launch::{LaunchSpec, ParamSpec};
use ptxc_sass::isa::Arch;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Threads of the launch.
const THREADS: usize = 64;

/// The test kernel for `arch`.
fn ptx(arch: Arch) -> PathBuf {
    let file = if arch == Arch::Sm75 {
        "data/prefetch_sm75.ptx"
    } else {
        "ampere/prefetch.ptx"
    };
    root().join("tests").join(file)
}

/// Pseudo-random input words.
fn input(n: usize) -> Vec<u32> {
    xorshift64().take(n).map(|x| x as u32).collect()
}

/// The launch of `prefetch` (64 threads) on input `a` and a zeroed `d`.
fn spec(arch: Arch, a: &[u32]) -> LaunchSpec {
    let dir = scratch(&format!("sim_prefetch_{}", arch.name()));
    let buffers = in_out_buffers(&dir, ("a", a), ("d", THREADS));
    LaunchSpec {
        kernel: "prefetch".to_string(),
        grid: [1, 1, 1],
        block: [THREADS as u32, 1, 1],
        dynamic_shared_bytes: 0,
        cluster: None,
        params: ["a", "d"]
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

/// Host reference: `d[t] = a[t] + a[64 + t] + (a[t] + t) + t`.
fn reference(a: &[u32]) -> Vec<u32> {
    (0..THREADS)
        .map(|t| {
            let t32 = t as u32;
            a[t].wrapping_add(a[64 + t])
                .wrapping_add(a[t].wrapping_add(t32))
                .wrapping_add(t32)
        })
        .collect()
}

/// The cache-control instructions of `cubin`'s listing without their operands
/// (`CCTL.E.PF2 [R4+0x100]` gives `CCTL.E.PF2`), sorted (the schedules differ).
fn cache_controls(cubin: &Path) -> Vec<String> {
    let out = oracle("nvdisasm", &["-c", cubin.to_str().unwrap()]);
    assert!(out.status.success(), "nvdisasm: {}", text(&out.stderr));
    let mut v: Vec<String> = listing_by_section(&text(&out.stdout))
        .values()
        .filter_map(|inst| inst.split_whitespace().next().map(str::to_string))
        .filter(|opcode| opcode.starts_with("CCTL"))
        .collect();
    v.sort();
    v
}

fn every_way_on(arch: Arch) {
    let cubins = Cubins::new(arch, &ptx(arch), "prefetch");
    let a = input(2 * THREADS + 256);
    let d = cubins.agree(&spec(arch, &a), "d");
    let got = words(&d);
    assert_eq!(got, reference(&a), "{} prefetch", arch.name());
    let dir = scratch(&format!("sim_prefetch_listing_{}", arch.name()));
    let (theirs, ours) = both_cubins(arch.name(), &ptx(arch), &dir);
    let (theirs, ours) = (cache_controls(&theirs), cache_controls(&ours));
    assert_eq!(ours, theirs, "{}: ptxc's CCTL/CCTLL differ from ptxas's", arch.name());
    let expected = if arch == Arch::Sm75 { 8 } else { 12 };
    assert_eq!(
        theirs.len(),
        expected,
        "{}: ptxas's prefetches: {theirs:?}",
        arch.name()
    );
    assert!(theirs.iter().any(|c| c == "CCTLL.PF2"), "{theirs:?}");
}

#[test]
fn prefetch_on_sm75_agrees_five_ways_and_matches_ptxas() {
    every_way_on(Arch::Sm75);
}

#[test]
fn prefetch_on_sm80_agrees_five_ways_and_matches_ptxas() {
    every_way_on(Arch::Sm80);
}

#[test]
fn prefetch_on_sm86_agrees_five_ways_and_matches_ptxas() {
    every_way_on(Arch::Sm86);
}

#[test]
fn prefetch_on_sm89_agrees_five_ways_and_matches_ptxas() {
    every_way_on(Arch::Sm89);
}

#[test]
fn prefetch_on_sm90_agrees_five_ways_and_matches_ptxas() {
    every_way_on(Arch::Sm90);
}

/// On sm_75 ptxas refuses `prefetch.global.L2::evict_last` and `.L2::evict_normal`
/// ("Modifier 'cache eviction priority' on 'prefetch' requires .target sm_80 or higher"),
/// and ptxc too, naming the line; on sm_80 both refuse the priority on a local address.
#[test]
fn eviction_priorities_need_sm80_and_a_global_address() {
    let dir = scratch("sim_prefetch_refusals");
    let src = std::fs::read_to_string(ptx(Arch::Sm80)).unwrap();
    let line = 1 + src
        .lines()
        .position(|l| l.contains("prefetch.global.L2::evict_last"))
        .unwrap();
    let cases = [
        (
            "sm_75",
            src.replace(".target sm_80", ".target sm_75"),
            "requires .target sm_80",
            "sm_80",
        ),
        (
            "sm_80",
            src.replacen("prefetch.local.L2 ", "prefetch.local.L2::evict_last ", 1),
            "State space incorrect",
            "prefetch.local",
        ),
    ];
    for (arch, text_, theirs_says, ours_says) in cases {
        let file = dir.join(format!("{arch}.ptx"));
        std::fs::write(&file, &text_).unwrap();
        let theirs = oracle(
            "ptxas",
            &[
                &format!("-arch={arch}"),
                file.to_str().unwrap(),
                "-o",
                dir.join("y.cubin").to_str().unwrap(),
            ],
        );
        assert!(
            !theirs.status.success() && text(&theirs.stderr).contains(theirs_says),
            "ptxas {arch}: {}",
            text(&theirs.stderr)
        );
        let o = ptxc_compile(arch, &file, &dir.join("x.cubin"));
        let err = text(&o.stderr);
        let at = if arch == "sm_75" {
            line
        } else {
            1 + text_.lines().position(|l| l.contains("local.L2::evict_last")).unwrap()
        };
        assert!(
            !o.status.success() && err.contains(ours_says) && err.contains(&format!(":{at}:")),
            "ptxc {arch}: {err}"
        );
    }
}
