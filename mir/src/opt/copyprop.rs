//! Copy propagation: uses of `copy` results, of bitcasts to the same type and of block
//! parameters that always receive the same value are replaced by the original value.

use crate::ir::{Function, Opcode, Value};
use crate::lower::ssa::remove_trivial_params;
use rustc_hash::FxHashMap as HashMap;

/// Runs the pass; returns whether anything changed.
pub fn run(func: &mut Function) -> bool {
    let mut subst: HashMap<Value, Value> = HashMap::default();
    for &b in &func.layout {
        for &i in &func.blocks[b].insts {
            let d = &func.insts[i];
            let same_type_cast = d.op == Opcode::Bitcast && func.ty(d.args[0]) == d.ty;
            if d.op == Opcode::Copy || same_type_cast {
                subst.insert(func.results[i][0], d.args[0]);
            }
        }
    }
    func.replace_uses(&subst);
    let params_before: usize = func.layout.iter().map(|&b| func.blocks[b].params.len()).sum();
    remove_trivial_params(func);
    let params_after: usize = func.layout.iter().map(|&b| func.blocks[b].params.len()).sum();
    !subst.is_empty() || params_before != params_after
}
