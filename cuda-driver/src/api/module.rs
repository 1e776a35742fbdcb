//! Modules and libraries: images are loaded (PTX compiled by ptxc, fat binaries reduced to
//! the entry the device runs), their kernels become functions (`CUfunction` and `CUkernel`
//! are one handle), and functions answer attribute and occupancy queries.

use super::{call, out, text};
use crate::image::{self, Image};
use crate::jit::JitOptions;
use crate::log;
use crate::state::{CuResult, Driver, Function, LoadedModule, driver, fault_code};
use crate::types::{CUdevice, CUdeviceptr, CUresult, Handle};
use std::ffi::{c_char, c_int, c_uint, c_void};

/// Loads `image` into context `ctx`; returns the module handle.
pub fn load(d: &mut Driver, ctx: u64, image: Image, jit: &JitOptions) -> CuResult<u64> {
    let arch = d.model.arch;
    let cubin = match image {
        Image::Cubin(b) => b,
        Image::Ptx(t) => jit.compile(&t, arch)?,
        Image::Fatbin(f) => match image::select(&f, arch.sm()) {
            Ok(Image::Cubin(b)) => b,
            Ok(Image::Ptx(t)) => jit.compile(&t, arch)?,
            Ok(Image::Fatbin(_)) => return Err(CUresult::CUDA_ERROR_INVALID_IMAGE),
            Err(msg) => {
                jit.error_log(&msg);
                log::warn(&msg);
                return Err(CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU);
            }
        },
    };
    let sim = d.device.load(&cubin).map_err(|e| {
        jit.error_log(&e.to_string());
        log::warn(format!("module load failed: {e}"));
        fault_code(&e)
    })?;
    let m = d.handle();
    let mut functions = Vec::new();
    for (index, k) in sim.kernels.iter().enumerate() {
        let f = d.handle();
        functions.push((k.name.clone(), f));
        d.functions.insert(
            f,
            Function {
                module: m,
                index,
                max_dynamic_shared: None,
                carveout: -1,
            },
        );
    }
    log::info(format!(
        "loaded a module with {} kernel(s): {}",
        functions.len(),
        functions.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", ")
    ));
    d.modules.insert(m, LoadedModule { ctx, sim, functions });
    Ok(m)
}

/// Loads the image at `image` with JIT options into the current context.
///
/// # Safety
/// `image` is a complete image; the option arrays hold `n` elements.
unsafe fn load_current(
    image: *const c_void,
    n: c_uint,
    options: *const c_uint,
    values: *mut *mut c_void,
) -> CuResult<u64> {
    let jit = unsafe { JitOptions::read(n, options, values)? };
    let img = unsafe { image::read(image)? };
    let mut d = driver()?;
    let ctx = d.current()?;
    d.flush_device_output();
    load(&mut d, ctx, img, &jit)
}

/// Loads the file at `path` into the current context.
fn load_file(path: &str, jit: &JitOptions) -> CuResult<u64> {
    let data = std::fs::read(path).map_err(|_| CUresult::CUDA_ERROR_FILE_NOT_FOUND)?;
    let img = image::classify(&data)?;
    let mut d = driver()?;
    let ctx = d.current()?;
    d.flush_device_output();
    load(&mut d, ctx, img, jit)
}

/// `cuModuleLoad`.
///
/// # Safety
/// `module` is valid for a write; `fname` is a string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleLoad(module: *mut Handle, fname: *const c_char) -> CUresult {
    call("cuModuleLoad", || {
        let m = load_file(unsafe { text(fname)? }, &JitOptions::default())?;
        unsafe { out(module, m as Handle) }
    })
}

/// `cuModuleLoadData`.
///
/// # Safety
/// `module` is valid for a write; `image` is a complete image.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleLoadData(module: *mut Handle, image: *const c_void) -> CUresult {
    call("cuModuleLoadData", || {
        let m = unsafe { load_current(image, 0, std::ptr::null(), std::ptr::null_mut())? };
        unsafe { out(module, m as Handle) }
    })
}

/// `cuModuleLoadDataEx`.
///
/// # Safety
/// `module` is valid for a write; `image` is a complete image; the arrays hold `n` elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleLoadDataEx(
    module: *mut Handle,
    image: *const c_void,
    n: c_uint,
    options: *const c_uint,
    values: *mut *mut c_void,
) -> CUresult {
    call("cuModuleLoadDataEx", || {
        let m = unsafe { load_current(image, n, options, values)? };
        unsafe { out(module, m as Handle) }
    })
}

