//! Memory of the interpreter: the global memory trait, the module-variable region, and the
//! layout of shared and local variables.

use crate::ir::{Function, Space};

/// Where a global access landed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Inside an allocation.
    Inside,
    /// Past the end of an allocation, inside the memory it maps: hardware allocates in
    /// granules (512 bytes for cudaMalloc) and does not fault there. A stray access; the
    /// interpreter counts it, as the simulator does.
    Stray,
}

/// Global memory as the caller provides it (the CLI backs it with the simulator's device,
/// whose kernel-side accesses follow the hardware's rules: see [`Placement`]).
pub trait GlobalMemory {
    /// Reads `out.len()` bytes at `addr`; an error outside every mapped allocation.
    fn read(&mut self, addr: u64, out: &mut [u8]) -> Result<Placement, String>;
    /// Writes `data` at `addr`; an error outside every mapped allocation.
    fn write(&mut self, addr: u64, data: &[u8]) -> Result<Placement, String>;
}

/// A flat global memory of `bytes.len()` bytes starting at `base` (for tests and tools).
#[derive(Clone, Debug, Default)]
pub struct VecMemory {
    /// Address of the first byte.
    pub base: u64,
    /// Contents.
    pub bytes: Vec<u8>,
}

impl VecMemory {
    fn range(&self, addr: u64, len: usize) -> Result<std::ops::Range<usize>, String> {
        let start = addr.checked_sub(self.base).ok_or("address below global memory")? as usize;
        let end = start.checked_add(len).ok_or("address overflow")?;
        if end > self.bytes.len() {
            return Err(format!("global address {addr:#x} (+{len}) is outside every allocation"));
        }
        Ok(start..end)
    }
}

impl GlobalMemory for VecMemory {
    fn read(&mut self, addr: u64, out: &mut [u8]) -> Result<Placement, String> {
        let r = self.range(addr, out.len())?;
        out.copy_from_slice(&self.bytes[r]);
        Ok(Placement::Inside)
    }

    fn write(&mut self, addr: u64, data: &[u8]) -> Result<Placement, String> {
        let r = self.range(addr, data.len())?;
        self.bytes[r].copy_from_slice(data);
        Ok(Placement::Inside)
    }
}

/// Where module `.global` and `.const` variables live.
pub const MODULE_BASE: u64 = 0x7fe0_0000_0000;

/// Byte offsets of a kernel's variables in their spaces, and the sizes of the spaces.
pub struct Layout {
    /// Offset of each variable of `Function::vars` (module region, shared or local).
    pub offsets: Vec<u64>,
    /// Module region contents (initialised): `.global` variables.
    pub module: Vec<u8>,
    /// Constant bank contents: `.const` variables, whose addresses are offsets in it (as
    /// in constant bank 3 of the hardware).
    pub constant: Vec<u8>,
    /// Static shared bytes (dynamic shared memory starts here).
    pub shared_static: u64,
    /// Local bytes per thread.
    pub local: u64,
}

fn align_up(x: u64, a: u64) -> u64 {
    x.div_ceil(a.max(1)) * a.max(1)
}

impl Layout {
    /// Lays out the variables of `func`; shared ones start after the `reserved_shared` bytes
    /// when the kernel has any, and dynamic shared arrays (size 0) all start at the end of
    /// the static ones, aligned to 16.
    pub fn new(func: &Function, reserved_shared: u32) -> Layout {
        let has_shared = func.vars.iter().any(|v| v.space == Space::Shared);
        let shared = if has_shared { u64::from(reserved_shared) } else { 0 };
        let (mut module, mut constant, mut shared, mut local) = (Vec::new(), Vec::new(), shared, 0u64);
        let mut offsets = vec![0; func.vars.len()];
        for (i, v) in func.vars.iter().enumerate() {
            let a = v.align as u64;
            match v.space {
                Space::Const => {
                    let off = align_up(constant.len() as u64, a);
                    constant.resize(off as usize, 0);
                    let mut init = v.init.clone().unwrap_or_default();
                    init.resize(v.size as usize, 0);
                    constant.extend(init);
                    offsets[i] = off;
                }
                Space::Global | Space::Param | Space::Generic | Space::SharedCluster => {
                    let off = align_up(module.len() as u64, a);
                    module.resize(off as usize, 0);
                    let mut init = v.init.clone().unwrap_or_default();
                    init.resize(v.size as usize, 0);
                    module.extend(init);
                    offsets[i] = off;
                }
                Space::Shared if v.size > 0 => {
                    shared = align_up(shared, a);
                    offsets[i] = shared;
                    shared += v.size;
                }
                Space::Shared => {}
                Space::Local => {
                    local = align_up(local, a);
                    offsets[i] = local;
                    local += v.size;
                }
            }
        }
        // Slack after the variables: hardware reads past an array without faulting.
        module.resize(module.len() + 0x1_0000, 0);
        constant.resize(constant.len() + 0x1_0000, 0);
        for (i, v) in func.vars.iter().enumerate() {
            for &(off, target) in &v.relocs {
                let addr = match func.vars[target as usize].space {
                    Space::Shared | Space::Local | Space::Const => offsets[target as usize],
                    _ => MODULE_BASE + offsets[target as usize],
                };
                let at = (offsets[i] + off) as usize;
                let bytes = if v.space == Space::Const {
                    &mut constant
                } else {
                    &mut module
                };
                bytes[at..at + 8].copy_from_slice(&addr.to_le_bytes());
            }
        }
        let shared_static = align_up(shared, 16);
        for (i, v) in func.vars.iter().enumerate() {
            if v.space == Space::Shared && v.size == 0 {
                offsets[i] = shared_static;
            }
        }
        Layout {
            offsets,
            module,
            constant,
            shared_static,
            local,
        }
    }

    /// The address of variable `i` in its own space.
    pub fn address(&self, func: &Function, i: usize) -> u64 {
        match func.vars[i].space {
            Space::Shared | Space::Local | Space::Const => self.offsets[i],
            _ => MODULE_BASE + self.offsets[i],
        }
    }
}
