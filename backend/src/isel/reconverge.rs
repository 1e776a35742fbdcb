//! Reconvergence of divergent control flow: every conditional branch on a condition that
//! may differ between the threads of a warp (not marked uniform by the divergence analysis)
//! whose immediate post-dominator is a real block (that does more than exit) gets a
//! convergence barrier, as ptxas does:
//! `BMOV.32.CLEAR RZ, Bn; BSSY Bn, <join>` where the region starts and `BSYNC Bn` at the join.
//! A region whose branch sits inside a loop that does not contain the join starts before the
//! loop; a region whose join other paths reach too (nested branches sharing one join) starts
//! at the join's nearest dominator, so that every path into a BSYNC has executed its BSSY
//! (branches sharing a join share its barrier); a join that only jumps on (an edge block)
//! moves to where it jumps, unless that heads a loop, so a loop's exit and the guard around
//! the loop share one barrier as in ptxas's code. Nested regions use distinct barriers
//! B0..B15 (outermost B0). A branch that leaves a region other than through its join (a
//! `break` out of a loop whose `continue`s reconverge at the loop head) first takes its lanes
//! out of the barrier with `BREAK Bn` (guarded as the branch is), as ptxas does: the
//! lanes left behind would otherwise wait at the BSYNC for lanes that never come.

use crate::vcode::graph::Cfg;
use crate::vcode::{BlockId, MInst, MKind, MOp, Slot, SrcMods, VCode};
use ptxc_sass::isa::{Mod, ModSet};
use ptxc_sass::isa::{Op, Role, Value as V};

/// Convergence barrier registers.
const BARRIERS: usize = 16;

/// A region between a BSSY point and its join.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Region {
    entry: usize,
    join: usize,
}

/// Inserts the convergence barriers.
pub fn insert_reconvergence(vcode: &mut VCode) {
    let cfg = Cfg::new(vcode);
    let regions = regions(vcode, &cfg);
    if regions.is_empty() {
        return;
    }
    let depth: Vec<usize> = regions
        .iter()
        .map(|r| regions.iter().filter(|o| encloses(&cfg, o, r)).count())
        .collect();
    let mut blocks: Vec<Vec<MInst>> = (0..vcode.blocks.len())
        .map(|b| vcode.block_insts(BlockId(b as u32)).to_vec())
        .collect();
    // A device function's barriers start after those its callers hold at its calls.
    let depth: Vec<usize> = depth.into_iter().map(|d| d + usize::from(vcode.barrier_base)).collect();
    let mut order: Vec<usize> = (0..regions.len()).filter(|&i| depth[i] < BARRIERS).collect();
    order.sort_by_key(|&i| depth[i]);
    for &i in &order {
        let r = regions[i];
        let b = depth[i] as u8;
        let insts = &mut blocks[r.entry];
        let at = insts.len() - usize::from(insts.last().is_some_and(|x| x.is_terminator()));
        insts.insert(at, bssy(b, r.join));
        insts.insert(at, bmov_clear(b));
    }
    let preds = predecessors(&cfg);
    let mut marks = Marks::new(cfg.succs.len());
    for &i in &order {
        let r = regions[i];
        // Inner regions (inserted later at the front) synchronise first.
        blocks[r.join].insert(0, bsync(depth[i] as u8));
        for (from, to) in exits(&cfg, &preds, &mut marks, r) {
            let insts = &mut blocks[from];
            let Some(term) = insts.last().filter(|x| x.is_terminator()).cloned() else {
                continue;
            };
            let Some(brk) = break_on_edge(depth[i] as u8, &term, to) else {
                continue;
            };
            insts.insert(insts.len() - 1, brk);
        }
    }
    vcode.insts.clear();
    for (b, insts) in blocks.into_iter().enumerate() {
        vcode.blocks[b].start = vcode.insts.len() as u32;
        vcode.insts.extend(insts);
        vcode.blocks[b].end = vcode.insts.len() as u32;
    }
}

