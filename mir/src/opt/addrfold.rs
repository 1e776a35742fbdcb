//! Address-expression folding: a load, store or atomic whose address is `iadd base, const`
//! takes the constant into its immediate offset, so the back end can use `[reg+imm]`; a
//! constant address folds entirely into the offset of a zero base. A kernel's load from
//! the parameter space at a constant address (`mov.b64 %rd1, param; ld.param.u64 %rd2,
//! [%rd1+8]`, as nvcc writes a by-value struct's fields) becomes the `param` read it is (a
//! constant-bank operand, as ptxas reads it), with no address register.

use crate::ir::{Aux, Function, Opcode, Space};

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
            changed |= read_param(func, i);
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

/// Turns the kernel's scalar load `i` from a constant parameter-space address into a
/// `param` read; true if it did.
fn read_param(func: &mut Function, i: crate::ir::Inst) -> bool {
    let d = &func.insts[i];
    let Aux::Mem(m) = &d.aux else { return false };
    let scalar = d.op == Opcode::Load && m.space == Space::Param && m.vector == 1 && d.args.len() == 1;
    if func.is_device_function || !scalar || func.results[i].len() != 1 {
        return false;
    }
    let Some(base) = func.const_value(d.args[0]) else {
        return false;
    };
    let Ok(offset) = u32::try_from(base as i64 + m.offset) else {
        return false;
    };
    let d = &mut func.insts[i];
    d.op = Opcode::Param;
    d.args.clear();
    d.aux = Aux::Param(offset);
    true
}
