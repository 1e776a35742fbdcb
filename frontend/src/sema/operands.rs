//! Operand checks: each operand against the `kind:type` item of its opcode's shape — names
//! resolve to the right kind of thing, registers have a compatible type (PTX's rules, relaxed
//! for `ld`/`st`/`cvt`), vectors have the right width, addresses the right state space.

use super::body::{Body, Resolved};
use super::consteval::{self, Value};
use super::special;
use super::table::OpSpec;
use crate::ast::{Address, Expr, Ident, Instruction, Operand, ScalarType, Span, StateSpace};
use crate::checked::*;
use crate::diag::Diagnostic;

/// What the instruction around an operand says about it.
struct Want<'a> {
    spec: &'a OpSpec,
    mods: &'a Mods,
    kind: char,
    ty: Option<ScalarType>,
    relaxed: bool,
    /// The length a vector operand must have, when the instruction decides it elsewhere
    /// (tensor-core fragments).
    count: Option<u32>,
}

/// Checks one operand of an instruction whose operands are not described by a table shape
/// (the tensor-core instructions): `kind` and `ty` as in a shape item, `count` the length a
/// vector operand must have.
pub fn check_one(
    body: &Body<'_>,
    spec: &OpSpec,
    mods: &Mods,
    (kind, ty, count): (char, Option<ScalarType>, Option<u32>),
    operand: &Operand,
) -> Result<CheckedOperand, Diagnostic> {
    let want = Want {
        spec,
        mods,
        kind,
        ty,
        relaxed: false,
        count,
    };
    operand_of(body, &want, operand)
}

/// Checks every operand of `inst` against the shape with the same operand count.
pub fn check_all(
    body: &Body<'_>,
    spec: &OpSpec,
    mods: &Mods,
    inst: &Instruction,
) -> Result<Vec<CheckedOperand>, Diagnostic> {
    let shapes: Vec<&str> = spec.operands_of.map_or(spec.operands, |f| f(mods)).split('|').collect();
    let count = inst.operands.len();
    let Some(shape) = shapes.iter().find(|s| s.split_whitespace().count() == count) else {
        let counts: Vec<String> = shapes
            .iter()
            .map(|s| s.split_whitespace().count().to_string())
            .collect();
        let expected = match counts.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => "0".to_string(),
        };
        let message = format!(
            "`{}` takes {expected} operand{}, found {count}",
            spec.name,
            if expected == "1" { "" } else { "s" }
        );
        return Err(Diagnostic::error(message, inst.span));
    };
    let relaxed = matches!(spec.op, Opcode::Ld | Opcode::Ldu | Opcode::St | Opcode::Cvt);
    shape
        .split_whitespace()
        .zip(&inst.operands)
        .map(|(item, operand)| {
            let (kind, code) = item.split_once(':').unwrap_or((item, "*"));
            let want = Want {
                spec,
                mods,
                kind: kind.chars().next().unwrap_or('s'),
                ty: type_of(code, mods),
                relaxed,
                count: None,
            };
            operand_of(body, &want, operand)
        })
        .collect()
}

/// The type an operand item asks for (`None`: any).
fn type_of(code: &str, mods: &Mods) -> Option<ScalarType> {
    match code {
        "T" => mods.types.first().copied(),
        "U" => mods.types.get(1).copied(),
        "V" => mods.types.get(2).copied(),
        "R" => {
            let t = mods.types.first().copied()?;
            Some(if mods.mul_mode == Some(MulMode::Wide) {
                widen(t)
            } else {
                t
            })
        }
        "*" => None,
        name => ScalarType::from_name(name),
    }
}

fn widen(t: ScalarType) -> ScalarType {
    use ScalarType::*;
    match t {
        U16 => U32,
        S16 => S32,
        U32 => U64,
        S32 => S64,
        other => other,
    }
}

/// PTX operand type compatibility: same size and a compatible kind (`.bN` goes with anything
/// of its size); with `relaxed` (ld/st/cvt) a wider register is also fine.
pub fn compatible(reg: ScalarType, want: ScalarType, relaxed: bool) -> bool {
    use ScalarType::*;
    if reg == want {
        return true;
    }
    if reg == Pred || want == Pred {
        return false;
    }
    let size_ok = reg.size() == want.size() || (relaxed && reg.size() > want.size());
    if !size_ok {
        return false;
    }
    let bits = |t: ScalarType| matches!(t, B8 | B16 | B32 | B64 | B128);
    let int = |t: ScalarType| !t.is_float() && !bits(t);
    bits(reg)
        || bits(want)
        || (int(reg) && int(want))
        || (relaxed && reg.size() > want.size())
        || (reg.is_float() && want.is_float())
}

