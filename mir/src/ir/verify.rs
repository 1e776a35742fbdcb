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
    super::typing::check_args(func, data)?;
    let want = super::typing::result_types(data);
    if !func.results[inst].iter().map(|&v| func.ty(v)).eq(want.iter().copied()) {
        let have: Vec<Type> = func.results[inst].iter().map(|&v| func.ty(v)).collect();
        return Err(format!("results have types {have:?}, the opcode gives {want:?}"));
    }
    let targets = match data.op {
        Opcode::Jump => 1,
        Opcode::Brif => 2,
        _ => 0,
    };
    if data.targets().len() != targets {
        return Err(format!("{} branch targets, expected {targets}", data.targets().len()));
    }
    Ok(())
}
