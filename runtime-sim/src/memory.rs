//! Global memory: a 64-bit address space of separate allocations; every access is checked
//! against the allocation it falls in.
//!
//! Allocations are made in granules ([`GRANULE`] = 512 bytes, the sub-allocation unit of
//! cudaMalloc): an access past the end of an allocation but inside its last granule does
//! not fault on hardware (it reads or overwrites whatever is there; ZLUDA's `ldmatrix` test
//! relies on it). The simulator lets such a *stray* access happen and reports it
//! ([`Access::Stray`], counted in the statistics); an access outside every granule is a
//! fault (hardware maps whole pages and might not fault, but it is a bug worth stopping
//! at). A strict configuration turns stray accesses into faults too.
//!
//! Kernels reach it through a [`GlobalView`]: either the memory itself (one SM or CTA group
//! at a time), or an [`Overlay`] of private pages over a shared, read-only memory, which lets
//! several SMs run in parallel; the overlays are merged back in a fixed order, so results do
//! not depend on the number of threads.

use crate::driver::DriverState;
use crate::error::SimError;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Where the first allocation starts (CUDA-like addresses, and never near 0).
const HEAP_BASE: u64 = 0x7f00_0000_0000;
/// The allocation granule: allocations start on, and own whole units of, this size.
pub const GRANULE: u64 = 512;
/// Overlay page size.
const PAGE: usize = 4096;

/// One allocation: its mapped bytes (whole granules) and its requested size.
#[derive(Clone, Debug)]
struct Alloc {
    base: u64,
    data: Vec<u8>,
    len: usize,
}

/// How an access went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Inside an allocation.
    Ok,
    /// Past the end of an allocation, inside its mapped granule (no fault on hardware).
    Stray,
    /// Outside every mapped granule: a fault.
    Fault,
}

/// The device's global memory.
#[derive(Clone, Debug)]
pub struct GlobalMemory {
    allocs: Vec<Alloc>,
    next: u64,
    /// Stray accesses (past an allocation, inside its granule) fault.
    pub strict: bool,
    /// The state of the driver-provided device functions (heap, printf buffer).
    pub driver: DriverState,
}

impl Default for GlobalMemory {
    fn default() -> Self {
        GlobalMemory::new()
    }
}

impl GlobalMemory {
    /// An empty address space.
    pub fn new() -> GlobalMemory {
        GlobalMemory::at(HEAP_BASE)
    }

    /// An empty address space whose first allocation starts at `base` (rounded up to a
    /// granule). A host library that hands device addresses to programs (the CUDA driver
    /// library) picks a base it has reserved in its own address space, so that no host
    /// pointer equals a device address.
    pub fn at(base: u64) -> GlobalMemory {
        GlobalMemory {
            allocs: Vec::new(),
            next: base.next_multiple_of(GRANULE).max(GRANULE),
            strict: false,
            driver: DriverState::default(),
        }
    }

    /// Frees the allocation that starts at `addr`; returns its size, or `None` if no
    /// allocation starts there. Its addresses are not handed out again.
    pub fn free(&mut self, addr: u64) -> Option<usize> {
        let i = self.allocs.binary_search_by_key(&addr, |a| a.base).ok()?;
        Some(self.allocs.remove(i).len)
    }

    /// The allocation holding `addr`: its base address and requested size.
    pub fn allocation(&self, addr: u64) -> Option<(u64, usize)> {
        let i = self.allocs.partition_point(|a| a.base <= addr).checked_sub(1)?;
        let a = &self.allocs[i];
        (addr - a.base < a.len.max(1) as u64).then_some((a.base, a.len))
    }

    /// Bytes allocated and not freed (requested sizes).
    pub fn allocated(&self) -> usize {
        self.allocs.iter().map(|a| a.len).sum()
    }

    /// The address the next allocation would start at.
    pub fn next_address(&self) -> u64 {
        self.next
    }

