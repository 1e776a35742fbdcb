//! Device management: the one simulated device (ordinal 0), its name, UUID, memory and
//! attributes.

use super::{call, out, write_c_string};
use crate::state::{CuResult, driver};
use crate::types::{CUdevice, CUresult, CUuuid};
use std::ffi::{c_char, c_int, c_void};

/// Fails unless `dev` is the simulated device.
pub fn check_device(dev: CUdevice) -> CuResult<()> {
    if dev == 0 {
        Ok(())
    } else {
        Err(CUresult::CUDA_ERROR_INVALID_DEVICE)
    }
}

/// The device's UUID: "ptxc-sim", then the architecture and the SM count.
fn uuid() -> CuResult<CUuuid> {
    let d = driver()?;
    let mut bytes = [0 as c_char; 16];
    for (b, &c) in bytes.iter_mut().zip(b"ptxc-sim") {
        *b = c as c_char;
    }
    let tail = [d.model.arch.sm().to_le_bytes(), d.model.config.sms.to_le_bytes()].concat();
    for (b, &c) in bytes[8..].iter_mut().zip(&tail) {
        *b = c as c_char;
    }
    Ok(CUuuid { bytes })
}

/// `cuDeviceGet`.
///
/// # Safety
/// `device` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGet(device: *mut CUdevice, ordinal: c_int) -> CUresult {
    call("cuDeviceGet", || {
        driver()?;
        check_device(ordinal)?;
        unsafe { out(device, 0) }
    })
}

/// `cuDeviceGetCount`: one device.
///
/// # Safety
/// `count` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetCount(count: *mut c_int) -> CUresult {
    call("cuDeviceGetCount", || {
        driver()?;
        unsafe { out(count, 1) }
    })
}

/// `cuDeviceGetName`.
///
/// # Safety
/// `name` is valid for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetName(name: *mut c_char, len: c_int, dev: CUdevice) -> CUresult {
    call("cuDeviceGetName", || {
        let d = driver()?;
        check_device(dev)?;
        unsafe { write_c_string(name, len.max(0) as usize, &d.model.name) }
    })
}

/// `cuDeviceGetUuid`.
///
/// # Safety
/// `uuid_out` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetUuid(uuid_out: *mut CUuuid, dev: CUdevice) -> CUresult {
    call("cuDeviceGetUuid", || {
        check_device(dev)?;
        unsafe { out(uuid_out, uuid()?) }
    })
}

/// `cuDeviceGetUuid_v2` (same result: the device has no MIG instances).
///
/// # Safety
/// `uuid_out` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetUuid_v2(uuid_out: *mut CUuuid, dev: CUdevice) -> CUresult {
    unsafe { cuDeviceGetUuid(uuid_out, dev) }
}

/// `cuDeviceTotalMem_v2`.
///
/// # Safety
/// `bytes` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceTotalMem_v2(bytes: *mut usize, dev: CUdevice) -> CUresult {
    call("cuDeviceTotalMem", || {
        let d = driver()?;
        check_device(dev)?;
        unsafe { out(bytes, d.model.total_memory as usize) }
    })
}

/// `cuDeviceGetAttribute`.
///
/// # Safety
/// `value` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetAttribute(value: *mut c_int, attrib: c_int, dev: CUdevice) -> CUresult {
    call("cuDeviceGetAttribute", || {
        let d = driver()?;
        check_device(dev)?;
        let v = d
            .model
            .attribute(attrib as u32)
            .ok_or(CUresult::CUDA_ERROR_INVALID_VALUE)?;
        unsafe { out(value, v) }
    })
}

/// `cuDeviceComputeCapability` (deprecated, still resolved).
///
/// # Safety
/// `major` and `minor` are valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceComputeCapability(major: *mut c_int, minor: *mut c_int, dev: CUdevice) -> CUresult {
    call("cuDeviceComputeCapability", || {
        let d = driver()?;
        check_device(dev)?;
        let (a, b) = d.model.compute_capability();
        unsafe {
            out(major, a)?;
            out(minor, b)
        }
    })
}

/// `CUdevprop`.
#[repr(C)]
struct DevProp {
    max_threads_per_block: c_int,
    max_threads_dim: [c_int; 3],
    max_grid_size: [c_int; 3],
    shared_mem_per_block: c_int,
    total_constant_memory: c_int,
    simd_width: c_int,
    mem_pitch: c_int,
    regs_per_block: c_int,
    clock_rate: c_int,
    texture_align: c_int,
}

/// `cuDeviceGetProperties` (deprecated, still resolved).
///
/// # Safety
/// `prop` is valid for a write of a `CUdevprop`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetProperties(prop: *mut c_void, dev: CUdevice) -> CUresult {
    call("cuDeviceGetProperties", || {
        let d = driver()?;
        check_device(dev)?;
        let a = |i| d.model.attribute(i).unwrap_or(0);
        let p = DevProp {
            max_threads_per_block: a(1),
            max_threads_dim: [a(2), a(3), a(4)],
            max_grid_size: [a(5), a(6), a(7)],
            shared_mem_per_block: a(8),
            total_constant_memory: a(9),
            simd_width: a(10),
            mem_pitch: a(11),
            regs_per_block: a(12),
            clock_rate: a(13),
            texture_align: a(14),
        };
        unsafe { out(prop.cast::<DevProp>(), p) }
    })
}

/// `cuDeviceGetPCIBusId`: the simulated device sits at 0000:00:00.0.
///
/// # Safety
/// `bus_id` is valid for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetPCIBusId(bus_id: *mut c_char, len: c_int, dev: CUdevice) -> CUresult {
    call("cuDeviceGetPCIBusId", || {
        driver()?;
        check_device(dev)?;
        unsafe { write_c_string(bus_id, len.max(0) as usize, "0000:00:00.0") }
    })
}

/// `cuDeviceGetByPCIBusId`.
///
/// # Safety
/// `dev` is valid for a write; `bus_id` is a string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetByPCIBusId(dev: *mut CUdevice, bus_id: *const c_char) -> CUresult {
    call("cuDeviceGetByPCIBusId", || {
        driver()?;
        let id = unsafe { super::text(bus_id)? };
        if id.eq_ignore_ascii_case("0000:00:00.0") || id == "00:00.0" {
            unsafe { out(dev, 0) }
        } else {
            Err(CUresult::CUDA_ERROR_INVALID_DEVICE)
        }
    })
}

/// `cuDeviceCanAccessPeer`: there is no peer.
///
/// # Safety
/// `can` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceCanAccessPeer(can: *mut c_int, dev: CUdevice, peer: CUdevice) -> CUresult {
    call("cuDeviceCanAccessPeer", || {
        driver()?;
        check_device(dev)?;
        check_device(peer)?;
        unsafe { out(can, 0) }
    })
}
