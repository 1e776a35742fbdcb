//! JIT compilation: PTX handed to the driver is compiled in-process by ptxc's pipeline. The
//! JIT options are read (register limit, line information, fused multiply-adds), the others
//! accepted, and the logs written where the program asked: the error log gets ptxc's
//! diagnostics, the info log ptxas-style resource lines, the wall time option the time taken.

use crate::log;
use crate::state::CuResult;
use crate::types::{CUresult, jit_option};
use ptxc::pipeline::{CompileOptions, compile_ptx_module};
use ptxc_sass::isa::Arch;
use std::ffi::{c_uint, c_void};
use std::time::Instant;

/// A caller's log buffer: its address, capacity and the option-value slot that receives the
/// bytes written (all as addresses, so that link states can live in the shared state).
#[derive(Clone, Copy, Debug, Default)]
struct LogBuffer {
    buf: usize,
    cap: usize,
    size_slot: usize,
}

/// The JIT options of a module load or a link.
#[derive(Clone, Debug, Default)]
pub struct JitOptions {
    /// `CU_JIT_MAX_REGISTERS`.
    pub max_registers: Option<u32>,
    /// `CU_JIT_GENERATE_LINE_INFO` or `CU_JIT_GENERATE_DEBUG_INFO`.
    pub line_info: bool,
    /// `CU_JIT_FMA` (default on).
    pub no_fma: bool,
    info: LogBuffer,
    error: LogBuffer,
    wall_time_slot: usize,
}

impl JitOptions {
    /// Reads `n` options and their values.
    ///
    /// # Safety
    /// `options` and `values` are null or valid for `n` elements.
    pub unsafe fn read(n: c_uint, options: *const c_uint, values: *mut *mut c_void) -> CuResult<JitOptions> {
        let mut o = JitOptions::default();
        if n == 0 {
            return Ok(o);
        }
        if options.is_null() || values.is_null() {
            return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
        }
        for i in 0..n as usize {
            // SAFETY: i < n.
            let (opt, slot) = unsafe { (*options.add(i), values.add(i)) };
            let v = unsafe { *slot } as usize;
            match opt {
                jit_option::MAX_REGISTERS => o.max_registers = Some(v as u32).filter(|&r| r > 0),
                jit_option::WALL_TIME => o.wall_time_slot = slot as usize,
                jit_option::INFO_LOG_BUFFER => o.info.buf = v,
                jit_option::INFO_LOG_BUFFER_SIZE_BYTES => {
                    o.info.cap = v as u32 as usize;
                    o.info.size_slot = slot as usize;
                }
                jit_option::ERROR_LOG_BUFFER => o.error.buf = v,
                jit_option::ERROR_LOG_BUFFER_SIZE_BYTES => {
                    o.error.cap = v as u32 as usize;
                    o.error.size_slot = slot as usize;
                }
                jit_option::GENERATE_DEBUG_INFO | jit_option::GENERATE_LINE_INFO => o.line_info |= v != 0,
                jit_option::FMA => o.no_fma = v == 0,
                _ => {}
            }
        }
        Ok(o)
    }

    /// Writes `text` to the info log.
    pub fn info_log(&self, text: &str) {
        write_log(self.info, text);
    }

    /// Writes `text` to the error log.
    pub fn error_log(&self, text: &str) {
        write_log(self.error, text);
    }

    /// Compiles `ptx` for `arch`; on failure the diagnostics go to the error log and stderr.
    pub fn compile(&self, ptx: &str, arch: Arch) -> CuResult<Vec<u8>> {
        let start = Instant::now();
        let opts = CompileOptions {
            arch,
            max_registers: self.max_registers,
            line_info: self.line_info,
            fmad: !self.no_fma,
            ..CompileOptions::default()
        };
        let result = compile_ptx_module(ptx, "<jit>", &opts);
        if self.wall_time_slot != 0 {
            let ms = start.elapsed().as_secs_f32() * 1000.0;
            // SAFETY: the slot is the caller's option value, pointer-sized.
            unsafe { (self.wall_time_slot as *mut u32).write_unaligned(ms.to_bits()) };
        }
        match result {
            Ok(c) => {
                let mut info: String = c.resources.iter().map(|r| r.report("ptxc")).collect();
                for w in &c.warnings {
                    info.push_str(&format!("ptxc warning : {w}\n"));
                }
                self.info_log(&info);
                self.error_log("");
                log::info(format!(
                    "compiled PTX ({} bytes) to a {}-byte cubin in {:.1} ms",
                    ptx.len(),
                    c.cubin.len(),
                    start.elapsed().as_secs_f64() * 1000.0
                ));
                Ok(c.cubin)
            }
            Err(e) => {
                self.error_log(&e.0);
                log::warn(format!("PTX compilation failed:\n{}", e.0));
                Err(CUresult::CUDA_ERROR_INVALID_PTX)
            }
        }
    }
}

/// Copies `text` (NUL-terminated, truncated) into a log buffer and stores the bytes written.
fn write_log(log: LogBuffer, text: &str) {
    if log.buf == 0 || log.cap == 0 {
        return;
    }
    let n = text.len().min(log.cap - 1);
    // SAFETY: the caller gave a buffer of `cap` bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr(), log.buf as *mut u8, n);
        *(log.buf as *mut u8).add(n) = 0;
        if log.size_slot != 0 {
            (log.size_slot as *mut usize).write_unaligned(n + 1);
        }
    }
}
