//! What one CTA's instructions see besides their warp: the kernel, constant banks, global
//! and shared memory, the CTA's coordinates, and the launch statistics.

use super::warp::Warp;
use crate::decoded::{Src, SrcOp};
use crate::error::Location;
use crate::memory::GlobalMemory;
use crate::module::Kernel;
use crate::stats::Stats;

/// Generic-address window of shared memory (`c[0x0][0x18]`).
pub const SHARED_WINDOW: u64 = 0x7ff0_0000_0000;
/// Generic-address window of local memory (`c[0x0][0x20]`).
pub const LOCAL_WINDOW: u64 = 0x7ff8_0000_0000;

/// Constant banks visible to a launch (bank 0 = driver layout and parameters).
#[derive(Clone, Debug, Default)]
pub struct ConstBanks {
    /// Bank contents by bank number.
    pub banks: Vec<Vec<u8>>,
}

impl ConstBanks {
    /// The 32-bit word at `bank[offset]` (0 outside the bank).
    pub fn read32(&self, bank: u8, offset: i64) -> u32 {
        let Some(b) = self.banks.get(bank as usize) else {
            return 0;
        };
        if offset < 0 {
            return 0;
        }
        let o = offset as usize;
        match b.get(o..o + 4) {
            Some(w) => u32::from_le_bytes(w.try_into().expect("4 bytes")),
            None => 0,
        }
    }
}

/// The state a CTA's warps share: coordinates, shared memory, barrier counts.
#[derive(Clone, Debug)]
pub struct CtaShared {
    /// Block index.
    pub ctaid: [u32; 3],
    /// Shared memory (static + dynamic).
    pub shared: Vec<u8>,
    /// Threads waiting at each barrier.
    pub bar_arrived: [u32; 16],
    /// Threads that have not exited.
    pub live_threads: u32,
}

/// What an instruction sees besides its warp.
pub struct Ctx<'a> {
    /// The kernel.
    pub kernel: &'a Kernel,
    /// Constant banks.
    pub consts: &'a ConstBanks,
    /// Global memory.
    pub global: &'a mut GlobalMemory,
    /// The warp's CTA.
    pub cta: &'a mut CtaShared,
    /// Statistics of the launch.
    pub stats: &'a mut Stats,
}

impl Ctx<'_> {
    /// A 32-bit source value for `lane` (modifiers not applied).
    #[inline]
    pub fn src32(&self, w: &Warp, s: &SrcOp, lane: usize) -> u32 {
        match s.src {
            Src::Reg(r) => w.reg(r, lane),
            Src::UReg(r) => {
                if r == 63 {
                    0
                } else {
                    w.uregs[r as usize]
                }
            }
            Src::Imm(v) => v as u32,
            Src::Const { bank, offset, reg } => {
                let idx = reg.map_or(0, |r| w.reg(r, lane) as i32 as i64);
                self.consts.read32(bank, offset as i64 + idx)
            }
            Src::None => 0,
        }
    }

    /// A 64-bit source (register pair, 64-bit constant, or zero-extended immediate).
    #[inline]
    pub fn src64(&self, w: &Warp, s: &SrcOp, lane: usize) -> u64 {
        match s.src {
            Src::Reg(r) => w.reg64(r, lane),
            Src::Const { bank, offset, reg } => {
                let idx = reg.map_or(0, |r| w.reg(r, lane) as i32 as i64);
                let o = offset as i64 + idx;
                self.consts.read32(bank, o) as u64 | (self.consts.read32(bank, o + 4) as u64) << 32
            }
            _ => self.src32(w, s, lane) as u64,
        }
    }

    /// The location of `lane` of `w` at `pc`, for error messages.
    pub fn at(&self, w: &Warp, lane: usize, pc: u32) -> Location {
        Location {
            kernel: self.kernel.name.clone(),
            ctaid: self.cta.ctaid,
            tid: w.tid[lane],
            pc,
        }
    }
}
