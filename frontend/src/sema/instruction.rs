//! Checking one instruction against its table entry: refused opcodes, modifiers (known,
//! allowed, not repeated, the required ones present), type suffixes, the opcode's extra rule,
//! then its operands.

use super::body::{Body, Resolved};
use super::modifiers;
use super::table::{self, OpSpec};
use super::{call, features, operands, tensor, versions};
use crate::ast::{Ident, Instruction, ScalarType, Span};
use crate::checked::*;
use crate::diag::Diagnostic;

/// Checks `inst` in `body`.
pub fn check(body: &Body<'_>, inst: &Instruction) -> Result<CheckedInst, Diagnostic> {
    let opcode = &inst.opcode;
    check_version(body, inst)?;
    if tensor::handles(&opcode.name) {
        let guard = match &inst.guard {
            Some(g) => Some((predicate(body, &g.pred)?, g.negated)),
            None => None,
        };
        return tensor::check(body, inst, guard);
    }
    let Some(spec) = table::lookup(&opcode.name) else {
        let first_mod = inst.modifiers.first().map(|m| m.name.as_str());
        let message = features::refusal(&opcode.name, first_mod, body.module.target_sm)
            .unwrap_or_else(|| format!("unknown instruction `{}`", opcode.name));
        return Err(Diagnostic::error(message, opcode.span));
    };
    let target = body.module.target_sm;
    if let Some(sm) = features::first_sm(&opcode.name).filter(|&sm| target < sm) {
        let first_mod = inst.modifiers.first().map(|m| m.name.as_str());
        let shown = match first_mod {
            Some(m) => format!("{}.{m}", opcode.name),
            None => opcode.name.clone(),
        };
        return Err(Diagnostic::error(features::needs_sm(&shown, sm, target), opcode.span));
    }
    let guard = match &inst.guard {
        Some(g) => Some((predicate(body, &g.pred)?, g.negated)),
        None => None,
    };
    let (mods, type_spans) = modifiers_of(spec, &inst.modifiers, body.module.target_sm)?;
    check_types(spec, &mods, &type_spans, opcode)?;
    check_required(spec, &mods, opcode)?;
    if let Some(rule) = spec.rule {
        rule(&mods, body.module.target_sm)
            .map_err(|e| Diagnostic::error(e.message(body.module.target_sm), inst.span))?;
    }
    check_shape(spec, &mods, inst, body.module.target_sm)?;
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
        tensor: None,
    })
}

