//! Global memory: a 64-bit address space of separate allocations; every access is checked
//! against the allocation it falls in.

use crate::error::SimError;
use std::collections::BTreeMap;

/// Where the first allocation starts (CUDA-like addresses, and never near 0).
const HEAP_BASE: u64 = 0x7f00_0000_0000;
/// Allocations are aligned (and separated) like cudaMalloc's.
const ALIGN: u64 = 256;

/// The device's global memory.
#[derive(Clone, Debug, Default)]
pub struct GlobalMemory {
    allocs: BTreeMap<u64, Vec<u8>>,
    next: u64,
}

impl GlobalMemory {
    /// An empty address space.
    pub fn new() -> GlobalMemory {
        GlobalMemory {
            allocs: BTreeMap::new(),
            next: HEAP_BASE,
        }
    }

    /// Allocates `size` zeroed bytes and returns the device address.
    pub fn alloc(&mut self, size: usize) -> u64 {
        let base = self.next;
        self.allocs.insert(base, vec![0; size]);
        self.next = (base + size.max(1) as u64).div_ceil(ALIGN) * ALIGN + ALIGN;
        base
    }

    /// The allocation containing `[addr, addr+len)` and the offset into it.
    fn find(&self, addr: u64, len: usize) -> Option<(u64, usize)> {
        let (&base, data) = self.allocs.range(..=addr).next_back()?;
        let off = (addr - base) as usize;
        (off.checked_add(len)? <= data.len()).then_some((base, off))
    }

    /// Reads `out.len()` bytes at `addr`; `None` if outside every allocation.
    pub fn read(&self, addr: u64, out: &mut [u8]) -> Option<()> {
        let (base, off) = self.find(addr, out.len())?;
        out.copy_from_slice(&self.allocs[&base][off..off + out.len()]);
        Some(())
    }

    /// Writes `data` at `addr`; `None` if outside every allocation.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Option<()> {
        let (base, off) = self.find(addr, data.len())?;
        self.allocs.get_mut(&base)?[off..off + data.len()].copy_from_slice(data);
        Some(())
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
    }
}
