//! The simulator's public API: a device with memory, modules and launches.

use crate::config::Config;
use crate::driver::{DriverOutput, Limits};
use crate::error::SimError;
use crate::exec::{self, ConstBanks, LaunchDims};
use crate::memory::{Access, GlobalMemory, GlobalView};
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

    /// A device whose global memory allocations start at `base` (see [`GlobalMemory::at`]).
    pub fn with_address_base(config: Config, base: u64) -> Device {
        Device {
            config,
            memory: GlobalMemory::at(base),
        }
    }

    /// Allocates `bytes` of zeroed global memory; returns the device address.
    pub fn alloc(&mut self, bytes: usize) -> u64 {
        self.memory.alloc(bytes)
    }

    /// Frees the allocation starting at `addr` (`cudaFree`); memory persists until then,
    /// across any number of launches and module loads.
    pub fn free(&mut self, addr: u64) -> Result<usize, SimError> {
        self.memory
            .free(addr)
            .ok_or_else(|| SimError::Memory(format!("{addr:#x} is not the start of an allocation")))
    }

    /// The allocation holding `addr`: its base address and size in bytes.
    pub fn allocation(&self, addr: u64) -> Option<(u64, usize)> {
        self.memory.allocation(addr)
    }

    /// Bytes of global memory allocated and not freed.
    pub fn allocated(&self) -> usize {
        self.memory.allocated()
    }

    /// The address the next allocation would start at.
    pub fn next_address(&self) -> u64 {
        self.memory.next_address()
    }

    /// Copies host bytes to the device.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), SimError> {
        self.memory.copy_in(addr, data)
    }

    /// Copies device bytes into `out` (without allocating).
    pub fn read_into(&self, addr: u64, out: &mut [u8]) -> Result<(), SimError> {
        self.memory.read(addr, out).ok_or_else(|| {
            SimError::Memory(format!(
                "copy of {} bytes from {addr:#x} is outside every allocation",
                out.len()
            ))
        })
    }

    /// Copies device bytes to the host.
    pub fn read(&self, addr: u64, len: usize) -> Result<Vec<u8>, SimError> {
        self.memory.copy_out(addr, len)
    }

    /// Reads as a kernel's load does (for engines that run kernels outside the simulator,
    /// such as the MIR interpreter): inside an allocation, past its end inside its mapped
    /// granule ([`Access::Stray`], which hardware does not fault on), or a fault.
    pub fn kernel_read(&mut self, addr: u64, out: &mut [u8]) -> Access {
        GlobalView::direct(&mut self.memory).read(addr, out)
    }

    /// Writes as a kernel's store does (see [`Device::kernel_read`]).
    pub fn kernel_write(&mut self, addr: u64, data: &[u8]) -> Access {
        GlobalView::direct(&mut self.memory).write(addr, data)
    }

    /// Sets the limits of the driver-provided functions (`cudaDeviceSetLimit` with
    /// `cudaLimitMallocHeapSize` / `cudaLimitPrintfFifoSize`). The heap size cannot change
    /// once a kernel has allocated from it, as in CUDA.
    pub fn set_limits(&mut self, limits: Limits) -> Result<(), SimError> {
        let d = &mut self.memory.driver;
        if d.heap.reserved() && limits.malloc_heap_size != d.limits.malloc_heap_size {
            return Err(SimError::BadLaunch(
                "the malloc heap size cannot change after a kernel has used the heap".into(),
            ));
        }
        d.limits = limits;
        Ok(())
    }

    /// What kernels printed (printf, failed assertions) and the driver reported since the
    /// last call: the synchronisation that flushes the printf buffer.
    pub fn flush_output(&mut self) -> DriverOutput {
        self.memory.driver.flush()
    }

    /// Loads a cubin: decodes its kernels and places its module variables in global memory.
    /// A cubin for an architecture the device does not run is refused, naming both.
    pub fn load(&mut self, cubin: &[u8]) -> Result<Module, SimError> {
        let arch = crate::module::cubin_arch(cubin)?;
        if !self.config.runs(arch) {
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
        let dims = &LaunchDims {
            cluster: k.cluster.resolve(&k.name, dims.cluster)?,
            ..dims.clone()
        };
        if dims.cluster.is_some() && k.arch.sm() < 90 {
            return Err(SimError::BadLaunch(format!(
                "kernel `{kernel}` is for {}: clusters need sm_90 or later",
                k.arch
            )));
        }
        let mut banks = vec![exec::bank0(k, dims, params, self.config.sms, module.const_base)];
        // Hopper reads the parameters through a generic address too (`cvta.param`, tensor
        // maps): a copy of them in global memory for the launch, placed as they lie in the
        // constant bank (offset 0 at `param_base` past an aligned address), so that an
        // over-aligned parameter keeps its alignment as it does on the GPU.
        let param_copy = match k.arch.param_window() {
            Some(at) => {
                let base = u64::from(k.arch.param_base());
                let alloc = self.memory.alloc(base as usize + params.len());
                self.memory.copy_in(alloc + base, params)?;
                banks[0][at as usize..at as usize + 8].copy_from_slice(&(alloc + base).to_le_bytes());
                Some(alloc)
            }
            None => None,
        };
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
        if let Some(addr) = param_copy {
            self.memory.free(addr);
        }
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