    /// `malloc` on the device heap, reserving its region (`malloc_heap_size` bytes) on first
    /// use; `None` when the request does not fit.
    pub fn heap_alloc(&mut self, size: u64) -> Option<u64> {
        if !self.driver.heap.reserved() {
            let limit = self.driver.limits.malloc_heap_size;
            let base = self.alloc(limit as usize);
            self.driver.heap.reserve(base, limit);
        }
        self.driver.heap.alloc(size)
    }

    /// Allocates `size` zeroed bytes and returns the device address.
    pub fn alloc(&mut self, size: usize) -> u64 {
        let base = self.next;
        let mapped = (size.max(1) as u64).div_ceil(GRANULE) * GRANULE;
        self.allocs.push(Alloc {
            base,
            data: vec![0; mapped as usize],
            len: size,
        });
        self.next = base + mapped;
        base
    }

    /// The allocation index and offset of `[addr, addr+len)` within mapped memory (trying
    /// `hint` first), and whether it lies inside the allocation proper.
    #[inline(always)]
    fn locate(&self, addr: u64, len: usize, hint: &mut usize) -> Option<(usize, usize, Access)> {
        let check = |a: &Alloc| {
            let off = addr.checked_sub(a.base)?;
            let end = off.checked_add(len as u64)?;
            if end <= a.len as u64 {
                Some((off as usize, Access::Ok))
            } else if end <= a.data.len() as u64 && !self.strict {
                Some((off as usize, Access::Stray))
            } else {
                None
            }
        };
        if let Some(a) = self.allocs.get(*hint)
            && let Some((off, how)) = check(a)
        {
            return Some((*hint, off, how));
        }
        let i = self.allocs.partition_point(|a| a.base <= addr).checked_sub(1)?;
        let (off, how) = check(&self.allocs[i])?;
        *hint = i;
        Some((i, off, how))
    }

    /// Reads `out.len()` bytes at `addr`; `None` if outside every allocation.
    pub fn read(&self, addr: u64, out: &mut [u8]) -> Option<()> {
        match self.locate(addr, out.len(), &mut 0)? {
            (i, off, Access::Ok) => {
                out.copy_from_slice(&self.allocs[i].data[off..off + out.len()]);
                Some(())
            }
            _ => None,
        }
    }

    /// Writes `data` at `addr`; `None` if outside every allocation.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Option<()> {
        match self.locate(addr, data.len(), &mut 0)? {
            (i, off, Access::Ok) => {
                self.allocs[i].data[off..off + data.len()].copy_from_slice(data);
                Some(())
            }
            _ => None,
        }
    }

    /// Writes `data` at `addr` anywhere in mapped memory (stray bytes of overlays).
    fn write_mapped(&mut self, addr: u64, data: &[u8]) {
        if let Some((i, off, _)) = self.locate(addr, data.len(), &mut 0) {
            self.allocs[i].data[off..off + data.len()].copy_from_slice(data);
        }
    }

    /// Copies host data into device memory.
    pub fn copy_in(&mut self, addr: u64, data: &[u8]) -> Result<(), SimError> {
        self.write(addr, data).ok_or_else(|| {
            SimError::Memory(format!(
                "copy of {} bytes to {addr:#x} is outside every allocation",
                data.len()
            ))
        })
    }

    /// Copies device memory out to the host.
    pub fn copy_out(&self, addr: u64, len: usize) -> Result<Vec<u8>, SimError> {
        let mut v = vec![0; len];
        self.read(addr, &mut v).ok_or_else(|| {
            SimError::Memory(format!(
                "copy of {len} bytes from {addr:#x} is outside every allocation"
            ))
        })?;
        Ok(v)
    }

    /// Applies the bytes an overlay wrote.
    pub fn merge(&mut self, overlay: Overlay) {
        let mut order: Vec<(u64, usize)> = overlay.index.iter().map(|(&n, &i)| (n, i as usize)).collect();
        order.sort_unstable();
        for (n, i) in order {
            let p = &overlay.pages[i];
            let start = n * PAGE as u64;
            // Runs of written bytes, found 64 at a time.
            let mut off = 0;
            while off < PAGE {
                let word = p.written[off / 64] >> (off % 64);
                if word == 0 {
                    off = (off / 64 + 1) * 64;
                    continue;
                }
                let skip = word.trailing_zeros() as usize;
                off += skip;
                let mut run = 0;
                while off + run < PAGE && p.written[(off + run) / 64] & (1 << ((off + run) % 64)) != 0 {
                    if (off + run).is_multiple_of(64) && p.written[(off + run) / 64] == u64::MAX {
                        run += 64;
                    } else {
                        run += 1;
                    }
                }
                self.write_mapped(start + off as u64, &p.data[off..off + run]);
                off += run;
            }
        }
    }
}

