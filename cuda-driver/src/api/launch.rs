//! Kernel launches (`cuLaunchKernel`, `cuLaunchKernelEx`): the parameter block is built from
//! the kernel's parameter layout, the launch is checked as the hardware would check it, and
//! the kernel runs to completion on the simulator before the call returns. A fault in the
//! kernel is printed (kernel, block, thread, instruction) and becomes the context's sticky
//! error; hazards in the code's control codes are printed as warnings.

use super::call;
use super::module::max_threads;
use crate::log;
use crate::state::{CuResult, Driver, driver, fault_code};
use crate::types::{CUlaunchConfig, CUresult, Handle};
use ptxc_sim::LaunchDims;
use std::ffi::{c_uint, c_void};
use std::time::Instant;

/// `CU_LAUNCH_PARAM_END`, `CU_LAUNCH_PARAM_BUFFER_POINTER`, `CU_LAUNCH_PARAM_BUFFER_SIZE`.
const PARAM_END: usize = 0;
const PARAM_BUFFER_POINTER: usize = 1;
const PARAM_BUFFER_SIZE: usize = 2;

/// The parameter block of a kernel with parameters at `layout` (offset, size) and `size`
/// bytes, from `kernelParams` or from `extra`.
///
/// # Safety
/// `params` is null or holds one valid pointer per parameter; `extra` is null or a
/// `CU_LAUNCH_PARAM_END`-terminated list.
unsafe fn parameter_block(
    layout: &[(u32, u32)],
    size: u32,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CuResult<Vec<u8>> {
    let mut block = vec![0u8; size as usize];
    if !params.is_null() {
        for (i, &(off, len)) in layout.iter().enumerate() {
            // SAFETY: one pointer per parameter, each to `len` bytes.
            let src = unsafe { *params.add(i) };
            if src.is_null() {
                return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
            }
            let bytes = unsafe { std::slice::from_raw_parts(src.cast::<u8>(), len as usize) };
            block[off as usize..(off + len) as usize].copy_from_slice(bytes);
        }
        return Ok(block);
    }
    if !extra.is_null() {
        let (mut buf, mut len) = (std::ptr::null::<u8>(), None);
        let mut i = 0;
        loop {
            // SAFETY: the list is terminated by CU_LAUNCH_PARAM_END.
            let key = unsafe { *extra.add(i) } as usize;
            if key == PARAM_END {
                break;
            }
            let value = unsafe { *extra.add(i + 1) };
            match key {
                PARAM_BUFFER_POINTER => buf = value.cast(),
                PARAM_BUFFER_SIZE => len = Some(unsafe { *value.cast::<usize>() }),
                _ => return Err(CUresult::CUDA_ERROR_INVALID_VALUE),
            }
            i += 2;
        }
        let len = len.ok_or(CUresult::CUDA_ERROR_INVALID_VALUE)?;
        if buf.is_null() || len < size as usize {
            return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
        }
        // SAFETY: the buffer holds `len` >= size bytes.
        block.copy_from_slice(unsafe { std::slice::from_raw_parts(buf, size as usize) });
        return Ok(block);
    }
    if size == 0 {
        Ok(block)
    } else {
        Err(CUresult::CUDA_ERROR_INVALID_VALUE)
    }
}

/// Checks the launch shape against the device's and the kernel's limits.
fn check_shape(d: &Driver, f: Handle, dims: &LaunchDims) -> CuResult<()> {
    let (func, m) = d.function(f)?;
    let k = &m.sim.kernels[func.index];
    let [bx, by, bz] = dims.block;
    let [gx, gy, gz] = dims.grid;
    let threads = bx as u64 * by as u64 * bz as u64;
    if threads == 0 || gx == 0 || gy == 0 || gz == 0 || bx > 1024 || by > 1024 || bz > 64 || gy > 65535 || gz > 65535 {
        return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
    }
    if threads > max_threads(d, k.regs) as u64 {
        return Err(CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
    }
    let limit = func
        .max_dynamic_shared
        .unwrap_or((d.model.shared_per_block() as u32).saturating_sub(k.shared_size));
    if dims.dynamic_shared > limit || k.shared_size + dims.dynamic_shared > d.model.config.shared_per_sm {
        return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
    }
    Ok(())
}

/// Copies the current bytes of the module's `__constant__` variables into its constant bank
/// (programs write them through `cuModuleGetGlobal` addresses).
fn refresh_constants(d: &mut Driver, module: u64) {
    let Driver { device, modules, .. } = d;
    let Some(m) = modules.get_mut(&module) else { return };
    let consts: Vec<(u64, u64, u64)> = m
        .sim
        .globals
        .iter()
        .filter_map(|g| g.const_offset.map(|o| (g.addr, g.size, o)))
        .collect();
    for (addr, size, off) in consts {
        let (o, n) = (off as usize, size as usize);
        if let Some(dst) = m.sim.const_bank3.get_mut(o..o + n) {
            let _ = device.read_into(addr, dst);
        }
    }
}

/// Runs `f` on the simulator.
///
/// # Safety
/// As [`parameter_block`].
unsafe fn launch(
    f: Handle,
    dims: LaunchDims,
    stream: Handle,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CuResult<()> {
    let mut d = driver()?;
    d.check_stream(stream)?;
    d.check_sticky()?;
    check_shape(&d, f, &dims)?;
    let (func, m) = d.function(f)?;
    let module = func.module;
    let k = &m.sim.kernels[func.index];
    let name = k.name.clone();
    let block = unsafe { parameter_block(&k.params, k.param_size, params, extra)? };
    refresh_constants(&mut d, module);
    d.flush_device_output();
    let engine = d.model.engine;
    let start = Instant::now();
    let Driver { device, modules, .. } = &mut *d;
    let result = device.launch_with(&modules[&module].sim, &name, &dims, &block, engine, None);
    match result {
        Ok(stats) => {
            let ns = stats.cycles as f64 * 1e6 / d.model.clock_khz as f64;
            d.clock_ns += ns;
            if stats.hazards > 0 {
                let first = stats
                    .hazard_reports
                    .first()
                    .map(|h| format!("/*{:04x}*/ {}", h.pc, h.what));
                log::warn(format!(
                    "kernel `{name}`: {} hazard(s) in the control codes (results may differ on hardware); the first: {}",
                    stats.hazards,
                    first.unwrap_or_default()
                ));
            }
            log::info(format!(
                "launched `{name}` grid {:?} block {:?} shared {}: {} cycles, {} warp instructions, {} hazards, {:.2} ms on the host",
                dims.grid,
                dims.block,
                dims.dynamic_shared,
                stats.cycles,
                stats.warp_instructions,
                stats.hazards,
                start.elapsed().as_secs_f64() * 1000.0
            ));
            Ok(())
        }
        Err(e) => {
            let code = fault_code(&e);
            log::warn(format!("kernel `{name}` failed: {e}"));
            d.sticky = Some(code);
            Err(code)
        }
    }
}

/// `cuLaunchKernel`.
///
/// # Safety
/// `params` holds one valid pointer per kernel parameter, or `extra` a parameter buffer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLaunchKernel(
    f: Handle,
    gx: c_uint,
    gy: c_uint,
    gz: c_uint,
    bx: c_uint,
    by: c_uint,
    bz: c_uint,
    shared: c_uint,
    stream: Handle,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    call("cuLaunchKernel", || {
        let dims = LaunchDims {
            grid: [gx, gy, gz],
            block: [bx, by, bz],
            dynamic_shared: shared,
            cluster: None,
        };
        unsafe { launch(f, dims, stream, params, extra) }
    })
}

/// Checks `cuLaunchKernelEx`'s attributes and returns the cluster shape
/// (`CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`, 4) if one is given: those without effect on
/// one simulated launch are accepted (a preferred cluster shape, 11, is a hint: the launch
/// runs with the required one); cooperative launches are not supported.
fn check_attributes(config: &CUlaunchConfig) -> CuResult<Option<[u32; 3]>> {
    let mut cluster = None;
    if config.num_attrs == 0 {
        return Ok(cluster);
    }
    if config.attrs.is_null() {
        return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
    }
    // SAFETY: `num_attrs` attributes.
    let attrs = unsafe { std::slice::from_raw_parts(config.attrs, config.num_attrs as usize) };
    for a in attrs {
        let v = &a.value;
        match a.id {
            0 | 1 | 3 | 5 | 6 | 8 | 9 | 10 | 11 | 14 => {}
            2 if v[0] == 0 => {}
            4 => cluster = Some([v[0], v[1], v[2]]),
            id => {
                log::warn(format!(
                    "cuLaunchKernelEx: launch attribute {id} (value {}) is not supported",
                    v[0]
                ));
                return Err(CUresult::CUDA_ERROR_NOT_SUPPORTED);
            }
        }
    }
    Ok(cluster)
}

/// `cuLaunchKernelEx`.
///
/// # Safety
/// `config` is valid; `params` or `extra` as for [`cuLaunchKernel`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLaunchKernelEx(
    config: *const CUlaunchConfig,
    f: Handle,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    call("cuLaunchKernelEx", || {
        if config.is_null() {
            return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
        }
        // SAFETY: by the caller's contract.
        let c = unsafe { *config };
        let cluster = check_attributes(&c)?;
        let dims = LaunchDims {
            grid: c.grid_dim,
            block: c.block_dim,
            dynamic_shared: c.shared_mem_bytes,
            cluster,
        };
        unsafe { launch(f, dims, c.h_stream, params, extra) }
    })
}
