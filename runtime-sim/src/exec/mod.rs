//! The functional engine: runs a grid CTA by CTA; within a CTA, warps take turns until
//! each blocks at a barrier or exits; within a warp, the lanes at the lowest program counter
//! run together (independent thread scheduling). Every instruction also goes through the
//! warp's [`timer::Timer`], which counts hazards against the control codes.
//!
//! CTAs are dealt to groups (one per SM of the configuration, CTA `i` to group `i % SMs`)
//! that run in parallel on private overlays of global memory (see [`crate::memory`]); a
//! kernel with global atomics runs its CTAs one after the other on the memory itself.

pub mod convergence;
pub mod ctx;
pub mod semantics;
pub mod step;
pub mod timer;
pub mod warp;

pub use ctx::{
    ClusterPeers, ClusterPlace, ConstBanks, CtaShared, Ctx, LOCAL_WINDOW, NoPeers, PeerSlices, PendingArrival,
    SHARED_WINDOW, by_rank, split_shared,
};
pub use timer::{Timer, result_latency};
pub use warp::{WARP, Warp, lanes};

use crate::config::Config;
use crate::decoded::Decoded;
use crate::error::{Location, SimError};
use crate::memory::{GlobalMemory, GlobalView, Overlay};
use crate::module::Kernel;
use crate::stats::{Hazard, Stats};
use ptxc_sass::isa::Op;
use rayon::prelude::*;
use timer::Hazards;

/// Instructions a warp runs before the next warp gets a turn.
const SLICE: usize = 4096;

/// Grid, block, dynamic shared memory and cluster shape of a launch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LaunchDims {
    /// Blocks per dimension.
    pub grid: [u32; 3],
    /// Threads per block per dimension.
    pub block: [u32; 3],
    /// Dynamic shared memory in bytes.
    pub dynamic_shared: u32,
    /// CTAs per cluster per dimension (Hopper), or `None` for a launch without a cluster
    /// shape (every CTA is a cluster of its own).
    pub cluster: Option<[u32; 3]>,
}

/// CTAs a cluster may hold (H100: 8 portable, 16 with the non-portable attribute).
pub const MAX_CLUSTER_CTAS: u32 = 16;

impl LaunchDims {
    /// CTAs per cluster per dimension (ones without a cluster shape).
    pub fn cluster_dims(&self) -> [u32; 3] {
        self.cluster.unwrap_or([1, 1, 1])
    }

    /// CTAs per cluster.
    pub fn cluster_size(&self) -> u32 {
        self.cluster_dims().iter().product()
    }
}

/// Byte offset of `%nsmid` (the number of SMs) in constant bank 0.
pub const NSMID_OFFSET: usize = 0x10c;

/// Builds constant bank 0 as the driver does: ntid, nctaid, the shared and local windows,
/// the stack size, dynamic shared memory, the address of the constant data in global memory
/// (`const_base`, at the kernel architecture's `Arch::const_window`), `%nsmid`, and the
/// parameters at `Arch::param_base` (0x160, or 0x210 on Hopper).
pub fn bank0(kernel: &Kernel, dims: &LaunchDims, params: &[u8], sms: u32, const_base: u64) -> Vec<u8> {
    let base = kernel.arch.param_base() as usize;
    let mut b = vec![0u8; base + kernel.param_size.max(params.len() as u32) as usize];
    let mut put = |off: usize, v: u32| b[off..off + 4].copy_from_slice(&v.to_le_bytes());
    for i in 0..3 {
        put(4 * i, dims.block[i]);
        put(0xc + 4 * i, dims.grid[i]);
    }
    put(0x18, SHARED_WINDOW as u32);
    put(0x1c, (SHARED_WINDOW >> 32) as u32);
    put(0x20, LOCAL_WINDOW as u32);
    put(0x24, (LOCAL_WINDOW >> 32) as u32);
    put(0x28, kernel.local_bytes);
    put(0x2c, dims.dynamic_shared);
    let window = kernel.arch.const_window() as usize;
    put(window, const_base as u32);
    put(window + 4, (const_base >> 32) as u32);
    put(NSMID_OFFSET, sms);
    if kernel.arch.sm() >= 90 {
        cluster_words(&mut put, dims);
    }
    b[base..base + params.len()].copy_from_slice(params);
    b
}

