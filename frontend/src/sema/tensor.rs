//! Checking the tensor-core instructions: `mma.sync.aligned`, `wmma.load`, `wmma.store`,
//! `wmma.mma` and `movmatrix`. Their modifiers name shapes, layouts and up to four element
//! types (some of which, `.s4`, `.u4`, `.b1`, are no register types), so they are read here
//! rather than through the instruction table. What sm_75 accepts follows the PTX ISA and
//! ptxas 13.5 (which refuses, for example, `mma.m8n8k4` with an f16 result and an f32
//! accumulator, `wmma.mma` with different integer types for A and B, and `.and.popc`).
//! From sm_80 on `mma.m8n8k4.row.col.f64.f64.f64.f64` (DMMA), the m16n8 shapes (k4 of tf32,
//! k8/k16 of f16, bf16 and tf32, k16/k32 of 8-bit, k32/k64 of 4-bit and k128/k256 of
//! single-bit integers) and `.and.popc` are accepted as well.

use super::body::Body;
use super::operands;
use super::table::{OpSpec, spec};
use crate::ast::{Ident, Instruction, Operand, ScalarType, Span, StateSpace};
use crate::checked::*;
use crate::diag::Diagnostic;
use crate::tensor::*;

/// True if `opcode` is checked here.
pub fn handles(opcode: &str) -> bool {
    matches!(opcode, "mma" | "wmma" | "movmatrix" | "wgmma")
}

/// The modifiers as written, consumed one by one.
pub(super) struct Written<'a> {
    pub(super) items: Vec<&'a Ident>,
    pub(super) span: Span,
    /// The `sm_NN` of the module's `.target`.
    pub(super) target: u32,
}

impl<'a> Written<'a> {
    /// Takes `name` if it was written.
    pub(super) fn take(&mut self, name: &str) -> bool {
        match self.items.iter().position(|m| m.name == name) {
            Some(i) => {
                self.items.remove(i);
                true
            }
            None => false,
        }
    }

    /// Takes one of `names`, if one was written.
    pub(super) fn take_one(&mut self, names: &[&str]) -> Option<&'a str> {
        let i = self.items.iter().position(|m| names.contains(&m.name.as_str()))?;
        Some(self.items.remove(i).name.as_str())
    }

    /// Takes a required modifier.
    pub(super) fn need(&mut self, name: &str, what: &str) -> Result<(), Diagnostic> {
        if self.take(name) {
            Ok(())
        } else {
            Err(Diagnostic::error(format!("`{what}` needs `.{name}`"), self.span))
        }
    }

    /// Takes the layout (`.row` / `.col`) written first.
    fn layout(&mut self, what: &str) -> Result<MmaLayout, Diagnostic> {
        match self.take_one(&["row", "col"]) {
            Some("row") => Ok(MmaLayout::Row),
            Some(_) => Ok(MmaLayout::Col),
            None => Err(Diagnostic::error(
                format!("`{what}` needs a layout (`.row` or `.col`)"),
                self.span,
            )),
        }
    }

    /// Takes the shape.
    fn shape(&mut self, what: &str) -> Result<MmaShape, Diagnostic> {
        let i = self
            .items
            .iter()
            .position(|m| MmaShape::from_name(&m.name).is_some())
            .ok_or_else(|| Diagnostic::error(format!("`{what}` needs a shape (e.g. `.m16n16k16`)"), self.span))?;
        Ok(MmaShape::from_name(&self.items.remove(i).name).expect("a shape"))
    }

    /// Takes every element type, in written order.
    pub(super) fn types(&mut self) -> Vec<(MmaType, Span)> {
        let mut out = Vec::new();
        self.items.retain(|m| match MmaType::from_name(&m.name) {
            Some(t) => {
                out.push((t, m.span));
                false
            }
            None => true,
        });
        out
    }

    /// A state space, if one was written.
    fn space(&mut self) -> Option<StateSpace> {
        match self.take_one(&["global", "shared", "shared::cta"])? {
            "global" => Some(StateSpace::Global),
            _ => Some(StateSpace::Shared),
        }
    }

    /// Fails on the first modifier nothing took.
    fn done(&self, what: &str) -> Result<(), Diagnostic> {
        match self.items.first() {
            Some(m) => Err(Diagnostic::error(
                format!("`{what}` does not take `.{}`", m.name),
                m.span,
            )),
            None => Ok(()),
        }
    }
}

