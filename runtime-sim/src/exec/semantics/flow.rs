//! Control flow and synchronisation: BRA, BRX, JMP, EXIT, BSSY/BSYNC/BMOV/BREAK
//! (convergence barriers), WARPSYNC, CALL/RET, BAR (CTA barriers: sync, arrive, reductions),
//! B2R, BPT, and the instructions without a functional effect (NOP, DEPBAR, MEMBAR, ...).
//! A CALL to the address of a driver-provided function runs it ([`crate::driver`]).
//!
//! Control-flow functions move program counters themselves: lanes that do not take a
//! branch advance to the next instruction.

use crate::decoded::{Decoded, Src};
use crate::driver::DriverFn;
use crate::error::SimError;
use crate::exec::ctx::{CtaShared, Ctx};
use crate::exec::warp::{WARP, Warp, lanes};
use crate::module::Kernel;
use ptxc_sass::isa::values::{BarMode, BarRedOp, BranchKind};

type R = Result<(), SimError>;

/// The lanes of `exec` whose condition operand (if any) holds.
fn taken(w: &Warp, d: &Decoded, exec: u32) -> u32 {
    w.pred_mask(d.ps[0], exec)
}

/// The branch target, or a fault.
fn target_of(ctx: &Ctx, w: &Warp, d: &Decoded, group: u32) -> Result<u32, SimError> {
    d.target.ok_or_else(|| SimError::Unsupported {
        at: ctx.at(w, group.trailing_zeros() as usize, d.pc),
        what: format!("{} without a target", d.text()),
    })
}

/// BRA: the taken lanes jump. `BRA.U` jumps only when every lane of the group takes it,
/// otherwise none does: ptxas skips a convergence region with `@P0 BRA.U L; BSSY B0, L;
/// @P0 BRA inner`, which reconverges a warp with mixed P0 only if the mixed warp falls
/// through to the BSSY (difftest seed 1700115, a SHFL after such a region).
///
/// From sm_80 on, `.DIV` and `.CONV` may name the lanes that must be converged in a uniform
/// register: `BRA.DIV UR4` is taken when the lanes that execute it (its guard true) are not
/// exactly those (ptxas's jump to the slow path of `vote.sync` with member mask UR4),
/// `BRA.CONV ~URZ` when they are (its jump to the fast path). The guard counts: ptxas 13.5's
/// sm_90 `redux.sync` with a run-time mask is `REDUX.OR UR4, Rm; R2UR P0, URZ, Rm; @!P0
/// BRA.DIV UR4, slow`, which gives each half-warp its own sum only if the lanes whose mask
/// equals the first lane's take the branch when they are not the whole of UR4 (SASS of
/// `tests/ampere/redux_mask.ptx`).
pub fn bra(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32, exec: u32) -> R {
    let t = taken(w, d, exec);
    let t = match (d.m.branch, d.a.src) {
        // `.U.ANY` (Hopper): every lane of the group jumps when any takes it. ptxas 13.5 ends
        // its loops over the distinct values of a register with `@P0 BRA.U.ANY head`, whose
        // body is guarded by P0 (the lanes not yet served; `createpolicy_range` on sm_90).
        (BranchKind::UniformAny, _) => {
            if t != 0 {
                group
            } else {
                0
            }
        }
        (BranchKind::Uniform, _) if t != group => 0,
        (BranchKind::Div | BranchKind::Conv, Src::UReg(_)) => {
            let mask = ctx.src32(w, &d.a, group.trailing_zeros() as usize % WARP);
            let mask = if d.a.not { !mask } else { mask };
            let converged = t == mask;
            if converged == (d.m.branch == BranchKind::Conv) {
                t
            } else {
                0
            }
        }
        _ => t,
    };
    let target = target_of(ctx, w, d, group)?;
    w.jump(t, d.pc, target);
    w.advance(group & !t, d.pc);
    Ok(())
}

/// Jumps each lane of `t` to its own (register) target `base + value`.
fn jump_each(w: &mut Warp, d: &Decoded, group: u32, t: u32, targets: &[u32; WARP]) {
    let first = t.trailing_zeros() as usize % WARP;
    if lanes(t).all(|l| targets[l] == targets[first]) {
        w.jump(t, d.pc, targets[first]);
    } else {
        for l in lanes(t) {
            w.jump(1 << l, d.pc, targets[l]);
        }
    }
    w.advance(group & !t, d.pc);
}