fn mismatch(name: &Ident, reg: &RegInfo, want: ScalarType, spec: &OpSpec) -> Diagnostic {
    let shown = if reg.vector > 1 {
        format!(".v{} .{}", reg.vector, reg.ty.name())
    } else {
        format!(".{}", reg.ty.name())
    };
    Diagnostic::error(
        format!(
            "`{}` is `{shown}`, which does not fit a `.{}` operand of `{}`",
            name.name,
            want.name(),
            spec.name
        ),
        name.span,
    )
}

fn operand_of(body: &Body<'_>, w: &Want<'_>, op: &Operand) -> Result<CheckedOperand, Diagnostic> {
    match (w.kind, op) {
        ('a', Operand::Address(a)) => address(body, w, a),
        ('t', Operand::TensorAddress(a, coords, _)) => {
            let map = address(body, w, a)?;
            let coord = Want {
                kind: 's',
                ty: Some(ScalarType::B32),
                ..*w
            };
            let coords = coords
                .iter()
                .map(|c| source(body, &coord, c))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(CheckedOperand::TensorAddress {
                map: Box::new(map),
                coords,
            })
        }
        ('t', other) => Err(Diagnostic::error(
            format!(
                "`{}` expects a tensor map and coordinates `[map, {{x, y}}]` here",
                w.spec.name
            ),
            other.span(),
        )),
        (_, Operand::TensorAddress(_, _, s)) => {
            Err(Diagnostic::error("unexpected tensor coordinates `[map, {...}]`", *s))
        }
        ('a', other) => Err(Diagnostic::error(
            format!("`{}` expects an address `[...]` here", w.spec.name),
            other.span(),
        )),
        (_, Operand::Address(a)) => Err(Diagnostic::error("unexpected address operand", a.span)),
        ('l', Operand::Name(n)) => match body.resolve(n)? {
            Resolved::Label(l) => Ok(CheckedOperand::Label(l)),
            _ => Err(Diagnostic::error(format!("`{}` is not a label", n.name), n.span)),
        },
        ('l', other) => Err(Diagnostic::error("expected a label", other.span())),
        ('i', Operand::Imm(e)) => match consteval::eval(e)? {
            Value::Int(v) if w.spec.op == Opcode::Pmevent && !w.mods.has_flag("mask") && !(0..16).contains(&v) => Err(
                Diagnostic::error("`pmevent` takes an event number from 0 to 15", e.span()),
            ),
            Value::Int(v) if w.spec.op == Opcode::Pmevent && !(0..0x10000).contains(&v) => {
                Err(Diagnostic::error("`pmevent.mask` takes a 16-bit mask", e.span()))
            }
            Value::Int(v) => Ok(CheckedOperand::Int(v)),
            Value::Float(_) => Err(Diagnostic::error("expected an integer constant", e.span())),
        },
        ('i', other) => Err(Diagnostic::error("expected a constant", other.span())),
        ('D', Operand::PredPair(a, p)) => {
            let first = destination(body, w, &Operand::Name(a.clone()))?;
            let pred = Want {
                ty: Some(ScalarType::Pred),
                ..*w
            };
            let second = destination(body, &pred, &Operand::Name(p.clone()))?;
            Ok(CheckedOperand::PredPair(Box::new(first), Box::new(second)))
        }
        ('d' | 'D', op) => destination(body, w, op),
        ('n', Operand::Not(n)) => Ok(CheckedOperand::NotReg(pred_reg(body, n)?)),
        ('n', Operand::Name(n)) => match body.resolve(n)? {
            Resolved::Reg(_) => Ok(CheckedOperand::Reg(pred_reg(body, n)?)),
            _ => Err(Diagnostic::error(
                format!("`{}` is not a `.pred` register", n.name),
                n.span,
            )),
        },
        ('n', Operand::Imm(e)) => immediate(e, Some(ScalarType::U32)),
        ('n', other) => Err(Diagnostic::error("expected a predicate", other.span())),
        (_, op) => source(body, w, op),
    }
}

fn pred_reg(body: &Body<'_>, n: &Ident) -> Result<RegId, Diagnostic> {
    match body.resolve(n)? {
        Resolved::Reg(r) if body.regs[r.0 as usize].ty == ScalarType::Pred => Ok(r),
        _ => Err(Diagnostic::error(
            format!("`{}` is not a `.pred` register", n.name),
            n.span,
        )),
    }
}