/// Refuses a feature the module's `.version` does not have, at the modifier that asks for it.
fn check_version(body: &Body<'_>, inst: &Instruction) -> Result<(), Diagnostic> {
    let written: Vec<&str> = inst.modifiers.iter().map(|m| m.name.as_str()).collect();
    let version = body.module.version;
    let Some(old) = versions::instruction(&inst.opcode.name, &written, version) else {
        return Ok(());
    };
    let span = old.modifier.map_or(inst.opcode.span, |i| inst.modifiers[i].span);
    Err(Diagnostic::error(versions::message(&old, version), span))
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
fn modifiers_of(spec: &OpSpec, written: &[Ident], target: u32) -> Result<(Mods, Vec<Span>), Diagnostic> {
    let mut mods = Mods::default();
    let mut type_spans = Vec::new();
    for m in written {
        if let Some(ty) = ScalarType::from_name(&m.name) {
            // bf16 is sm_80 on (each opcode's rule refuses the sm_90 forms); tf32 only in
            // `cvt.rna.tf32.f32`.
            let later = match ty {
                ScalarType::Bf16 | ScalarType::Bf16x2 => target < 80,
                ScalarType::Tf32 => target < 80 || spec.op != Opcode::Cvt,
                _ => false,
            };
            if later {
                let message = features::needs_sm(&format!(".{}", m.name), 80, target);
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
        // A transaction count on its own (`mbarrier.expect_tx`, `.complete_tx`); with
        // `.arrive` it qualifies the arrival.
        "@tx" => (mods.has_flag("expect_tx") || mods.has_flag("complete_tx")) && !mods.has_flag("arrive"),
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
            "@tx" => "`.expect_tx` or `.complete_tx`".to_string(),
            s => format!("`.{s}`"),
        })
        .collect::<Vec<_>>()
        .join(" or ")
}

/// Each required group needs exactly one of its members (`.l` or `.r`, not both).
fn check_required(spec: &OpSpec, mods: &Mods, opcode: &Ident) -> Result<(), Diagnostic> {
    for group in spec.required.split_whitespace() {
        let present = group
            .split('|')
            .filter(|g| {
                if g.starts_with('@') {
                    has_category(mods, g)
                } else {
                    has_spelling(mods, g)
                }
            })
            .count();
        if present == 0 {
            let message = format!("`{}` needs {}", spec.name, describe_group(group));
            return Err(Diagnostic::error(message, opcode.span));
        }
        if present > 1 {
            let message = format!("`{}` takes only one of {}", spec.name, describe_group(group));
            return Err(Diagnostic::error(message, opcode.span));
        }
    }
    Ok(())
}

fn secondary_ops(mods: &Mods) -> usize {
    ["add", "min", "max"].iter().filter(|f| mods.has_flag(f)).count()
}

/// Rules that depend on the operands written: the optional operands that a modifier
/// requires (`atom.cas`, setp's combining predicate) and constant operand ranges.
fn check_shape(spec: &OpSpec, mods: &Mods, inst: &Instruction, target_sm: u32) -> Result<(), Diagnostic> {
    let count = inst.operands.len();
    let message = match spec.op {
        Opcode::Atom if (count == 4) != (mods.atom_op == Some(AtomOp::Cas)) => {
            Some("`atom.cas` takes a compare and a swap value; other atomics take one value")
        }
        Opcode::Setp | Opcode::Set if (count == 4) != mods.bool_op.is_some() => {
            Some("a combining predicate operand goes with `.and`, `.or` or `.xor`")
        }
        Opcode::Bar | Opcode::Barrier if mods.has_flag("warp") && count != 1 => {
            Some("`bar.warp.sync` takes one operand, the member mask")
        }
        Opcode::Bar | Opcode::Barrier if mods.has_flag("red") != (count > 2) => Some(
            "`bar.red` takes a destination, a barrier, an optional thread count and a predicate; other barriers a barrier and a thread count",
        ),
        Opcode::Vshl | Opcode::Vshr if secondary_ops(mods) > 1 => {
            Some("a video instruction takes at most one secondary operation")
        }
        Opcode::Vshl | Opcode::Vshr if count == 3 && secondary_ops(mods) == 1 => {
            Some("a secondary operation (`.add`, `.min` or `.max`) needs a fourth operand")
        }
        Opcode::Cvt if count == 4 && !mods.has_flag("pack") => Some("only `cvt.pack` takes four operands"),
        Opcode::Mbarrier
            if count == 3
                && (mods.has_flag("arrive") || mods.has_flag("arrive_drop"))
                && !mods.has_flag("noComplete")
                && !mods.has_flag("expect_tx")
                && target_sm < 90 =>
        {
            Some("an `mbarrier` arrival with a count needs `.noComplete` before sm_90")
        }
        Opcode::Mbarrier if count == 2 && mods.has_flag("noComplete") => Some("`.noComplete` needs a count operand"),
        Opcode::Mbarrier
            if mods.space == Some(crate::ast::StateSpace::SharedCluster)
                && (mods.has_flag("arrive") || mods.has_flag("arrive_drop"))
                && !matches!(inst.operands.first(), Some(crate::ast::Operand::Sink(_))) =>
        {
            Some("an arrival on a `.shared::cluster` barrier returns no state: its destination is `_`")
        }
        Opcode::Match
            if mods.vote_mode == Some(VoteMode::Any)
                && matches!(inst.operands.first(), Some(crate::ast::Operand::PredPair(..))) =>
        {
            Some("`match.any` has no predicate result")
        }
        _ => None,
    };
    if let Some(message) = message {
        return Err(Diagnostic::error(message, inst.span));
    }
    let thread_count = match (spec.op, &inst.operands[..]) {
        (Opcode::Bar | Opcode::Barrier, [_, n]) if !mods.has_flag("red") => Some(n),
        (Opcode::Bar | Opcode::Barrier, [_, _, n, _]) => Some(n),
        _ => None,
    };
    if let Some(crate::ast::Operand::Imm(e)) = thread_count
        && crate::syntax::const_value(e).is_some_and(|n| n % 32 != 0)
    {
        return Err(Diagnostic::error(
            "the thread count of a barrier is a multiple of 32",
            e.span(),
        ));
    }
    let barrier = match (spec.op, &inst.operands[..]) {
        (Opcode::Bar | Opcode::Barrier, [b, ..]) if !mods.has_flag("red") && !mods.has_flag("warp") => Some(b),
        (Opcode::Bar | Opcode::Barrier, [_, b, ..]) if mods.has_flag("red") => Some(b),
        _ => None,
    };
    if let Some(crate::ast::Operand::Imm(e)) = barrier
        && crate::syntax::const_value(e).is_some_and(|n| !(0..16).contains(&n))
    {
        return Err(Diagnostic::error("barriers are numbered 0 to 15", e.span()));
    }
    Ok(())
}
