//! `redux.sync` on sm_80, sm_86 and sm_89 (`tests/ampere/redux.ptx`): every reduction
//! (`.add`, `.min`, `.max` on `.u32` and `.s32`; `.and`, `.or`, `.xor` on `.b32`) over the
//! full warp, and over the lower half-warp with a constant half mask under a branch. ptxc
//! selects `REDUX.op UR4, R` and `MOV R, UR4` as ptxas does, so the uniform register's
//! latencies and scoreboard are part of what the hazard check covers. The kernel runs five
//! ways per target (both compilers' cubins on both engines, ptxc's MIR on the interpreter):
//! zero hazards, the same buffers, equal to a host reference computed here from the inputs.
//!
//! Needs ptxas (`CUDA_ORACLE_BIN`, or installed by `scripts/cuda-oracle`).

mod common;

use common::five_ways::Cubins;
use common::*;
use ptxc::launch::{BufferInit, LaunchSpec, ParamSpec, Scalar};
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
    let path = dir.join(format!("a{case}.npy"));
    let bytes: Vec<u8> = a.iter().flat_map(|w| w.to_le_bytes()).collect();
    ptxc::npy::write(&path, &ptxc::npy::Array::new(Scalar::U32, bytes)).unwrap();
    let mut buffers = BTreeMap::new();
    buffers.insert("a".to_string(), BufferInit::File(path));
    buffers.insert(
        "d".to_string(),
        BufferInit::Zero {
            dtype: Scalar::U32,
            len: 320,
        },
    );
    LaunchSpec {
        kernel: "redux_all".to_string(),
        grid: [1, 1, 1],
        block: [32, 1, 1],
        dynamic_shared_bytes: 0,
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

/// Inputs: small and large values of both signs, and a pseudo-random warp.
fn inputs() -> Vec<[u32; 32]> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let random: [u32; 32] = std::array::from_fn(|_| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x as u32
    });
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
        let got: Vec<u32> = d
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
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
fn redux_with_a_mask_computed_at_run_time_is_refused_clearly() {
    let ptx = root().join("tests/ampere/redux.ptx");
    let src = std::fs::read_to_string(&ptx).unwrap().replace(
        "redux.sync.add.u32 %r14, %r2, 0x0000ffff;",
        "redux.sync.add.u32 %r14, %r2, %r2;",
    );
    let dir = scratch("sim_ampere_redux_refusal");
    let path = dir.join("runtime_mask.ptx");
    std::fs::write(&path, src).unwrap();
    let out = dir.join("out.cubin");
    let o = ptxc(&[
        "compile",
        path.to_str().unwrap(),
        "--arch",
        "sm_80",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(err.contains("redux.sync") && err.contains("run time"), "{err}");
    // The message shows the instruction's line (45) and column.
    assert!(err.contains("runtime_mask.ptx:45:5"), "{err}");
    assert!(!out.exists(), "no cubin is written");
}
