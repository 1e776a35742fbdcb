//! The TOML launch specification of `ptxc run`: kernel, grid, block, cluster shape, dynamic shared memory,
//! parameters in order (scalars or buffer addresses) and the buffers with their initial
//! contents. Every mistake is an error that names the key it is about.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Scalar kinds of parameters and buffer elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(missing_docs)]
pub enum Scalar {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    U64,
    I64,
    F16,
    F32,
    F64,
}

/// Every scalar kind with its spelling.
pub const SCALARS: [(Scalar, &str); 11] = [
    (Scalar::U8, "u8"),
    (Scalar::I8, "i8"),
    (Scalar::U16, "u16"),
    (Scalar::I16, "i16"),
    (Scalar::U32, "u32"),
    (Scalar::I32, "i32"),
    (Scalar::U64, "u64"),
    (Scalar::I64, "i64"),
    (Scalar::F16, "f16"),
    (Scalar::F32, "f32"),
    (Scalar::F64, "f64"),
];

impl Scalar {
    /// Size in bytes.
    pub fn size(self) -> usize {
        match self {
            Scalar::U8 | Scalar::I8 => 1,
            Scalar::U16 | Scalar::I16 | Scalar::F16 => 2,
            Scalar::U32 | Scalar::I32 | Scalar::F32 => 4,
            Scalar::U64 | Scalar::I64 | Scalar::F64 => 8,
        }
    }

    /// The spelling (`f32`).
    pub fn name(self) -> &'static str {
        SCALARS
            .iter()
            .find(|(s, _)| *s == self)
            .map(|(_, n)| *n)
            .expect("every scalar is listed")
    }

    /// Parses a spelling.
    pub fn from_name(s: &str) -> Option<Scalar> {
        SCALARS.iter().find(|(_, n)| *n == s).map(|(k, _)| *k)
    }

    /// Encodes a TOML value as little-endian bytes of this kind.
    pub fn encode(self, v: &toml::Value) -> Result<Vec<u8>, String> {
        let int = || -> Result<i128, String> {
            match v {
                toml::Value::Integer(i) => Ok(*i as i128),
                toml::Value::String(s) => parse_int(s).ok_or_else(|| format!("`{s}` is not an integer")),
                other => Err(format!("expected an integer, found {}", other.type_str())),
            }
        };
        let float = || -> Result<f64, String> {
            match v {
                toml::Value::Float(f) => Ok(*f),
                toml::Value::Integer(i) => Ok(*i as f64),
                other => Err(format!("expected a number, found {}", other.type_str())),
            }
        };
        let ranged = |lo: i128, hi: i128| -> Result<i128, String> {
            let i = int()?;
            if i < lo || i > hi {
                Err(format!("{i} is out of range for {}", self.name()))
            } else {
                Ok(i)
            }
        };
        Ok(match self {
            Scalar::U8 => (ranged(0, u8::MAX as i128)? as u8).to_le_bytes().to_vec(),
            Scalar::I8 => (ranged(i8::MIN as i128, i8::MAX as i128)? as i8).to_le_bytes().to_vec(),
            Scalar::U16 => (ranged(0, u16::MAX as i128)? as u16).to_le_bytes().to_vec(),
            Scalar::I16 => (ranged(i16::MIN as i128, i16::MAX as i128)? as i16)
                .to_le_bytes()
                .to_vec(),
            Scalar::U32 => (ranged(0, u32::MAX as i128)? as u32).to_le_bytes().to_vec(),
            Scalar::I32 => (ranged(i32::MIN as i128, i32::MAX as i128)? as i32)
                .to_le_bytes()
                .to_vec(),
            Scalar::U64 => (ranged(0, u64::MAX as i128)? as u64).to_le_bytes().to_vec(),
            Scalar::I64 => (ranged(i64::MIN as i128, i64::MAX as i128)? as i64)
                .to_le_bytes()
                .to_vec(),
            Scalar::F16 => half::f16::from_f64(float()?).to_le_bytes().to_vec(),
            Scalar::F32 => (float()? as f32).to_le_bytes().to_vec(),
            Scalar::F64 => float()?.to_le_bytes().to_vec(),
        })
    }
}

