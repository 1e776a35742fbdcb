//! The driver's state: one simulated device (whose global memory persists across launches
//! and module loads), contexts, modules, functions, streams, events, link states and host
//! allocations, behind one lock; and each thread's context stack.
//!
//! Work runs when it is issued, in issue order, whatever the stream: every stream is
//! therefore ordered, and a synchronisation has nothing left to wait for. The device's clock
//! advances by each kernel's simulated cycles; events read it.

use crate::model::DeviceModel;
use crate::types::{CUresult, Handle};
use ptxc_sim::{Device, SimError};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, MutexGuard};

/// A result whose error is a driver result code.
pub type CuResult<T> = Result<T, CUresult>;

/// Bytes of host address space reserved for device addresses (never backed by memory).
const DEVICE_ADDRESS_SPACE: usize = 1 << 38;

/// A context.
#[derive(Clone, Debug)]
pub struct Context {
    /// `CU_CTX_*` flags.
    pub flags: u32,
    /// The device's primary context.
    pub primary: bool,
    /// Limits set with `cuCtxSetLimit`.
    pub limits: HashMap<u32, usize>,
}

/// A loaded module (also a `CUlibrary`).
pub struct LoadedModule {
    /// The owning context.
    pub ctx: u64,
    /// The simulator's module.
    pub sim: ptxc_sim::module::Module,
    /// Function handles by kernel name, in module order.
    pub functions: Vec<(String, u64)>,
}

/// A function (also a `CUkernel`): a kernel of a loaded module.
#[derive(Clone, Debug)]
pub struct Function {
    /// The module.
    pub module: u64,
    /// The kernel's index in the module.
    pub index: usize,
    /// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`, if set.
    pub max_dynamic_shared: Option<u32>,
    /// `CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT`.
    pub carveout: i32,
}

/// A stream.
#[derive(Clone, Debug)]
pub struct Stream {
    /// The owning context.
    pub ctx: u64,
    /// `CU_STREAM_*` flags.
    pub flags: u32,
    /// Priority.
    pub priority: i32,
}

/// An event.
#[derive(Clone, Debug)]
pub struct Event {
    /// The owning context.
    pub ctx: u64,
    /// `CU_EVENT_*` flags.
    pub flags: u32,
    /// The device time (ns) when it was last recorded.
    pub recorded: Option<f64>,
}

/// A host allocation or registration.
#[derive(Clone, Debug)]
pub struct HostRange {
    /// Bytes.
    pub size: usize,
    /// `CU_MEMHOSTALLOC_*` or `CU_MEMHOSTREGISTER_*` flags.
    pub flags: u32,
    /// Allocated by the library (`cuMemHostAlloc`), not registered.
    pub owned: bool,
    /// The context that made it.
    pub ctx: u64,
}

/// The driver.
pub struct Driver {
    /// The reported and simulated device.
    pub model: DeviceModel,
    /// The simulator.
    pub device: Device,
    /// Contexts.
    pub contexts: HashMap<u64, Context>,
    /// The primary context and its reference count.
    pub primary: Option<(u64, u32)>,
    /// Flags for the primary context (`cuDevicePrimaryCtxSetFlags`).
    pub primary_flags: u32,
    /// Modules and libraries.
    pub modules: HashMap<u64, LoadedModule>,
    /// Functions and kernels.
    pub functions: HashMap<u64, Function>,
    /// Streams.
    pub streams: HashMap<u64, Stream>,
    /// Events.
    pub events: HashMap<u64, Event>,
    /// Link states.
    pub links: HashMap<u64, crate::link::LinkState>,
    /// Device allocations: base address to owning context.
    pub allocations: HashMap<u64, u64>,
    /// Host allocations and registrations by start address.
    pub host: BTreeMap<u64, HostRange>,
    /// Simulated device time in nanoseconds.
    pub clock_ns: f64,
    /// A kernel fault: returned by every later synchronising call of the context.
    pub sticky: Option<CUresult>,
    next_handle: u64,
}

