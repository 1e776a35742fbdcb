//! Helpers for the grammar's actions: building AST nodes from tokens and checking what the
//! grammar alone cannot (attribute order, literal ranges, address shapes).

use crate::ast::*;
use crate::lexer::Tok;
use crate::literal;
use lalrpop_util::ParseError;

/// An error found while building a node: a message at a span.
#[derive(Clone, Debug, PartialEq)]
pub struct SyntaxError {
    /// Where.
    pub span: Span,
    /// What.
    pub message: String,
}

/// What a fallible grammar action returns.
pub type PResult<'a, T> = Result<T, ParseError<usize, Tok<'a>, SyntaxError>>;

fn fail<'a, T>(span: Span, message: impl Into<String>) -> PResult<'a, T> {
    Err(ParseError::User {
        error: SyntaxError {
            span,
            message: message.into(),
        },
    })
}

/// The span `l..r`.
pub fn span(l: usize, r: usize) -> Span {
    Span::new(l, r)
}

/// An identifier token.
pub fn ident(name: &str, l: usize, r: usize) -> Ident {
    Ident {
        name: name.to_string(),
        span: span(l, r),
    }
}

/// The type of a `.u32`-like token (the lexer only makes these for valid type names).
pub fn scalar_type(text: &str) -> ScalarType {
    ScalarType::from_name(text.trim_start_matches('.')).unwrap_or(ScalarType::B8)
}

/// The numbers of a fused `.loc FILE LINE COL` (checked to fit when it was fused).
pub fn loc_numbers(text: &str) -> (u32, u32, u32) {
    let mut numbers = text
        .split_ascii_whitespace()
        .skip(1)
        .map(|n| literal::parse_int(n).map_or(0, |(v, _)| v as u32));
    let mut next = || numbers.next().unwrap_or(0);
    (next(), next(), next())
}

/// A string literal without its quotes (escapes are kept as written).
pub fn unquote(text: &str) -> String {
    text.get(1..text.len().saturating_sub(1))
        .unwrap_or_default()
        .to_string()
}

/// A non-negative integer that fits in 32 bits (counts, sizes, alignments).
pub fn uint<'a>(text: &str, l: usize, r: usize) -> PResult<'a, u32> {
    match literal::parse_int(text) {
        Ok((v, _)) => u32::try_from(v).or_else(|_| fail(span(l, r), format!("`{text}` is too large here"))),
        Err(message) => fail(span(l, r), message),
    }
}

/// `.version major.minor` (the lexer sees `7.0` as a float).
pub fn version<'a>(text: &str, l: usize, r: usize) -> PResult<'a, (u32, u32)> {
    let parsed = text
        .split_once('.')
        .and_then(|(major, minor)| Some((major.parse().ok()?, minor.parse().ok()?)));
    match parsed {
        Some(v) => Ok(v),
        None => fail(span(l, r), format!("malformed version `{text}`, expected MAJOR.MINOR")),
    }
}

/// An integer literal expression.
pub fn int<'a>(text: &str, l: usize, r: usize) -> PResult<'a, Expr> {
    match literal::parse_int(text) {
        Ok((value, unsigned)) => Ok(Expr::Int {
            value,
            unsigned,
            span: span(l, r),
        }),
        Err(message) => fail(span(l, r), message),
    }
}

/// A float literal expression.
pub fn float<'a>(text: &str, l: usize, r: usize) -> PResult<'a, Expr> {
    match literal::parse_float(text) {
        Ok((value, single)) => Ok(Expr::Float {
            value,
            single,
            span: span(l, r),
        }),
        Err(message) => fail(span(l, r), message),
    }
}

