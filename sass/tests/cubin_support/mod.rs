//! Helpers shared by the cubin tests: the CUDA oracle tools, the shared test PTX, scratch
//! directories, a small parallel map, and the checks of a rewritten cubin against ptxas'
//! (`checks`).
#![allow(dead_code)]

pub mod checks;
pub mod sm90_probes;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The folder holding NVIDIA's `ptxas`, `nvdisasm` and `cuobjdump`: `CUDA_ORACLE_BIN`, else
/// installed by `scripts/cuda-oracle` (see `ptxc_testkit::oracle_bin`).
pub fn oracle_bin() -> PathBuf {
    ptxc_testkit::oracle_bin()
}

/// This crate's checked-in cubin test data.
pub fn data_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/cubin"))
}

/// A fresh scratch directory for `name`.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch directory");
    dir
}

/// `*.ptx` files of `dir`, sorted.
pub fn ptx_files(dir: &Path) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    files.sort();
    files
}

/// Output of one tool run.
#[derive(Debug, Clone)]
pub struct ToolRun {
    pub ok: bool,
    pub stdout: String,
    pub stderr: String,
}

/// Runs oracle tool `tool` with `args`.
pub fn run_tool(tool: &str, args: &[&str]) -> ToolRun {
    let out = Command::new(oracle_bin().join(tool))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {tool}: {e}"));
    ToolRun {
        ok: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `ptxas -arch=sm_75 -O3 <ptx> -o <cubin>` (plus `extra` flags).
pub fn ptxas(ptx: &Path, cubin: &Path, extra: &[&str]) -> ToolRun {
    ptxas_for("sm_75", ptx, cubin, extra)
}

/// `ptxas -arch=<arch> -O3 <ptx> -o <cubin>` (plus `extra` flags).
pub fn ptxas_for(arch: &str, ptx: &Path, cubin: &Path, extra: &[&str]) -> ToolRun {
    let (ptx, cubin) = (ptx.to_str().unwrap(), cubin.to_str().unwrap());
    let arch = format!("-arch={arch}");
    let mut args = vec![arch.as_str(), "-O3"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&[ptx, "-o", cubin]);
    run_tool("ptxas", &args)
}

/// `nvdisasm -hex <cubin>`.
pub fn nvdisasm(cubin: &Path) -> ToolRun {
    run_tool("nvdisasm", &["-hex", cubin.to_str().unwrap()])
}

/// `nvdisasm -c <cubin>` (code only).
pub fn nvdisasm_code(cubin: &Path) -> ToolRun {
    run_tool("nvdisasm", &["-c", cubin.to_str().unwrap()])
}

/// `cuobjdump -sass <cubin>`.
pub fn cuobjdump_sass(cubin: &Path) -> ToolRun {
    run_tool("cuobjdump", &["-sass", cubin.to_str().unwrap()])
}

/// `cuobjdump -elf <cubin>`.
pub fn cuobjdump_elf(cubin: &Path) -> ToolRun {
    run_tool("cuobjdump", &["-elf", cubin.to_str().unwrap()])
}

/// The instruction lines of `nvdisasm -hex` output (text and encodings).
pub fn instruction_lines(disassembly: &str) -> Vec<&str> {
    disassembly.lines().filter(|l| l.contains("/* 0x")).collect()
}

/// The two warnings nvdisasm 13.5 prints for every V7 ("Old ELF") cubin.
pub const V7_WARNINGS: [&str; 2] = [
    "nvdisasm warning : Disassembling Std Elf to Old format or Old Elf to Std format not supported yet, switching to Old format",
    "nvdisasm warning : Dataflow analysis disabled due to previous warnings",
];

/// Applies `f` to every item on all cores, keeping the order.
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()).min(8);
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    let r = f(item);
                    *results[i].lock().unwrap() = Some(r);
                }
            });
        }
    });
    results
        .into_iter()
        .map(|m| m.into_inner().unwrap().expect("every item mapped"))
        .collect()
}

/// One test kernel file compiled by ptxas.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// File stem.
    pub name: String,
    /// The PTX file.
    pub ptx: PathBuf,
    /// The cubin written by ptxas.
    pub cubin: PathBuf,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// The repository's test kernels (`tests/kernels`).
pub fn kernels_dir() -> PathBuf {
    ptxc_testkit::repo_root().join("tests/kernels")
}

/// Compiles every zluda conformance kernel (all must compile) and every corpus file ptxas
/// accepts with `-O3` into `dir` for sm_75; returns them and the names of rejected corpus
/// files.
pub fn compile_test_ptx(dir: &Path) -> (Vec<Compiled>, Vec<String>) {
    compile_for("sm_75", dir, false)
}

/// As [`compile_test_ptx`] for `arch`, with the test kernels (all must compile) when
/// `with_kernels`.
pub fn compile_for(arch: &str, dir: &Path, with_kernels: bool) -> (Vec<Compiled>, Vec<String>) {
    std::fs::create_dir_all(dir).expect("create output directory");
    let zluda = ptx_files(&ptxc_testkit::conformance_dir());
    let corpus = ptx_files(&ptxc_testkit::corpus_dir());
    assert!(
        zluda.len() >= 150,
        "expected the zluda conformance kernels, found {}",
        zluda.len()
    );
    let kernels = if with_kernels {
        ptx_files(&kernels_dir())
    } else {
        Vec::new()
    };
    let all: Vec<(PathBuf, bool)> = zluda
        .into_iter()
        .chain(kernels)
        .map(|p| (p, true))
        .chain(corpus.into_iter().map(|p| (p, false)))
        .collect();
    let mut stems: Vec<_> = all.iter().map(|(p, _)| p.file_stem().unwrap().to_owned()).collect();
    stems.sort();
    stems.dedup();
    assert_eq!(stems.len(), all.len(), "test PTX file names must be unique");
    let results = par_map(&all, |(ptx, required)| {
        let name = ptx.file_stem().unwrap().to_string_lossy().into_owned();
        let cubin = dir.join(format!("{name}.cubin"));
        let run = ptxas_for(arch, ptx, &cubin, &[]);
        if !run.ok {
            assert!(!required, "ptxas rejected {}: {}", ptx.display(), run.stderr);
            return Err(name);
        }
        let bytes = std::fs::read(&cubin).expect("read ptxas output");
        Ok(Compiled {
            name,
            ptx: ptx.clone(),
            cubin,
            bytes,
        })
    });
    let mut compiled = Vec::new();
    let mut rejected = Vec::new();
    for r in results {
        match r {
            Ok(c) => compiled.push(c),
            Err(name) => rejected.push(name),
        }
    }
    (compiled, rejected)
}