/// `cuModuleLoadFatBinary`.
///
/// # Safety
/// `module` is valid for a write; `fat` is a complete fat binary.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleLoadFatBinary(module: *mut Handle, fat: *const c_void) -> CUresult {
    unsafe { cuModuleLoadData(module, fat) }
}

/// `cuModuleUnload`: the module's variables are freed; its functions become invalid.
#[unsafe(no_mangle)]
pub extern "C" fn cuModuleUnload(module: Handle) -> CUresult {
    call("cuModuleUnload", || {
        let mut d = driver()?;
        d.flush_device_output();
        d.unload(module as u64)
            .map(|_| ())
            .ok_or(CUresult::CUDA_ERROR_INVALID_HANDLE)
    })
}

/// The function handle of kernel `name` in module `m`.
fn function_of(d: &Driver, m: Handle, name: &str) -> CuResult<u64> {
    let module = d.modules.get(&(m as u64)).ok_or(CUresult::CUDA_ERROR_INVALID_HANDLE)?;
    module
        .functions
        .iter()
        .find(|(n, _)| n == name)
        .map(|&(_, f)| f)
        .ok_or(CUresult::CUDA_ERROR_NOT_FOUND)
}

/// `cuModuleGetFunction`.
///
/// # Safety
/// `func` is valid for a write; `name` is a string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleGetFunction(func: *mut Handle, module: Handle, name: *const c_char) -> CUresult {
    call("cuModuleGetFunction", || {
        let f = function_of(&*driver()?, module, unsafe { text(name)? })?;
        unsafe { out(func, f as Handle) }
    })
}

/// `cuModuleGetFunctionCount`.
///
/// # Safety
/// `count` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleGetFunctionCount(count: *mut c_uint, module: Handle) -> CUresult {
    call("cuModuleGetFunctionCount", || {
        let d = driver()?;
        let m = d
            .modules
            .get(&(module as u64))
            .ok_or(CUresult::CUDA_ERROR_INVALID_HANDLE)?;
        unsafe { out(count, m.functions.len() as c_uint) }
    })
}

/// `cuModuleEnumerateFunctions` (also `cuLibraryEnumerateKernels`).
///
/// # Safety
/// `functions` is valid for `n` handles.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleEnumerateFunctions(functions: *mut Handle, n: c_uint, module: Handle) -> CUresult {
    call("cuModuleEnumerateFunctions", || {
        let d = driver()?;
        let m = d
            .modules
            .get(&(module as u64))
            .ok_or(CUresult::CUDA_ERROR_INVALID_HANDLE)?;
        if functions.is_null() || (n as usize) < m.functions.len() {
            return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
        }
        for (i, &(_, f)) in m.functions.iter().enumerate() {
            unsafe { *functions.add(i) = f as Handle };
        }
        Ok(())
    })
}

/// The address and size of module variable `name` of module `m`.
fn global_of(d: &Driver, m: Handle, name: &str) -> CuResult<(u64, u64)> {
    let module = d.modules.get(&(m as u64)).ok_or(CUresult::CUDA_ERROR_INVALID_HANDLE)?;
    let g = module.sim.global(name).ok_or(CUresult::CUDA_ERROR_NOT_FOUND)?;
    Ok((g.addr, g.size))
}

/// `cuModuleGetGlobal_v2`. Writes through the address reach `__constant__` variables too:
/// their constant bank is refreshed from memory at each launch.
///
/// # Safety
/// `dptr` and `bytes` are null or valid for writes; `name` is a string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleGetGlobal_v2(
    dptr: *mut CUdeviceptr,
    bytes: *mut usize,
    module: Handle,
    name: *const c_char,
) -> CUresult {
    call("cuModuleGetGlobal", || {
        let (addr, size) = global_of(&*driver()?, module, unsafe { text(name)? })?;
        unsafe {
            if !dptr.is_null() {
                out(dptr, addr)?;
            }
            if !bytes.is_null() {
                out(bytes, size as usize)?;
            }
        }
        Ok(())
    })
}