fn regions(vcode: &VCode, cfg: &Cfg) -> Vec<Region> {
    let loops = cfg.loops();
    let mut headers = vec![false; vcode.blocks.len()];
    for (h, _) in &loops {
        headers[*h] = true;
    }
    let mut out: Vec<Region> = Vec::new();
    for b in 0..vcode.blocks.len() {
        let divergent = vcode
            .block_insts(BlockId(b as u32))
            .last()
            .is_some_and(|i| matches!(i.kind, MKind::CondJump { uniform: false, .. }));
        // No barrier where the paths only meet to exit.
        let only_exits = |j: usize| {
            vcode
                .block_insts(BlockId(j as u32))
                .iter()
                .all(|i| matches!(i.kind, MKind::Exit | MKind::Trap))
        };
        let Some(join) = cfg.ipdom[b].filter(|&j| divergent && j != cfg.exit() && !only_exits(j)) else {
            continue;
        };
        // Paths that meet in a block that only jumps on meet where it jumps (an edge block
        // before an outer join): one barrier serves both, as in ptxas's code.
        let join = past_jumps(vcode, &headers, join);
        if only_exits(join) {
            continue;
        }
        let Some(entry) = region_entry(cfg, &loops, b, join) else {
            continue;
        };
        let r = Region { entry, join };
        if !out.contains(&r) {
            out.push(r);
        }
    }
    out
}

/// The first block from `j` on that does more than jump, or that heads a loop (a barrier
/// there would be waited on again each time round).
fn past_jumps(vcode: &VCode, headers: &[bool], mut j: usize) -> usize {
    for _ in 0..vcode.blocks.len() {
        match vcode.block_insts(BlockId(j as u32)) {
            [
                MInst {
                    kind: MKind::Jump(t), ..
                },
            ] if !headers[t.0 as usize] => j = t.0 as usize,
            _ => break,
        }
    }
    j
}

/// Where the region of the branch at `b` joining at `join` starts: out of every loop that
/// contains it but not the join, then, if some path reaches the join without passing there
/// (an outer branch jumping straight to a join it shares with an inner one), up to the
/// nearest dominator of the join, which the join must post-dominate (every thread of the
/// BSSY's mask reaches the BSYNC). A BSYNC reached without its BSSY would wait on the mask
/// the barrier register holds from before (a previous loop iteration). None: no barrier.
fn region_entry(cfg: &Cfg, loops: &[(usize, Vec<usize>)], b: usize, join: usize) -> Option<usize> {
    let mut entry = hoist_out_of_loops(cfg, loops, b, join)?;
    if cfg.dominates(entry, join) {
        return Some(entry);
    }
    for _ in 0..cfg.idom.len() {
        entry = cfg.idom[entry].filter(|&d| d != entry)?;
        if cfg.dominates(entry, join) {
            let entry = hoist_out_of_loops(cfg, loops, entry, join)?;
            return cfg.post_dominates(join, entry).then_some(entry);
        }
    }
    None
}

/// Moves the region start out of every loop that contains it but not the join.
fn hoist_out_of_loops(cfg: &Cfg, loops: &[(usize, Vec<usize>)], mut entry: usize, join: usize) -> Option<usize> {
    for _ in 0..=loops.len() {
        let Some((header, _)) = loops
            .iter()
            .find(|(_, body)| body.contains(&entry) && !body.contains(&join))
        else {
            return Some(entry);
        };
        entry = cfg.idom[*header].filter(|&d| d != *header)?;
    }
    None
}

/// Visit marks for the searches of [`exits`], reused across regions: a block is marked
/// when its entry equals the current stamp, so clearing is a stamp increment.
struct Marks {
    forward: Vec<u32>,
    backward: Vec<u32>,
    stamp: u32,
}

impl Marks {
    fn new(n: usize) -> Marks {
        Marks {
            forward: vec![0; n],
            backward: vec![0; n],
            stamp: 0,
        }
    }
}