/// A register written as a whole: checks its type (and vector width) against `w`.
fn whole_reg(body: &Body<'_>, w: &Want<'_>, n: &Ident, r: RegId) -> Result<CheckedOperand, Diagnostic> {
    let info = &body.regs[r.0 as usize];
    let width = w.mods.vector.map_or(1, u32::from);
    if let Some(want) = w.ty {
        if info.vector > 1 && info.vector != width {
            let whole = info.ty.size() * info.vector == want.size() * width;
            if !(w.spec.op == Opcode::Mov && whole) {
                let message = format!(
                    "`{}` is a vector register: use `{}.x` or a `.v{}` instruction",
                    n.name, n.name, info.vector
                );
                return Err(Diagnostic::error(message, n.span));
            }
        } else if !compatible(info.ty, want, w.relaxed) {
            return Err(mismatch(n, info, want, w.spec));
        }
    }
    Ok(CheckedOperand::Reg(r))
}

fn component(body: &Body<'_>, w: &Want<'_>, base: &Ident, comp: &Ident) -> Result<CheckedOperand, Diagnostic> {
    if special::is_vector(&base.name) && body.scopes.lookup(&base.name).is_none() {
        return match special::component(&base.name, &comp.name) {
            Some(s) => {
                let name = format!("{}.{}", base.name, comp.name);
                match special::refusal(s, &name, body.module.target_sm) {
                    Some(message) => Err(Diagnostic::error(message, base.span)),
                    None => Ok(CheckedOperand::Special(s)),
                }
            }
            None => Err(Diagnostic::error(
                format!("`{}` has no component `.{}`", base.name, comp.name),
                comp.span,
            )),
        };
    }
    let Resolved::Reg(r) = body.resolve(base)? else {
        return Err(Diagnostic::error(
            format!("`{}` is not a vector register", base.name),
            base.span,
        ));
    };
    let info = &body.regs[r.0 as usize];
    let index = special::component_index(&comp.name).filter(|&i| (i as u32) < info.vector.max(2));
    let Some(index) = index.filter(|_| info.vector > 1) else {
        let message = format!("`{}` has no component `.{}`", base.name, comp.name);
        return Err(Diagnostic::error(message, comp.span));
    };
    if let Some(want) = w.ty
        && !compatible(info.ty, want, w.relaxed)
    {
        return Err(mismatch(base, info, want, w.spec));
    }
    Ok(CheckedOperand::RegElem(r, index))
}

fn destination(body: &Body<'_>, w: &Want<'_>, op: &Operand) -> Result<CheckedOperand, Diagnostic> {
    match op {
        Operand::Sink(_) => Ok(CheckedOperand::Sink),
        Operand::Name(n) => match body.resolve(n)? {
            Resolved::Reg(r) => whole_reg(body, w, n, r),
            Resolved::Special(..) => Err(Diagnostic::error(
                format!("special register `{}` is read-only", n.name),
                n.span,
            )),
            _ => Err(Diagnostic::error(format!("`{}` is not a register", n.name), n.span)),
        },
        Operand::Component { base, component: c } => match component(body, w, base, c)? {
            CheckedOperand::Special(_) => {
                let message = format!("special register `{}.{}` is read-only", base.name, c.name);
                Err(Diagnostic::error(message, base.span))
            }
            elem => Ok(elem),
        },
        Operand::Vector(items, span) => vector(body, w, items, *span, true),
        other => Err(Diagnostic::error(
            format!("the destination of `{}` must be a register", w.spec.name),
            other.span(),
        )),
    }
}

fn source(body: &Body<'_>, w: &Want<'_>, op: &Operand) -> Result<CheckedOperand, Diagnostic> {
    match op {
        Operand::Name(n) => match body.resolve(n)? {
            Resolved::Reg(r) => whole_reg(body, w, n, r),
            Resolved::Special(s, _) => match special::refusal(s, &n.name, body.module.target_sm) {
                Some(message) => Err(Diagnostic::error(message, n.span)),
                None => Ok(CheckedOperand::Special(s)),
            },
            Resolved::Var(v) if w.kind == 'm' => {
                address_of_var(body, w, n, v)?;
                Ok(CheckedOperand::VarAddr(v))
            }
            Resolved::Func if w.kind == 'm' => Ok(CheckedOperand::Func(n.name.clone())),
            Resolved::Var(_) => Err(Diagnostic::error(
                format!(
                    "`{}` is a variable: read it with `ld` (`[{}]`) or take its address with `mov`",
                    n.name, n.name
                ),
                n.span,
            )),
            _ => Err(Diagnostic::error(
                format!("`{}` cannot be an operand of `{}`", n.name, w.spec.name),
                n.span,
            )),
        },
        Operand::Component { base, component: c } => component(body, w, base, c),
        Operand::Imm(e) => sum_or_immediate(body, w, e),
        Operand::Vector(items, span) => vector(body, w, items, *span, false),
        Operand::Sink(s) => Err(Diagnostic::error("`_` can only be a destination", *s)),
        Operand::Not(n) => Err(Diagnostic::error("`!` is only allowed on predicate operands", n.span)),
        Operand::Neg(o) => Err(Diagnostic::error(
            "a negated register is not an operand; use `neg`",
            o.span(),
        )),
        Operand::PredPair(a, _) => Err(Diagnostic::error("`a|p` is only allowed as a destination", a.span)),
        Operand::List(_, s) => Err(Diagnostic::error("an argument list is only allowed in `call`", *s)),
        Operand::Address(a) => Err(Diagnostic::error("unexpected address operand", a.span)),
        Operand::TensorAddress(_, _, s) => Err(Diagnostic::error("unexpected tensor coordinates `[map, {...}]`", *s)),
    }
}