fn parse_int(s: &str) -> Option<i128> {
    let (neg, body) = s.strip_prefix('-').map_or((false, s), |r| (true, r));
    let v = match body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        Some(hex) => i128::from_str_radix(&hex.replace('_', ""), 16).ok()?,
        None => body.replace('_', "").parse::<i128>().ok()?,
    };
    Some(if neg { -v } else { v })
}

/// One kernel parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamSpec {
    /// A scalar value, already encoded.
    Scalar {
        /// Its kind.
        kind: Scalar,
        /// Its bytes.
        bytes: Vec<u8>,
    },
    /// The device address of a buffer plus a byte offset.
    Ptr {
        /// Buffer name.
        buffer: String,
        /// Byte offset.
        offset: u64,
    },
    /// A tensor map (`CUtensorMap`, 128 bytes, for TMA) of a buffer, in the simulator's
    /// format (`runtime-sim/src/tensor_map.rs`): `{ tensormap = { buffer = "a", dtype =
    /// "f16", dims = [K, M], box = [64, 64], strides = [...], element_strides = [...],
    /// swizzle = "128B", fill = "nan", offset = 0 } }`.
    TensorMap {
        /// Buffer name.
        buffer: String,
        /// Byte offset of element 0 in the buffer.
        offset: u64,
        /// The map, its address 0 (the buffer's is added at launch).
        map: ptxc_sim::tensor_map::TensorMap,
    },
}

impl ParamSpec {
    /// Size of the parameter in bytes.
    pub fn size(&self) -> usize {
        match self {
            ParamSpec::Scalar { bytes, .. } => bytes.len(),
            ParamSpec::Ptr { .. } => 8,
            ParamSpec::TensorMap { .. } => ptxc_sim::tensor_map::SIZE,
        }
    }

    /// A short description for messages (`i32`, `ptr`).
    pub fn kind_name(&self) -> &'static str {
        match self {
            ParamSpec::Scalar { kind, .. } => kind.name(),
            ParamSpec::Ptr { .. } => "ptr",
            ParamSpec::TensorMap { .. } => "tensormap",
        }
    }
}

/// Where a buffer's initial contents come from.
#[derive(Clone, Debug, PartialEq)]
pub enum BufferInit {
    /// A `.npy` file (dtype and length come from it).
    File(PathBuf),
    /// Zero-filled.
    Zero {
        /// Element kind.
        dtype: Scalar,
        /// Element count.
        len: usize,
    },
    /// Deterministic pseudo-random values (`random = { seed = S, min = A, max = B }`):
    /// uniform in `[min, max)` for floats, `[min, max]` for integers.
    Random {
        /// Element kind.
        dtype: Scalar,
        /// Element count.
        len: usize,
        /// Generator seed.
        seed: u64,
        /// Smallest value.
        min: f64,
        /// Largest value.
        max: f64,
    },
}

impl BufferInit {
    /// The buffer's contents.
    pub fn materialize(&self) -> Result<crate::npy::Array, String> {
        use crate::npy::Array;
        Ok(match self {
            BufferInit::File(p) => crate::npy::read(p)?,
            BufferInit::Zero { dtype, len } => Array::new(*dtype, vec![0; dtype.size() * len]),
            BufferInit::Random {
                dtype,
                len,
                seed,
                min,
                max,
            } => Array::new(*dtype, random_bytes(*dtype, *len, *seed, *min, *max)),
        })
    }
}

