//! Test support shared by every crate of the workspace: where the repository's test data is,
//! and NVIDIA's tools used as test oracles (ptxas, nvdisasm, cuobjdump, nvcc).
//!
//! The oracles come from `CUDA_ORACLE_BIN` when it is set, else from
//! `scripts/cuda-oracle install`, run once per test process (the script serialises concurrent
//! installs). A test that needs them and cannot get them fails with the reason; none passes
//! silently without them. ptxc itself never runs these tools.
#![warn(missing_docs)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The repository's root folder.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root exists")
}

/// `tests/data`: the conformance kernels, the corpus and the opcode examples.
pub fn data_dir() -> PathBuf {
    repo_root().join("tests/data")
}

/// The 158 conformance kernels from ZLUDA with their hardware-recorded outputs
/// (`manifest.json`).
pub fn conformance_dir() -> PathBuf {
    data_dir().join("conformance")
}

/// The real-world PTX corpus.
pub fn corpus_dir() -> PathBuf {
    data_dir().join("corpus")
}

/// The 1 MB corpus module (50 kernels, deal.II/Kokkos output) the benchmarks compile.
pub fn large_corpus_file() -> PathBuf {
    corpus_dir().join("ptx90parser__matrix_free_device_matrix_vector.ptx")
}

/// One real ptxas encoding per sm_75 opcode and mnemonic, with nvdisasm's text.
pub fn opcode_examples() -> PathBuf {
    data_dir().join("isa/sm75-opcode-examples.txt")
}

/// The `.ptx` files directly inside `dir`, sorted; panics when the folder is missing or
/// holds none, so a moved data folder fails the tests instead of emptying them.
pub fn ptx_files(dir: &Path) -> Vec<PathBuf> {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("test data folder {} is missing: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("readable directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .ptx files in {}", dir.display());
    files
}

/// How to get the oracles, for messages.
pub const HOW_TO_INSTALL: &str = "run `scripts/cuda-oracle install` (it needs Python 3 with pip and \
     access to pypi.org) and export CUDA_ORACLE_BIN=<the folder it prints>";

/// The folder holding NVIDIA's ptxas, nvdisasm and cuobjdump: `CUDA_ORACLE_BIN`, else what
/// `scripts/cuda-oracle install` installs. Panics with the reason when neither works.
pub fn oracle_bin() -> PathBuf {
    try_oracle_bin().unwrap_or_else(|why| panic!("NVIDIA's oracle tools are not available: {why}"))
}

/// As [`oracle_bin`], with the reason as an error instead of a panic.
pub fn try_oracle_bin() -> Result<PathBuf, String> {
    static BIN: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BIN.get_or_init(|| locate(false)).clone()
}

/// As [`oracle_bin`], with nvcc's CUDA C front end and headers installed too (for `nvcc -ptx`).
pub fn oracle_bin_with_nvcc() -> PathBuf {
    static BIN: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    match BIN.get_or_init(|| locate(true)) {
        Ok(dir) => dir.clone(),
        Err(why) => panic!("NVIDIA's nvcc is not available: {why}"),
    }
}

/// One oracle program (`ptxas`, `nvdisasm`, `cuobjdump`).
pub fn oracle_tool(name: &str) -> PathBuf {
    oracle_bin().join(name)
}

fn locate(nvcc: bool) -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("CUDA_ORACLE_BIN") {
        let dir = PathBuf::from(dir);
        let wanted: &[&str] = if nvcc {
            &["ptxas", "nvdisasm", "cuobjdump", "nvcc"]
        } else {
            &["ptxas", "nvdisasm", "cuobjdump"]
        };
        return match wanted.iter().find(|t| !dir.join(t).is_file()) {
            None => Ok(dir),
            Some(missing) if nvcc => install(true).map_err(|e| {
                format!(
                    "CUDA_ORACLE_BIN={} has no {missing}, and installing it failed: {e}",
                    dir.display()
                )
            }),
            Some(missing) => Err(format!(
                "CUDA_ORACLE_BIN={} has no {missing}; {HOW_TO_INSTALL}",
                dir.display()
            )),
        };
    }
    install(nvcc).map_err(|e| {
        format!("CUDA_ORACLE_BIN is not set and `scripts/cuda-oracle install` failed: {e}; {HOW_TO_INSTALL}")
    })
}

/// Runs the repository's installer and returns the folder it prints.
fn install(nvcc: bool) -> Result<PathBuf, String> {
    let script = repo_root().join("scripts/cuda-oracle");
    let mut cmd = Command::new(&script);
    cmd.arg("install");
    if nvcc {
        cmd.arg("--nvcc");
    }
    let out = cmd.output().map_err(|e| format!("{}: {e}", script.display()))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
    }
    let dir = String::from_utf8_lossy(&out.stdout).trim().to_string();
    Ok(PathBuf::from(dir))
}
