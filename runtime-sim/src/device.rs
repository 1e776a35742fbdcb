//! The simulator's public API: a device with memory, modules and launches.

use crate::config::Config;
use crate::error::SimError;
use crate::exec::{self, ConstBanks, LaunchDims};
use crate::memory::GlobalMemory;
use crate::module::Module;
use crate::stats::Stats;
use crate::timed::trace::Trace;

/// Which engine runs a launch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Engine {
    /// Cycle by cycle: sub-partitions, pipes, memory latencies, occupancy (the default).
    #[default]
    Timed,
    /// Warp by warp, with each warp's own issue timeline for the hazard check.
    Functional,
}

/// A kernel argument.
#[derive(Clone, Debug, PartialEq)]
pub enum KernelArg {
    /// Raw bytes (scalars, or a device address as 8 bytes).
    Bytes(Vec<u8>),
}

/// A simulated GPU.
pub struct Device {
    /// Its configuration.
    pub config: Config,
    memory: GlobalMemory,
}

impl Device {
    /// A device with configuration `config`.
    pub fn new(config: Config) -> Device {
        Device {
            config,
            memory: GlobalMemory::new(),
        }
    }

    /// Allocates `bytes` of zeroed global memory; returns the device address.
    pub fn alloc(&mut self, bytes: usize) -> u64 {
        self.memory.alloc(bytes)
    }

    /// Copies host bytes to the device.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), SimError> {
        self.memory.copy_in(addr, data)
    }

    /// Copies device bytes to the host.
    pub fn read(&self, addr: u64, len: usize) -> Result<Vec<u8>, SimError> {
        self.memory.copy_out(addr, len)
    }

    /// Loads a cubin: decodes its kernels and places its module variables in global memory.
    /// A cubin for another architecture than the device's is refused, naming both.
    pub fn load(&mut self, cubin: &[u8]) -> Result<Module, SimError> {
        let arch = crate::module::cubin_arch(cubin)?;
        if arch != self.config.arch {
            return Err(SimError::WrongDevice {
                cubin: arch.name().into(),
                device: self.config.name.into(),
                device_arch: self.config.arch.name().into(),
                devices: Config::device_names(Some(arch)),
            });
        }
        Module::load(cubin, &mut self.memory)
    }

    /// Sets the initial bytes of module variable `name` (`cudaMemcpyToSymbol`): its global
    /// memory, and constant bank 3 for `__constant__` variables.
    pub fn write_symbol(&mut self, module: &mut Module, name: &str, bytes: &[u8]) -> Result<(), SimError> {
        let g = module
            .global(name)
            .ok_or_else(|| SimError::Memory(format!("the module has no variable named `{name}`")))?
            .clone();
        if bytes.len() as u64 > g.size {
            return Err(SimError::Memory(format!(
                "{} bytes do not fit in `{name}` ({} bytes)",
                bytes.len(),
                g.size
            )));
        }
        self.memory.copy_in(g.addr, bytes)?;
        if let Some(off) = g.const_offset {
            let o = off as usize;
            let bank = &mut module.const_bank3;
            if bank.len() < o + bytes.len() {
                bank.resize(o + bytes.len(), 0);
            }
            bank[o..o + bytes.len()].copy_from_slice(bytes);
        }
        Ok(())
    }

    /// Launches `kernel` of `module` on the timed engine with the parameter block `params`
    /// (laid out as the kernel's parameters: natural alignment, in order).
    pub fn launch(
        &mut self,
        module: &Module,
        kernel: &str,
        dims: &LaunchDims,
        params: &[u8],
    ) -> Result<Stats, SimError> {
        self.launch_with(module, kernel, dims, params, Engine::Timed, None)
    }

    /// Launches with a chosen engine; the timed engine records a timeline into `trace`.
    pub fn launch_with(
        &mut self,
        module: &Module,
        kernel: &str,
        dims: &LaunchDims,
        params: &[u8],
        engine: Engine,
        trace: Option<&mut Trace>,
    ) -> Result<Stats, SimError> {
        let k = module.kernel(kernel)?;
        if params.len() != k.param_size as usize {
            return Err(SimError::BadLaunch(format!(
                "kernel `{kernel}` takes {} bytes of parameters, {} were given",
                k.param_size,
                params.len()
            )));
        }
        let mut banks = vec![exec::bank0(k, dims, params, self.config.sms)];
        banks.resize(5, Vec::new());
        banks[2] = k.const_bank2.clone();
        banks[3] = module.const_bank3.clone();
        banks[4] = module.const_bank4.clone();
        let consts = ConstBanks { banks };
        self.memory.strict = self.config.strict_memory;
        let mut stats = Stats::default();
        let result = match engine {
            Engine::Functional => exec::run(k, &consts, &mut self.memory, dims, &self.config, &mut stats),
            Engine::Timed => crate::timed::run(k, &consts, &mut self.memory, dims, &self.config, trace, &mut stats),
        };
        match result {
            Ok(()) => Ok(stats),
            // A fault after a hazard is usually its consequence: say so.
            Err(e) if stats.hazards > 0 => Err(SimError::AfterHazards {
                fault: Box::new(e),
                hazards: stats.hazards,
                first: stats
                    .hazard_reports
                    .first()
                    .map(|h| format!("/*{:04x}*/ {}", h.pc, h.what))
                    .unwrap_or_default(),
            }),
            Err(e) => Err(e),
        }
    }
}
