//! The cluster barrier (Hopper's `barrier.cluster.arrive` / `.wait`): `UCGABAR_ARV` and
//! `UCGABAR_WAIT`.
//!
//! Every thread arrives once per phase; `UCGABAR_WAIT` blocks it until every thread of the
//! cluster that has not exited has arrived, as the PTX ISA specifies for
//! `barrier.cluster.wait` (a reading of the specification; no hardware measurement). The
//! barrier is per thread: the lanes a warp arrives with are counted, and the threads that
//! exit with an arrival pending take it back (the barrier waits for non-exited threads
//! only). A launch without clusters runs every CTA as a cluster of one, where the barrier
//! is a CTA-wide one (ptxas guards it with `c[0x0][0x140]` and uses `BAR.SYNC` there).

use super::super::ctx::{CtaShared, Ctx};
use super::super::warp::Warp;
use crate::decoded::Decoded;
use crate::error::SimError;

type R = Result<(), SimError>;

/// `UCGABAR_ARV`: the executing lanes arrive in the current phase.
pub fn arrive(ctx: &mut Ctx, w: &mut Warp, _: &Decoded, _: u32, exec: u32) -> R {
    let new = exec & !w.cga.arrived;
    w.cga.arrived |= new;
    ctx.cta.cga_arrived += new.count_ones();
    Ok(())
}

/// `UCGABAR_WAIT`: lanes whose arrival's phase has completed move on; the others block
/// until it completes ([`complete_phase`]).
pub fn wait(_: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32, exec: u32) -> R {
    w.advance(group & !exec, d.pc);
    let pass = exec & w.cga.passed;
    w.cga.passed &= !pass;
    w.advance(pass, d.pc);
    let block = exec & !pass;
    w.cga.waiting |= block;
    w.block(block);
    Ok(())
}

/// Lanes of `w` that exit take back their pending arrival (`EXIT`).
pub fn withdraw(cta: &mut CtaShared, w: &mut Warp, exiting: u32) {
    let gone = exiting & w.cga.arrived;
    w.cga.arrived &= !gone;
    w.cga.waiting &= !exiting;
    cta.cga_arrived -= gone.count_ones().min(cta.cga_arrived);
}

/// Whether the current phase of the cluster barrier of the CTAs `ctas` (a whole cluster)
/// is complete: some thread arrived and every thread that has not exited has.
pub fn phase_complete<'c>(ctas: impl IntoIterator<Item = &'c CtaShared>) -> bool {
    let (arrived, live) = ctas.into_iter().fold((0u64, 0u64), |(a, l), c| {
        (a + c.cga_arrived as u64, l + c.live_threads as u64)
    });
    arrived > 0 && arrived >= live
}

/// Ends the phase for one CTA of the cluster: its count restarts.
pub fn end_phase_cta(cta: &mut CtaShared) {
    cta.cga_arrived = 0;
}

/// Ends the phase for one warp: its arrived lanes have passed, and those blocked in
/// `UCGABAR_WAIT` move on.
pub fn end_phase_warp(w: &mut Warp) {
    w.cga.passed |= w.cga.arrived;
    w.cga.arrived = 0;
    let go = w.cga.waiting & w.cga.passed;
    w.cga.waiting &= !go;
    w.cga.passed &= !go;
    w.release(go);
}

/// Completes the cluster barrier's phase if it is complete; returns whether it was.
pub fn complete_phase(ctas: &mut [&mut CtaShared], warps: &mut [&mut Warp]) -> bool {
    if !phase_complete(ctas.iter().map(|c| &**c)) {
        return false;
    }
    for c in ctas.iter_mut() {
        end_phase_cta(c);
    }
    for w in warps.iter_mut() {
        end_phase_warp(w);
    }
    true
}
