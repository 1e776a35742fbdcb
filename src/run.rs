//! `ptxc run`: sets up the buffers and parameters of a launch spec on a simulated device,
//! launches the kernel and reads every buffer back.

use crate::launch::{BufferInit, LaunchSpec, ParamSpec};
use crate::npy::{self, Array};
use ptxc_sim::{Config, Device, Engine, LaunchDims, Stats, Trace};
use std::collections::BTreeMap;

/// What a run produced.
#[derive(Clone, Debug)]
pub struct RunOutput {
    /// Every buffer after the kernel finished.
    pub buffers: BTreeMap<String, Array>,
    /// Launch statistics.
    pub stats: Stats,
    /// The timeline, if requested.
    pub trace: Option<Trace>,
}

/// How to run.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Device configuration.
    pub config: Config,
    /// Simulator engine.
    pub engine: Engine,
    /// Collect a timeline (timed engine).
    pub trace: bool,
}

/// Runs the kernel of `spec` from the cubin `module`.
pub fn run(module: &[u8], spec: &LaunchSpec, opts: &RunOptions) -> Result<RunOutput, String> {
    let config = opts.config.clone();
    let mut dev = Device::new(config);
    let m = dev.load(module).map_err(|e| e.to_string())?;
    let k = m.kernel(&spec.kernel).map_err(|_| {
        let names: Vec<&str> = m.kernels.iter().map(|k| k.name.as_str()).collect();
        format!(
            "no kernel named `{}` in the module (it has: {})",
            spec.kernel,
            names.join(", ")
        )
    })?;
    if k.params.len() != spec.params.len() {
        return Err(format!(
            "kernel `{}` takes {} parameter(s), the launch spec gives {}",
            spec.kernel,
            k.params.len(),
            spec.params.len()
        ));
    }
    let mut arrays = BTreeMap::new();
    let mut addrs = BTreeMap::new();
    for (name, init) in &spec.buffers {
        let a = match init {
            BufferInit::File(p) => npy::read(p)?,
            BufferInit::Zero { dtype, len } => Array {
                dtype: *dtype,
                bytes: vec![0; dtype.size() * len],
            },
        };
        let addr = dev.alloc(a.bytes.len());
        dev.write(addr, &a.bytes).map_err(|e| e.to_string())?;
        addrs.insert(name.clone(), addr);
        arrays.insert(name.clone(), a);
    }
    let mut block = vec![0u8; k.param_size as usize];
    for (i, (p, &(offset, size))) in spec.params.iter().zip(&k.params).enumerate() {
        if p.size() != size as usize {
            return Err(format!(
                "params[{i}]: kernel `{}` expects a {size}-byte parameter here, the spec gives `{}` ({} bytes)",
                spec.kernel,
                p.kind_name(),
                p.size()
            ));
        }
        let bytes = match p {
            ParamSpec::Scalar { bytes, .. } => bytes.clone(),
            ParamSpec::Ptr { buffer, offset } => (addrs[buffer] + offset).to_le_bytes().to_vec(),
        };
        block[offset as usize..offset as usize + bytes.len()].copy_from_slice(&bytes);
    }
    let dims = LaunchDims {
        grid: spec.grid,
        block: spec.block,
        dynamic_shared: spec.dynamic_shared_bytes,
    };
    let mut trace = opts.trace.then(Trace::default);
    let stats = dev
        .launch_with(&m, &spec.kernel, &dims, &block, opts.engine, trace.as_mut())
        .map_err(|e| e.to_string())?;
    for (name, a) in arrays.iter_mut() {
        a.bytes = dev.read(addrs[name], a.bytes.len()).map_err(|e| e.to_string())?;
    }
    Ok(RunOutput {
        buffers: arrays,
        stats,
        trace,
    })
}

/// A few leading values of an array, for the console.
pub fn preview(a: &Array, n: usize) -> String {
    use crate::launch::Scalar;
    let size = a.dtype.size();
    let vals: Vec<String> = a
        .bytes
        .chunks(size)
        .take(n)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..size].copy_from_slice(c);
            let u = u64::from_le_bytes(b);
            match a.dtype {
                Scalar::U8 | Scalar::U16 | Scalar::U32 | Scalar::U64 => u.to_string(),
                Scalar::I8 => (u as i8).to_string(),
                Scalar::I16 => (u as i16).to_string(),
                Scalar::I32 => (u as i32).to_string(),
                Scalar::I64 => (u as i64).to_string(),
                Scalar::F16 => half::f16::from_bits(u as u16).to_string(),
                Scalar::F32 => f32::from_bits(u as u32).to_string(),
                Scalar::F64 => f64::from_bits(u).to_string(),
            }
        })
        .collect();
    let more = if a.len() > n { ", ..." } else { "" };
    format!("[{}{more}]", vals.join(", "))
}
