//! Sizes, alignments and initial bytes: the parameter block layout (natural alignment, offsets
//! from 0) and [`VarInfo`] for every declared variable.

use crate::ast::{Expr, Initializer, Param, ScalarType, Span, StateSpace, VarDecl, VarName};
use crate::checked::{VarId, VarInfo};
use crate::diag::Diagnostic;
use crate::literal;
use crate::syntax::const_value;

/// Size in bytes of a parameter.
pub fn param_size(p: &Param) -> u64 {
    let elems: u64 = p.array.iter().map(|&n| n as u64).product();
    p.ty.size() as u64 * p.vector.unwrap_or(1) as u64 * elems
}

/// Alignment of a parameter (written or natural).
pub fn param_align(p: &Param) -> u32 {
    p.align.unwrap_or(p.ty.size() * p.vector.unwrap_or(1)).max(1)
}

/// Where a kernel's parameters start in constant bank 0 for a `.target` of sm_`target_sm`
/// (0x160 before Hopper, 0x210 on it). ptxas 13.5 aligns each parameter's place in the bank,
/// not its offset in the block: `.param .align 64 .b8 m[128]` after a `.u64` sits at offset
/// 0x20 for sm_80 and 0x30 for sm_90 (its `EIATTR_KPARAM_INFO`), so that a parameter's generic
/// address (`cvta.param`, `c[0x0][0x198]` plus the offset on Hopper) keeps its alignment, which
/// TMA's tensor maps need.
pub fn kernel_param_base(target_sm: u32) -> u64 {
    if target_sm >= 90 { 0x210 } else { 0x160 }
}

/// `(offset, size, align)` of each parameter, laid out in order from offset 0, which lies at
/// `base` (a kernel's [`kernel_param_base`], 0 for a function's parameters): each parameter
/// aligned at `base + offset`.
pub fn layout(params: &[Param], base: u64) -> Vec<(u32, u32, u32)> {
    let mut offset = 0u64;
    params
        .iter()
        .map(|p| {
            let align = param_align(p) as u64;
            offset = (base + offset).div_ceil(align) * align - base;
            let size = param_size(p);
            let at = offset;
            offset += size;
            (
                at.min(u32::MAX as u64) as u32,
                size.min(u32::MAX as u64) as u32,
                align as u32,
            )
        })
        .collect()
}

/// The variable a parameter is in the `.param` space.
pub fn param_var(p: &Param, size: u32, align: u32) -> VarInfo {
    VarInfo {
        name: p.name.name.clone(),
        space: StateSpace::Param,
        ty: p.ty,
        size: size as u64,
        align,
        init: None,
        init_relocs: Vec::new(),
        is_extern: false,
        span: p.span,
    }
}

/// What a name used in an initialiser is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitTarget {
    /// A variable (its address is relocated).
    Var(VarId),
    /// A device function (its address is [`crate::checked::function_address`]).
    Func,
}

/// Resolves a name used in an initialiser.
pub type ResolveVar<'a> = &'a dyn Fn(&str) -> Option<InitTarget>;

const MAX_VAR_BYTES: u64 = 1 << 32;
/// Largest variable with an initialiser (its bytes are built in memory).
const MAX_INIT_BYTES: u64 = 1 << 28;

/// The [`VarInfo`] of one declared name of `decl`.
pub fn var_info(decl: &VarDecl, name: &VarName, resolve: ResolveVar<'_>) -> Result<VarInfo, Diagnostic> {
    let elem = decl.ty.size() as u64 * decl.vector.unwrap_or(1) as u64;
    let mut count: u64 = 1;
    let mut open_dim = false;
    for dim in &name.array {
        match dim {
            Some(n) => count = count.saturating_mul(*n as u64),
            None => open_dim = true,
        }
    }
    let mut init_values = Vec::new();
    if let Some(init) = &name.init {
        flatten(init, &name.array, &mut init_values)?;
        if open_dim {
            let inner: u64 = name.array.iter().skip(1).map(|d| d.unwrap_or(1) as u64).product();
            count = (init_values.len() as u64).div_ceil(inner.max(1)) * inner.max(1);
        } else if init_values.len() as u64 > count * decl.vector.unwrap_or(1) as u64 {
            return Err(Diagnostic::error(
                format!(
                    "too many initialisers for `{}` ({} for {count} elements)",
                    name.name.name,
                    init_values.len()
                ),
                name.name.span,
            ));
        }
    } else if open_dim {
        if decl.linkage != crate::ast::Linkage::Extern {
            return Err(Diagnostic::error(
                format!("`{}[]` needs a size, an initialiser or `.extern`", name.name.name),
                name.name.span,
            ));
        }
        count = 0;
    }
    let size = elem.saturating_mul(count);
    if size > MAX_VAR_BYTES {
        return Err(Diagnostic::error(
            format!("`{}` is larger than 4 GiB", name.name.name),
            name.name.span,
        ));
    }
    let mut info = VarInfo {
        name: name.name.name.clone(),
        space: decl.space,
        ty: decl.ty,
        size,
        align: decl.align.unwrap_or(elem as u32).max(1),
        init: None,
        init_relocs: Vec::new(),
        is_extern: decl.linkage == crate::ast::Linkage::Extern,
        span: name.name.span,
    };
    if name.init.is_some() && size > MAX_INIT_BYTES {
        let message = format!("`{}` is too large to initialise (over 256 MiB)", name.name.name);
        return Err(Diagnostic::error(message, name.name.span));
    }
    if name.init.is_some() {
        let mut bytes = vec![0u8; size as usize];
        let width = decl.ty.size() as usize;
        for (i, value) in init_values.iter().enumerate() {
            let at = i * width;
            encode(
                value,
                decl.ty,
                &mut bytes[at..at + width],
                at as u64,
                resolve,
                &mut info.init_relocs,
            )?;
        }
        info.init = Some(bytes);
    }
    Ok(info)
}

