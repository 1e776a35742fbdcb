//! sm_90 (Hopper) cubins against ptxas 13.5 `-arch=sm_90`: every zluda conformance kernel,
//! every test kernel (`tests/kernels`) and every corpus file ptxas accepts is compiled, read,
//! and written back twice: with the recorded layout (must give ptxas' bytes) and with the
//! writer's canonical layout, as the back end builds modules (must give ptxas' bytes, or
//! for the listed exceptions the same sections, symbols and attributes in `cuobjdump -elf`,
//! with the symbols in another order).
//! The canonical files must be accepted by `nvdisasm -c` and `cuobjdump -sass` without a
//! word on stderr. Hand-written probes cover what the test PTX lacks (clusters, PDL,
//! mbarriers, tensor maps, sparse MMA, sm_90a). Needs NVIDIA's tools (`CUDA_ORACLE_BIN`).

mod cubin_support;

use std::path::Path;
use std::sync::OnceLock;
use std::time::Instant;

use cubin_support::checks::{check_relocatable, compare_with_ptxas, elf_structure, first_differences};
use cubin_support::sm90_probes::{PROBES, Probe};
use cubin_support::*;
use ptxc_sass::cubin::{self, CubinModule, param_base, reserved_shared};

/// Why the canonical layout of a module with module-scope data can differ from ptxas'.
const DATA_ORDER: &str = "ptxas creates the section symbols of `.nv.global`, `.nv.global.init`, \
     `.nv.constant3` and `.nv.constant4`, and the local variables in them, in the order its code \
     first uses them, which the model does not record (the writer puts them in that order)";

/// Files (test PTX and probes) whose canonical layout differs from ptxas' in the order of
/// local symbols only (they round-trip exactly with the recorded layout), and why.
const CANONICAL_LAYOUT_EXCEPTIONS: [(&str, &str); 4] = [
    ("ptx90parser__hello", DATA_ORDER),
    ("ptx90parser__matrix_free_device_matrix_vector", DATA_ORDER),
    ("vosen_ZLUDA__optix_disney", DATA_ORDER),
    ("module_data", DATA_ORDER),
];

/// What happened to one file.
#[derive(Debug, Default)]
struct Report {
    name: String,
    read_error: Option<String>,
    identical: bool,
    problems: Vec<String>,
    canonical_identical: bool,
    /// `cuobjdump -elf` structure differences of the canonical file (exceptions only).
    canonical_structure: Option<String>,
    tool_complaints: Vec<String>,
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
        let dir = scratch_dir("cubin_sm90");
        let (compiled, rejected) = compile_for("sm_90", &dir.join("ptxas"), true);
        for sub in ["v8", "canonical", "rel"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        let reports = par_map(&compiled, |c| check_file(c, &dir));
        eprintln!(
            "cubin sm_90 run: {} files ({} corpus files rejected by ptxas: {rejected:?}) in {:.1?}",
            reports.len(),
            rejected.len(),
            start.elapsed()
        );
        Run { reports, rejected }
    })
}

fn check_file(c: &Compiled, dir: &Path) -> Report {
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
    let path = |sub: &str| dir.join(sub).join(format!("{}.cubin", c.name));
    let v8 = cubin::write(&m);
    r.identical = v8 == c.bytes;
    if !r.identical {
        std::fs::write(path("v8"), &v8).unwrap();
        r.problems = compare_with_ptxas(c, &path("v8"), &nvdisasm(&path("v8")), false);
    }
    check_canonical(c, &m, &path("canonical"), &mut r);
    r.relocatable_problems = check_relocatable(arch_of(&m), c, &m, &path("rel"));
    r
}

/// The `-arch` ptxas compiled `m` for.
fn arch_of(m: &CubinModule) -> &'static str {
    if m.arch_specific { "sm_90a" } else { "sm_90" }
}

/// Without the recorded layout: ptxas' bytes, or (exceptions) ptxas' structure; and the
/// tools accept the file silently.
fn check_canonical(c: &Compiled, m: &CubinModule, path: &Path, r: &mut Report) {
    let mut canonical = m.clone();
    canonical.layout = None;
    let bytes = cubin::write(&canonical);
    r.canonical_identical = bytes == c.bytes;
    std::fs::write(path, &bytes).unwrap();
    if !r.canonical_identical {
        let ours = same_up_to_symbol_order(&cuobjdump_elf(path).stdout);
        let theirs = same_up_to_symbol_order(&cuobjdump_elf(&c.cubin).stdout);
        if ours != theirs {
            r.canonical_structure = Some(first_differences(&ours, &theirs, 6));
        }
    }
    for (tool, run) in [
        ("nvdisasm -c", nvdisasm_code(path)),
        ("cuobjdump -sass", cuobjdump_sass(path)),
    ] {
        if !run.ok || !run.stderr.is_empty() {
            r.tool_complaints.push(format!("{tool}: {}", run.stderr.trim()));
        }
    }
}

