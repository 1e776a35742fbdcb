//! The state of one warp: registers (one 32-lane row per register), uniform registers,
//! predicates as lane masks, a program counter per thread (Volta-style independent thread
//! scheduling), convergence-barrier masks, which lanes are blocked, and per-thread local
//! memory.
//!
//! Program counters: while every runnable lane is at the same address, the warp keeps one
//! program counter for all of them (`uniform`) and the per-lane array is stale for those
//! lanes; any operation that splits the lanes first writes it back ([`Warp::materialize`]).

use super::convergence::ConvBarriers;
use crate::decoded::PredOp;
use ptxc_sass::isa::{PT, RZ, URZ};

/// Lanes per warp.
pub const WARP: usize = 32;

/// One register: a value per lane.
pub type Row = [u32; WARP];

/// One warp.
#[derive(Clone, Debug)]
pub struct Warp {
    /// Warp index within its CTA.
    pub index: u32,
    /// General registers: `regs[r][lane]`; RZ reads zero.
    pub regs: Vec<Row>,
    /// Values registers had before their latest write (what an early reader sees).
    pub old_regs: Vec<Row>,
    /// Uniform registers (warp-wide values); URZ reads zero.
    pub uregs: [u32; 64],
    /// Predicates as lane masks; P7 (PT) is all ones.
    pub preds: [u32; 8],
    /// Predicate values before their latest write.
    pub old_preds: [u32; 8],
    /// Uniform predicates (bit 0 of each; UPT = true).
    pub upreds: [bool; 8],
    /// Per-thread program counters (byte offsets); stale for the lanes of `uniform`.
    pc: [u32; WARP],
    /// `(pc, lanes)`: every lane of `lanes` is at `pc`.
    uniform: Option<(u32, u32)>,
    /// Lanes that exist and have not exited.
    pub alive: u32,
    /// Lanes waiting at a BSYNC, WARPSYNC or a CTA barrier.
    pub blocked: u32,
    /// Convergence barriers B0..B15 (each lane's record) and the lanes waiting at BSYNC.
    pub conv: ConvBarriers,
    /// Lanes waiting at a WARPSYNC, and the lanes they wait for.
    pub warpsync_wait: u32,
    /// The lanes the waiting WARPSYNC lanes wait for.
    pub warpsync_mask: u32,
    /// Lanes waiting at a `WARPSYNC.EXCLUSIVE`: `(mask, waiting lanes)`, one entry a mask.
    pub exclusive_waits: Vec<(u32, u32)>,
    /// Lanes that run alone after a `WARPSYNC.EXCLUSIVE` (0: no such group): the other lanes
    /// wait until every one of them has blocked or exited, or lanes reconverge.
    pub exclusive: u32,
    /// Lanes waiting at each CTA barrier.
    pub bar_wait: [u32; 16],
    /// The lanes' state at the cluster barrier (`barrier.cluster`).
    pub cga: ClusterBarrierLanes,
    /// Thread index of each lane.
    pub tid: [[u32; 3]; WARP],
    /// Per-thread local memory (`local_bytes` per lane, allocated on first use).
    pub local: Vec<u8>,
    /// Bytes of local memory per thread.
    pub local_bytes: u32,
}

/// A warp's lanes at the cluster barrier: arrived in the current phase, arrived in a phase
/// that has completed (their wait passes), and blocked in `UCGABAR_WAIT`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClusterBarrierLanes {
    /// Arrived (`UCGABAR_ARV`) in the phase under way.
    pub arrived: u32,
    /// Arrived in a completed phase and not yet past their wait.
    pub passed: u32,
    /// Blocked in `UCGABAR_WAIT`.
    pub waiting: u32,
}

impl Warp {
    /// Warp `index` of a CTA with `ntid` threads per dimension, with `nregs` registers and
    /// `local_bytes` of local memory per thread.
    pub fn new(index: u32, ntid: [u32; 3], nregs: usize, local_bytes: u32) -> Warp {
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
        let mut upreds = [false; 8];
        upreds[PT as usize] = true;
        Warp {
            index,
            regs: vec![[0; WARP]; nregs.max(1)],
            old_regs: vec![[0; WARP]; nregs.max(1)],
            uregs: [0; 64],
            preds,
            old_preds: preds,
            upreds,
            pc: [0; WARP],
            uniform: Some((0, alive)),
            alive,
            blocked: 0,
            conv: ConvBarriers::default(),
            warpsync_wait: 0,
            warpsync_mask: 0,
            exclusive_waits: Vec::new(),
            exclusive: 0,
            bar_wait: [0; 16],
            cga: ClusterBarrierLanes::default(),
            tid,
            local: Vec::new(),
            local_bytes,
        }
    }

