//! `cuGetProcAddress`: entry points by name and CUDA version. A name with versioned variants
//! (`cuMemAlloc` and `cuMemAlloc_v2`) resolves to the newest variant introduced at or before
//! the requested version, as the driver does; the per-thread default stream variants resolve
//! to the same functions (work runs at once, whatever the stream). Names the library does not
//! support resolve to a function that returns `CUDA_ERROR_NOT_SUPPORTED`.

use crate::api::{call, out, text};
use crate::log;
use crate::types::CUresult;
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void};
use std::sync::LazyLock;

/// Versioned variants: the base name, the CUDA version that introduced the variant, and the
/// variant's symbol (versions as in `cuda.h` and the requests of `cuda-bindings` 13.5).
const VARIANTS: &[(&str, u32, &str)] = &[
    ("cuCtxCreate", 3020, "cuCtxCreate_v2"),
    ("cuCtxCreate", 11040, "cuCtxCreate_v3"),
    ("cuCtxCreate", 12050, "cuCtxCreate_v4"),
    ("cuCtxDestroy", 4000, "cuCtxDestroy_v2"),
    ("cuCtxPopCurrent", 4000, "cuCtxPopCurrent_v2"),
    ("cuCtxPushCurrent", 4000, "cuCtxPushCurrent_v2"),
    ("cuCtxGetDevice", 2000, "cuCtxGetDevice"),
    ("cuCtxGetDevice", 13000, "cuCtxGetDevice_v2"),
    ("cuCtxSynchronize", 2000, "cuCtxSynchronize"),
    ("cuCtxSynchronize", 13000, "cuCtxSynchronize_v2"),
    ("cuStreamDestroy", 4000, "cuStreamDestroy_v2"),
    ("cuEventDestroy", 4000, "cuEventDestroy_v2"),
    ("cuEventElapsedTime", 2000, "cuEventElapsedTime"),
    ("cuEventElapsedTime", 12080, "cuEventElapsedTime_v2"),
    ("cuDeviceTotalMem", 3020, "cuDeviceTotalMem_v2"),
    ("cuDeviceGetUuid", 9020, "cuDeviceGetUuid"),
    ("cuDeviceGetUuid", 11040, "cuDeviceGetUuid_v2"),
    ("cuDevicePrimaryCtxRelease", 11000, "cuDevicePrimaryCtxRelease_v2"),
    ("cuDevicePrimaryCtxReset", 11000, "cuDevicePrimaryCtxReset_v2"),
    ("cuDevicePrimaryCtxSetFlags", 11000, "cuDevicePrimaryCtxSetFlags_v2"),
    ("cuModuleGetGlobal", 3020, "cuModuleGetGlobal_v2"),
    ("cuLinkCreate", 6050, "cuLinkCreate_v2"),
    ("cuLinkAddData", 6050, "cuLinkAddData_v2"),
    ("cuLinkAddFile", 6050, "cuLinkAddFile_v2"),
    ("cuMemGetInfo", 3020, "cuMemGetInfo_v2"),
    ("cuMemAlloc", 3020, "cuMemAlloc_v2"),
    ("cuMemAllocPitch", 3020, "cuMemAllocPitch_v2"),
    ("cuMemFree", 3020, "cuMemFree_v2"),
    ("cuMemGetAddressRange", 3020, "cuMemGetAddressRange_v2"),
    ("cuMemAllocHost", 3020, "cuMemAllocHost_v2"),
    ("cuMemHostGetDevicePointer", 3020, "cuMemHostGetDevicePointer_v2"),
    ("cuMemHostRegister", 6050, "cuMemHostRegister_v2"),
    ("cuMemcpyHtoD", 3020, "cuMemcpyHtoD_v2"),
    ("cuMemcpyDtoH", 3020, "cuMemcpyDtoH_v2"),
    ("cuMemcpyDtoD", 3020, "cuMemcpyDtoD_v2"),
    ("cuMemcpyHtoDAsync", 3020, "cuMemcpyHtoDAsync_v2"),
    ("cuMemcpyDtoHAsync", 3020, "cuMemcpyDtoHAsync_v2"),
    ("cuMemcpyDtoDAsync", 3020, "cuMemcpyDtoDAsync_v2"),
    ("cuMemcpy2D", 3020, "cuMemcpy2D_v2"),
    ("cuMemcpy2DUnaligned", 3020, "cuMemcpy2DUnaligned_v2"),
    ("cuMemcpy2DAsync", 3020, "cuMemcpy2DAsync_v2"),
    ("cuMemsetD8", 3020, "cuMemsetD8_v2"),
    ("cuMemsetD16", 3020, "cuMemsetD16_v2"),
    ("cuMemsetD32", 3020, "cuMemsetD32_v2"),
    ("cuMemsetD2D8", 3020, "cuMemsetD2D8_v2"),
    ("cuMemsetD2D16", 3020, "cuMemsetD2D16_v2"),
    ("cuMemsetD2D32", 3020, "cuMemsetD2D32_v2"),
    ("cuGetProcAddress", 11030, "cuGetProcAddress"),
    ("cuGetProcAddress", 12000, "cuGetProcAddress_v2"),
];

