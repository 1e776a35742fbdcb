//! Streams and events. Work runs as it is issued, so every stream is complete when a call
//! returns: synchronisation only reports an earlier kernel fault, waits have nothing to
//! wait for, and callbacks run at once (outside the driver's lock). Events record the
//! device's simulated clock, which advances by each kernel's simulated cycles, so
//! `cuEventElapsedTime` measures simulated kernel time (copies take none).

use super::{call, out};
use crate::state::{CuResult, Driver, Event, Stream, driver};
use crate::types::{CUdevice, CUresult, Handle};
use std::ffi::{c_float, c_int, c_uint, c_void};

/// `CU_EVENT_DISABLE_TIMING`.
const DISABLE_TIMING: u32 = 2;

/// The context of stream `s` (the current context for the default streams).
fn stream_context(d: &Driver, s: Handle) -> CuResult<u64> {
    if (s as u64) <= 2 {
        return d.current();
    }
    d.streams
        .get(&(s as u64))
        .map(|st| st.ctx)
        .ok_or(CUresult::CUDA_ERROR_INVALID_HANDLE)
}

/// `cuStreamCreateWithPriority`.
///
/// # Safety
/// `ph` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamCreateWithPriority(ph: *mut Handle, flags: c_uint, priority: c_int) -> CUresult {
    call("cuStreamCreate", || {
        let mut d = driver()?;
        let ctx = d.current()?;
        let h = d.handle();
        d.streams.insert(h, Stream { ctx, flags, priority });
        unsafe { out(ph, h as Handle) }
    })
}

/// `cuStreamCreate`.
///
/// # Safety
/// `ph` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamCreate(ph: *mut Handle, flags: c_uint) -> CUresult {
    unsafe { cuStreamCreateWithPriority(ph, flags, 0) }
}

/// `cuStreamDestroy_v2`.
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamDestroy_v2(s: Handle) -> CUresult {
    call("cuStreamDestroy", || {
        driver()?
            .streams
            .remove(&(s as u64))
            .map(|_| ())
            .ok_or(CUresult::CUDA_ERROR_INVALID_HANDLE)
    })
}

/// `cuStreamSynchronize`.
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamSynchronize(s: Handle) -> CUresult {
    call("cuStreamSynchronize", || {
        let mut d = driver()?;
        stream_context(&d, s)?;
        d.flush_device_output();
        d.check_sticky()
    })
}

/// `cuStreamQuery`: always complete.
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamQuery(s: Handle) -> CUresult {
    cuStreamSynchronize(s)
}

/// `cuStreamWaitEvent`: the event's work has run.
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamWaitEvent(s: Handle, event: Handle, _flags: c_uint) -> CUresult {
    call("cuStreamWaitEvent", || {
        let d = driver()?;
        stream_context(&d, s)?;
        if !d.events.contains_key(&(event as u64)) {
            return Err(CUresult::CUDA_ERROR_INVALID_HANDLE);
        }
        Ok(())
    })
}

/// A stream callback (`CUstreamCallback`).
type StreamCallback = extern "C" fn(Handle, CUresult, *mut c_void);

/// `cuStreamAddCallback`: calls back at once with the stream's status.
///
/// # Safety
/// `callback` is callable with `data`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamAddCallback(
    s: Handle,
    callback: Option<StreamCallback>,
    data: *mut c_void,
    flags: c_uint,
) -> CUresult {
    let status = call("cuStreamAddCallback", || {
        let d = driver()?;
        stream_context(&d, s)?;
        if flags != 0 || callback.is_none() {
            return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
        }
        Ok(())
    });
    if status != CUresult::CUDA_SUCCESS {
        return status;
    }
    let sticky = driver()
        .map(|d| d.sticky)
        .ok()
        .flatten()
        .unwrap_or(CUresult::CUDA_SUCCESS);
    if let Some(f) = callback {
        f(s, sticky, data);
    }
    CUresult::CUDA_SUCCESS
}

/// `cuLaunchHostFunc`: runs the function at once.
///
/// # Safety
/// `func` is callable with `data`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLaunchHostFunc(
    s: Handle,
    func: Option<extern "C" fn(*mut c_void)>,
    data: *mut c_void,
) -> CUresult {
    let status = call("cuLaunchHostFunc", || {
        let d = driver()?;
        stream_context(&d, s)?;
        d.check_sticky()?;
        func.map(|_| ()).ok_or(CUresult::CUDA_ERROR_INVALID_VALUE)
    });
    if status == CUresult::CUDA_SUCCESS
        && let Some(f) = func
    {
        f(data);
    }
    status
}

/// `cuStreamGetFlags`.
///
/// # Safety
/// `flags` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamGetFlags(s: Handle, flags: *mut c_uint) -> CUresult {
    call("cuStreamGetFlags", || {
        let d = driver()?;
        stream_context(&d, s)?;
        let f = d.streams.get(&(s as u64)).map_or(0, |st| st.flags);
        unsafe { out(flags, f) }
    })
}

/// `cuStreamGetPriority`.
///
/// # Safety
/// `priority` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamGetPriority(s: Handle, priority: *mut c_int) -> CUresult {
    call("cuStreamGetPriority", || {
        let d = driver()?;
        stream_context(&d, s)?;
        let p = d.streams.get(&(s as u64)).map_or(0, |st| st.priority);
        unsafe { out(priority, p) }
    })
}