    /// Lanes that may run (alive and not blocked; of an exclusive group, if any).
    #[inline]
    pub fn runnable(&self) -> u32 {
        let r = self.alive & !self.blocked;
        if self.exclusive != 0 { r & self.exclusive } else { r }
    }

    /// Ends the exclusive group once none of its lanes can run.
    fn end_exclusive_if_done(&mut self) {
        if self.exclusive & self.alive & !self.blocked == 0 {
            self.exclusive = 0;
        }
    }

    /// The lanes to run next: the runnable lanes at the lowest program counter.
    #[inline]
    pub fn next_group(&mut self) -> Option<(u32, u32)> {
        let runnable = self.runnable();
        if runnable == 0 {
            return None;
        }
        if let Some((pc, mask)) = self.uniform
            && mask == runnable
        {
            return Some((pc, mask));
        }
        self.materialize();
        let mut pc = u32::MAX;
        for lane in lanes(runnable) {
            pc = pc.min(self.pc[lane]);
        }
        let mask = lanes(runnable).filter(|&l| self.pc[l] == pc).fold(0, |m, l| m | 1 << l);
        if mask == runnable {
            self.uniform = Some((pc, mask));
        }
        Some((pc, mask))
    }

    /// The program counter of the next group without updating the cache.
    pub fn peek_pc(&self) -> Option<u32> {
        let runnable = self.runnable();
        if runnable == 0 {
            return None;
        }
        if let Some((pc, mask)) = self.uniform
            && mask == runnable
        {
            return Some(pc);
        }
        let mut pcs = lanes(runnable).map(|l| match self.uniform {
            Some((pc, mask)) if mask & (1 << l) != 0 => pc,
            _ => self.pc[l],
        });
        let first = pcs.next()?;
        Some(pcs.fold(first, u32::min))
    }

    /// Writes the shared program counter back into the per-lane array.
    pub fn materialize(&mut self) {
        if let Some((pc, mask)) = self.uniform.take() {
            for l in lanes(mask) {
                self.pc[l] = pc;
            }
        }
    }

    /// The program counter of `lane`.
    pub fn lane_pc(&self, lane: usize) -> u32 {
        match self.uniform {
            Some((pc, mask)) if mask & (1 << lane) != 0 => pc,
            _ => self.pc[lane],
        }
    }

    /// Moves the lanes of `mask` (all at `from`) to `to`.
    #[inline]
    pub fn jump(&mut self, mask: u32, from: u32, to: u32) {
        if mask == 0 {
            return;
        }
        if let Some((pc, m)) = self.uniform
            && m == mask
            && pc == from
        {
            self.uniform = Some((to, m));
            return;
        }
        self.materialize();
        for l in lanes(mask) {
            self.pc[l] = to;
        }
    }

    /// Advances the lanes of `mask` (all at `pc`) to the next instruction.
    #[inline]
    pub fn advance(&mut self, mask: u32, pc: u32) {
        self.jump(mask, pc, pc + 16);
    }

    /// Blocks the lanes of `mask` where they are.
    pub fn block(&mut self, mask: u32) {
        if mask != 0 {
            self.materialize();
            self.blocked |= mask;
            self.end_exclusive_if_done();
        }
    }

    /// Unblocks the lanes of `mask` and moves them past the instruction they waited at (they
    /// reconverge: an exclusive group ends).
    pub fn release(&mut self, mask: u32) {
        let mask = mask & self.blocked;
        if mask != 0 {
            self.materialize();
            self.exclusive = 0;
            self.blocked &= !mask;
            for l in lanes(mask) {
                self.pc[l] += 16;
            }
        }
    }

    /// Ends the lanes of `mask`.
    pub fn exit(&mut self, mask: u32) {
        if mask != 0 {
            self.materialize();
            self.alive &= !mask;
            self.end_exclusive_if_done();
        }
    }

