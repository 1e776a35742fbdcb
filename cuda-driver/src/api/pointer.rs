//! Pointer attributes and address ranges (unified addressing): device addresses come from
//! host address space the library reserved, so every pointer is either a device allocation,
//! a host allocation or registration of the library, or unknown host memory.

use super::memory::host_range;
use super::{call, out};
use crate::state::{CuResult, Driver, driver};
use crate::types::{CUdeviceptr, CUresult, Handle, memory_type};
use std::ffi::{c_uint, c_void};

/// What a pointer points into.
enum Target {
    /// A device allocation: base, size, owning context.
    Device(u64, u64, u64),
    /// A host allocation or registration: start, size, owning context.
    Host(u64, u64, u64),
}

fn target(d: &Driver, p: u64) -> Option<Target> {
    if let Some((base, size)) = d.device.allocation(p) {
        let ctx = d.allocations.get(&base).copied().unwrap_or(0);
        return Some(Target::Device(base, size as u64, ctx));
    }
    host_range(d, p).map(|(start, h)| Target::Host(start, h.size as u64, h.ctx))
}

/// Writes attribute `attr` of `p` to `data`; `Err` for an attribute the pointer lacks.
///
/// # Safety
/// `data` is valid for a write of the attribute's type.
unsafe fn attribute(d: &Driver, attr: c_uint, p: u64, data: *mut c_void) -> CuResult<()> {
    let t = target(d, p).ok_or(CUresult::CUDA_ERROR_INVALID_VALUE)?;
    let (base, size, ctx, device) = match t {
        Target::Device(b, s, c) => (b, s, c, true),
        Target::Host(b, s, c) => (b, s, c, false),
    };
    unsafe {
        match attr {
            1 => out(data.cast::<Handle>(), ctx as Handle),
            2 => out(
                data.cast::<c_uint>(),
                if device { memory_type::DEVICE } else { memory_type::HOST },
            ),
            3 if device => out(data.cast::<u64>(), p),
            4 if !device => out(data.cast::<u64>(), p),
            6 | 8 | 10 | 13 | 15 => out(data.cast::<u8>(), (attr == 6) as u8),
            7 | 20 => out(data.cast::<u64>(), base),
            9 => out(data.cast::<i32>(), 0),
            11 | 19 => out(data.cast::<u64>(), base),
            12 | 18 => out(data.cast::<usize>(), size as usize),
            14 => out(data.cast::<u64>(), 0),
            16 => out(data.cast::<c_uint>(), 3),
            17 => out(data.cast::<Handle>(), std::ptr::null_mut()),
            _ => Err(CUresult::CUDA_ERROR_INVALID_VALUE),
        }
    }
}

/// `cuPointerGetAttribute`.
///
/// # Safety
/// `data` is valid for a write of the attribute's type.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuPointerGetAttribute(data: *mut c_void, attr: c_uint, p: CUdeviceptr) -> CUresult {
    call("cuPointerGetAttribute", || unsafe {
        attribute(&*driver()?, attr, p, data)
    })
}

/// `cuPointerGetAttributes`: unknown pointers get null attributes without an error.
///
/// # Safety
/// `attrs` and `data` hold `n` elements, each slot valid for its attribute's type.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuPointerGetAttributes(
    n: c_uint,
    attrs: *const c_uint,
    data: *mut *mut c_void,
    p: CUdeviceptr,
) -> CUresult {
    call("cuPointerGetAttributes", || {
        let d = driver()?;
        if attrs.is_null() || data.is_null() {
            return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
        }
        for i in 0..n as usize {
            // SAFETY: i < n.
            let (a, slot) = unsafe { (*attrs.add(i), *data.add(i)) };
            if slot.is_null() {
                continue;
            }
            if unsafe { attribute(&d, a, p, slot) }.is_err() {
                // Null values: zero bytes of the widest attribute (8), or the device ordinal -2.
                unsafe {
                    if a == 9 {
                        out(slot.cast::<i32>(), -2)?;
                    } else if matches!(a, 6 | 8 | 10 | 13 | 15) {
                        out(slot.cast::<u8>(), 0)?;
                    } else if matches!(a, 2 | 16) {
                        out(slot.cast::<c_uint>(), 0)?;
                    } else {
                        out(slot.cast::<u64>(), 0)?;
                    }
                }
            }
        }
        Ok(())
    })
}

/// `cuMemGetAddressRange_v2`.
///
/// # Safety
/// `base` and `size` are null or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemGetAddressRange_v2(base: *mut CUdeviceptr, size: *mut usize, p: CUdeviceptr) -> CUresult {
    call("cuMemGetAddressRange", || {
        let d = driver()?;
        let (b, s) = d.device.allocation(p).ok_or(CUresult::CUDA_ERROR_NOT_FOUND)?;
        unsafe {
            if !base.is_null() {
                out(base, b)?;
            }
            if !size.is_null() {
                out(size, s)?;
            }
        }
        Ok(())
    })
}
