//! The kernels the hardware check runs: the conformance set (`tests/data/conformance`, launched
//! as its `manifest.json` says), the kernel set (`tests/kernels/<name>.toml`) and the benchmark
//! suite (`benches/suite/<name>.toml`, kernels from `tests/kernels`), each with its launch spec.

use crate::launch::{BufferInit, LaunchSpec, ParamSpec, Scalar};
use crate::npy::Array;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A set of kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Set {
    /// The 158 ZLUDA conformance kernels.
    Conformance,
    /// The CUDA C kernel set.
    Kernels,
    /// The benchmark suite.
    Suite,
}

/// Every set with its spelling.
pub const SETS: [(Set, &str); 3] = [
    (Set::Conformance, "conformance"),
    (Set::Kernels, "kernels"),
    (Set::Suite, "suite"),
];

impl Set {
    /// The spelling (`conformance`).
    pub fn name(self) -> &'static str {
        SETS.iter().find(|(s, _)| *s == self).map_or("", |(_, n)| n)
    }

    /// Parses a spelling.
    pub fn from_name(s: &str) -> Option<Set> {
        SETS.iter().find(|(_, n)| *n == s).map(|(k, _)| *k)
    }
}

/// One kernel to run.
#[derive(Clone, Debug)]
pub struct Case {
    /// Its set.
    pub set: Set,
    /// The kernel's name in the report (the launch spec's file name, or the test's name).
    pub name: String,
    /// The PTX.
    pub ptx: PathBuf,
    /// The launch spec, or why the kernel cannot be launched (missing inputs).
    pub spec: Result<LaunchSpec, String>,
}

/// The cases of `set` under the repository `root`; generated inputs go to `work`, kernel-set
/// inputs are looked for in `kernel_inputs/<name>/` when given.
pub fn cases(set: Set, root: &Path, work: &Path, kernel_inputs: Option<&Path>) -> Result<Vec<Case>, String> {
    match set {
        Set::Conformance => conformance(root, work),
        Set::Kernels => toml_cases(Set::Kernels, &root.join("tests/kernels"), root, kernel_inputs),
        Set::Suite => toml_cases(Set::Suite, &root.join("benches/suite"), root, None),
    }
}

/// The `.toml` launch specs of `dir`, sorted, each run from `tests/kernels/<kernel>.ptx`.
fn toml_cases(set: Set, dir: &Path, root: &Path, inputs: Option<&Path>) -> Result<Vec<Case>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut specs: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    specs.sort();
    if specs.is_empty() {
        return Err(format!("{}: no launch specs (.toml)", dir.display()));
    }
    Ok(specs
        .iter()
        .map(|path| {
            let name = path
                .file_stem()
                .map_or(String::new(), |s| s.to_string_lossy().into_owned());
            let base = inputs.map_or_else(|| dir.to_path_buf(), |d| d.join(&name));
            let spec = std::fs::read_to_string(path)
                .map_err(|e| format!("{}: {e}", path.display()))
                .and_then(|text| crate::launch::parse(&text, &base).map_err(|e| format!("{}: {e}", path.display())))
                .and_then(|spec| inputs_present(spec, &base));
            let kernel = spec.as_ref().map_or(name.clone(), |s| s.kernel.clone());
            Case {
                set,
                ptx: kernel_ptx(root, &kernel),
                name,
                spec,
            }
        })
        .collect())
}

/// The PTX of a kernel-set or suite kernel: `tests/kernels/<name>.ptx`, or for the tensor-core
/// GEMMs of the suite `tests/tensor/<name>.ptx`.
fn kernel_ptx(root: &Path, kernel: &str) -> PathBuf {
    let file = format!("{kernel}.ptx");
    let scalar = root.join("tests/kernels").join(&file);
    let tensor = root.join("tests/tensor").join(&file);
    if !scalar.is_file() && tensor.is_file() {
        tensor
    } else {
        scalar
    }
}

