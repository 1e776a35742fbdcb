//! The MIR verifier: structure (terminators, branch arguments), SSA (every use dominated
//! by its definition) and types. Passes run it after themselves in debug builds.

use super::entities::{Block, Inst, Value};
use super::function::{Function, ValueDef};
use super::inst::Opcode;
use super::print::inst_text;
use super::types::Type;
use crate::analysis::dom::DomTree;
use cranelift_entity::SecondaryMap;

/// A verifier failure: a broken invariant (a compiler bug, not a user error).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("MIR verifier: {func}: {what}")]
pub struct VerifyError {
    /// The function.
    pub func: String,
    /// What is wrong.
    pub what: String,
}

/// Checks every invariant of `func`.
pub fn verify(func: &Function) -> Result<(), VerifyError> {
    let err = |what: String| VerifyError {
        func: func.name.clone(),
        what,
    };
    let dom = DomTree::new(func);
    let mut position: SecondaryMap<Inst, Option<(Block, u32)>> = SecondaryMap::new();
    for &b in &func.layout {
        for (i, &inst) in func.blocks[b].insts.iter().enumerate() {
            if position[inst].is_some() {
                return Err(err(format!("{inst} appears twice in the layout")));
            }
            position[inst] = Some((b, i as u32));
        }
    }
    for &b in &func.layout {
        check_block_shape(func, b).map_err(err)?;
        if !dom.is_reachable(b) {
            continue;
        }
        for (i, &inst) in func.blocks[b].insts.iter().enumerate() {
            let text = || inst_text(func, inst);
            for v in func.insts[inst].all_args() {
                if !defined_before(func, &dom, &position, v, b, i as u32) {
                    return Err(err(format!("`{}`: {v} is not dominated by its definition", text())));
                }
            }
            check_types(func, inst).map_err(|w| err(format!("`{}`: {w}", text())))?;
        }
    }
    Ok(())
}

fn check_block_shape(func: &Function, b: Block) -> Result<(), String> {
    let insts = &func.blocks[b].insts;
    let Some((&last, body)) = insts.split_last() else {
        return Err(format!("{b} is empty"));
    };
    if !func.insts[last].op.is_terminator() {
        return Err(format!("{b} does not end with a terminator"));
    }
    if let Some(&i) = body.iter().find(|&&i| func.insts[i].op.is_terminator()) {
        return Err(format!("{b}: terminator {i} in the middle of the block"));
    }
    for call in func.insts[last].targets() {
        let params = &func.blocks[call.block].params;
        if params.len() != call.args.len() {
            return Err(format!(
                "{b}: branch to {} passes {} args for {} params",
                call.block,
                call.args.len(),
                params.len()
            ));
        }
        for (&a, &p) in call.args.iter().zip(params) {
            if func.ty(a) != func.ty(p) {
                return Err(format!(
                    "{b}: branch argument {a} has type {}, {p} expects {}",
                    func.ty(a),
                    func.ty(p)
                ));
            }
        }
    }
    Ok(())
}

fn defined_before(
    func: &Function,
    dom: &DomTree,
    position: &SecondaryMap<Inst, Option<(Block, u32)>>,
    v: Value,
    use_block: Block,
    use_index: u32,
) -> bool {
    match func.values.get(v).map(|d| d.def) {
        None => false,
        Some(ValueDef::Param(b, _)) => dom.dominates(b, use_block),
        Some(ValueDef::Result(inst, _)) => match position[inst] {
            None => false,
            Some((b, i)) if b == use_block => i < use_index,
            Some((b, _)) => dom.dominates(b, use_block),
        },
    }
}

fn check_types(func: &Function, inst: Inst) -> Result<(), String> {
    let data = &func.insts[inst];
    let arg_ty = |i: usize| data.args.get(i).map(|&v| func.ty(v));
    let want = |i: usize, ty: Type| -> Result<(), String> {
        match arg_ty(i) {
            Some(t) if t == ty => Ok(()),
            Some(t) => Err(format!("argument {i} has type {t}, expected {ty}")),
            None => Err(format!("missing argument {i}")),
        }
    };
    use Opcode::*;
    match data.op {
        Iadd | Isub | Imul | ImulHiS | ImulHiU | And | Or | Xor | MinS | MinU | MaxS | MaxU | Fadd | Fsub | Fmul
        | Fmin | Fmax | Icmp | Fcmp | ImulWideS | ImulWideU => {
            want(0, data.ty)?;
            want(1, data.ty)
        }
        Shl | ShrS | ShrU => {
            want(0, data.ty)?;
            want(1, Type::I32)
        }
        Imad | Ffma => (0..3).try_for_each(|i| want(i, data.ty)),
        ImadWideS | ImadWideU => {
            want(0, data.ty)?;
            want(1, data.ty)?;
            want(2, wide(data.ty)?)
        }
        Ineg | Not | Fneg | Fabs | Copy => want(0, data.ty),
        Select => {
            want(0, Type::Pred)?;
            want(1, data.ty)?;
            want(2, data.ty)
        }
        Brif => want(0, Type::Pred),
        Load | Store => match arg_ty(0) {
            Some(Type::I32 | Type::I64) => Ok(()),
            other => Err(format!("address has type {other:?}")),
        },
        Bitcast => match arg_ty(0) {
            Some(t) if t.bits() == data.ty.bits() => Ok(()),
            other => Err(format!("bitcast from {other:?} to {}", data.ty)),
        },
        Const | Undef | Param | Special | Convert | Jump | Exit => Ok(()),
    }
}

fn wide(ty: Type) -> Result<Type, String> {
    Type::int(ty.bits() * 2).ok_or_else(|| format!("no wide type for {ty}"))
}
