//! `ptxc run`: sets up the buffers and parameters of a launch spec on a simulated device,
//! launches the kernel and reads every buffer back.

use crate::launch::{LaunchSpec, ParamSpec};
use crate::npy::Array;
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
    /// What the kernel printed (printf, failed assertions), also when it went to a sink.
    pub printf: String,
    /// What the driver reported: failed `malloc`s, overwritten printf records.
    pub driver_reports: Vec<String>,
}

/// Where kernel printf output goes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum PrintfSink {
    /// Only into [`RunOutput::printf`] (and into the error message if the launch fails).
    #[default]
    Collect,
    /// Standard output, as CUDA prints it.
    Stdout,
    /// A file (created or truncated).
    File(std::path::PathBuf),
}

impl PrintfSink {
    /// Writes `text` to the sink.
    fn write(&self, text: &str) -> Result<(), String> {
        match self {
            PrintfSink::Collect => Ok(()),
            PrintfSink::Stdout => {
                use std::io::Write;
                let mut out = std::io::stdout().lock();
                out.write_all(text.as_bytes())
                    .and_then(|()| out.flush())
                    .map_err(|e| e.to_string())
            }
            PrintfSink::File(p) => std::fs::write(p, text).map_err(|e| format!("{}: {e}", p.display())),
        }
    }
}

/// The driver's output after a launch: written to the sink; the reports.
fn flush_driver(dev: &mut Device, sink: &PrintfSink) -> Result<(String, Vec<String>), String> {
    let out = dev.flush_output();
    sink.write(&out.printf)?;
    let mut reports = out.reports;
    if out.overwritten > 0 {
        reports.push(format!(
            "{} printf record(s) overwritten: the printf buffer is full (printf_fifo_size in the launch spec sets its size)",
            out.overwritten
        ));
    }
    Ok((out.printf, reports))
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
    /// Where kernel printf output goes.
    pub printf: PrintfSink,
    /// Whether `config` was named by the user: if not, a cubin for another architecture runs
    /// on that architecture's default device (keeping `config`'s limits).
    pub device_named: bool,
}

/// The device `module` runs on: `opts.config`, or when no device was named and the cubin is
/// for another architecture, that architecture's default model with `opts.config`'s limits.
pub fn device_for(module: &[u8], opts: &RunOptions) -> Result<Config, String> {
    let config = opts.config.clone();
    if opts.device_named {
        return Ok(config);
    }
    let arch = ptxc_sim::module::cubin_arch(module).map_err(|e| e.to_string())?;
    if arch == config.arch {
        return Ok(config);
    }
    let model = Config::for_arch(arch).ok_or_else(|| format!("no device model runs {}", arch.name()))?;
    Ok(Config {
        instruction_limit: config.instruction_limit,
        strict_memory: config.strict_memory,
        ..model
    })
}

/// Runs the kernel of `spec` from the cubin `module`.
pub fn run(module: &[u8], spec: &LaunchSpec, opts: &RunOptions) -> Result<RunOutput, String> {
    let mut dev = Device::new(device_for(module, opts)?);
    dev.set_limits(spec.limits).map_err(|e| e.to_string())?;
    let mut m = dev.load(module).map_err(|e| e.to_string())?;
    for (name, init) in &spec.symbols {
        let bytes = init.materialize()?.bytes;
        dev.write_symbol(&mut m, name, &bytes)
            .map_err(|e| format!("symbols.{name}: {e}"))?;
    }
    let k = m.kernel(&spec.kernel).map_err(|_| {
        let names: Vec<&str> = m.kernels.iter().map(|k| k.name.as_str()).collect();
        format!(
            "no kernel named `{}` in the module (it has: {})",
            spec.kernel,
            names.join(", ")
        )
    })?;
    let (mut arrays, addrs, block) = prepare(&mut dev, spec, &k.params, k.param_size)?;
    let dims = LaunchDims {
        grid: spec.grid,
        block: spec.block,
        dynamic_shared: spec.dynamic_shared_bytes,
        cluster: spec.cluster,
    };
    let mut trace = opts.trace.then(Trace::default);
    let launched = dev.launch_with(&m, &spec.kernel, &dims, &block, opts.engine, trace.as_mut());
    let (printf, driver_reports) = flush_driver(&mut dev, &opts.printf)?;
    let stats = launched.map_err(|e| {
        let mut msg: String = driver_reports.iter().map(|r| format!("{r}\n")).collect();
        msg += &e.to_string();
        if opts.printf == PrintfSink::Collect && !printf.is_empty() {
            msg = format!("{msg}\nkernel output before the fault:\n{printf}");
        }
        msg
    })?;
    for (name, a) in arrays.iter_mut() {
        a.bytes = dev.read(addrs[name], a.bytes.len()).map_err(|e| e.to_string())?;
    }
    Ok(RunOutput {
        buffers: arrays,
        stats,
        trace,
        printf,
        driver_reports,
    })
}

