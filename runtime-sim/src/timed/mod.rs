//! The timed engine: every SM cycle by cycle (see [`sm`]), with CTAs placed on SMs as their
//! occupancy allows. CTAs are dealt to SMs round-robin in launch order (CTA `i` to SM
//! `i % SMs`) and SMs share nothing but global memory, so they run in parallel and results
//! and cycle counts do not depend on the number of threads.

mod accounting;
mod banks;
pub mod memory;
pub mod pipes;
mod sm;
pub mod trace;

use crate::config::Config;
use crate::error::SimError;
use crate::exec::{ConstBanks, LaunchDims, check_dims, clusters, parallel_ok, run_groups};
use crate::memory::{GlobalMemory, GlobalView};
use crate::module::Kernel;
use crate::stats::Stats;
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

/// Cycles each SM runs before the next one takes its turn when CTAs communicate.
const QUANTUM: i64 = 32;

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
    let all = clusters(dims);
    let ctas = all.len() * dims.cluster_size() as usize;
    stats.engine = "timed".into();
    // A cluster larger than an SM holds runs on a unit of as many SMs as it needs.
    let per_unit = (dims.cluster_size() as usize).div_ceil(max_resident);
    let sms = (config.sms.max(1) as usize / per_unit).max(1).min(all.len());
    let tracing = trace.is_some();
    let new_sm = |sm: usize| {
        let mine: Vec<Vec<[u32; 3]>> = all.iter().skip(sm).step_by(sms).cloned().collect();
        let trace = tracing.then(|| (Vec::new(), trace::MAX_EVENTS / sms));
        SmRun::new(
            sm as u32,
            kernel,
            consts,
            config,
            dims,
            mine,
            (max_resident, per_unit),
            trace,
        )
    };
    let finish = |run: SmRun, s: &mut Stats, events: &mut Vec<trace::Event>| {
        let cycles = run.t_finished().max(0) as u64;
        *s = run.stats;
        s.cycles = cycles;
        s.sms_used = per_unit as u32;
        if let Some(e) = run.trace {
            *events = e;
        }
    };
    let mut traces: Vec<Vec<trace::Event>> = vec![Vec::new(); sms];
    let result = if parallel_ok(kernel, ctas) {
        let collected = std::sync::Mutex::new(vec![Vec::new(); sms]);
        let r = run_groups(global, sms, true, stats, |sm, view, s| {
            let mut run = new_sm(sm);
            let r = run.run_until(view, i64::MAX);
            let mut events = Vec::new();
            finish(run, s, &mut events);
            if let Ok(mut c) = collected.lock() {
                c[sm] = events;
            }
            r
        });
        traces = collected.into_inner().unwrap_or_default();
        r
    } else {
        run_interleaved(global, sms, &new_sm, stats, &mut traces, &finish)
    };
    if let Some(trace) = trace {
        for e in traces.into_iter().flatten() {
            trace.push(e);
        }
    }
    stats.ipc = if stats.cycles > 0 {
        stats.warp_instructions as f64 / stats.cycles as f64
    } else {
        0.0
    };
    result
}

/// CTAs that communicate through global memory (atomics, fences, volatile accesses): every
/// SM advances [`QUANTUM`] cycles in turn on the shared memory, so that one SM's writes are
/// seen by the others about when they would be on hardware.
fn run_interleaved<'a>(
    global: &mut GlobalMemory,
    sms: usize,
    new_sm: &dyn Fn(usize) -> SmRun<'a>,
    stats: &mut Stats,
    traces: &mut [Vec<trace::Event>],
    finish: &dyn Fn(SmRun<'a>, &mut Stats, &mut Vec<trace::Event>),
) -> Result<(), SimError> {
    let mut runs: Vec<SmRun> = (0..sms).map(new_sm).collect();
    let mut view = GlobalView::direct(global);
    let mut until = 0;
    let mut result = Ok(());
    'outer: while runs.iter().any(|r| !r.done()) {
        until += QUANTUM;
        for r in runs.iter_mut().filter(|r| !r.done()) {
            if let Err(e) = r.run_until(&mut view, until) {
                result = Err(e);
                break 'outer;
            }
        }
    }
    for (sm, run) in runs.into_iter().enumerate() {
        let mut s = Stats::default();
        finish(run, &mut s, &mut traces[sm]);
        stats.merge(s);
    }
    result
}
