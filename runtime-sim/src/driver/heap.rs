//! The device heap of `malloc` and `free`: a region of global memory of
//! `cudaLimitMallocHeapSize` bytes, reserved on the first `malloc`, handed out first fit in
//! 16-byte aligned blocks (the CUDA Programming Guide: "the returned pointer is guaranteed
//! to be aligned to a 16-byte boundary"). An allocation that does not fit returns a null
//! pointer, as CUDA's does, and is reported; freeing a pointer twice, or one `malloc` did not
//! return, is a fault (undefined behaviour in CUDA) that names the thread.

use super::lanes;
use crate::decoded::Decoded;
use crate::error::SimError;
use crate::exec::ctx::Ctx;
use crate::exec::warp::Warp;
use std::collections::BTreeMap;

/// Alignment and granule of heap blocks.
const ALIGN: u64 = 16;

/// The heap's blocks.
#[derive(Clone, Debug, Default)]
pub struct Heap {
    /// The region `(base, size)`, once reserved.
    region: Option<(u64, u64)>,
    /// Live blocks: address → size.
    live: BTreeMap<u64, u64>,
    /// Freed block addresses (for the double-free report), until reused.
    freed: BTreeMap<u64, u64>,
}

impl Heap {
    /// Bytes in live blocks.
    pub fn in_use(&self) -> u64 {
        self.live.values().sum()
    }

    /// First fit: the lowest gap between live blocks that holds `size` bytes.
    fn place(&self, base: u64, end: u64, size: u64) -> Option<u64> {
        let mut at = base;
        for (&a, &s) in &self.live {
            if a >= at + size {
                break;
            }
            at = (a + s).next_multiple_of(ALIGN);
        }
        (at + size <= end).then_some(at)
    }

    /// Whether the region has been reserved.
    pub fn reserved(&self) -> bool {
        self.region.is_some()
    }

    /// Places the heap at `[base, base + size)`.
    pub fn reserve(&mut self, base: u64, size: u64) {
        self.region = Some((base, size));
    }

    /// Allocates `size` bytes; `None` when they do not fit (or no region is reserved).
    pub fn alloc(&mut self, size: u64) -> Option<u64> {
        let (base, region) = self.region?;
        let size = size.max(1).next_multiple_of(ALIGN);
        let at = self.place(base, base + region, size)?;
        self.live.insert(at, size);
        self.freed.retain(|&a, &mut s| a + s <= at || a >= at + size);
        Some(at)
    }

    /// Frees the block at `addr`: `Err` says why it cannot be freed.
    pub fn free(&mut self, addr: u64) -> Result<(), String> {
        if let Some(size) = self.live.remove(&addr) {
            self.freed.insert(addr, size);
            return Ok(());
        }
        if self.freed.contains_key(&addr) {
            Err(format!("double free of heap block {addr:#x}"))
        } else {
            Err(format!("free of {addr:#x}, which malloc did not return"))
        }
    }
}

/// `malloc(size)` for the lanes `t`, lowest lane first; `R4:R5` gets the block or null.
pub fn malloc(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, t: u32) -> Result<(), SimError> {
    for l in lanes(t) {
        let size = w.reg64(4, l);
        let at = ctx.at(w, l, d.pc);
        let p = ctx.global.heap_alloc(size);
        let state = ctx.global.driver().expect("checked by the caller");
        let limit = state.limits.malloc_heap_size;
        if p.is_none() {
            let used = state.heap.in_use();
            state.reports.push(format!(
                "{at}: malloc of {size} bytes returned NULL: the heap of {limit} bytes has {used} in use \
                 (malloc_heap_size in the launch spec sets its size)"
            ));
        }
        let v = p.unwrap_or(0);
        w.set_reg(4, l, v as u32);
        w.set_reg(5, l, (v >> 32) as u32);
    }
    Ok(())
}

/// `free(ptr)` for the lanes `t`, lowest lane first (a null pointer is ignored).
pub fn free(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, t: u32) -> Result<(), SimError> {
    for l in lanes(t) {
        let p = w.reg64(4, l);
        if p == 0 {
            continue;
        }
        let state = ctx.global.driver().expect("checked by the caller");
        if let Err(why) = state.heap.free(p) {
            return Err(SimError::Heap {
                at: ctx.at(w, l, d.pc),
                message: why,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_fit_reuse_double_free_and_exhaustion() {
        let mut h = Heap::default();
        assert_eq!(h.alloc(1), None);
        h.reserve(0x1000, 64);
        let a = h.alloc(10).unwrap();
        let b = h.alloc(16).unwrap();
        assert_eq!((a, b), (0x1000, 0x1010));
        assert_eq!(h.alloc(40), None);
        h.free(a).unwrap();
        assert!(h.free(a).unwrap_err().contains("double free"));
        assert!(h.free(0x1008).unwrap_err().contains("did not return"));
        assert_eq!(h.alloc(16), Some(0x1000));
        assert_eq!(h.alloc(32), Some(0x1020));
    }
}