/// Whether an instruction of state space `space` reaches a variable of `var_space`: its own
/// space, and a `.shared` variable from `.shared::cluster` (the CTA's shared memory is part of
/// the cluster's).
fn reaches(space: StateSpace, var_space: StateSpace) -> bool {
    space == var_space || (space == StateSpace::SharedCluster && var_space == StateSpace::Shared)
}

/// Taking a variable's address (`mov`, `cvta`): into an integer register, from the space
/// `cvta` names.
fn address_of_var(body: &Body<'_>, w: &Want<'_>, n: &Ident, v: VarId) -> Result<(), Diagnostic> {
    if w.ty
        .is_some_and(|t| t.is_float() || t == ScalarType::Pred || t.size() < 4)
    {
        let message = format!("the address of `{}` goes into a 32- or 64-bit integer", n.name);
        return Err(Diagnostic::error(message, n.span));
    }
    let space = body.vars[v.0 as usize].space;
    if w.spec.op == Opcode::Cvta && w.mods.space.is_some_and(|s| !reaches(s, space)) {
        let wanted = w.mods.space.map_or("", |s| s.name());
        let message = format!("`{}` is in `.{}`, not `.{wanted}`", n.name, space.name());
        return Err(Diagnostic::error(message, n.span));
    }
    Ok(())
}

/// An immediate, or `name + constant` (a register's value or a variable's address plus it).
fn sum_or_immediate(body: &Body<'_>, w: &Want<'_>, e: &Expr) -> Result<CheckedOperand, Diagnostic> {
    if let Expr::Binary { op, lhs, rhs, .. } = e
        && let (Expr::Symbol(n), true) = (lhs.as_ref(), op == "+" || op == "-")
    {
        {
            let k = match consteval::eval(rhs)? {
                Value::Int(k) if op == "+" => k,
                Value::Int(k) => k.wrapping_neg(),
                Value::Float(_) => {
                    return Err(Diagnostic::error("expected an integer offset", rhs.span()));
                }
            };
            return match body.resolve(n)? {
                Resolved::Reg(r) => {
                    whole_reg(body, w, n, r)?;
                    Ok(CheckedOperand::RegOffset(r, k))
                }
                Resolved::Var(v) if w.kind == 'm' => Ok(CheckedOperand::VarAddrOffset(v, k)),
                _ => Err(Diagnostic::error(format!("`{}` cannot be offset here", n.name), n.span)),
            };
        }
    }
    immediate(e, w.ty)
}

/// A constant for an operand of type `ty`, with ptxas's rules: no integers for floating-point
/// operands, floating-point constants only for `.f32`/`.f64` (and, as bit patterns, `.bN`), no
/// constants at all for half-precision operands.
fn immediate(e: &Expr, ty: Option<ScalarType>) -> Result<CheckedOperand, Diagnostic> {
    use ScalarType::*;
    let value = consteval::eval(e)?;
    let Some(t) = ty else {
        return Ok(constant(value, e));
    };
    let refusal = match (value, t) {
        (_, F16 | F16x2 | Bf16 | Bf16x2) => Some(format!("`.{}` operands cannot be constants", t.name())),
        (Value::Int(_), F32 | F64 | Tf32) => Some(format!(
            "integer constant for a `.{}` operand: write it as a floating-point number (`1.0`, `0f3F800000`)",
            t.name()
        )),
        (Value::Float(_), F32 | F64 | B16 | B32 | B64) => None,
        (Value::Float(_), _) => Some(format!("floating-point constant for a `.{}` operand", t.name())),
        _ => None,
    };
    match refusal {
        Some(message) => Err(Diagnostic::error(message, e.span())),
        None => Ok(constant(value, e)),
    }
}

