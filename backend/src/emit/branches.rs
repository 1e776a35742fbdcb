//! Branch clean-up on the final block list: branches to blocks that only jump elsewhere are
//! retargeted, unreachable blocks are emptied, and branches to the block that follows are
//! removed (inverting a conditional branch when its target is the next block).

use super::{CodeBlock, Emitted};
use ptxc_sass::isa::{Op, PT};
use smallvec::SmallVec;

/// The successors of a block (at most a few: held inline).
pub type Successors = SmallVec<[usize; 4]>;

/// True for an unconditional branch, EXIT or trap, a slow path's call (`CALL.REL`; control
/// comes back at its return address) or return: control never falls through it.
fn ends_flow(e: &Emitted) -> bool {
    let op = e.inst.desc().op;
    e.inst.unguarded() && (matches!(op, Op::Bra | Op::Exit | Op::Bpt | Op::Ret) || op == Op::Call && e.target.is_some())
}

/// The block control falls into after `b` (the next non-empty block), if it falls through.
fn fallthrough(blocks: &[CodeBlock], b: usize) -> Option<usize> {
    if blocks[b].insts.last().is_some_and(ends_flow) {
        return None;
    }
    (b + 1..blocks.len()).find(|&n| !blocks[n].insts.is_empty())
}

/// Successors of block `b`: branch targets, then the fall-through block.
pub fn successors(blocks: &[CodeBlock], b: usize) -> Successors {
    let mut s: Successors = blocks[b].insts.iter().filter_map(|e| e.target).collect();
    s.extend(fallthrough(blocks, b));
    s.dedup();
    s
}

/// Runs the clean-ups.
pub fn simplify(blocks: &mut [CodeBlock]) {
    thread_jumps(blocks);
    remove_unreachable(blocks);
    drop_jumps_to_next(blocks);
    remove_unreachable(blocks);
}

/// Where a branch to `b` may go instead: through blocks that are a lone `BRA`.
fn final_target(blocks: &[CodeBlock], mut b: usize) -> usize {
    for _ in 0..blocks.len() {
        match blocks[b].insts.as_slice() {
            [only] if only.inst.desc().op == Op::Bra && ends_flow(only) && only.target.is_some() => {
                b = only.target.expect("checked")
            }
            [] => match (b + 1..blocks.len()).find(|&n| !blocks[n].insts.is_empty()) {
                Some(n) => b = n,
                None => return b,
            },
            _ => return b,
        }
    }
    b
}

fn thread_jumps(blocks: &mut [CodeBlock]) {
    for b in 0..blocks.len() {
        for i in 0..blocks[b].insts.len() {
            if let Some(t) = blocks[b].insts[i].target {
                let f = final_target(blocks, t);
                blocks[b].insts[i].target = Some(f);
            }
        }
    }
}

fn remove_unreachable(blocks: &mut [CodeBlock]) {
    let mut seen = vec![false; blocks.len()];
    let mut stack = vec![0];
    while let Some(b) = stack.pop() {
        if b >= blocks.len() || seen[b] {
            continue;
        }
        seen[b] = true;
        stack.extend(successors(blocks, b));
    }
    for (b, blk) in blocks.iter_mut().enumerate() {
        if !seen[b] {
            blk.insts.clear();
        }
    }
}

fn drop_jumps_to_next(blocks: &mut [CodeBlock]) {
    for b in 0..blocks.len() {
        let next = (b + 1..blocks.len()).find(|&n| !blocks[n].insts.is_empty());
        let insts = &mut blocks[b].insts;
        let n = insts.len();
        // `@P BRA next; BRA other` becomes `@!P BRA other`.
        if n >= 2
            && insts[n - 1].inst.unguarded()
            && insts[n - 1].inst.desc().op == Op::Bra
            && insts[n - 2].inst.desc().op == Op::Bra
            && insts[n - 2].inst.guard != PT
            && insts[n - 2].target == next
        {
            let other = insts.pop().expect("two branches").target;
            let cond = insts.last_mut().expect("conditional branch");
            cond.inst.guard_neg = !cond.inst.guard_neg;
            cond.target = other;
        }
        if let Some(last) = insts.last()
            && last.inst.desc().op == Op::Bra
            && last.target.is_some()
            && last.target == next
        {
            insts.pop();
        }
    }
}
