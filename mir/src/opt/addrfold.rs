//! Address-expression folding: a load, store or atomic whose address is `iadd base, const`
//! takes the constant into its immediate offset, so the back end can use `[reg+imm]`; a
//! constant address folds entirely into the offset of a zero base. Kernel parameters are
//! already `param` reads (constant-bank operands).

use crate::ir::{Aux, Function, Opcode};

/// Offsets stay within the signed 24-bit immediate of SASS memory instructions.
const MAX_OFFSET: i64 = (1 << 23) - 1;

/// Runs the pass; returns whether anything changed.
pub fn run(func: &mut Function) -> bool {
    let mut changed = false;
    for b in func.layout.clone() {
        for i in func.blocks[b].insts.clone() {
            while fold_once(func, i) {
                changed = true;
            }
        }
    }
    changed
}

fn fold_once(func: &mut Function, i: crate::ir::Inst) -> bool {
    let d = &func.insts[i];
    if !matches!(
        d.op,
        Opcode::Load | Opcode::Store | Opcode::Atom | Opcode::PrefetchL1 | Opcode::PrefetchL2 | Opcode::PrefetchL2Last
    ) {
        return false;
    }
    let addr = d.args[0];
    let Some(def) = func.def_inst(addr) else { return false };
    let a = &func.insts[def];
    if a.op != Opcode::Iadd {
        return false;
    }
    let (base, k) = match (func.const_value(a.args[0]), func.const_value(a.args[1])) {
        (_, Some(k)) => (a.args[0], k),
        (Some(k), _) => (a.args[1], k),
        _ => return false,
    };
    let bits = func.ty(addr).bits();
    let k = ((k << (64 - bits)) as i64) >> (64 - bits);
    let d = &mut func.insts[i];
    let offset = match &mut d.aux {
        Aux::Mem(m) => &mut m.offset,
        Aux::Atom(a) => &mut a.offset,
        _ => return false,
    };
    let new = *offset + k;
    if new.abs() > MAX_OFFSET {
        return false;
    }
    *offset = new;
    d.args[0] = base;
    true
}
