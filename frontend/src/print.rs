//! Pretty-printer: PTX text from a syntax tree. Printing then parsing gives back an equal tree
//! (spans aside): literals are printed exactly (floats as `0f`/`0d` bit patterns), expressions
//! with the parentheses their shape needs, opaque directives as written. The output is also
//! valid input for ptxas (negative address offsets are written `[%rd+-8]`, as ptxas wants).

use crate::ast::*;
use crate::literal;
use std::fmt::{self, Write};

/// The PTX text of a module.
pub fn module(m: &Module) -> String {
    m.to_string()
}

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, ".version {}.{}", self.version.0, self.version.1)?;
        let targets: Vec<&str> = self.target.iter().map(|t| t.name.as_str()).collect();
        writeln!(f, ".target {}", targets.join(", "))?;
        writeln!(f, ".address_size {}", self.address_size)?;
        for item in &self.items {
            writeln!(f)?;
            write_item(f, item)?;
        }
        Ok(())
    }
}

fn write_item(f: &mut fmt::Formatter<'_>, item: &Item) -> fmt::Result {
    match item {
        Item::Function(func) => write_function(f, func),
        Item::Variable(d) => {
            write_decl(f, d)?;
            writeln!(f, ";")
        }
        Item::File { index, name, .. } => writeln!(f, ".file {index} \"{name}\""),
        Item::Opaque { directive, .. } => writeln!(f, "{directive}"),
    }
}

fn linkage(l: Linkage) -> &'static str {
    match l {
        Linkage::Default => "",
        Linkage::Visible => ".visible ",
        Linkage::Extern => ".extern ",
        Linkage::Weak => ".weak ",
        Linkage::Common => ".common ",
    }
}

fn write_function(f: &mut fmt::Formatter<'_>, func: &Function) -> fmt::Result {
    write!(
        f,
        "{}{}",
        linkage(func.linkage),
        if func.is_entry { ".entry " } else { ".func " }
    )?;
    if !func.returns.is_empty() {
        write_params(f, &func.returns)?;
        f.write_char(' ')?;
    }
    write!(f, "{}", func.name)?;
    write_params(f, &func.params)?;
    for d in &func.directives {
        f.write_char('\n')?;
        write_directive(f, d)?;
    }
    match &func.body {
        None => writeln!(f, ";"),
        Some(body) => {
            writeln!(f, "\n{{")?;
            write_statements(f, body, 1)?;
            writeln!(f, "}}")
        }
    }
}

fn write_params(f: &mut fmt::Formatter<'_>, params: &[Param]) -> fmt::Result {
    f.write_char('(')?;
    for (i, p) in params.iter().enumerate() {
        f.write_str(if i == 0 { "\n\t" } else { ",\n\t" })?;
        write_param(f, p)?;
    }
    f.write_str(if params.is_empty() { ")" } else { "\n)" })
}

fn write_param(f: &mut fmt::Formatter<'_>, p: &Param) -> fmt::Result {
    write!(f, ".{}", p.space.name())?;
    if let Some(a) = p.align {
        write!(f, " .align {a}")?;
    }
    if let Some(v) = p.vector {
        write!(f, " .v{v}")?;
    }
    write!(f, " .{}", p.ty.name())?;
    if let Some((space, align)) = p.ptr {
        f.write_str(" .ptr")?;
        if let Some(s) = space {
            write!(f, " .{}", s.name())?;
        }
        if let Some(a) = align {
            write!(f, " .align {a}")?;
        }
    }
    write!(f, " {}", p.name)?;
    for n in &p.array {
        write!(f, "[{n}]")?;
    }
    Ok(())
}

fn write_directive(f: &mut fmt::Formatter<'_>, d: &PerfDirective) -> fmt::Result {
    let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
    match d {
        PerfDirective::MaxNtid(v) => write!(f, ".maxntid {}", list(v)),
        PerfDirective::ReqNtid(v) => write!(f, ".reqntid {}", list(v)),
        PerfDirective::MinNctaPerSm(n) => write!(f, ".minnctapersm {n}"),
        PerfDirective::MaxNctaPerSm(n) => write!(f, ".maxnctapersm {n}"),
        PerfDirective::MaxNreg(n) => write!(f, ".maxnreg {n}"),
        PerfDirective::NoReturn => f.write_str(".noreturn"),
        PerfDirective::ReqNctaPerCluster(v) => write!(f, ".reqnctapercluster {}", list(v)),
        PerfDirective::MaxClusterRank(n) => write!(f, ".maxclusterrank {n}"),
        PerfDirective::ExplicitCluster => f.write_str(".explicitcluster"),
        PerfDirective::Pragma(p) => write!(f, ".pragma \"{p}\";"),
    }
}

fn write_decl(f: &mut fmt::Formatter<'_>, d: &VarDecl) -> fmt::Result {
    write!(f, "{}.{}", linkage(d.linkage), d.space.name())?;
    if let Some(a) = d.align {
        write!(f, " .align {a}")?;
    }
    if let Some(v) = d.vector {
        write!(f, " .v{v}")?;
    }
    write!(f, " .{}", d.ty.name())?;
    for (i, n) in d.names.iter().enumerate() {
        f.write_str(if i == 0 { " " } else { ", " })?;
        write!(f, "{}", n.name)?;
        if let Some(r) = n.range {
            write!(f, "<{r}>")?;
        }
        for dim in &n.array {
            match dim {
                Some(k) => write!(f, "[{k}]")?,
                None => f.write_str("[]")?,
            }
        }
        if let Some(init) = &n.init {
            f.write_str(" = ")?;
            write_init(f, init)?;
        }
    }
    Ok(())
}

