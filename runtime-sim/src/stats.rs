//! Launch statistics.

use serde::Serialize;

/// A hazard: an access the hardware would not protect.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Hazard {
    /// Kernel name.
    pub kernel: String,
    /// Block index.
    pub ctaid: [u32; 3],
    /// Warp index within the block.
    pub warp: u32,
    /// Instruction address.
    pub pc: u32,
    /// What happened.
    pub what: String,
}

/// Statistics of one launch.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Stats {
    /// Engine that produced them (`functional`).
    pub engine: String,
    /// Cycles. Timed engine: until the last SM finishes. Functional engine: the longest warp's
    /// issue timeline (no contention between warps is modelled).
    pub cycles: u64,
    /// Warp instructions issued.
    pub warp_instructions: u64,
    /// Thread instructions executed (guard true).
    pub thread_instructions: u64,
    /// Hazards detected.
    pub hazards: u64,
    /// The first hazards in detail.
    pub hazard_reports: Vec<Hazard>,
    /// CTAs run.
    pub ctas: u64,
    /// Warps run.
    pub warps: u64,
    /// Warp instructions per cycle over the whole device (timed engine).
    pub ipc: f64,
    /// Why resident warps did not issue, in warp-cycles (timed engine).
    pub stalls: StallReasons,
    /// Issue bubbles from register-bank conflicts (timed engine).
    pub bank_conflicts: u64,
    /// Operand reads served by the reuse cache (timed engine).
    pub reuse_hits: u64,
    /// Shared-memory bank-conflict replays (timed engine).
    pub shared_bank_conflicts: u64,
    /// SMs that ran at least one CTA (timed engine).
    pub sms_used: u32,
}

/// Warp-cycles in which a resident warp did not issue, by reason.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct StallReasons {
    /// Waiting on a scoreboard (wait mask).
    pub scoreboard: u64,
    /// Waiting out the previous instruction's stall count.
    pub stall_count: u64,
    /// The execution pipe was busy.
    pub pipe_busy: u64,
    /// The sub-partition was busy with register-bank conflict bubbles.
    pub bank_conflict: u64,
    /// Waiting at a CTA or convergence barrier.
    pub barrier: u64,
    /// The yield hint kept the warp off for a cycle.
    pub yield_: u64,
    /// Ready, but another warp issued.
    pub not_selected: u64,
}

/// How many hazards are kept in detail.
pub const MAX_HAZARD_REPORTS: usize = 32;

impl Stats {
    /// Records a hazard.
    pub fn hazard(&mut self, h: Hazard) {
        self.hazards += 1;
        if self.hazard_reports.len() < MAX_HAZARD_REPORTS {
            self.hazard_reports.push(h);
        }
    }
}
