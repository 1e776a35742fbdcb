//! Memory management: device allocations (in the simulator's global memory, which persists
//! across launches), page-locked host memory (ordinary host memory to the library), and
//! copies and fills in every direction, synchronous and stream-ordered (which run at once).

use super::{call, out};
use crate::log;
use crate::state::{CuResult, Driver, HostRange, driver};
use crate::types::{CUdeviceptr, CUresult, CudaMemcpy2D, Handle, memory_type};
use std::alloc::Layout;
use std::ffi::{c_uint, c_void};

/// Alignment of host allocations.
const HOST_ALIGN: usize = 4096;

/// Allocates `size` zeroed, page-aligned host bytes.
fn alloc_host_block(size: usize) -> CuResult<*mut u8> {
    let layout = Layout::from_size_align(size.max(1), HOST_ALIGN).map_err(|_| CUresult::CUDA_ERROR_INVALID_VALUE)?;
    // SAFETY: the layout has a non-zero size.
    let p = unsafe { std::alloc::alloc_zeroed(layout) };
    if p.is_null() {
        Err(CUresult::CUDA_ERROR_OUT_OF_MEMORY)
    } else {
        Ok(p)
    }
}

/// Frees a block of [`alloc_host_block`].
pub fn free_host_block(addr: u64, size: usize) {
    let layout = Layout::from_size_align(size.max(1), HOST_ALIGN).expect("valid when allocated");
    // SAFETY: allocated by alloc_host_block with this layout.
    unsafe { std::alloc::dealloc(addr as *mut u8, layout) };
}

/// Allocates `size` device bytes in the current context.
fn alloc(d: &mut Driver, size: usize) -> CuResult<u64> {
    let ctx = d.current()?;
    if size == 0 {
        return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
    }
    if (d.device.allocated() + size) as u64 > d.model.total_memory {
        return Err(CUresult::CUDA_ERROR_OUT_OF_MEMORY);
    }
    let a = d.device.alloc(size);
    d.allocations.insert(a, ctx);
    Ok(a)
}

/// `cuMemAlloc_v2`.
///
/// # Safety
/// `dptr` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemAlloc_v2(dptr: *mut CUdeviceptr, size: usize) -> CUresult {
    call("cuMemAlloc", || {
        let a = alloc(&mut *driver()?, size)?;
        unsafe { out(dptr, a) }
    })
}

/// `cuMemAllocPitch_v2`: rows padded to 512 bytes.
///
/// # Safety
/// `dptr` and `pitch` are valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemAllocPitch_v2(
    dptr: *mut CUdeviceptr,
    pitch: *mut usize,
    width: usize,
    height: usize,
    elem: c_uint,
) -> CUresult {
    call("cuMemAllocPitch", || {
        if !matches!(elem, 4 | 8 | 16) {
            return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
        }
        let p = width.next_multiple_of(512);
        let a = alloc(&mut *driver()?, p * height)?;
        unsafe {
            out(pitch, p)?;
            out(dptr, a)
        }
    })
}

/// `cuMemAllocAsync`: allocates at once.
///
/// # Safety
/// `dptr` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemAllocAsync(dptr: *mut CUdeviceptr, size: usize, stream: Handle) -> CUresult {
    call("cuMemAllocAsync", || {
        let mut d = driver()?;
        d.check_stream(stream)?;
        let a = alloc(&mut d, size)?;
        unsafe { out(dptr, a) }
    })
}

/// Frees device allocation `a`.
fn free(d: &mut Driver, a: CUdeviceptr) -> CuResult<()> {
    if a == 0 {
        return Ok(());
    }
    if d.allocations.remove(&a).is_none() {
        return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
    }
    d.device
        .free(a)
        .map(|_| ())
        .map_err(|_| CUresult::CUDA_ERROR_INVALID_VALUE)
}

/// `cuMemFree_v2`.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemFree_v2(dptr: CUdeviceptr) -> CUresult {
    call("cuMemFree", || free(&mut *driver()?, dptr))
}

/// `cuMemFreeAsync`: frees at once.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemFreeAsync(dptr: CUdeviceptr, stream: Handle) -> CUresult {
    call("cuMemFreeAsync", || {
        let mut d = driver()?;
        d.check_stream(stream)?;
        free(&mut d, dptr)
    })
}

/// `cuMemGetInfo_v2`.
///
/// # Safety
/// `free_bytes` and `total` are valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemGetInfo_v2(free_bytes: *mut usize, total: *mut usize) -> CUresult {
    call("cuMemGetInfo", || {
        let d = driver()?;
        d.current()?;
        let t = d.model.total_memory as usize;
        unsafe {
            out(free_bytes, t.saturating_sub(d.device.allocated()))?;
            out(total, t)
        }
    })
}

