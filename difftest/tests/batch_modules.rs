//! Batches (`ptxc_difftest::batch`) compile many programs in one ptxas module. A batch is
//! only a faster way to get the same verdicts if ptxas compiles each kernel of the module
//! exactly as it compiles the program alone: these tests compare the kernels (code, registers,
//! attributes, subroutines) and the verdicts of a campaign run both ways. Need ptxas (`CUDA_ORACLE_BIN`, or
//! installed by `scripts/cuda-oracle`).

use ptxc_difftest::batch::{self, kernel_name};
use ptxc_difftest::campaign::{self, Options};
use ptxc_difftest::engines::Engines;
use ptxc_difftest::generator::{self, Case};
use ptxc_difftest::program::{Program, print};
use ptxc_difftest::results::Shard;
use ptxc_difftest::shrink::Limits;
use ptxc_sass::cubin::{self, KernelImage};
use std::path::PathBuf;

fn ptxas() -> PathBuf {
    ptxc_testkit::oracle_tool("ptxas")
}

fn scratch(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

const OPTIONS: generator::Options = generator::Options {
    avoid_open_issues: true,
    revision: generator::REVISION,
};

/// The kernels of the cubin ptxas makes of `ptx`. ptxas numbers its internal subroutines
/// (`$__internal_N_$__cuda_sm20_div_rd_f64_v2`) across the module; each kernel has its own
/// copies, so the number is left out of their names.
fn kernels(engines: &Engines, ptx: &str) -> Vec<KernelImage> {
    let bytes = engines.ptxas_cubin(&ptxas(), ptx).expect("ptxas compiles the program");
    let mut kernels = cubin::read(&bytes).expect("ptxas's cubin reads").kernels;
    for f in kernels.iter_mut().flat_map(|k| k.functions.iter_mut()) {
        if let Some(i) = f.name.find("_$") {
            f.name = f.name[i + 2..].to_string();
        }
    }
    kernels
}

#[test]
fn batch_kernels_are_compiled_as_alone() {
    let engines = Engines::new(Some(ptxas()), &scratch("batch_modules_kernels"));
    let cases: Vec<(u64, Case)> = (1..=40).map(|s| (s, generator::generate_with(s, OPTIONS))).collect();
    let modules = batch::modules(&cases);
    assert!(modules.len() > 1, "the 40 programs have more than one PTX version");
    let mut compared = 0;
    for (idx, ptx) in &modules {
        let module = kernels(&engines, ptx);
        assert_eq!(module.len(), idx.len());
        for &i in idx {
            let (seed, case) = &cases[i];
            let mut k = module
                .iter()
                .find(|k| k.name == kernel_name(*seed))
                .unwrap_or_else(|| panic!("no kernel {}", kernel_name(*seed)))
                .clone();
            k.name = Program::KERNEL.to_string();
            let alone = kernels(&engines, &print::to_ptx(&case.program));
            assert_eq!(alone.len(), 1);
            assert_eq!(
                k, alone[0],
                "program {seed}: its kernel in the batch module differs from its kernel alone"
            );
            compared += 1;
        }
    }
    assert_eq!(compared, cases.len());
}

/// A campaign of `count` programs from seed `seed`, checked in batches of `batch`.
fn campaign(seed: u64, count: u64, batch: usize) -> campaign::Summary {
    let opts = Options {
        count,
        seed,
        shard: Shard::ALL,
        results: None,
        jobs: 1,
        batch,
        out: None,
        shrink_per_signature: 0,
        limits: Limits::default(),
        ptxas: Some(ptxas()),
        scratch: scratch(&format!("batch_modules_campaign{batch}")),
        generator: OPTIONS,
        verbose: false,
    };
    campaign::run(&opts, &mut |_| {}).expect("campaign")
}

#[test]
fn batched_and_single_campaigns_agree() {
    // Seeds 3930..3949 hold 3942, a program with an open ptxas issue, so both outcomes occur.
    let (single, batched) = (campaign(3930, 20, 1), campaign(3930, 20, 8));
    assert_eq!(single.tally.programs, 20);
    assert_eq!(batched.tally.programs, 20);
    assert_eq!(single.tally.agree, batched.tally.agree);
    assert_eq!(single.tally.explained, batched.tally.explained);
    assert_eq!(single.tally.unexplained_seeds, batched.tally.unexplained_seeds);
}
