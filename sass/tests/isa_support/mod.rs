//! Helpers shared by the ISA tests: NVIDIA's oracle tools (`ptxas`, `nvdisasm`), the test
//! inputs (zluda conformance kernels, the real-world corpus, the project's CUDA kernel set,
//! the op tests and the differential-testing regression cases),
//! a compile cache keyed by input hash, a parser for `nvdisasm -hex` output and the text
//! normalisation used to compare our disassembly with nvdisasm's.
#![allow(dead_code)]

use ptxc_sass::isa::Arch;
use ptxc_sass::isa::text::LabelNamer;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Corpus files ptxas refuses at -O3 ("Optimized debugging not supported": they carry debug
/// sections); the round trip skips them.
pub const SKIPPED_CORPUS: [&str; 2] = ["vosen_ZLUDA__vectorAdd_clang", "vosen_ZLUDA__vectorAdd_kernel64"];

/// Regression cases of `tests/difftest` that ptxas cannot compile (it crashes on them).
pub const SKIPPED_CASES: [&str; 1] = ["ptxas_crash"];

/// Kernels of `tests/kernels` that are also compiled with `-maxrregcount 16` (they spill).
pub const SPILL_KERNELS: [&str; 3] = ["local_array", "spill_pressure", "matmul_tiled"];

/// The folder holding NVIDIA's `ptxas`, `nvdisasm` and `cuobjdump`: `CUDA_ORACLE_BIN`, else
/// installed by `scripts/cuda-oracle` (see `ptxc_testkit::oracle_bin`).
pub fn oracle_bin() -> PathBuf {
    ptxc_testkit::oracle_bin()
}

/// The project's CUDA kernel set (`tests/kernels`).
pub fn kernels_dir() -> PathBuf {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/kernels"));
    assert!(dir.is_dir(), "kernel set missing at {}", dir.display());
    dir
}

/// A scratch directory under the test target directory.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).expect("create scratch directory");
    dir
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

/// `*.<ext>` files of `dir`, sorted.
pub fn files_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    files
}

/// One ptxas run: a PTX file and extra flags.
#[derive(Debug, Clone)]
pub struct Input {
    /// A unique name (file stem, plus a flag tag).
    pub name: String,
    /// The PTX file.
    pub ptx: PathBuf,
    /// Extra ptxas flags.
    pub flags: Vec<&'static str>,
}

/// Every input of the round trip: the zluda conformance kernels, the corpus (minus
/// [`SKIPPED_CORPUS`]), the kernel set (the [`SPILL_KERNELS`] twice), the op tests
/// (`tests/ops`), the tensor-core kernels (`tests/tensor`), the kernels of PTX that needs
/// sm_80 (`tests/ampere`) and the differential-testing cases (`tests/difftest`, minus
/// [`SKIPPED_CASES`]).
pub fn round_trip_inputs() -> Vec<Input> {
    let zluda = files_with_ext(&ptxc_testkit::conformance_dir(), "ptx");
    assert!(
        zluda.len() >= 150,
        "expected the zluda conformance kernels, found {}",
        zluda.len()
    );
    let corpus = files_with_ext(&ptxc_testkit::corpus_dir(), "ptx");
    let kernels = files_with_ext(&kernels_dir(), "ptx");
    assert!(kernels.len() >= 20, "expected the kernel set, found {}", kernels.len());
    let tests = kernels_dir().join("..");
    let ops = files_with_ext(&tests.join("ops"), "ptx");
    let tensor = files_with_ext(&tests.join("tensor"), "ptx");
    let ampere = files_with_ext(&tests.join("ampere"), "ptx");
    let cases = files_with_ext(&tests.join("difftest"), "ptx");
    let stem = |p: &Path| p.file_stem().unwrap().to_string_lossy().into_owned();
    let mut inputs = Vec::new();
    for p in zluda
        .iter()
        .chain(&corpus)
        .chain(&kernels)
        .chain(&ops)
        .chain(&tensor)
        .chain(&ampere)
        .chain(&cases)
    {
        let name = stem(p);
        if SKIPPED_CORPUS.contains(&name.as_str()) || SKIPPED_CASES.contains(&name.as_str()) {
            continue;
        }
        if SPILL_KERNELS.contains(&name.as_str()) {
            inputs.push(Input {
                name: format!("{name}@maxrregcount16"),
                ptx: p.clone(),
                flags: vec!["-maxrregcount", "16"],
            });
        }
        inputs.push(Input {
            name,
            ptx: p.clone(),
            flags: Vec::new(),
        });
    }
    inputs
}

