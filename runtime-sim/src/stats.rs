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
    /// Engine that produced them (`functional` or `timed`).
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
    /// Cycles from each warp's launch to the cycle after its EXIT, summed over warps (timed
    /// engine): `warp_instructions` plus every stall reason.
    pub warp_cycles: u64,
    /// Issue bubbles from register-bank conflicts (timed engine).
    pub bank_conflicts: u64,
    /// Operand reads served by the reuse cache (timed engine).
    pub reuse_hits: u64,
    /// Shared-memory bank-conflict replays (timed engine).
    pub shared_bank_conflicts: u64,
    /// SMs that ran at least one CTA (timed engine).
    pub sms_used: u32,
    /// Global-memory line accesses that hit in L1 (timed engine).
    pub l1_hits: u64,
    /// Line accesses that missed L1 and hit in L2 (timed engine).
    pub l2_hits: u64,
    /// Line accesses that went to DRAM (timed engine).
    pub dram_accesses: u64,
    /// Global accesses past the end of an allocation but inside its mapped granule (no
    /// fault on hardware; a bug in the kernel or its launch).
    pub stray_accesses: u64,
    /// The first stray accesses in detail.
    pub stray_reports: Vec<String>,
}

/// Warp-cycles in which a resident warp did not issue, by reason.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct StallReasons {
    /// Waiting on a scoreboard (wait mask or DEPBAR) after the stall count and yield.
    pub scoreboard: u64,
    /// Waiting out the previous instruction's stall count.
    pub stall_count: u64,
    /// Ready, but the execution pipe of the instruction was busy.
    pub pipe_busy: u64,
    /// The sub-partition was busy with register-bank conflict bubbles (of any warp's
    /// instruction: operand reads that need a second cycle on one bank).
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
    /// Records a hazard (the report is only built for the first few).
    pub fn hazard(&mut self, h: impl FnOnce() -> Hazard) {
        self.hazards += 1;
        if self.hazard_reports.len() < MAX_HAZARD_REPORTS {
            self.hazard_reports.push(h());
        }
    }

    /// Records a stray access (the report is only built for the first few).
    pub fn stray(&mut self, what: impl FnOnce() -> String) {
        self.stray_accesses += 1;
        if self.stray_reports.len() < MAX_HAZARD_REPORTS {
            self.stray_reports.push(what());
        }
    }

    /// Adds the counts of another part of the same launch (an SM or CTA group); cycles are
    /// the maximum.
    pub fn merge(&mut self, o: Stats) {
        self.cycles = self.cycles.max(o.cycles);
        self.warp_instructions += o.warp_instructions;
        self.thread_instructions += o.thread_instructions;
        self.hazards += o.hazards;
        for h in o.hazard_reports {
            if self.hazard_reports.len() < MAX_HAZARD_REPORTS {
                self.hazard_reports.push(h);
            }
        }
        self.ctas += o.ctas;
        self.warps += o.warps;
        self.stalls.add(&o.stalls);
        self.warp_cycles += o.warp_cycles;
        self.bank_conflicts += o.bank_conflicts;
        self.reuse_hits += o.reuse_hits;
        self.shared_bank_conflicts += o.shared_bank_conflicts;
        self.sms_used += o.sms_used;
        self.l1_hits += o.l1_hits;
        self.l2_hits += o.l2_hits;
        self.dram_accesses += o.dram_accesses;
        self.stray_accesses += o.stray_accesses;
        for r in o.stray_reports {
            if self.stray_reports.len() < MAX_HAZARD_REPORTS {
                self.stray_reports.push(r);
            }
        }
    }
}

impl StallReasons {
    /// All stalled warp-cycles.
    pub fn total(&self) -> u64 {
        self.scoreboard
            + self.stall_count
            + self.pipe_busy
            + self.bank_conflict
            + self.barrier
            + self.yield_
            + self.not_selected
    }

    fn add(&mut self, o: &StallReasons) {
        self.scoreboard += o.scoreboard;
        self.stall_count += o.stall_count;
        self.pipe_busy += o.pipe_busy;
        self.bank_conflict += o.bank_conflict;
        self.barrier += o.barrier;
        self.yield_ += o.yield_;
        self.not_selected += o.not_selected;
    }
}
