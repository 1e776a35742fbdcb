//! The GPU over NVIDIA's driver: `libcuda` opened at run time (nothing of CUDA is needed to
//! build ptxc), with only the driver API entry points the check uses.

use super::gpu::{Gpu, GpuInfo, GpuRun};
use crate::launch::{LaunchSpec, ParamSpec};
use crate::npy::Array;
use libloading::Library;
use std::collections::BTreeMap;
use std::ffi::{CStr, CString, c_char, c_int, c_uint, c_void};
use std::path::Path;

/// Why the driver could not be opened.
#[derive(Clone, Debug, PartialEq)]
pub enum OpenError {
    /// There is no GPU to check on: no driver library, `cuInit` failed, or no device.
    Unavailable(String),
    /// The driver is there but failed.
    Failed(String),
}

type CuResult = c_int;
type Ptr = *mut c_void;
type DevPtr = u64;

/// `CU_DEVICE_ATTRIBUTE_*` values.
const ATTR_CLOCK_RATE: c_int = 13;
const ATTR_SM_COUNT: c_int = 16;
const ATTR_CC_MAJOR: c_int = 75;
const ATTR_CC_MINOR: c_int = 76;

/// The entry points, resolved once.
struct Api {
    init: unsafe extern "C" fn(c_uint) -> CuResult,
    device_get_count: unsafe extern "C" fn(*mut c_int) -> CuResult,
    device_get: unsafe extern "C" fn(*mut c_int, c_int) -> CuResult,
    device_get_name: unsafe extern "C" fn(*mut c_char, c_int, c_int) -> CuResult,
    device_get_attribute: unsafe extern "C" fn(*mut c_int, c_int, c_int) -> CuResult,
    ctx_create: unsafe extern "C" fn(*mut Ptr, c_uint, c_int) -> CuResult,
    ctx_destroy: unsafe extern "C" fn(Ptr) -> CuResult,
    ctx_synchronize: unsafe extern "C" fn() -> CuResult,
    module_load_data: unsafe extern "C" fn(*mut Ptr, *const c_void) -> CuResult,
    module_unload: unsafe extern "C" fn(Ptr) -> CuResult,
    module_get_function: unsafe extern "C" fn(*mut Ptr, Ptr, *const c_char) -> CuResult,
    module_get_global: unsafe extern "C" fn(*mut DevPtr, *mut usize, Ptr, *const c_char) -> CuResult,
    mem_alloc: unsafe extern "C" fn(*mut DevPtr, usize) -> CuResult,
    mem_free: unsafe extern "C" fn(DevPtr) -> CuResult,
    memcpy_htod: unsafe extern "C" fn(DevPtr, *const c_void, usize) -> CuResult,
    memcpy_dtoh: unsafe extern "C" fn(*mut c_void, DevPtr, usize) -> CuResult,
    #[allow(clippy::type_complexity)]
    launch_kernel: unsafe extern "C" fn(
        Ptr,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        Ptr,
        *mut *mut c_void,
        *mut *mut c_void,
    ) -> CuResult,
    event_create: unsafe extern "C" fn(*mut Ptr, c_uint) -> CuResult,
    event_record: unsafe extern "C" fn(Ptr, Ptr) -> CuResult,
    event_synchronize: unsafe extern "C" fn(Ptr) -> CuResult,
    event_elapsed_time: unsafe extern "C" fn(*mut f32, Ptr, Ptr) -> CuResult,
    event_destroy: unsafe extern "C" fn(Ptr) -> CuResult,
    get_error_string: unsafe extern "C" fn(CuResult, *mut *const c_char) -> CuResult,
}

