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
    for arch in [Arch::Sm80, Arch::Sm86, Arch::Sm89] {
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
