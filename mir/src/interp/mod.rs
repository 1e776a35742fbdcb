//! A reference interpreter for MIR kernels with the launch model of `ptxc run`: a grid of
//! CTAs, each of `block` threads grouped in warps of 32, dynamic shared memory, a parameter
//! block, and global memory behind [`GlobalMemory`].
//!
//! A warp runs in lock step: at each step the threads whose position comes first in reverse
//! post-order execute the next instruction together, so divergent paths reconverge where
//! they meet and shuffles, votes, match and ldmatrix see the threads that are at them
//! together, as on hardware. A CTA barrier holds its threads until every thread of the CTA
//! that has not exited waits at a barrier with that id. Module `.global`/`.const` variables
//! live in a region of their own; shared and local memory are reached directly or through
//! the generic windows [`eval::SHARED_WINDOW`] and [`eval::LOCAL_WINDOW`].

mod cluster;
pub mod eval;
mod exec;
pub mod float;
mod memory;
mod tensor;

use crate::ir::Function;
pub use memory::{GlobalMemory, MODULE_BASE, Placement, VecMemory};

/// How a kernel is launched.
#[derive(Clone, Debug, Default)]
pub struct LaunchConfig {
    /// CTAs per grid dimension.
    pub grid: [u32; 3],
    /// Threads per CTA dimension.
    pub block: [u32; 3],
    /// Dynamic shared memory bytes per CTA.
    pub dynamic_shared: u32,
    /// Shared bytes the target reserves before a kernel's shared variables (Hopper's 1 KiB,
    /// `Arch::reserved_shared`): the variables' shared addresses start there, as in the
    /// compilers' cubins for the target.
    pub reserved_shared: u32,
    /// The parameter block (kernel parameters at their offsets).
    pub params: Vec<u8>,
    /// CTAs per cluster dimension (sm_90), or `None` for a launch without a cluster shape,
    /// where every CTA is a cluster of its own and `%is_explicit_cluster` is false. The shape
    /// must tile the grid. Only clusters of one CTA run whatever the kernel does: another
    /// CTA's shared memory and the barrier of a cluster of several CTAs are refused.
    pub cluster: Option<[u32; 3]>,
}

/// What a launch did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// MIR instructions issued per warp (a group of threads at the same instruction counts once).
    pub warp_instructions: u64,
    /// MIR instructions executed by threads.
    pub thread_instructions: u64,
    /// CTAs run.
    pub ctas: u64,
    /// Warps run.
    pub warps: u64,
    /// Global accesses past the end of an allocation, inside its mapped memory
    /// ([`Placement::Stray`]).
    pub stray_accesses: u64,
    /// The first stray accesses in detail.
    pub stray_reports: Vec<String>,
}

/// Stray accesses reported in detail.
pub const MAX_STRAY_REPORTS: usize = 8;

/// A fault while interpreting: out-of-bounds or misaligned access, barrier deadlock, trap.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("kernel `{kernel}`{}{}: {what}", .thread.map(|(c, t)| format!(", CTA {c:?}, thread {t:?}")).unwrap_or_default(), .inst.as_ref().map(|i| format!(", at `{i}`")).unwrap_or_default())]
pub struct InterpError {
    /// The kernel.
    pub kernel: String,
    /// CTA and thread coordinates, when one thread is at fault.
    pub thread: Option<([u32; 3], [u32; 3])>,
    /// The instruction, in text form.
    pub inst: Option<String>,
    /// What went wrong.
    pub what: String,
}

/// At most this many warp instructions per launch (a guard against endless loops).
pub const STEP_LIMIT: u64 = 200_000_000;

/// Runs `func` over the grid of `cfg` with global memory `mem`.
pub fn launch(func: &Function, cfg: &LaunchConfig, mem: &mut dyn GlobalMemory) -> Result<Stats, InterpError> {
    exec::launch(func, cfg, mem)
}