impl Api {
    /// Resolves every entry point of `lib`.
    fn resolve(lib: &Library) -> Result<Api, String> {
        /// One symbol as a function pointer of the field's type.
        fn sym<T: Copy>(lib: &Library, name: &str) -> Result<T, String> {
            // SAFETY: the field's type is the driver API's signature of `name` (cuda.h).
            unsafe { lib.get::<T>(name.as_bytes()) }
                .map(|s| *s)
                .map_err(|e| format!("no `{name}`: {e}"))
        }
        Ok(Api {
            init: sym(lib, "cuInit")?,
            device_get_count: sym(lib, "cuDeviceGetCount")?,
            device_get: sym(lib, "cuDeviceGet")?,
            device_get_name: sym(lib, "cuDeviceGetName")?,
            device_get_attribute: sym(lib, "cuDeviceGetAttribute")?,
            ctx_create: sym(lib, "cuCtxCreate_v2")?,
            ctx_destroy: sym(lib, "cuCtxDestroy_v2")?,
            ctx_synchronize: sym(lib, "cuCtxSynchronize")?,
            module_load_data: sym(lib, "cuModuleLoadData")?,
            module_unload: sym(lib, "cuModuleUnload")?,
            module_get_function: sym(lib, "cuModuleGetFunction")?,
            module_get_global: sym(lib, "cuModuleGetGlobal_v2")?,
            mem_alloc: sym(lib, "cuMemAlloc_v2")?,
            mem_free: sym(lib, "cuMemFree_v2")?,
            memcpy_htod: sym(lib, "cuMemcpyHtoD_v2")?,
            memcpy_dtoh: sym(lib, "cuMemcpyDtoH_v2")?,
            launch_kernel: sym(lib, "cuLaunchKernel")?,
            event_create: sym(lib, "cuEventCreate")?,
            event_record: sym(lib, "cuEventRecord")?,
            event_synchronize: sym(lib, "cuEventSynchronize")?,
            event_elapsed_time: sym(lib, "cuEventElapsedTime")?,
            event_destroy: sym(lib, "cuEventDestroy_v2")?,
            get_error_string: sym(lib, "cuGetErrorString")?,
        })
    }
}

/// A GPU reached through the CUDA driver.
pub struct CudaGpu {
    api: Api,
    info: GpuInfo,
    device: c_int,
    context: Ptr,
    // Declared last: the library outlives every call through `api`.
    _lib: Library,
}

/// The library name the driver is opened by when no path is given.
pub const DEFAULT_LIBRARY: &str = "libcuda.so.1";

impl CudaGpu {
    /// Opens the driver library `library` (by the system's search when it is a bare name),
    /// initialises it and creates a context on device `ordinal`.
    pub fn open(library: &str, ordinal: u32) -> Result<CudaGpu, OpenError> {
        // SAFETY: loading a library runs its initialisers; the driver library's are sound.
        let lib = unsafe { Library::new(library) }
            .map_err(|e| OpenError::Unavailable(format!("cannot load the CUDA driver `{library}`: {e}")))?;
        let api =
            Api::resolve(&lib).map_err(|e| OpenError::Unavailable(format!("`{library}` is not a CUDA driver: {e}")))?;
        let err = |api: &Api, what: &str, r: CuResult| format!("{what}: {}", error_text(api, r));
        // SAFETY: the calls follow the driver API's contracts; every out-pointer is valid.
        unsafe {
            let r = (api.init)(0);
            if r != 0 {
                return Err(OpenError::Unavailable(err(&api, "cuInit", r)));
            }
            let mut count = 0;
            let r = (api.device_get_count)(&mut count);
            if r != 0 || count <= 0 {
                return Err(OpenError::Unavailable(if r != 0 {
                    err(&api, "cuDeviceGetCount", r)
                } else {
                    "the driver sees no CUDA device".into()
                }));
            }
            if ordinal as i64 >= count as i64 {
                return Err(OpenError::Failed(format!(
                    "there is no device {ordinal}: the driver sees {count}"
                )));
            }
            let mut device = 0;
            check(&api, "cuDeviceGet", (api.device_get)(&mut device, ordinal as c_int)).map_err(OpenError::Failed)?;
            let info = describe(&api, device, library).map_err(OpenError::Failed)?;
            let mut gpu = CudaGpu {
                api,
                info,
                device,
                context: std::ptr::null_mut(),
                _lib: lib,
            };
            gpu.new_context().map_err(OpenError::Failed)?;
            Ok(gpu)
        }
    }

