//! The device functions the CUDA driver provides (`vprintf`, `malloc`, `free`,
//! `__assertfail`). A cubin declares them as undefined `FUNC` symbols and loads their
//! addresses from constant bank 4 (`R_CUDA_64` relocations, as ptxas 13.5 writes them); the
//! loader gives each a reserved address and a `CALL` to one of those addresses runs the
//! function here, on the host, for every calling lane, then returns to the address in
//! `R20:R21` as the driver's code would. Arguments follow ptxas's call ABI: the first
//! parameter in `R4` (64-bit values in an even register pair), the next one in the next free
//! register (pair), the return value in `R4` (`docs/CUBIN.md`, section 11).

mod heap;
pub mod printf;

use crate::decoded::Decoded;
use crate::error::SimError;
use crate::exec::ctx::Ctx;
use crate::exec::warp::{WARP, Warp};
pub use heap::Heap;
use std::collections::VecDeque;

/// A function the driver provides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DriverFn {
    /// `int vprintf(const char *format, void *args)`.
    Vprintf,
    /// `void *malloc(size_t)`.
    Malloc,
    /// `void free(void *)`.
    Free,
    /// `void __assertfail(const char *message, const char *file, unsigned line, const char
    /// *function, size_t charSize)`.
    AssertFail,
}

/// Every driver function with its symbol name.
pub const DRIVER_FNS: [(DriverFn, &str); 4] = [
    (DriverFn::Vprintf, "vprintf"),
    (DriverFn::Malloc, "malloc"),
    (DriverFn::Free, "free"),
    (DriverFn::AssertFail, "__assertfail"),
];

/// Base of the reserved addresses of the driver functions (outside global memory and the
/// shared and local windows); function `i` of [`DRIVER_FNS`] is at `DRIVER_BASE + 16 * i`.
pub const DRIVER_BASE: u64 = 0x7fe0_0000_0000;

impl DriverFn {
    /// The function a symbol names.
    pub fn by_name(name: &str) -> Option<DriverFn> {
        DRIVER_FNS.iter().find(|(_, n)| *n == name).map(|(f, _)| *f)
    }

    /// The function at a reserved address.
    pub fn at(addr: u64) -> Option<DriverFn> {
        let off = addr.checked_sub(DRIVER_BASE)?;
        (off.is_multiple_of(16))
            .then(|| DRIVER_FNS.get((off / 16) as usize).map(|(f, _)| *f))
            .flatten()
    }

    /// Its reserved address.
    pub fn addr(self) -> u64 {
        let i = DRIVER_FNS.iter().position(|(f, _)| *f == self).expect("listed");
        DRIVER_BASE + 16 * i as u64
    }

    /// Its symbol name.
    pub fn name(self) -> &'static str {
        DRIVER_FNS
            .iter()
            .find(|(f, _)| *f == self)
            .map(|(_, n)| *n)
            .expect("listed")
    }
}

/// Limits a launch can set, as `cudaDeviceSetLimit` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// `cudaLimitMallocHeapSize`: bytes of the device heap (CUDA's default: 8 MiB).
    pub malloc_heap_size: u64,
    /// `cudaLimitPrintfFifoSize`: bytes of the printf buffer (CUDA's default: 1 MiB).
    pub printf_fifo_size: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            malloc_heap_size: 8 << 20,
            printf_fifo_size: 1 << 20,
        }
    }
}

/// The printf buffer: records in the order the calls reached it. It is circular, as the
/// CUDA Programming Guide describes ("if more output is produced during kernel execution
/// than can fit in the buffer, older output is overwritten"); a record's size is modelled as
/// 8 header bytes, the 8-byte format pointer and the argument buffer, rounded up to 8 (the
/// guide does not give the record layout).
#[derive(Clone, Debug, Default)]
pub struct PrintfFifo {
    records: VecDeque<(u64, String)>,
    used: u64,
    /// Records overwritten because the buffer was full.
    pub overwritten: u64,
}

impl PrintfFifo {
    /// Appends a record of `size` bytes; older records make room.
    fn push(&mut self, size: u64, text: String, capacity: u64) {
        if size > capacity {
            self.overwritten += 1;
            return;
        }
        self.used += size;
        self.records.push_back((size, text));
        while self.used > capacity {
            let (s, _) = self.records.pop_front().expect("used > 0 means a record");
            self.used -= s;
            self.overwritten += 1;
        }
    }