/// The `cuobjdump -elf` structure with the symbol table sorted and its index column dropped:
/// sections and attribute records must match exactly, symbols as a set.
fn same_up_to_symbol_order(cuobjdump_elf: &str) -> Vec<String> {
    let (mut symbols, mut rest): (Vec<String>, Vec<String>) = elf_structure(cuobjdump_elf)
        .into_iter()
        .partition(|l| l.starts_with(".section .symtab"));
    for s in &mut symbols {
        let fields: Vec<&str> = s.split_whitespace().collect();
        *s = fields.iter().skip(3).copied().collect::<Vec<_>>().join(" ");
    }
    symbols.sort();
    rest.extend(symbols);
    rest
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
        run.reports.len() >= 158 + 37 + 10,
        "only {} files compiled",
        run.reports.len()
    );
    assert!(run.rejected.len() <= 2, "ptxas rejected {:?}", run.rejected);
    let errors = failures(|r| r.read_error.iter().cloned().collect());
    assert!(errors.is_empty(), "read errors:\n{}", errors.join("\n"));
}

#[test]
fn rewrite_with_recorded_layout_is_identical_to_ptxas() {
    let problems = failures(|r| r.problems.clone());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let identical = run().reports.iter().filter(|r| r.identical).count();
    eprintln!(
        "sm_90 V8 rewrite: {identical}/{} byte-identical to ptxas",
        run().reports.len()
    );
    assert_eq!(identical, run().reports.len());
}

#[test]
fn writer_without_recorded_layout_matches_ptxas() {
    let different: Vec<&Report> = run().reports.iter().filter(|r| !r.canonical_identical).collect();
    let unexpected: Vec<&str> = different
        .iter()
        .filter(|r| !is_exception(&r.name))
        .map(|r| r.name.as_str())
        .collect();
    let structure = failures(|r| r.canonical_structure.iter().cloned().collect());
    assert!(
        unexpected.is_empty() && structure.is_empty(),
        "canonical layout differs from ptxas for {unexpected:?}; structure:\n{}",
        structure.join("\n")
    );
    eprintln!(
        "sm_90 canonical layout: {}/{} byte-identical to ptxas",
        run().reports.len() - different.len(),
        run().reports.len()
    );
}

#[test]
fn canonical_files_are_accepted_by_the_tools_silently() {
    let problems = failures(|r| r.tool_complaints.clone());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn is_exception(name: &str) -> bool {
    CANONICAL_LAYOUT_EXCEPTIONS.iter().any(|(n, _)| *n == name)
}

/// The probes compiled and checked like the test files.
fn probe_run() -> &'static Vec<(Report, CubinModule)> {
    static RUN: OnceLock<Vec<(Report, CubinModule)>> = OnceLock::new();
    RUN.get_or_init(|| {
        let dir = scratch_dir("cubin_sm90_probes");
        for sub in ["ptxas", "v8", "canonical", "rel"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        par_map(PROBES, |p| {
            let c = compile_probe(p, &dir);
            let m = cubin::read(&c.bytes).unwrap_or_else(|e| panic!("{}: {e}", p.name));
            (check_file(&c, &dir), m)
        })
    })
}

fn compile_probe(p: &Probe, dir: &Path) -> Compiled {
    let ptx = dir.join(format!("{}.ptx", p.name));
    let cubin = dir.join("ptxas").join(format!("{}.cubin", p.name));
    std::fs::write(&ptx, p.ptx).unwrap();
    let run = ptxas_for(p.arch, &ptx, &cubin, &[]);
    assert!(run.ok, "ptxas rejected probe {} ({}): {}", p.name, p.shows, run.stderr);
    Compiled {
        name: p.name.into(),
        ptx,
        bytes: std::fs::read(&cubin).unwrap(),
        cubin,
    }
}

fn probe(name: &str) -> &'static CubinModule {
    let found = probe_run().iter().find(|(r, _)| r.name == name);
    &found.unwrap_or_else(|| panic!("no probe {name}")).1
}

fn kernel<'m>(m: &'m CubinModule, name: &str) -> &'m cubin::KernelImage {
    m.kernel(name).unwrap_or_else(|| panic!("no kernel {name}"))
}

/// The verbatim record `id` of kernel `k`.
fn other_attr(k: &cubin::KernelImage, id: u8) -> Option<&cubin::NvInfoAttr> {
    k.other_attrs.iter().find(|a| a.id == id)
}

