//! Every scheduling heuristic gives correct, hazard-free code: each variant of
//! `sched_report::variants()` (every post-allocation heuristic after the default
//! pre-allocation one, every pre-allocation one before the default post-allocation one)
//! compiles the conformance kernels, which must reproduce the hardware outputs, and the
//! benchmark suite and examples, whose buffers must equal the default variant's; all runs
//! on the timed simulator with zero hazards.

mod common;

use common::suite::{buffers_differ, compile_and_run, suite};
use common::zluda;
use common::*;
use ptxc::launch::LaunchSpec;
use ptxc::pipeline::CompileOptions;
use ptxc::sched_report::variants;
use rayon::prelude::*;
use std::path::Path;

/// Kernels whose results depend on the order of float atomics (not compared across
/// variants; the kernel-set test checks them against a reference within a bound).
const ORDER_DEPENDENT: [&str; 1] = ["reduce_block"];

fn options(pre: &str, post: &Option<String>) -> CompileOptions {
    CompileOptions {
        pre_sched: pre.to_string(),
        sched: post.clone(),
        ..CompileOptions::default()
    }
}

#[test]
fn conformance_kernels_under_every_heuristic() {
    let dir = scratch("sched_heuristics_zluda");
    let cases = zluda::cases();
    let failures: Vec<String> = variants()
        .par_iter()
        .flat_map(|(pre, post)| {
            let opts = options(pre, post);
            // Each variant writes its own input files.
            let dir = dir.join(format!("{pre}_{}", post.as_deref().unwrap_or("none")));
            std::fs::create_dir_all(&dir).unwrap();
            cases
                .iter()
                .filter_map(|case| {
                    let src = std::fs::read_to_string(case.ptx_path()).unwrap();
                    let spec = case.spec(&dir);
                    let result = compile_and_run(&src, &case.name, &spec, &opts)
                        .and_then(|out| case.check(&out.buffers["output"].bytes));
                    result.err().map(|e| format!("{pre}/{post:?} {}: {e}", case.name))
                })
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn check_same_under_every_heuristic(name: &str, ptx: &Path, spec: &LaunchSpec) -> Vec<String> {
    let src = std::fs::read_to_string(ptx).unwrap();
    let reference = match compile_and_run(&src, name, spec, &CompileOptions::default()) {
        Ok(r) => r,
        Err(e) => return vec![format!("default {name}: {e}")],
    };
    variants()
        .iter()
        .filter_map(|(pre, post)| {
            let out = match compile_and_run(&src, name, spec, &options(pre, post)) {
                Ok(o) => o,
                Err(e) => return Some(format!("{pre}/{post:?} {name}: {e}")),
            };
            let differs = !ORDER_DEPENDENT.contains(&name) && buffers_differ(&out, &reference);
            differs.then(|| format!("{pre}/{post:?} {name}: buffers differ from the default schedule's"))
        })
        .collect()
}

#[test]
fn benchmark_suite_and_examples_under_every_heuristic() {
    let mut jobs = suite();
    for ex in ["vector_add", "saxpy"] {
        let spec = ptxc::launch::load(&example(&format!("{ex}.toml"))).unwrap();
        jobs.push((spec.kernel.clone(), example(&format!("{ex}.ptx")), spec));
    }
    let failures: Vec<String> = jobs
        .par_iter()
        .flat_map(|(name, ptx, spec)| check_same_under_every_heuristic(name, ptx, spec))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