/// Flattens a (nested) initialiser list in row-major order, padding short inner lists.
fn flatten<'e>(init: &'e Initializer, dims: &[Option<u32>], out: &mut Vec<&'e Expr>) -> Result<(), Diagnostic> {
    match init {
        Initializer::Scalar(e) => out.push(e),
        Initializer::List(items) => {
            let inner = dims.get(1..).unwrap_or(&[]);
            let inner_count: u64 = inner.iter().map(|d| d.unwrap_or(1) as u64).product();
            for item in items {
                let start = out.len();
                flatten(item, inner, out)?;
                if matches!(item, Initializer::List(_)) && !inner.is_empty() {
                    let written = (out.len() - start) as u64;
                    if written > inner_count {
                        return Err(Diagnostic::error(
                            "too many initialisers in a nested list",
                            expr_span(item),
                        ));
                    }
                    let pad = (inner_count - written) as usize;
                    out.extend(std::iter::repeat_n(&ZERO, pad));
                }
            }
        }
    }
    Ok(())
}

static ZERO: Expr = Expr::Int {
    value: 0,
    unsigned: false,
    span: Span { start: 0, end: 0 },
};

fn expr_span(init: &Initializer) -> Span {
    match init {
        Initializer::Scalar(e) => e.span(),
        Initializer::List(items) => items.first().map(expr_span).unwrap_or_default(),
    }
}

/// Writes one initial value of type `ty` into `out` (little-endian).
fn encode(
    e: &Expr,
    ty: ScalarType,
    out: &mut [u8],
    offset: u64,
    resolve: ResolveVar<'_>,
    relocs: &mut Vec<(u64, VarId, bool)>,
) -> Result<(), Diagnostic> {
    if let Some((name, generic, addend)) = address_of(e) {
        let var = match resolve(&name.name) {
            Some(InitTarget::Var(var)) => var,
            Some(InitTarget::Func) if out.len() == 8 => {
                write_int(
                    out,
                    crate::checked::function_address(&name.name).wrapping_add(addend as u64),
                );
                return Ok(());
            }
            Some(InitTarget::Func) => {
                return Err(Diagnostic::error("a function address needs a 64-bit element", e.span()));
            }
            None => {
                return Err(Diagnostic::error(
                    format!("`{}` is not a variable or function", name.name),
                    name.span,
                ));
            }
        };
        if out.len() < 4 {
            return Err(Diagnostic::error("an address needs a 32- or 64-bit element", e.span()));
        }
        relocs.push((offset, var, generic));
        write_int(out, addend as u64);
        return Ok(());
    }
    let value = super::consteval::eval(e)?;
    match (value, ty) {
        (super::consteval::Value::Int(v), t) if !t.is_float() => write_int(out, v as u64),
        (super::consteval::Value::Int(v), t) => write_float(out, v as f64, t, e.span())?,
        (super::consteval::Value::Float(v), t) if t.is_float() => write_float(out, v, t, e.span())?,
        (super::consteval::Value::Float(_), t) => {
            return Err(Diagnostic::error(
                format!("floating-point initialiser for a `.{}` variable", t.name()),
                e.span(),
            ));
        }
    }
    Ok(())
}

/// `x`, `generic(x)`, `x + 4`: the variable, whether generic, and the addend.
fn address_of(e: &Expr) -> Option<(&crate::ast::Ident, bool, i64)> {
    match e {
        Expr::Symbol(i) => Some((i, false, 0)),
        Expr::Generic(i) => Some((i, true, 0)),
        Expr::Binary { op, lhs, rhs, .. } if op == "+" || op == "-" => {
            let (name, generic, addend) = address_of(lhs)?;
            let k = const_value(rhs)?;
            Some((
                name,
                generic,
                if op == "+" {
                    addend.wrapping_add(k)
                } else {
                    addend.wrapping_sub(k)
                },
            ))
        }
        _ => None,
    }
}

fn write_int(out: &mut [u8], v: u64) {
    let bytes = v.to_le_bytes();
    let n = out.len().min(8);
    out[..n].copy_from_slice(&bytes[..n]);
}

fn write_float(out: &mut [u8], v: f64, ty: ScalarType, span: Span) -> Result<(), Diagnostic> {
    match ty {
        ScalarType::F32 => out.copy_from_slice(&literal::f64_to_f32_bits(v).to_le_bytes()),
        ScalarType::F64 => out.copy_from_slice(&v.to_bits().to_le_bytes()),
        _ => {
            return Err(Diagnostic::error(
                format!(
                    "floating-point initialisers of `.{}` variables are not supported",
                    ty.name()
                ),
                span,
            ));
        }
    }
    Ok(())
}