/// Hopper's cluster words in constant bank 0, where ptxas 13.5 reads the cluster special
/// registers (its sm_90 SASS for `%cluster_nctaid`, `%nclusterid`, `%clusterid`,
/// `%cluster_nctarank`, `%is_explicit_cluster`): `c[0x140]` is 1 for a launch with an
/// explicit cluster shape, `c[0x144..0x150]` the cluster's CTAs per dimension,
/// `c[0x150..0x15c]` their reciprocals as floats (ptxas divides `%ctaid.y` and `.z` by
/// multiplying; the x slot is inferred from the layout, ptxas divides `%ctaid.x` exactly),
/// `c[0x15c..0x168]` the clusters per dimension, `c[0x188]` the CTAs per cluster. A launch
/// without a cluster shape has clusters of one CTA.
fn cluster_words(put: &mut impl FnMut(usize, u32), dims: &LaunchDims) {
    let shape = dims.cluster_dims();
    put(0x140, dims.cluster.is_some() as u32);
    for (i, (&n, &g)) in shape.iter().zip(&dims.grid).enumerate() {
        put(0x144 + 4 * i, n);
        put(0x150 + 4 * i, (1.0f32 / n as f32).to_bits());
        put(0x15c + 4 * i, g / n);
    }
    put(0x188, dims.cluster_size());
}

/// Checks the launch dimensions against the hardware limits.
pub fn check_dims(dims: &LaunchDims) -> Result<(), SimError> {
    let [x, y, z] = dims.block;
    if x == 0 || y == 0 || z == 0 || dims.grid.contains(&0) {
        return Err(SimError::BadLaunch(
            "grid and block dimensions must be at least 1".into(),
        ));
    }
    if x > 1024 || y > 1024 || z > 64 || x * y * z > 1024 {
        return Err(SimError::BadLaunch(format!(
            "block {x}x{y}x{z} exceeds 1024 threads (max 1024x1024x64)"
        )));
    }
    if dims.grid[1] > 65535 || dims.grid[2] > 65535 {
        return Err(SimError::BadLaunch("grid y and z are limited to 65535".into()));
    }
    check_cluster(dims)?;
    if dims.dynamic_shared > 64 * 1024 {
        return Err(SimError::BadLaunch(format!(
            "{} bytes of dynamic shared memory exceed the 64 KiB of an SM",
            dims.dynamic_shared
        )));
    }
    Ok(())
}

/// Checks a launch's cluster shape: at least one CTA per dimension, at most
/// [`MAX_CLUSTER_CTAS`] in all, and a grid made of whole clusters.
fn check_cluster(dims: &LaunchDims) -> Result<(), SimError> {
    let Some(c) = dims.cluster else {
        return Ok(());
    };
    if c.contains(&0) {
        return Err(SimError::BadLaunch("cluster dimensions must be at least 1".into()));
    }
    let size = c.iter().map(|&x| x as u64).product::<u64>();
    if size > MAX_CLUSTER_CTAS as u64 {
        return Err(SimError::BadLaunch(format!(
            "a cluster of {}x{}x{} = {size} CTAs exceeds the {MAX_CLUSTER_CTAS} a cluster may hold",
            c[0], c[1], c[2]
        )));
    }
    if (0..3).any(|i| !dims.grid[i].is_multiple_of(c[i])) {
        return Err(SimError::BadLaunch(format!(
            "grid {}x{}x{} is not made of whole {}x{}x{} clusters (each grid dimension must be a multiple of the cluster's)",
            dims.grid[0], dims.grid[1], dims.grid[2], c[0], c[1], c[2]
        )));
    }
    Ok(())
}

