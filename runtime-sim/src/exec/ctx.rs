//! What one CTA's instructions see besides their warp: the kernel, constant banks, global
//! and shared memory, the CTA's coordinates, and the launch statistics.

use super::warp::{Row, WARP, Warp};
use crate::decoded::{Src, SrcOp};
use crate::error::Location;
use crate::memory::GlobalView;
use crate::module::Kernel;
use crate::stats::Stats;

/// Generic-address window of shared memory (`c[0x0][0x18]`); 4 GiB, low word zero.
pub const SHARED_WINDOW: u64 = 0x7ff0_0000_0000;
/// Generic-address window of local memory (`c[0x0][0x20]`); 4 GiB, low word zero.
pub const LOCAL_WINDOW: u64 = 0x7ff8_0000_0000;
/// Size of each generic window.
pub const WINDOW_SIZE: u64 = 1 << 32;

/// Constant banks visible to a launch (bank 0 = driver layout and parameters).
#[derive(Clone, Debug, Default)]
pub struct ConstBanks {
    /// Bank contents by bank number.
    pub banks: Vec<Vec<u8>>,
}

impl ConstBanks {
    /// The 32-bit word at `bank[offset]` (bytes outside the bank read as 0).
    #[inline]
    pub fn read32(&self, bank: u8, offset: i64) -> u32 {
        let Some(b) = self.banks.get(bank as usize) else {
            return 0;
        };
        if offset < 0 {
            return 0;
        }
        let o = offset as usize;
        match b.get(o..o + 4) {
            Some(w) => u32::from_le_bytes([w[0], w[1], w[2], w[3]]),
            None => {
                let mut v = [0u8; 4];
                for (i, x) in v.iter_mut().enumerate() {
                    *x = b.get(o + i).copied().unwrap_or(0);
                }
                u32::from_le_bytes(v)
            }
        }
    }

    /// The size of bank `bank` in bytes.
    pub fn len(&self, bank: u8) -> usize {
        self.banks.get(bank as usize).map_or(0, Vec::len)
    }
}

/// The state a CTA's warps share: coordinates, shared memory, barrier counts.
#[derive(Clone, Debug)]
pub struct CtaShared {
    /// Block index.
    pub ctaid: [u32; 3],
    /// Shared memory (static + dynamic).
    pub shared: Vec<u8>,
    /// Threads that arrived at each barrier.
    pub bar_arrived: [u32; 16],
    /// The thread count each barrier waits for (0: every live thread).
    pub bar_expected: [u32; 16],
    /// `BAR.RED` accumulators per barrier: popcount, and, or.
    pub bar_red: [(u32, bool, bool); 16],
    /// The reduction (`redop`: 0 POPC, 1 AND, 2 OR) of each barrier.
    pub bar_redop: [ptxc_sass::isa::values::BarRedOp; 16],
    /// The result of the last completed reduction (for `B2R.RESULT`): popcount, predicate.
    pub bar_result: (u32, bool),
    /// Threads that have not exited.
    pub live_threads: u32,
    /// `ARRIVES.LDGSTSBAR` arrivals waiting for their warp's copies to land.
    pub pending_arrivals: Vec<PendingArrival>,
    /// The SM the CTA runs on.
    pub sm: u32,
    /// Kernels with HGMMA: per 16-byte chunk of shared memory, the warps (bit per warp index)
    /// whose generic-proxy writes there are not yet made visible to the async proxy by a
    /// `FENCE.VIEW.ASYNC.S` (empty for other kernels).
    pub unfenced: Vec<u32>,
    /// The CTA's place in its cluster (Hopper; a launch without clusters: rank 0 of 1).
    pub cluster: ClusterPlace,
    /// Threads of this CTA that arrived at the cluster barrier (`UCGABAR_ARV`) in its
    /// current phase.
    pub cga_arrived: u32,
}

/// Where a CTA sits in its cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClusterPlace {
    /// `%cluster_ctarank` (`SR_CgaCtaId`): the CTA's rank in its cluster.
    pub rank: u32,
    /// `%cluster_nctarank`: CTAs in the cluster.
    pub size: u32,
}