/// `cuModuleGetLoadingMode`: eager.
///
/// # Safety
/// `mode` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleGetLoadingMode(mode: *mut c_uint) -> CUresult {
    call("cuModuleGetLoadingMode", || unsafe { out(mode, 1) })
}

/// `cuLibraryLoadData`: a library is a module loaded into the current context (the
/// primary context, retained if there is none).
///
/// # Safety
/// `library` is valid for a write; `code` is a complete image; each array holds its count.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryLoadData(
    library: *mut Handle,
    code: *const c_void,
    jit_options: *const c_uint,
    jit_values: *mut *mut c_void,
    n_jit: c_uint,
    _lib_options: *const c_uint,
    _lib_values: *mut *mut c_void,
    _n_lib: c_uint,
) -> CUresult {
    call("cuLibraryLoadData", || {
        let jit = unsafe { JitOptions::read(n_jit, jit_options, jit_values)? };
        let img = unsafe { image::read(code)? };
        let mut d = driver()?;
        let ctx = library_context(&mut d)?;
        let m = load(&mut d, ctx, img, &jit)?;
        unsafe { out(library, m as Handle) }
    })
}

/// The context a library loads into: the current one, else the primary context.
fn library_context(d: &mut Driver) -> CuResult<u64> {
    if let Ok(c) = d.current() {
        return Ok(c);
    }
    match d.primary {
        Some((h, _)) => Ok(h),
        None => Err(CUresult::CUDA_ERROR_INVALID_CONTEXT),
    }
}

/// `cuLibraryLoadFromFile`.
///
/// # Safety
/// `library` is valid for a write; `path` is a string; each array holds its count.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryLoadFromFile(
    library: *mut Handle,
    path: *const c_char,
    jit_options: *const c_uint,
    jit_values: *mut *mut c_void,
    n_jit: c_uint,
    _lib_options: *const c_uint,
    _lib_values: *mut *mut c_void,
    _n_lib: c_uint,
) -> CUresult {
    call("cuLibraryLoadFromFile", || {
        let jit = unsafe { JitOptions::read(n_jit, jit_options, jit_values)? };
        let m = load_file(unsafe { text(path)? }, &jit)?;
        unsafe { out(library, m as Handle) }
    })
}

/// `cuLibraryUnload`.
#[unsafe(no_mangle)]
pub extern "C" fn cuLibraryUnload(library: Handle) -> CUresult {
    cuModuleUnload(library)
}

/// `cuLibraryGetKernel`.
///
/// # Safety
/// `kernel` is valid for a write; `name` is a string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryGetKernel(kernel: *mut Handle, library: Handle, name: *const c_char) -> CUresult {
    unsafe { cuModuleGetFunction(kernel, library, name) }
}

/// `cuLibraryGetKernelCount`.
///
/// # Safety
/// `count` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryGetKernelCount(count: *mut c_uint, library: Handle) -> CUresult {
    unsafe { cuModuleGetFunctionCount(count, library) }
}

/// `cuLibraryEnumerateKernels`.
///
/// # Safety
/// `kernels` is valid for `n` handles.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryEnumerateKernels(kernels: *mut Handle, n: c_uint, library: Handle) -> CUresult {
    unsafe { cuModuleEnumerateFunctions(kernels, n, library) }
}

/// `cuLibraryGetModule`: the library is its module.
///
/// # Safety
/// `module` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryGetModule(module: *mut Handle, library: Handle) -> CUresult {
    call("cuLibraryGetModule", || {
        if !driver()?.modules.contains_key(&(library as u64)) {
            return Err(CUresult::CUDA_ERROR_INVALID_HANDLE);
        }
        unsafe { out(module, library) }
    })
}

/// `cuLibraryGetGlobal`.
///
/// # Safety
/// `dptr` and `bytes` are null or valid for writes; `name` is a string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryGetGlobal(
    dptr: *mut CUdeviceptr,
    bytes: *mut usize,
    library: Handle,
    name: *const c_char,
) -> CUresult {
    unsafe { cuModuleGetGlobal_v2(dptr, bytes, library, name) }
}

/// `cuKernelGetFunction`: the kernel is its function.
///
/// # Safety
/// `func` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuKernelGetFunction(func: *mut Handle, kernel: Handle) -> CUresult {
    call("cuKernelGetFunction", || {
        driver()?.function(kernel)?;
        unsafe { out(func, kernel) }
    })
}

