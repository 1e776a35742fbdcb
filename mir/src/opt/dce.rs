//! Dead-code elimination: removes blocks unreachable from the entry, and instructions
//! without side effects whose results are never used (transitively, through branch
//! arguments too). Unused loads are removed; stores, atomics, collectives and barriers stay.

use crate::analysis::dom::reverse_post_order;
use crate::ir::{Function, Inst, Value};
use cranelift_entity::SecondaryMap;

/// Runs the pass; returns whether anything changed.
pub fn run(func: &mut Function) -> bool {
    let reachable = reverse_post_order(func);
    let mut changed = reachable.len() != func.layout.len();
    func.layout.retain(|b| reachable.contains(b));
    let mut live: SecondaryMap<Value, bool> = SecondaryMap::new();
    let mut work: Vec<Inst> = Vec::new();
    let removable = |func: &Function, i: Inst| {
        let op = func.insts[i].op;
        op.is_pure() || (op.reads_memory() && !op.is_collective())
    };
    for &b in &func.layout {
        for &i in &func.blocks[b].insts {
            if !removable(func, i) {
                work.push(i);
            }
        }
    }
    let mut seen: SecondaryMap<Inst, bool> = SecondaryMap::new();
    while let Some(i) = work.pop() {
        if std::mem::replace(&mut seen[i], true) {
            continue;
        }
        for v in func.insts[i].all_args() {
            if !std::mem::replace(&mut live[v], true)
                && let Some(d) = func.def_inst(v)
            {
                work.push(d);
            }
        }
    }
    for b in func.layout.clone() {
        let before = func.blocks[b].insts.len();
        let keep: Vec<Inst> = func.blocks[b]
            .insts
            .iter()
            .copied()
            .filter(|&i| !removable(func, i) || func.results[i].iter().any(|r| live[*r]))
            .collect();
        changed |= keep.len() != before;
        func.blocks[b].insts = keep;
    }
    changed
}
