//! Context management: primary and explicit contexts, each thread's context stack, limits
//! and configuration queries. All contexts share the device's memory, as on a GPU.

use super::device::check_device;
use super::{call, out};
use crate::state::{Context, CuResult, Driver, current_handle, driver, with_stack};
use crate::types::{CUdevice, CUresult, Handle};
use std::collections::HashMap;
use std::ffi::{c_int, c_uint, c_void};

/// Creates a context with `flags` and returns its handle.
fn create(d: &mut Driver, flags: u32, primary: bool) -> u64 {
    let h = d.handle();
    d.contexts.insert(
        h,
        Context {
            flags,
            primary,
            limits: HashMap::from([(0, 1024), (1, 1 << 20), (2, 8 << 20)]),
        },
    );
    h
}

/// Creates a context, makes it current (pushes it) and stores its handle.
fn create_current(pctx: *mut Handle, flags: c_uint, dev: CUdevice) -> CuResult<()> {
    let mut d = driver()?;
    check_device(dev)?;
    let h = create(&mut d, flags, false);
    with_stack(|s| s.push(h));
    unsafe { out(pctx, h as Handle) }
}

/// `cuCtxCreate_v2`.
///
/// # Safety
/// `pctx` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxCreate_v2(pctx: *mut Handle, flags: c_uint, dev: CUdevice) -> CUresult {
    call("cuCtxCreate", || create_current(pctx, flags, dev))
}

/// `cuCtxCreate_v3` (execution affinity parameters are accepted only when empty).
///
/// # Safety
/// `pctx` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxCreate_v3(
    pctx: *mut Handle,
    _params: *mut c_void,
    num_params: c_int,
    flags: c_uint,
    dev: CUdevice,
) -> CUresult {
    call("cuCtxCreate_v3", || {
        if num_params != 0 {
            return Err(CUresult::CUDA_ERROR_NOT_SUPPORTED);
        }
        create_current(pctx, flags, dev)
    })
}

/// `cuCtxCreate_v4` (creation parameters are accepted only when absent).
///
/// # Safety
/// `pctx` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxCreate_v4(
    pctx: *mut Handle,
    params: *mut c_void,
    flags: c_uint,
    dev: CUdevice,
) -> CUresult {
    call("cuCtxCreate_v4", || {
        if !params.is_null() {
            // CUctxCreateParams: execAffinityParams, numExecAffinityParams, cigParams.
            // SAFETY: the caller passes a CUctxCreateParams.
            let words = unsafe { std::slice::from_raw_parts(params.cast::<usize>(), 3) };
            if words.iter().any(|&w| w != 0) {
                return Err(CUresult::CUDA_ERROR_NOT_SUPPORTED);
            }
        }
        create_current(pctx, flags, dev)
    })
}

/// `cuCtxDestroy_v2`: frees everything the context owns.
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxDestroy_v2(ctx: Handle) -> CUresult {
    call("cuCtxDestroy", || {
        let mut d = driver()?;
        let h = ctx as u64;
        let c = d.contexts.get(&h).ok_or(CUresult::CUDA_ERROR_INVALID_CONTEXT)?;
        if c.primary {
            return Err(CUresult::CUDA_ERROR_INVALID_CONTEXT);
        }
        d.flush_device_output();
        d.release_context(h);
        d.contexts.remove(&h);
        with_stack(|s| s.retain(|&c| c != h));
        Ok(())
    })
}

/// `cuCtxPushCurrent_v2`.
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxPushCurrent_v2(ctx: Handle) -> CUresult {
    call("cuCtxPushCurrent", || {
        let d = driver()?;
        if !d.contexts.contains_key(&(ctx as u64)) {
            return Err(CUresult::CUDA_ERROR_INVALID_CONTEXT);
        }
        with_stack(|s| s.push(ctx as u64));
        Ok(())
    })
}

/// `cuCtxPopCurrent_v2`.
///
/// # Safety
/// `pctx` is null or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxPopCurrent_v2(pctx: *mut Handle) -> CUresult {
    call("cuCtxPopCurrent", || {
        driver()?;
        let h = with_stack(|s| s.pop()).ok_or(CUresult::CUDA_ERROR_INVALID_CONTEXT)?;
        if !pctx.is_null() {
            unsafe { out(pctx, h as Handle)? };
        }
        Ok(())
    })
}

/// `cuCtxSetCurrent`: replaces the top of the stack (pops it for null).
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxSetCurrent(ctx: Handle) -> CUresult {
    call("cuCtxSetCurrent", || {
        let d = driver()?;
        let h = ctx as u64;
        if h != 0 && !d.contexts.contains_key(&h) {
            return Err(CUresult::CUDA_ERROR_INVALID_CONTEXT);
        }
        with_stack(|s| {
            s.pop();
            if h != 0 {
                s.push(h);
            }
        });
        Ok(())
    })
}