fn write_init(f: &mut fmt::Formatter<'_>, init: &Initializer) -> fmt::Result {
    match init {
        Initializer::Scalar(e) => write_expr(f, e, 0),
        Initializer::List(items) => {
            f.write_char('{')?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write_init(f, item)?;
            }
            f.write_char('}')
        }
    }
}

fn indent(f: &mut fmt::Formatter<'_>, depth: usize) -> fmt::Result {
    for _ in 0..depth {
        f.write_char('\t')?;
    }
    Ok(())
}

fn write_statements(f: &mut fmt::Formatter<'_>, body: &[Statement], depth: usize) -> fmt::Result {
    for st in body {
        match st {
            Statement::Label(l) => writeln!(f, "{l}:")?,
            Statement::Block(inner, _) => {
                indent(f, depth)?;
                f.write_str("{\n")?;
                write_statements(f, inner, depth + 1)?;
                indent(f, depth)?;
                f.write_str("}\n")?;
            }
            other => {
                indent(f, depth)?;
                write_statement(f, other)?;
                f.write_char('\n')?;
            }
        }
    }
    Ok(())
}

fn write_statement(f: &mut fmt::Formatter<'_>, st: &Statement) -> fmt::Result {
    match st {
        Statement::Decl(d) => {
            write_decl(f, d)?;
            f.write_char(';')
        }
        Statement::Inst(i) => write!(f, "{i}"),
        Statement::Loc {
            file,
            line,
            col,
            inlined,
            ..
        } => {
            write!(f, ".loc {file} {line} {col}")?;
            if let Some(at) = inlined {
                let InlinedAt {
                    function_name,
                    file,
                    line,
                    col,
                } = at;
                write!(f, ", function_name {function_name}, inlined_at {file} {line} {col}")?;
            }
            Ok(())
        }
        Statement::Opaque { directive, .. } => f.write_str(directive),
        Statement::CallPrototype {
            name,
            returns,
            params,
            noreturn,
            ..
        } => {
            write!(f, "{name}: .callprototype ")?;
            if !returns.is_empty() {
                write_params(f, returns)?;
                f.write_char(' ')?;
            }
            f.write_str("_ ")?;
            write_params(f, params)?;
            if *noreturn {
                f.write_str(" .noreturn")?;
            }
            f.write_char(';')
        }
        Statement::Label(_) | Statement::Block(..) => Ok(()),
    }
}

impl fmt::Display for Instruction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(g) = &self.guard {
            write!(f, "@{}{} ", if g.negated { "!" } else { "" }, g.pred)?;
        }
        write!(f, "{}", self.opcode)?;
        for m in &self.modifiers {
            write!(f, ".{m}")?;
        }
        for (i, op) in self.operands.iter().enumerate() {
            f.write_str(if i == 0 { " " } else { ", " })?;
            write!(f, "{op}")?;
        }
        f.write_char(';')
    }
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Name(n) => write!(f, "{n}"),
            Operand::Component { base, component } => write!(f, "{base}.{component}"),
            Operand::Not(n) => write!(f, "!{n}"),
            Operand::Neg(o) => write!(f, "-{o}"),
            Operand::Imm(e) => write_expr(f, e, 0),
            Operand::Address(a) => write!(f, "{a}"),
            Operand::TensorAddress(a, coords, _) => {
                let map = a.to_string();
                write!(f, "{}, ", &map[..map.len() - 1])?;
                write_list(f, coords, '{', '}')?;
                f.write_char(']')
            }
            Operand::Vector(items, _) => write_list(f, items, '{', '}'),
            Operand::List(items, _) => write_list(f, items, '(', ')'),
            Operand::Sink(_) => f.write_char('_'),
            Operand::PredPair(a, b) => write!(f, "{a}|{b}"),
        }
    }
}

fn write_list(f: &mut fmt::Formatter<'_>, items: &[Operand], open: char, close: char) -> fmt::Result {
    f.write_char(open)?;
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{item}")?;
    }
    f.write_char(close)
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.base, self.offset) {
            (Some(b), 0) => write!(f, "[{b}]"),
            (Some(b), o) => write!(f, "[{b}+{o}]"),
            (None, o) => write!(f, "[{o}]"),
        }
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_expr(f, self, 0)
    }
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

/// Writes `e`, parenthesised if its operator binds less tightly than `min` requires.
fn write_expr(f: &mut fmt::Formatter<'_>, e: &Expr, min: u8) -> fmt::Result {
    match e {
        Expr::Int { value, unsigned, .. } => {
            write!(f, "{value}")?;
            if *unsigned {
                f.write_char('U')?;
            }
            Ok(())
        }
        Expr::Float { value, single, .. } => {
            let text = if *single {
                literal::f32_literal(*value)
            } else {
                literal::f64_literal(*value)
            };
            f.write_str(&text)
        }
        Expr::Symbol(i) => write!(f, "{i}"),
        Expr::Generic(i) => write!(f, "generic({i})"),
        Expr::Unary { op, arg, .. } => {
            f.write_char(*op)?;
            write_expr(f, arg, 7)
        }
        Expr::Binary { op, lhs, rhs, .. } => {
            let level = precedence(op);
            let paren = level < min;
            if paren {
                f.write_char('(')?;
            }
            write_expr(f, lhs, level)?;
            write!(f, " {op} ")?;
            write_expr(f, rhs, level + 1)?;
            if paren {
                f.write_char(')')?;
            }
            Ok(())
        }
    }
}