/// A compiled input: the cubin and `nvdisasm -c -hex` of it.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The input's name.
    pub name: String,
    /// Cubin bytes.
    pub cubin: Vec<u8>,
    /// nvdisasm's output.
    pub sass: String,
}

/// Compiles `input` with `ptxas -arch=<arch> -O3` and disassembles it, reusing an earlier
/// result for the same PTX text, flags, target and tools (cached under the test target
/// directory).
pub fn compile_cached(input: &Input, arch: Arch) -> Result<Compiled, String> {
    let ptx = std::fs::read(&input.ptx).map_err(|e| format!("{}: {e}", input.ptx.display()))?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    ptx.hash(&mut h);
    input.flags.hash(&mut h);
    if arch != Arch::Sm75 {
        arch.name().hash(&mut h);
    }
    oracle_bin().hash(&mut h);
    let key = format!("{:016x}", h.finish());
    let dir = scratch_dir("isa-oracle-cache");
    let (cubin_path, sass_path) = (dir.join(format!("{key}.cubin")), dir.join(format!("{key}.sass")));
    if let (Ok(cubin), Ok(sass)) = (std::fs::read(&cubin_path), std::fs::read_to_string(&sass_path)) {
        return Ok(Compiled {
            name: input.name.clone(),
            cubin,
            sass,
        });
    }
    let tmp_cubin = dir.join(format!("{key}.tmp.cubin"));
    let (ptx_s, out_s) = (input.ptx.to_str().unwrap(), tmp_cubin.to_str().unwrap());
    let arch_flag = format!("-arch={}", arch.name());
    let mut args = vec![arch_flag.as_str(), "-O3"];
    args.extend_from_slice(&input.flags);
    args.extend_from_slice(&[ptx_s, "-o", out_s]);
    let run = run_tool("ptxas", &args);
    if !run.ok {
        return Err(format!("ptxas rejected {}: {}", input.name, run.stderr));
    }
    let dis = run_tool("nvdisasm", &["-c", "-hex", out_s]);
    if !dis.ok {
        return Err(format!("nvdisasm failed on {}: {}", input.name, dis.stderr));
    }
    let cubin = std::fs::read(&tmp_cubin).map_err(|e| e.to_string())?;
    std::fs::write(&sass_path, &dis.stdout).map_err(|e| e.to_string())?;
    std::fs::rename(&tmp_cubin, &cubin_path).map_err(|e| e.to_string())?;
    Ok(Compiled {
        name: input.name.clone(),
        cubin,
        sass: dis.stdout,
    })
}

/// One instruction line of nvdisasm's output.
#[derive(Debug, Clone)]
pub struct OracleInst {
    /// Byte offset in the section.
    pub addr: u64,
    /// The text between the address and the encoding comment.
    pub text: String,
    /// The two instruction words.
    pub words: (u64, u64),
}

/// One code section of nvdisasm's output.
#[derive(Debug, Clone, Default)]
pub struct OracleSection {
    /// Section name (`.text.kernel`).
    pub name: String,
    /// Instructions in address order.
    pub insts: Vec<OracleInst>,
    /// Labels and function symbols defined in the section, by name.
    pub labels: HashMap<String, u64>,
}