/// The per-lane value of the register operand of an indirect jump.
fn register_targets(ctx: &Ctx, w: &Warp, d: &Decoded, base: u32) -> [u32; WARP] {
    let s = if d.a.present() { &d.a } else { &d.b };
    std::array::from_fn(|l| base.wrapping_add(ctx.src32(w, s, l)))
}

/// EXIT: the lanes end; barriers waiting only for them may complete.
pub fn exit(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32, exec: u32) -> R {
    let t = taken(w, d, exec);
    w.advance(group & !t, d.pc);
    w.exit(t);
    ctx.cta.live_threads -= t.count_ones().min(ctx.cta.live_threads);
    super::cluster::withdraw(ctx.cta, w, t);
    release_convergence(w);
    Ok(())
}

/// BSSY Bn: each lane records the lanes that must meet it at the matching BSYNC.
pub fn bssy(_: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let t = taken(w, d, exec);
    w.conv.enter(d.special as usize, t);
    Ok(())
}

/// BSYNC Bn: the lanes wait until every live lane of the barrier has arrived.
pub fn bsync(_: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32, exec: u32) -> R {
    let t = taken(w, d, exec);
    let b = d.special as usize & 15;
    w.advance(group & !t, d.pc);
    w.conv.waiting[b] |= t;
    w.block(t);
    release_convergence(w);
    Ok(())
}

/// BMOV: reads each lane's record of a convergence barrier into a register (`.CLEAR`
/// clears the executing lanes' records), or writes it from a register.
pub fn bmov(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let b = d.special as usize & 15;
    if d.m.clear || d.dst.present() {
        let v: [u32; WARP] = std::array::from_fn(|l| w.conv.read(b, l));
        super::write_dst(w, &d.dst, exec, &v);
        if d.m.clear {
            lanes(exec).for_each(|l| w.conv.write(b, l, 0));
        }
    } else if let Some(s) = [&d.a, &d.b].into_iter().find(|s| s.present()) {
        for l in lanes(exec) {
            let v = ctx.src32(w, s, l);
            w.conv.write(b, l, v);
        }
    }
    Ok(())
}

/// BREAK Bn: the lanes leave the convergence barrier.
pub fn brk(_: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let t = taken(w, d, exec);
    w.conv.leave(d.special as usize, t);
    release_convergence(w);
    Ok(())
}

/// WARPSYNC mask: the lanes wait until every live lane of the mask is at a WARPSYNC.
pub fn warpsync(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32, exec: u32) -> R {
    let t = taken(w, d, exec);
    w.advance(group & !t, d.pc);
    if t == 0 {
        return Ok(());
    }
    let mask = ctx.src32(w, &d.b, t.trailing_zeros() as usize);
    if d.m.exclusive {
        let same = lanes(t)
            .filter(|&l| ctx.src32(w, &d.b, l) == mask)
            .fold(0, |m, l| m | 1 << l);
        warpsync_exclusive(w, d.pc, same, mask);
        return Ok(());
    }
    if (mask & w.alive) & !(w.warpsync_wait | t) == 0 {
        // Everyone is here: release the waiting lanes too.
        let waiting = w.warpsync_wait;
        w.warpsync_wait = 0;
        w.warpsync_mask = 0;
        w.release(waiting);
        w.advance(t, d.pc);
    } else {
        w.warpsync_wait |= t;
        w.warpsync_mask |= mask;
        w.block(t);
    }
    Ok(())
}

