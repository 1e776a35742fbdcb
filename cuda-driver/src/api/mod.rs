//! The driver API's entry points (`extern "C"`, the names and signatures of `cuda.h`),
//! grouped as the CUDA documentation groups them, and the helpers they share.

pub mod context;
pub mod device;
pub mod init;
pub mod launch;
pub mod memory;
pub mod module;
pub mod output;
pub mod pointer;
pub mod stream;
pub mod unsupported;

use crate::state::CuResult;
use crate::types::CUresult;
use std::ffi::{CStr, c_char};
use std::panic::AssertUnwindSafe;

/// Runs the body of entry point `name`: its error becomes the result code, and a panic
/// (a bug in the library) becomes `CUDA_ERROR_UNKNOWN` with a message instead of unwinding
/// into C.
pub fn call(name: &str, body: impl FnOnce() -> CuResult<()>) -> CUresult {
    match std::panic::catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => CUresult::CUDA_SUCCESS,
        Ok(Err(e)) => e,
        Err(p) => {
            let what = p
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| p.downcast_ref::<&str>().copied())
                .unwrap_or("panic");
            eprintln!("ptxc libcuda: internal error in {name}: {what}");
            CUresult::CUDA_ERROR_UNKNOWN
        }
    }
}

/// Stores `value` through the output pointer `p` (`CUDA_ERROR_INVALID_VALUE` if null).
///
/// # Safety
/// `p` is null or valid for a write of `T`.
pub unsafe fn out<T>(p: *mut T, value: T) -> CuResult<()> {
    if p.is_null() {
        return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
    }
    // SAFETY: non-null, and valid by the caller's contract.
    unsafe { p.write_unaligned(value) };
    Ok(())
}

/// The NUL-terminated string at `p` (`CUDA_ERROR_INVALID_VALUE` if null or not UTF-8).
///
/// # Safety
/// `p` is null or a NUL-terminated string.
pub unsafe fn text<'a>(p: *const c_char) -> CuResult<&'a str> {
    if p.is_null() {
        return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
    }
    // SAFETY: by the caller's contract.
    unsafe { CStr::from_ptr(p) }
        .to_str()
        .map_err(|_| CUresult::CUDA_ERROR_INVALID_VALUE)
}

/// Copies `s` with a terminating NUL into the `len`-byte buffer `buf`, truncating.
///
/// # Safety
/// `buf` is valid for `len` bytes.
pub unsafe fn write_c_string(buf: *mut c_char, len: usize, s: &str) -> CuResult<()> {
    if buf.is_null() || len == 0 {
        return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
    }
    let n = s.len().min(len - 1);
    // SAFETY: n + 1 <= len bytes of buf.
    unsafe {
        std::ptr::copy_nonoverlapping(s.as_ptr(), buf.cast(), n);
        *buf.add(n) = 0;
    }
    Ok(())
}