/// `cuKernelGetLibrary` (also `cuFuncGetModule`).
///
/// # Safety
/// `library` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuKernelGetLibrary(library: *mut Handle, kernel: Handle) -> CUresult {
    call("cuKernelGetLibrary", || {
        let m = driver()?.function(kernel)?.0.module;
        unsafe { out(library, m as Handle) }
    })
}

/// `cuFuncGetModule`.
///
/// # Safety
/// `module` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFuncGetModule(module: *mut Handle, func: Handle) -> CUresult {
    unsafe { cuKernelGetLibrary(module, func) }
}

/// `cuFuncGetName` (also `cuKernelGetName`): the string lives as long as the module.
///
/// # Safety
/// `name` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFuncGetName(name: *mut *const c_char, func: Handle) -> CUresult {
    call("cuFuncGetName", || {
        let d = driver()?;
        let (f, m) = d.function(func)?;
        let s = &m.functions[f.index].0;
        let c = NAMES.with_name(s);
        unsafe { out(name, c) }
    })
}

/// Interned NUL-terminated kernel names (the driver API returns borrowed strings).
struct Names(std::sync::Mutex<std::collections::HashMap<String, Box<[u8]>>>);

impl Names {
    fn with_name(&self, s: &str) -> *const c_char {
        let mut m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let b = m
            .entry(s.to_string())
            .or_insert_with(|| format!("{s}\0").into_bytes().into_boxed_slice());
        b.as_ptr().cast()
    }
}

static NAMES: std::sync::LazyLock<Names> = std::sync::LazyLock::new(|| Names(Default::default()));

/// `cuKernelGetName`.
///
/// # Safety
/// `name` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuKernelGetName(name: *mut *const c_char, kernel: Handle) -> CUresult {
    unsafe { cuFuncGetName(name, kernel) }
}

/// `cuFuncGetParamInfo` (also `cuKernelGetParamInfo`).
///
/// # Safety
/// `offset` and `size` are null or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFuncGetParamInfo(
    func: Handle,
    index: usize,
    offset: *mut usize,
    size: *mut usize,
) -> CUresult {
    call("cuFuncGetParamInfo", || {
        let d = driver()?;
        let (f, m) = d.function(func)?;
        let &(o, s) = m.sim.kernels[f.index]
            .params
            .get(index)
            .ok_or(CUresult::CUDA_ERROR_INVALID_VALUE)?;
        unsafe {
            if !offset.is_null() {
                out(offset, o as usize)?;
            }
            if !size.is_null() {
                out(size, s as usize)?;
            }
        }
        Ok(())
    })
}

/// `cuKernelGetParamInfo`.
///
/// # Safety
/// `offset` and `size` are null or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuKernelGetParamInfo(
    kernel: Handle,
    index: usize,
    offset: *mut usize,
    size: *mut usize,
) -> CUresult {
    unsafe { cuFuncGetParamInfo(kernel, index, offset, size) }
}

/// `cuFuncIsLoaded`: always loaded (modules load eagerly).
///
/// # Safety
/// `state` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFuncIsLoaded(state: *mut c_uint, func: Handle) -> CUresult {
    call("cuFuncIsLoaded", || {
        driver()?.function(func)?;
        unsafe { out(state, 1) }
    })
}

/// `cuFuncLoad`: nothing to do.
#[unsafe(no_mangle)]
pub extern "C" fn cuFuncLoad(func: Handle) -> CUresult {
    call("cuFuncLoad", || driver()?.function(func).map(|_| ()))
}

/// Threads per block a kernel can be launched with: the register file of an SM divided
/// among warps (registers allocated per warp in units of 256), at most 1024.
pub fn max_threads(d: &Driver, regs: u32) -> u32 {
    let per_warp = (regs.max(1) * 32).next_multiple_of(256);
    let warps = d.model.config.regs_per_sm / per_warp;
    (warps * 32).min(1024)
}

