//! The PTX syntax tree: what the parser produces, with a byte span on every node that a
//! diagnostic may point at. Names are kept as written; `sema` resolves them.

use std::fmt;

/// A half-open byte range `start..end` into the source text of one file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// A span from `start` to `end` (byte offsets).
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// An identifier with the place it was written.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ident {
    /// The name as written, e.g. `%r1`, `$L__BB0_2`, `saxpy_param_0`.
    pub name: String,
    /// Where it was written.
    pub span: Span,
}

impl fmt::Display for Ident {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

/// A whole `.ptx` file.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// `.version major.minor`.
    pub version: (u32, u32),
    /// `.target` entries as written (`sm_75`, `texmode_independent`, `debug`).
    pub target: Vec<Ident>,
    /// `.address_size` (64 if absent).
    pub address_size: u32,
    /// Module-level items in source order.
    pub items: Vec<Item>,
}

/// A module-level item.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// `.entry` or `.func`, with or without a body.
    Function(Function),
    /// A module-scope variable (`.global`, `.const`, `.shared`, ...).
    Variable(VarDecl),
    /// `.file N "name"` (kept for line information).
    File {
        /// The file number used by `.loc`.
        index: u32,
        /// The path as written (without quotes).
        name: String,
        /// The directive.
        span: Span,
    },
    /// `.section`, `.pragma` and other directives that are kept but do not change the code.
    Opaque {
        /// The directive's whole text as written.
        directive: String,
        /// The directive.
        span: Span,
    },
}

/// Linkage written before a function or variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Linkage {
    /// No linkage directive.
    Default,
    /// `.visible`
    Visible,
    /// `.extern`
    Extern,
    /// `.weak`
    Weak,
    /// `.common`
    Common,
}

/// A kernel (`.entry`) or device function (`.func`).
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// The function's name.
    pub name: Ident,
    /// `true` for `.entry`.
    pub is_entry: bool,
    /// Linkage directive.
    pub linkage: Linkage,
    /// Return parameters of a `.func` (`.func (.param .b32 r) f(...)`).
    pub returns: Vec<Param>,
    /// Parameters in order.
    pub params: Vec<Param>,
    /// Performance directives (`.maxntid`, `.reqntid`, `.minnctapersm`, `.maxnreg`, `.noreturn`,
    /// the cluster directives).
    pub directives: Vec<PerfDirective>,
    /// The body; `None` for a declaration (`.extern .func f(...);`).
    pub body: Option<Vec<Statement>>,
    /// The whole function.
    pub span: Span,
}

/// A performance-tuning directive on a function.
#[derive(Clone, Debug, PartialEq)]
pub enum PerfDirective {
    /// `.maxntid x[, y[, z]]`
    MaxNtid(Vec<u32>),
    /// `.reqntid x[, y[, z]]`
    ReqNtid(Vec<u32>),
    /// `.minnctapersm n`
    MinNctaPerSm(u32),
    /// `.maxnctapersm n`
    MaxNctaPerSm(u32),
    /// `.maxnreg n`
    MaxNreg(u32),
    /// `.noreturn`
    NoReturn,
    /// `.reqnctapercluster x[, y[, z]]` (sm_90): the cluster shape a launch must use.
    ReqNctaPerCluster(Vec<u32>),
    /// `.maxclusterrank n` (sm_90): at most `n` CTAs per cluster.
    MaxClusterRank(u32),
    /// `.explicitcluster` (sm_90): the kernel must be launched with a cluster shape.
    ExplicitCluster,
    /// `.pragma "..."` attached to a function.
    Pragma(String),
}