/// The clusters of a grid in launch order (cluster index x fastest), each as its CTAs in
/// rank order (`%cluster_ctarank` = x + y * nx + z * nx * ny within the cluster). Without a
/// cluster shape every CTA is a cluster of its own, in [`ctas`]'s order.
pub fn clusters(dims: &LaunchDims) -> Vec<Vec<[u32; 3]>> {
    let [cx, cy, cz] = dims.cluster_dims();
    let count = LaunchDims {
        grid: [dims.grid[0] / cx, dims.grid[1] / cy, dims.grid[2] / cz],
        ..LaunchDims::default()
    };
    let members = LaunchDims {
        grid: [cx, cy, cz],
        ..LaunchDims::default()
    };
    let within = ctas(&members);
    ctas(&count)
        .into_iter()
        .map(|c| {
            within
                .iter()
                .map(|m| [c[0] * cx + m[0], c[1] * cy + m[1], c[2] * cz + m[2]])
                .collect()
        })
        .collect()
}

/// The CTAs of a grid in launch order.
pub fn ctas(dims: &LaunchDims) -> Vec<[u32; 3]> {
    let mut v = Vec::with_capacity(dims.grid.iter().map(|&g| g as usize).product());
    for z in 0..dims.grid[2] {
        for y in 0..dims.grid[1] {
            for x in 0..dims.grid[0] {
                v.push([x, y, z]);
            }
        }
    }
    v
}

