//! `call`: `call (returns), target, (arguments)[, prototype];` with each part optional except
//! the target. The checked operands are normalised to `[List(returns), target, List(args)]`
//! plus `Prototype` for an indirect call.

use super::body::{Body, Resolved};
use super::consteval::{self, Value};
use crate::ast::{Instruction, Operand, Span};
use crate::checked::*;
use crate::diag::Diagnostic;

/// The written parts of a `call`.
struct Parts<'a> {
    returns: &'a [Operand],
    target: &'a Operand,
    args: &'a [Operand],
    prototype: Option<&'a Operand>,
}

fn split(inst: &Instruction) -> Result<Parts<'_>, Diagnostic> {
    let bad = || Diagnostic::error("`call` is written `call (returns), function, (arguments);`", inst.span);
    let mut ops = inst.operands.iter().peekable();
    let returns = match ops.peek() {
        Some(Operand::List(items, _)) => {
            ops.next();
            items.as_slice()
        }
        _ => &[],
    };
    let target = ops.next().ok_or_else(bad)?;
    let args = match ops.peek() {
        Some(Operand::List(items, _)) => {
            ops.next();
            items.as_slice()
        }
        _ => &[],
    };
    let prototype = ops.next();
    if ops.next().is_some() {
        return Err(bad());
    }
    Ok(Parts {
        returns,
        target,
        args,
        prototype,
    })
}

/// Checks a `call` and returns its normalised operands.
pub fn check(body: &Body<'_>, inst: &Instruction) -> Result<Vec<CheckedOperand>, Diagnostic> {
    let parts = split(inst)?;
    let Operand::Name(target) = parts.target else {
        return Err(Diagnostic::error(
            "the target of `call` must be a function or a register",
            parts.target.span(),
        ));
    };
    let mut out = Vec::with_capacity(4);
    let returns = list(body, parts.returns)?;
    let args = list(body, parts.args)?;
    match body.resolve(target)? {
        Resolved::Func => {
            let sig = &body.module.functions[&target.name];
            if sig.is_entry {
                return Err(Diagnostic::error(
                    format!("`{}` is a kernel and cannot be called", target.name),
                    target.span,
                ));
            }
            arity(target.span, &target.name, "argument", sig.params.len(), args.len())?;
            arity(
                target.span,
                &target.name,
                "return value",
                sig.returns.len(),
                returns.len(),
            )?;
            if let Some(p) = parts.prototype {
                return Err(Diagnostic::error("a direct call takes no prototype", p.span()));
            }
            out.push(CheckedOperand::List(returns));
            out.push(CheckedOperand::Func(target.name.clone()));
            out.push(CheckedOperand::List(args));
        }
        Resolved::Reg(r) => {
            let Some(Operand::Name(proto)) = parts.prototype else {
                return Err(Diagnostic::error(
                    "an indirect call needs a `.callprototype` label",
                    inst.span,
                ));
            };
            if body.resolve(proto)? != Resolved::Prototype {
                return Err(Diagnostic::error(
                    format!("`{}` is not a `.callprototype`", proto.name),
                    proto.span,
                ));
            }
            out.push(CheckedOperand::List(returns));
            out.push(CheckedOperand::Reg(r));
            out.push(CheckedOperand::List(args));
            out.push(CheckedOperand::Prototype(proto.name.clone()));
        }
        _ => {
            return Err(Diagnostic::error(
                format!("`{}` is not a function", target.name),
                target.span,
            ));
        }
    }
    Ok(out)
}

fn arity(span: Span, name: &str, what: &str, want: usize, found: usize) -> Result<(), Diagnostic> {
    if want == found {
        return Ok(());
    }
    let plural = if want == 1 { "" } else { "s" };
    Err(Diagnostic::error(
        format!("`{name}` takes {want} {what}{plural}, found {found}"),
        span,
    ))
}

fn list(body: &Body<'_>, items: &[Operand]) -> Result<Vec<CheckedOperand>, Diagnostic> {
    items
        .iter()
        .map(|item| match item {
            Operand::Name(n) => match body.resolve(n)? {
                Resolved::Reg(r) => Ok(CheckedOperand::Reg(r)),
                Resolved::Var(v) => Ok(CheckedOperand::VarAddr(v)),
                _ => Err(Diagnostic::error(
                    format!("`{}` cannot be a call argument", n.name),
                    n.span,
                )),
            },
            Operand::Imm(e) => Ok(match consteval::eval(e)? {
                Value::Int(v) => CheckedOperand::Int(v),
                Value::Float(value) => CheckedOperand::Float { value, single: false },
            }),
            other => Err(Diagnostic::error(
                "a call argument is a `.param` variable or a register",
                other.span(),
            )),
        })
        .collect()
}
