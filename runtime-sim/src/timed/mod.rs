//! The timed engine: every SM cycle by cycle (see [`sm`]), with CTAs placed on SMs as their
//! occupancy allows. CTAs are dealt to SMs round-robin in launch order, so results and cycle
//! counts do not depend on the order SMs are simulated in.

mod banks;
pub mod memory;
pub mod pipes;
mod sm;
pub mod trace;

use crate::config::Config;
use crate::error::SimError;
use crate::exec::{ConstBanks, LaunchDims, check_dims};
use crate::memory::GlobalMemory;
use crate::module::Kernel;
use crate::stats::Stats;
use memory::LineCache;
use sm::SmRun;
use trace::Trace;

/// Register allocation granularity per warp.
const REG_UNIT: u32 = 256;
/// Shared-memory allocation granularity per CTA.
const SMEM_UNIT: u32 = 256;

/// How many CTAs of this launch fit on one SM at once (threads, registers, shared memory,
/// CTA slots).
pub fn occupancy(kernel: &Kernel, dims: &LaunchDims, config: &Config) -> Result<usize, SimError> {
    let threads: u32 = dims.block.iter().product();
    let warps = threads.div_ceil(32);
    let by_threads = (config.threads_per_sm / 32) / warps;
    let regs_per_warp = (kernel.regs * 32).div_ceil(REG_UNIT) * REG_UNIT;
    let by_regs = if regs_per_warp == 0 {
        u32::MAX
    } else {
        config.regs_per_sm / (regs_per_warp * warps)
    };
    let smem = kernel.shared_size + dims.dynamic_shared;
    let by_smem = if smem == 0 {
        u32::MAX
    } else {
        config.shared_per_sm / smem.div_ceil(SMEM_UNIT) / SMEM_UNIT
    };
    let n = by_threads.min(by_regs).min(by_smem).min(config.ctas_per_sm);
    if n == 0 {
        return Err(SimError::BadLaunch(format!(
            "a block of {threads} threads with {} registers each and {smem} bytes of shared memory does not fit on an SM \
             ({} registers, {} bytes of shared memory, {} threads)",
            kernel.regs, config.regs_per_sm, config.shared_per_sm, config.threads_per_sm
        )));
    }
    Ok(n as usize)
}

/// Runs `kernel` over the grid on every SM; `trace` collects a timeline if given.
pub fn run(
    kernel: &Kernel,
    consts: &ConstBanks,
    global: &mut GlobalMemory,
    dims: &LaunchDims,
    config: &Config,
    mut trace: Option<&mut Trace>,
    stats: &mut Stats,
) -> Result<(), SimError> {
    check_dims(dims)?;
    let max_resident = occupancy(kernel, dims, config)?;
    let mut ctas = Vec::new();
    for z in 0..dims.grid[2] {
        for y in 0..dims.grid[1] {
            for x in 0..dims.grid[0] {
                ctas.push([x, y, z]);
            }
        }
    }
    stats.engine = "timed".into();
    let mut l2 = LineCache::new(config.memory.l2_lines);
    let sms = config.sms.max(1) as usize;
    let mut finish = 0i64;
    for sm in 0..sms {
        let mine: Vec<[u32; 3]> = ctas.iter().skip(sm).step_by(sms).copied().collect();
        if mine.is_empty() {
            continue;
        }
        stats.sms_used += 1;
        let mut run = SmRun {
            index: sm as u32,
            kernel,
            consts,
            config,
            dims,
            global: &mut *global,
            l2: &mut l2,
            stats: &mut *stats,
            trace: trace.as_deref_mut(),
        };
        finish = finish.max(run.run(&mine, max_resident)?);
    }
    stats.cycles = finish.max(0) as u64;
    stats.ipc = if finish > 0 {
        stats.warp_instructions as f64 / finish as f64
    } else {
        0.0
    };
    Ok(())
}
