//! Executing one instruction for a group of lanes at the same program counter: the guard,
//! the values an early (hazardous) read sees, the operation, and where each lane goes next.

use super::ctx::Ctx;
use super::timer::Hazards;
use super::warp::{WARP, Warp};
use crate::decoded::Decoded;
use crate::error::SimError;
use ptxc_sass::isa::access::Reg;
use smallvec::SmallVec;

/// Runs `d` for the lanes of `group` (all at `d.pc`). Registers named by `hazards` with
/// `sees_old_value` are read as they were before their pending write, as the hardware
/// would read them.
#[inline]
pub fn execute(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32, hazards: &Hazards) -> Result<(), SimError> {
    if hazards.iter().any(|h| h.sees_old_value) {
        return execute_with_old_values(ctx, w, d, group, hazards);
    }
    run(ctx, w, d, group)
}

#[inline]
fn run(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32) -> Result<(), SimError> {
    let exec = w.pred_mask(d.guard, group);
    ctx.stats.warp_instructions += 1;
    ctx.stats.thread_instructions += exec.count_ones() as u64;
    (d.exec)(ctx, w, d, group, exec)?;
    if !d.flow {
        w.advance(group, d.pc);
    }
    Ok(())
}

/// The slow path: swap the old values in, run, and swap back the registers the
/// instruction did not overwrite.
#[cold]
fn execute_with_old_values(
    ctx: &mut Ctx,
    w: &mut Warp,
    d: &Decoded,
    group: u32,
    hazards: &Hazards,
) -> Result<(), SimError> {
    let mut swapped: SmallVec<[(Reg, [u32; WARP], u32); 4]> = SmallVec::new();
    for h in hazards.iter().filter(|h| h.sees_old_value) {
        match h.reg {
            Reg::R(r) if (r as usize) < w.regs.len() => {
                let i = r as usize;
                let current = w.regs[i];
                w.regs[i] = w.old_regs[i];
                swapped.push((h.reg, current, 0));
            }
            Reg::P(p) => {
                let i = p as usize & 7;
                let current = w.preds[i];
                w.preds[i] = w.old_preds[i];
                swapped.push((h.reg, [0; WARP], current));
            }
            _ => {}
        }
    }
    let result = run(ctx, w, d, group);
    let written = |reg: Reg| d.accesses.writes.iter().any(|a| a.reg == reg);
    for (reg, row, mask) in swapped {
        if written(reg) {
            continue;
        }
        match reg {
            Reg::R(r) => w.regs[r as usize] = row,
            Reg::P(p) => w.preds[p as usize & 7] = mask,
            Reg::UR(_) | Reg::UP(_) => {}
        }
    }
    result
}