static MMA: OpSpec = spec("mma", Opcode::Mma);
static WMMA: OpSpec = spec("wmma", Opcode::Wmma);
static MOVMATRIX: OpSpec = spec("movmatrix", Opcode::Movmatrix);
static WGMMA: OpSpec = spec("wgmma", Opcode::Wgmma);

/// Checks a tensor-core instruction.
pub fn check(body: &Body<'_>, inst: &Instruction, guard: Option<(RegId, bool)>) -> Result<CheckedInst, Diagnostic> {
    let mut w = Written {
        items: inst.modifiers.iter().collect(),
        span: inst.opcode.span,
        target: body.module.target_sm,
    };
    let (tensor, spec) = match inst.opcode.name.as_str() {
        "mma" => (TensorOp::Mma(mma(&mut w, "mma")?), &MMA),
        "movmatrix" => (movmatrix(&mut w)?, &MOVMATRIX),
        "wgmma" => (super::wgmma::check(&mut w, body.module.arch_specific, inst)?, &WGMMA),
        _ => (wmma(&mut w)?, &WMMA),
    };
    let mut mods = Mods::default();
    if let TensorOp::WmmaLoad { .. } | TensorOp::WmmaStore { .. } = tensor {
        mods.space = w.space();
    }
    w.done(&spec_name(&tensor))?;
    let operands = operands_of(body, spec, &mods, &tensor, inst)?;
    Ok(CheckedInst {
        guard,
        op: spec.op,
        mods,
        operands,
        span: inst.span,
        tensor: Some(tensor),
    })
}

fn spec_name(t: &TensorOp) -> String {
    match t {
        TensorOp::Mma(_) => "mma".into(),
        TensorOp::WmmaLoad { .. } => "wmma.load".into(),
        TensorOp::WmmaStore { .. } => "wmma.store".into(),
        TensorOp::WmmaMma(_) => "wmma.mma".into(),
        TensorOp::Movmatrix => "movmatrix".into(),
        TensorOp::Wgmma(_) => "wgmma.mma_async".into(),
        TensorOp::WgmmaFence => "wgmma.fence".into(),
        TensorOp::WgmmaCommit => "wgmma.commit_group".into(),
        TensorOp::WgmmaWait => "wgmma.wait_group".into(),
    }
}

fn error<T>(message: impl Into<String>, span: Span) -> Result<T, Diagnostic> {
    Err(Diagnostic::error(message, span))
}

/// `mma.sync.aligned.shape.alayout.blayout[.satfinite].dtype.atype.btype.ctype[.xor.popc]`.
fn mma(w: &mut Written<'_>, what: &str) -> Result<MmaOp, Diagnostic> {
    w.need("sync", what)?;
    w.need("aligned", what)?;
    unsupported_mma(w, what)?;
    let shape = w.shape(what)?;
    let a_layout = w.layout(what)?;
    let b_layout = w.layout(what)?;
    let satfinite = w.take("satfinite");
    let types = w.types();
    let [d, a, b, c] = types.as_slice() else {
        return error(
            format!("`{what}` needs four types (`.dtype.atype.btype.ctype`)"),
            w.span,
        );
    };
    let t = MmaTypes {
        d: d.0,
        a: a.0,
        b: b.0,
        c: c.0,
    };
    let and_popc = binary_op(w, shape, what, true)?;
    let op = MmaOp {
        shape,
        a_layout,
        b_layout,
        types: t,
        satfinite,
        and_popc,
    };
    check_mma(&op, w.span, what, w.target)?;
    Ok(op)
}

