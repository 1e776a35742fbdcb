//! Linking (`cuLinkCreate`, `cuLinkAddData`, `cuLinkAddFile`, `cuLinkComplete`,
//! `cuLinkDestroy`): ptxc compiles whole modules and has no device linker, so a link takes
//! exactly one module (PTX, cubin or fat binary) and completes to its cubin; more inputs
//! fail with `CUDA_ERROR_NOT_SUPPORTED` and a message in the error log.

use crate::api::{call, out, text};
use crate::image::{self, Image};
use crate::jit::JitOptions;
use crate::log;
use crate::state::{CuResult, driver};
use crate::types::{CUresult, Handle, jit_input};
use std::ffi::{c_char, c_uint, c_void};

/// A link in progress.
#[derive(Debug)]
pub struct LinkState {
    /// The options given to `cuLinkCreate` (their logs receive the results).
    jit: JitOptions,
    /// Inputs: name and image.
    inputs: Vec<(String, Image)>,
    /// The linked cubin, owned until `cuLinkDestroy`.
    cubin: Option<Vec<u8>>,
}

/// `cuLinkCreate_v2`.
///
/// # Safety
/// The arrays hold `n` elements; `state` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLinkCreate_v2(
    n: c_uint,
    options: *const c_uint,
    values: *mut *mut c_void,
    state: *mut Handle,
) -> CUresult {
    call("cuLinkCreate", || {
        let jit = unsafe { JitOptions::read(n, options, values)? };
        let mut d = driver()?;
        d.current()?;
        let h = d.handle();
        d.links.insert(
            h,
            LinkState {
                jit,
                inputs: Vec::new(),
                cubin: None,
            },
        );
        unsafe { out(state, h as Handle) }
    })
}

/// Adds input `data` of type `kind` named `name` to link `state`.
fn add(state: Handle, kind: c_uint, data: &[u8], name: String) -> CuResult<()> {
    let img = match kind {
        jit_input::CUBIN | jit_input::PTX | jit_input::FATBINARY => image::classify(data)?,
        jit_input::OBJECT | jit_input::LIBRARY | jit_input::NVVM => {
            log::warn(format!(
                "cuLinkAddData: input `{name}` is of a kind ptxc does not link ({kind})"
            ));
            return Err(CUresult::CUDA_ERROR_NOT_SUPPORTED);
        }
        _ => return Err(CUresult::CUDA_ERROR_INVALID_VALUE),
    };
    let mut d = driver()?;
    let link = d
        .links
        .get_mut(&(state as u64))
        .ok_or(CUresult::CUDA_ERROR_INVALID_HANDLE)?;
    link.inputs.push((name, img));
    Ok(())
}

/// `cuLinkAddData_v2`.
///
/// # Safety
/// `data` is valid for `size` bytes; `name` is null or a string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLinkAddData_v2(
    state: Handle,
    kind: c_uint,
    data: *const c_void,
    size: usize,
    name: *const c_char,
    _n: c_uint,
    _options: *const c_uint,
    _values: *mut *mut c_void,
) -> CUresult {
    call("cuLinkAddData", || {
        if data.is_null() {
            return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
        }
        // SAFETY: by the caller's contract.
        let bytes = unsafe { std::slice::from_raw_parts(data.cast::<u8>(), size) };
        let name = unsafe { text(name) }.unwrap_or("<data>").to_string();
        add(state, kind, bytes, name)
    })
}

/// `cuLinkAddFile_v2`.
///
/// # Safety
/// `path` is a string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLinkAddFile_v2(
    state: Handle,
    kind: c_uint,
    path: *const c_char,
    _n: c_uint,
    _options: *const c_uint,
    _values: *mut *mut c_void,
) -> CUresult {
    call("cuLinkAddFile", || {
        let path = unsafe { text(path)? };
        let bytes = std::fs::read(path).map_err(|_| CUresult::CUDA_ERROR_FILE_NOT_FOUND)?;
        add(state, kind, &bytes, path.to_string())
    })
}

/// `cuLinkComplete`: the cubin of the one input (compiled if PTX), owned by the link.
///
/// # Safety
/// `cubin` and `size` are valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLinkComplete(state: Handle, cubin: *mut *mut c_void, size: *mut usize) -> CUresult {
    call("cuLinkComplete", || {
        let mut d = driver()?;
        let arch = d.model.arch;
        let link = d
            .links
            .get_mut(&(state as u64))
            .ok_or(CUresult::CUDA_ERROR_INVALID_HANDLE)?;
        let bin = match link.inputs.as_slice() {
            [(_, img)] => match img {
                Image::Cubin(b) => b.clone(),
                Image::Ptx(t) => link.jit.compile(t, arch)?,
                Image::Fatbin(f) => match image::select(f, arch.sm()) {
                    Ok(Image::Cubin(b)) => b,
                    Ok(Image::Ptx(t)) => link.jit.compile(&t, arch)?,
                    Ok(Image::Fatbin(_)) => return Err(CUresult::CUDA_ERROR_INVALID_IMAGE),
                    Err(msg) => {
                        link.jit.error_log(&msg);
                        return Err(CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU);
                    }
                },
            },
            inputs => {
                let names: Vec<&str> = inputs.iter().map(|(n, _)| n.as_str()).collect();
                let msg = format!(
                    "ptxc links exactly one module; this link has {} ({})",
                    inputs.len(),
                    names.join(", ")
                );
                link.jit.error_log(&msg);
                log::warn(&msg);
                return Err(CUresult::CUDA_ERROR_NOT_SUPPORTED);
            }
        };
        let b = link.cubin.insert(bin);
        unsafe {
            out(cubin, b.as_mut_ptr().cast())?;
            out(size, b.len())
        }
    })
}

/// `cuLinkDestroy`.
#[unsafe(no_mangle)]
pub extern "C" fn cuLinkDestroy(state: Handle) -> CUresult {
    call("cuLinkDestroy", || {
        driver()?
            .links
            .remove(&(state as u64))
            .map(|_| ())
            .ok_or(CUresult::CUDA_ERROR_INVALID_HANDLE)
    })
}
