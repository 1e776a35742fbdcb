//! Global value numbering: a pure instruction identical (opcode, type, arguments, extra
//! data) to one in a dominating position is replaced by it. Walks the dominator tree with
//! a scoped table.

use crate::analysis::dom::DomTree;
use crate::ir::{Aux, Block, Function, InstData, Opcode, SpecialReg, Value};
use rustc_hash::FxHashMap as HashMap;

/// Runs the pass; returns whether anything changed.
pub fn run(func: &mut Function) -> bool {
    run_with(func, true)
}

/// Runs the pass on computations only: not on predicates (a merged comparison lives
/// longer, and a back end with seven predicate registers may have none to spare), nor on
/// constants (each use keeps its own, which the back end folds into an operand or zeroes in
/// pairs); returns whether anything changed.
pub fn run_on_computations(func: &mut Function) -> bool {
    run_with(func, false)
}

fn run_with(func: &mut Function, predicates: bool) -> bool {
    let dom = DomTree::new(func);
    let mut children: HashMap<Block, Vec<Block>> = HashMap::default();
    for &b in dom.rpo() {
        if let Some(d) = dom.idom(b).filter(|&d| d != b) {
            children.entry(d).or_default().push(b);
        }
    }
    let Some(entry) = func.entry() else { return false };
    let mut table: HashMap<InstData, Value> = HashMap::default();
    let mut subst: HashMap<Value, Value> = HashMap::default();
    visit(func, entry, &children, &mut table, &mut subst, predicates);
    let changed = !subst.is_empty();
    func.replace_uses(&subst);
    changed
}

fn mergeable(d: &InstData) -> bool {
    d.op.is_pure()
        && !matches!(d.op, Opcode::Undef)
        && !matches!(
            d.aux,
            Aux::Special(SpecialReg::Clock | SpecialReg::Clock64 | SpecialReg::GlobalTimer)
        )
}

fn visit(
    func: &mut Function,
    b: Block,
    children: &HashMap<Block, Vec<Block>>,
    table: &mut HashMap<InstData, Value>,
    subst: &mut HashMap<Value, Value>,
    predicates: bool,
) {
    let mut added = Vec::new();
    for i in func.blocks[b].insts.clone() {
        func.insts[i].map_args(|v| *subst.get(&v).unwrap_or(&v));
        let d = &func.insts[i];
        if !mergeable(d) || func.results[i].len() != 1 {
            continue;
        }
        if !predicates && (func.ty(func.results[i][0]) == crate::ir::Type::Pred || d.op == Opcode::Const) {
            continue;
        }
        let r = func.results[i][0];
        match table.get(d) {
            Some(&v) if func.ty(v) == func.ty(r) => {
                subst.insert(r, v);
            }
            _ => {
                table.insert(d.clone(), r);
                added.push(d.clone());
            }
        }
    }
    for &c in children.get(&b).map(Vec::as_slice).unwrap_or(&[]) {
        visit(func, c, children, table, subst, predicates);
    }
    for d in added {
        table.remove(&d);
    }
}
