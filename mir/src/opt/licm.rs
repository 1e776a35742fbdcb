//! Loop-invariant code motion: finds natural loops (a back edge `latch -> header` where the
//! header dominates the latch) and moves pure instructions whose arguments are all defined
//! outside the loop to the end of the loop's preheader (the header's single predecessor
//! outside the loop). MIR's pure operations never fault, so hoisting is always safe.

use crate::analysis::dom::DomTree;
use crate::analysis::loops::natural_loops;
use crate::ir::{Block, Function, Inst, ValueDef};
use rustc_hash::FxHashSet as HashSet;

/// Runs the pass; returns whether anything changed.
pub fn run(func: &mut Function) -> bool {
    let mut changed = false;
    let dom = DomTree::new(func);
    let preds = func.predecessors();
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
        changed |= hoist(func, &dom, &l.body, pre);
    }
    changed
}

fn hoist(func: &mut Function, dom: &DomTree, body: &HashSet<Block>, pre: Block) -> bool {
    let mut moved: HashSet<Inst> = HashSet::default();
    let order: Vec<Block> = dom.rpo().iter().copied().filter(|b| body.contains(b)).collect();
    let mut changed = true;
    let mut any = false;
    while changed {
        changed = false;
        for &b in &order {
            for i in func.blocks[b].insts.clone() {
                let d = &func.insts[i];
                if !d.op.is_pure() || moved.contains(&i) {
                    continue;
                }
                let invariant = d.all_args().all(|v| match func.values[v].def {
                    ValueDef::Param(pb, _) => !body.contains(&pb),
                    ValueDef::Result(di, _) => moved.contains(&di) || !in_loop(func, body, di),
                });
                if invariant {
                    func.blocks[b].insts.retain(|&x| x != i);
                    let at = func.blocks[pre].insts.len() - 1;
                    func.blocks[pre].insts.insert(at, i);
                    moved.insert(i);
                    changed = true;
                    any = true;
                }
            }
        }
    }
    any
}

fn in_loop(func: &Function, body: &HashSet<Block>, i: Inst) -> bool {
    body.iter().any(|&b| func.blocks[b].insts.contains(&i))
}