/// A function parameter or return value.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// Its name.
    pub name: Ident,
    /// `.param` or `.reg` (device functions may take `.reg` parameters).
    pub space: StateSpace,
    /// Element type.
    pub ty: ScalarType,
    /// `.align N` if written.
    pub align: Option<u32>,
    /// `.v2`/`.v4` vector parameters (`.reg .v2 .u32 x`).
    pub vector: Option<u32>,
    /// Array dimensions (`.param .b8 s[16]`).
    pub array: Vec<u32>,
    /// `.ptr .global .align N` attributes: the pointed-to state space and alignment.
    pub ptr: Option<(Option<StateSpace>, Option<u32>)>,
    /// Where it was declared.
    pub span: Span,
}

/// A PTX fundamental type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum ScalarType {
    Pred,
    B8,
    B16,
    B32,
    B64,
    B128,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    F32,
    F64,
    Bf16,
    Bf16x2,
    Tf32,
}

impl ScalarType {
    /// Size in bytes (`.pred` counts as 1 byte in memory, as in the PTX ISA).
    pub fn size(self) -> u32 {
        use ScalarType::*;
        match self {
            Pred | B8 | U8 | S8 => 1,
            B16 | U16 | S16 | F16 | Bf16 => 2,
            B32 | U32 | S32 | F32 | F16x2 | Bf16x2 | Tf32 => 4,
            B64 | U64 | S64 | F64 => 8,
            B128 => 16,
        }
    }

    /// True for `.sN`.
    pub fn is_signed(self) -> bool {
        matches!(
            self,
            ScalarType::S8 | ScalarType::S16 | ScalarType::S32 | ScalarType::S64
        )
    }

    /// True for floating-point types (incl. packed f16x2).
    pub fn is_float(self) -> bool {
        use ScalarType::*;
        matches!(self, F16 | F16x2 | F32 | F64 | Bf16 | Bf16x2 | Tf32)
    }

    /// The spelling without the dot, e.g. `u32`.
    pub fn name(self) -> &'static str {
        use ScalarType::*;
        match self {
            Pred => "pred",
            B8 => "b8",
            B16 => "b16",
            B32 => "b32",
            B64 => "b64",
            B128 => "b128",
            U8 => "u8",
            U16 => "u16",
            U32 => "u32",
            U64 => "u64",
            S8 => "s8",
            S16 => "s16",
            S32 => "s32",
            S64 => "s64",
            F16 => "f16",
            F16x2 => "f16x2",
            F32 => "f32",
            F64 => "f64",
            Bf16 => "bf16",
            Bf16x2 => "bf16x2",
            Tf32 => "tf32",
        }
    }

    /// Parses a spelling without the dot.
    pub fn from_name(s: &str) -> Option<ScalarType> {
        use ScalarType::*;
        Some(match s {
            "pred" => Pred,
            "b8" => B8,
            "b16" => B16,
            "b32" => B32,
            "b64" => B64,
            "b128" => B128,
            "u8" => U8,
            "u16" => U16,
            "u32" => U32,
            "u64" => U64,
            "s8" => S8,
            "s16" => S16,
            "s32" => S32,
            "s64" => S64,
            "f16" => F16,
            "f16x2" => F16x2,
            "f32" => F32,
            "f64" => F64,
            "bf16" => Bf16,
            "bf16x2" => Bf16x2,
            "tf32" => Tf32,
            _ => return None,
        })
    }
}

/// A PTX state space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum StateSpace {
    Reg,
    Sreg,
    Const,
    Global,
    Local,
    Param,
    Shared,
    /// `.shared::cluster` (sm_90): the shared memory of every CTA of the cluster, named by
    /// a 32-bit address whose bits 24..31 are the CTA's rank in its cluster. Only an
    /// instruction's space, never a declaration's.
    SharedCluster,
    /// No space written: a generic address.
    Generic,
}

impl StateSpace {
    /// The spelling without the dot (`generic` for [`StateSpace::Generic`]).
    pub fn name(self) -> &'static str {
        match self {
            StateSpace::Reg => "reg",
            StateSpace::Sreg => "sreg",
            StateSpace::Const => "const",
            StateSpace::Global => "global",
            StateSpace::Local => "local",
            StateSpace::Param => "param",
            StateSpace::Shared => "shared",
            StateSpace::SharedCluster => "shared::cluster",
            StateSpace::Generic => "generic",
        }
    }
}