/// A multiplicative hasher for page numbers.
#[derive(Default)]
pub struct PageHasher(u64);

impl Hasher for PageHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (n ^ self.0).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// One private page: the bytes this SM wrote (and which ones).
struct Page {
    data: [u8; PAGE],
    written: [u64; PAGE / 64],
}

/// Private pages of one SM over the shared memory.
#[derive(Default)]
pub struct Overlay {
    pages: Vec<Box<Page>>,
    index: HashMap<u64, u32, BuildHasherDefault<PageHasher>>,
    /// The page of the last access and its index.
    last: Option<(u64, u32)>,
}

impl Overlay {
    /// The index of page `n`, if the overlay has it.
    #[inline]
    fn find(&mut self, n: u64) -> Option<usize> {
        if let Some((p, i)) = self.last
            && p == n
        {
            return Some(i as usize);
        }
        let i = *self.index.get(&n)?;
        self.last = Some((n, i));
        Some(i as usize)
    }

    /// Replaces the bytes of `out` (read from memory at `addr`, at most 16 naturally
    /// aligned bytes) that this overlay has written.
    #[inline(always)]
    fn read(&mut self, addr: u64, base: &[u8], out: &mut [u8]) {
        let page = addr / PAGE as u64;
        let in_page = (addr % PAGE as u64) as usize;
        let n = out.len();
        match self.find(page) {
            Some(p) if in_page + n <= PAGE => {
                // The page holds only the bytes this SM wrote; the rest comes from memory.
                let page = &self.pages[p];
                let bits = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
                let written = (page.written[in_page / 64] >> (in_page % 64)) & bits;
                if written == bits {
                    out.copy_from_slice(&page.data[in_page..in_page + n]);
                } else if written == 0 {
                    out.copy_from_slice(base);
                } else {
                    for (k, o) in out.iter_mut().enumerate() {
                        *o = if written & (1 << k) != 0 {
                            page.data[in_page + k]
                        } else {
                            base[k]
                        };
                    }
                }
            }
            _ => out.copy_from_slice(base),
        }
    }

    /// Records `data` (at most 16 naturally aligned bytes, within one page) at `addr`.
    #[inline(always)]
    fn write(&mut self, addr: u64, data: &[u8]) {
        let off = (addr % PAGE as u64) as usize;
        let i = self.get_or_create(addr / PAGE as u64);
        let p = &mut self.pages[i];
        p.data[off..off + data.len()].copy_from_slice(data);
        // Accesses are naturally aligned: never across a 64-byte word of the mask.
        let bits = if data.len() >= 64 {
            u64::MAX
        } else {
            (1u64 << data.len()) - 1
        };
        p.written[off / 64] |= bits << (off % 64);
    }

    /// The index of page `n`, created if needed.
    #[inline]
    fn get_or_create(&mut self, n: u64) -> usize {
        if let Some(i) = self.find(n) {
            return i;
        }
        let p = Box::new(Page {
            data: [0; PAGE],
            written: [0; PAGE / 64],
        });
        let i = self.pages.len() as u32;
        self.pages.push(p);
        self.index.insert(n, i);
        self.last = Some((n, i));
        i as usize
    }
}

/// How a kernel sees global memory.
pub enum GlobalView<'a> {
    /// Direct access (sequential execution).
    Direct {
        /// The memory.
        mem: &'a mut GlobalMemory,
        /// Allocation of the last access.
        hint: usize,
    },
    /// Shared read-only memory plus private pages.
    Overlay {
        /// The memory as of the launch.
        mem: &'a GlobalMemory,
        /// This SM's pages.
        overlay: &'a mut Overlay,
        /// Allocation of the last access.
        hint: usize,
    },
}

