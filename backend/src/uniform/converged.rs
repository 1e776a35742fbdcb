//! Which blocks a warp runs converged: blocks outside every divergent region, where a
//! uniform register cannot be clobbered by the other side of a branch. The two sides of a
//! divergent branch run one after the other (or interleaved, with independent thread
//! scheduling), so a uniform register that the allocator gives to a value of one side may
//! hold a value the other side still needs: no uniform value is defined or read there.
//!
//! A divergent branch marks the blocks of both sides (those reached from each successor
//! without passing the branch's immediate post-dominator, its join) when the warp
//! reconverges at the join (a `BSYNC` opens it, whose `BSSY` dominates the branch) or the
//! join only exits; otherwise, the lanes
//! of one side may run ahead past the join, so every block the branch reaches is marked.
//! A branch one of whose sides is empty (a jump straight to a reconverging or exiting
//! join) marks nothing: the lanes of that side run no code until the others arrive; unless
//! the other side loops back to the branch (a loop that threads leave in different
//! iterations), whose values differ per thread after the loop.

use crate::vcode::graph::Cfg;
use crate::vcode::{BlockId, MKind, VCode};
use ptxc_sass::isa::Op;

/// `converged[b]`: block `b` runs with its warp converged.
pub fn converged_blocks(vcode: &VCode) -> Vec<bool> {
    let cfg = Cfg::new(vcode);
    let n = vcode.blocks.len();
    let mut converged = vec![true; n];
    let barriers = barrier_starts(vcode);
    for b in 0..n {
        let Some(MKind::CondJump {
            uniform: false,
            taken,
            not_taken,
            ..
        }) = vcode.block_insts(BlockId(b as u32)).last().map(|i| &i.kind)
        else {
            continue;
        };
        let join = cfg.ipdom[b].filter(|&j| j != cfg.exit());
        let reconverges = join.is_none_or(|j| {
            only_exits(vcode, j)
                || opens_with_bsync(vcode, j) && barriers[j].iter().any(|&start| cfg.dominates(start, b))
        });
        let sides = [*taken, *not_taken].map(|s| reach(&cfg, s.0 as usize, join.filter(|_| reconverges)));
        // A side that comes back to the branch is a loop its threads leave in different
        // iterations: a uniform value of the loop would hold the last iteration's value for
        // every thread after it (temporal divergence), so the loop is marked even when the
        // leaving side is empty.
        let loops_back = sides.iter().any(|side| side.contains(&b));
        if reconverges && !loops_back && sides.iter().any(|side| side.iter().all(|&s| is_empty(vcode, s))) {
            continue;
        }
        for s in sides.into_iter().flatten() {
            converged[s] = false;
        }
    }
    converged
}

/// The blocks reached from `from` without passing `stop`.
fn reach(cfg: &Cfg, from: usize, stop: Option<usize>) -> Vec<usize> {
    let n = cfg.succs.len();
    let mut marked = vec![false; n];
    let mut out = Vec::new();
    let mut work = vec![from];
    while let Some(b) = work.pop() {
        if b >= n || Some(b) == stop || std::mem::replace(&mut marked[b], true) {
            continue;
        }
        out.push(b);
        work.extend(cfg.succs[b].iter().copied());
    }
    out
}

/// True if block `b` only jumps (or exits): its lanes run no code.
fn is_empty(vcode: &VCode, b: usize) -> bool {
    vcode
        .block_insts(BlockId(b as u32))
        .iter()
        .all(|i| matches!(i.kind, MKind::Jump(_) | MKind::Exit))
}

/// True if block `b` only exits.
fn only_exits(vcode: &VCode, b: usize) -> bool {
    vcode
        .block_insts(BlockId(b as u32))
        .iter()
        .all(|i| matches!(i.kind, MKind::Exit | MKind::Trap))
}

/// For every block, the blocks whose `BSSY` names it as its join: a branch reconverges at
/// its join only if one of them dominates it (its lanes are in the barrier's mask).
fn barrier_starts(vcode: &VCode) -> Vec<Vec<usize>> {
    let mut starts = vec![Vec::new(); vcode.blocks.len()];
    for b in 0..vcode.blocks.len() {
        for i in vcode.block_insts(BlockId(b as u32)) {
            if let (MKind::Sass { op: Op::Bssy, .. }, Some(join)) = (&i.kind, i.target) {
                starts[join.0 as usize].push(b);
            }
        }
    }
    starts
}

/// True if block `b` starts with a `BSYNC` (a convergence barrier's join).
fn opens_with_bsync(vcode: &VCode, b: usize) -> bool {
    vcode
        .block_insts(BlockId(b as u32))
        .first()
        .is_some_and(|i| matches!(i.kind, MKind::Sass { op: Op::Bsync, .. }))
}
