//! Kernel `printf` output and device-side reports: the simulator keeps what kernels print in
//! the device's printf buffer, and the library writes it to the process's standard output
//! where CUDA does (the CUDA C++ Programming Guide, "Formatted Output": the buffer is flushed
//! at the start of a kernel launch, on context, stream and event synchronisation, by blocking
//! memory copies, on module load and unload, and on context destruction). Records lost to a
//! full buffer and the simulator's reports (failed device allocations) go to standard error.

use crate::log;
use crate::state::Driver;
use std::io::Write;

impl Driver {
    /// Writes out and empties the device's printf buffer and reports.
    pub fn flush_device_output(&mut self) {
        let out = self.device.flush_output();
        if !out.printf.is_empty() {
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(out.printf.as_bytes());
            let _ = stdout.flush();
        }
        if out.overwritten > 0 {
            log::warn(format!(
                "{} printf record(s) were lost: the printf buffer was full (cuCtxSetLimit CU_LIMIT_PRINTF_FIFO_SIZE)",
                out.overwritten
            ));
        }
        for r in out.reports {
            log::warn(r);
        }
    }
}