/// `cuCtxGetCurrent`: null when the thread has no context.
///
/// # Safety
/// `pctx` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetCurrent(pctx: *mut Handle) -> CUresult {
    call("cuCtxGetCurrent", || {
        driver()?;
        unsafe { out(pctx, current_handle().unwrap_or(0) as Handle) }
    })
}

/// `cuCtxGetDevice`.
///
/// # Safety
/// `dev` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetDevice(dev: *mut CUdevice) -> CUresult {
    call("cuCtxGetDevice", || {
        driver()?.current()?;
        unsafe { out(dev, 0) }
    })
}

/// The context `ctx`, or the current one for null.
fn context_or_current(d: &Driver, ctx: Handle) -> CuResult<u64> {
    if ctx.is_null() {
        d.current()
    } else if d.contexts.contains_key(&(ctx as u64)) {
        Ok(ctx as u64)
    } else {
        Err(CUresult::CUDA_ERROR_INVALID_CONTEXT)
    }
}

/// `cuCtxGetDevice_v2` (CUDA 13): the device of `ctx`, or of the current context.
///
/// # Safety
/// `dev` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetDevice_v2(dev: *mut CUdevice, ctx: Handle) -> CUresult {
    call("cuCtxGetDevice_v2", || {
        context_or_current(&*driver()?, ctx)?;
        unsafe { out(dev, 0) }
    })
}

/// `cuCtxSynchronize`: work has already run; reports an earlier kernel fault.
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxSynchronize() -> CUresult {
    call("cuCtxSynchronize", || {
        let mut d = driver()?;
        d.current()?;
        d.flush_device_output();
        d.check_sticky()
    })
}

/// `cuCtxSynchronize_v2` (CUDA 13).
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxSynchronize_v2(ctx: Handle) -> CUresult {
    call("cuCtxSynchronize_v2", || {
        let mut d = driver()?;
        context_or_current(&d, ctx)?;
        d.flush_device_output();
        d.check_sticky()
    })
}

/// `cuCtxGetFlags`.
///
/// # Safety
/// `flags` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetFlags(flags: *mut c_uint) -> CUresult {
    call("cuCtxGetFlags", || {
        let d = driver()?;
        let c = d.current()?;
        unsafe { out(flags, d.contexts[&c].flags) }
    })
}

/// `cuCtxSetFlags`.
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxSetFlags(flags: c_uint) -> CUresult {
    call("cuCtxSetFlags", || {
        let mut d = driver()?;
        let c = d.current()?;
        d.contexts.get_mut(&c).expect("current exists").flags = flags;
        Ok(())
    })
}

/// `cuCtxGetId`: the handle's value.
///
/// # Safety
/// `id` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetId(ctx: Handle, id: *mut u64) -> CUresult {
    call("cuCtxGetId", || {
        let c = context_or_current(&*driver()?, ctx)?;
        unsafe { out(id, c) }
    })
}

/// `cuCtxGetApiVersion`.
///
/// # Safety
/// `version` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetApiVersion(ctx: Handle, version: *mut c_uint) -> CUresult {
    call("cuCtxGetApiVersion", || {
        context_or_current(&*driver()?, ctx)?;
        unsafe { out(version, 3020) }
    })
}

/// `cuCtxSetLimit`: stack size, printf FIFO and malloc heap sizes are stored (the simulator
/// gives every thread [`ptxc_sim::module::STACK_BYTES`] of stack regardless).
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxSetLimit(limit: c_uint, value: usize) -> CUresult {
    call("cuCtxSetLimit", || {
        let mut d = driver()?;
        let c = d.current()?;
        if limit > 6 {
            return Err(CUresult::CUDA_ERROR_UNSUPPORTED_LIMIT);
        }
        d.contexts
            .get_mut(&c)
            .expect("current exists")
            .limits
            .insert(limit, value);
        Ok(())
    })
}

/// `cuCtxGetLimit`.
///
/// # Safety
/// `value` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetLimit(value: *mut usize, limit: c_uint) -> CUresult {
    call("cuCtxGetLimit", || {
        let d = driver()?;
        let c = d.current()?;
        if limit > 6 {
            return Err(CUresult::CUDA_ERROR_UNSUPPORTED_LIMIT);
        }
        let v = d.contexts[&c].limits.get(&limit).copied().unwrap_or(0);
        unsafe { out(value, v) }
    })
}

/// `cuCtxGetCacheConfig`: no preference.
///
/// # Safety
/// `config` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetCacheConfig(config: *mut c_uint) -> CUresult {
    call("cuCtxGetCacheConfig", || {
        driver()?.current()?;
        unsafe { out(config, 0) }
    })
}