/// `WARPSYNC.EXCLUSIVE mask` (sm_80; ptxas puts it before every `redux.sync` with a register
/// mask) for the lanes `t` at `pc` that name `mask`: once every live lane of the mask has
/// arrived at a `WARPSYNC.EXCLUSIVE` with the same mask, those lanes go on alone, as one
/// group, until all of them have blocked or exited or lanes reconverge; lanes that name
/// other masks stay (at this WARPSYNC, or waiting at another) and go on after them.
///
/// A model, resting on the PTX ISA (the threads of a `redux.sync` are exactly those of its
/// mask) and ptxas's SASS: for a mask that differs between threads ptxas runs the same
/// `WARPSYNC.EXCLUSIVE R; REDUX UR, R; MOV R, UR` as for a uniform one (in a subroutine,
/// behind a `BRA.CONV`), so the WARPSYNC must split the warp by mask, and the reduction's
/// uniform register must stay the group's until the move reads it.
fn warpsync_exclusive(w: &mut Warp, pc: u32, t: u32, mask: u32) {
    let at = w.exclusive_waits.iter().position(|&(m, _)| m == mask);
    let waiting = at.map_or(0, |i| w.exclusive_waits[i].1);
    if (mask & w.alive) & !(waiting | t) == 0 {
        if let Some(i) = at {
            w.exclusive_waits.swap_remove(i);
        }
        w.release(waiting);
        w.advance(t, pc);
        w.exclusive = (waiting | t) & w.alive;
    } else {
        match at {
            Some(i) => w.exclusive_waits[i].1 |= t,
            None => w.exclusive_waits.push((mask, t)),
        }
        w.block(t);
    }
}

/// CALL: jumps to the callee (the return address is set up by the caller in registers);
/// `CALL.REL R6 `(f)`` calls the address in R6 relative to the encoded function start.
pub fn call(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32, exec: u32) -> R {
    let t = taken(w, d, exec);
    let register = [&d.a, &d.b]
        .into_iter()
        .any(|s| matches!(s.src, Src::Reg(_) | Src::UReg(_)));
    if register && t != 0 {
        let s = if d.a.present() { &d.a } else { &d.b };
        let first = ctx.src64(w, s, t.trailing_zeros() as usize);
        if let Some(f) = DriverFn::at(first) {
            if lanes(t).any(|l| ctx.src64(w, s, l) != first) {
                return Err(SimError::Unsupported {
                    at: ctx.at(w, t.trailing_zeros() as usize, d.pc),
                    what: "an indirect call whose lanes call different driver functions".into(),
                });
            }
            return crate::driver::call(ctx, w, d, f, group, t);
        }
    }
    match d.target {
        Some(target) if !register => {
            w.jump(t, d.pc, target);
            w.advance(group & !t, d.pc);
        }
        base => {
            let targets = register_targets(ctx, w, d, base.unwrap_or(0));
            jump_each(w, d, group, t, &targets);
        }
    }
    Ok(())
}

/// RET: returns to the address in the register operand, relative to the encoded function
/// start.
pub fn ret(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32, exec: u32) -> R {
    let t = taken(w, d, exec);
    let base = d.target.unwrap_or(0);
    let targets = register_targets(ctx, w, d, base);
    jump_each(w, d, group, t, &targets);
    Ok(())
}

/// The barrier number of a BAR instruction.
pub fn bar_id(ctx: &Ctx, w: &Warp, d: &Decoded, lane: usize) -> usize {
    match d.a.src {
        Src::None => 0,
        _ => ctx.src32(w, &d.a, lane) as usize & 15,
    }
}

/// The thread count of a BAR instruction (0 = every thread of the CTA).
pub fn bar_count(ctx: &Ctx, w: &Warp, d: &Decoded, lane: usize) -> u32 {
    match d.b.src {
        Src::None => 0,
        _ => ctx.src32(w, &d.b, lane) & 0xfff,
    }
}

/// BAR: arrive at a CTA barrier (SYNC and RED wait for it to complete, ARV does not).
pub fn bar(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32, exec: u32) -> R {
    w.advance(group & !exec, d.pc);
    if exec == 0 {
        return Ok(());
    }
    let lane = exec.trailing_zeros() as usize;
    let id = bar_id(ctx, w, d, lane);
    let count = bar_count(ctx, w, d, lane);
    ctx.cta.bar_arrived[id] += exec.count_ones();
    if count != 0 {
        ctx.cta.bar_expected[id] = count;
    }
    // Reductions: popcount, and, or of the predicate source over the arriving threads.
    if d.m.bar == BarMode::Red {
        let p = w.pred_mask(d.ps[0], exec);
        let red = &mut ctx.cta.bar_red[id];
        red.0 += p.count_ones();
        red.1 &= p == exec;
        red.2 |= p != 0;
        ctx.cta.bar_redop[id] = d.m.bar_redop;
    }
    if d.m.bar == BarMode::Arv {
        w.advance(exec, d.pc);
    } else {
        w.bar_wait[id] |= exec;
        w.block(exec);
    }
    Ok(())
}