/// Global memory of the MIR interpreter: the simulated device's memory, accessed as a
/// kernel on the simulator accesses it (stray accesses past an allocation's end inside its
/// granule are allowed and counted, as on hardware).
pub struct DeviceMemory<'a>(pub &'a mut Device);

impl ptxc_mir::interp::GlobalMemory for DeviceMemory<'_> {
    fn read(&mut self, addr: u64, out: &mut [u8]) -> Result<ptxc_mir::interp::Placement, String> {
        placement(self.0.kernel_read(addr, out), addr, out.len())
    }

    fn write(&mut self, addr: u64, data: &[u8]) -> Result<ptxc_mir::interp::Placement, String> {
        placement(self.0.kernel_write(addr, data), addr, data.len())
    }
}

/// A kernel-side access of the device as the interpreter sees it.
fn placement(a: ptxc_sim::memory::Access, addr: u64, len: usize) -> Result<ptxc_mir::interp::Placement, String> {
    use ptxc_mir::interp::Placement;
    use ptxc_sim::memory::Access;
    match a {
        Access::Ok => Ok(Placement::Inside),
        Access::Stray => Ok(Placement::Stray),
        Access::Fault => Err(format!(
            "access of {len} bytes at {addr:#x} is outside every allocation"
        )),
    }
}

/// Runs the kernel of `spec` from the MIR `module` on the MIR interpreter (`--engine mir`):
/// the same buffers and outputs as [`run`]; `cycles` is 0 and `warp_instructions` counts
/// MIR instructions issued per warp.
pub fn run_mir(module: &ptxc_mir::ir::Module, spec: &LaunchSpec, config: Config) -> Result<RunOutput, String> {
    let func = module.functions.iter().find(|f| f.name == spec.kernel).ok_or_else(|| {
        let names: Vec<&str> = module.functions.iter().map(|f| f.name.as_str()).collect();
        format!(
            "no kernel named `{}` in the module (it has: {})",
            spec.kernel,
            names.join(", ")
        )
    })?;
    let reserved_shared = config.arch.reserved_shared();
    let mut dev = Device::new(config);
    let layout: Vec<(u32, u32)> = func.params.iter().map(|p| (p.offset, p.size)).collect();
    let size = func.params.iter().map(|p| p.offset + p.size).max().unwrap_or(0);
    let (mut arrays, addrs, block) = prepare(&mut dev, spec, &layout, size)?;
    let cfg = ptxc_mir::interp::LaunchConfig {
        grid: spec.grid,
        block: spec.block,
        dynamic_shared: spec.dynamic_shared_bytes,
        reserved_shared,
        params: block,
        cluster: spec.cluster.or(func.cluster_dims),
    };
    let s = ptxc_mir::interp::launch(func, &cfg, &mut DeviceMemory(&mut dev)).map_err(|e| e.to_string())?;
    for (name, a) in arrays.iter_mut() {
        a.bytes = dev.read(addrs[name], a.bytes.len()).map_err(|e| e.to_string())?;
    }
    let stats = Stats {
        engine: "mir".into(),
        cycles: 0,
        warp_instructions: s.warp_instructions,
        thread_instructions: s.thread_instructions,
        hazards: 0,
        hazard_reports: Vec::new(),
        ctas: s.ctas,
        warps: s.warps,
        stray_accesses: s.stray_accesses,
        stray_reports: s.stray_reports,
        ..Stats::default()
    };
    Ok(RunOutput {
        buffers: arrays,
        stats,
        trace: None,
        printf: String::new(),
        driver_reports: Vec::new(),
    })
}

type Prepared = (BTreeMap<String, Array>, BTreeMap<String, u64>, Vec<u8>);

/// Allocates and fills the buffers of `spec` on `dev` and builds the parameter block for a
/// kernel whose parameters sit at `params` (offset, size).
fn prepare(dev: &mut Device, spec: &LaunchSpec, params: &[(u32, u32)], param_size: u32) -> Result<Prepared, String> {
    if params.len() != spec.params.len() {
        return Err(format!(
            "kernel `{}` takes {} parameter(s), the launch spec gives {}",
            spec.kernel,
            params.len(),
            spec.params.len()
        ));
    }
    let mut arrays = BTreeMap::new();
    let mut addrs = BTreeMap::new();
    for (name, init) in &spec.buffers {
        let a = init.materialize()?;
        let addr = dev.alloc(a.bytes.len());
        dev.write(addr, &a.bytes).map_err(|e| e.to_string())?;
        addrs.insert(name.clone(), addr);
        arrays.insert(name.clone(), a);
    }
    let mut block = vec![0u8; param_size as usize];
    for (i, (p, &(offset, size))) in spec.params.iter().zip(params).enumerate() {
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
            ParamSpec::TensorMap { buffer, offset, map } => {
                let mut map = map.clone();
                map.address = addrs[buffer] + offset;
                map.check().map_err(|e| format!("params[{i}]: {e}"))?;
                map.encode().to_vec()
            }
        };
        block[offset as usize..offset as usize + bytes.len()].copy_from_slice(&bytes);
    }
    Ok((arrays, addrs, block))
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