/// Every entry point the library exports, by symbol: the implemented ones and the
/// not-supported ones.
static EXPORTS: LazyLock<HashMap<&'static str, usize>> = LazyLock::new(|| {
    let mut m: HashMap<&'static str, usize> = crate::exports::implemented().into_iter().collect();
    m.extend(crate::api::unsupported::entries());
    m
});

/// The symbol of `name` at CUDA version `version`: `Err` with a
/// `CUdriverProcAddressQueryResult` (1 not found, 2 version not sufficient).
pub fn resolve(name: &str, version: u32) -> Result<usize, u32> {
    let base = name
        .strip_suffix("_ptds")
        .or_else(|| name.strip_suffix("_ptsz"))
        .unwrap_or(name);
    let variants: Vec<&(&str, u32, &str)> = VARIANTS.iter().filter(|v| v.0 == base).collect();
    let symbol = if variants.is_empty() {
        base
    } else {
        match variants.iter().filter(|v| v.1 <= version).max_by_key(|v| v.1) {
            Some(v) => v.2,
            None => return Err(2),
        }
    };
    if let Some(&p) = EXPORTS.get(symbol) {
        return Ok(p);
    }
    // A not-supported name known only by its versioned symbols: any of them (they all just
    // return CUDA_ERROR_NOT_SUPPORTED, whatever the signature).
    (2..=4)
        .find_map(|v| {
            let s = format!("{base}_v{v}");
            crate::api::unsupported::entries()
                .iter()
                .find(|(n, _)| *n == s)
                .map(|&(_, p)| p)
        })
        .ok_or(1)
}

/// The address of exported symbol `symbol` (as `dlsym` would find it).
pub fn symbol(symbol: &str) -> Option<usize> {
    EXPORTS.get(symbol).copied()
}

/// Resolves for both `cuGetProcAddress` forms.
///
/// # Safety
/// `name` is a string; `pfn` is valid for a write; `status` is null or valid for a write.
unsafe fn get(name: *const c_char, pfn: *mut *mut c_void, version: c_int, status: *mut c_int) -> CUresult {
    call("cuGetProcAddress", || {
        let name = unsafe { text(name)? };
        let r = resolve(name, version.max(0) as u32);
        if log::level() >= 3 {
            eprintln!(
                "ptxc libcuda: cuGetProcAddress({name}, {version}) -> {}",
                if r.is_ok() { "found" } else { "not found" }
            );
        }
        unsafe {
            if !status.is_null() {
                out(status, r.err().unwrap_or(0) as c_int)?;
            }
            match r {
                Ok(p) => out(pfn, p as *mut c_void),
                Err(_) => {
                    out(pfn, std::ptr::null_mut())?;
                    Err(CUresult::CUDA_ERROR_NOT_FOUND)
                }
            }
        }
    })
}

/// `cuGetProcAddress` (CUDA 11.3).
///
/// # Safety
/// `name` is a string; `pfn` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGetProcAddress(
    name: *const c_char,
    pfn: *mut *mut c_void,
    version: c_int,
    _flags: u64,
) -> CUresult {
    unsafe { get(name, pfn, version, std::ptr::null_mut()) }
}

/// `cuGetProcAddress_v2` (CUDA 12.0): with the query result.
///
/// # Safety
/// `name` is a string; `pfn` is valid for a write; `status` is null or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGetProcAddress_v2(
    name: *const c_char,
    pfn: *mut *mut c_void,
    version: c_int,
    _flags: u64,
    status: *mut c_int,
) -> CUresult {
    unsafe { get(name, pfn, version, status) }
}