impl GlobalView<'_> {
    /// A view straight onto `mem`.
    pub fn direct(mem: &mut GlobalMemory) -> GlobalView<'_> {
        GlobalView::Direct { mem, hint: 0 }
    }

    /// The driver functions' state; `None` in a private overlay (CTAs running in parallel
    /// never call them: such kernels run on the memory itself).
    pub fn driver(&mut self) -> Option<&mut DriverState> {
        match self {
            GlobalView::Direct { mem, .. } => Some(&mut mem.driver),
            GlobalView::Overlay { .. } => None,
        }
    }

    /// `malloc` on the device heap (see [`GlobalMemory::heap_alloc`]); `None` in an overlay.
    pub fn heap_alloc(&mut self, size: u64) -> Option<u64> {
        match self {
            GlobalView::Direct { mem, .. } => mem.heap_alloc(size),
            GlobalView::Overlay { .. } => None,
        }
    }

    /// Reads `out.len()` (at most 16, naturally aligned) bytes at `addr`.
    #[inline(always)]
    pub fn read(&mut self, addr: u64, out: &mut [u8]) -> Access {
        match self {
            GlobalView::Direct { mem, hint } => {
                let Some((i, off, how)) = mem.locate(addr, out.len(), hint) else {
                    return Access::Fault;
                };
                out.copy_from_slice(&mem.allocs[i].data[off..off + out.len()]);
                how
            }
            GlobalView::Overlay { mem, overlay, hint } => {
                let Some((i, off, how)) = mem.locate(addr, out.len(), hint) else {
                    return Access::Fault;
                };
                overlay.read(addr, &mem.allocs[i].data[off..off + out.len()], out);
                how
            }
        }
    }

    /// Writes `data` (at most 16, naturally aligned bytes) at `addr`.
    #[inline(always)]
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Access {
        match self {
            GlobalView::Direct { mem, hint } => {
                let Some((i, off, how)) = mem.locate(addr, data.len(), hint) else {
                    return Access::Fault;
                };
                mem.allocs[i].data[off..off + data.len()].copy_from_slice(data);
                how
            }
            GlobalView::Overlay { mem, overlay, hint } => {
                let Some((_, _, how)) = mem.locate(addr, data.len(), hint) else {
                    return Access::Fault;
                };
                let off = (addr % PAGE as u64) as usize;
                if off + data.len() > PAGE {
                    // Never for naturally aligned accesses of at most 16 bytes.
                    let split = PAGE - off;
                    let mut view = GlobalView::Overlay {
                        mem,
                        overlay,
                        hint: *hint,
                    };
                    let first = view.write(addr, &data[..split]);
                    let second = view.write(addr + split as u64, &data[split..]);
                    return if first == Access::Ok { second } else { first };
                }
                overlay.write(addr, data);
                how
            }
        }
    }

    /// The allocation data that holds `[lo, hi)` inside its requested size (an access the
    /// hardware does without fault or stray bytes), from `lo` on.
    #[inline(always)]
    fn span(&mut self, lo: u64, hi: u64) -> Option<&[u8]> {
        let (mem, hint): (&GlobalMemory, &mut usize) = match self {
            GlobalView::Direct { mem, hint } => (mem, hint),
            GlobalView::Overlay { mem, hint, .. } => (mem, hint),
        };
        let len = usize::try_from(hi.checked_sub(lo)?).ok()?;
        match mem.locate(lo, len, hint)? {
            (i, off, Access::Ok) => Some(&mem.allocs[i].data[off..off + len]),
            _ => None,
        }
    }

    /// Reads `N` (naturally aligned) bytes for every lane of `exec` at `addrs[lane]` when
    /// all of them lie inside one allocation; `false` (nothing read) otherwise, and the
    /// caller goes lane by lane.
    #[inline(always)]
    pub fn read_lanes<const N: usize>(&mut self, addrs: &[u64; 32], exec: u32, out: &mut [[u8; N]; 32]) -> bool {
        let Some((lo, hi)) = bounds::<N>(addrs, exec) else {
            return false;
        };
        let Some(span) = self.span(lo, hi) else {
            return false;
        };
        // The span borrows the memory; the overlay (if any) is read after copying.
        let mut l_mask = exec;
        while l_mask != 0 {
            let l = l_mask.trailing_zeros() as usize;
            l_mask &= l_mask - 1;
            let at = (addrs[l] - lo) as usize;
            out[l].copy_from_slice(&span[at..at + N]);
        }
        if let GlobalView::Overlay { overlay, .. } = self
            && !overlay.pages.is_empty()
        {
            let mut l_mask = exec;
            while l_mask != 0 {
                let l = l_mask.trailing_zeros() as usize;
                l_mask &= l_mask - 1;
                let base = out[l];
                overlay.read(addrs[l], &base, &mut out[l]);
            }
        }
        true
    }

    /// Writes `N` (naturally aligned) bytes for every lane of `exec` at `addrs[lane]` when
    /// all of them lie inside one allocation, in lane order; `false` (nothing written)
    /// otherwise.
    #[inline(always)]
    pub fn write_lanes<const N: usize>(&mut self, addrs: &[u64; 32], exec: u32, data: &[[u8; N]; 32]) -> bool {
        let Some((lo, hi)) = bounds::<N>(addrs, exec) else {
            return false;
        };
        match self {
            GlobalView::Direct { mem, hint } => {
                let len = (hi - lo) as usize;
                let Some((i, off, Access::Ok)) = mem.locate(lo, len, hint) else {
                    return false;
                };
                let span = &mut mem.allocs[i].data[off..off + len];
                let mut l_mask = exec;
                while l_mask != 0 {
                    let l = l_mask.trailing_zeros() as usize;
                    l_mask &= l_mask - 1;
                    let at = (addrs[l] - lo) as usize;
                    span[at..at + N].copy_from_slice(&data[l]);
                }
            }
            GlobalView::Overlay { mem, overlay, hint } => {
                let Some((_, _, Access::Ok)) = mem.locate(lo, (hi - lo) as usize, hint) else {
                    return false;
                };
                let mut l_mask = exec;
                while l_mask != 0 {
                    let l = l_mask.trailing_zeros() as usize;
                    l_mask &= l_mask - 1;
                    overlay.write(addrs[l], &data[l]);
                }
            }
        }
        true
    }
}