/// SplitMix64.
fn next_random(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn random_bytes(dtype: Scalar, len: usize, seed: u64, min: f64, max: f64) -> Vec<u8> {
    let mut state = seed;
    let mut out = Vec::with_capacity(len * dtype.size());
    for _ in 0..len {
        let r = next_random(&mut state);
        let unit = (r >> 11) as f64 / (1u64 << 53) as f64;
        let float = min + (max - min) * unit;
        let int = min as i128 + (r as i128 % ((max as i128 - min as i128) + 1).max(1));
        match dtype {
            Scalar::F16 => out.extend_from_slice(&half::f16::from_f64(float).to_le_bytes()),
            Scalar::F32 => out.extend_from_slice(&(float as f32).to_le_bytes()),
            Scalar::F64 => out.extend_from_slice(&float.to_le_bytes()),
            _ => out.extend_from_slice(&(int as i64).to_le_bytes()[..dtype.size()]),
        }
    }
    out
}

/// A parsed launch specification.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchSpec {
    /// Kernel name.
    pub kernel: String,
    /// Grid dimensions.
    pub grid: [u32; 3],
    /// Block dimensions.
    pub block: [u32; 3],
    /// Dynamic shared memory bytes.
    pub dynamic_shared_bytes: u32,
    /// CTAs per cluster per dimension (`cluster = [2, 1, 1]`, Hopper), or `None`: the
    /// kernel's own `.reqnctapercluster` shape if it has one, else no cluster shape.
    pub cluster: Option<[u32; 3]>,
    /// Parameters in order.
    pub params: Vec<ParamSpec>,
    /// Buffers by name.
    pub buffers: BTreeMap<String, BufferInit>,
    /// Initial contents of module variables (`__device__` / `__constant__`) by name, like
    /// `cudaMemcpyToSymbol`.
    pub symbols: BTreeMap<String, BufferInit>,
    /// Limits of the driver-provided device functions: `malloc_heap_size` (bytes of the
    /// `malloc` heap, as `cudaLimitMallocHeapSize`) and `printf_fifo_size` (bytes of the
    /// printf buffer, as `cudaLimitPrintfFifoSize`); CUDA's defaults when absent.
    pub limits: ptxc_sim::driver::Limits,
}

/// Reads and checks a launch specification file.
pub fn load(path: &Path) -> Result<LaunchSpec, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let base = path.parent().unwrap_or(Path::new("."));
    parse(&text, base).map_err(|e| format!("{}: {e}", path.display()))
}

/// Parses a specification; relative file names are relative to `base`.
pub fn parse(text: &str, base: &Path) -> Result<LaunchSpec, String> {
    let root: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| format!("invalid TOML: {e}"))?;
    const KEYS: [&str; 10] = [
        "kernel",
        "grid",
        "block",
        "cluster",
        "dynamic_shared_bytes",
        "params",
        "buffers",
        "symbols",
        "malloc_heap_size",
        "printf_fifo_size",
    ];
    if let Some(k) = root.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(format!("unknown key `{k}` (expected one of {})", KEYS.join(", ")));
    }
    let kernel = match root.get("kernel") {
        Some(toml::Value::String(s)) => s.clone(),
        Some(v) => return Err(format!("`kernel` must be a string, found {}", v.type_str())),
        None => return Err("missing `kernel`".into()),
    };
    let grid = dims(&root, "grid")?;
    let block = dims(&root, "block")?;
    let cluster = match root.get("cluster") {
        None => None,
        Some(_) => Some(dims(&root, "cluster")?),
    };
    let dynamic_shared_bytes = match root.get("dynamic_shared_bytes") {
        None => 0,
        Some(toml::Value::Integer(i)) if (0..=u32::MAX as i64).contains(i) => *i as u32,
        Some(v) => {
            return Err(format!(
                "`dynamic_shared_bytes` must be a non-negative integer, found {v}"
            ));
        }
    };
    let defaults = ptxc_sim::driver::Limits::default();
    let limits = ptxc_sim::driver::Limits {
        malloc_heap_size: byte_count(&root, "malloc_heap_size")?.unwrap_or(defaults.malloc_heap_size),
        printf_fifo_size: byte_count(&root, "printf_fifo_size")?.unwrap_or(defaults.printf_fifo_size),
    };
    let symbols = sections(&root, base, "symbols")?;
    let buffers = sections(&root, base, "buffers")?;
    let params = params(&root, &buffers)?;
    Ok(LaunchSpec {
        kernel,
        grid,
        block,
        dynamic_shared_bytes,
        cluster,
        params,
        buffers,
        symbols,
        limits,
    })
}

