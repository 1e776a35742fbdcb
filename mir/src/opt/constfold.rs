//! Constant folding: an instruction whose arguments are all constants becomes a constant
//! (evaluated by the interpreter's [`crate::interp::eval::eval_pure`], so folding agrees
//! with execution bit for bit); algebraic identities (`x + 0`, `x * 1`, `x & ~0`, shifts by
//! 0, selects on a constant or between equal values) forward their operand; a `brif` on a
//! constant becomes a `jump`.

use super::insts_in_order;
use crate::interp::eval::eval_pure;
use crate::ir::{Aux, Function, Inst, InstData, Opcode, Value};
use rustc_hash::FxHashMap as HashMap;
use smallvec::smallvec;

/// Runs the pass; returns whether anything changed.
pub fn run(func: &mut Function) -> bool {
    let mut changed = false;
    let mut subst: HashMap<Value, Value> = HashMap::default();
    for (b, inst) in insts_in_order(func) {
        func.insts[inst].map_args(|v| *subst.get(&v).unwrap_or(&v));
        if fold_branch(func, inst) {
            changed = true;
            continue;
        }
        if let Some(v) = identity(func, inst) {
            subst.insert(func.results[inst][0], v);
            changed = true;
            continue;
        }
        if fold_constant(func, b, inst, &mut subst) {
            changed = true;
        }
    }
    func.replace_uses(&subst);
    changed
}

fn const_args(func: &Function, inst: Inst) -> Option<Vec<u64>> {
    func.insts[inst].args.iter().map(|&a| func.const_value(a)).collect()
}

fn fold_constant(func: &mut Function, b: crate::ir::Block, inst: Inst, subst: &mut HashMap<Value, Value>) -> bool {
    let data = &func.insts[inst];
    // Address-space conversions depend on where the machine puts each space (the back end
    // maps a parameter's generic address to its constant-bank copy): not constants.
    let space_dependent = matches!(data.op, Opcode::ToGeneric | Opcode::FromGeneric | Opcode::IsSpace);
    if !data.op.is_pure() || matches!(data.op, Opcode::Const | Opcode::Undef) || space_dependent || data.args.is_empty()
    {
        return false;
    }
    let Some(args) = const_args(func, inst) else {
        return false;
    };
    let Some(out) = eval_pure(data.op, data.ty, &data.aux, &args) else {
        return false;
    };
    let results = func.results[inst].clone();
    if results.len() == 1 {
        let ty = func.ty(results[0]);
        func.insts[inst] = InstData {
            op: Opcode::Const,
            ty,
            args: smallvec![],
            aux: Aux::Imm(out[0]),
        };
        return true;
    }
    let pos = func.blocks[b]
        .insts
        .iter()
        .position(|&i| i == inst)
        .expect("in its block");
    for (k, (&r, bits)) in results.iter().zip(out).enumerate() {
        let c = func.create_inst(InstData {
            op: Opcode::Const,
            ty: func.ty(r),
            args: smallvec![],
            aux: Aux::Imm(bits),
        });
        func.blocks[b].insts.insert(pos + k, c);
        subst.insert(r, func.results[c][0]);
    }
    true
}

fn fold_branch(func: &mut Function, inst: Inst) -> bool {
    let data = &func.insts[inst];
    if data.op != Opcode::Brif {
        return false;
    }
    let Some(c) = func.const_value(data.args[0]) else {
        return false;
    };
    let target = data.targets()[if c & 1 == 1 { 0 } else { 1 }].clone();
    func.insts[inst] = InstData {
        op: Opcode::Jump,
        ty: data.ty,
        args: smallvec![],
        aux: Aux::Branch(smallvec![target]),
    };
    true
}

/// The operand an identity forwards, if any.
fn identity(func: &Function, inst: Inst) -> Option<Value> {
    let data = &func.insts[inst];
    let k = |i: usize| data.args.get(i).and_then(|&a| func.const_value(a));
    let all_ones = data.ty.mask();
    use Opcode::*;
    match data.op {
        Iadd | Or | Xor if k(1) == Some(0) => Some(data.args[0]),
        Iadd | Or | Xor if k(0) == Some(0) => Some(data.args[1]),
        Isub | Shl | ShrU | ShrS if k(1) == Some(0) => Some(data.args[0]),
        Imul if k(1) == Some(1) => Some(data.args[0]),
        Imul if k(0) == Some(1) => Some(data.args[1]),
        And if k(1) == Some(all_ones) => Some(data.args[0]),
        And if k(0) == Some(all_ones) => Some(data.args[1]),
        Select if data.args[1] == data.args[2] => Some(data.args[1]),
        Select => k(0).map(|p| data.args[if p & 1 == 1 { 1 } else { 2 }]),
        _ => None,
    }
}