/// `cuCtxSetCacheConfig`: accepted; the simulated L1 is fixed.
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxSetCacheConfig(_config: c_uint) -> CUresult {
    call("cuCtxSetCacheConfig", || driver()?.current().map(|_| ()))
}

/// `cuCtxGetSharedMemConfig`: four-byte banks.
///
/// # Safety
/// `config` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetSharedMemConfig(config: *mut c_uint) -> CUresult {
    call("cuCtxGetSharedMemConfig", || {
        driver()?.current()?;
        unsafe { out(config, 1) }
    })
}

/// `cuCtxSetSharedMemConfig`: accepted; banks are four bytes wide.
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxSetSharedMemConfig(_config: c_uint) -> CUresult {
    call("cuCtxSetSharedMemConfig", || driver()?.current().map(|_| ()))
}

/// `cuCtxGetStreamPriorityRange`: one priority (0), as a device without stream priorities.
///
/// # Safety
/// Each pointer is null or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetStreamPriorityRange(least: *mut c_int, greatest: *mut c_int) -> CUresult {
    call("cuCtxGetStreamPriorityRange", || {
        driver()?.current()?;
        unsafe {
            if !least.is_null() {
                out(least, 0)?;
            }
            if !greatest.is_null() {
                out(greatest, 0)?;
            }
        }
        Ok(())
    })
}

/// `cuCtxResetPersistingL2Cache`: nothing persists in the simulated L2.
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxResetPersistingL2Cache() -> CUresult {
    call("cuCtxResetPersistingL2Cache", || driver()?.current().map(|_| ()))
}

/// `cuDevicePrimaryCtxRetain`: creates the primary context on first use.
///
/// # Safety
/// `pctx` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDevicePrimaryCtxRetain(pctx: *mut Handle, dev: CUdevice) -> CUresult {
    call("cuDevicePrimaryCtxRetain", || {
        let mut d = driver()?;
        check_device(dev)?;
        let h = match d.primary {
            Some((h, n)) => {
                d.primary = Some((h, n + 1));
                h
            }
            None => {
                let flags = d.primary_flags;
                let h = create(&mut d, flags, true);
                d.primary = Some((h, 1));
                h
            }
        };
        unsafe { out(pctx, h as Handle) }
    })
}

/// `cuDevicePrimaryCtxRelease_v2`: the context lives on after its last release (as the
/// driver keeps it until reset), so handles held elsewhere stay valid.
#[unsafe(no_mangle)]
pub extern "C" fn cuDevicePrimaryCtxRelease_v2(dev: CUdevice) -> CUresult {
    call("cuDevicePrimaryCtxRelease", || {
        let mut d = driver()?;
        check_device(dev)?;
        match d.primary {
            Some((h, n)) if n > 0 => {
                d.primary = Some((h, n - 1));
                Ok(())
            }
            _ => Err(CUresult::CUDA_ERROR_INVALID_CONTEXT),
        }
    })
}

/// `cuDevicePrimaryCtxReset_v2`: frees everything the primary context owns.
#[unsafe(no_mangle)]
pub extern "C" fn cuDevicePrimaryCtxReset_v2(dev: CUdevice) -> CUresult {
    call("cuDevicePrimaryCtxReset", || {
        let mut d = driver()?;
        check_device(dev)?;
        if let Some((h, _)) = d.primary.take() {
            d.release_context(h);
            d.contexts.remove(&h);
            with_stack(|s| s.retain(|&c| c != h));
        }
        Ok(())
    })
}

/// `cuDevicePrimaryCtxGetState`.
///
/// # Safety
/// `flags` and `active` are valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDevicePrimaryCtxGetState(dev: CUdevice, flags: *mut c_uint, active: *mut c_int) -> CUresult {
    call("cuDevicePrimaryCtxGetState", || {
        let d = driver()?;
        check_device(dev)?;
        let on = d.primary.is_some_and(|(_, n)| n > 0);
        unsafe {
            out(flags, d.primary_flags)?;
            out(active, on as c_int)
        }
    })
}

/// `cuDevicePrimaryCtxSetFlags_v2`.
#[unsafe(no_mangle)]
pub extern "C" fn cuDevicePrimaryCtxSetFlags_v2(dev: CUdevice, flags: c_uint) -> CUresult {
    call("cuDevicePrimaryCtxSetFlags", || {
        let mut d = driver()?;
        check_device(dev)?;
        d.primary_flags = flags;
        if let Some((h, _)) = d.primary
            && let Some(c) = d.contexts.get_mut(&h)
        {
            c.flags = flags;
        }
        Ok(())
    })
}
