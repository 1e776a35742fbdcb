//! `createpolicy.fractional` (sm_80, `tests/ampere/createpolicy.ptx`) on sm_80, sm_86 and
//! sm_89: the 64-bit policies ptxc computes must equal those of ptxas's cubin, both run on
//! the simulator, and the MIR interpreter's.
//!
//! Needs ptxas (`CUDA_ORACLE_BIN`, or installed by `scripts/cuda-oracle`).

mod common;

use common::*;
use ptxc::launch::{BufferInit, LaunchSpec, ParamSpec, Scalar};
use ptxc::run::{RunOptions, run, run_mir};
use ptxc_sass::isa::Arch;
use std::collections::BTreeMap;

/// The policies the kernel writes (one per thread).
const POLICIES: usize = 10;

fn spec() -> LaunchSpec {
    let mut buffers = BTreeMap::new();
    buffers.insert(
        "out".to_string(),
        BufferInit::Zero {
            dtype: Scalar::U64,
            len: POLICIES,
        },
    );
    LaunchSpec {
        kernel: "createpolicy".to_string(),
        grid: [1, 1, 1],
        block: [POLICIES as u32, 1, 1],
        dynamic_shared_bytes: 0,
        cluster: None,
        params: vec![ParamSpec::Ptr {
            buffer: "out".to_string(),
            offset: 0,
        }],
        buffers,
        symbols: BTreeMap::new(),
        limits: Default::default(),
    }
}

fn policies(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn createpolicy_values_equal_ptxas_s() {
    let path = root().join("tests/ampere/createpolicy.ptx");
    let src = std::fs::read_to_string(&path).unwrap();
    let spec = spec();
    let module = ptxc::pipeline::lower_ptx(&src, "createpolicy").unwrap_or_else(|e| panic!("{}", e.0));
    let mir = run_mir(&module, &spec, Default::default()).unwrap_or_else(|e| panic!("MIR interpreter: {e}"));
    let mir = policies(&mir.buffers["out"].bytes);
    for arch in [Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90] {
        let dir = scratch(&format!("sim_cache_policy_{}", arch.name()));
        let cubin = dir.join("ptxas.cubin");
        ptxas_for(arch.name(), &path, &cubin);
        let theirs = run(&std::fs::read(&cubin).unwrap(), &spec, &RunOptions::default()).unwrap();
        let opts = ptxc::pipeline::CompileOptions {
            arch,
            ..Default::default()
        };
        let ours = ptxc::pipeline::compile_ptx(&src, "createpolicy", &opts).unwrap_or_else(|e| panic!("{}", e.0));
        let ours = run(&ours, &spec, &RunOptions::default()).unwrap();
        assert_eq!(theirs.stats.hazards + ours.stats.hazards, 0, "{}", arch.name());
        let want = policies(&theirs.buffers["out"].bytes);
        assert!(want.iter().all(|&p| p >> 60 == 1), "{}: {want:x?}", arch.name());
        assert_eq!(policies(&ours.buffers["out"].bytes), want, "{}", arch.name());
        assert_eq!(mir, want, "{} (MIR interpreter)", arch.name());
    }
}

/// `createpolicy.range`'s policy (the host reference; `docs/CACHE-POLICY.md`): for address
/// `a`, sizes `primary` and `total`, a primary priority `code` and a secondary
/// `.evict_first`. From ptxas's SASS run on the simulator: `e = max(ceil(lg2(float(total))) -
/// 7, 12)` (ptxas's MUFU.LG2, which the simulator rounds correctly), then bits 60 and 59, the
/// priorities, `e - 12`, the low 7 bits of `a >> e` and the count of `2^e`-byte blocks the
/// primary range touches (the rounding-up addend `2^e - 1 + primary` wraps at 32 bits; at
/// most 127); a `total` of 0 gives bits 60 and 59 alone.
fn range_policy(code: u64, secondary_first: bool, a: u64, primary: u32, total: u32) -> u64 {
    if total == 0 {
        return 0x1800_0000 << 32;
    }
    let lg2 = ((total as f32) as f64).log2() as f32;
    let e = (lg2.ceil() as i64 - 7).max(12) as u32;
    let first = a >> e;
    let end = a.wrapping_add(((1u32 << e) - 1).wrapping_add(primary) as u64) >> e;
    let blocks = end.wrapping_sub(first).min(127);
    let high = 0x1800_0000
        | code << 25
        | (secondary_first as u64) << 24
        | (e as u64 - 12) << 20
        | (first & 0x7f) << 12
        | blocks << 5;
    high << 32
}

/// The eight policies of each thread of `createpolicy_range.ptx` for address `a` and sizes
/// `p` (primary) and `t` (total).
fn range_reference(a: u64, p: u32, t: u32) -> [u64; 8] {
    [
        range_policy(2, false, a, p, t),
        range_policy(1, false, a, p, t),
        range_policy(3, true, a, p, t),
        range_policy(0, false, a, p, t),
        range_policy(2, true, a.wrapping_add(4096), p, t),
        range_policy(2, false, a, 5000, 1 << 20),
        range_policy(1, false, a.wrapping_add(100), p, 0),
        range_policy(3, false, a, u32::MAX, u32::MAX),
    ]
}

/// Addresses (aligned, unaligned, near the top of the address space) and sizes (0, small,
/// powers of two and their neighbours, primary equal to and below total, primary above total,
/// totals that round up to a power of two as floats, the largest) for 64 threads.
fn range_inputs() -> Vec<(u64, u32, u32)> {
    let addrs = [
        0u64,
        1,
        0xfff,
        0x1000,
        0x7f000,
        0x1234_5678,
        0x7f12_3456_7899,
        0x7fff_ffff_f000,
        0xffff_ffff_ffff_ff00,
        0xffff_ffff,
        0x1_0000_0000,
        0x7000_0000_1001,
    ];
    let sizes = [
        (0u32, 0u32),
        (0, 1),
        (1, 1),
        (100, 4096),
        (4096, 4096),
        (4097, 8192),
        (0x1_0000, 0x10_0000),
        (0x8_0000, 0x10_0000),
        (1 << 20, 1 << 20),
        (1 << 31, 1 << 31),
        (u32::MAX, u32::MAX),
        (0xffff_f000, u32::MAX),
        (12345, 0x7fff_ffff),
        (5, 0x8000_0001),
        (0x100_0001, 0x100_0001),
        (0x100_0000, 0x100_0003),
        (300_000, 3_000_000),
        (0x1000_0000, 4096),
        (0x10_0000, 0x80_0000),
        (7, 0x1ff),
        (0xfff, 0x20_0001),
        (1 << 25, 1 << 26),
    ];
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..64)
        .map(|i| {
            let a = if i < 24 {
                addrs[i % addrs.len()]
            } else {
                next() >> (next() % 24)
            };
            let (p, t) = if i < sizes.len() {
                sizes[i]
            } else if i < 44 {
                sizes[(i * 7) % sizes.len()]
            } else {
                let t = (next() as u32) >> (next() % 32);
                (((next() as u32) >> (next() % 32)).min(t.saturating_mul(2)), t)
            };
            (a, p, t)
        })
        .collect()
}