/// Value of function attribute `attrib` (`CUfunction_attribute`).
fn function_attribute(d: &Driver, func: Handle, attrib: c_int) -> CuResult<c_int> {
    let (f, m) = d.function(func)?;
    let k = &m.sim.kernels[f.index];
    let sm = d.model.arch.sm() as c_int;
    Ok(match attrib {
        0 => max_threads(d, k.regs) as c_int,
        1 => k.shared_size as c_int,
        2 => m.sim.const_bank3.len() as c_int,
        3 => k.local_size as c_int,
        4 => k.regs as c_int,
        5 | 6 => sm,
        7 => 0,
        8 => f
            .max_dynamic_shared
            .unwrap_or((d.model.shared_per_block() as u32).saturating_sub(k.shared_size)) as c_int,
        9 => f.carveout,
        10..=17 => 0,
        _ => return Err(CUresult::CUDA_ERROR_INVALID_VALUE),
    })
}

/// Sets function attribute `attrib`: the dynamic shared memory limit (up to the opt-in
/// maximum) and the carveout; the cluster attributes only to their neutral values.
fn set_function_attribute(d: &mut Driver, func: Handle, attrib: c_int, value: c_int) -> CuResult<()> {
    let (f, m) = d.function(func)?;
    let static_shared = m.sim.kernels[f.index].shared_size;
    let optin = d.model.config.shared_per_sm;
    let f = d.functions.get_mut(&(func as u64)).expect("checked");
    match attrib {
        8 => {
            if value < 0 || value as u32 + static_shared > optin {
                return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
            }
            f.max_dynamic_shared = Some(value as u32);
        }
        9 => f.carveout = value,
        10..=17 if value == 0 => {}
        _ => return Err(CUresult::CUDA_ERROR_NOT_SUPPORTED),
    }
    Ok(())
}

/// `cuFuncGetAttribute`.
///
/// # Safety
/// `value` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFuncGetAttribute(value: *mut c_int, attrib: c_int, func: Handle) -> CUresult {
    call("cuFuncGetAttribute", || {
        let v = function_attribute(&*driver()?, func, attrib)?;
        unsafe { out(value, v) }
    })
}

/// `cuKernelGetAttribute`.
///
/// # Safety
/// `value` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuKernelGetAttribute(
    value: *mut c_int,
    attrib: c_int,
    kernel: Handle,
    dev: CUdevice,
) -> CUresult {
    call("cuKernelGetAttribute", || {
        super::device::check_device(dev)?;
        let v = function_attribute(&*driver()?, kernel, attrib)?;
        unsafe { out(value, v) }
    })
}

/// `cuFuncSetAttribute`.
#[unsafe(no_mangle)]
pub extern "C" fn cuFuncSetAttribute(func: Handle, attrib: c_int, value: c_int) -> CUresult {
    call("cuFuncSetAttribute", || {
        set_function_attribute(&mut *driver()?, func, attrib, value)
    })
}

/// `cuKernelSetAttribute`.
#[unsafe(no_mangle)]
pub extern "C" fn cuKernelSetAttribute(attrib: c_int, value: c_int, kernel: Handle, dev: CUdevice) -> CUresult {
    call("cuKernelSetAttribute", || {
        super::device::check_device(dev)?;
        set_function_attribute(&mut *driver()?, kernel, attrib, value)
    })
}

/// `cuFuncSetCacheConfig`: accepted (the simulated L1 is fixed).
#[unsafe(no_mangle)]
pub extern "C" fn cuFuncSetCacheConfig(func: Handle, _config: c_uint) -> CUresult {
    call("cuFuncSetCacheConfig", || driver()?.function(func).map(|_| ()))
}

/// `cuKernelSetCacheConfig`: accepted.
#[unsafe(no_mangle)]
pub extern "C" fn cuKernelSetCacheConfig(kernel: Handle, _config: c_uint, dev: CUdevice) -> CUresult {
    call("cuKernelSetCacheConfig", || {
        super::device::check_device(dev)?;
        driver()?.function(kernel).map(|_| ())
    })
}

/// `cuFuncSetSharedMemConfig`: accepted (four-byte banks).
#[unsafe(no_mangle)]
pub extern "C" fn cuFuncSetSharedMemConfig(func: Handle, _config: c_uint) -> CUresult {
    call("cuFuncSetSharedMemConfig", || driver()?.function(func).map(|_| ()))
}

