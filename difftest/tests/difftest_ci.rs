//! Differential testing in CI: a fixed-seed batch of random programs must show no mismatch
//! that an open issue (`ptxc_difftest::known::ISSUES`) does not explain, and every regression
//! case under `tests/difftest/` must behave as its status says (a fixed bug's case agrees
//! everywhere; an open issue's case still shows its issue). Needs ptxas (`CUDA_ORACLE_BIN`, or
//! installed by `scripts/cuda-oracle`).

use ptxc_difftest::campaign::{self, Options};
use ptxc_difftest::engines::Engines;
use ptxc_difftest::regress::{self, Verdict};
use ptxc_difftest::results::Shard;
use ptxc_difftest::{case, generator, shrink::Limits};
use std::path::PathBuf;

/// Seed of the batch.
const SEED: u64 = 1;
/// Programs in the batch.
const PROGRAMS: u64 = 500;

/// NVIDIA's `ptxas` (`CUDA_ORACLE_BIN`, or installed by `scripts/cuda-oracle`).
fn oracle() -> Option<PathBuf> {
    Some(ptxc_testkit::oracle_tool("ptxas"))
}

fn scratch(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

#[test]
fn fixed_seed_batch_has_no_unexplained_mismatch() {
    let opts = Options {
        count: PROGRAMS,
        seed: SEED,
        shard: Shard::ALL,
        results: None,
        jobs: 1,
        batch: 50,
        out: None,
        shrink_per_signature: 0,
        limits: Limits::default(),
        ptxas: oracle(),
        scratch: scratch("difftest_ci_batch"),
        generator: generator::Options {
            avoid_open_issues: true,
            revision: generator::REVISION,
        },
        verbose: false,
    };
    let s = campaign::run(&opts, &mut |_| {}).expect("campaign");
    eprint!("{}", s.text());
    assert_eq!(s.tally.programs, PROGRAMS);
    assert!(
        s.failures.is_empty(),
        "unexplained mismatches:\n{}\nreproduce one with `cargo run --release -p ptxc-difftest --bin difftest -- \
         --avoid-open-issues --count 1 --seed SEED` and shrink it with `--shrink SEED --out DIR`",
        s.failures
            .iter()
            .map(|f| format!("seed {}: {}", f.seed, f.report))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn regression_cases_behave_as_listed() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/difftest");
    let engines = Engines::new(oracle(), &scratch("difftest_ci_regress"));
    let cases = case::list(&dir).expect("tests/difftest");
    assert!(!cases.is_empty(), "no regression cases in {}", dir.display());
    let mut problems = Vec::new();
    for toml in &cases {
        match regress::check_case_file(&engines, toml) {
            Verdict::Skipped(why) => problems.push(format!("{}: skipped: {why}", toml.display())),
            v if v.failed() => problems.push(format!("{}: {v:?}", toml.display())),
            _ => {}
        }
    }
    // Every open issue names a case that exists, with the observations it must show.
    for i in ptxc_difftest::known::ISSUES {
        let toml = dir.join(format!("{}.toml", i.case));
        if !toml.exists() {
            problems.push(format!("open issue {} names the missing case {}", i.id, i.case));
        } else if !regress::expect_path(&toml).exists() {
            problems.push(format!("open issue {}: its case has no {}.expect", i.id, i.case));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