impl Default for ClusterPlace {
    fn default() -> Self {
        ClusterPlace { rank: 0, size: 1 }
    }
}

/// Bits of a shared-memory address below the CTA rank: on Hopper a shared address is
/// `rank << 24 | offset` (ptxas 13.5 builds every shared::cta address so, with
/// `SR_CgaCtaId`), which makes it a shared::cluster address too.
pub const RANK_SHIFT: u32 = 24;

/// A shared-memory address split into the rank of the CTA whose memory it names and the
/// offset there.
#[inline]
pub fn split_shared(addr: u64) -> (u32, usize) {
    let a = addr as u32;
    (a >> RANK_SHIFT, (a & ((1 << RANK_SHIFT) - 1)) as usize)
}

/// The other CTAs of a warp's cluster, by rank: their shared memories (distributed shared
/// memory) and barrier counts.
pub trait ClusterPeers {
    /// The CTA of rank `rank`, unless it is the warp's own CTA or outside the cluster.
    fn peer(&mut self, rank: u32) -> Option<&mut CtaShared>;
}

/// A CTA alone in its cluster.
pub struct NoPeers;

impl ClusterPeers for NoPeers {
    fn peer(&mut self, _: u32) -> Option<&mut CtaShared> {
        None
    }
}

/// The CTAs of a cluster stored by rank, with the warp's own CTA taken out: `before` holds
/// ranks `0..own`, `after` ranks `own + 1..`.
pub struct PeerSlices<'a> {
    /// Ranks below the own CTA's.
    pub before: &'a mut [CtaShared],
    /// Ranks above the own CTA's.
    pub after: &'a mut [CtaShared],
}

impl ClusterPeers for PeerSlices<'_> {
    fn peer(&mut self, rank: u32) -> Option<&mut CtaShared> {
        by_rank(self.before, self.after, rank)
    }
}

/// The entry of rank `rank` of a cluster stored by rank with the own CTA's taken out:
/// `before` holds ranks `0..own`, `after` ranks `own + 1..` (`None` for the own rank and
/// ranks outside the cluster).
pub fn by_rank<'s, T>(before: &'s mut [T], after: &'s mut [T], rank: u32) -> Option<&'s mut T> {
    let (r, own) = (rank as usize, before.len());
    match r.cmp(&own) {
        std::cmp::Ordering::Less => before.get_mut(r),
        std::cmp::Ordering::Greater => after.get_mut(r - own - 1),
        std::cmp::Ordering::Equal => None,
    }
}

/// Bytes of shared memory per entry of [`CtaShared::unfenced`].
pub const FENCE_CHUNK: usize = 16;

impl CtaShared {
    /// Notes a generic-proxy write of `len` bytes at shared offset `at` by warp `warp`.
    #[inline]
    pub fn note_generic_write(&mut self, at: usize, len: usize, warp: u32) {
        if self.unfenced.is_empty() || len == 0 {
            return;
        }
        let bit = 1u32 << (warp % 32);
        for chunk in &mut self.unfenced[at / FENCE_CHUNK..=(at + len - 1) / FENCE_CHUNK] {
            *chunk |= bit;
        }
    }

    /// `FENCE.VIEW.ASYNC.S` by warp `warp`: its writes so far are visible to the async proxy.
    pub fn fence_async(&mut self, warp: u32) {
        let keep = !(1u32 << (warp % 32));
        for chunk in &mut self.unfenced {
            *chunk &= keep;
        }
    }

    /// The warps whose unfenced writes touch `len` bytes at shared offset `at`.
    pub fn unfenced_writers(&self, at: usize, len: usize) -> u32 {
        if self.unfenced.is_empty() || len == 0 {
            return 0;
        }
        let last = ((at + len - 1) / FENCE_CHUNK).min(self.unfenced.len() - 1);
        self.unfenced
            .get(at / FENCE_CHUNK..=last)
            .map_or(0, |c| c.iter().fold(0, |m, &w| m | w))
    }
}