/// B2R.RESULT: the result of the last completed barrier reduction: the popcount in the
/// register, the `.AND`/`.OR` result in the predicate destination.
pub fn b2r(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (popc, pred) = ctx.cta.bar_result;
    if d.dst.present() {
        super::write_dst(w, &d.dst, exec, &[popc; WARP]);
    }
    w.set_pred(d.pd[0].idx, exec, if pred { u32::MAX } else { 0 });
    Ok(())
}

/// BPT.TRAP: a fault.
pub fn bpt(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32, exec: u32) -> R {
    if exec == 0 {
        w.advance(group, d.pc);
        return Ok(());
    }
    Err(SimError::Trap {
        at: ctx.at(w, exec.trailing_zeros() as usize, d.pc),
    })
}

/// ENDCOLLECTIVE: the end of the region a `WARPSYNC.COLLECTIVE` opened; its lanes stop being
/// the only ones that run and go on to the WARPSYNC's target, which in ptxas's code is the
/// next instruction (`isa/sm90/collective.rs`). A model: that the region ends here rests on
/// ptxas 13.5's sm_90 SASS for `redux.sync` with run-time masks
/// (`tests/ampere/redux_mask.ptx`), whose other lanes' uniform registers survive only if they
/// run before the region's lanes go on.
pub fn end_collective(_: &mut Ctx, w: &mut Warp, _: &Decoded, _: u32, _: u32) -> R {
    w.exclusive = 0;
    Ok(())
}

/// Instructions without a functional effect.
pub fn nop(_: &mut Ctx, _: &mut Warp, _: &Decoded, _: u32, _: u32) -> R {
    Ok(())
}

/// Releases the lanes waiting at a BSYNC once every live lane of its barrier has arrived,
/// the lanes at WARPSYNC once every lane they wait for has arrived or exited, and one group
/// waiting at `WARPSYNC.EXCLUSIVE` once its mask is complete.
pub fn release_convergence(w: &mut Warp) {
    for b in 0..16 {
        if w.conv.waiting[b] == 0 {
            continue;
        }
        let ready = w.conv.take_ready(b, w.alive);
        w.release(ready & w.alive);
    }
    if w.warpsync_wait != 0 && (w.warpsync_mask & w.alive) & !w.warpsync_wait == 0 {
        let waiting = w.warpsync_wait;
        w.warpsync_wait = 0;
        w.warpsync_mask = 0;
        w.release(waiting);
    }
    // One exclusive group at a time (the others follow when it has blocked or exited).
    let alive = w.alive;
    if let Some(i) = w
        .exclusive_waits
        .iter()
        .position(|&(m, waiting)| (m & alive) & !waiting == 0)
    {
        let (_, waiting) = w.exclusive_waits.swap_remove(i);
        w.release(waiting);
        w.exclusive = waiting & w.alive;
    }
}

/// Completes CTA barriers whose expected threads have all arrived; returns whether any
/// barrier completed.
pub fn release_barriers(cta: &mut CtaShared, warps: &mut [&mut Warp], _kernel: &Kernel) -> bool {
    let mut any = false;
    for id in 0..16 {
        if cta.bar_arrived[id] == 0 {
            continue;
        }
        let expected = match cta.bar_expected[id] {
            0 => cta.live_threads,
            n => n,
        };
        if cta.bar_arrived[id] >= expected {
            cta.bar_arrived[id] = 0;
            cta.bar_expected[id] = 0;
            let (popc, and, or) = cta.bar_red[id];
            cta.bar_result = match cta.bar_redop[id] {
                BarRedOp::And => (popc, and),
                BarRedOp::Or => (popc, or),
                BarRedOp::Popc => (popc, popc != 0),
            };
            cta.bar_red[id] = (0, true, false);
            for w in warps.iter_mut() {
                let waiting = w.bar_wait[id];
                if waiting != 0 {
                    w.bar_wait[id] = 0;
                    w.release(waiting);
                }
            }
            any = true;
        }
    }
    any
}
