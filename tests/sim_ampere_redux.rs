//! `redux.sync` on sm_80, sm_86, sm_89 and sm_90 (`tests/ampere/redux.ptx`; the run-time masks
//! of `redux_mask.ptx` not on sm_90: ptxas's sm_90 slow path, collective regions
//! (`WARPSYNC.COLLECTIVE` .. `ENDCOLLECTIVE`), decodes and runs, but under the simulator's
//! divergence model lanes 24..31 reach the fast path of the odd/even masks without the lanes
//! still in the eight-lane slow path and reduce over four lanes; how an H100 regroups the
//! warp there is not established): every reduction
//! (`.add`, `.min`, `.max` on `.u32` and `.s32`; `.and`, `.or`, `.xor` on `.b32`) over the
//! full warp, and over the lower half-warp with a constant half mask under a branch. ptxc
//! selects `REDUX.op UR4, R` and `MOV R, UR4` as ptxas does, so the uniform register's
//! latencies and scoreboard are part of what the hazard check covers. The kernel runs five
//! ways per target (both compilers' cubins on both engines, ptxc's MIR on the interpreter):
//! zero hazards, the same buffers, equal to a host reference computed here from the inputs.
//!
//! `tests/ampere/redux_mask.ptx` gives every reduction a member mask computed at run time
//! (different masks in one warp: half-warps, groups of eight lanes, odd and even lanes; a
//! parameter; the ballot of the threads of a branch). ptxas puts `WARPSYNC.EXCLUSIVE mask`
//! before the REDUX (inline when the warp is converged on the mask, else in a subroutine),
//! ptxc puts it inline; the simulator's WARPSYNC.EXCLUSIVE lets the lanes of each mask run
//! the reduction as their own group (a model; `runtime-sim/src/exec/semantics/flow.rs`).
//!
//! Needs ptxas (`CUDA_ORACLE_BIN`, or installed by `scripts/cuda-oracle`).

mod common;

use common::five_ways::Cubins;
use common::rng::xorshift64;
use common::*;
use ptxc::launch::{LaunchSpec, ParamSpec, Scalar};
use ptxc_sass::isa::Arch;
use std::collections::BTreeMap;

/// Per-lane results of the kernel on inputs `a`: nine full-warp reductions, then the
/// half-warp `min.s32 ^ add.u32` (lanes 0..15) or 0.
fn reference(a: &[u32; 32]) -> Vec<u32> {
    let all = a.iter().copied();
    let signed = || a.iter().map(|&v| v as i32);
    let sum = all.clone().fold(0u32, u32::wrapping_add);
    let full = [
        sum,
        sum,
        all.clone().min().unwrap(),
        all.clone().max().unwrap(),
        signed().min().unwrap() as u32,
        signed().max().unwrap() as u32,
        all.clone().fold(u32::MAX, |x, y| x & y),
        all.clone().fold(0, |x, y| x | y),
        all.fold(0, |x, y| x ^ y),
    ];
    let low = &a[..16];
    let half = (low.iter().map(|&v| v as i32).min().unwrap() as u32) ^ low.iter().fold(0u32, |x, &y| x.wrapping_add(y));
    (0..32)
        .flat_map(|lane| {
            let mut v = full.to_vec();
            v.push(if lane < 16 { half } else { 0 });
            v
        })
        .collect()
}

/// The launch with inputs `a`.
fn spec(arch: Arch, case: usize, a: &[u32; 32]) -> LaunchSpec {
    let dir = scratch(&format!("sim_ampere_redux_{}", arch.name()));
    let buffers = BTreeMap::from([
        ("a".to_string(), u32_file(dir.join(format!("a{case}.npy")), a)),
        ("d".to_string(), u32_zeros(320)),
    ]);
    one_block_spec("redux_all", 32, buffers, &["a", "d"])
}

/// Inputs: small and large values of both signs, and a pseudo-random warp.
fn inputs() -> Vec<[u32; 32]> {
    let mut x = xorshift64();
    let random: [u32; 32] = std::array::from_fn(|_| x.next().expect("an endless stream") as u32);
    let extremes: [u32; 32] = std::array::from_fn(|l| match l % 4 {
        0 => 0x8000_0000 + l as u32,
        1 => 0x7fff_ffff - l as u32,
        2 => l as u32,
        _ => u32::MAX - l as u32,
    });
    let lanes: [u32; 32] = std::array::from_fn(|l| (l as u32).wrapping_mul(0x0101_0101) ^ 0xa5);
    vec![random, extremes, lanes]
}

fn every_case_on(arch: Arch) {
    let cubins = Cubins::new(arch, &root().join("tests/ampere/redux.ptx"), "redux");
    for (case, a) in inputs().iter().enumerate() {
        let d = cubins.agree(&spec(arch, case, a), "d");
        let got = words(&d);
        assert_eq!(got, reference(a), "{} case {case}", arch.name());
    }
}

#[test]
fn redux_on_sm80_agrees_five_ways_and_matches_the_host() {
    every_case_on(Arch::Sm80);
}

#[test]
fn redux_on_sm86_agrees_five_ways_and_matches_the_host() {
    every_case_on(Arch::Sm86);
}

#[test]
fn redux_on_sm89_agrees_five_ways_and_matches_the_host() {
    every_case_on(Arch::Sm89);
}

