//! The timed engine: every SM cycle by cycle (see [`sm`]), with CTAs placed on SMs as their
//! occupancy allows. CTAs are dealt to SMs round-robin in launch order (CTA `i` to SM
//! `i % SMs`) and SMs share nothing but global memory, so they run in parallel and results
//! and cycle counts do not depend on the number of threads.

mod banks;
pub mod memory;
pub mod pipes;
mod sm;
pub mod trace;

use crate::config::Config;
use crate::error::SimError;
use crate::exec::{ConstBanks, LaunchDims, check_dims, ctas, parallel_ok, run_groups};
use crate::memory::GlobalMemory;
use crate::module::Kernel;
use crate::stats::Stats;
use memory::Caches;
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
    trace: Option<&mut Trace>,
    stats: &mut Stats,
) -> Result<(), SimError> {
    check_dims(dims)?;
    let max_resident = occupancy(kernel, dims, config)?;
    let all = ctas(dims);
    stats.engine = "timed".into();
    let sms = (config.sms.max(1) as usize).min(all.len());
    let parallel = parallel_ok(kernel, all.len());
    let tracing = trace.is_some();
    let traces = std::sync::Mutex::new(vec![Vec::new(); sms]);
    let result = run_groups(global, sms, parallel, stats, |sm, view, s| {
        let mine: Vec<[u32; 3]> = all.iter().skip(sm).step_by(sms).copied().collect();
        let mut run = SmRun {
            index: sm as u32,
            kernel,
            consts,
            config,
            dims,
            global: view,
            caches: Caches::new(&config.memory, config.sms),
            stats: Stats::default(),
            trace: tracing.then(Vec::new),
            trace_limit: trace::MAX_EVENTS / sms,
        };
        let finish = run.run(&mine, max_resident);
        *s = std::mem::take(&mut run.stats);
        s.cycles = finish.as_ref().map_or(0, |&f| f.max(0) as u64);
        s.sms_used = 1;
        if let Some(events) = run.trace
            && let Ok(mut t) = traces.lock()
        {
            t[sm] = events;
        }
        finish.map(|_| ())
    });
    if let Some(trace) = trace {
        for events in traces.into_inner().unwrap_or_default() {
            for e in events {
                trace.push(e);
            }
        }
    }
    stats.ipc = if stats.cycles > 0 {
        stats.warp_instructions as f64 / stats.cycles as f64
    } else {
        0.0
    };
    result
}