fn constant(value: Value, e: &Expr) -> CheckedOperand {
    match value {
        Value::Int(v) => CheckedOperand::Int(v),
        Value::Float(value) => CheckedOperand::Float {
            value,
            single: single_literal(e),
        },
    }
}

fn single_literal(e: &Expr) -> bool {
    match e {
        Expr::Float { single, .. } => *single,
        Expr::Unary { arg, .. } => single_literal(arg),
        _ => false,
    }
}

/// `{a, b, ...}`: a vector load/store/move, an `ldmatrix` fragment, or a packing `mov`.
fn vector(
    body: &Body<'_>,
    w: &Want<'_>,
    items: &[Operand],
    span: Span,
    dest: bool,
) -> Result<CheckedOperand, Diagnostic> {
    let n = items.len() as u32;
    let expected = match w.spec.op {
        _ if w.count.is_some() => w.count,
        Opcode::Ldmatrix | Opcode::Stmatrix => ["x1", "x2", "x4"]
            .iter()
            .position(|x| w.mods.has_flag(x))
            .map(|i| 1u32 << i),
        _ => w.mods.vector.map(u32::from),
    };
    if n == 1 && expected.is_none() {
        // `{%r1}` without `.v1` (LLVM writes it in Triton's inline assembly): ptxas reads a
        // one-element vector as its element.
        return if dest {
            destination(body, w, &items[0])
        } else {
            source(body, w, &items[0])
        };
    }
    let elem_want = match (expected, w.ty) {
        (Some(e), _) if e == n => w.ty,
        (None, Some(t)) if w.spec.op == Opcode::Mov && n > 1 && t.size() % n == 0 => None,
        _ => {
            let message = match expected {
                Some(e) => format!("`{}` expects a vector of {e} here, found {n}", w.spec.name),
                None => format!("a vector operand of `{}` needs `.v{n}`", w.spec.name),
            };
            return Err(Diagnostic::error(message, span));
        }
    };
    let packing = elem_want.is_none() && w.ty.is_some();
    let elem = Want { ty: elem_want, ..*w };
    let mut out = Vec::with_capacity(items.len());
    let mut bits = 0;
    for item in items {
        let checked = if dest {
            destination(body, &elem, item)?
        } else {
            source(body, &elem, item)?
        };
        if packing {
            bits += match &checked {
                CheckedOperand::Reg(r) => body.regs[r.0 as usize].ty.size(),
                _ => w.ty.map_or(0, |t| t.size() / n),
            };
        }
        out.push(checked);
    }
    if let (true, Some(t)) = (packing, w.ty)
        && bits != t.size()
    {
        let message = format!(
            "the elements of this vector are {bits} bytes together, `.{}` is {}",
            t.name(),
            t.size()
        );
        return Err(Diagnostic::error(message, span));
    }
    Ok(CheckedOperand::Vector(out))
}

fn address(body: &Body<'_>, w: &Want<'_>, a: &Address) -> Result<CheckedOperand, Diagnostic> {
    let Some(base) = &a.base else {
        return Ok(CheckedOperand::Address {
            base: AddrBase::Absolute,
            offset: a.offset,
        });
    };
    let base = match body.resolve(base)? {
        Resolved::Reg(r) => {
            let info = &body.regs[r.0 as usize];
            if info.vector > 1 || !matches!(info.ty.size(), 4 | 8) || info.ty.is_float() {
                let message = format!("`{}` cannot hold an address (it is `.{}`)", base.name, info.ty.name());
                return Err(Diagnostic::error(message, base.span));
            }
            AddrBase::Reg(r)
        }
        Resolved::Var(v) => {
            let var = &body.vars[v.0 as usize];
            if matches!(w.spec.op, Opcode::St | Opcode::Atom | Opcode::Red) && body.kernel_params.contains(&v) {
                let message = format!("kernel parameter `{}` is read-only", base.name);
                return Err(Diagnostic::error(message, base.span));
            }
            if let Some(space) = w.mods.space
                && !reaches(space, var.space)
                && var.space != StateSpace::Generic
            {
                let message = format!("`{}` is in `.{}`, not `.{}`", base.name, var.space.name(), space.name());
                return Err(Diagnostic::error(message, base.span));
            }
            AddrBase::Var(v)
        }
        _ => {
            return Err(Diagnostic::error(
                format!("`{}` is not a register or variable", base.name),
                base.span,
            ));
        }
    };
    Ok(CheckedOperand::Address { base, offset: a.offset })
}