static DRIVER: Mutex<Option<Driver>> = Mutex::new(None);

thread_local! {
    /// The calling thread's context stack (top last).
    static STACK: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// Reserves host address space for device addresses, so that no host pointer is ever a
/// device address (unified addressing); `None` if the reservation fails.
fn reserve_device_addresses() -> Option<u64> {
    // SAFETY: an anonymous PROT_NONE mapping of fresh address space touches no memory.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            DEVICE_ADDRESS_SPACE,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    (p != libc::MAP_FAILED).then_some(p as u64)
}

impl Driver {
    /// A fresh driver for `model`.
    fn new(model: DeviceModel) -> Driver {
        let device = match reserve_device_addresses() {
            Some(base) => Device::with_address_base(model.config.clone(), base),
            None => Device::new(model.config.clone()),
        };
        Driver {
            model,
            device,
            contexts: HashMap::new(),
            primary: None,
            primary_flags: 0,
            modules: HashMap::new(),
            functions: HashMap::new(),
            streams: HashMap::new(),
            events: HashMap::new(),
            links: HashMap::new(),
            allocations: HashMap::new(),
            host: BTreeMap::new(),
            clock_ns: 0.0,
            sticky: None,
            next_handle: 0x1000,
        }
    }

    /// A new handle value (never 0, 1 or 2, which name the default streams).
    pub fn handle(&mut self) -> u64 {
        self.next_handle += 0x10;
        self.next_handle
    }

    /// The current context of the calling thread, checked to exist.
    pub fn current(&self) -> CuResult<u64> {
        let top = current_handle().ok_or(CUresult::CUDA_ERROR_INVALID_CONTEXT)?;
        if self.contexts.contains_key(&top) {
            Ok(top)
        } else {
            Err(CUresult::CUDA_ERROR_INVALID_CONTEXT)
        }
    }

    /// The stream `s` (0, `CU_STREAM_LEGACY` and `CU_STREAM_PER_THREAD` are the default
    /// streams), checked to exist.
    pub fn check_stream(&self, s: Handle) -> CuResult<()> {
        let s = s as u64;
        if s <= 2 || self.streams.contains_key(&s) {
            Ok(())
        } else {
            Err(CUresult::CUDA_ERROR_INVALID_HANDLE)
        }
    }

    /// The function `f`, its module and the simulator's kernel.
    pub fn function(&self, f: Handle) -> CuResult<(&Function, &LoadedModule)> {
        let func = self
            .functions
            .get(&(f as u64))
            .ok_or(CUresult::CUDA_ERROR_INVALID_HANDLE)?;
        let m = self
            .modules
            .get(&func.module)
            .ok_or(CUresult::CUDA_ERROR_INVALID_HANDLE)?;
        Ok((func, m))
    }

    /// Fails with the sticky error of an earlier kernel fault, if any.
    pub fn check_sticky(&self) -> CuResult<()> {
        self.sticky.map_or(Ok(()), Err)
    }

    /// Frees everything context `ctx` owns: modules, functions, streams, events, device
    /// and host allocations.
    pub fn release_context(&mut self, ctx: u64) {
        let modules: Vec<u64> = self
            .modules
            .iter()
            .filter(|(_, m)| m.ctx == ctx)
            .map(|(&h, _)| h)
            .collect();
        for m in modules {
            self.unload(m);
        }
        self.streams.retain(|_, s| s.ctx != ctx);
        self.events.retain(|_, e| e.ctx != ctx);
        let allocs: Vec<u64> = self
            .allocations
            .iter()
            .filter(|&(_, &c)| c == ctx)
            .map(|(&a, _)| a)
            .collect();
        for a in allocs {
            self.allocations.remove(&a);
            let _ = self.device.free(a);
        }
        let hosts: Vec<u64> = self
            .host
            .iter()
            .filter(|(_, h)| h.ctx == ctx)
            .map(|(&a, _)| a)
            .collect();
        for a in hosts {
            if let Some(h) = self.host.remove(&a)
                && h.owned
            {
                crate::api::memory::free_host_block(a, h.size);
            }
        }
        self.sticky = None;
    }

    /// Unloads module `m` and forgets its functions.
    pub fn unload(&mut self, m: u64) -> Option<LoadedModule> {
        let module = self.modules.remove(&m)?;
        for (_, f) in &module.functions {
            self.functions.remove(f);
        }
        let mut bases: Vec<u64> = module
            .sim
            .globals
            .iter()
            .filter_map(|g| self.device.allocation(g.addr).map(|(base, _)| base))
            .collect();
        bases.dedup();
        for b in bases {
            let _ = self.device.free(b);
        }
        Some(module)
    }
}

/// The top of the calling thread's context stack.
pub fn current_handle() -> Option<u64> {
    STACK.with(|s| s.borrow().last().copied())
}

/// Runs `f` on the calling thread's context stack.
pub fn with_stack<T>(f: impl FnOnce(&mut Vec<u64>) -> T) -> T {
    STACK.with(|s| f(&mut s.borrow_mut()))
}

/// Whether `cuInit` has run.
pub fn initialized() -> bool {
    lock_raw().is_some()
}

/// Initialises the driver (`cuInit`); later calls do nothing.
pub fn init() {
    let mut d = lock_raw();
    if d.is_none() {
        *d = Some(Driver::new(DeviceModel::from_env()));
    }
}

fn lock_raw() -> MutexGuard<'static, Option<Driver>> {
    DRIVER.lock().unwrap_or_else(|e| e.into_inner())
}