/// Refuses, naming them, the `mma` shapes of the PTX ISA that ptxc does not compile
/// (`m16n8k4`, `m16n8k64`, ...).
fn unsupported_mma(w: &Written<'_>, what: &str) -> Result<(), Diagnostic> {
    let shape_like = |n: &str| {
        n.starts_with('m') && n.contains('n') && n.contains('k') && n.chars().all(|c| c.is_ascii_alphanumeric())
    };
    for m in &w.items {
        if shape_like(&m.name) && MmaShape::from_name(&m.name).is_none() {
            return error(
                format!(
                    "`{what}.{}` is not supported by ptxc (target is sm_{})",
                    m.name, w.target
                ),
                m.span,
            );
        }
    }
    Ok(())
}

/// `.xor.popc` or `.and.popc` go with the b1 shapes alone, and one of them is required
/// there; `.and.popc` needs sm_80 and is taken by `mma` only (`allow_and`). True for
/// `.and.popc`.
fn binary_op(w: &mut Written<'_>, shape: MmaShape, what: &str, allow_and: bool) -> Result<bool, Diagnostic> {
    let and = w.take("and");
    if and && (!allow_and || w.target < 80) {
        return error(
            super::features::needs_sm(&format!("{what}.and.popc"), 80, w.target),
            w.span,
        );
    }
    let xor = w.take("xor");
    let popc = (and || xor) & w.take("popc");
    let b1 = matches!(shape, MmaShape::M8n8k128 | MmaShape::M16n8k128 | MmaShape::M16n8k256);
    match (b1, popc) {
        (true, false) => error(
            format!("`{what}.{}` needs `.xor.popc` or `.and.popc`", shape.name()),
            w.span,
        ),
        (false, true) => error("`.xor.popc` and `.and.popc` go with the b1 shapes", w.span),
        _ => Ok(and),
    }
}

/// The shape, layout and type rules of `mma.sync` on sm_75 and, for the shapes and types
/// Ampere adds (m16n8k16, m16n8k32, bf16 and tf32 multiplicands, m8n8k4 of f64), on sm_80
/// and later (`target`: the module's `sm_NN`).
fn check_mma(op: &MmaOp, span: Span, what: &str, target: u32) -> Result<(), Diagnostic> {
    use MmaShape::*;
    use MmaType::*;
    let t = op.types;
    let row_col = op.a_layout == MmaLayout::Row && op.b_layout == MmaLayout::Col;
    let ints = matches!(t.a, S8 | U8) && matches!(t.b, S8 | U8) && t.d == S32 && t.c == S32;
    let halves = t.a == F16 && t.b == F16 && t.d == t.c && matches!(t.d, F16 | F32) && !op.satfinite;
    // bf16 and tf32 multiplicands accumulate in f32 only.
    let wide = |ty: MmaType| t.a == ty && t.b == ty && t.d == F32 && t.c == F32 && !op.satfinite;
    let doubles = t.a == F64 && t.b == F64 && t.c == F64 && t.d == F64 && !op.satfinite;
    let nibbles = matches!(t.a, S4 | U4) && matches!(t.b, S4 | U4) && t.d == S32 && t.c == S32;
    let bits = t.a == B1 && t.b == B1 && t.d == S32 && t.c == S32 && !op.satfinite;
    let ampere = match op.shape {
        M8n8k4 => row_col && doubles,
        M16n8k4 => row_col && wide(Tf32),
        M16n8k16 => row_col && (halves || wide(Bf16) || ints),
        M16n8k32 => row_col && (ints || nibbles),
        M16n8k64 => row_col && nibbles,
        M16n8k128 | M16n8k256 => row_col && bits,
        M16n8k8 => row_col && (wide(Bf16) || wide(Tf32)),
        _ => false,
    };
    if ampere && target < 80 {
        return error(
            super::features::needs_sm(&format!("{what}.{}{}", op.shape.name(), type_list(op)), 80, target),
            span,
        );
    }
    let ok = ampere
        || match op.shape {
            M8n8k4 => {
                t.a == F16 && t.b == F16 && matches!((t.d, t.c), (F16, F16) | (F32, F16) | (F32, F32)) && !op.satfinite
            }
            M16n8k8 => row_col && halves,
            M8n8k16 => row_col && t.d == S32 && t.c == S32 && matches!(t.a, S8 | U8) && matches!(t.b, S8 | U8),
            M8n8k32 => row_col && t.d == S32 && t.c == S32 && matches!(t.a, S4 | U4) && matches!(t.b, S4 | U4),
            M8n8k128 => row_col && t.d == S32 && t.c == S32 && t.a == B1 && t.b == B1 && !op.satfinite,
            M16n8k4 | M16n8k16 | M16n8k32 | M16n8k64 | M16n8k128 | M16n8k256 => false,
            M16n16k16 | M32n8k16 | M8n32k16 => {
                return error(
                    format!("`{what}` has no shape `.{}` (it is a `wmma` shape)", op.shape.name()),
                    span,
                );
            }
        };
    if ok {
        Ok(())
    } else {
        error(
            format!(
                "`{what}.{}` does not take these layouts and types ({}{})",
                op.shape.name(),
                &type_list(op)[1..],
                if op.satfinite { " with .satfinite" } else { "" }
            ),
            span,
        )
    }
}