/// An optional positive byte count (`malloc_heap_size = 1048576`).
fn byte_count(root: &toml::Table, key: &str) -> Result<Option<u64>, String> {
    match root.get(key) {
        None => Ok(None),
        Some(toml::Value::Integer(i)) if *i > 0 => Ok(Some(*i as u64)),
        Some(v) => Err(format!("`{key}` must be a positive number of bytes, found {v}")),
    }
}

fn dims(root: &toml::Table, key: &str) -> Result<[u32; 3], String> {
    let v = root.get(key).ok_or_else(|| format!("missing `{key}`"))?;
    let arr = v
        .as_array()
        .ok_or_else(|| format!("`{key}` must be an array like [4, 1, 1]"))?;
    if arr.is_empty() || arr.len() > 3 {
        return Err(format!("`{key}` must have 1 to 3 dimensions, found {}", arr.len()));
    }
    let mut out = [1u32; 3];
    for (i, x) in arr.iter().enumerate() {
        out[i] = match x.as_integer() {
            Some(n) if (1..=u32::MAX as i64).contains(&n) => n as u32,
            _ => {
                return Err(format!("`{key}[{i}]` must be a positive integer, found {x}"));
            }
        };
    }
    Ok(out)
}

/// `random = { seed = S, min = A, max = B }` of section `at`.
fn random_init(at: &str, r: &toml::Value, dtype: Scalar, len: usize) -> Result<BufferInit, String> {
    let t = r
        .as_table()
        .ok_or_else(|| format!("`{at}.random` must be a table {{ seed = S, min = A, max = B }}"))?;
    if let Some(k) = t.keys().find(|k| !["seed", "min", "max"].contains(&k.as_str())) {
        return Err(format!("`{at}.random`: unknown key `{k}` (expected seed, min, max)"));
    }
    let number = |k: &str| -> Result<f64, String> {
        match t.get(k) {
            Some(toml::Value::Integer(i)) => Ok(*i as f64),
            Some(toml::Value::Float(f)) if f.is_finite() => Ok(*f),
            _ => Err(format!("`{at}.random.{k}` must be a finite number")),
        }
    };
    let seed = match t.get("seed") {
        None => 0,
        Some(toml::Value::Integer(i)) if *i >= 0 => *i as u64,
        Some(_) => return Err(format!("`{at}.random.seed` must be a non-negative integer")),
    };
    let (min, max) = (number("min")?, number("max")?);
    if min > max {
        return Err(format!("`{at}.random`: min {min} is above max {max}"));
    }
    Ok(BufferInit::Random {
        dtype,
        len,
        seed,
        min,
        max,
    })
}

/// The `[buffers.NAME]` (or `[symbols.NAME]`) sections.
fn sections(root: &toml::Table, base: &Path, key: &str) -> Result<BTreeMap<String, BufferInit>, String> {
    let mut out = BTreeMap::new();
    let Some(v) = root.get(key) else {
        return Ok(out);
    };
    let table = v
        .as_table()
        .ok_or_else(|| format!("`{key}` must be a table of [{key}.NAME] sections"))?;
    for (name, b) in table {
        let at = format!("{key}.{name}");
        let t = b.as_table().ok_or_else(|| format!("`{at}` must be a table"))?;
        if let Some(k) = t
            .keys()
            .find(|k| !["file", "dtype", "len", "random"].contains(&k.as_str()))
        {
            return Err(format!(
                "`{at}`: unknown key `{k}` (expected file, or dtype and len [and random])"
            ));
        }
        let init = match (t.get("file"), t.get("dtype"), t.get("len")) {
            (Some(f), None, None) => {
                let f = f.as_str().ok_or_else(|| format!("`{at}.file` must be a string"))?;
                BufferInit::File(base.join(f))
            }
            (None, Some(d), Some(l)) => {
                let d = d.as_str().and_then(Scalar::from_name).ok_or_else(|| {
                    format!(
                        "`{at}.dtype` must be one of {}",
                        SCALARS.iter().map(|(_, n)| *n).collect::<Vec<_>>().join(" ")
                    )
                })?;
                let len = l
                    .as_integer()
                    .filter(|&n| n >= 0)
                    .ok_or_else(|| format!("`{at}.len` must be a non-negative integer"))?;
                match t.get("random") {
                    None => BufferInit::Zero {
                        dtype: d,
                        len: len as usize,
                    },
                    Some(r) => random_init(&at, r, d, len as usize)?,
                }
            }
            _ => {
                return Err(format!("`{at}` needs either `file` or both `dtype` and `len`"));
            }
        };
        out.insert(name.clone(), init);
    }
    Ok(out)
}