/// Parses `nvdisasm -hex` output (of a cubin, or of raw code: one unnamed section).
pub fn parse_nvdisasm(out: &str) -> Vec<OracleSection> {
    let mut sections: Vec<OracleSection> = Vec::new();
    let mut pending_labels: Vec<String> = Vec::new();
    let mut lines = out.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix(".section")
            && rest.starts_with(char::is_whitespace)
        {
            flush_labels(&mut sections, &mut pending_labels);
            let name = rest.trim().split(',').next().unwrap_or("").to_string();
            sections.push(OracleSection {
                name,
                ..OracleSection::default()
            });
        } else if let Some(inst) = parse_inst_line(t) {
            let word1 = lines.next().and_then(|l| hex_comment(l.trim())).unwrap_or(0);
            if sections.is_empty() {
                sections.push(OracleSection::default());
            }
            let sec = sections.last_mut().unwrap();
            for l in pending_labels.drain(..) {
                sec.labels.insert(l, inst.0);
            }
            sec.insts.push(OracleInst {
                addr: inst.0,
                text: inst.1,
                words: (inst.2, word1),
            });
        } else if let Some(label) = t.strip_suffix(':')
            && !label.contains(char::is_whitespace)
            && !label.is_empty()
        {
            pending_labels.push(label.to_string());
        }
    }
    flush_labels(&mut sections, &mut pending_labels);
    sections
}

/// Labels after the last instruction of a section name its end.
fn flush_labels(sections: &mut [OracleSection], pending: &mut Vec<String>) {
    if let Some(sec) = sections.last_mut() {
        let end = sec.insts.last().map_or(0, |i| i.addr + 16);
        for l in pending.drain(..) {
            sec.labels.insert(l, end);
        }
    }
    pending.clear();
}

/// `/*0040*/  TEXT ;  /* 0x0123... */` → (address, text, word0).
fn parse_inst_line(t: &str) -> Option<(u64, String, u64)> {
    let rest = t.strip_prefix("/*")?;
    let (addr, rest) = rest.split_once("*/")?;
    let addr = u64::from_str_radix(addr, 16).ok()?;
    let start = rest.rfind("/* 0x")?;
    let word = hex_comment(&rest[start..])?;
    Some((addr, rest[..start].trim().to_string(), word))
}

/// `/* 0x0123456789abcdef */` → the number.
fn hex_comment(t: &str) -> Option<u64> {
    let inner = t.strip_prefix("/* 0x")?.strip_suffix("*/")?.trim();
    u64::from_str_radix(inner, 16).ok()
}

/// Names targets by address, the way [`normalise_oracle`] rewrites nvdisasm's labels.
pub struct AtAddress;

impl LabelNamer for AtAddress {
    fn label(&self, target: u64) -> String {
        format!("@{target:#x}")
    }
}

/// nvdisasm's instruction text made comparable: annotations (`(*"SpillRefill"*)`) removed,
/// label names replaced by `@address`, the trailing `;` dropped and whitespace runs collapsed.
pub fn normalise_oracle(text: &str, labels: &HashMap<String, u64>) -> String {
    let mut s = text.to_string();
    while let Some(i) = s.find("(*") {
        match s[i..].find("*)") {
            Some(j) => s.replace_range(i..i + j + 2, ""),
            None => break,
        }
    }
    let mut out = String::new();
    let mut rest = s.as_str();
    while let Some(i) = rest.find("`(") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let end = after.find(')').unwrap_or(after.len());
        let name = &after[..end];
        match labels.get(name) {
            Some(a) => out.push_str(&format!("`(@{a:#x})")),
            None => out.push_str(&format!("`({name})")),
        }
        rest = after.get(end + 1..).unwrap_or("");
    }
    out.push_str(rest);
    normalise_ours(out.trim_end().trim_end_matches(';'))
}

/// Whitespace runs collapsed to one space, ends trimmed.
pub fn normalise_ours(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Writes `words` as a raw instruction file and returns `nvdisasm -b <arch> -hex` output.
pub fn nvdisasm_raw(words: &[u128], name: &str, arch: Arch) -> ToolRun {
    let path = scratch_dir("isa-raw").join(format!("{name}-{}.bin", arch.name()));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).expect("write raw code");
    run_tool(
        "nvdisasm",
        &["-b", arch.nvdisasm_name(), "-hex", path.to_str().unwrap()],
    )
}