/// The `createpolicy_range` launch on `inputs`.
fn range_spec(arch: Arch, inputs: &[(u64, u32, u32)]) -> LaunchSpec {
    let dir = scratch(&format!("sim_cache_policy_range_{}", arch.name()));
    let write = |name: &str, dtype: Scalar, bytes: Vec<u8>| {
        let path = dir.join(format!("{name}.npy"));
        ptxc::npy::write(&path, &ptxc::npy::Array::new(dtype, bytes)).unwrap();
        BufferInit::File(path)
    };
    let a: Vec<u8> = inputs.iter().flat_map(|&(a, _, _)| a.to_le_bytes()).collect();
    let s: Vec<u8> = inputs
        .iter()
        .flat_map(|&(_, p, t)| [p.to_le_bytes(), t.to_le_bytes()].concat())
        .collect();
    let mut buffers = BTreeMap::new();
    buffers.insert("a".to_string(), write("a", Scalar::U64, a));
    buffers.insert("s".to_string(), write("s", Scalar::U32, s));
    buffers.insert(
        "d".to_string(),
        BufferInit::Zero {
            dtype: Scalar::U64,
            len: 8 * inputs.len(),
        },
    );
    one_block_spec("createpolicy_range", inputs.len() as u32, buffers, &["a", "s", "d"])
}

/// `createpolicy.range` (`tests/ampere/createpolicy_range.ptx`): ptxas's and ptxc's cubins on
/// both engines and ptxc's MIR give the same policies, with zero hazards, equal to
/// [`range_policy`] for every thread.
fn range_on(arch: Arch) {
    let path = root().join("tests/ampere/createpolicy_range.ptx");
    let cubins = common::five_ways::Cubins::new(arch, &path, "createpolicy_range");
    let inputs = range_inputs();
    let got = policies(&cubins.agree(&range_spec(arch, &inputs), "d"));
    for (t, &(a, p, s)) in inputs.iter().enumerate() {
        let want = range_reference(a, p, s);
        for (k, w) in want.iter().enumerate() {
            assert_eq!(
                got[8 * t + k],
                *w,
                "{}: thread {t} policy {k}: address {a:#x}, primary {p:#x}, total {s:#x}",
                arch.name()
            );
        }
    }
}

#[test]
fn createpolicy_range_on_sm80_agrees_five_ways_and_matches_the_host() {
    range_on(Arch::Sm80);
}

#[test]
fn createpolicy_range_on_sm86_agrees_five_ways_and_matches_the_host() {
    range_on(Arch::Sm86);
}

#[test]
fn createpolicy_range_on_sm89_agrees_five_ways_and_matches_the_host() {
    range_on(Arch::Sm89);
}

#[test]
fn createpolicy_range_on_sm90_agrees_five_ways_and_matches_the_host() {
    range_on(Arch::Sm90);
}