    /// Replaces the context (after a launch failed: a fault leaves the old one unusable).
    fn new_context(&mut self) -> Result<(), String> {
        // SAFETY: the context was created by this driver (or is null).
        unsafe {
            if !self.context.is_null() {
                (self.api.ctx_destroy)(self.context);
                self.context = std::ptr::null_mut();
            }
            let mut ctx = std::ptr::null_mut();
            check(
                &self.api,
                "cuCtxCreate",
                (self.api.ctx_create)(&mut ctx, 0, self.device),
            )?;
            self.context = ctx;
        }
        Ok(())
    }
}

impl Drop for CudaGpu {
    fn drop(&mut self) {
        if !self.context.is_null() {
            // SAFETY: the context was created by this driver.
            unsafe { (self.api.ctx_destroy)(self.context) };
        }
    }
}

/// The driver's text for `r`.
fn error_text(api: &Api, r: CuResult) -> String {
    let mut s: *const c_char = std::ptr::null();
    // SAFETY: cuGetErrorString writes a pointer to a static string or leaves it.
    let known = unsafe { (api.get_error_string)(r, &mut s) } == 0 && !s.is_null();
    if known {
        // SAFETY: a NUL-terminated static string of the driver.
        let text = unsafe { CStr::from_ptr(s) }.to_string_lossy();
        format!("{text} (CUresult {r})")
    } else {
        format!("CUresult {r}")
    }
}

/// `Ok` for success, else the call and the driver's text.
fn check(api: &Api, what: &str, r: CuResult) -> Result<(), String> {
    if r == 0 {
        Ok(())
    } else {
        Err(format!("{what}: {}", error_text(api, r)))
    }
}

/// Name, compute capability, SMs and clock of `device`.
fn describe(api: &Api, device: c_int, via: &str) -> Result<GpuInfo, String> {
    let attr = |a: c_int, what: &str| -> Result<u32, String> {
        let mut v = 0;
        // SAFETY: `v` is valid for a write.
        check(api, what, unsafe { (api.device_get_attribute)(&mut v, a, device) })?;
        Ok(v.max(0) as u32)
    };
    let mut name = [0 as c_char; 256];
    // SAFETY: the buffer holds 256 bytes and the driver writes at most that, NUL included.
    check(api, "cuDeviceGetName", unsafe {
        (api.device_get_name)(name.as_mut_ptr(), name.len() as c_int, device)
    })?;
    name[255] = 0;
    // SAFETY: NUL-terminated above.
    let name = unsafe { CStr::from_ptr(name.as_ptr()) }.to_string_lossy().into_owned();
    Ok(GpuInfo {
        name,
        sm: attr(ATTR_CC_MAJOR, "compute capability")? * 10 + attr(ATTR_CC_MINOR, "compute capability")?,
        sms: attr(ATTR_SM_COUNT, "SM count")?,
        clock_khz: attr(ATTR_CLOCK_RATE, "clock rate")?,
        via: via.to_string(),
    })
}

/// What one launch allocated, released by [`CudaGpu::release`].
struct Launch {
    module: Ptr,
    allocations: Vec<DevPtr>,
    events: Vec<Ptr>,
}

impl Gpu for CudaGpu {
    fn info(&self) -> &GpuInfo {
        &self.info
    }