/// `spec`, or which of its input files are missing.
fn inputs_present(spec: LaunchSpec, base: &Path) -> Result<LaunchSpec, String> {
    let missing: Vec<String> = spec
        .buffers
        .values()
        .chain(spec.symbols.values())
        .filter_map(|b| match b {
            BufferInit::File(p) if !p.is_file() => Some(
                p.file_name()
                    .map_or(String::new(), |n| n.to_string_lossy().into_owned()),
            ),
            _ => None,
        })
        .collect();
    if missing.is_empty() {
        Ok(spec)
    } else {
        Err(format!(
            "inputs {} not in {} (tests/sim_kernels.rs generates them; --kernel-inputs DIR reads DIR/<name>/<buffer>.npy)",
            missing.join(", "),
            base.display()
        ))
    }
}

/// The conformance kernels of `root/tests/data/conformance/manifest.json`: grid 1x1x1, block
/// (block)x1x1, 1024 bytes of dynamic shared memory, params (input, output) or (output); the
/// inputs are written to `work` as `.npy` files.
fn conformance(root: &Path, work: &Path) -> Result<Vec<Case>, String> {
    let dir = root.join("tests/data/conformance");
    let path = dir.join("manifest.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let manifest: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let tests = manifest["tests"]
        .as_array()
        .ok_or_else(|| format!("{}: no `tests` list", path.display()))?;
    let inputs = work.join("conformance");
    std::fs::create_dir_all(&inputs).map_err(|e| format!("{}: {e}", inputs.display()))?;
    tests
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let name = t["name"]
                .as_str()
                .ok_or_else(|| format!("{}: tests[{i}] has no name", path.display()))?;
            let ptx = dir.join(format!("{name}.ptx"));
            let spec =
                conformance_spec(t, &ptx, &inputs).map_err(|e| format!("{}: tests[{i}] ({name}): {e}", path.display()));
            Ok(Case {
                set: Set::Conformance,
                name: name.to_string(),
                ptx,
                spec,
            })
        })
        .collect()
}

/// The launch spec of one manifest entry; a kernel declared with an input the manifest
/// leaves out gets a zeroed word.
fn conformance_spec(t: &serde_json::Value, ptx: &Path, inputs: &Path) -> Result<LaunchSpec, String> {
    let name = t["name"].as_str().unwrap_or_default();
    let scalar = |key: &str| -> Result<Option<Scalar>, String> {
        t[key]
            .as_str()
            .map(|s| Scalar::from_name(s).ok_or_else(|| format!("`{key}`: unknown type `{s}`")))
            .transpose()
    };
    let block = t["block"]
        .as_u64()
        .and_then(|b| u32::try_from(b).ok())
        .ok_or("`block` is not a thread count")?;
    let output_type = scalar("output_type")?.ok_or("no `output_type`")?;
    let output_len = t["output_len"].as_u64().ok_or("no `output_len`")? as usize;
    let declares_input = std::fs::read_to_string(ptx).is_ok_and(|s| s.contains(".param .u64 input"));
    let input = match scalar("input_type")? {
        Some(ty) => Some(Array::new(ty, hex(t["input_hex"].as_str().unwrap_or_default())?)),
        None if declares_input => Some(Array::new(Scalar::U32, vec![0; 4])),
        None => None,
    };
    let mut buffers = BTreeMap::new();
    let mut params = Vec::new();
    if let Some(a) = input {
        let p = inputs.join(format!("{name}_input.npy"));
        crate::npy::write(&p, &a)?;
        buffers.insert("input".to_string(), BufferInit::File(p));
        params.push(ParamSpec::Ptr {
            buffer: "input".into(),
            offset: 0,
        });
    }
    buffers.insert(
        "output".to_string(),
        BufferInit::Zero {
            dtype: output_type,
            len: output_len,
        },
    );
    params.push(ParamSpec::Ptr {
        buffer: "output".into(),
        offset: 0,
    });
    Ok(LaunchSpec {
        kernel: name.to_string(),
        grid: [1, 1, 1],
        block: [block, 1, 1],
        dynamic_shared_bytes: 1024,
        cluster: None,
        params,
        buffers,
        symbols: BTreeMap::new(),
        limits: Default::default(),
    })
}

/// Bytes of a hex string.
fn hex(s: &str) -> Result<Vec<u8>, String> {
    if !s.len().is_multiple_of(2) || !s.is_ascii() {
        return Err(format!("`{s}` is not hex bytes"));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).map_err(|_| format!("`{s}` is not hex bytes")))
        .collect()
}
