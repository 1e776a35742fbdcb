//! Every scheduling heuristic gives correct, hazard-free code: each variant of
//! `sched_report::variants()` (every post-allocation heuristic after the default
//! pre-allocation one, every pre-allocation one before the default post-allocation one)
//! compiles the conformance kernels, which must reproduce the hardware outputs, and the
//! benchmark suite and examples, whose buffers must equal the default variant's; all runs
//! on the timed simulator with zero hazards.

mod common;

use common::zluda;
use common::*;
use ptxc::launch::LaunchSpec;
use ptxc::pipeline::{CompileOptions, compile_ptx_module};
use ptxc::run::{RunOptions, RunOutput, run};
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

fn compile_and_run(src: &str, name: &str, spec: &LaunchSpec, opts: &CompileOptions) -> Result<RunOutput, String> {
    let cubin = compile_ptx_module(src, name, opts).map_err(|e| e.0)?.cubin;
    let out = run(&cubin, spec, &RunOptions::default())?;
    if out.stats.hazards > 0 {
        return Err(format!(
            "{} hazard(s): {:?}",
            out.stats.hazards,
            out.stats.hazard_reports.first()
        ));
    }
    Ok(out)
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

fn suite_specs() -> Vec<(String, std::path::PathBuf)> {
    let mut v: Vec<(String, std::path::PathBuf)> = std::fs::read_dir(root().join("benches/suite"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| {
            let spec = ptxc::launch::load(&p).unwrap();
            let plain = root().join(format!("tests/kernels/{}.ptx", spec.kernel));
            let ptx = if plain.exists() {
                plain
            } else {
                root().join(format!("tests/tensor/{}.ptx", spec.kernel))
            };
            (spec.kernel.clone(), ptx)
        })
        .collect();
    v.sort();
    v
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
            let differs = !ORDER_DEPENDENT.contains(&name)
                && out
                    .buffers
                    .iter()
                    .any(|(k, a)| reference.buffers.get(k).map(|b| &b.bytes) != Some(&a.bytes));
            differs.then(|| format!("{pre}/{post:?} {name}: buffers differ from the default schedule's"))
        })
        .collect()
}

#[test]
fn benchmark_suite_and_examples_under_every_heuristic() {
    let mut jobs: Vec<(String, std::path::PathBuf, LaunchSpec)> = suite_specs()
        .into_iter()
        .map(|(name, ptx)| {
            let spec = ptxc::launch::load(&root().join(format!("benches/suite/{name}.toml"))).unwrap();
            (name, ptx, spec)
        })
        .collect();
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
