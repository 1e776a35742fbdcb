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
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    /// Engine that produced them (`functional`).
    pub engine: String,
    /// Cycles: the longest warp's issue timeline (the functional engine does not model
    /// contention between warps).
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
