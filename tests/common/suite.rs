//! The benchmark suite's kernels and one compile-and-run step on the timed simulator, for
//! the tests that compile the suite under several option sets.

use super::root;
use ptxc::launch::LaunchSpec;
use ptxc::pipeline::{CompileOptions, compile_ptx_module};
use ptxc::run::{RunOptions, RunOutput, run};
use std::path::PathBuf;

/// Compiles `src` with `opts` and runs it with `spec`; an error names any hazard.
pub fn compile_and_run(src: &str, name: &str, spec: &LaunchSpec, opts: &CompileOptions) -> Result<RunOutput, String> {
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

/// Each kernel of `benches/suite` with its PTX (`tests/kernels`, or `tests/tensor` for the
/// tensor-core GEMMs) and its launch, by name.
pub fn suite() -> Vec<(String, PathBuf, LaunchSpec)> {
    let mut v: Vec<(String, PathBuf, LaunchSpec)> = std::fs::read_dir(root().join("benches/suite"))
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
            (spec.kernel.clone(), ptx, spec)
        })
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

/// Whether any buffer of `out` differs from the same buffer of `reference`.
pub fn buffers_differ(out: &RunOutput, reference: &RunOutput) -> bool {
    out.buffers
        .iter()
        .any(|(k, a)| reference.buffers.get(k).map(|b| &b.bytes) != Some(&a.bytes))
}
