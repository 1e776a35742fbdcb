//! Initialisation, version and error strings: `cuInit`, `cuDriverGetVersion`,
//! `cuGetErrorName`, `cuGetErrorString`.

use super::{call, out};
use crate::state;
use crate::types::CUresult;
use std::ffi::{c_char, c_int, c_uint};

/// The CUDA version the library reports: 13.5, the release whose PTX ISA (9.5) ptxc's front
/// end reads and whose ptxas ptxc's ptxas mode stands in for.
pub const DRIVER_VERSION: c_int = 13050;

/// `cuInit`: creates the simulated device.
#[unsafe(no_mangle)]
pub extern "C" fn cuInit(flags: c_uint) -> CUresult {
    call("cuInit", || {
        if flags != 0 {
            return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
        }
        state::init();
        Ok(())
    })
}

/// `cuDriverGetVersion`.
///
/// # Safety
/// `version` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDriverGetVersion(version: *mut c_int) -> CUresult {
    call("cuDriverGetVersion", || unsafe { out(version, DRIVER_VERSION) })
}

/// `cuGetErrorName`.
///
/// # Safety
/// `name` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGetErrorName(error: CUresult, name: *mut *const c_char) -> CUresult {
    call("cuGetErrorName", || {
        let s = error.name().ok_or(CUresult::CUDA_ERROR_INVALID_VALUE)?;
        unsafe { out(name, s.as_ptr().cast()) }
    })
}

/// `cuGetErrorString`.
///
/// # Safety
/// `text` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGetErrorString(error: CUresult, text: *mut *const c_char) -> CUresult {
    call("cuGetErrorString", || {
        let s = error.description().ok_or(CUresult::CUDA_ERROR_INVALID_VALUE)?;
        unsafe { out(text, s.as_ptr().cast()) }
    })
}

/// `cuProfilerStart`: there is no profiler to start; succeeds (statistics of every launch
/// are printed at `PTXC_CUDA_LOG=2`).
#[unsafe(no_mangle)]
pub extern "C" fn cuProfilerStart() -> CUresult {
    call("cuProfilerStart", || state::driver().map(|_| ()))
}

/// `cuProfilerStop`: succeeds.
#[unsafe(no_mangle)]
pub extern "C" fn cuProfilerStop() -> CUresult {
    call("cuProfilerStop", || state::driver().map(|_| ()))
}
