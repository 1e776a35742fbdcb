//! The cubin reader and writer against NVIDIA's tools, on every zluda conformance kernel and
//! every corpus file ptxas accepts: compile with ptxas, read, write back as V8 and as V7, and
//! ask `nvdisasm` / `cuobjdump` about the results. Needs NVIDIA's tools (`CUDA_ORACLE_BIN`, or
//! installed by `scripts/cuda-oracle`).
//!
//! The work is done once (in parallel) and shared by the tests below, which check its
//! different aspects.

mod cubin_support;

use std::sync::OnceLock;
use std::time::Instant;

use cubin_support::checks::{check_relocatable, compare_with_ptxas};
use cubin_support::*;
use ptxc_sass::cubin::{self, CubinModule, ElfFlavour};

/// Files whose module-scope data ptxas creates in an order the writer's canonical layout does
/// not reproduce (they round-trip exactly with the recorded layout).
const CANONICAL_LAYOUT_EXCEPTIONS: [&str; 4] = [
    "const_ident",
    "ptx90parser__hello",
    "ptx90parser__matrix_free_device_matrix_vector",
    "vosen_ZLUDA__optix_disney",
];

/// What `cuobjdump -elf` says about every module without kernels, ptxas' own included.
const EMPTY_DEBUG_FRAME_NOTE: &str = "Skipping .debug_frame section, as length was 0";

/// What happened to one file.
#[derive(Debug, Default)]
struct Report {
    name: String,
    read_error: Option<String>,
    kernels: usize,
    v8_identical: bool,
    v8_problems: Vec<String>,
    v7_problems: Vec<String>,
    canonical_identical: bool,
    canonical_problems: Vec<String>,
    relocatable_problems: Vec<String>,
}

struct Run {
    reports: Vec<Report>,
    rejected: Vec<String>,
}

fn run() -> &'static Run {
    static RUN: OnceLock<Run> = OnceLock::new();
    RUN.get_or_init(|| {
        let start = Instant::now();
        let dir = scratch_dir("cubin_oracle");
        let (compiled, rejected) = compile_test_ptx(&dir.join("ptxas"));
        for sub in ["v8", "v7", "canonical", "rel"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        let reports = par_map(&compiled, |c| check_file(c, &dir));
        eprintln!(
            "cubin oracle run: {} files ({} corpus files rejected by ptxas -O3: {rejected:?}) in {:.1?}",
            reports.len(),
            rejected.len(),
            start.elapsed()
        );
        Run { reports, rejected }
    })
}

fn check_file(c: &Compiled, dir: &std::path::Path) -> Report {
    let mut r = Report {
        name: c.name.clone(),
        ..Report::default()
    };
    let m = match cubin::read(&c.bytes) {
        Ok(m) => m,
        Err(e) => {
            r.read_error = Some(e.to_string());
            return r;
        }
    };
    r.kernels = m.kernels.len();
    let path = |sub: &str| dir.join(sub).join(format!("{}.cubin", c.name));
    let v8 = cubin::write(&m);
    std::fs::write(path("v8"), &v8).unwrap();
    r.v8_identical = v8 == c.bytes;
    let v8_disasm = nvdisasm(&path("v8"));
    r.v8_problems = compare_with_ptxas(c, &path("v8"), &v8_disasm, r.v8_identical);
    r.v7_problems = check_v7(&m, &path("v7"), &v8_disasm.stdout);
    check_canonical(c, &m, &path("canonical"), &v8_disasm.stdout, &mut r);
    r.relocatable_problems = check_relocatable("sm_75", c, &m, &path("rel"));
    r
}

