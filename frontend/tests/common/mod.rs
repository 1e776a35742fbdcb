//! Shared helpers of the integration tests: where the PTX test inputs are.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The shared data folder (`../shared` of the repository root).
pub const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared");
/// This crate's own test data (nvcc output for ordinary CUDA C).
pub const LOCAL_DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");

/// The `.ptx` files directly inside `dir`, sorted; panics (fails the test) when the folder is
/// missing or holds none.
pub fn ptx_files_in(dir: &str) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("test data folder {dir} is missing: {e}"));
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("readable directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .ptx files in {dir}");
    files
}

/// Every real-world PTX input: `corpus/`, `conformance/zluda/` and `tests/data/`.
pub fn all_ptx_files() -> Vec<PathBuf> {
    let mut files = ptx_files_in(&format!("{SHARED}/corpus"));
    let zluda = ptx_files_in(&format!("{SHARED}/conformance/zluda"));
    assert!(
        zluda.len() >= 158,
        "expected the 158 ZLUDA kernels, found {}",
        zluda.len()
    );
    files.extend(zluda);
    files.extend(ptx_files_in(LOCAL_DATA));
    files
}

/// The file's text.
pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// A short name for messages.
pub fn name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The tree's debug text with every span blanked out.
pub fn without_spans(m: &ptxc_frontend::ast::Module) -> String {
    let text = format!("{m:?}");
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find("Span { start: ") {
        out.push_str(&rest[..at]);
        out.push_str("Span");
        rest = &rest[at..];
        rest = &rest[rest.find(" }").map_or(rest.len(), |e| e + 2)..];
    }
    out.push_str(rest);
    out
}
