//! The functional engine: runs a grid CTA by CTA; within a CTA, warps take turns until
//! each blocks at a barrier or exits; within a warp, the lanes at the lowest program counter
//! run together (independent thread scheduling). Every instruction also goes through the
//! warp's [`timer::Timer`], which counts hazards against the control codes.

mod ctx;
mod float;
mod int;
mod mem;
pub mod step;
mod timer;
mod warp;

pub use ctx::{ConstBanks, CtaShared, Ctx, LOCAL_WINDOW, SHARED_WINDOW};
pub use step::execute;
pub use timer::{Timer, result_latency};
pub use warp::{WARP, Warp, lanes};

use crate::config::Config;
use crate::decoded::Decoded;
use crate::error::SimError;
use crate::memory::GlobalMemory;
use crate::module::Kernel;
use crate::stats::Stats;

/// Instructions a warp runs before the next warp gets a turn.
const SLICE: usize = 4096;

/// Grid, block, dynamic shared memory and the parameter block of a launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchDims {
    /// Blocks per dimension.
    pub grid: [u32; 3],
    /// Threads per block per dimension.
    pub block: [u32; 3],
    /// Dynamic shared memory in bytes.
    pub dynamic_shared: u32,
}

/// Builds constant bank 0 as the driver does: ntid, nctaid, windows, stack, parameters at 0x160.
pub fn bank0(kernel: &Kernel, dims: &LaunchDims, params: &[u8]) -> Vec<u8> {
    let mut b = vec![0u8; 0x160 + kernel.param_size.max(params.len() as u32) as usize];
    let mut put = |off: usize, v: u32| b[off..off + 4].copy_from_slice(&v.to_le_bytes());
    for i in 0..3 {
        put(4 * i, dims.block[i]);
        put(0xc + 4 * i, dims.grid[i]);
    }
    put(0x18, SHARED_WINDOW as u32);
    put(0x1c, (SHARED_WINDOW >> 32) as u32);
    put(0x20, LOCAL_WINDOW as u32);
    put(0x24, (LOCAL_WINDOW >> 32) as u32);
    put(0x28, kernel.local_size);
    put(0x2c, dims.dynamic_shared);
    b[0x160..0x160 + params.len()].copy_from_slice(params);
    b
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
    Ok(())
}

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
    for z in 0..dims.grid[2] {
        for y in 0..dims.grid[1] {
            for x in 0..dims.grid[0] {
                run_cta(kernel, consts, global, dims, [x, y, z], config, stats)?;
            }
        }
    }
    Ok(())
}

/// A fresh CTA: its shared state and warps.
pub fn new_cta(kernel: &Kernel, dims: &LaunchDims, ctaid: [u32; 3]) -> (CtaShared, Vec<Warp>) {
    let threads = dims.block.iter().product::<u32>();
    let nwarps = threads.div_ceil(WARP as u32);
    let warps = (0..nwarps)
        .map(|i| Warp::new(i, dims.block, kernel.regs as usize))
        .collect();
    let shared = CtaShared {
        ctaid,
        shared: vec![0; (kernel.shared_size + dims.dynamic_shared) as usize],
        bar_arrived: [0; 16],
        live_threads: threads,
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
pub fn location(kernel: &Kernel, cta: &CtaShared, w: &Warp, lane: usize, pc: u32) -> crate::error::Location {
    crate::error::Location {
        kernel: kernel.name.clone(),
        ctaid: cta.ctaid,
        tid: w.tid[lane % WARP],
        pc,
    }
}

#[allow(clippy::too_many_arguments)]
fn run_cta(
    kernel: &Kernel,
    consts: &ConstBanks,
    global: &mut GlobalMemory,
    dims: &LaunchDims,
    ctaid: [u32; 3],
    config: &Config,
    stats: &mut Stats,
) -> Result<(), SimError> {
    let (mut cta, mut warps) = new_cta(kernel, dims, ctaid);
    let mut timers: Vec<Timer> = vec![Timer::default(); warps.len()];
    stats.ctas += 1;
    stats.warps += warps.len() as u64;
    loop {
        let mut progress = false;
        for wi in 0..warps.len() {
            for _ in 0..SLICE {
                let Some((pc, group)) = warps[wi].next_group() else {
                    break;
                };
                let d = fetch(kernel, &cta, &warps[wi], pc, group)?;
                let mut ctx = Ctx {
                    kernel,
                    consts,
                    global,
                    cta: &mut cta,
                    stats,
                };
                step::step(&mut ctx, &mut warps[wi], &mut timers[wi], d, group)?;
                progress = true;
                if stats.warp_instructions > config.instruction_limit {
                    let lane = group.trailing_zeros() as usize;
                    return Err(SimError::Limit {
                        at: location(kernel, &cta, &warps[wi], lane, pc),
                        limit: config.instruction_limit,
                    });
                }
                if matches!(d.op, ptxc_backend::isa::Op::Bar | ptxc_backend::isa::Op::Exit) {
                    let mut all: Vec<&mut Warp> = warps.iter_mut().collect();
                    release_barriers(&mut cta, &mut all, kernel);
                }
            }
        }
        if warps.iter().all(|w| w.alive == 0) {
            break;
        }
        if !progress {
            return Err(deadlock(kernel, &cta, warps.iter()));
        }
    }
    let longest = timers.iter().map(|t| t.now()).max().unwrap_or(0);
    stats.cycles = stats.cycles.max(longest.max(0) as u64);
    Ok(())
}

/// Completes CTA barriers whose every expected thread has arrived.
pub fn release_barriers(cta: &mut CtaShared, warps: &mut [&mut Warp], kernel: &Kernel) {
    for id in 0..16 {
        if cta.bar_arrived[id] == 0 {
            continue;
        }
        let count = warps
            .iter()
            .flat_map(|w| {
                let mask = w.bar_wait[id];
                (0..WARP).filter(move |&l| mask & (1 << l) != 0).map(move |l| w.pc[l])
            })
            .next()
            .and_then(|pc| kernel.insts.get(pc as usize / 16))
            .map_or(0, step::bar_count);
        let expected = if count == 0 { cta.live_threads } else { count };
        if cta.bar_arrived[id] >= expected {
            cta.bar_arrived[id] = 0;
            for w in warps.iter_mut() {
                let waiting = w.bar_wait[id];
                w.bar_wait[id] = 0;
                w.blocked &= !waiting;
                w.advance(waiting);
            }
        }
    }
}

/// The error for a CTA whose live warps are all blocked.
pub fn deadlock<'w>(kernel: &Kernel, cta: &CtaShared, warps: impl IntoIterator<Item = &'w Warp>) -> SimError {
    let w = warps.into_iter().find(|w| w.alive != 0).expect("a live warp");
    let lane = (w.alive & w.blocked).trailing_zeros() as usize % WARP;
    let at_bar = w.bar_wait.iter().any(|&m| m != 0);
    let detail = if at_bar {
        format!(
            "{} of the CTA's threads wait at a barrier that the others never reach",
            cta.bar_arrived.iter().sum::<u32>()
        )
    } else {
        "threads wait at a convergence barrier (BSYNC/WARPSYNC) that other threads never reach".into()
    };
    SimError::Deadlock {
        at: location(kernel, cta, w, lane, w.pc[lane]),
        detail,
    }
}