/// The edges that leave region `r` other than through its join: from a block of the region
/// (reached from the entry without passing the join, and reaching the join without passing
/// it; the entry itself, whose end holds the BSSY) to a block outside it. In block order.
/// Only the blocks the entry reaches are searched: every block on a path from one of them
/// to the join is one of them too, so the backward search stays among them.
fn exits(cfg: &Cfg, preds: &[Vec<usize>], marks: &mut Marks, r: Region) -> Vec<(usize, usize)> {
    marks.stamp += 1;
    let stamp = marks.stamp;
    let mut work: Vec<usize> = cfg.succs[r.entry].iter().copied().filter(|&b| b != r.join).collect();
    while let Some(b) = work.pop() {
        if std::mem::replace(&mut marks.forward[b], stamp) == stamp {
            continue;
        }
        work.extend(
            cfg.succs[b]
                .iter()
                .copied()
                .filter(|&s| s != r.join && marks.forward[s] != stamp),
        );
    }
    // Blocks of the entry's reach from which the join is reached: the region, with the entry.
    let mut inside: Vec<usize> = vec![r.entry];
    work.extend(
        preds[r.join]
            .iter()
            .copied()
            .filter(|&p| p != r.join && marks.forward[p] == stamp),
    );
    while let Some(b) = work.pop() {
        if std::mem::replace(&mut marks.backward[b], stamp) == stamp {
            continue;
        }
        if b != r.entry {
            inside.push(b);
        }
        work.extend(
            preds[b]
                .iter()
                .copied()
                .filter(|&p| p != r.join && marks.forward[p] == stamp),
        );
    }
    let is_inside = |b: usize| b == r.entry || marks.backward[b] == stamp;
    inside.sort_unstable();
    inside
        .iter()
        .flat_map(|&b| cfg.succs[b].iter().map(move |&s| (b, s)))
        .filter(|&(_, s)| s != r.join && !is_inside(s))
        .collect()
}

/// The predecessors of every block.
fn predecessors(cfg: &Cfg) -> Vec<Vec<usize>> {
    let mut preds = vec![Vec::new(); cfg.succs.len()];
    for (b, ss) in cfg.succs.iter().enumerate() {
        for &s in ss {
            preds[s].push(b);
        }
    }
    preds
}

/// `BREAK Bn` for the lanes that take the edge to `to` at terminator `term`: guarded as a
/// conditional branch's side to `to`, unguarded when every side leaves. None for a
/// terminator that does not branch to `to` (EXIT ends the lanes anyway).
fn break_on_edge(b: u8, term: &MInst, to: usize) -> Option<MInst> {
    let to = BlockId(to as u32);
    let guard = match term.kind {
        MKind::Jump(t) if t == to => None,
        MKind::CondJump {
            cond,
            neg,
            taken,
            not_taken,
            ..
        } => match (taken == to, not_taken == to) {
            (true, true) => None,
            (true, false) => Some((cond, neg)),
            (false, true) => Some((cond, !neg)),
            (false, false) => return None,
        },
        _ => return None,
    };
    let mut i = sass(Op::Break, &[(Role::Other, MOp::Fixed(V::Barrier(b)))], &[]);
    i.guard = guard;
    Some(i)
}

/// True if `outer` strictly encloses `inner`.
fn encloses(cfg: &Cfg, outer: &Region, inner: &Region) -> bool {
    outer != inner
        && cfg.dominates(outer.entry, inner.entry)
        && cfg.post_dominates(outer.join, inner.join)
        && (outer.entry != inner.entry || outer.join != inner.join && cfg.post_dominates(outer.join, inner.join))
}

fn sass(op: Op, slots: &[(Role, MOp)], mods: &[ModSet]) -> MInst {
    MInst::new(MKind::Sass {
        op,
        slots: slots
            .iter()
            .map(|&(role, op)| Slot {
                role,
                op,
                mods: SrcMods::default(),
            })
            .collect(),
        mods: mods.iter().copied().collect(),
    })
}

fn bmov_clear(b: u8) -> MInst {
    let rz = MOp::Fixed(V::Reg(ptxc_sass::isa::RZ));
    sass(
        Op::Bmov,
        &[(Role::Dst, rz), (Role::Other, MOp::Fixed(V::Barrier(b)))],
        &[Mod::Clear.flag(true)],
    )
}

fn bssy(b: u8, join: usize) -> MInst {
    let mut i = sass(
        Op::Bssy,
        &[
            (Role::Other, MOp::Fixed(V::Barrier(b))),
            (Role::Target, MOp::Fixed(V::Rel(0))),
        ],
        &[],
    );
    i.target = Some(BlockId(join as u32));
    i
}

fn bsync(b: u8) -> MInst {
    sass(Op::Bsync, &[(Role::Other, MOp::Fixed(V::Barrier(b)))], &[])
}