/// Records a host allocation of the library.
fn host_alloc(size: usize, flags: c_uint) -> CuResult<*mut u8> {
    let mut d = driver()?;
    let ctx = d.current()?;
    let p = alloc_host_block(size)?;
    d.host.insert(
        p as u64,
        HostRange {
            size,
            flags,
            owned: true,
            ctx,
        },
    );
    Ok(p)
}

/// `cuMemAllocHost_v2`.
///
/// # Safety
/// `pp` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemAllocHost_v2(pp: *mut *mut c_void, size: usize) -> CUresult {
    call("cuMemAllocHost", || {
        let p = host_alloc(size, 0)?;
        unsafe { out(pp, p.cast()) }
    })
}

/// `cuMemHostAlloc`: `CU_MEMHOSTALLOC_DEVICEMAP` (kernels reading host memory) is not
/// supported: the simulator's memory is its own.
///
/// # Safety
/// `pp` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemHostAlloc(pp: *mut *mut c_void, size: usize, flags: c_uint) -> CUresult {
    call("cuMemHostAlloc", || {
        const DEVICEMAP: c_uint = 2;
        if flags & DEVICEMAP != 0 {
            log::warn("cuMemHostAlloc: mapped host memory (CU_MEMHOSTALLOC_DEVICEMAP) is not supported");
            return Err(CUresult::CUDA_ERROR_NOT_SUPPORTED);
        }
        let p = host_alloc(size, flags)?;
        unsafe { out(pp, p.cast()) }
    })
}

/// `cuMemFreeHost`.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemFreeHost(p: *mut c_void) -> CUresult {
    call("cuMemFreeHost", || {
        let mut d = driver()?;
        match d.host.get(&(p as u64)) {
            Some(h) if h.owned => {
                let h = d.host.remove(&(p as u64)).expect("present");
                free_host_block(p as u64, h.size);
                Ok(())
            }
            _ => Err(CUresult::CUDA_ERROR_INVALID_VALUE),
        }
    })
}

/// `cuMemHostGetFlags`.
///
/// # Safety
/// `flags` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemHostGetFlags(flags: *mut c_uint, p: *mut c_void) -> CUresult {
    call("cuMemHostGetFlags", || {
        let d = driver()?;
        let f = host_range(&d, p as u64)
            .ok_or(CUresult::CUDA_ERROR_INVALID_VALUE)?
            .1
            .flags;
        unsafe { out(flags, f) }
    })
}

/// The host allocation or registration holding `addr`.
pub fn host_range(d: &Driver, addr: u64) -> Option<(u64, &HostRange)> {
    let (&start, h) = d.host.range(..=addr).next_back()?;
    (addr < start + h.size.max(1) as u64).then_some((start, h))
}

/// `cuMemHostRegister_v2`: the range is remembered (copies from it need nothing special);
/// `CU_MEMHOSTREGISTER_DEVICEMAP` is not supported.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemHostRegister_v2(p: *mut c_void, size: usize, flags: c_uint) -> CUresult {
    call("cuMemHostRegister", || {
        const DEVICEMAP: c_uint = 2;
        if flags & DEVICEMAP != 0 {
            log::warn("cuMemHostRegister: mapped host memory (CU_MEMHOSTREGISTER_DEVICEMAP) is not supported");
            return Err(CUresult::CUDA_ERROR_NOT_SUPPORTED);
        }
        let mut d = driver()?;
        let ctx = d.current()?;
        if p.is_null() || size == 0 {
            return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
        }
        if host_range(&d, p as u64).is_some() {
            return Err(CUresult::CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
        }
        d.host.insert(
            p as u64,
            HostRange {
                size,
                flags,
                owned: false,
                ctx,
            },
        );
        Ok(())
    })
}

/// `cuMemHostUnregister`.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemHostUnregister(p: *mut c_void) -> CUresult {
    call("cuMemHostUnregister", || {
        let mut d = driver()?;
        match d.host.get(&(p as u64)) {
            Some(h) if !h.owned => {
                d.host.remove(&(p as u64));
                Ok(())
            }
            _ => Err(CUresult::CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED),
        }
    })
}

/// The bytes at host address `p`.
///
/// # Safety
/// `p` is valid for `n` bytes.
unsafe fn host<'a>(p: *const c_void, n: usize) -> CuResult<&'a [u8]> {
    if p.is_null() && n > 0 {
        return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
    }
    // SAFETY: by the caller's contract.
    Ok(if n == 0 {
        &[]
    } else {
        unsafe { std::slice::from_raw_parts(p.cast(), n) }
    })
}

/// The writable bytes at host address `p`.
///
/// # Safety
/// `p` is valid for writes of `n` bytes.
unsafe fn host_mut<'a>(p: *mut c_void, n: usize) -> CuResult<&'a mut [u8]> {
    if p.is_null() && n > 0 {
        return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
    }
    // SAFETY: by the caller's contract.
    Ok(if n == 0 {
        &mut []
    } else {
        unsafe { std::slice::from_raw_parts_mut(p.cast(), n) }
    })
}