/// The range `[min, max + N)` of the addresses of `exec`, if none is empty and the range is
/// small enough to be one allocation's.
#[inline(always)]
fn bounds<const N: usize>(addrs: &[u64; 32], exec: u32) -> Option<(u64, u64)> {
    if exec == 0 {
        return None;
    }
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    let mut l_mask = exec;
    while l_mask != 0 {
        let l = l_mask.trailing_zeros() as usize;
        l_mask &= l_mask - 1;
        lo = lo.min(addrs[l]);
        hi = hi.max(addrs[l]);
    }
    Some((lo, hi.checked_add(N as u64)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accesses_are_bounded_by_their_allocation() {
        let mut m = GlobalMemory::new();
        let a = m.alloc(10);
        let b = m.alloc(4);
        assert!(b >= a + 10);
        assert!(m.write(a + 8, &[1, 2]).is_some());
        assert!(m.write(a + 9, &[1, 2]).is_none());
        assert!(m.read(b - 1, &mut [0; 1]).is_none());
        let mut x = [0u8; 2];
        m.read(a + 8, &mut x).unwrap();
        assert_eq!(x, [1, 2]);
        let mut view = GlobalView::direct(&mut m);
        assert_eq!(view.write(a + 9, &[1, 2]), Access::Stray);
        assert_eq!(view.read(a + GRANULE - 4, &mut [0; 4]), Access::Stray);
        assert_eq!(view.read(a - 4, &mut [0; 4]), Access::Fault);
    }

    #[test]
    fn freed_allocations_fault_and_others_keep_their_bytes() {
        let mut m = GlobalMemory::at(0x1234);
        let a = m.alloc(100);
        let b = m.alloc(600);
        let c = m.alloc(8);
        assert_eq!(a, 0x1400);
        m.write(c, &[5; 8]).unwrap();
        assert_eq!(m.allocation(b + 599), Some((b, 600)));
        assert_eq!(m.allocation(b + 600), None);
        assert_eq!(m.allocated(), 708);
        assert_eq!(m.free(b + 1), None);
        assert_eq!(m.free(b), Some(600));
        assert_eq!(m.free(b), None);
        assert!(m.read(b, &mut [0; 1]).is_none());
        assert_eq!(m.allocation(b), None);
        assert_eq!(m.copy_out(c, 8).unwrap(), vec![5; 8]);
        let d = m.alloc(1);
        assert!(d > c, "freed addresses are not handed out again");
        assert_eq!(m.allocated(), 109);
    }

    #[test]
    fn overlays_see_their_own_writes_and_merge_in_order() {
        let mut m = GlobalMemory::new();
        let a = m.alloc(8192 + 10);
        m.write(a, &[7; 4]).unwrap();
        let (mut o1, mut o2) = (Overlay::default(), Overlay::default());
        {
            let mut v1 = GlobalView::Overlay {
                mem: &m,
                overlay: &mut o1,
                hint: 0,
            };
            assert_eq!(v1.write(a + 1, &[1]), Access::Ok);
            let mut x = [0u8; 4];
            assert_eq!(v1.read(a, &mut x), Access::Ok);
            assert_eq!(x, [7, 1, 7, 7]);
            assert_eq!(v1.write(a + 8192 + 100, &[1]), Access::Stray);
            assert_eq!(v1.write(a + 8192 + GRANULE, &[1]), Access::Fault);
        }
        {
            let mut v2 = GlobalView::Overlay {
                mem: &m,
                overlay: &mut o2,
                hint: 0,
            };
            let mut x = [0u8; 4];
            assert_eq!(v2.read(a, &mut x), Access::Ok);
            assert_eq!(x, [7; 4]);
            assert_eq!(v2.write(a + 1, &[2]), Access::Ok);
            assert_eq!(v2.write(a + 4100, &[3]), Access::Ok);
        }
        m.merge(o1);
        m.merge(o2);
        assert_eq!(m.copy_out(a, 4).unwrap(), vec![7, 2, 7, 7]);
        assert_eq!(m.copy_out(a + 4100, 1).unwrap(), vec![3]);
    }

    #[test]
    fn warp_wide_accesses_match_lane_by_lane_ones() {
        let mut m = GlobalMemory::new();
        let a = m.alloc(4096 + 256);
        let mut addrs = [0u64; 32];
        for (l, x) in addrs.iter_mut().enumerate() {
            // Lanes 2 apart in a strided pattern that crosses a page.
            *x = a + 4096 - 64 + 4 * (31 - l as u64);
        }
        let data: [[u8; 4]; 32] = std::array::from_fn(|l| [l as u8; 4]);
        let mut o = Overlay::default();
        let mut v = GlobalView::Overlay {
            mem: &m,
            overlay: &mut o,
            hint: 0,
        };
        assert!(v.write_lanes(&addrs, 0xffff_0000, &data));
        let mut out = [[0u8; 4]; 32];
        assert!(v.read_lanes(&addrs, u32::MAX, &mut out));
        for (l, got) in out.iter().enumerate() {
            let want = if l >= 16 { [l as u8; 4] } else { [0; 4] };
            assert_eq!(*got, want, "lane {l}");
        }
        // A lane outside the allocation proper: the caller goes lane by lane.
        addrs[5] = a + 4096 + 256;
        assert!(!v.read_lanes(&addrs, u32::MAX, &mut out));
        assert!(!v.write_lanes(&addrs, u32::MAX, &data));
        assert!(v.read_lanes(&addrs, !(1 << 5), &mut out));
        let mut d = GlobalView::direct(&mut m);
        assert!(d.write_lanes(&addrs, 1 << 7, &data));
        assert_eq!(m.copy_out(addrs[7], 4).unwrap(), vec![7; 4]);
    }
}
