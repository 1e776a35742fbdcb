//! Additions of zero disappear before selection: `iadd x, z` where `z` is the constant 0 or
//! the address of a shared variable the layout put at offset 0 (PTX computes shared
//! addresses as `mov r, array; add r, r, index`, and the first array of a kernel starts at
//! 0) is `x`, so its users read `x` and the addition is not emitted. ptxas folds these
//! too (`STS [R7.X4]` where ptxc emitted `IADD3 R4, R2, 0x0, RZ` before the store).

use crate::vars::{KernelVars, Place};
use ptxc_mir::ir::{Aux, Function, Opcode, Value};
use rustc_hash::FxHashMap as HashMap;

/// Rewrites the uses of every zero addition of `func` (shared offsets from `vars`) to its
/// other operand; returns how many were removed.
pub fn run(func: &mut Function, vars: &KernelVars) -> usize {
    let mut map: HashMap<Value, Value> = HashMap::default();
    for &b in &func.layout {
        for &i in &func.blocks[b].insts {
            let d = &func.insts[i];
            if d.op != Opcode::Iadd || func.results[i].len() != 1 {
                continue;
            }
            let result = func.results[i][0];
            let (x, z) = (d.args[0], d.args[1]);
            let kept = if is_zero(func, vars, z) {
                x
            } else if is_zero(func, vars, x) {
                z
            } else {
                continue;
            };
            if func.ty(kept) == func.ty(result) {
                map.insert(result, kept);
            }
        }
    }
    func.replace_uses(&map);
    map.len()
}

/// True if `v` is zero in every thread: the constant 0, the address of a shared variable at
/// offset 0, or an integer conversion (without saturation) of one of them.
fn is_zero(func: &Function, vars: &KernelVars, v: Value) -> bool {
    let Some(i) = func.def_inst(v) else {
        return false;
    };
    let d = &func.insts[i];
    match (d.op, &d.aux) {
        (Opcode::Const, Aux::Imm(0)) => func.ty(v).is_int(),
        (Opcode::Addr, Aux::Var(k)) => vars.places.get(*k as usize) == Some(&Place::Shared { offset: 0 }),
        (Opcode::Convert, Aux::Convert(c)) => {
            !c.sat && c.rnd.is_none() && c.from.is_int() && func.ty(v).is_int() && is_zero(func, vars, d.args[0])
        }
        (Opcode::Copy | Opcode::Bitcast, _) => is_zero(func, vars, d.args[0]),
        _ => false,
    }
}