/// Written as V7, the module must disassemble to the same instructions, with only the two
/// warnings nvdisasm prints for every V7 file, and `cuobjdump -elf` must accept it silently
/// (but for its note on the empty `.debug_frame` of modules without kernels).
fn check_v7(m: &CubinModule, path: &std::path::Path, v8_disasm: &str) -> Vec<String> {
    let mut v7 = m.clone();
    v7.flavour = ElfFlavour::V7;
    v7.layout = None;
    std::fs::write(path, cubin::write(&v7)).unwrap();
    let mut problems = Vec::new();
    let disasm = nvdisasm(path);
    let warnings: Vec<&str> = disasm.stderr.lines().collect();
    if !disasm.ok || warnings != V7_WARNINGS {
        problems.push(format!("nvdisasm: {}", disasm.stderr.trim()));
    }
    if instruction_lines(&disasm.stdout) != instruction_lines(v8_disasm) {
        problems.push("instructions differ from the V8 file".into());
    }
    let elf = cuobjdump_elf(path);
    let expected = elf.stderr.is_empty() || m.kernels.is_empty() && elf.stderr.trim() == EMPTY_DEBUG_FRAME_NOTE;
    if !elf.ok || !expected {
        problems.push(format!("cuobjdump -elf: {}", elf.stderr.trim()));
    }
    match cubin::read(&std::fs::read(path).unwrap()) {
        Ok(back) if same_kernels(&back, m) => {}
        Ok(_) => problems.push("reading the V7 file back gives different kernels".into()),
        Err(e) => problems.push(format!("reading the V7 file back: {e}")),
    }
    problems
}

/// Without the recorded layout the writer uses its own order, which is ptxas' for all but a
/// few modules; those must still disassemble to the same instructions.
fn check_canonical(c: &Compiled, m: &CubinModule, path: &std::path::Path, v8_disasm: &str, r: &mut Report) {
    let mut canonical = m.clone();
    canonical.layout = None;
    let bytes = cubin::write(&canonical);
    r.canonical_identical = bytes == c.bytes;
    if r.canonical_identical {
        return;
    }
    std::fs::write(path, &bytes).unwrap();
    let disasm = nvdisasm(path);
    if !disasm.ok || !disasm.stderr.is_empty() {
        r.canonical_problems.push(format!("nvdisasm: {}", disasm.stderr.trim()));
    }
    if instruction_lines(&disasm.stdout) != instruction_lines(v8_disasm) {
        r.canonical_problems.push("instructions differ".into());
    }
}

fn same_kernels(a: &CubinModule, b: &CubinModule) -> bool {
    let key = |m: &CubinModule| -> Vec<(String, Vec<u8>, u32, Vec<u32>)> {
        m.kernels
            .iter()
            .map(|k| (k.name.clone(), k.code.clone(), k.reg_count, k.exit_offsets.clone()))
            .collect()
    };
    key(a) == key(b) && a.globals == b.globals
}

fn failures(select: impl Fn(&Report) -> Vec<String>) -> Vec<String> {
    run()
        .reports
        .iter()
        .flat_map(|r| select(r).into_iter().map(move |p| format!("{}: {p}", r.name)))
        .collect()
}

#[test]
fn every_test_kernel_compiles_and_reads() {
    let run = run();
    assert!(
        run.reports.len() >= 158 + 10,
        "only {} files compiled",
        run.reports.len()
    );
    assert!(run.rejected.len() <= 2, "ptxas rejected {:?}", run.rejected);
    let errors = failures(|r| r.read_error.iter().cloned().collect());
    assert!(errors.is_empty(), "read errors:\n{}", errors.join("\n"));
    let kernels: usize = run.reports.iter().map(|r| r.kernels).sum();
    eprintln!("{} files, {kernels} kernels read", run.reports.len());
}

#[test]
fn v8_rewrite_is_identical_to_ptxas_output_for_the_tools() {
    let problems = failures(|r| r.v8_problems.clone());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let identical = run().reports.iter().filter(|r| r.v8_identical).count();
    eprintln!(
        "V8 rewrite: {identical}/{} byte-identical to ptxas",
        run().reports.len()
    );
}

#[test]
fn v7_rewrite_is_accepted_and_disassembles_to_the_same_instructions() {
    let problems = failures(|r| r.v7_problems.clone());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn writer_without_recorded_layout_matches_ptxas() {
    let problems = failures(|r| r.canonical_problems.clone());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let different: Vec<&str> = run()
        .reports
        .iter()
        .filter(|r| !r.canonical_identical)
        .map(|r| r.name.as_str())
        .collect();
    let unexpected: Vec<&&str> = different
        .iter()
        .filter(|n| !CANONICAL_LAYOUT_EXCEPTIONS.contains(n))
        .collect();
    assert!(
        unexpected.is_empty(),
        "canonical layout differs from ptxas for {unexpected:?}"
    );
    eprintln!(
        "canonical layout: {}/{} byte-identical to ptxas; differing: {different:?}",
        run().reports.len() - different.len(),
        run().reports.len()
    );
}

#[test]
fn relocatable_cubins_read_like_executables() {
    let problems = failures(|r| r.relocatable_problems.clone());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