fn params(root: &toml::Table, buffers: &BTreeMap<String, BufferInit>) -> Result<Vec<ParamSpec>, String> {
    let Some(v) = root.get("params") else {
        return Ok(Vec::new());
    };
    let arr = v
        .as_array()
        .ok_or("`params` must be an array of inline tables like { i32 = 5 }")?;
    arr.iter()
        .enumerate()
        .map(|(i, p)| {
            let at = format!("params[{i}]");
            let t = p
                .as_table()
                .ok_or_else(|| format!("`{at}` must be an inline table like {{ f32 = 2.0 }}"))?;
            if let Some(m) = t.get("tensormap") {
                if let Some(k) = t.keys().find(|k| *k != "tensormap") {
                    return Err(format!("`{at}`: unknown key `{k}` beside `tensormap`"));
                }
                return tensor_map(&format!("{at}.tensormap"), m, buffers);
            }
            if let Some(b) = t.get("ptr") {
                let buffer = b
                    .as_str()
                    .ok_or_else(|| format!("`{at}.ptr` must be a buffer name"))?
                    .to_string();
                if !buffers.contains_key(&buffer) {
                    return Err(format!(
                        "`{at}`: no buffer named `{buffer}` (add a [buffers.{buffer}] section)"
                    ));
                }
                let offset = match t.get("offset") {
                    None => 0,
                    Some(o) => o
                        .as_integer()
                        .filter(|&n| n >= 0)
                        .ok_or_else(|| format!("`{at}.offset` must be a non-negative integer"))?
                        as u64,
                };
                if let Some(k) = t.keys().find(|k| *k != "ptr" && *k != "offset") {
                    return Err(format!("`{at}`: unknown key `{k}` beside `ptr`"));
                }
                return Ok(ParamSpec::Ptr { buffer, offset });
            }
            let [(k, val)] = t.iter().collect::<Vec<_>>()[..] else {
                return Err(format!("`{at}` must have exactly one key: a scalar kind or `ptr`"));
            };
            let kind = Scalar::from_name(k)
                .ok_or_else(|| format!("`{at}`: unknown kind `{k}` (use u8..u64, i8..i64, f16, f32, f64 or ptr)"))?;
            let bytes = kind.encode(val).map_err(|e| format!("`{at}`: {e}"))?;
            Ok(ParamSpec::Scalar { kind, bytes })
        })
        .collect()
}

/// A list of non-negative integers (at most `max` each).
fn int_list(at: &str, v: Option<&toml::Value>, max: u64) -> Result<Option<Vec<u64>>, String> {
    let Some(v) = v else { return Ok(None) };
    let a = v
        .as_array()
        .ok_or_else(|| format!("`{at}` must be an array of integers"))?;
    a.iter()
        .map(|x| {
            x.as_integer()
                .filter(|&n| n >= 0 && n as u64 <= max)
                .map(|n| n as u64)
                .ok_or_else(|| format!("`{at}` must hold integers in 0..={max}"))
        })
        .collect::<Result<Vec<u64>, String>>()
        .map(Some)
}