    fn launch(&mut self, cubin: &[u8], spec: &LaunchSpec, repeat: u32) -> Result<GpuRun, String> {
        let mut l = Launch {
            module: std::ptr::null_mut(),
            allocations: Vec::new(),
            events: Vec::new(),
        };
        let result = self.launch_in(&mut l, cubin, spec, repeat);
        let released = self.release(l);
        if result.is_err() || released.is_err() {
            // A fault leaves the context unusable; the next kernel gets a fresh one.
            self.new_context()?;
        }
        let run = result?;
        released?;
        Ok(run)
    }
}

impl CudaGpu {
    /// The launch, recording what it allocates in `l`.
    fn launch_in(&mut self, l: &mut Launch, cubin: &[u8], spec: &LaunchSpec, repeat: u32) -> Result<GpuRun, String> {
        if let Some(c) = spec.cluster {
            return Err(format!(
                "a launch with clusters of {c:?} CTAs is simulator-only (the hardware check launches with cuLaunchKernel, which has no cluster shape)"
            ));
        }
        let api = &self.api;
        // The driver reads the image through a pointer with no length: an ELF's headers say it.
        let image: Vec<u8> = cubin.iter().copied().chain([0u8; 16]).collect();
        // SAFETY: every call follows the driver API's contract; pointers are valid for the
        // sizes given, and the parameter array points at live values of the kernel's sizes
        // (the simulator checked them against the cubin before).
        unsafe {
            check(
                api,
                "cuModuleLoadData",
                (api.module_load_data)(&mut l.module, image.as_ptr().cast()),
            )?;
            let name = CString::new(spec.kernel.as_str()).map_err(|_| "the kernel name has a NUL".to_string())?;
            let mut func = std::ptr::null_mut();
            check(
                api,
                "cuModuleGetFunction",
                (api.module_get_function)(&mut func, l.module, name.as_ptr()),
            )?;
            for (sym, init) in &spec.symbols {
                let bytes = init.materialize()?.bytes;
                let cname = CString::new(sym.as_str()).map_err(|_| format!("symbol `{sym}` has a NUL"))?;
                let (mut addr, mut size) = (0, 0);
                check(
                    api,
                    "cuModuleGetGlobal",
                    (api.module_get_global)(&mut addr, &mut size, l.module, cname.as_ptr()),
                )
                .map_err(|e| format!("symbols.{sym}: {e}"))?;
                if bytes.len() > size {
                    return Err(format!(
                        "symbols.{sym}: {} bytes for a {size}-byte variable",
                        bytes.len()
                    ));
                }
                check(
                    api,
                    "cuMemcpyHtoD",
                    (api.memcpy_htod)(addr, bytes.as_ptr().cast(), bytes.len()),
                )?;
            }
            let mut arrays: BTreeMap<String, Array> = BTreeMap::new();
            let mut addrs: BTreeMap<String, DevPtr> = BTreeMap::new();
            for (buf, init) in &spec.buffers {
                let a = init.materialize()?;
                let mut addr = 0;
                check(api, "cuMemAlloc", (api.mem_alloc)(&mut addr, a.bytes.len().max(1)))?;
                l.allocations.push(addr);
                check(
                    api,
                    "cuMemcpyHtoD",
                    (api.memcpy_htod)(addr, a.bytes.as_ptr().cast(), a.bytes.len()),
                )?;
                addrs.insert(buf.clone(), addr);
                arrays.insert(buf.clone(), a);
            }
            let mut values: Vec<Vec<u8>> = Vec::new();
            for (i, p) in spec.params.iter().enumerate() {
                values.push(match p {
                    ParamSpec::Scalar { bytes, .. } => bytes.clone(),
                    ParamSpec::TensorMap { .. } => {
                        return Err(format!(
                            "params[{i}]: tensor maps are simulator-only (the hardware check does not encode them with the driver yet)"
                        ));
                    }
                    ParamSpec::Ptr { buffer, offset } => {
                        let base = addrs
                            .get(buffer)
                            .ok_or_else(|| format!("params[{i}]: no buffer `{buffer}`"))?;
                        (base + offset).to_le_bytes().to_vec()
                    }
                });
            }
            let mut pointers: Vec<*mut c_void> = values.iter_mut().map(|v| v.as_mut_ptr().cast()).collect();
            let go = |pointers: &mut Vec<*mut c_void>| {
                let [gx, gy, gz] = spec.grid;
                let [bx, by, bz] = spec.block;
                (api.launch_kernel)(
                    func,
                    gx,
                    gy,
                    gz,
                    bx,
                    by,
                    bz,
                    spec.dynamic_shared_bytes,
                    std::ptr::null_mut(),
                    pointers.as_mut_ptr(),
                    std::ptr::null_mut(),
                )
            };
            check(api, "cuLaunchKernel", go(&mut pointers))?;
            check(api, "cuCtxSynchronize", (api.ctx_synchronize)())?;
            for (buf, a) in arrays.iter_mut() {
                check(
                    api,
                    "cuMemcpyDtoH",
                    (api.memcpy_dtoh)(a.bytes.as_mut_ptr().cast(), addrs[buf], a.bytes.len()),
                )?;
            }
            let cycles = if repeat == 0 {
                None
            } else {
                let (mut start, mut end) = (std::ptr::null_mut(), std::ptr::null_mut());
                check(api, "cuEventCreate", (api.event_create)(&mut start, 0))?;
                l.events.push(start);
                check(api, "cuEventCreate", (api.event_create)(&mut end, 0))?;
                l.events.push(end);
                // Each timed launch gets the inputs again and its own pair of events, so a kernel
                // that works in place (a sort, `y = a*x + y`) is timed on the data it was checked
                // on, and the copies stay outside the timed span.
                let mut ms = 0f32;
                for _ in 0..repeat {
                    for (buf, init) in &spec.buffers {
                        let bytes = init.materialize()?.bytes;
                        check(
                            api,
                            "cuMemcpyHtoD",
                            (api.memcpy_htod)(addrs[buf], bytes.as_ptr().cast(), bytes.len()),
                        )?;
                    }
                    check(api, "cuCtxSynchronize", (api.ctx_synchronize)())?;
                    check(api, "cuEventRecord", (api.event_record)(start, std::ptr::null_mut()))?;
                    check(api, "cuLaunchKernel", go(&mut pointers))?;
                    check(api, "cuEventRecord", (api.event_record)(end, std::ptr::null_mut()))?;
                    check(api, "cuEventSynchronize", (api.event_synchronize)(end))?;
                    let mut once = 0f32;
                    check(
                        api,
                        "cuEventElapsedTime",
                        (api.event_elapsed_time)(&mut once, start, end),
                    )?;
                    ms += once;
                }
                Some(ms as f64 / repeat as f64 * self.info.clock_khz as f64)
            };
            Ok(GpuRun {
                buffers: arrays,
                cycles,
            })
        }
    }

    /// Frees what `l` holds; the first failure.
    fn release(&self, l: Launch) -> Result<(), String> {
        let api = &self.api;
        let mut first = Ok(());
        // SAFETY: each handle was created by this driver in this context and is freed once.
        unsafe {
            for e in l.events {
                first = first.and(check(api, "cuEventDestroy", (api.event_destroy)(e)));
            }
            for a in l.allocations {
                first = first.and(check(api, "cuMemFree", (api.mem_free)(a)));
            }
            if !l.module.is_null() {
                first = first.and(check(api, "cuModuleUnload", (api.module_unload)(l.module)));
            }
        }
        first
    }
}

/// The driver library to open: `flag`, else `PTXC_LIBCUDA`, else [`DEFAULT_LIBRARY`].
pub fn library_path(flag: Option<&Path>) -> String {
    match flag {
        Some(p) => p.display().to_string(),
        None => std::env::var("PTXC_LIBCUDA").unwrap_or_else(|_| DEFAULT_LIBRARY.to_string()),
    }
}
