//! Scheduling heuristics: how the list scheduler picks among ready instructions. A heuristic
//! ranks candidates; the scheduler issues the best one. Writing a new one means implementing
//! [`Heuristic`] and adding it to [`by_name`]; `ptxc compile --sched NAME` selects it.

use super::dag::{Dag, Kind};
use crate::emit::Emitted;
use ptxc_sass::isa::desc::Pipe;

/// What a heuristic may look at when ranking a ready instruction.
pub struct Candidate<'a> {
    /// Index in the block's original order.
    pub index: usize,
    /// The instruction.
    pub inst: &'a Emitted,
    /// The dependency graph.
    pub dag: &'a Dag,
    /// Earliest cycle its dependences allow.
    pub ready_at: u32,
    /// The current cycle.
    pub now: u32,
    /// Pipe of the instruction issued last.
    pub last_pipe: Option<Pipe>,
}

/// A ranking of ready instructions (higher is issued first; ties go to source order).
pub trait Heuristic {
    /// The heuristic's name for `--sched`.
    fn name(&self) -> &'static str;
    /// The rank of a candidate.
    fn rank(&self, c: &Candidate) -> i64;
}

/// Keeps the order of the source (baseline).
pub struct SourceOrder;

impl Heuristic for SourceOrder {
    fn name(&self) -> &'static str {
        "source"
    }
    fn rank(&self, c: &Candidate) -> i64 {
        -(c.index as i64)
    }
}

/// The longest latency path to the end of the block first.
pub struct CriticalPath;

impl Heuristic for CriticalPath {
    fn name(&self) -> &'static str {
        "critical-path"
    }
    fn rank(&self, c: &Candidate) -> i64 {
        let stall = c.ready_at.saturating_sub(c.now) as i64;
        c.dag.height[c.index] as i64 * 16 - stall * 64
    }
}

/// ptxc's own: critical path, but loads start as early as possible (their latency is the
/// longest and is hidden behind the rest) as long as their pipe takes them, and consecutive instructions alternate between
/// pipes so that neither the FMA nor the ALU pipe holds issue back.
pub struct LoadsFirstBalanced;

impl Heuristic for LoadsFirstBalanced {
    fn name(&self) -> &'static str {
        "loads-first"
    }
    fn rank(&self, c: &Candidate) -> i64 {
        let stall = c.ready_at.saturating_sub(c.now) as i64;
        // A load that can issue now goes first; one its pipe holds back waits its turn.
        let load = (super::dag::kind(&c.inst.inst) == Kind::Load && stall == 0) as i64;
        let pipe = c.inst.inst.desc().meta.pipe;
        let same_pipe = (Some(pipe) == c.last_pipe && matches!(pipe, Pipe::Alu | Pipe::Fma)) as i64;
        load * 10_000 + c.dag.height[c.index] as i64 * 16 - stall * 64 - same_pipe * 32
    }
}

/// Every post-RA heuristic by name.
pub fn by_name(name: &str) -> Option<Box<dyn Heuristic>> {
    match name {
        "source" => Some(Box::new(SourceOrder)),
        "critical-path" => Some(Box::new(CriticalPath)),
        "loads-first" => Some(Box::new(LoadsFirstBalanced)),
        _ => None,
    }
}

/// Names of the heuristics, for messages.
pub const NAMES: [&str; 3] = ["source", "critical-path", "loads-first"];