#[test]
fn probes_round_trip_and_match_ptxas_canonically() {
    let mut problems = Vec::new();
    for (r, _) in probe_run() {
        let name = &r.name;
        problems.extend(r.read_error.iter().map(|e| format!("{name}: read: {e}")));
        problems.extend(r.problems.iter().map(|p| format!("{name}: {p}")));
        problems.extend(r.tool_complaints.iter().map(|p| format!("{name}: {p}")));
        problems.extend(r.relocatable_problems.iter().map(|p| format!("{name}: ptxas -c: {p}")));
        problems.extend(
            r.canonical_structure
                .iter()
                .map(|p| format!("{name}: canonical structure: {p}")),
        );
        if !r.canonical_identical && !is_exception(name) {
            problems.push(format!("{name}: canonical bytes differ"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn probes_show_the_code_dependent_records() {
    const PREEXIT_USED: u8 = 0x6d;
    const SPARSE_MMA_MASK: u8 = 0x50;
    const CTAIDZ_USED: u8 = 0x04;
    let launch = probe("launch");
    assert_eq!(kernel(launch, "k_reqntid").req_ntid, Some([128, 1, 1]));
    assert!(
        launch
            .kernels
            .iter()
            .all(|k| !k.ctaid_z_used && other_attr(k, CTAIDZ_USED).is_none())
    );
    assert_eq!(kernel(launch, "k_maxntid").max_reg_count, Some(32));
    assert_eq!(kernel(launch, "k_cluster").cluster_dims, Some([2, 1, 1]));
    let explicit = kernel(launch, "k_explicit");
    assert!(explicit.explicit_cluster && explicit.max_cluster_rank == Some(4));
    let preexit = other_attr(kernel(launch, "k_pdl"), PREEXIT_USED).map(|a| a.value);
    assert_eq!(preexit, Some(1), "griddepcontrol.launch_dependents");
    let sparse = other_attr(kernel(probe("sparse_mma"), "k_sp"), SPARSE_MMA_MASK).map(|a| a.value);
    assert_eq!(sparse, Some(0x10), "mma.sp");

    let copies = probe("async_copies");
    assert_eq!((copies.compat.isa_class, copies.compat.tensormap), (2, 1));
    assert!(!copies.arch_specific && copies.compat.other.is_empty());
    let specific = probe("arch_specific");
    assert!(specific.arch_specific && specific.compat.tensormap == 2 && specific.compat.isa_class == 1);
    assert_eq!(specific.arch(), Some(ptxc_sass::isa::Arch::Sm90a));

    let shared = probe("extern_shared");
    assert!(kernel(shared, "k_uses").uses_shared_memory && !kernel(shared, "k_call").uses_shared_memory);
    assert_eq!(
        kernel(shared, "k_call").shared_size,
        reserved_shared(90),
        "module .extern .shared"
    );
    assert!(
        probe("module_data")
            .global_init_relocs
            .iter()
            .any(|r| r.addend == Some(8))
    );
}

/// A module as the back end builds it for sm_90, from scratch: the tools accept it silently,
/// and it reads back as written.
#[test]
fn handmade_sm90_module_is_accepted_and_reads_back() {
    // `LDC R1, c[0x0][0x28]` and `EXIT` as ptxas 13.5 encodes them for sm_90.
    let words: [[u64; 2]; 2] = [
        [0x0000_0a00_ff01_7b82, 0x000f_e200_0000_0800],
        [0x0000_0000_0000_794d, 0x000f_ea00_0380_0000],
    ];
    let mut code: Vec<u8> = words
        .iter()
        .flat_map(|[a, b]| a.to_le_bytes().into_iter().chain(b.to_le_bytes()))
        .collect();
    cubin::pad_text_for(&mut code, 90);
    let mut k = cubin::KernelImage::new("store", code);
    k.params = vec![cubin::KernelParam::new(0, 0, 8), cubin::KernelParam::new(1, 8, 4)];
    k.param_size = 12;
    k.reg_count = cubin::register_count(Some(1));
    k.exit_offsets = vec![0x10];
    k.shared_size = reserved_shared(90) + 0x100;
    k.uses_shared_memory = true;
    k.num_barriers = 1;
    k.cluster_dims = Some([2, 1, 1]);
    let mut m = CubinModule::for_arch(ptxc_sass::isa::Arch::Sm90a);
    m.tool.tool_options = "-arch sm_90a ".into();
    m.kernels.push(k);
    let dir = scratch_dir("cubin_sm90_handmade");
    let path = dir.join("store.cubin");
    std::fs::write(&path, cubin::write(&m)).unwrap();
    for (tool, run) in [
        ("nvdisasm -c", nvdisasm_code(&path)),
        ("cuobjdump -sass", cuobjdump_sass(&path)),
        ("cuobjdump -elf", cuobjdump_elf(&path)),
    ] {
        assert!(run.ok && run.stderr.is_empty(), "{tool}: {}", run.stderr);
    }
    let elf = cuobjdump_elf(&path).stdout;
    for needle in [
        "sm=90a",
        "CUDA_COMPAT_INFO",
        ".nv.shared.reserved.0",
        "__nv_reservedSMEM_offset_0_alias",
        "EIATTR_CTA_PER_CLUSTER",
        "0xc0210",
    ] {
        assert!(elf.contains(needle), "{needle} missing:\n{elf}");
    }
    let mut back = cubin::read(&std::fs::read(&path).unwrap()).expect("our own output reads");
    back.layout = None;
    back.debug_frame = None;
    assert_eq!(back, m);
}

#[test]
fn relocatable_cubins_read_like_executables() {
    let problems = failures(|r| r.relocatable_problems.clone());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn parameters_start_at_0x210_and_shared_memory_reserves_1_kib() {
    assert_eq!(param_base(75), 0x160);
    assert_eq!(param_base(89), 0x160);
    assert_eq!(param_base(90), 0x210);
    assert_eq!(reserved_shared(89), 0);
    assert_eq!(reserved_shared(90), 0x400);
}
