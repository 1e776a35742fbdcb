//! Register-file bank conflicts and the operand reuse cache of one warp (MICRO 2025,
//! section 5.3): two banks (register index mod 2); sources of a fixed-latency instruction
//! that fall in the same bank cost one issue bubble each beyond the first, unless the reuse
//! cache (one entry per operand slot A, B, C, set by the `.reuse` flag) supplies them.

use crate::decoded::{Decoded, Src};
use ptxc_sass::isa::RZ;

/// The reuse cache of one warp.
#[derive(Clone, Debug, Default)]
pub struct ReuseCache {
    slots: [Option<u8>; 3],
}

/// Outcome of reading an instruction's register operands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OperandRead {
    /// Issue bubbles caused by bank conflicts.
    pub bubbles: u32,
    /// Operands served by the reuse cache.
    pub reuse_hits: u32,
}

impl ReuseCache {
    /// Reads the A, B, C register operands of `d` and updates the cache.
    pub fn read(&mut self, d: &Decoded) -> OperandRead {
        let regs = [&d.a, &d.b, &d.c].map(|s| match s.src {
            Src::Reg(r) if r != RZ => Some(r),
            _ => None,
        });
        let mut per_bank = [0u32; 2];
        let mut hits = 0;
        for (slot, reg) in regs.iter().enumerate() {
            let Some(r) = *reg else {
                self.slots[slot] = None;
                continue;
            };
            if self.slots[slot] == Some(r) {
                hits += 1;
            } else {
                per_bank[r as usize % 2] += 1;
            }
            let keep = d.ctrl.reuse & (1 << slot) != 0;
            self.slots[slot] = keep.then_some(r);
        }
        let bubbles = if d.timing.coupled {
            per_bank.iter().map(|&n| n.saturating_sub(1)).max().unwrap_or(0)
        } else {
            0
        };
        OperandRead {
            bubbles,
            reuse_hits: hits,
        }
    }
}