/// Host to device.
fn h2d(d: &mut Driver, dst: CUdeviceptr, src: &[u8]) -> CuResult<()> {
    d.current()?;
    d.device.write(dst, src).map_err(|_| CUresult::CUDA_ERROR_INVALID_VALUE)
}

/// Device to host.
fn d2h(d: &Driver, dst: &mut [u8], src: CUdeviceptr) -> CuResult<()> {
    d.current()?;
    d.device
        .read_into(src, dst)
        .map_err(|_| CUresult::CUDA_ERROR_INVALID_VALUE)
}

/// Device to device (overlapping ranges copy as if through a buffer).
fn d2d(d: &mut Driver, dst: CUdeviceptr, src: CUdeviceptr, n: usize) -> CuResult<()> {
    d.current()?;
    let bytes = d.device.read(src, n).map_err(|_| CUresult::CUDA_ERROR_INVALID_VALUE)?;
    d.device
        .write(dst, &bytes)
        .map_err(|_| CUresult::CUDA_ERROR_INVALID_VALUE)
}

/// Whether `addr` is a device address.
pub fn is_device(d: &Driver, addr: u64) -> bool {
    d.device.allocation(addr).is_some()
}

/// A copy between addresses of either kind (unified addressing).
///
/// # Safety
/// Host addresses are valid for `n` bytes.
unsafe fn copy_unified(d: &mut Driver, dst: u64, src: u64, n: usize) -> CuResult<()> {
    match (is_device(d, dst), is_device(d, src)) {
        (true, true) => d2d(d, dst, src, n),
        (true, false) => h2d(d, dst, unsafe { host(src as *const c_void, n)? }),
        (false, true) => d2h(d, unsafe { host_mut(dst as *mut c_void, n)? }, src),
        (false, false) => {
            // SAFETY: both are host ranges of n bytes.
            unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, n) };
            Ok(())
        }
    }
}

/// Defines a synchronous copy entry point and its stream-ordered form.
macro_rules! copies {
    ($(
        $(#[$doc:meta])*
        $sync:ident, $async_:ident, ($($arg:ident: $ty:ty),*), |$d:ident| $body:expr;
    )*) => {$(
        $(#[$doc])*
        ///
        /// # Safety
        /// Host pointers are valid for the bytes copied.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $sync($($arg: $ty),*) -> CUresult {
            call(stringify!($sync), || {
                #[allow(unused_mut)]
                let mut $d = driver()?;
                // A blocking copy (not a memset) waits for the kernels before it, and
                // flushes their printf.
                if stringify!($sync).starts_with("cuMemcpy") {
                    $d.flush_device_output();
                }
                #[allow(unused_unsafe)]
                unsafe { $body }
            })
        }

        $(#[$doc])*
        /// Stream-ordered: runs at once.
        ///
        /// # Safety
        /// Host pointers are valid for the bytes copied.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $async_($($arg: $ty,)* stream: Handle) -> CUresult {
            call(stringify!($async_), || {
                #[allow(unused_mut)]
                let mut $d = driver()?;
                $d.check_stream(stream)?;
                #[allow(unused_unsafe)]
                unsafe { $body }
            })
        }
    )*};
}

copies! {
    /// `cuMemcpyHtoD_v2`.
    cuMemcpyHtoD_v2, cuMemcpyHtoDAsync_v2, (dst: CUdeviceptr, src: *const c_void, n: usize),
        |d| h2d(&mut d, dst, host(src, n)?);
    /// `cuMemcpyDtoH_v2`.
    cuMemcpyDtoH_v2, cuMemcpyDtoHAsync_v2, (dst: *mut c_void, src: CUdeviceptr, n: usize),
        |d| d2h(&d, host_mut(dst, n)?, src);
    /// `cuMemcpyDtoD_v2`.
    cuMemcpyDtoD_v2, cuMemcpyDtoDAsync_v2, (dst: CUdeviceptr, src: CUdeviceptr, n: usize),
        |d| d2d(&mut d, dst, src, n);
    /// `cuMemcpy`: either side host or device, by address.
    cuMemcpy, cuMemcpyAsync, (dst: CUdeviceptr, src: CUdeviceptr, n: usize),
        |d| copy_unified(&mut d, dst, src, n);
    /// `cuMemcpy2D_v2`.
    cuMemcpy2D_v2, cuMemcpy2DAsync_v2, (copy: *const CudaMemcpy2D),
        |d| copy_2d(&mut d, copy);
    /// `cuMemsetD8_v2`.
    cuMemsetD8_v2, cuMemsetD8Async, (dst: CUdeviceptr, value: u8, n: usize),
        |d| fill(&mut d, dst, &[value], n, 1, n);
    /// `cuMemsetD16_v2`.
    cuMemsetD16_v2, cuMemsetD16Async, (dst: CUdeviceptr, value: u16, n: usize),
        |d| fill(&mut d, dst, &value.to_le_bytes(), n, 1, n * 2);
    /// `cuMemsetD32_v2`.
    cuMemsetD32_v2, cuMemsetD32Async, (dst: CUdeviceptr, value: u32, n: usize),
        |d| fill(&mut d, dst, &value.to_le_bytes(), n, 1, n * 4);
    /// `cuMemsetD2D8_v2`.
    cuMemsetD2D8_v2, cuMemsetD2D8Async, (dst: CUdeviceptr, pitch: usize, value: u8, w: usize, h: usize),
        |d| fill(&mut d, dst, &[value], w, h, pitch);
    /// `cuMemsetD2D16_v2`.
    cuMemsetD2D16_v2, cuMemsetD2D16Async, (dst: CUdeviceptr, pitch: usize, value: u16, w: usize, h: usize),
        |d| fill(&mut d, dst, &value.to_le_bytes(), w, h, pitch);
    /// `cuMemsetD2D32_v2`.
    cuMemsetD2D32_v2, cuMemsetD2D32Async, (dst: CUdeviceptr, pitch: usize, value: u32, w: usize, h: usize),
        |d| fill(&mut d, dst, &value.to_le_bytes(), w, h, pitch);
}

/// `cuMemcpy2DUnaligned_v2`.
///
/// # Safety
/// `copy` is a valid `CUDA_MEMCPY2D` whose host pointers cover the rows.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpy2DUnaligned_v2(copy: *const CudaMemcpy2D) -> CUresult {
    call("cuMemcpy2DUnaligned", || unsafe { copy_2d(&mut *driver()?, copy) })
}

