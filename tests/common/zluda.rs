//! The ZLUDA conformance kernels (`tests/data/conformance`): 158 PTX kernels with inputs
//! and the outputs NVIDIA hardware produced. Each launches as grid 1x1x1, block (block)x1x1,
//! 1024 bytes of dynamic shared memory, params (input, output) or (output).

use ptxc::launch::{BufferInit, LaunchSpec, ParamSpec, Scalar};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One conformance kernel.
#[derive(Clone, Debug)]
pub struct Case {
    /// Test (and kernel) name.
    pub name: String,
    /// Threads in the block.
    pub block: u32,
    /// Input element type and bytes, if any.
    pub input: Option<(Scalar, Vec<u8>)>,
    /// Output element type.
    pub output_type: Scalar,
    /// Expected output bytes.
    pub output: Vec<u8>,
}

/// The conformance folder.
pub fn dir() -> PathBuf {
    ptxc_testkit::conformance_dir()
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

fn scalar(s: &str) -> Scalar {
    Scalar::from_name(s).unwrap_or_else(|| panic!("unknown type {s}"))
}

/// All cases of the manifest.
pub fn cases() -> Vec<Case> {
    let path = dir().join("manifest.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let m: serde_json::Value = serde_json::from_str(&text).unwrap();
    m["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| Case {
            name: t["name"].as_str().unwrap().to_string(),
            block: t["block"].as_u64().unwrap() as u32,
            input: t["input_type"]
                .as_str()
                .map(|ty| (scalar(ty), hex(t["input_hex"].as_str().unwrap()))),
            output_type: scalar(t["output_type"].as_str().unwrap()),
            output: hex(t["output_hex"].as_str().unwrap()),
        })
        .collect()
}

impl Case {
    /// The PTX source.
    pub fn ptx_path(&self) -> PathBuf {
        dir().join(format!("{}.ptx", self.name))
    }

    /// True if the kernel uses approximate functions (compared within error bounds).
    pub fn is_approx(&self) -> bool {
        std::fs::read_to_string(self.ptx_path()).is_ok_and(|s| s.contains(".approx"))
    }

    /// True if the kernel declares an `input` parameter.
    fn declares_input(&self) -> bool {
        std::fs::read_to_string(self.ptx_path()).is_ok_and(|s| s.contains(".param .u64 input"))
    }

    /// The launch spec; the input is written to `dir/input.npy`.
    pub fn spec(&self, dir: &std::path::Path) -> LaunchSpec {
        let mut buffers = BTreeMap::new();
        let mut params = Vec::new();
        // A kernel declared with (input, output) whose input the manifest leaves out
        // (bar_red_and_pred) reads nothing from it: it gets a zeroed word.
        let dummy = (self.input.is_none() && self.declares_input()).then(|| (Scalar::U32, vec![0u8; 4]));
        if let Some((ty, bytes)) = self.input.as_ref().or(dummy.as_ref()) {
            let p = dir.join(format!("{}_input.npy", self.name));
            ptxc::npy::write(&p, &ptxc::npy::Array::new(*ty, bytes.clone())).unwrap();
            buffers.insert("input".to_string(), BufferInit::File(p));
            params.push(ParamSpec::Ptr {
                buffer: "input".into(),
                offset: 0,
            });
        }
        let len = self.output.len() / self.output_type.size();
        buffers.insert(
            "output".to_string(),
            BufferInit::Zero {
                dtype: self.output_type,
                len,
            },
        );
        params.push(ParamSpec::Ptr {
            buffer: "output".into(),
            offset: 0,
        });
        LaunchSpec {
            kernel: self.name.clone(),
            grid: [1, 1, 1],
            block: [self.block, 1, 1],
            dynamic_shared_bytes: 1024,
            cluster: None,
            params,
            buffers,
            symbols: BTreeMap::new(),
            limits: Default::default(),
        }
    }

    /// Compares an output with the recorded one: exact, or within 2 ulp (f32) / 2^-20 (abs)
    /// for approximate functions.
    pub fn check(&self, got: &[u8]) -> Result<(), String> {
        if got == self.output.as_slice() {
            return Ok(());
        }
        if self.is_approx() && self.output_type == Scalar::F32 && got.len() == self.output.len() {
            let close = got.chunks(4).zip(self.output.chunks(4)).all(|(g, w)| {
                let (g, w) = (
                    f32::from_le_bytes(g.try_into().unwrap()),
                    f32::from_le_bytes(w.try_into().unwrap()),
                );
                let ulps = (g.to_bits() as i64 - w.to_bits() as i64).abs();
                g == w || ulps <= 2 || (g - w).abs() <= 2f32.powf(-20.0) || (g.is_nan() && w.is_nan())
            });
            if close {
                return Ok(());
            }
        }
        Err(format!("got {} want {}", to_hex(got), to_hex(&self.output)))
    }
}

fn to_hex(b: &[u8]) -> String {
    let s: String = b.iter().take(32).map(|x| format!("{x:02x}")).collect();
    if b.len() > 32 { format!("{s}...") } else { s }
}