/// The locked driver; `CUDA_ERROR_NOT_INITIALIZED` before `cuInit`.
pub fn driver() -> CuResult<DriverGuard> {
    let g = lock_raw();
    if g.is_none() {
        return Err(CUresult::CUDA_ERROR_NOT_INITIALIZED);
    }
    Ok(DriverGuard(g))
}

/// The locked, initialised driver.
pub struct DriverGuard(MutexGuard<'static, Option<Driver>>);

impl std::ops::Deref for DriverGuard {
    type Target = Driver;
    fn deref(&self) -> &Driver {
        self.0.as_ref().expect("checked in driver()")
    }
}

impl std::ops::DerefMut for DriverGuard {
    fn deref_mut(&mut self) -> &mut Driver {
        self.0.as_mut().expect("checked in driver()")
    }
}

/// The result code of a simulator fault.
pub fn fault_code(e: &SimError) -> CUresult {
    match e {
        SimError::AfterHazards { fault, .. } => fault_code(fault),
        SimError::OutOfBounds { .. } | SimError::OtherCtaShared { .. } => CUresult::CUDA_ERROR_ILLEGAL_ADDRESS,
        SimError::Misaligned { .. } => CUresult::CUDA_ERROR_MISALIGNED_ADDRESS,
        SimError::Unsupported { .. } | SimError::Decode { .. } => CUresult::CUDA_ERROR_ILLEGAL_INSTRUCTION,
        SimError::Limit { .. } => CUresult::CUDA_ERROR_LAUNCH_TIMEOUT,
        SimError::BadLaunch(_) => CUresult::CUDA_ERROR_INVALID_VALUE,
        SimError::NoKernel(_) => CUresult::CUDA_ERROR_NOT_FOUND,
        SimError::BadModule(_) => CUresult::CUDA_ERROR_INVALID_IMAGE,
        SimError::UnmodelledArch { .. } | SimError::WrongDevice { .. } => CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU,
        SimError::Assert { .. } => CUresult::CUDA_ERROR_ASSERT,
        SimError::Heap { .. } => CUresult::CUDA_ERROR_LAUNCH_FAILED,
        SimError::Memory(_) => CUresult::CUDA_ERROR_INVALID_VALUE,
        SimError::Deadlock { .. } | SimError::Trap { .. } => CUresult::CUDA_ERROR_LAUNCH_FAILED,
    }
}