/// Folds `first (op operand)*` into a tree by C precedence (all operators left-associative).
pub fn climb(first: Expr, rest: Vec<(&'static str, Expr)>) -> Expr {
    let mut rest = rest.into_iter().peekable();
    climb_from(first, &mut rest, 0)
}

fn precedence(op: &str) -> u8 {
    match op {
        "|" => 1,
        "^" => 2,
        "&" => 3,
        "<<" | ">>" => 4,
        "+" | "-" => 5,
        _ => 6,
    }
}

fn climb_from<I>(mut lhs: Expr, rest: &mut std::iter::Peekable<I>, min: u8) -> Expr
where
    I: Iterator<Item = (&'static str, Expr)>,
{
    while let Some(&(op, _)) = rest.peek() {
        let level = precedence(op);
        if level < min {
            break;
        }
        let (_, mut rhs) = rest.next().expect("peeked");
        while let Some(&(next, _)) = rest.peek() {
            if precedence(next) <= level {
                break;
            }
            rhs = climb_from(rhs, rest, level + 1);
        }
        let span = lhs.span().to(rhs.span());
        lhs = Expr::Binary {
            op: op.to_string(),
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
            span,
        };
    }
    lhs
}

/// `op arg`.
pub fn unary(op: char, arg: Expr, l: usize, r: usize) -> Expr {
    Expr::Unary {
        op,
        arg: Box::new(arg),
        span: span(l, r),
    }
}

/// `generic(name)`; `keyword` must be `generic`.
pub fn generic<'a>(keyword: Ident, name: Ident) -> PResult<'a, Expr> {
    if keyword.name == "generic" {
        Ok(Expr::Generic(name))
    } else {
        fail(
            keyword.span,
            format!("unexpected `{}(`: only `generic(...)` takes an argument", keyword.name),
        )
    }
}

/// The tail `, function_name NAME, inlined_at FILE LINE COL` of a `.loc`.
pub fn inlined_at<'a>(
    fn_kw: Ident,
    function_name: Ident,
    at_kw: Ident,
    file: u32,
    line: u32,
    col: u32,
) -> PResult<'a, InlinedAt> {
    if fn_kw.name != "function_name" {
        return fail(fn_kw.span, format!("expected `function_name`, found `{}`", fn_kw.name));
    }
    if at_kw.name != "inlined_at" {
        return fail(at_kw.span, format!("expected `inlined_at`, found `{}`", at_kw.name));
    }
    Ok(InlinedAt {
        function_name,
        file,
        line,
        col,
    })
}

/// An attribute written around the type of a declaration or parameter.
#[derive(Clone, Debug)]
pub enum Attr {
    /// `.align N`
    Align(u32, Span),
    /// `.ptr`
    Ptr(Span),
    /// `.global`, `.shared`, ... (after `.ptr`)
    Space(StateSpace, Span),
    /// `.v2`, `.v4`, `.v8`
    Vector(u32, Span),
}

/// The attributes of one declaration, sorted out.
#[derive(Default)]
struct Attrs {
    align: Option<u32>,
    vector: Option<u32>,
    ptr: Option<(Option<StateSpace>, Option<u32>)>,
}

fn sort_attrs<'a>(attrs: Vec<Attr>, allow_ptr: bool) -> PResult<'a, Attrs> {
    let mut out = Attrs::default();
    for attr in attrs {
        match attr {
            Attr::Align(n, sp) => {
                if !n.is_power_of_two() {
                    return fail(sp, format!("alignment {n} is not a power of two"));
                }
                let slot = match &mut out.ptr {
                    Some((_, align)) => align,
                    None => &mut out.align,
                };
                if slot.replace(n).is_some() {
                    return fail(sp, "`.align` written twice");
                }
            }
            Attr::Ptr(sp) if !allow_ptr => {
                return fail(sp, "`.ptr` is only allowed on kernel parameters");
            }
            Attr::Ptr(sp) if out.ptr.is_some() => return fail(sp, "`.ptr` written twice"),
            Attr::Ptr(_) => out.ptr = Some((None, None)),
            Attr::Space(space, sp) => match &mut out.ptr {
                Some((slot @ None, None)) => *slot = Some(space),
                Some(_) => {
                    return fail(sp, "the state space of `.ptr` must come before its `.align`, once");
                }
                None => {
                    return fail(
                        sp,
                        format!("unexpected `.{}`: a declaration has one state space", space.name()),
                    );
                }
            },
            Attr::Vector(n, sp) => {
                if out.vector.replace(n).is_some() {
                    return fail(sp, "vector width written twice");
                }
            }
        }
    }
    Ok(out)
}

/// A function parameter or return value.
pub fn param<'a>(
    space: StateSpace,
    mut pre: Vec<Attr>,
    ty: ScalarType,
    post: Vec<Attr>,
    name: Ident,
    dims: Vec<Option<u32>>,
    span: Span,
) -> PResult<'a, Box<Param>> {
    pre.extend(post);
    let attrs = sort_attrs(pre, space == StateSpace::Param)?;
    let mut array = Vec::with_capacity(dims.len());
    for dim in dims {
        match dim {
            Some(n) => array.push(n),
            None => {
                return fail(name.span, format!("parameter `{}` needs an array size", name.name));
            }
        }
    }
    Ok(Box::new(Param {
        name,
        space,
        ty,
        align: attrs.align,
        vector: attrs.vector,
        array,
        ptr: attrs.ptr,
        span,
    }))
}

/// A variable declaration.
pub fn decl<'a>(
    linkage: Linkage,
    space: StateSpace,
    mut pre: Vec<Attr>,
    ty: ScalarType,
    post: Vec<Attr>,
    names: Vec<VarName>,
    span: Span,
) -> PResult<'a, VarDecl> {
    pre.extend(post);
    let attrs = sort_attrs(pre, false)?;
    Ok(VarDecl {
        space,
        linkage,
        ty,
        align: attrs.align,
        vector: attrs.vector,
        names,
        span,
    })
}