/// `cuMemcpyPeer`: the one device is its own peer.
///
/// # Safety
/// None beyond the addresses being device addresses.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpyPeer(
    dst: CUdeviceptr,
    _dst_ctx: Handle,
    src: CUdeviceptr,
    _src_ctx: Handle,
    n: usize,
) -> CUresult {
    call("cuMemcpyPeer", || d2d(&mut *driver()?, dst, src, n))
}

/// `cuMemcpyPeerAsync`.
///
/// # Safety
/// None beyond the addresses being device addresses.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpyPeerAsync(
    dst: CUdeviceptr,
    _dc: Handle,
    src: CUdeviceptr,
    _sc: Handle,
    n: usize,
    stream: Handle,
) -> CUresult {
    call("cuMemcpyPeerAsync", || {
        let mut d = driver()?;
        d.check_stream(stream)?;
        d2d(&mut d, dst, src, n)
    })
}

/// Writes `rows` rows of `count` repetitions of `pattern`, `pitch` bytes apart.
fn fill(d: &mut Driver, dst: CUdeviceptr, pattern: &[u8], count: usize, rows: usize, pitch: usize) -> CuResult<()> {
    d.current()?;
    let row: Vec<u8> = pattern.iter().copied().cycle().take(pattern.len() * count).collect();
    for r in 0..rows {
        d.device
            .write(dst + (r * pitch) as u64, &row)
            .map_err(|_| CUresult::CUDA_ERROR_INVALID_VALUE)?;
    }
    Ok(())
}

/// A 2D copy, row by row.
///
/// # Safety
/// `copy` is a valid `CUDA_MEMCPY2D` whose host pointers cover the rows.
unsafe fn copy_2d(d: &mut Driver, copy: *const CudaMemcpy2D) -> CuResult<()> {
    if copy.is_null() {
        return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
    }
    // SAFETY: by the caller's contract.
    let c = unsafe { *copy };
    let addr = |kind: u32, host: u64, dev: u64, x: usize, y: usize, pitch: usize| -> CuResult<u64> {
        let base = match kind {
            memory_type::HOST => host,
            memory_type::DEVICE | memory_type::UNIFIED => dev,
            _ => return Err(CUresult::CUDA_ERROR_NOT_SUPPORTED),
        };
        Ok(base + (y * pitch + x) as u64)
    };
    for row in 0..c.height {
        let src = addr(
            c.src_memory_type,
            c.src_host as u64,
            c.src_device,
            c.src_x_in_bytes,
            c.src_y + row,
            c.src_pitch,
        )?;
        let dst = addr(
            c.dst_memory_type,
            c.dst_host as u64,
            c.dst_device,
            c.dst_x_in_bytes,
            c.dst_y + row,
            c.dst_pitch,
        )?;
        unsafe { copy_unified(d, dst, src, c.width_in_bytes)? };
    }
    Ok(())
}