/// A variable declaration (`.reg`, `.local`, `.shared`, `.global`, `.const`, `.param` in a body).
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    /// State space.
    pub space: StateSpace,
    /// Linkage (module scope only).
    pub linkage: Linkage,
    /// Element type.
    pub ty: ScalarType,
    /// `.align N`.
    pub align: Option<u32>,
    /// `.v2`/`.v4` vector variables.
    pub vector: Option<u32>,
    /// The declared names.
    pub names: Vec<VarName>,
    /// Where it was declared.
    pub span: Span,
}

/// One declared name: `%r<10>` (a range), `buf[256]` (an array), `x = 5` (initialised).
#[derive(Clone, Debug, PartialEq)]
pub struct VarName {
    /// Base name.
    pub name: Ident,
    /// `Some(n)` for the parameterised form `%r<n>` declaring `%r0 .. %r{n-1}`.
    pub range: Option<u32>,
    /// Array dimensions; an empty dimension (`[]`) is `None` (extern arrays, sized initialisers).
    pub array: Vec<Option<u32>>,
    /// Initialiser.
    pub init: Option<Initializer>,
}

/// A variable initialiser.
#[derive(Clone, Debug, PartialEq)]
pub enum Initializer {
    /// A scalar constant expression.
    Scalar(Expr),
    /// `{ a, b, ... }` (nested for multi-dimensional arrays).
    List(Vec<Initializer>),
}

/// A constant expression (initialisers and immediates).
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// An integer literal with its value and whether it is unsigned (`U` suffix or too big for i64).
    Int {
        /// The value (two's complement for negative results of folding).
        value: u64,
        /// `U` suffix, or too large for `i64`.
        unsigned: bool,
        /// The literal.
        span: Span,
    },
    /// A float literal: `0fXXXXXXXX` (f32 bits widened), `0dXXXXXXXXXXXXXXXX`, or decimal.
    Float {
        /// The value (f32 literals widened exactly).
        value: f64,
        /// True for the `0f` single-precision form.
        single: bool,
        /// The literal.
        span: Span,
    },
    /// A name: address of a variable or function (`generic(x)` is `Generic`).
    Symbol(Ident),
    /// `generic(name)`.
    Generic(Ident),
    /// Unary minus, `~`, `!`.
    Unary {
        /// `-`, `~` or `!`.
        op: char,
        /// The operand.
        arg: Box<Expr>,
        /// The whole expression.
        span: Span,
    },
    /// Binary `+ - * / % & | ^ << >>`.
    Binary {
        /// The operator as written.
        op: String,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand.
        rhs: Box<Expr>,
        /// The whole expression.
        span: Span,
    },
}

/// A statement in a function body.
#[derive(Clone, Debug, PartialEq)]
pub enum Statement {
    /// A local declaration (`.reg`, `.local`, `.shared`, `.param`).
    Decl(VarDecl),
    /// `name:`
    Label(Ident),
    /// An instruction.
    Inst(Instruction),
    /// `{ ... }` nested scope.
    Block(Vec<Statement>, Span),
    /// `.loc file line col`, optionally `, function_name NAME, inlined_at FILE LINE COL`.
    Loc {
        /// `.file` index.
        file: u32,
        /// Line (1-based).
        line: u32,
        /// Column (1-based, 0 if unknown).
        col: u32,
        /// The inlining context written after the column, if any.
        inlined: Option<InlinedAt>,
        /// The directive.
        span: Span,
    },
    /// `.pragma "..."` and other kept directives.
    Opaque {
        /// The directive's whole text as written.
        directive: String,
        /// The directive.
        span: Span,
    },
    /// `name: .callprototype (returns) _ (params);` declaration.
    CallPrototype {
        /// The prototype's label.
        name: Ident,
        /// Return parameters (names are usually `_`).
        returns: Vec<Param>,
        /// Parameters (names are usually `_`).
        params: Vec<Param>,
        /// `.noreturn` was written.
        noreturn: bool,
        /// The whole declaration.
        span: Span,
    },
}