/// Everything the grammar collects for a function.
pub struct FunctionParts {
    /// Linkage.
    pub linkage: Linkage,
    /// `.entry`?
    pub is_entry: bool,
    /// The `.entry`/`.func` keyword.
    pub kind_span: Span,
    /// Return parameter list, if written.
    pub returns: Option<Vec<Param>>,
    /// Name.
    pub name: Ident,
    /// Parameters.
    pub params: Vec<Param>,
    /// Performance directives.
    pub directives: Vec<PerfDirective>,
    /// Body.
    pub body: Option<Vec<Statement>>,
    /// Whole function.
    pub span: Span,
}

/// A function from its parts.
pub fn function<'a>(p: FunctionParts) -> PResult<'a, Box<Function>> {
    if p.is_entry && p.returns.is_some() {
        return fail(p.kind_span, "a kernel (`.entry`) cannot have return values");
    }
    Ok(Box::new(Function {
        name: p.name,
        is_entry: p.is_entry,
        linkage: p.linkage,
        returns: p.returns.unwrap_or_default(),
        params: p.params,
        directives: p.directives,
        body: p.body,
        span: p.span,
    }))
}

/// An operand written as an expression: a name, `!p`, `-x`, `p|q`, `_` or an immediate.
pub fn operand_from_expr(e: Expr) -> Operand {
    match e {
        Expr::Symbol(i) if i.name == "_" => Operand::Sink(i.span),
        Expr::Symbol(i) => Operand::Name(i),
        Expr::Unary { op: '!', arg, span } => match *arg {
            Expr::Symbol(i) => Operand::Not(i),
            arg => Operand::Imm(Expr::Unary {
                op: '!',
                arg: Box::new(arg),
                span,
            }),
        },
        Expr::Unary { op: '-', arg, span } => match *arg {
            Expr::Symbol(i) => Operand::Neg(Box::new(Operand::Name(i))),
            arg => Operand::Imm(Expr::Unary {
                op: '-',
                arg: Box::new(arg),
                span,
            }),
        },
        Expr::Binary { op, lhs, rhs, span } => match (op.as_str(), *lhs, *rhs) {
            ("|", Expr::Symbol(a), Expr::Symbol(b)) => Operand::PredPair(a, b),
            (_, lhs, rhs) => Operand::Imm(Expr::Binary {
                op,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
                span,
            }),
        },
        e => Operand::Imm(e),
    }
}

/// `[expr]` as base + constant offset.
pub fn address<'a>(e: Expr, span: Span) -> PResult<'a, Address> {
    match split_address(&e) {
        Some((base, offset)) => Ok(Address { base, offset, span }),
        None => fail(e.span(), "an address must be `[name]`, `[name+offset]` or `[constant]`"),
    }
}

fn split_address(e: &Expr) -> Option<(Option<Ident>, i64)> {
    match e {
        Expr::Symbol(i) => Some((Some(i.clone()), 0)),
        Expr::Binary { op, lhs, rhs, .. } if op == "+" => {
            let (lb, lo) = split_address(lhs)?;
            let (rb, ro) = split_address(rhs)?;
            let base = match (lb, rb) {
                (Some(_), Some(_)) => return None,
                (b, None) | (None, b) => b,
            };
            Some((base, lo.wrapping_add(ro)))
        }
        Expr::Binary { op, lhs, rhs, .. } if op == "-" => {
            let (base, lo) = split_address(lhs)?;
            Some((base, lo.wrapping_sub(const_value(rhs)?)))
        }
        _ => Some((None, const_value(e)?)),
    }
}

/// The value of a constant integer expression (wrapping 64-bit arithmetic), if it is one.
pub fn const_value(e: &Expr) -> Option<i64> {
    Some(match e {
        Expr::Int { value, .. } => *value as i64,
        Expr::Unary { op, arg, .. } => {
            let v = const_value(arg)?;
            match op {
                '-' => v.wrapping_neg(),
                '~' => !v,
                _ => (v == 0) as i64,
            }
        }
        Expr::Binary { op, lhs, rhs, .. } => {
            let (a, b) = (const_value(lhs)?, const_value(rhs)?);
            match op.as_str() {
                "+" => a.wrapping_add(b),
                "-" => a.wrapping_sub(b),
                "*" => a.wrapping_mul(b),
                "/" => a.checked_div(b)?,
                "%" => a.checked_rem(b)?,
                "&" => a & b,
                "|" => a | b,
                "^" => a ^ b,
                "<<" => a.wrapping_shl(b as u32),
                _ => a.wrapping_shr(b as u32),
            }
        }
        _ => return None,
    })
}