#[test]
fn redux_on_sm90_agrees_five_ways_and_matches_the_host() {
    every_case_on(Arch::Sm90);
}

/// The reductions of `redux_mask.ptx` (`ReduxKind` order of the PTX: add, min.u32, ...).
#[derive(Clone, Copy)]
enum R {
    Add,
    MinU,
    MaxU,
    MinS,
    MaxS,
    And,
    Or,
    Xor,
}

/// `op` over the lanes of `mask` in the warp `a`.
fn reduce(op: R, a: &[u32], mask: u32) -> u32 {
    let v = (0..32).filter(|l| mask >> l & 1 == 1).map(|l| a[l]);
    match op {
        R::Add => v.fold(0, u32::wrapping_add),
        R::MinU => v.min().unwrap(),
        R::MaxU => v.max().unwrap(),
        R::MinS => v.map(|x| x as i32).min().unwrap() as u32,
        R::MaxS => v.map(|x| x as i32).max().unwrap() as u32,
        R::And => v.fold(u32::MAX, |x, y| x & y),
        R::Or => v.fold(0, |x, y| x | y),
        R::Xor => v.fold(0, |x, y| x ^ y),
    }
}

/// The 17 results of each thread of `redux_mask` (`tests/ampere/redux_mask.ptx`) on inputs
/// `a` (whole warps) with the parameter mask `m`.
fn masked_reference(a: &[u32], m: u32) -> Vec<u32> {
    use R::*;
    let mut out = Vec::new();
    for warp in a.chunks(32) {
        let odd: u32 = (0..32).filter(|&l| warp[l] & 1 == 1).fold(0, |b, l| b | 1 << l);
        for lane in 0..32u32 {
            let half = if lane < 16 { 0x0000_ffff } else { 0xffff_0000 };
            let eight = 0xffu32 << (lane & 24);
            let parity = if lane & 1 == 1 { 0xaaaa_aaaa } else { 0x5555_5555 };
            out.extend([Add, MinU, MaxU, MinS, MaxS, And, Or, Xor].map(|op| reduce(op, warp, half)));
            out.extend([Add, MinS, Xor].map(|op| reduce(op, warp, eight)));
            out.extend([MaxU, And, Or].map(|op| reduce(op, warp, parity)));
            out.push(reduce(Add, warp, m));
            if odd >> lane & 1 == 1 {
                out.extend([reduce(Add, warp, odd), reduce(MinU, warp, odd)]);
            } else {
                out.extend([0, 0]);
            }
        }
    }
    out
}

/// Threads of the `redux_mask` launch (two warps).
const MASK_THREADS: usize = 64;

/// The `redux_mask` launch with inputs `a` and the parameter mask `m`.
fn mask_spec(arch: Arch, case: usize, a: &[u32], m: u32) -> LaunchSpec {
    let dir = scratch(&format!("sim_ampere_redux_mask_{}_{case}", arch.name()));
    let buffers = in_out_buffers(&dir, ("a", a), ("d", 17 * MASK_THREADS));
    let ptr = |b: &str| ParamSpec::Ptr {
        buffer: b.to_string(),
        offset: 0,
    };
    LaunchSpec {
        kernel: "redux_mask".to_string(),
        grid: [1, 1, 1],
        block: [MASK_THREADS as u32, 1, 1],
        dynamic_shared_bytes: 0,
        cluster: None,
        params: vec![
            ptr("a"),
            ptr("d"),
            ParamSpec::Scalar {
                kind: Scalar::U32,
                bytes: m.to_le_bytes().to_vec(),
            },
        ],
        buffers,
        symbols: BTreeMap::new(),
        limits: Default::default(),
    }
}

/// `redux.sync` with member masks computed at run time (`WARPSYNC.EXCLUSIVE` in both
/// compilers' code): half-warp, eight-lane and odd/even masks, a mask from a parameter
/// (the full mask, known only at run time), and the ballot of a branch's threads; two warps,
/// three inputs.
fn masked_cases_on(arch: Arch) {
    let cubins = Cubins::new(arch, &root().join("tests/ampere/redux_mask.ptx"), "redux_mask");
    let warps = inputs();
    let cases = [
        ([&warps[0][..], &warps[1][..]].concat(), u32::MAX),
        ([&warps[1][..], &warps[2][..]].concat(), u32::MAX),
        ([&warps[2][..], &warps[0][..]].concat(), u32::MAX),
    ];
    for (case, (a, m)) in cases.iter().enumerate() {
        let d = cubins.agree(&mask_spec(arch, case, a, *m), "d");
        let got = words(&d);
        let want = masked_reference(a, *m);
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "{} case {case}: thread {} result {}", arch.name(), i / 17, i % 17);
        }
    }
}

#[test]
fn redux_with_run_time_masks_on_sm80_agrees_five_ways_and_matches_the_host() {
    masked_cases_on(Arch::Sm80);
}

#[test]
fn redux_with_run_time_masks_on_sm86_agrees_five_ways_and_matches_the_host() {
    masked_cases_on(Arch::Sm86);
}

#[test]
fn redux_with_run_time_masks_on_sm89_agrees_five_ways_and_matches_the_host() {
    masked_cases_on(Arch::Sm89);
}
