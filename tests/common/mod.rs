//! Shared helpers of the integration tests: the oracle tools, running `ptxc`, listings.
#![allow(dead_code)]

pub mod elem;
pub mod five_ways;
pub mod mma;
pub mod rng;
pub mod suite;
pub mod zluda;

use ptxc::launch::{BufferInit, LaunchSpec, ParamSpec, Scalar};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The folder of NVIDIA's tools: `CUDA_ORACLE_BIN`, else installed by `scripts/cuda-oracle`
/// (see `ptxc_testkit::oracle_bin`); the oracle tests fail with the reason without it.
pub fn oracle_bin() -> PathBuf {
    ptxc_testkit::oracle_bin()
}

/// Runs an oracle tool.
pub fn oracle(tool: &str, args: &[&str]) -> Output {
    let path = oracle_bin().join(tool);
    Command::new(&path)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Runs the `ptxc` binary under test.
pub fn ptxc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxc"))
        .args(args)
        .output()
        .expect("run ptxc")
}

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A bundled example.
pub fn example(name: &str) -> PathBuf {
    root().join("examples").join(name)
}

/// A scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Text of an output stream.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Instruction texts of a listing with several kernels, keyed by kernel section and address:
/// each `.text.NAME:` section is read by [`listing`] on its own, so the branch labels that
/// repeat from kernel to kernel (`.L_x_0`) resolve within their section.
pub fn listing_by_section(s: &str) -> BTreeMap<(String, u64), String> {
    let mut sections: Vec<(String, String)> = vec![(String::new(), String::new())];
    for line in s.lines() {
        match line.trim().strip_suffix(':').filter(|n| n.starts_with(".text.")) {
            Some(name) => sections.push((name.to_string(), String::new())),
            None => {
                let body = &mut sections.last_mut().expect("one section at least").1;
                body.push_str(line);
                body.push('\n');
            }
        }
    }
    sections
        .into_iter()
        .flat_map(|(name, body)| listing(&body).into_iter().map(move |(a, t)| ((name.clone(), a), t)))
        .collect()
}

/// Instruction texts of a listing in nvdisasm's syntax (`/*ADDR*/ TEXT ;`), keyed by address,
/// with branch labels replaced by their target address and whitespace normalised. Works on
/// both nvdisasm's and `ptxc disasm`'s output.
pub fn listing(s: &str) -> BTreeMap<u64, String> {
    let mut labels: BTreeMap<String, u64> = BTreeMap::new();
    let mut pending: Vec<String> = Vec::new();
    let mut raw: Vec<(u64, String)> = Vec::new();
    for line in s.lines() {
        let t = line.trim();
        if let Some(name) = t.strip_suffix(':').filter(|n| n.starts_with(".L")) {
            pending.push(name.to_string());
            continue;
        }
        let Some(rest) = t.strip_prefix("/*") else {
            continue;
        };
        let Some((addr, body)) = rest.split_once("*/") else {
            continue;
        };
        let Ok(addr) = u64::from_str_radix(addr.trim(), 16) else {
            continue;
        };
        for p in pending.drain(..) {
            labels.insert(p, addr);
        }
        let body = body.split("/*").next().unwrap_or("").trim();
        // Drop a leading control-code column.
        let body = match body.strip_prefix('[') {
            Some(b) if b.contains(":S") => b.split_once(']').map_or(body, |(_, r)| r.trim()),
            _ => body,
        };
        let body = body.trim_end_matches(';').trim();
        raw.push((addr, body.split_whitespace().collect::<Vec<_>>().join(" ")));
    }
    raw.into_iter()
        .map(|(a, b)| {
            let mut b = b;
            for (name, target) in &labels {
                b = b.replace(&format!("`({name})"), &format!("`(@{target:#x})"));
            }
            (a, b)
        })
        .collect()
}

/// `ptxc disasm` of `cubin`: its listing.
pub fn disasm(cubin: &Path) -> String {
    text(&ptxc(&["disasm", cubin.to_str().unwrap()]).stdout)
}

/// Compiles `ptx` with ptxas into `out`.
pub fn ptxas(ptx: &Path, out: &Path) {
    ptxas_for("sm_75", ptx, out);
}

/// Compiles `ptx` with `ptxas -arch=<arch> -O3` into `out`.
pub fn ptxas_for(arch: &str, ptx: &Path, out: &Path) {
    let flag = format!("-arch={arch}");
    let o = oracle(
        "ptxas",
        &[&flag, "-O3", ptx.to_str().unwrap(), "-o", out.to_str().unwrap()],
    );
    assert!(o.status.success(), "ptxas failed: {}", text(&o.stderr));
}