/// What an instruction sees besides its warp.
pub struct Ctx<'a, 'm> {
    /// The kernel.
    pub kernel: &'a Kernel,
    /// Constant banks.
    pub consts: &'a ConstBanks,
    /// Global memory.
    pub global: &'a mut GlobalView<'m>,
    /// The warp's CTA.
    pub cta: &'a mut CtaShared,
    /// The other CTAs of its cluster.
    pub peers: &'a mut dyn ClusterPeers,
    /// Statistics of the launch.
    pub stats: &'a mut Stats,
    /// The current cycle (clock reads).
    pub now: i64,
    /// When the warp's LDGSTS issued so far have landed (at or before `now`: all have).
    pub copies_landed: i64,
    /// The device's memory latencies (when bulk copies land).
    pub memory: &'a crate::config::MemoryTiming,
    /// The timed engine runs the instruction (asynchronous copies land later); the
    /// functional engine completes them at issue.
    pub timed: bool,
}

/// An arrival on a shared-memory `mbarrier` that is made at a later cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PendingArrival {
    /// The cycle of the arrival.
    pub at: i64,
    /// The barrier's shared-memory offset.
    pub addr: u32,
    /// The barrier has Hopper's layout (`syncs::HopperBarrier`), not Ampere's.
    pub hopper: bool,
    /// Transaction bytes the landing completes (a bulk copy or TMA) instead of an arrival
    /// (0: one arrival).
    pub tx: u32,
}

impl Ctx<'_, '_> {
    /// A 32-bit source value for `lane` (modifiers not applied).
    #[inline]
    pub fn src32(&self, w: &Warp, s: &SrcOp, lane: usize) -> u32 {
        match s.src {
            Src::Reg(r) => w.reg(r, lane),
            Src::UReg(r) => w.ureg(r),
            Src::Imm(v) => v as u32,
            Src::Const { bank, offset, reg } => {
                let idx = reg.map_or(0, |r| w.reg(r, lane) as i32 as i64);
                self.consts.read32(bank, offset as i64 + idx)
            }
            Src::None => 0,
        }
    }

    /// A 32-bit source for every lane (modifiers not applied).
    #[inline]
    pub fn row(&self, w: &Warp, s: &SrcOp) -> Row {
        match s.src {
            Src::Reg(r) => w.row(r),
            Src::UReg(r) => [w.ureg(r); WARP],
            Src::Imm(v) => [v as u32; WARP],
            Src::Const {
                bank,
                offset,
                reg: None,
            } => [self.consts.read32(bank, offset as i64); WARP],
            Src::Const { .. } => std::array::from_fn(|l| self.src32(w, s, l)),
            Src::None => [0; WARP],
        }
    }

    /// A 64-bit source (register pair, 64-bit constant, uniform pair, or zero-extended
    /// immediate).
    #[inline]
    pub fn src64(&self, w: &Warp, s: &SrcOp, lane: usize) -> u64 {
        match s.src {
            Src::Reg(r) => w.reg64(r, lane),
            Src::UReg(r) => w.ureg64(r),
            Src::Const { bank, offset, reg } => {
                let idx = reg.map_or(0, |r| w.reg(r, lane) as i32 as i64);
                let o = offset as i64 + idx;
                self.consts.read32(bank, o) as u64 | (self.consts.read32(bank, o + 4) as u64) << 32
            }
            _ => self.src32(w, s, lane) as u64,
        }
    }

    /// A 64-bit source for every lane (see [`Ctx::src64`]).
    #[inline]
    pub fn row64(&self, w: &Warp, s: &SrcOp) -> [u64; WARP] {
        match s.src {
            Src::Reg(r) if r != ptxc_sass::isa::RZ => {
                let (lo, hi) = (w.row(r), w.row(r.saturating_add(1)));
                std::array::from_fn(|l| lo[l] as u64 | (hi[l] as u64) << 32)
            }
            Src::Reg(_) | Src::None => [0; WARP],
            Src::Const { reg: Some(_), .. } => std::array::from_fn(|l| self.src64(w, s, l)),
            _ => [self.src64(w, s, 0); WARP],
        }
    }

    /// The location of `lane` of `w` at `pc`, for error messages.
    pub fn at(&self, w: &Warp, lane: usize, pc: u32) -> Location {
        Location {
            kernel: self.kernel.name.clone(),
            ctaid: self.cta.ctaid,
            tid: w.tid[lane % WARP],
            pc,
        }
    }
}