/// The `, function_name NAME, inlined_at FILE LINE COL` tail of a `.loc`.
#[derive(Clone, Debug, PartialEq)]
pub struct InlinedAt {
    /// The label naming the inlined function (a string in `.debug_str`).
    pub function_name: Ident,
    /// `.file` index of the call site.
    pub file: u32,
    /// Line of the call site.
    pub line: u32,
    /// Column of the call site.
    pub col: u32,
}

/// An instruction as written: `@%p opcode.mod.mod operands;`.
#[derive(Clone, Debug, PartialEq)]
pub struct Instruction {
    /// `@p` or `@!p`.
    pub guard: Option<Guard>,
    /// The opcode (`ld`, `mad`, ...).
    pub opcode: Ident,
    /// Modifiers in written order, without the dots (`global`, `u32`, `lo`, ...).
    pub modifiers: Vec<Ident>,
    /// Operands in order.
    pub operands: Vec<Operand>,
    /// The whole instruction.
    pub span: Span,
}

/// A guard predicate.
#[derive(Clone, Debug, PartialEq)]
pub struct Guard {
    /// The predicate register.
    pub pred: Ident,
    /// `@!p`.
    pub negated: bool,
}

/// An instruction operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// A register, variable, label, function or special register (`%tid.x` keeps its component).
    Name(Ident),
    /// A name with a vector component or sub-field: `%tid.x`, `%r1.y`.
    Component {
        /// The register.
        base: Ident,
        /// The component (`x`, `y`, `z`, `w`, `r`, `g`, `b`, `a`).
        component: Ident,
    },
    /// `!%p` (predicate operands of `setp`/`selp`/`vote`...).
    Not(Ident),
    /// `-x` where allowed (rare; kept for the checker to refuse or accept).
    Neg(Box<Operand>),
    /// A constant expression.
    Imm(Expr),
    /// `[base + offset]`, `[base]`, `[imm]`.
    Address(Address),
    /// `[map, {c0, c1, ...}]`: a tensor map's address and a box's coordinates (TMA).
    TensorAddress(Address, Vec<Operand>, Span),
    /// `{a, b, c, d}`.
    Vector(Vec<Operand>, Span),
    /// `(a, b)` argument lists of `call`.
    List(Vec<Operand>, Span),
    /// `_` (the sink).
    Sink(Span),
    /// `p|q` two-destination predicate form of `setp`.
    PredPair(Ident, Ident),
}

/// A memory address operand.
#[derive(Clone, Debug, PartialEq)]
pub struct Address {
    /// The base register or variable, if any.
    pub base: Option<Ident>,
    /// Byte offset (may be negative).
    pub offset: i64,
    /// The whole `[...]`.
    pub span: Span,
}

impl Operand {
    /// The span of the operand.
    pub fn span(&self) -> Span {
        match self {
            Operand::Name(i) | Operand::Not(i) => i.span,
            Operand::Component { base, component } => base.span.to(component.span),
            Operand::Neg(o) => o.span(),
            Operand::Imm(e) => e.span(),
            Operand::Address(a) => a.span,
            Operand::Vector(_, s) | Operand::List(_, s) | Operand::Sink(s) | Operand::TensorAddress(_, _, s) => *s,
            Operand::PredPair(a, b) => a.span.to(b.span),
        }
    }
}

impl Expr {
    /// The span of the expression.
    pub fn span(&self) -> Span {
        match self {
            Expr::Int { span, .. }
            | Expr::Float { span, .. }
            | Expr::Unary { span, .. }
            | Expr::Binary { span, .. } => *span,
            Expr::Symbol(i) | Expr::Generic(i) => i.span,
        }
    }
}