/// `.dtype.atype.btype.ctype` of an `mma`.
fn type_list(op: &MmaOp) -> String {
    let t = op.types;
    format!(".{}.{}.{}.{}", t.d.name(), t.a.name(), t.b.name(), t.c.name())
}

/// `movmatrix.sync.aligned.m8n8.trans.b16`.
fn movmatrix(w: &mut Written<'_>) -> Result<TensorOp, Diagnostic> {
    for m in ["sync", "aligned", "m8n8", "trans", "b16"] {
        w.need(m, "movmatrix")?;
    }
    Ok(TensorOp::Movmatrix)
}

/// `wmma.load`, `wmma.store` and `wmma.mma`.
fn wmma(w: &mut Written<'_>) -> Result<TensorOp, Diagnostic> {
    match w.take_one(&["load", "store", "mma"]) {
        Some("load") => wmma_load(w),
        Some("store") => wmma_store(w),
        Some(_) => wmma_mma(w),
        None => error("`wmma` needs `.load`, `.store` or `.mma`", w.span),
    }
}

/// The element type of one fragment of a wmma shape, if the shape has it.
fn wmma_type_ok(shape: MmaShape, frag: Fragment, ty: MmaType) -> bool {
    use MmaShape::*;
    use MmaType::*;
    match (shape, frag) {
        (M16n16k16 | M32n8k16 | M8n32k16, Fragment::A | Fragment::B) => matches!(ty, F16 | S8 | U8),
        (M16n16k16 | M32n8k16 | M8n32k16, _) => matches!(ty, F16 | F32 | S32),
        (M8n8k32, Fragment::A | Fragment::B) => matches!(ty, S4 | U4),
        (M8n8k128, Fragment::A | Fragment::B) => ty == B1,
        (M8n8k32 | M8n8k128, _) => ty == S32,
        _ => false,
    }
}

/// The sub-byte shapes take A row-major and B column-major only.
fn wmma_layout_ok(shape: MmaShape, frag: Fragment, layout: MmaLayout) -> bool {
    match (shape, frag) {
        (MmaShape::M8n8k32 | MmaShape::M8n8k128, Fragment::A) => layout == MmaLayout::Row,
        (MmaShape::M8n8k32 | MmaShape::M8n8k128, Fragment::B) => layout == MmaLayout::Col,
        _ => true,
    }
}

fn wmma_common(w: &mut Written<'_>, what: &str) -> Result<(MmaLayout, MmaShape, MmaType, Span), Diagnostic> {
    w.need("sync", what)?;
    w.need("aligned", what)?;
    let layout = w.layout(what)?;
    let shape = w.shape(what)?;
    let types = w.types();
    let [(ty, span)] = types.as_slice() else {
        return error(format!("`{what}` needs one element type"), w.span);
    };
    Ok((layout, shape, *ty, *span))
}

