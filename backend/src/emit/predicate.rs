//! Predication of short branches on the final block list, as ptxas does:
//! - a conditional branch around a short block (`@P BRA L; body; L:`) becomes the body
//!   guarded by the opposite condition, joined to the block before it, and the BSSY/BSYNC
//!   pair that only reconverged the skipped block goes away with it;
//! - a diamond (`@P BRA T; else-body; BRA J; T: then-body; J:`) with two short arms becomes
//!   both arms, each guarded by its own condition, one after the other (each lane runs
//!   exactly one of them, and a guarded-off instruction changes nothing), with the BSSY/BSYNC
//!   pair of the diamond dropped: a guarded load then issues without a branch and a
//!   convergence barrier around it, as ptxas writes `@!P LDG`;
//! - a conditional branch to a block that only exits becomes a guarded `EXIT`.

use super::{CodeBlock, Emitted, successors};
use ptxc_sass::isa::access::{Reg, accesses};
use ptxc_sass::isa::{Inst, Op, PT, Value};
use smallvec::SmallVec;

/// The longest block turned into predicated code.
const MAX_BODY: usize = 8;
/// The most instructions both arms of a diamond may hold together (every lane issues both;
/// the branches, barrier and its stalls they replace cost about as much).
const MAX_DIAMOND: usize = 12;

/// Operations that must not be predicated in place of a branch: control flow, and warp- or
/// CTA-collective operations whose participants a branch decides.
pub(crate) fn blocks_predication(op: Op) -> bool {
    matches!(
        op,
        Op::Bra
            | Op::Exit
            | Op::Bpt
            | Op::Bssy
            | Op::Bsync
            | Op::Bmov
            | Op::Warpsync
            | Op::Call
            | Op::Ret
            | Op::Bar
            | Op::Shfl
            | Op::Vote
            | Op::Voteu
            | Op::Match
            | Op::Ldsm
    )
}

fn is_conditional_branch(e: &Emitted) -> bool {
    e.inst.desc().op == Op::Bra && !e.inst.unguarded() && e.target.is_some()
}

fn barrier_of(inst: &Inst) -> Option<u8> {
    inst.operands.iter().find_map(|o| match o.value {
        Value::Barrier(b) => Some(b),
        _ => None,
    })
}

fn next_nonempty(blocks: &[CodeBlock], b: usize) -> Option<usize> {
    (b + 1..blocks.len()).find(|&n| !blocks[n].insts.is_empty())
}

/// The predecessors of a block (few: held inline).
type Preds = SmallVec<[usize; 2]>;

/// Predecessors of every block, into `preds` (its lists reused).
fn all_predecessors(blocks: &[CodeBlock], preds: &mut Vec<Preds>) {
    preds.iter_mut().for_each(SmallVec::clear);
    preds.resize_with(blocks.len(), Preds::new);
    for b in (0..blocks.len()).filter(|&b| !blocks[b].insts.is_empty()) {
        for s in successors(blocks, b) {
            preds[s].push(b);
        }
    }
}

/// True if `body` can run under a guard of predicate `p`.
fn predicable(body: &[Emitted], p: u8) -> bool {
    let real = body.iter().filter(|e| e.inst.desc().op != Op::Nop).count();
    real > 0
        && real <= MAX_BODY
        && body.iter().all(|e| {
            e.inst.unguarded()
                // A uniform guard names a uniform predicate (UMOV, SYNCS.EXCH, ...).
                && !e.inst.desc().uniform_guard
                && e.target.is_none()
                && !blocks_predication(e.inst.desc().op)
                && !accesses(&e.inst).writes.iter().any(|w| w.reg == Reg::P(p))
        })
}

/// The target, guard predicate and its negation of the conditional branch that ends `block`.
fn conditional_branch(block: &CodeBlock) -> Option<(usize, u8, bool)> {
    let branch = block.insts.last().filter(|e| is_conditional_branch(e))?;
    Some((
        branch.target.expect("checked"),
        branch.inst.guard,
        branch.inst.guard_neg,
    ))
}

/// Guards every instruction of `insts` with `p` (negated if `neg`).
fn guard_all(insts: &mut [Emitted], p: u8, neg: bool) {
    for e in insts {
        e.inst.guard = p;
        e.inst.guard_neg = neg;
    }
}

/// Tries to predicate the block after `a`; true if the code changed.
fn convert_triangle(blocks: &mut [CodeBlock], preds: &[Preds], a: usize) -> bool {
    let Some((t, p, neg)) = conditional_branch(&blocks[a]) else {
        return false;
    };
    let Some(b) = next_nonempty(blocks, a) else {
        return false;
    };
    if b == t || next_nonempty(blocks, b) != Some(t) || preds[b].as_slice() != [a] || !predicable(&blocks[b].insts, p) {
        return false;
    }
    guard_all(&mut blocks[b].insts, p, !neg);
    blocks[a].insts.pop();
    // After the branch is gone, `t` is reached from the predicated block only.
    if preds[t].iter().all(|&p| p == a || p == b) {
        remove_reconvergence(blocks, a, t);
    }
    // Straight-line now: one block lets the scheduler interleave both halves.
    let body = std::mem::take(&mut blocks[b].insts);
    blocks[a].insts.extend(body);
    true
}

fn is_jump_to(e: &Emitted, j: usize) -> bool {
    e.inst.desc().op == Op::Bra && e.inst.unguarded() && e.target == Some(j)
}