    /// The lanes of `mask` where the predicate holds.
    #[inline]
    pub fn pred_mask(&self, p: PredOp, mask: u32) -> u32 {
        let v = if p.uniform {
            if self.upreds[p.idx as usize & 7] { u32::MAX } else { 0 }
        } else {
            self.preds[p.idx as usize & 7]
        };
        mask & if p.neg { !v } else { v }
    }

    /// Predicate `p` of `lane` (with its negation).
    #[inline]
    pub fn pred_bit(&self, p: PredOp, lane: usize) -> bool {
        self.pred_mask(p, 1 << lane) != 0
    }

    /// Sets predicate `p` to `value` in the lanes of `mask`.
    #[inline]
    pub fn set_pred(&mut self, p: u8, mask: u32, value: u32) {
        if p != PT {
            let i = p as usize & 7;
            self.old_preds[i] = self.preds[i];
            self.preds[i] = (self.preds[i] & !mask) | (value & mask);
        }
    }

    /// Sets uniform predicate `p`.
    #[inline]
    pub fn set_upred(&mut self, p: u8, value: bool) {
        if p != PT {
            self.upreds[p as usize & 7] = value;
        }
    }

    /// Register `r` of `lane` (RZ reads zero).
    #[inline]
    pub fn reg(&self, r: u8, lane: usize) -> u32 {
        if r == RZ { 0 } else { self.regs[r as usize][lane] }
    }

    /// The whole row of register `r` (RZ reads zeros).
    #[inline]
    pub fn row(&self, r: u8) -> Row {
        if r == RZ { [0; WARP] } else { self.regs[r as usize] }
    }

    /// Uniform register `r` (URZ reads zero).
    #[inline]
    pub fn ureg(&self, r: u8) -> u32 {
        if r >= URZ { 0 } else { self.uregs[r as usize] }
    }

    /// Uniform register pair `r:r+1`.
    #[inline]
    pub fn ureg64(&self, r: u8) -> u64 {
        if r >= URZ {
            0
        } else {
            self.ureg(r) as u64 | (self.ureg(r + 1) as u64) << 32
        }
    }

    /// Writes uniform register `r` (writes to URZ are dropped).
    #[inline]
    pub fn set_ureg(&mut self, r: u8, v: u32) {
        if r < URZ {
            self.uregs[r as usize] = v;
        }
    }

    /// Writes `value` to register `r` in the lanes of `mask`, keeping the previous value for
    /// early readers.
    #[inline]
    pub fn write_row(&mut self, r: u8, mask: u32, value: &Row) {
        if r == RZ || r as usize >= self.regs.len() {
            return;
        }
        let i = r as usize;
        self.old_regs[i] = self.regs[i];
        let row = &mut self.regs[i];
        if mask == u32::MAX {
            *row = *value;
        } else {
            for l in 0..WARP {
                if mask & (1 << l) != 0 {
                    row[l] = value[l];
                }
            }
        }
    }

    /// Writes a 64-bit value per lane to the pair `r:r+1`.
    pub fn write_row64(&mut self, r: u8, mask: u32, value: &[u64; WARP]) {
        let lo: Row = std::array::from_fn(|l| value[l] as u32);
        let hi: Row = std::array::from_fn(|l| (value[l] >> 32) as u32);
        self.write_row(r, mask, &lo);
        if r != RZ {
            self.write_row(r.saturating_add(1), mask, &hi);
        }
    }

    /// Register pair `r:r+1` of `lane` as a 64-bit value.
    #[inline]
    pub fn reg64(&self, r: u8, lane: usize) -> u64 {
        if r == RZ {
            0
        } else {
            self.reg(r, lane) as u64 | (self.reg(r.saturating_add(1), lane) as u64) << 32
        }
    }

    /// Writes register `r` of one lane (writes to RZ are dropped).
    #[inline]
    pub fn set_reg(&mut self, r: u8, lane: usize, v: u32) {
        if r != RZ
            && let Some(row) = self.regs.get_mut(r as usize)
        {
            row[lane] = v;
        }
    }

    /// Makes the register file hold at least `n` registers.
    pub fn ensure_regs(&mut self, n: usize) {
        if self.regs.len() < n {
            self.regs.resize(n, [0; WARP]);
            self.old_regs.resize(n, [0; WARP]);
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
