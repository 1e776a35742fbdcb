//! Executing one instruction for a group of lanes at the same program counter: the guard,
//! the hazard check, the operation, and where each lane goes next.

use super::ctx::Ctx;
use super::timer::Timer;
use super::warp::{Warp, lanes};
use super::{float, int, mem};
use crate::decoded::Decoded;
use crate::error::SimError;
use crate::stats::Hazard;
use ptxc_backend::isa::Op;

/// Functional engine: issues `d` on the warp's timeline (counting hazards), then runs it.
pub fn step(ctx: &mut Ctx, w: &mut Warp, timer: &mut Timer, d: &Decoded, group: u32) -> Result<(), SimError> {
    let (kernel, ctaid, warp) = (&ctx.kernel.name, ctx.cta.ctaid, w.index);
    let stats = &mut *ctx.stats;
    timer.issue(d, &mut |what| {
        stats.hazard(Hazard {
            kernel: kernel.clone(),
            ctaid,
            warp,
            pc: d.pc,
            what,
        })
    });
    execute(ctx, w, d, group, timer.now())
}

/// Runs `d` for the lanes of `group` (all at `d.pc`): the operation and where each lane goes
/// next. `now` is the cycle (for clock reads).
pub fn execute(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32, now: i64) -> Result<(), SimError> {
    ctx.stats.warp_instructions += 1;
    let exec = w.pred_mask(d.guard, group);
    ctx.stats.thread_instructions += exec.count_ones() as u64;
    match d.op {
        Op::Bra => {
            let target = d.target.expect("branch target");
            for l in lanes(exec) {
                w.pc[l] = target;
            }
            w.advance(group & !exec);
        }
        Op::Exit => {
            w.alive &= !exec;
            ctx.cta.live_threads -= exec.count_ones();
            w.advance(group & !exec);
            release_convergence(w);
        }
        Op::Bssy => {
            w.conv[d.special as usize & 15] = exec;
            w.advance(group);
        }
        Op::Bsync => {
            let b = d.special as usize & 15;
            w.bsync_wait[b] |= exec;
            w.blocked |= exec;
            w.advance(group & !exec);
            release_convergence(w);
        }
        Op::Bmov => {
            let b = d.special as usize & 15;
            for l in lanes(exec) {
                w.set_reg(d.dst, l, w.conv[b]);
            }
            if d.m.clear {
                w.conv[b] = 0;
            }
            w.advance(group);
        }
        Op::Warpsync | Op::Nop => w.advance(group),
        Op::Bar => {
            let id = bar_id(d);
            w.bar_wait[id] |= exec;
            w.blocked |= exec;
            ctx.cta.bar_arrived[id] += exec.count_ones();
            w.advance(group & !exec);
        }
        Op::Ldg | Op::Stg => {
            mem::exec(ctx, w, d, exec)?;
            w.advance(group);
        }
        Op::Fadd | Op::Fmul | Op::Ffma | Op::Fsetp | Op::Fmnmx | Op::Fsel | Op::Mufu => {
            float::exec(ctx, w, d, exec);
            w.advance(group);
        }
        Op::Mov
        | Op::Iadd3
        | Op::Imad
        | Op::ImadHi
        | Op::ImadWide
        | Op::Lea
        | Op::LeaHi
        | Op::Lop3
        | Op::Shf
        | Op::Isetp
        | Op::Sel
        | Op::Imnmx
        | Op::Plop3 => {
            int::exec(ctx, w, d, exec);
            w.advance(group);
        }
        Op::S2r | Op::Cs2r => {
            special(ctx, w, d, exec, now);
            w.advance(group);
        }
        other => {
            let lane = lanes(group).next().unwrap_or(0);
            return Err(SimError::Unsupported {
                at: ctx.at(w, lane, d.pc),
                what: format!("{other:?}"),
            });
        }
    }
    Ok(())
}

/// The barrier number of a BAR instruction.
pub fn bar_id(d: &Decoded) -> usize {
    match d.a.src {
        crate::decoded::Src::Imm(v) => v as usize & 15,
        _ => 0,
    }
}

/// The thread count of a BAR instruction (0 = every thread of the CTA).
pub fn bar_count(d: &Decoded) -> u32 {
    match d.b.src {
        crate::decoded::Src::Imm(v) => v as u32,
        _ => 0,
    }
}

/// Releases the lanes waiting at a BSYNC once every live lane of its barrier has arrived.
pub fn release_convergence(w: &mut Warp) {
    for b in 0..16 {
        let waiting = w.bsync_wait[b];
        if waiting == 0 {
            continue;
        }
        let needed = w.conv[b] & w.alive;
        if needed & !waiting == 0 {
            w.bsync_wait[b] = 0;
            w.blocked &= !waiting;
            w.advance(waiting & w.alive);
        }
    }
}

/// S2R / CS2R: special registers.
fn special(ctx: &Ctx, w: &mut Warp, d: &Decoded, mask: u32, now: i64) {
    for l in lanes(mask) {
        let tid = w.tid[l];
        let v: u64 = match d.special {
            0x00 => l as u64,
            0x21..=0x23 => tid[(d.special - 0x21) as usize] as u64,
            0x25..=0x27 => ctx.cta.ctaid[(d.special - 0x25) as usize] as u64,
            0x32 => ctx.cta.shared.len() as u64,
            0x38 => 1 << l,
            0x39 => (1u64 << l) - 1,
            0x3a => (2u64 << l) - 1,
            0x3b => (u32::MAX as u64) << (l + 1) & 0xffff_ffff,
            0x3c => (u32::MAX as u64) << l & 0xffff_ffff,
            0x50 | 0x52 => now.max(0) as u64,
            0x51 | 0x53 => 0,
            _ => 0,
        };
        if d.op == Op::Cs2r && d.m.wide {
            w.set_reg64(d.dst, l, v);
        } else {
            w.set_reg(d.dst, l, v as u32);
        }
    }
}