/// `cuStreamGetCtx`.
///
/// # Safety
/// `ctx` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamGetCtx(s: Handle, ctx: *mut Handle) -> CUresult {
    call("cuStreamGetCtx", || {
        let c = stream_context(&*driver()?, s)?;
        unsafe { out(ctx, c as Handle) }
    })
}

/// `cuStreamGetCtx_v2`: no green contexts.
///
/// # Safety
/// `ctx` is valid for a write; `green` is null or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamGetCtx_v2(s: Handle, ctx: *mut Handle, green: *mut Handle) -> CUresult {
    call("cuStreamGetCtx_v2", || {
        let c = stream_context(&*driver()?, s)?;
        unsafe {
            if !green.is_null() {
                out(green, std::ptr::null_mut())?;
            }
            out(ctx, c as Handle)
        }
    })
}

/// `cuStreamGetId`: the handle's value (the default streams are 0, 1 and 2).
///
/// # Safety
/// `id` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamGetId(s: Handle, id: *mut u64) -> CUresult {
    call("cuStreamGetId", || {
        stream_context(&*driver()?, s)?;
        unsafe { out(id, s as u64) }
    })
}

/// `cuStreamGetDevice`.
///
/// # Safety
/// `dev` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamGetDevice(s: Handle, dev: *mut CUdevice) -> CUresult {
    call("cuStreamGetDevice", || {
        stream_context(&*driver()?, s)?;
        unsafe { out(dev, 0) }
    })
}

/// `cuStreamIsCapturing`: streams never capture.
///
/// # Safety
/// `status` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamIsCapturing(s: Handle, status: *mut c_uint) -> CUresult {
    call("cuStreamIsCapturing", || {
        stream_context(&*driver()?, s)?;
        unsafe { out(status, 0) }
    })
}

/// `cuEventCreate`.
///
/// # Safety
/// `ph` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventCreate(ph: *mut Handle, flags: c_uint) -> CUresult {
    call("cuEventCreate", || {
        let mut d = driver()?;
        let ctx = d.current()?;
        let h = d.handle();
        d.events.insert(
            h,
            Event {
                ctx,
                flags,
                recorded: None,
            },
        );
        unsafe { out(ph, h as Handle) }
    })
}

/// `cuEventRecord`: the device's simulated time now.
#[unsafe(no_mangle)]
pub extern "C" fn cuEventRecord(event: Handle, s: Handle) -> CUresult {
    call("cuEventRecord", || {
        let mut d = driver()?;
        stream_context(&d, s)?;
        let now = d.clock_ns;
        let e = d
            .events
            .get_mut(&(event as u64))
            .ok_or(CUresult::CUDA_ERROR_INVALID_HANDLE)?;
        e.recorded = Some(now);
        Ok(())
    })
}

/// `cuEventRecordWithFlags`.
#[unsafe(no_mangle)]
pub extern "C" fn cuEventRecordWithFlags(event: Handle, s: Handle, _flags: c_uint) -> CUresult {
    cuEventRecord(event, s)
}

/// `cuEventQuery`: complete.
#[unsafe(no_mangle)]
pub extern "C" fn cuEventQuery(event: Handle) -> CUresult {
    call("cuEventQuery", || {
        let d = driver()?;
        if !d.events.contains_key(&(event as u64)) {
            return Err(CUresult::CUDA_ERROR_INVALID_HANDLE);
        }
        d.check_sticky()
    })
}

/// `cuEventSynchronize`: as `cuEventQuery`, and flushes kernel printf output.
#[unsafe(no_mangle)]
pub extern "C" fn cuEventSynchronize(event: Handle) -> CUresult {
    call("cuEventSynchronize", || {
        let mut d = driver()?;
        if !d.events.contains_key(&(event as u64)) {
            return Err(CUresult::CUDA_ERROR_INVALID_HANDLE);
        }
        d.flush_device_output();
        d.check_sticky()
    })
}

/// `cuEventDestroy_v2`.
#[unsafe(no_mangle)]
pub extern "C" fn cuEventDestroy_v2(event: Handle) -> CUresult {
    call("cuEventDestroy", || {
        driver()?
            .events
            .remove(&(event as u64))
            .map(|_| ())
            .ok_or(CUresult::CUDA_ERROR_INVALID_HANDLE)
    })
}

/// `cuEventElapsedTime`: simulated milliseconds between two recorded events.
///
/// # Safety
/// `ms` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventElapsedTime(ms: *mut c_float, start: Handle, end: Handle) -> CUresult {
    call("cuEventElapsedTime", || {
        let d = driver()?;
        let time = |e: Handle| -> CuResult<f64> {
            let ev = d.events.get(&(e as u64)).ok_or(CUresult::CUDA_ERROR_INVALID_HANDLE)?;
            if ev.flags & DISABLE_TIMING != 0 {
                return Err(CUresult::CUDA_ERROR_INVALID_HANDLE);
            }
            ev.recorded.ok_or(CUresult::CUDA_ERROR_INVALID_HANDLE)
        };
        let t = (time(end)? - time(start)?) / 1e6;
        unsafe { out(ms, t as c_float) }
    })
}

/// `cuEventElapsedTime_v2`.
///
/// # Safety
/// `ms` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventElapsedTime_v2(ms: *mut c_float, start: Handle, end: Handle) -> CUresult {
    unsafe { cuEventElapsedTime(ms, start, end) }
}
