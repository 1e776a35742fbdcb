//! Shared helpers of the integration tests: where the PTX test inputs are.

#![allow(dead_code)]

use ptxc_testkit::ptx_files;
use std::path::{Path, PathBuf};

/// This crate's own test data (nvcc output for ordinary CUDA C).
pub const LOCAL_DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");

/// Every real-world PTX input: the repository's corpus and conformance kernels
/// (`tests/data/`) and this crate's own `tests/data/`.
pub fn all_ptx_files() -> Vec<PathBuf> {
    let mut files = ptx_files(&ptxc_testkit::corpus_dir());
    let zluda = ptx_files(&ptxc_testkit::conformance_dir());
    assert!(
        zluda.len() >= 158,
        "expected the 158 ZLUDA kernels, found {}",
        zluda.len()
    );
    files.extend(zluda);
    files.extend(ptx_files(Path::new(LOCAL_DATA)));
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