fn wmma_load(w: &mut Written<'_>) -> Result<TensorOp, Diagnostic> {
    let frag = match w.take_one(&["a", "b", "c"]) {
        Some("a") => Fragment::A,
        Some("b") => Fragment::B,
        Some(_) => Fragment::C,
        None => return error("`wmma.load` needs a fragment (`.a`, `.b` or `.c`)", w.span),
    };
    let (layout, shape, ty, span) = wmma_common(w, "wmma.load")?;
    check_wmma_fragment(shape, frag, ty, layout, span)?;
    Ok(TensorOp::WmmaLoad {
        frag,
        shape,
        layout,
        ty,
    })
}

fn wmma_store(w: &mut Written<'_>) -> Result<TensorOp, Diagnostic> {
    w.need("d", "wmma.store")?;
    let (layout, shape, ty, span) = wmma_common(w, "wmma.store")?;
    check_wmma_fragment(shape, Fragment::D, ty, layout, span)?;
    Ok(TensorOp::WmmaStore { shape, layout, ty })
}

fn check_wmma_fragment(
    shape: MmaShape,
    frag: Fragment,
    ty: MmaType,
    layout: MmaLayout,
    span: Span,
) -> Result<(), Diagnostic> {
    if matches!(
        shape,
        MmaShape::M8n8k4
            | MmaShape::M16n8k4
            | MmaShape::M16n8k8
            | MmaShape::M8n8k16
            | MmaShape::M16n8k16
            | MmaShape::M16n8k32
            | MmaShape::M16n8k64
            | MmaShape::M16n8k128
            | MmaShape::M16n8k256
    ) {
        return error(format!("`wmma` has no shape `.{}`", shape.name()), span);
    }
    if !wmma_type_ok(shape, frag, ty) {
        return error(
            format!(
                "`.{}` is not a type of this `wmma` fragment of `.{}`",
                ty.name(),
                shape.name()
            ),
            span,
        );
    }
    if !wmma_layout_ok(shape, frag, layout) {
        return error(
            format!("`.{}` takes A row-major and B column-major only", shape.name()),
            span,
        );
    }
    Ok(())
}

/// `wmma.mma[.xor.popc].sync.aligned.alayout.blayout.shape.types[.satfinite]`: f16 shapes
/// take `.dtype.ctype`, integer shapes `.s32.atype.btype.s32` with A and B of one type.
fn wmma_mma(w: &mut Written<'_>) -> Result<TensorOp, Diagnostic> {
    let what = "wmma.mma";
    w.need("sync", what)?;
    w.need("aligned", what)?;
    let a_layout = w.layout(what)?;
    let b_layout = w.layout(what)?;
    let shape = w.shape(what)?;
    let satfinite = w.take("satfinite");
    let types = w.types();
    let t = match types.as_slice() {
        [(d, _), (c, _)] => MmaTypes {
            d: *d,
            a: MmaType::F16,
            b: MmaType::F16,
            c: *c,
        },
        [(d, _), (a, _), (b, _), (c, _)] => MmaTypes {
            d: *d,
            a: *a,
            b: *b,
            c: *c,
        },
        _ => {
            return error(
                format!("`{what}` needs `.dtype.ctype` or `.dtype.atype.btype.ctype`"),
                w.span,
            );
        }
    };
    binary_op(w, shape, what, false)?;
    let span = w.span;
    for (frag, ty, layout) in [
        (Fragment::A, t.a, a_layout),
        (Fragment::B, t.b, b_layout),
        (Fragment::C, t.c, MmaLayout::Row),
        (Fragment::D, t.d, MmaLayout::Row),
    ] {
        check_wmma_fragment(shape, frag, ty, layout, span)?;
    }
    let float = t.a == MmaType::F16;
    if float && (types.len() != 2 || satfinite) {
        return error(
            format!("`{what}` of f16 takes `.dtype.ctype` (and no `.satfinite` since PTX ISA 6.5)"),
            span,
        );
    }
    if !float && (types.len() != 4 || t.a != t.b || t.d != MmaType::S32 || t.c != MmaType::S32) {
        return error(
            format!("`{what}` of integers takes `.s32.atype.btype.s32` with one type for A and B"),
            span,
        );
    }
    if shape == MmaShape::M8n8k128 && satfinite {
        return error(format!("`{what}.m8n8k128` takes no `.satfinite`"), span);
    }
    Ok(TensorOp::WmmaMma(MmaOp {
        shape,
        a_layout,
        b_layout,
        types: t,
        satfinite,
        and_popc: false,
    }))
}

