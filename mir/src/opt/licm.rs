//! Loop-invariant code motion: finds natural loops (a back edge `latch -> header` where the
//! header dominates the latch) and moves pure instructions whose arguments are all defined
//! outside the loop to the end of the loop's preheader (the header's single predecessor
//! outside the loop). MIR's pure operations never fault, so hoisting is always safe.

use crate::analysis::dom::DomTree;
use crate::analysis::loops::natural_loops;
use crate::ir::{Block, Function, Inst, Type, Value, ValueDef};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// Runs the pass; returns whether anything changed.
pub fn run(func: &mut Function) -> bool {
    run_with(func, true)
}

/// Runs the pass, hoisting a predicate only with every instruction that reads it (a
/// comparison left live through the whole loop would hold one of the back end's seven
/// predicate registers); returns whether anything changed.
pub fn run_except_predicates(func: &mut Function) -> bool {
    run_with(func, false)
}

fn run_with(func: &mut Function, predicates: bool) -> bool {
    let mut changed = false;
    let dom = DomTree::new(func);
    let preds = func.predecessors();
    // The readers of each predicate (moving instructions does not change them).
    let readers = if predicates {
        Readers::default()
    } else {
        predicate_readers(func)
    };
    for l in natural_loops(func, &dom) {
        let outside: Vec<Block> = preds[l.header]
            .iter()
            .copied()
            .filter(|p| !l.body.contains(p))
            .collect();
        let [pre] = outside[..] else { continue };
        if func.successors(pre).len() != 1 {
            continue;
        }
        changed |= hoist(func, &dom, &l.body, pre, (!predicates).then_some(&readers));
    }
    changed
}

/// The instructions that read each predicate value.
type Readers = HashMap<Value, Vec<Inst>>;

fn predicate_readers(func: &Function) -> Readers {
    let mut readers = Readers::default();
    for &b in &func.layout {
        for &i in &func.blocks[b].insts {
            for a in func.insts[i].all_args().filter(|&a| func.ty(a) == Type::Pred) {
                readers.entry(a).or_default().push(i);
            }
        }
    }
    readers
}

/// Hoists the loop's invariant instructions into `pre`; with `readers`, a predicate only
/// with all its readers.
fn hoist(func: &mut Function, dom: &DomTree, body: &HashSet<Block>, pre: Block, readers: Option<&Readers>) -> bool {
    let order: Vec<Block> = dom.rpo().iter().copied().filter(|b| body.contains(b)).collect();
    let mut invariant = invariant_insts(func, body, &order);
    if let Some(readers) = readers {
        keep_predicates_short(func, readers, &mut invariant);
    }
    for &(b, i) in &invariant {
        func.blocks[b].insts.retain(|&x| x != i);
        let at = func.blocks[pre].insts.len() - 1;
        func.blocks[pre].insts.insert(at, i);
    }
    !invariant.is_empty()
}

/// The pure instructions of the loop whose arguments are defined outside it or by such
/// instructions, with their blocks, in an order that defines before it uses.
fn invariant_insts(func: &Function, body: &HashSet<Block>, order: &[Block]) -> Vec<(Block, Inst)> {
    let mut found: HashSet<Inst> = HashSet::default();
    let mut list = Vec::new();
    let mut changed = true;
    while changed {
        changed = false;
        for &b in order {
            for &i in &func.blocks[b].insts {
                let d = &func.insts[i];
                if !d.op.is_pure() || found.contains(&i) {
                    continue;
                }
                let invariant = d.all_args().all(|v| match func.values[v].def {
                    ValueDef::Param(pb, _) => !body.contains(&pb),
                    ValueDef::Result(di, _) => found.contains(&di) || !in_loop(func, body, di),
                });
                if invariant {
                    found.insert(i);
                    list.push((b, i));
                    changed = true;
                }
            }
        }
    }
    list
}

/// Drops from `invariant` every predicate that an instruction left in the loop (or after
/// it) reads, with what depends on it: hoisted, it would be live through the whole loop. A
/// predicate whose readers all leave the loop with it stays in the list.
fn keep_predicates_short(func: &Function, readers: &Readers, invariant: &mut Vec<(Block, Inst)>) {
    loop {
        let set: HashSet<Inst> = invariant.iter().map(|&(_, i)| i).collect();
        let mut dropped: HashSet<Value> = HashSet::default();
        for &(_, i) in invariant.iter() {
            for &r in &func.results[i] {
                let outside = readers.get(&r).is_some_and(|rs| rs.iter().any(|i| !set.contains(i)));
                if func.ty(r) == Type::Pred && outside {
                    dropped.insert(r);
                }
            }
        }
        if dropped.is_empty() {
            return;
        }
        // Drop them and, transitively, the instructions that read a dropped value.
        let mut kept = Vec::with_capacity(invariant.len());
        for &(b, i) in invariant.iter() {
            let stays = func.results[i].iter().any(|r| dropped.contains(r))
                || func.insts[i].all_args().any(|a| dropped.contains(&a));
            if stays {
                dropped.extend(func.results[i].iter().copied());
            } else {
                kept.push((b, i));
            }
        }
        *invariant = kept;
    }
}

fn in_loop(func: &Function, body: &HashSet<Block>, i: Inst) -> bool {
    body.iter().any(|&b| func.blocks[b].insts.contains(&i))
}