/// A `tensormap` parameter: the buffer, its type and shape, the box, and the optional
/// strides (bytes, dimensions 1..; packed by default), element strides (1), swizzle
/// (`none`) and out-of-bounds fill (`zero` or `nan`).
fn tensor_map(at: &str, v: &toml::Value, buffers: &BTreeMap<String, BufferInit>) -> Result<ParamSpec, String> {
    use ptxc_sim::tensor_map::{TensorMap, TmaSwizzle, TmaType};
    let t = v.as_table().ok_or_else(|| {
        format!("`{at}` must be an inline table {{ buffer = ..., dtype = ..., dims = [...], box = [...] }}")
    })?;
    const KEYS: &[&str] = &[
        "buffer",
        "offset",
        "dtype",
        "dims",
        "strides",
        "box",
        "element_strides",
        "swizzle",
        "fill",
    ];
    if let Some(k) = t.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(format!("`{at}`: unknown key `{k}` (known: {})", KEYS.join(", ")));
    }
    let text = |key: &str| {
        t.get(key)
            .map(|v| v.as_str().ok_or_else(|| format!("`{at}.{key}` must be a string")))
            .transpose()
    };
    let buffer = text("buffer")?
        .ok_or_else(|| format!("`{at}` needs `buffer`"))?
        .to_string();
    if !buffers.contains_key(&buffer) {
        return Err(format!(
            "`{at}`: no buffer named `{buffer}` (add a [buffers.{buffer}] section)"
        ));
    }
    let dtype_name = text("dtype")?.ok_or_else(|| format!("`{at}` needs `dtype`"))?;
    let dtype = TmaType::named(dtype_name).ok_or_else(|| {
        format!("`{at}.dtype`: `{dtype_name}` is not one of u8, u16, u32, i32, u64, i64, f16, bf16, f32, tf32, f64")
    })?;
    let dims = int_list(&format!("{at}.dims"), t.get("dims"), u64::from(u32::MAX))?
        .ok_or_else(|| format!("`{at}` needs `dims`"))?;
    let boxes = int_list(&format!("{at}.box"), t.get("box"), 256)?.ok_or_else(|| format!("`{at}` needs `box`"))?;
    let mut packed = Vec::new();
    let mut bytes = dtype.bytes() as u64;
    for &d in dims.iter().take(dims.len().saturating_sub(1)) {
        bytes = bytes.saturating_mul(d);
        packed.push(bytes);
    }
    let strides = int_list(&format!("{at}.strides"), t.get("strides"), u64::MAX >> 1)?.unwrap_or(packed);
    let element_strides =
        int_list(&format!("{at}.element_strides"), t.get("element_strides"), 8)?.unwrap_or(vec![1; dims.len()]);
    let swizzle = match text("swizzle")? {
        None => TmaSwizzle::None,
        Some(s) => {
            TmaSwizzle::named(s).ok_or_else(|| format!("`{at}.swizzle`: `{s}` is not none, 32B, 64B or 128B"))?
        }
    };
    let nan_fill = match text("fill")? {
        None | Some("zero") => false,
        Some("nan") => true,
        Some(f) => return Err(format!("`{at}.fill`: `{f}` is not zero or nan")),
    };
    let offset = match t.get("offset") {
        None => 0,
        Some(o) => o
            .as_integer()
            .filter(|&n| n >= 0)
            .ok_or_else(|| format!("`{at}.offset` must be a non-negative integer"))? as u64,
    };
    let map = TensorMap {
        address: 0,
        dtype,
        dims: dims.iter().map(|&d| d as u32).collect(),
        strides,
        boxes: boxes.iter().map(|&b| b as u32).collect(),
        element_strides: element_strides.iter().map(|&e| e as u32).collect(),
        swizzle,
        nan_fill,
    };
    map.check().map_err(|e| format!("`{at}`: {e}"))?;
    Ok(ParamSpec::TensorMap { buffer, offset, map })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_buffers_are_deterministic_and_in_range() {
        let text = "kernel = \"k\"\ngrid = [1]\nblock = [1]\nparams = [ { ptr = \"a\" }, { ptr = \"b\" } ]\n\
                    [buffers.a]\ndtype = \"i32\"\nlen = 100\nrandom = { seed = 3, min = -5, max = 5 }\n\
                    [buffers.b]\ndtype = \"f32\"\nlen = 100\nrandom = { min = 0.5, max = 1.0 }\n";
        let s = parse(text, Path::new("/")).unwrap();
        let a = s.buffers["a"].materialize().unwrap();
        let again = s.buffers["a"].materialize().unwrap();
        assert_eq!(a.bytes, again.bytes);
        let ints: Vec<i32> = a
            .bytes
            .chunks(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert!(ints.iter().all(|v| (-5..=5).contains(v)));
        assert!(ints.iter().any(|&v| v < 0) && ints.iter().any(|&v| v > 0));
        let b = s.buffers["b"].materialize().unwrap();
        let floats: Vec<f32> = b
            .bytes
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert!(floats.iter().all(|v| (0.5..=1.0).contains(v)));
        let bad = text.replace("min = -5", "min = 9");
        assert!(parse(&bad, Path::new("/")).unwrap_err().contains("above max"));
    }

    const SAXPY: &str = r#"
kernel = "saxpy"
grid = [4, 1, 1]
block = [256, 1, 1]
params = [ { i32 = 1000 }, { f32 = 2.0 }, { ptr = "x" }, { ptr = "y", offset = 4 } ]
[buffers.x]
file = "x.npy"
[buffers.y]
dtype = "f32"
len = 1000
"#;

    #[test]
    fn parses_the_contract_example() {
        let s = parse(SAXPY, Path::new("/d")).unwrap();
        assert_eq!(s.kernel, "saxpy");
        assert_eq!(s.grid, [4, 1, 1]);
        assert_eq!(
            s.params[0],
            ParamSpec::Scalar {
                kind: Scalar::I32,
                bytes: 1000i32.to_le_bytes().to_vec()
            }
        );
        assert_eq!(
            s.params[3],
            ParamSpec::Ptr {
                buffer: "y".into(),
                offset: 4
            }
        );
        assert_eq!(s.buffers["x"], BufferInit::File(PathBuf::from("/d/x.npy")));
        assert_eq!(
            s.buffers["y"],
            BufferInit::Zero {
                dtype: Scalar::F32,
                len: 1000
            }
        );
    }

    #[test]
    fn errors_name_the_key() {
        let cases = [
            ("grid = [1]\nblock = [1]", "missing `kernel`"),
            ("kernel = \"k\"\nblock = [1]", "missing `grid`"),
            (
                "kernel = \"k\"\ngrid = [0]\nblock = [1]",
                "`grid[0]` must be a positive integer",
            ),
            (
                "kernel = \"k\"\ngrid = [1]\nblock = [1]\nparams = [ { ptr = \"z\" } ]",
                "`params[0]`: no buffer named `z`",
            ),
            (
                "kernel = \"k\"\ngrid = [1]\nblock = [1]\nparams = [ { u8 = 300 } ]",
                "`params[0]`: 300 is out of range for u8",
            ),
            (
                "kernel = \"k\"\ngrid = [1]\nblock = [1]\nparams = [ { q8 = 1 } ]",
                "unknown kind `q8`",
            ),
            (
                "kernel = \"k\"\ngrid = [1]\nblock = [1]\n[buffers.a]\ndtype = \"f32\"",
                "`buffers.a` needs either",
            ),
            (
                "kernel = \"k\"\ngrid = [1]\nblock = [1]\ngird = 3",
                "unknown key `gird`",
            ),
            ("kernel = ", "invalid TOML"),
        ];
        for (text, want) in cases {
            let e = parse(text, Path::new(".")).unwrap_err();
            assert!(e.contains(want), "{text:?}: got `{e}`, want `{want}`");
        }
    }
}