    /// The text of every record, emptying the buffer (a synchronisation point).
    fn flush(&mut self) -> String {
        self.used = 0;
        self.records.drain(..).map(|(_, t)| t).collect()
    }
}

/// What the driver functions keep between calls: the heap, the printf buffer and reports.
#[derive(Clone, Debug, Default)]
pub struct DriverState {
    /// The limits in force.
    pub limits: Limits,
    /// The device heap (`malloc`/`free`).
    pub heap: Heap,
    /// The printf buffer.
    pub printf: PrintfFifo,
    /// Failed allocations and other events a user should hear about, in order.
    pub reports: Vec<String>,
}

/// What the driver printed and reported since the last flush.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DriverOutput {
    /// printf and assertion output, in buffer order.
    pub printf: String,
    /// printf records overwritten because the buffer was full.
    pub overwritten: u64,
    /// Reports (failed allocations).
    pub reports: Vec<String>,
}

impl DriverState {
    /// Empties the printf buffer and the reports (what `cudaDeviceSynchronize` prints).
    pub fn flush(&mut self) -> DriverOutput {
        let out = DriverOutput {
            printf: self.printf.flush(),
            overwritten: self.printf.overwritten,
            reports: std::mem::take(&mut self.reports),
        };
        self.printf.overwritten = 0;
        out
    }
}

/// The lanes of a mask, lowest first.
fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    (0..WARP).filter(move |l| mask & (1 << l) != 0)
}

/// Runs driver function `f` for the lanes `t` of `w` (called by `CALL` at `d`), then sends
/// them to their return address (`R20`); the other lanes of `group` go on.
pub fn call(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, f: DriverFn, group: u32, t: u32) -> Result<(), SimError> {
    let Some(state) = ctx.global.driver() else {
        return Err(SimError::Unsupported {
            at: ctx.at(w, t.trailing_zeros() as usize % WARP, d.pc),
            what: format!("a call to `{}` in CTAs that run in parallel", f.name()),
        });
    };
    let _ = state;
    match f {
        DriverFn::Vprintf => printf::vprintf(ctx, w, d, t)?,
        DriverFn::Malloc => heap::malloc(ctx, w, d, t)?,
        DriverFn::Free => heap::free(ctx, w, d, t)?,
        DriverFn::AssertFail => return assert_fail(ctx, w, d, t),
    }
    for l in lanes(t) {
        w.jump(1 << l, d.pc, w.reg(20, l));
    }
    w.advance(group & !t, d.pc);
    Ok(())
}

/// `__assertfail`: every calling lane writes CUDA's message to the printf stream, then the
/// launch ends with a device-side assertion error.
fn assert_fail(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, t: u32) -> Result<(), SimError> {
    let mut first = None;
    for l in lanes(t) {
        let message = printf::device_string(ctx, w, d, l, w.reg64(4, l))?;
        let file = printf::device_string(ctx, w, d, l, w.reg64(6, l))?;
        let line = w.reg(8, l);
        let function = printf::device_string(ctx, w, d, l, w.reg64(10, l))?;
        let (c, tid) = (ctx.cta.ctaid, w.tid[l]);
        let text = format!(
            "{}:{line}: {}: block: [{},{},{}], thread: [{},{},{}] Assertion `{}` failed.\n",
            String::from_utf8_lossy(&file),
            String::from_utf8_lossy(&function),
            c[0],
            c[1],
            c[2],
            tid[0],
            tid[1],
            tid[2],
            String::from_utf8_lossy(&message),
        );
        let state = ctx.global.driver().expect("checked by the caller");
        let capacity = state.limits.printf_fifo_size;
        state
            .printf
            .push(text.len().next_multiple_of(8) as u64 + 16, text.clone(), capacity);
        first.get_or_insert((l, text.trim_end().to_string()));
    }
    let (lane, message) = first.expect("a call has at least one lane");
    Err(SimError::Assert {
        at: ctx.at(w, lane, d.pc),
        message,
    })
}