/// ptxas's and ptxc's cubins of `ptx` for `arch`, compiled into `dir/ptxas.cubin` and
/// `dir/ptxc.cubin` (both must succeed): (ptxas's, ptxc's).
pub fn both_cubins(arch: &str, ptx: &Path, dir: &Path) -> (PathBuf, PathBuf) {
    let (theirs, ours) = (dir.join("ptxas.cubin"), dir.join("ptxc.cubin"));
    ptxas_for(arch, ptx, &theirs);
    let o = ptxc_compile(arch, ptx, &ours);
    assert!(o.status.success(), "ptxc: {}", text(&o.stderr));
    (theirs, ours)
}

/// `ptxc compile --arch <arch> -o <out> <ptx>`.
pub fn ptxc_compile(arch: &str, ptx: &Path, out: &Path) -> Output {
    ptxc(&[
        "compile",
        "--arch",
        arch,
        "-o",
        out.to_str().unwrap(),
        ptx.to_str().unwrap(),
    ])
}

/// A launch of `kernel` as one block of `threads` threads, whose parameters are pointers to
/// the start of the named `buffers`, in the order of `params`.
pub fn one_block_spec(
    kernel: &str,
    threads: u32,
    buffers: BTreeMap<String, BufferInit>,
    params: &[&str],
) -> LaunchSpec {
    LaunchSpec {
        kernel: kernel.to_string(),
        grid: [1, 1, 1],
        block: [threads, 1, 1],
        dynamic_shared_bytes: 0,
        cluster: None,
        params: params
            .iter()
            .map(|b| ParamSpec::Ptr {
                buffer: b.to_string(),
                offset: 0,
            })
            .collect(),
        buffers,
        symbols: BTreeMap::new(),
        limits: Default::default(),
    }
}

/// A buffer of the 32-bit `words`, written to the `.npy` file `path` it is loaded from.
pub fn u32_file(path: PathBuf, words: &[u32]) -> BufferInit {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    ptxc::npy::write(&path, &ptxc::npy::Array::new(Scalar::U32, bytes)).expect("write the input");
    BufferInit::File(path)
}

/// A zero-filled buffer of `len` 32-bit words.
pub fn u32_zeros(len: usize) -> BufferInit {
    BufferInit::Zero {
        dtype: Scalar::U32,
        len,
    }
}

/// The buffers of a launch with one input and one output: `input` (written to
/// `dir/<name>.npy`) and a zero-filled output of `len` words.
pub fn in_out_buffers(
    dir: &Path,
    (name, input): (&str, &[u32]),
    (out, len): (&str, usize),
) -> BTreeMap<String, BufferInit> {
    BTreeMap::from([
        (name.to_string(), u32_file(dir.join(format!("{name}.npy")), input)),
        (out.to_string(), u32_zeros(len)),
    ])
}

/// Little-endian 32-bit words of `bytes`.
pub fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Runs `cubin` through `ptxc run` on the launch specification text `spec` with `engine`
/// (`functional`, `timed`, or `mir` for `--engine mir` on a PTX file), writing into `dir`:
/// the words of each buffer named in `buffers`. The simulator's runs must report no hazard.
pub fn run_words(dir: &Path, cubin: &Path, spec: &str, engine: &str, buffers: &[&str]) -> Vec<Vec<u32>> {
    let toml = dir.join(format!("{engine}.toml"));
    std::fs::write(&toml, spec).unwrap();
    let out = dir.join(engine);
    let mut args = vec!["run", cubin.to_str().unwrap(), "--launch", toml.to_str().unwrap()];
    args.extend(["--out", out.to_str().unwrap()]);
    args.extend(match engine {
        "mir" => ["--engine", "mir"],
        mode => ["--mode", mode],
    });
    let o = ptxc(&args);
    assert!(o.status.success(), "{engine}: {}{}", text(&o.stdout), text(&o.stderr));
    assert!(
        engine == "mir" || text(&o.stdout).contains("hazards 0"),
        "{engine}: {}",
        text(&o.stdout)
    );
    buffers
        .iter()
        .map(|b| {
            let a = ptxc::npy::read(&out.join(format!("{b}.npy"))).unwrap();
            words(&a.bytes)
        })
        .collect()
}
