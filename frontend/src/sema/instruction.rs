//! Checking one instruction against its table entry: refused opcodes, modifiers (known,
//! allowed, not repeated, the required ones present), type suffixes, the opcode's extra rule,
//! then its operands.

use super::body::{Body, Resolved};
use super::modifiers;
use super::table::{self, OpSpec};
use super::{call, features, operands};
use crate::ast::{Ident, Instruction, ScalarType, Span};
use crate::checked::*;
use crate::diag::Diagnostic;

/// Checks `inst` in `body`.
pub fn check(body: &Body<'_>, inst: &Instruction) -> Result<CheckedInst, Diagnostic> {
    let opcode = &inst.opcode;
    let first_mod = inst.modifiers.first().map(|m| m.name.as_str());
    if let Some(message) = features::refusal(&opcode.name, first_mod) {
        return Err(Diagnostic::error(message, opcode.span));
    }
    let Some(spec) = table::lookup(&opcode.name) else {
        return Err(Diagnostic::error(
            format!("unknown instruction `{}`", opcode.name),
            opcode.span,
        ));
    };
    let guard = match &inst.guard {
        Some(g) => Some((predicate(body, &g.pred)?, g.negated)),
        None => None,
    };
    let (mods, type_spans) = modifiers_of(spec, &inst.modifiers)?;
    check_types(spec, &mods, &type_spans, opcode)?;
    check_required(spec, &mods, opcode)?;
    if let Some(rule) = spec.rule {
        rule(&mods).map_err(|m| Diagnostic::error(m, inst.span))?;
    }
    let operands = if spec.operands == "call" {
        call::check(body, inst)?
    } else {
        operands::check_all(body, spec, &mods, inst)?
    };
    Ok(CheckedInst {
        guard,
        op: spec.op,
        mods,
        operands,
        span: inst.span,
    })
}

fn predicate(body: &Body<'_>, name: &Ident) -> Result<RegId, Diagnostic> {
    match body.resolve(name)? {
        Resolved::Reg(r) if body.regs[r.0 as usize].ty == ScalarType::Pred => Ok(r),
        _ => Err(Diagnostic::error(
            format!("guard `{}` is not a `.pred` register", name.name),
            name.span,
        )),
    }
}

/// The normalised modifiers and the spans of the type suffixes.
fn modifiers_of(spec: &OpSpec, written: &[Ident]) -> Result<(Mods, Vec<Span>), Diagnostic> {
    let mut mods = Mods::default();
    let mut type_spans = Vec::new();
    for m in written {
        if let Some(ty) = ScalarType::from_name(&m.name) {
            if matches!(ty, ScalarType::Bf16 | ScalarType::Bf16x2 | ScalarType::Tf32) {
                let message = format!("`.{}` needs sm_80 (target is sm_75)", m.name);
                return Err(Diagnostic::error(message, m.span));
            }
            if spec.types.is_empty() {
                let message = format!("`{}` takes no type suffix, found `.{}`", spec.name, m.name);
                return Err(Diagnostic::error(message, m.span));
            }
            mods.types.push(ty);
            type_spans.push(m.span);
            continue;
        }
        if !spec.mods.split_whitespace().any(|allowed| allowed == m.name) {
            let message = if modifiers::is_known(&m.name) {
                format!("`{}` does not take `.{}`", spec.name, m.name)
            } else {
                format!("unknown modifier `.{}` on `{}`", m.name, spec.name)
            };
            return Err(Diagnostic::error(message, m.span));
        }
        let value = modifiers::classify(spec.ctx, &m.name);
        modifiers::apply(&mut mods, value, m)
            .map_err(|why| Diagnostic::error(format!("`.{}` {why}", m.name), m.span))?;
    }
    Ok((mods, type_spans))
}

fn check_types(spec: &OpSpec, mods: &Mods, spans: &[Span], opcode: &Ident) -> Result<(), Diagnostic> {
    if mods.types.len() < spec.min_types {
        let example = spec
            .types
            .first()
            .and_then(|t| t.split_whitespace().next())
            .unwrap_or("b32");
        let message = if spec.min_types == 1 {
            format!("`{}` needs a type suffix (e.g. `.{example}`)", spec.name)
        } else {
            format!("`{}` needs {} type suffixes", spec.name, spec.min_types)
        };
        return Err(Diagnostic::error(message, opcode.span));
    }
    if mods.types.len() > spec.types.len() {
        let message = format!(
            "`{}` takes {} type suffix{}, found {}",
            spec.name,
            spec.types.len(),
            if spec.types.len() == 1 { "" } else { "es" },
            mods.types.len()
        );
        return Err(Diagnostic::error(message, spans[spec.types.len()]));
    }
    for ((ty, allowed), span) in mods.types.iter().zip(spec.types).zip(spans) {
        if !allowed.split_whitespace().any(|a| a == ty.name()) {
            let message = format!("`.{}` is not a valid type for `{}`", ty.name(), spec.name);
            return Err(Diagnostic::error(message, *span));
        }
    }
    Ok(())
}

fn has_category(mods: &Mods, category: &str) -> bool {
    match category {
        "@cmp" => mods.cmp.is_some(),
        "@atom" => mods.atom_op.is_some(),
        "@space" => mods.space.is_some(),
        "@shfl" => mods.shfl_mode.is_some(),
        "@vote" => mods.vote_mode.is_some(),
        "@mul" => mods.mul_mode.is_some(),
        "@scope" => mods.scope.is_some(),
        _ => false,
    }
}

fn has_spelling(mods: &Mods, spelling: &str) -> bool {
    match spelling {
        "sync" => mods.sync,
        "aligned" => mods.aligned,
        "approx" => mods.approx,
        "any" => mods.vote_mode == Some(VoteMode::Any),
        "all" => mods.vote_mode == Some(VoteMode::All),
        other => mods.has_flag(other),
    }
}

fn describe_group(group: &str) -> String {
    group
        .split('|')
        .map(|g| match g {
            "@cmp" => "a comparison (e.g. `.lt`)".to_string(),
            "@atom" => "an operation (e.g. `.add`)".to_string(),
            "@space" => "a state space (e.g. `.global`)".to_string(),
            "@shfl" => "a mode (`.up`, `.down`, `.bfly` or `.idx`)".to_string(),
            "@vote" => "a mode (`.all`, `.any`, `.uni` or `.ballot`)".to_string(),
            "@mul" => "`.lo` or `.hi`".to_string(),
            "@scope" => "a scope (`.cta`, `.gl` or `.sys`)".to_string(),
            s => format!("`.{s}`"),
        })
        .collect::<Vec<_>>()
        .join(" or ")
}

fn check_required(spec: &OpSpec, mods: &Mods, opcode: &Ident) -> Result<(), Diagnostic> {
    for group in spec.required.split_whitespace() {
        let present = group.split('|').any(|g| {
            if g.starts_with('@') {
                has_category(mods, g)
            } else {
                has_spelling(mods, g)
            }
        });
        if !present {
            let message = format!("`{}` needs {}", spec.name, describe_group(group));
            return Err(Diagnostic::error(message, opcode.span));
        }
    }
    Ok(())
}
