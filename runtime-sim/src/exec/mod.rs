//! The functional engine: runs a grid CTA by CTA; within a CTA, warps take turns until
//! each blocks at a barrier or exits; within a warp, the lanes at the lowest program counter
//! run together (independent thread scheduling). Every instruction also goes through the
//! warp's [`timer::Timer`], which counts hazards against the control codes.

mod ctx;
mod float;
mod int;
mod mem;
mod step;
mod timer;
mod warp;

pub use ctx::{ConstBanks, LOCAL_WINDOW, SHARED_WINDOW};

use crate::config::Config;
use crate::error::SimError;
use crate::memory::GlobalMemory;
use crate::module::Kernel;
use crate::stats::Stats;
use ctx::Ctx;
use timer::Timer;
use warp::{WARP, Warp};

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
) -> Result<Stats, SimError> {
    check_dims(dims)?;
    let mut stats = Stats {
        engine: "functional".into(),
        ..Stats::default()
    };
    for z in 0..dims.grid[2] {
        for y in 0..dims.grid[1] {
            for x in 0..dims.grid[0] {
                run_cta(kernel, consts, global, dims, [x, y, z], config, &mut stats)?;
            }
        }
    }
    Ok(stats)
}

fn run_cta(
    kernel: &Kernel,
    consts: &ConstBanks,
    global: &mut GlobalMemory,
    dims: &LaunchDims,
    ctaid: [u32; 3],
    config: &Config,
    stats: &mut Stats,
) -> Result<(), SimError> {
    let threads = dims.block.iter().product::<u32>();
    let nwarps = threads.div_ceil(WARP as u32);
    let mut warps: Vec<Warp> = (0..nwarps)
        .map(|i| Warp::new(i, dims.block, kernel.regs as usize))
        .collect();
    let mut timers: Vec<Timer> = vec![Timer::default(); nwarps as usize];
    let mut ctx = Ctx {
        kernel,
        consts,
        global,
        shared: vec![0; (kernel.shared_size + dims.dynamic_shared) as usize],
        ctaid,
        stats,
        bar_arrived: [0; 16],
        live_threads: threads,
    };
    ctx.stats.ctas += 1;
    ctx.stats.warps += nwarps as u64;
    loop {
        let mut progress = false;
        for wi in 0..warps.len() {
            for _ in 0..SLICE {
                let Some((pc, group)) = warps[wi].next_group() else {
                    break;
                };
                let Some(d) = kernel.insts.get(pc as usize / 16) else {
                    let lane = group.trailing_zeros() as usize;
                    return Err(SimError::Unsupported {
                        at: ctx.at(&warps[wi], lane, pc),
                        what: "execution past the end of the code".into(),
                    });
                };
                step::step(&mut ctx, &mut warps[wi], &mut timers[wi], d, group)?;
                progress = true;
                if ctx.stats.warp_instructions > config.instruction_limit {
                    return Err(SimError::Limit {
                        at: ctx.at(&warps[wi], group.trailing_zeros() as usize, pc),
                        limit: config.instruction_limit,
                    });
                }
                if matches!(d.op, ptxc_backend::isa::Op::Bar | ptxc_backend::isa::Op::Exit) {
                    release_barriers(&mut ctx, &mut warps, kernel);
                }
            }
        }
        if warps.iter().all(|w| w.alive == 0) {
            break;
        }
        if !progress {
            return Err(deadlock(&ctx, &warps));
        }
    }
    let longest = timers.iter().map(|t| t.now()).max().unwrap_or(0);
    ctx.stats.cycles = ctx.stats.cycles.max(longest.max(0) as u64);
    Ok(())
}

/// Completes CTA barriers whose every expected thread has arrived.
fn release_barriers(ctx: &mut Ctx, warps: &mut [Warp], kernel: &Kernel) {
    for id in 0..16 {
        if ctx.bar_arrived[id] == 0 {
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
        let expected = if count == 0 { ctx.live_threads } else { count };
        if ctx.bar_arrived[id] >= expected {
            ctx.bar_arrived[id] = 0;
            for w in warps.iter_mut() {
                let waiting = w.bar_wait[id];
                w.bar_wait[id] = 0;
                w.blocked &= !waiting;
                w.advance(waiting);
            }
        }
    }
}

fn deadlock(ctx: &Ctx, warps: &[Warp]) -> SimError {
    let w = warps.iter().find(|w| w.alive != 0).expect("a live warp");
    let lane = (w.alive & w.blocked).trailing_zeros() as usize % WARP;
    let at_bar = w.bar_wait.iter().any(|&m| m != 0);
    let detail = if at_bar {
        format!(
            "{} of the CTA's threads wait at a barrier that the others never reach",
            ctx.bar_arrived.iter().sum::<u32>()
        )
    } else {
        "threads wait at a convergence barrier (BSYNC/WARPSYNC) that other threads never reach".into()
    };
    SimError::Deadlock {
        at: ctx.at(w, lane, w.pc[lane]),
        detail,
    }
}