/// Checks the operands against the fragment sizes.
fn operands_of(
    body: &Body<'_>,
    spec: &OpSpec,
    mods: &Mods,
    t: &TensorOp,
    inst: &Instruction,
) -> Result<Vec<CheckedOperand>, Diagnostic> {
    let frag = |n: usize| ('d', Some(ScalarType::B32), Some(n as u32));
    let src = |n: usize| ('s', Some(ScalarType::B32), Some(n as u32));
    // f64 fragments (DMMA) are written as f64 registers, one per two 32-bit registers.
    let f64_frag = |kind: char, n: usize| (kind, Some(ScalarType::F64), Some((n / 2) as u32));
    let stride = ('s', Some(ScalarType::U32), None);
    let addr = ('a', None, None);
    let shape: Vec<_> = match *t {
        TensorOp::Mma(op) | TensorOp::WmmaMma(op) => {
            let [d, a, b, c] = op.operand_regs(matches!(t, TensorOp::WmmaMma(_)));
            if op.types.a == MmaType::F64 {
                vec![f64_frag('d', d), f64_frag('s', a), f64_frag('s', b), f64_frag('s', c)]
            } else {
                vec![frag(d), src(a), src(b), src(c)]
            }
        }
        TensorOp::WmmaLoad { frag: f, shape, ty, .. } => {
            vec![frag(fragment_regs(shape, f, ty, true)), addr, stride]
        }
        TensorOp::WmmaStore { shape, ty, .. } => {
            vec![addr, src(fragment_regs(shape, Fragment::D, ty, true)), stride]
        }
        TensorOp::Movmatrix => vec![('d', Some(ScalarType::B32), None), ('s', Some(ScalarType::B32), None)],
        TensorOp::Wgmma(op) => super::wgmma::operand_shape(&op),
        TensorOp::WgmmaFence | TensorOp::WgmmaCommit => vec![],
        TensorOp::WgmmaWait => vec![('i', Some(ScalarType::U32), None)],
    };
    let optional_stride = matches!(t, TensorOp::WmmaLoad { .. } | TensorOp::WmmaStore { .. });
    let count = inst.operands.len();
    if count != shape.len() && !(optional_stride && count == shape.len() - 1) {
        let expected = if optional_stride {
            format!("{} or {}", shape.len() - 1, shape.len())
        } else {
            shape.len().to_string()
        };
        return error(
            format!("`{}` takes {expected} operands, found {count}", spec_name(t)),
            inst.span,
        );
    }
    shape
        .iter()
        .zip(&inst.operands)
        .map(|(&item, operand)| fragment_operand(body, spec, mods, item, operand))
        .collect()
}

/// One operand; a fragment of one register may be written without braces.
fn fragment_operand(
    body: &Body<'_>,
    spec: &OpSpec,
    mods: &Mods,
    item: (char, Option<ScalarType>, Option<u32>),
    operand: &Operand,
) -> Result<CheckedOperand, Diagnostic> {
    match item.2 {
        Some(n) if n > 1 && !matches!(operand, Operand::Vector(..)) => error(
            format!("expected a fragment of {n} registers `{{...}}`"),
            operand.span(),
        ),
        _ => operands::check_one(body, spec, mods, item, operand),
    }
}