/// Blocks of `threads` threads with `dynamic_shared` bytes that fit on one SM at once:
/// the simulator's occupancy rules (threads, registers in 256-register units per warp,
/// shared memory in 256-byte units, CTAs per SM).
pub fn blocks_per_sm(d: &Driver, func: Handle, threads: u32, dynamic_shared: usize) -> CuResult<u32> {
    let (f, m) = d.function(func)?;
    let k = &m.sim.kernels[f.index];
    let c = &d.model.config;
    if threads == 0 || threads > max_threads(d, k.regs) {
        return Ok(0);
    }
    let warps = threads.div_ceil(32);
    let by_threads = c.threads_per_sm / (warps * 32);
    let by_regs = c.regs_per_sm / (warps * (k.regs.max(1) * 32).next_multiple_of(256));
    let shared = (k.shared_size as usize + dynamic_shared).next_multiple_of(256) as u32;
    let by_shared = c.shared_per_sm.checked_div(shared).unwrap_or(u32::MAX);
    Ok(by_threads.min(by_regs).min(by_shared).min(c.ctas_per_sm))
}

/// `cuOccupancyMaxActiveBlocksPerMultiprocessor`.
///
/// # Safety
/// `blocks` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuOccupancyMaxActiveBlocksPerMultiprocessor(
    blocks: *mut c_int,
    func: Handle,
    threads: c_int,
    shared: usize,
) -> CUresult {
    call("cuOccupancyMaxActiveBlocksPerMultiprocessor", || {
        let n = blocks_per_sm(&*driver()?, func, threads.max(0) as u32, shared)?;
        unsafe { out(blocks, n as c_int) }
    })
}

/// `cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags`.
///
/// # Safety
/// `blocks` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    blocks: *mut c_int,
    func: Handle,
    threads: c_int,
    shared: usize,
    _flags: c_uint,
) -> CUresult {
    unsafe { cuOccupancyMaxActiveBlocksPerMultiprocessor(blocks, func, threads, shared) }
}

/// `cuOccupancyMaxPotentialBlockSize`: the block size (a multiple of 32) with the most
/// resident threads per SM, with a fixed dynamic shared memory size (a size callback is
/// called for each candidate).
///
/// # Safety
/// The outputs are valid for writes; `size_fn` is null or a callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuOccupancyMaxPotentialBlockSize(
    min_grid: *mut c_int,
    block: *mut c_int,
    func: Handle,
    size_fn: Option<extern "C" fn(c_int) -> usize>,
    shared: usize,
    limit: c_int,
) -> CUresult {
    call("cuOccupancyMaxPotentialBlockSize", || {
        let d = driver()?;
        let (f, m) = d.function(func)?;
        let most = max_threads(&d, m.sim.kernels[f.index].regs) as c_int;
        let most = if limit > 0 { most.min(limit) } else { most };
        let mut best = (0u32, 0u32, 0u32);
        for t in (32..=most.max(32)).step_by(32) {
            let sh = size_fn.map_or(shared, |g| g(t));
            let b = blocks_per_sm(&d, func, t as u32, sh)?;
            if b * t as u32 > best.0 {
                best = (b * t as u32, t as u32, b);
            }
        }
        unsafe {
            out(block, best.1 as c_int)?;
            out(min_grid, (best.2 * d.model.config.sms) as c_int)
        }
    })
}

/// `cuOccupancyMaxPotentialBlockSizeWithFlags`.
///
/// # Safety
/// As [`cuOccupancyMaxPotentialBlockSize`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuOccupancyMaxPotentialBlockSizeWithFlags(
    min_grid: *mut c_int,
    block: *mut c_int,
    func: Handle,
    size_fn: Option<extern "C" fn(c_int) -> usize>,
    shared: usize,
    limit: c_int,
    _flags: c_uint,
) -> CUresult {
    unsafe { cuOccupancyMaxPotentialBlockSize(min_grid, block, func, size_fn, shared, limit) }
}

/// `cuOccupancyAvailableDynamicSMemPerBlock`.
///
/// # Safety
/// `bytes` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuOccupancyAvailableDynamicSMemPerBlock(
    bytes: *mut usize,
    func: Handle,
    blocks: c_int,
    _threads: c_int,
) -> CUresult {
    call("cuOccupancyAvailableDynamicSMemPerBlock", || {
        let d = driver()?;
        let (f, m) = d.function(func)?;
        let per_block = d.model.config.shared_per_sm / blocks.max(1) as u32;
        let v = per_block.saturating_sub(m.sim.kernels[f.index].shared_size) / 256 * 256;
        unsafe { out(bytes, v as usize) }
    })
}