/// Tries to predicate the diamond that the branch ending `a` opens; true if the code changed.
fn convert_diamond(blocks: &mut [CodeBlock], preds: &[Preds], a: usize) -> bool {
    let Some((t, p, neg)) = conditional_branch(&blocks[a]) else {
        return false;
    };
    let Some(e) = next_nonempty(blocks, a) else {
        return false;
    };
    let Some(jump) = blocks[e].insts.last() else {
        return false;
    };
    let Some(j) = jump.target else {
        return false;
    };
    if e == t || next_nonempty(blocks, e) != Some(t) || next_nonempty(blocks, t) != Some(j) || j == t {
        return false;
    }
    let else_body = &blocks[e].insts[..blocks[e].insts.len() - 1];
    let arms = else_body.len() + blocks[t].insts.len();
    if !is_jump_to(jump, j)
        || preds[e].as_slice() != [a]
        || preds[t].as_slice() != [a]
        || arms > MAX_DIAMOND
        || !predicable(else_body, p)
        || !predicable(&blocks[t].insts, p)
    {
        return false;
    }
    blocks[e].insts.pop();
    guard_all(&mut blocks[e].insts, p, !neg);
    guard_all(&mut blocks[t].insts, p, neg);
    blocks[a].insts.pop();
    // `a` (its BSSY names the join) and the two arms are all that reach the join.
    let private_join = preds[j].iter().all(|&q| q == a || q == e || q == t);
    if private_join {
        remove_reconvergence(blocks, a, j);
    }
    let else_arm = std::mem::take(&mut blocks[e].insts);
    let then_arm = std::mem::take(&mut blocks[t].insts);
    blocks[a].insts.extend(else_arm);
    blocks[a].insts.extend(then_arm);
    let waits = blocks[j].insts.first().is_some_and(|x| x.inst.desc().op == Op::Bsync);
    if private_join && !waits {
        // Straight-line into the join: one block lets the scheduler overlap what follows.
        let join = std::mem::take(&mut blocks[j].insts);
        blocks[a].insts.extend(join);
    }
    true
}

/// Drops `BSSY Bk, T` (and the `BMOV.32.CLEAR RZ, Bk` before it) at the end of `a` with
/// the `BSYNC Bk` that starts `t` (the caller checks that nothing else reaches `t`).
fn remove_reconvergence(blocks: &mut [CodeBlock], a: usize, t: usize) {
    let Some(bssy) = blocks[a]
        .insts
        .last()
        .filter(|e| e.inst.desc().op == Op::Bssy && e.target == Some(t))
    else {
        return;
    };
    let k = barrier_of(&bssy.inst);
    let sync_first = blocks[t]
        .insts
        .first()
        .is_some_and(|e| e.inst.desc().op == Op::Bsync && e.inst.unguarded() && barrier_of(&e.inst) == k);
    if !sync_first {
        return;
    }
    blocks[a].insts.pop();
    let clear = blocks[a]
        .insts
        .last()
        .is_some_and(|e| e.inst.desc().op == Op::Bmov && barrier_of(&e.inst) == k && writes_rz(&e.inst));
    if clear {
        blocks[a].insts.pop();
    }
    blocks[t].insts.remove(0);
}

fn writes_rz(inst: &Inst) -> bool {
    matches!(
        inst.operands.first().map(|o| o.value),
        Some(Value::Reg(ptxc_sass::isa::RZ))
    )
}

/// Turns a conditional branch to a lone `EXIT` into a guarded `EXIT`.
fn convert_exit(blocks: &mut [CodeBlock], a: usize) -> bool {
    let Some(branch) = blocks[a].insts.last().filter(|e| is_conditional_branch(e)) else {
        return false;
    };
    let t = branch.target.expect("checked");
    let exits =
        matches!(blocks[t].insts.as_slice(), [only] if only.inst.desc().op == Op::Exit && only.inst.unguarded());
    // A pending BSSY would expect the branch to reconverge.
    let in_region = blocks[a]
        .insts
        .iter()
        .rev()
        .nth(1)
        .is_some_and(|e| e.inst.desc().op == Op::Bssy);
    if !exits || in_region {
        return false;
    }
    let mut exit = blocks[t].insts[0].clone();
    let last = blocks[a].insts.last_mut().expect("checked");
    exit.inst.guard = last.inst.guard;
    exit.inst.guard_neg = last.inst.guard_neg;
    exit.inst.ctrl = last.inst.ctrl;
    *last = exit;
    true
}

/// Predicates the short branches of `blocks`; returns how many were converted.
pub fn predicate_short_branches(blocks: &mut [CodeBlock]) -> usize {
    let mut n = 0;
    let mut preds = Vec::new();
    all_predecessors(blocks, &mut preds);
    let mut a = 0;
    while a < blocks.len() {
        if convert_exit(blocks, a) || convert_triangle(blocks, &preds, a) || convert_diamond(blocks, &preds, a) {
            // A join merged into `a` may open the next diamond: look at `a` again (each
            // conversion removes a branch, so this ends).
            n += 1;
            all_predecessors(blocks, &mut preds);
        } else {
            a += 1;
        }
    }
    debug_assert!(blocks.iter().flat_map(|b| &b.insts).all(|e| e.inst.guard <= PT));
    n
}