/// Runs `work(group, view, stats)` for every group: in parallel over private overlays of
/// `mem` (merged back in group order), or one after the other on `mem` itself. Every
/// group's statistics are merged into `stats` in group order (also when a group faults);
/// the error of the lowest failing group wins.
pub fn run_groups<F>(
    mem: &mut GlobalMemory,
    groups: usize,
    parallel: bool,
    stats: &mut Stats,
    work: F,
) -> Result<(), SimError>
where
    F: Fn(usize, &mut GlobalView, &mut Stats) -> Result<(), SimError> + Sync,
{
    if !parallel || groups <= 1 {
        let mut view = GlobalView::direct(mem);
        for g in 0..groups {
            let mut s = Stats::default();
            let r = work(g, &mut view, &mut s);
            stats.merge(s);
            r?;
        }
        return Ok(());
    }
    let shared: &GlobalMemory = mem;
    let results: Vec<(Result<(), SimError>, Stats, Overlay)> = (0..groups)
        .into_par_iter()
        .map(|g| {
            let mut overlay = Overlay::default();
            let mut s = Stats::default();
            let r = {
                let mut view = GlobalView::Overlay {
                    mem: shared,
                    overlay: &mut overlay,
                    hint: 0,
                };
                work(g, &mut view, &mut s)
            };
            (r, s, overlay)
        })
        .collect();
    let mut first_error = None;
    for (r, s, overlay) in results {
        mem.merge(overlay);
        stats.merge(s);
        if let Err(e) = r {
            first_error.get_or_insert(e);
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Whether a launch may run its groups in parallel: its CTAs do not communicate through
/// global memory.
pub fn parallel_ok(kernel: &Kernel, ctas: usize) -> bool {
    !kernel.communicates && ctas > 1
}

/// Instructions a warp runs per turn when CTAs communicate (spin loops see other CTAs'
/// writes soon).
const SHARED_SLICE: usize = 64;

/// Runs `kernel` over the whole grid.
pub fn run(
    kernel: &Kernel,
    consts: &ConstBanks,
    global: &mut GlobalMemory,
    dims: &LaunchDims,
    config: &Config,
    stats: &mut Stats,
) -> Result<(), SimError> {
    check_dims(dims)?;
    stats.engine = "functional".into();
    let all = clusters(dims);
    let ctas = all.len() * dims.cluster_size() as usize;
    if !parallel_ok(kernel, ctas) {
        // CTAs that communicate run side by side, as many as the device holds at once.
        let window = config.sms.max(1) as usize * crate::timed::occupancy(kernel, dims, config)?;
        let window = window / dims.cluster_size() as usize;
        return run_side_by_side(kernel, consts, global, dims, &all, window, config, stats);
    }
    let groups = (config.sms.max(1) as usize).min(all.len());
    run_groups(global, groups, true, stats, |g, view, s| {
        for (i, members) in all.iter().enumerate() {
            if i % groups == g {
                let mut run = ClusterRun::new(kernel, dims, members, g as u32, s);
                while !run.finished() {
                    if !run.round(kernel, consts, view, config, s, SLICE)? {
                        return Err(run.deadlock(kernel));
                    }
                }
                run.finish(s);
            }
        }
        Ok(())
    })
}

/// Runs up to `window` clusters at once, a few instructions per warp in turn, on the memory
/// itself.
#[allow(clippy::too_many_arguments)]
fn run_side_by_side(
    kernel: &Kernel,
    consts: &ConstBanks,
    global: &mut GlobalMemory,
    dims: &LaunchDims,
    all: &[Vec<[u32; 3]>],
    window: usize,
    config: &Config,
    stats: &mut Stats,
) -> Result<(), SimError> {
    let mut view = GlobalView::direct(global);
    let mut next = 0;
    let mut resident: Vec<ClusterRun> = Vec::new();
    let sms = config.sms.max(1) as usize;
    loop {
        while resident.len() < window.max(1) && next < all.len() {
            resident.push(ClusterRun::new(kernel, dims, &all[next], (next % sms) as u32, stats));
            next += 1;
        }
        if resident.is_empty() {
            return Ok(());
        }
        let mut progress = false;
        for run in resident.iter_mut() {
            progress |= run.round(kernel, consts, &mut view, config, stats, SHARED_SLICE)?;
        }
        if !progress {
            return Err(resident[0].deadlock(kernel));
        }
        resident.retain_mut(|run| {
            let done = run.finished();
            if done {
                run.finish(stats);
            }
            !done
        });
    }
}

/// One cluster in the functional engine (a single CTA without a cluster shape): its CTAs'
/// shared state, warps and their timelines, by rank. A cluster's CTAs stay until all have
/// finished, so that their shared memories outlive every access from the others.
struct ClusterRun {
    ctas: Vec<CtaShared>,
    warps: Vec<Vec<Warp>>,
    timers: Vec<Vec<Timer>>,
}

impl ClusterRun {
    fn new(kernel: &Kernel, dims: &LaunchDims, members: &[[u32; 3]], sm: u32, stats: &mut Stats) -> ClusterRun {
        let size = members.len() as u32;
        let mut run = ClusterRun {
            ctas: Vec::with_capacity(members.len()),
            warps: Vec::with_capacity(members.len()),
            timers: Vec::with_capacity(members.len()),
        };
        for (rank, &ctaid) in members.iter().enumerate() {
            let place = ClusterPlace {
                rank: rank as u32,
                size,
            };
            let (cta, warps) = new_cta(kernel, dims, ctaid, sm, place);
            stats.ctas += 1;
            stats.warps += warps.len() as u64;
            run.timers.push(vec![Timer::new(kernel.arch); warps.len()]);
            run.ctas.push(cta);
            run.warps.push(warps);
        }
        run
    }

    fn finished(&self) -> bool {
        self.warps.iter().flatten().all(|w| w.alive == 0)
    }

    /// Accounts the CTAs' issue timelines as cycles.
    fn finish(&self, stats: &mut Stats) {
        let longest = self.timers.iter().flatten().map(|t| t.now()).max().unwrap_or(0);
        stats.cycles = stats.cycles.max(longest.max(0) as u64);
    }

    /// The error for a cluster whose live warps are all blocked: the first CTA with live
    /// warps.
    fn deadlock(&self, kernel: &Kernel) -> SimError {
        let k = self
            .warps
            .iter()
            .position(|ws| ws.iter().any(|w| w.alive != 0))
            .unwrap_or(0);
        deadlock(kernel, &self.ctas[k], self.warps[k].iter())
    }

    /// Lets every warp of every CTA run up to `slice` instructions (stopping at a barrier);
    /// returns whether any instruction ran.
    fn round(
        &mut self,
        kernel: &Kernel,
        consts: &ConstBanks,
        global: &mut GlobalView,
        config: &Config,
        stats: &mut Stats,
        slice: usize,
    ) -> Result<bool, SimError> {
        let mut progress = false;
        for k in 0..self.ctas.len() {
            progress |= self.round_cta(k, kernel, consts, global, config, stats, slice)?;
        }
        Ok(progress)
    }

    /// [`ClusterRun::round`] for the CTA of rank `k`.
    #[allow(clippy::too_many_arguments)]
    fn round_cta(
        &mut self,
        k: usize,
        kernel: &Kernel,
        consts: &ConstBanks,
        global: &mut GlobalView,
        config: &Config,
        stats: &mut Stats,
        slice: usize,
    ) -> Result<bool, SimError> {
        let mut progress = false;
        for wi in 0..self.warps[k].len() {
            for _ in 0..slice {
                let (before, rest) = self.ctas.split_at_mut(k);
                let (cta, after) = rest.split_first_mut().expect("rank within the cluster");
                let w = &mut self.warps[k][wi];
                let Some((pc, group)) = w.next_group() else {
                    break;
                };
                let d = fetch(kernel, cta, w, pc, group)?;
                let timer = &mut self.timers[k][wi];
                let t = timer.ready(d, timer.now());
                let latency = result_latency(d);
                let exec = w.pred_mask(d.guard, group);
                let hazards = timer.issue(t, d, latency, group, exec);
                if !hazards.is_empty() {
                    report_hazards(stats, kernel, cta, w.index, d, &hazards);
                }
                let mut peers = PeerSlices { before, after };
                let mut ctx = Ctx {
                    kernel,
                    consts,
                    global,
                    cta,
                    peers: &mut peers,
                    stats,
                    now: t,
                    // The functional engine makes an asynchronous arrival at once, as its
                    // copies land at issue.
                    copies_landed: i64::MIN,
                    memory: &config.memory,
                    timed: false,
                };
                step::execute(&mut ctx, w, d, group, &hazards)?;
                progress = true;
                if stats.warp_instructions > config.instruction_limit {
                    let lane = group.trailing_zeros() as usize;
                    return Err(SimError::Limit {
                        at: location(kernel, &self.ctas[k], &self.warps[k][wi], lane, pc),
                        limit: config.instruction_limit,
                    });
                }
                if matches!(d.op, Op::Bar | Op::Exit) {
                    let mut all: Vec<&mut Warp> = self.warps[k].iter_mut().collect();
                    semantics::release_barriers(&mut self.ctas[k], &mut all, kernel);
                }
                if matches!(d.op, Op::UcgabarArv | Op::Exit) {
                    self.complete_cluster_phase();
                }
                if matches!(d.op, Op::Bar | Op::UcgabarWait) {
                    break;
                }
            }
        }
        Ok(progress)
    }

    /// Completes the cluster barrier's phase once every live thread has arrived.
    fn complete_cluster_phase(&mut self) {
        let mut ctas: Vec<&mut CtaShared> = self.ctas.iter_mut().collect();
        let mut warps: Vec<&mut Warp> = self.warps.iter_mut().flatten().collect();
        semantics::cluster::complete_phase(&mut ctas, &mut warps);
    }
}

/// A fresh CTA at `place` in its cluster: its shared state and warps.
pub fn new_cta(
    kernel: &Kernel,
    dims: &LaunchDims,
    ctaid: [u32; 3],
    sm: u32,
    place: ClusterPlace,
) -> (CtaShared, Vec<Warp>) {
    let threads = dims.block.iter().product::<u32>();
    let nwarps = threads.div_ceil(WARP as u32);
    let warps = (0..nwarps)
        .map(|i| Warp::new(i, dims.block, kernel.reg_rows, kernel.local_bytes))
        .collect();
    let shared_len = (kernel.shared_size + dims.dynamic_shared) as usize;
    let shared = CtaShared {
        ctaid,
        shared: vec![0; shared_len],
        bar_arrived: [0; 16],
        bar_expected: [0; 16],
        bar_red: [(0, true, false); 16],
        bar_redop: [Default::default(); 16],
        bar_result: (0, false),
        live_threads: threads,
        pending_arrivals: Vec::new(),
        sm,
        unfenced: if kernel.async_proxy {
            vec![0; shared_len.div_ceil(ctx::FENCE_CHUNK)]
        } else {
            Vec::new()
        },
        cluster: place,
        cga_arrived: 0,
    };
    (shared, warps)
}

/// The instruction at `pc`, or a fault if execution ran past the code.
pub fn fetch<'k>(kernel: &'k Kernel, cta: &CtaShared, w: &Warp, pc: u32, group: u32) -> Result<&'k Decoded, SimError> {
    kernel.insts.get(pc as usize / 16).ok_or_else(|| SimError::Unsupported {
        at: location(kernel, cta, w, group.trailing_zeros() as usize, pc),
        what: "execution past the end of the code".into(),
    })
}

/// The location of a lane, for messages.
pub fn location(kernel: &Kernel, cta: &CtaShared, w: &Warp, lane: usize, pc: u32) -> Location {
    Location {
        kernel: kernel.name.clone(),
        ctaid: cta.ctaid,
        tid: w.tid[lane % WARP],
        pc,
    }
}

/// Records the hazards of one instruction.
pub fn report_hazards(stats: &mut Stats, kernel: &Kernel, cta: &CtaShared, warp: u32, d: &Decoded, hazards: &Hazards) {
    for h in hazards {
        stats.hazard(|| Hazard {
            kernel: kernel.name.clone(),
            ctaid: cta.ctaid,
            warp,
            pc: d.pc,
            what: format!("{} ({})", h.describe(), d.text()),
        });
    }
}

/// The error for a CTA whose live warps are all blocked.
pub fn deadlock<'w>(kernel: &Kernel, cta: &CtaShared, warps: impl IntoIterator<Item = &'w Warp>) -> SimError {
    let mut warps = warps.into_iter();
    let Some(w) = warps.find(|w| w.alive != 0) else {
        return SimError::BadLaunch("deadlock without live warps".into());
    };
    let lane = (w.alive & w.blocked).trailing_zeros() as usize % WARP;
    let at_bar = w.bar_wait.iter().any(|&m| m != 0);
    let detail = if w.cga.waiting != 0 {
        format!(
            "threads wait at the cluster barrier (barrier.cluster.wait); {} of this CTA's {} live threads arrived \
             (rank {} of a cluster of {}), the cluster's other live threads never arrive",
            cta.cga_arrived, cta.live_threads, cta.cluster.rank, cta.cluster.size
        )
    } else if at_bar {
        let waiting: Vec<String> = (0..cta.bar_arrived.len())
            .filter(|&id| cta.bar_arrived[id] != 0)
            .map(|id| {
                let expected = match cta.bar_expected[id] {
                    0 => cta.live_threads,
                    n => n,
                };
                format!("barrier {id}: {} of {expected} threads arrived", cta.bar_arrived[id])
            })
            .collect();
        format!(
            "{}; the CTA's other live threads (of {}) never arrive",
            waiting.join(", "),
            cta.live_threads
        )
    } else {
        "threads wait at a convergence barrier (BSYNC/WARPSYNC) that other threads never reach".into()
    };
    SimError::Deadlock {
        at: location(kernel, cta, w, lane, w.lane_pc(lane)),
        detail,
    }
}
