//! The state of one warp: registers (one 32-lane row per register), predicates as lane
//! masks, a program counter per thread (Volta-style independent thread scheduling), the
//! convergence-barrier masks, and which lanes are blocked.

use crate::decoded::PredOp;
use ptxc_backend::isa::{PT, RZ};

/// Lanes per warp.
pub const WARP: usize = 32;

/// One warp.
#[derive(Clone, Debug)]
pub struct Warp {
    /// Warp index within its CTA.
    pub index: u32,
    /// General registers: `regs[r][lane]`; RZ (255) stays zero.
    pub regs: Vec<[u32; WARP]>,
    /// Uniform registers (warp-wide values).
    pub uregs: [u32; 64],
    /// Predicates as lane masks; P7 (PT) is all ones.
    pub preds: [u32; 8],
    /// Per-thread program counters (byte offsets).
    pub pc: [u32; WARP],
    /// Lanes that exist and have not exited.
    pub alive: u32,
    /// Lanes waiting at a BSYNC or a CTA barrier.
    pub blocked: u32,
    /// Convergence barriers B0..B15: the lanes that must reach the matching BSYNC.
    pub conv: [u32; 16],
    /// Lanes waiting at BSYNC Bn.
    pub bsync_wait: [u32; 16],
    /// Lanes waiting at each CTA barrier.
    pub bar_wait: [u32; 16],
    /// Thread index of each lane.
    pub tid: [[u32; 3]; WARP],
}

impl Warp {
    /// A warp of a CTA with `ntid` threads per dimension; `first` is its first linear thread.
    pub fn new(index: u32, ntid: [u32; 3], nregs: usize) -> Warp {
        let total = ntid[0] * ntid[1] * ntid[2];
        let first = index * WARP as u32;
        let mut tid = [[0; 3]; WARP];
        let mut alive = 0;
        for (lane, t) in tid.iter_mut().enumerate() {
            let linear = first + lane as u32;
            if linear < total {
                alive |= 1 << lane;
                *t = [
                    linear % ntid[0],
                    linear / ntid[0] % ntid[1],
                    linear / (ntid[0] * ntid[1]),
                ];
            }
        }
        let mut preds = [0; 8];
        preds[PT as usize] = u32::MAX;
        Warp {
            index,
            regs: vec![[0; WARP]; nregs.max(1).max(RZ as usize + 1)],
            uregs: [0; 64],
            preds,
            pc: [0; WARP],
            alive,
            blocked: 0,
            conv: [0; 16],
            bsync_wait: [0; 16],
            bar_wait: [0; 16],
            tid,
        }
    }

    /// The lanes to run next: the runnable lanes at the lowest program counter.
    pub fn next_group(&self) -> Option<(u32, u32)> {
        let runnable = self.alive & !self.blocked;
        if runnable == 0 {
            return None;
        }
        let mut pc = u32::MAX;
        for lane in lanes(runnable) {
            pc = pc.min(self.pc[lane]);
        }
        let mask = lanes(runnable).filter(|&l| self.pc[l] == pc).fold(0, |m, l| m | 1 << l);
        Some((pc, mask))
    }

    /// The lanes of `mask` where the predicate holds.
    pub fn pred_mask(&self, p: PredOp, mask: u32) -> u32 {
        let v = self.preds[p.idx as usize & 7];
        mask & if p.neg { !v } else { v }
    }

    /// Sets predicate `p` to `value` in the lanes of `mask`.
    pub fn set_pred(&mut self, p: u8, mask: u32, value: u32) {
        if p != PT {
            let v = &mut self.preds[p as usize];
            *v = (*v & !mask) | (value & mask);
        }
    }

    /// Register `r` of `lane` (RZ reads zero).
    #[inline]
    pub fn reg(&self, r: u8, lane: usize) -> u32 {
        if r == RZ { 0 } else { self.regs[r as usize][lane] }
    }

    /// Writes register `r` of `lane` (writes to RZ are dropped).
    #[inline]
    pub fn set_reg(&mut self, r: u8, lane: usize, v: u32) {
        if r != RZ {
            self.regs[r as usize][lane] = v;
        }
    }

    /// Register pair `r:r+1` of `lane` as a 64-bit value.
    #[inline]
    pub fn reg64(&self, r: u8, lane: usize) -> u64 {
        if r == RZ {
            0
        } else {
            self.reg(r, lane) as u64 | (self.reg(r + 1, lane) as u64) << 32
        }
    }

    /// Writes the pair `r:r+1`.
    #[inline]
    pub fn set_reg64(&mut self, r: u8, lane: usize, v: u64) {
        if r != RZ {
            self.set_reg(r, lane, v as u32);
            self.set_reg(r + 1, lane, (v >> 32) as u32);
        }
    }

    /// Advances the lanes of `mask` to the next instruction.
    pub fn advance(&mut self, mask: u32) {
        for l in lanes(mask) {
            self.pc[l] += 16;
        }
    }
}

/// Iterates over the lane indexes set in `mask`.
#[inline]
pub fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    let mut m = mask;
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(l)
        }
    })
}
