//! Per-opcode checks that the table's columns cannot express: which modifiers go with which
//! types (`.rn` with floats, `.lo` with integers), mandatory rounding of `cvt`, atomic
//! operation/type pairs, and features of later GPUs written on otherwise valid opcodes.

use crate::ast::{ScalarType, StateSpace};
use crate::checked::*;

/// An extra check on an instruction's modifiers, for a module whose `.target` is sm_`sm`.
pub type Rule = fn(&Mods, u32) -> Result<(), RuleError>;

/// Why a rule refuses an instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuleError {
    /// Invalid PTX: the message.
    Invalid(String),
    /// Valid PTX of a later GPU than ptxc implements it for: what, and the first sm that
    /// has it.
    NeedsSm(String, u32),
}

impl From<String> for RuleError {
    fn from(message: String) -> Self {
        RuleError::Invalid(message)
    }
}

impl RuleError {
    /// The message for a module whose `.target` is `sm_{target}`.
    pub fn message(self, target: u32) -> String {
        match self {
            RuleError::Invalid(m) => m,
            RuleError::NeedsSm(what, sm) => super::features::needs_sm(&what, sm, target),
        }
    }
}

fn ty(m: &Mods) -> ScalarType {
    m.ty().unwrap_or(ScalarType::B32)
}

fn needs_sm(what: &str, sm: u32) -> RuleError {
    RuleError::NeedsSm(what.to_string(), sm)
}

fn is_int(t: ScalarType) -> bool {
    !t.is_float() && t != ScalarType::Pred
}

fn float_only(m: &Mods, name: &str) -> Result<(), RuleError> {
    let t = ty(m);
    if t == ScalarType::F64 && (m.ftz || m.sat) {
        let which = if m.ftz { "ftz" } else { "sat" };
        return Err(format!("`.{which}` is not allowed with `{name}.f64`").into());
    }
    if !t.is_float() {
        if m.rounding.is_some() {
            return Err(format!("`{name}.{}` takes no rounding modifier", t.name()).into());
        }
        if m.ftz {
            return Err(format!("`.ftz` needs a floating-point type, not `.{}`", t.name()).into());
        }
    }
    Ok(())
}

fn no_float_int_rounding(m: &Mods) -> Result<(), RuleError> {
    match m.rounding {
        Some(Rounding::Rni | Rounding::Rzi | Rounding::Rmi | Rounding::Rpi) => {
            Err("integer rounding (`.rni`, `.rzi`, ...) is only for `cvt`"
                .to_string()
                .into())
        }
        _ => Ok(()),
    }
}

fn is_half(t: ScalarType) -> bool {
    matches!(
        t,
        ScalarType::F16 | ScalarType::F16x2 | ScalarType::Bf16 | ScalarType::Bf16x2
    )
}

fn is_bf16(t: ScalarType) -> bool {
    matches!(t, ScalarType::Bf16 | ScalarType::Bf16x2)
}

/// Refuses `what` (first in sm_`first`) in a module for sm_`sm` before it.
fn since(sm: u32, what: &str, first: u32) -> Result<(), RuleError> {
    if sm < first {
        return Err(needs_sm(what, first));
    }
    Ok(())
}

/// Half-precision arithmetic rounds only with `.rn`.
fn half_rounding(m: &Mods, name: &str) -> Result<(), RuleError> {
    let t = ty(m);
    if is_half(t) && m.rounding.is_some_and(|r| r != Rounding::Rn) {
        return Err(format!("`{name}.{}` rounds only with `.rn`", t.name()).into());
    }
    Ok(())
}

/// Half-precision arithmetic: the only rounding is `.rn`; the `.bf16` forms of `add`, `sub`,
/// `mul` and `setp` are sm_90.
fn half_min_sm(m: &Mods, name: &str) -> Result<(), RuleError> {
    half_rounding(m, name)?;
    let t = ty(m);
    if is_bf16(t) {
        return Err(needs_sm(&format!("{name}.{}", t.name()), 90));
    }
    Ok(())
}

/// `add`/`sub`.
pub fn arith(m: &Mods, _sm: u32) -> Result<(), RuleError> {
    float_only(m, "add")?;
    no_float_int_rounding(m)?;
    half_min_sm(m, "add")?;
    let t = ty(m);
    if m.cc && !matches!(t.size(), 4 | 8) | t.is_float() {
        return Err("`.cc` needs a 32- or 64-bit integer type".to_string().into());
    }
    if m.sat && is_int(t) && t != ScalarType::S32 {
        return Err("`.sat` on integers is only for `.s32`".to_string().into());
    }
    Ok(())
}

/// `mul`.
pub fn mul(m: &Mods, _sm: u32) -> Result<(), RuleError> {
    float_only(m, "mul")?;
    no_float_int_rounding(m)?;
    half_min_sm(m, "mul")?;
    let t = ty(m);
    if is_int(t) {
        match m.mul_mode {
            None => return Err("`mul` on integers needs `.lo`, `.hi` or `.wide`".to_string().into()),
            Some(MulMode::Wide) if t.size() > 4 => {
                return Err("`mul.wide` takes 16- or 32-bit sources".to_string().into());
            }
            _ => {}
        }
        if m.sat {
            return Err("`mul` on integers takes no `.sat`".to_string().into());
        }
    } else if m.mul_mode.is_some() {
        return Err("`.lo`, `.hi` and `.wide` are for integer `mul`".to_string().into());
    }
    Ok(())
}

/// `mad`.
pub fn mad(m: &Mods, _sm: u32) -> Result<(), RuleError> {
    float_only(m, "mad")?;
    no_float_int_rounding(m)?;
    let t = ty(m);
    if is_int(t) {
        match m.mul_mode {
            None => return Err("`mad` on integers needs `.lo`, `.hi` or `.wide`".to_string().into()),
            Some(MulMode::Wide) if t.size() > 4 => {
                return Err("`mad.wide` takes 16- or 32-bit sources".to_string().into());
            }
            _ => {}
        }
        if m.sat && !(m.mul_mode == Some(MulMode::Hi) && t == ScalarType::S32) {
            return Err("`.sat` is only for `mad.hi.sat.s32`".to_string().into());
        }
    } else {
        if m.mul_mode.is_some() {
            return Err("`.lo`, `.hi` and `.wide` are for integer `mad`".to_string().into());
        }
        if m.rounding.is_none() {
            let message = "needs a rounding modifier (`.rn`, `.rz`, `.rm` or `.rp`)";
            return Err(format!("`mad.{}` {message}", t.name()).into());
        }
        if m.cc {
            return Err("`.cc` needs an integer type".to_string().into());
        }
    }
    Ok(())
}

/// `fma`. The half forms take `.rn` only; `.relu` (sm_80) is for halves and not with
/// `.sat`; `.bf16`/`.bf16x2` (sm_80) take neither `.ftz` nor `.sat`.
pub fn fma(m: &Mods, sm: u32) -> Result<(), RuleError> {
    float_only(m, "fma")?;
    no_float_int_rounding(m)?;
    half_rounding(m, "fma")?;
    if m.rounding.is_none() {
        return Err("`fma` needs a rounding modifier (`.rn`, `.rz`, `.rm` or `.rp`)"
            .to_string()
            .into());
    }
    let t = ty(m);
    if is_bf16(t) && (m.ftz || m.sat) {
        return Err(format!("`fma.{}` takes neither `.ftz` nor `.sat`", t.name()).into());
    }
    if m.has_flag("relu") {
        if !is_half(t) {
            return Err(format!("`.relu` is not allowed with `fma.{}`", t.name()).into());
        }
        if m.sat {
            return Err("`fma` takes `.relu` or `.sat`, not both".to_string().into());
        }
        since(sm, "fma.relu", 80)?;
    }
    Ok(())
}

/// `div`.
pub fn div(m: &Mods, _sm: u32) -> Result<(), RuleError> {
    float_only(m, "div")?;
    no_float_int_rounding(m)?;
    let t = ty(m);
    let modes = m.approx as u8 + m.full as u8 + m.rounding.is_some() as u8;
    if is_int(t) {
        if m.approx || m.full {
            return Err("`.approx` and `.full` are for `div.f32`".to_string().into());
        }
    } else if m.ftz && t != ScalarType::F32 {
        return Err("`.ftz` is only for `div.f32`".to_string().into());
    } else if t == ScalarType::F32 && modes != 1 {
        return Err(
            "`div.f32` needs exactly one of `.approx`, `.full`, `.rn`, `.rz`, `.rm`, `.rp`"
                .to_string()
                .into(),
        );
    } else if t == ScalarType::F64 && (m.rounding.is_none() || modes != 1) {
        return Err("`div.f64` needs a rounding modifier (`.rn`, `.rz`, `.rm` or `.rp`)"
            .to_string()
            .into());
    }
    Ok(())
}

/// `abs`/`neg`: `.ftz` for `.f32` and f16 (not `.bf16`, sm_80).
pub fn sign(m: &Mods, _sm: u32) -> Result<(), RuleError> {
    float_only(m, "abs")?;
    let t = ty(m);
    if m.ftz && (t == ScalarType::F64 || is_bf16(t)) {
        return Err(format!("`.ftz` is not allowed with `.{}` here", t.name()).into());
    }
    Ok(())
}

/// `mad24`: `.sat` only for `mad24.hi.sat.s32`.
pub fn mad24(m: &Mods, _sm: u32) -> Result<(), RuleError> {
    if m.sat && !(m.mul_mode == Some(MulMode::Hi) && ty(m) == ScalarType::S32) {
        return Err("`.sat` is only for `mad24.hi.sat.s32`".to_string().into());
    }
    Ok(())
}

/// `slct`: `.ftz` goes with an `.f32` selector.
pub fn slct(m: &Mods, _sm: u32) -> Result<(), RuleError> {
    if m.ftz && m.types.get(1) != Some(&ScalarType::F32) {
        return Err("`.ftz` needs an `.f32` selector".to_string().into());
    }
    Ok(())
}

/// `ex2`: `.ftz` only for `.f32`; `.bf16`/`.bf16x2` are sm_90.
pub fn ftz_f32_only(m: &Mods, _sm: u32) -> Result<(), RuleError> {
    let t = ty(m);
    if m.ftz && t != ScalarType::F32 && !is_bf16(t) {
        return Err(format!("`.ftz` is not allowed with `.{}` here", t.name()).into());
    }
    if is_bf16(t) {
        return Err(needs_sm(&format!("ex2.{}", t.name()), 90));
    }
    Ok(())
}

/// `mov`: vectors of 16-, 32- and 64-bit integers, bits and f32/f64 only.
pub fn mov(m: &Mods, _sm: u32) -> Result<(), RuleError> {
    use ScalarType::*;
    let t = ty(m);
    if m.vector.is_some() && matches!(t, Pred | F16 | F16x2 | Bf16 | Bf16x2 | B128) {
        return Err(format!("`mov.v{}` does not take `.{}`", m.vector.unwrap_or(2), t.name()).into());
    }
    vector_size(m)
}

/// `prefetch`: one cache level; an L2 eviction priority (`.L2::evict_last`,
/// `.L2::evict_normal`) needs sm_80 (ptxas 13.5 for sm_75: "Modifier 'cache eviction
/// priority' on 'prefetch' requires .target sm_80 or higher") and a global or generic
/// address.
pub fn prefetch(m: &Mods, sm: u32) -> Result<(), RuleError> {
    if m.flags.len() > 1 {
        return Err("`prefetch` takes one cache level".to_string().into());
    }
    let evict = m.flags.iter().find(|f| f.starts_with("L2::"));
    if let Some(f) = evict {
        if sm < 80 {
            return Err(needs_sm(&format!("prefetch.{f} (cache eviction priority)"), 80));
        }
        if m.space == Some(StateSpace::Local) {
            // ptxas 13.5: "State space incorrect for feature 'cache eviction priority'".
            return Err(format!("`prefetch.local` does not take `.{f}`").into());
        }
    }
    Ok(())
}

/// `prmt`: at most one mode.
pub fn prmt(m: &Mods, _sm: u32) -> Result<(), RuleError> {
    if m.flags.len() > 1 {
        return Err("`prmt` takes at most one mode".to_string().into());
    }
    Ok(())
}

/// `set`: a half-precision result compares the same half type; the comparison must suit the
/// source type.
pub fn set(m: &Mods, sm: u32) -> Result<(), RuleError> {
    use ScalarType::*;
    let dst = ty(m);
    let src = m.types.get(1).copied().unwrap_or(dst);
    if matches!(dst, F16 | F16x2 | Bf16 | Bf16x2) && dst != src {
        return Err(format!("`set.{}` compares `.{}` values", dst.name(), dst.name()).into());
    }
    setp(
        &Mods {
            types: vec![src],
            ..m.clone()
        },
        sm,
    )
}

/// `sqrt`: like `rcp`, but no `.approx` for `.f64`.
pub fn sqrt(m: &Mods, sm: u32) -> Result<(), RuleError> {
    if m.approx && ty(m) == ScalarType::F64 {
        return Err("`sqrt.f64` needs a rounding modifier, not `.approx`".to_string().into());
    }
    rcp_sqrt(m, sm)
}

/// `rcp` and `sqrt`.
pub fn rcp_sqrt(m: &Mods, _sm: u32) -> Result<(), RuleError> {
    no_float_int_rounding(m)?;
    let t = ty(m);
    if m.ftz && t == ScalarType::F64 && !m.approx {
        return Err("`.ftz` with `.f64` is only for `.approx`".to_string().into());
    }
    let ok = match t {
        ScalarType::F32 => m.approx != m.rounding.is_some(),
        _ if m.approx => m.ftz && m.rounding.is_none(),
        _ => m.rounding.is_some(),
    };
    if !ok {
        return Err(format!("`.{}` needs `.approx` or a rounding modifier (`.rn`, ...)", t.name()).into());
    }
    Ok(())
}

/// `min`/`max`: the half types and `.NaN` are sm_80, `.xorsign.abs` (written together) sm_86;
/// `.ftz` not with `.bf16`, `.NaN` and `.xorsign` only on f32 and halves.
pub fn min_max(m: &Mods, sm: u32) -> Result<(), RuleError> {
    float_only(m, "min")?;
    let t = ty(m);
    if is_half(t) {
        since(sm, &format!("min.{} or max.{}", t.name(), t.name()), 80)?;
    }
    if m.ftz && is_bf16(t) {
        return Err(format!("`.ftz` is not allowed with `.{}` here", t.name()).into());
    }
    if m.has_flag("relu") {
        return Err(needs_sm("min.relu or max.relu", 80));
    }
    let float = t == ScalarType::F32 || is_half(t);
    if m.has_flag("NaN") {
        if !float {
            return Err(format!("`.NaN` is not allowed with `.{}`", t.name()).into());
        }
        since(sm, "min.NaN or max.NaN", 80)?;
    }
    let (xorsign, abs) = (m.has_flag("xorsign"), m.has_flag("abs"));
    if xorsign || abs {
        if xorsign != abs {
            return Err("`.xorsign` and `.abs` are written together".to_string().into());
        }
        if !float {
            return Err(format!("`.xorsign.abs` is not allowed with `.{}`", t.name()).into());
        }
        since(sm, "min.xorsign or max.xorsign", 86)?;
    }
    Ok(())
}

/// `setp`.
pub fn setp(m: &Mods, _sm: u32) -> Result<(), RuleError> {
    let t = ty(m);
    if m.ftz && (!t.is_float() || t == ScalarType::F64) {
        return Err(format!("`.ftz` needs a floating-point type, not `.{}`", t.name()).into());
    }
    if matches!(m.cmp, Some(CmpOp::Lo | CmpOp::Ls | CmpOp::Hi | CmpOp::Hs)) && (t.is_float() || t.is_signed()) {
        return Err("`.lo`, `.ls`, `.hi` and `.hs` compare unsigned integers"
            .to_string()
            .into());
    }
    let unordered = matches!(
        m.cmp,
        Some(CmpOp::Equ | CmpOp::Neu | CmpOp::Ltu | CmpOp::Leu | CmpOp::Gtu | CmpOp::Geu | CmpOp::Num | CmpOp::Nan)
    );
    if unordered && !t.is_float() {
        return Err("unordered comparisons, `.num` and `.nan` compare floating-point values"
            .to_string()
            .into());
    }
    half_min_sm(m, "setp")
}

/// `cvt`.
pub fn cvt(m: &Mods, sm: u32) -> Result<(), RuleError> {
    if m.has_flag("pack") {
        return if m.types.len() == 3 && m.sat {
            Ok(())
        } else {
            Err("`cvt.pack` is written `cvt.pack.sat.DTYPE.s32.b32`".to_string().into())
        };
    }
    if m.types.len() != 2 {
        return Err("`cvt` takes a destination and a source type".to_string().into());
    }
    let (dst, src) = (m.types[0], m.types[1]);
    if let Some(ampere) = cvt_ampere(m, dst, src, sm) {
        return ampere;
    }
    let int_rounding = matches!(
        m.rounding,
        Some(Rounding::Rni | Rounding::Rzi | Rounding::Rmi | Rounding::Rpi)
    );
    let float_rounding = matches!(
        m.rounding,
        Some(Rounding::Rn | Rounding::Rz | Rounding::Rm | Rounding::Rp)
    );
    match (dst.is_float(), src.is_float()) {
        (false, true) if !int_rounding => Err(format!(
            "`cvt.{}.{}` (float to integer) needs `.rni`, `.rzi`, `.rmi` or `.rpi`",
            dst.name(),
            src.name()
        )
        .into()),
        (true, false) if !float_rounding => Err(format!(
            "`cvt.{}.{}` (integer to float) needs `.rn`, `.rz`, `.rm` or `.rp`",
            dst.name(),
            src.name()
        )
        .into()),
        (true, true) if dst.size() < src.size() && !float_rounding => Err(format!(
            "`cvt.{}.{}` (narrowing) needs `.rn`, `.rz`, `.rm` or `.rp`",
            dst.name(),
            src.name()
        )
        .into()),
        (true, true) if dst.size() > src.size() && m.rounding.is_some() => Err(format!(
            "`cvt.{}.{}` (widening) takes no rounding modifier",
            dst.name(),
            src.name()
        )
        .into()),
        (true, true) if dst.size() == src.size() && float_rounding => Err(format!(
            "`cvt.{}.{}` rounds to an integral value: use `.rni`, `.rzi`, `.rmi` or `.rpi`",
            dst.name(),
            src.name()
        )
        .into()),
        (false, false) if m.rounding.is_some() => {
            Err("integer to integer `cvt` takes no rounding modifier".to_string().into())
        }
        _ => Ok(()),
    }
}

/// The conversions sm_80 adds: f32 to a half pair (`cvt.rn.f16x2.f32 d, a, b`), to bf16 and
/// from bf16 (only from and to f32; the others are sm_90), `.relu` on f32 to halves, and
/// `cvt.rna.tf32.f32`. `None` for the other conversions.
fn cvt_ampere(m: &Mods, dst: ScalarType, src: ScalarType, sm: u32) -> Option<Result<(), RuleError>> {
    use ScalarType::*;
    let relu = m.has_flag("relu");
    let shown = format!("cvt.{}.{}", dst.name(), src.name());
    let to_half = matches!(dst, F16x2 | Bf16 | Bf16x2) || (dst == F16 && relu);
    let check = || -> Result<(), RuleError> {
        if dst == Tf32 || src == Tf32 {
            if (dst, src) != (Tf32, F32) || m.rounding != Some(Rounding::Rna) {
                return Err(needs_sm(&shown, 90));
            }
            if m.sat || m.ftz || relu || m.has_flag("satfinite") {
                return Err("`cvt.rna.tf32.f32` takes no other modifier".to_string().into());
            }
            return since(sm, &shown, 80);
        }
        if (dst, src) == (F32, Bf16) {
            if m.rounding.is_some() || m.sat || m.ftz || relu {
                return Err("`cvt.f32.bf16` takes no modifier".to_string().into());
            }
            return since(sm, &shown, 80);
        }
        if src != F32 || (is_bf16(src) || dst == F16x2) && !to_half || matches!(src, F16x2 | Bf16 | Bf16x2) {
            return Err(needs_sm(&shown, 90));
        }
        if !matches!(m.rounding, Some(Rounding::Rn | Rounding::Rz)) {
            return Err(format!("`{shown}` rounds with `.rn` or `.rz`").into());
        }
        if m.has_flag("satfinite") {
            return Err(needs_sm(&format!("{shown}.satfinite"), 90));
        }
        if m.sat || m.ftz {
            return Err(format!("`{shown}` takes neither `.sat` nor `.ftz`").into());
        }
        since(sm, if relu { "cvt.relu" } else { &shown }, 80)
    };
    let ampere = to_half || relu || [dst, src].iter().any(|&t| matches!(t, F16x2 | Bf16 | Bf16x2 | Tf32));
    ampere.then(check)
}

fn memory_order(m: &Mods) -> Result<(), RuleError> {
    match m.order {
        Some(MemOrder::Relaxed | MemOrder::Acquire | MemOrder::Release | MemOrder::AcqRel) if m.scope.is_none() => Err(
            "a `.relaxed`/`.acquire`/`.release` access needs a scope (`.cta`, `.gpu` or `.sys`)"
                .to_string()
                .into(),
        ),
        None | Some(MemOrder::Weak | MemOrder::Volatile) if m.scope.is_some() => {
            Err("a scope needs `.relaxed`, `.acquire` or `.release`".to_string().into())
        }
        _ => Ok(()),
    }
}

/// The cache hints of `ld`/`st`: at most one L1 eviction priority and one L2 prefetch size,
/// both on global or generic addresses only (as ptxas 13.5); `.L2::256B` and
/// `.L2::cache_hint` (an extra 64-bit cache-policy operand) from sm_80 on, the latter not on
/// `.volatile` accesses (PTX ISA: `ld.volatile` takes no cache hint); the L2 eviction
/// priorities (sm_100's `.v8` accesses) are refused.
fn eviction_hints(m: &Mods, name: &str, sm: u32) -> Result<(), RuleError> {
    if let Some(flag) = m.flags.iter().find(|f| f.starts_with("L2::evict")) {
        return Err(needs_sm(&format!("{name}.{flag}"), 100));
    }
    let policy = m.has_flag("L2::cache_hint");
    if policy {
        since(sm, &format!("{name}.L2::cache_hint"), 80)?;
        if m.order == Some(MemOrder::Volatile) {
            return Err(format!("`{name}.volatile` takes no `.L2::cache_hint`").into());
        }
    }
    let count = |prefix: &str| {
        m.flags
            .iter()
            .filter(|f| f.starts_with(prefix) && f.as_str() != "L2::cache_hint")
            .count()
    };
    let (evict, prefetch) = (count("L1::"), count("L2::"));
    if evict > 1 || prefetch > 1 {
        return Err(format!("`{name}` takes at most one L1 eviction priority and one L2 prefetch size").into());
    }
    let space_ok = matches!(m.space, None | Some(crate::ast::StateSpace::Global));
    if evict + prefetch + usize::from(policy) > 0 && !space_ok {
        return Err(format!("cache hints of `{name}` apply to `.global` and generic addresses only").into());
    }
    if m.has_flag("L2::256B") {
        since(sm, &format!("{name}.L2::256B"), 80)?;
    }
    Ok(())
}

fn vector_size(m: &Mods) -> Result<(), RuleError> {
    let bytes = ty(m).size() * m.vector.map_or(1, u32::from);
    if bytes > 16 {
        return Err(format!("a vector access of {bytes} bytes is over the 16-byte limit").into());
    }
    Ok(())
}

/// `ld`.
pub fn load(m: &Mods, sm: u32) -> Result<(), RuleError> {
    vector_size(m)?;
    memory_order(m)?;
    eviction_hints(m, "ld", sm)?;
    if m.cache == Some(CacheOp::Nc) && m.space != Some(crate::ast::StateSpace::Global) {
        return Err("`ld.nc` reads the `.global` space only".to_string().into());
    }
    if m.cache.is_some() && m.order.is_some() {
        return Err("a cache operator cannot be combined with a memory order"
            .to_string()
            .into());
    }
    Ok(())
}

/// `ldu`.
pub fn load_uniform(m: &Mods, _sm: u32) -> Result<(), RuleError> {
    vector_size(m)
}

/// `st`.
pub fn store(m: &Mods, sm: u32) -> Result<(), RuleError> {
    vector_size(m)?;
    memory_order(m)?;
    eviction_hints(m, "st", sm)?;
    if m.cache.is_some() && m.order.is_some() {
        return Err("a cache operator cannot be combined with a memory order"
            .to_string()
            .into());
    }
    Ok(())
}

/// `atom`/`red`.
pub fn atomic(m: &Mods, _sm: u32) -> Result<(), RuleError> {
    use ScalarType::*;
    let t = ty(m);
    let ok = match m.atom_op {
        Some(AtomOp::Add) => matches!(t, U32 | S32 | U64 | F32 | F64 | F16 | F16x2 | Bf16 | Bf16x2),
        Some(AtomOp::Inc | AtomOp::Dec) => t == U32,
        Some(AtomOp::Min | AtomOp::Max) => matches!(t, U32 | S32 | U64 | S64),
        Some(AtomOp::And | AtomOp::Or | AtomOp::Xor) => matches!(t, B32 | B64),
        Some(AtomOp::Exch | AtomOp::Cas) => matches!(t, B32 | B64),
        None => true,
    };
    if !ok {
        return Err(format!("this atomic operation does not take `.{}`", t.name()).into());
    }
    let half = matches!(t, F16 | F16x2 | Bf16 | Bf16x2);
    if m.has_flag("noftz") && !(m.atom_op == Some(AtomOp::Add) && half) {
        return Err("`.noftz` is only for adding half-precision values".to_string().into());
    }
    if matches!(t, Bf16 | Bf16x2) {
        return Err(needs_sm(&format!("atom.add.{}", t.name()), 90));
    }
    match m.order {
        Some(MemOrder::Relaxed | MemOrder::Acquire | MemOrder::Release | MemOrder::AcqRel) | None => Ok(()),
        _ => Err("atomics take `.relaxed`, `.acquire`, `.release` or `.acq_rel`"
            .to_string()
            .into()),
    }
}

/// `bar`/`barrier`.
pub fn barrier(m: &Mods, _sm: u32) -> Result<(), RuleError> {
    let kinds = m.sync as u8 + m.has_flag("arrive") as u8 + m.has_flag("red") as u8;
    if kinds != 1 {
        return Err("a barrier is one of `.sync`, `.arrive` or `.red`".to_string().into());
    }
    if m.has_flag("red") {
        return match (m.bool_op, m.ty()) {
            (Some(BoolOp::Popc), Some(ScalarType::U32)) => Ok(()),
            (Some(BoolOp::And | BoolOp::Or), Some(ScalarType::Pred)) => Ok(()),
            _ => Err("`bar.red` is `.popc.u32`, `.and.pred` or `.or.pred`".to_string().into()),
        };
    }
    if m.bool_op.is_some() || m.ty().is_some() {
        return Err("only `bar.red` takes a reduction and a type".to_string().into());
    }
    if m.has_flag("warp") && !m.sync {
        return Err("`bar.warp` is written `bar.warp.sync`".to_string().into());
    }
    Ok(())
}

/// `fence`.
pub fn fence(m: &Mods, _sm: u32) -> Result<(), RuleError> {
    if m.scope.is_none() {
        return Err("`fence` needs a scope (`.cta`, `.gpu` or `.sys`)".to_string().into());
    }
    Ok(())
}

/// `vote`.
pub fn vote(m: &Mods, _sm: u32) -> Result<(), RuleError> {
    let ballot = m.vote_mode == Some(VoteMode::Ballot);
    match m.ty() {
        Some(ScalarType::B32) if ballot => Ok(()),
        Some(ScalarType::Pred) if !ballot => Ok(()),
        _ if ballot => Err("`vote.ballot` is `.b32`".to_string().into()),
        _ => Err("`vote.all`, `.any` and `.uni` are `.pred`".to_string().into()),
    }
}

/// `redux.sync`: `.add`, `.min` and `.max` on `.u32` or `.s32`; `.and`, `.or` and `.xor` on
/// `.b32`.
pub fn redux(m: &Mods, _sm: u32) -> Result<(), RuleError> {
    let arithmetic = matches!(m.atom_op, Some(AtomOp::Add | AtomOp::Min | AtomOp::Max));
    match m.ty() {
        Some(ScalarType::U32 | ScalarType::S32) if arithmetic => Ok(()),
        Some(ScalarType::B32) if !arithmetic => Ok(()),
        _ if arithmetic => Err("`redux.sync.add`, `.min` and `.max` are `.u32` or `.s32`"
            .to_string()
            .into()),
        _ => Err("`redux.sync.and`, `.or` and `.xor` are `.b32`".to_string().into()),
    }
}

/// `cp.async`: a copy (`.ca` or `.cg`, `.shared.global`, an optional L2 prefetch size) or one
/// of `.commit_group`, `.wait_group`, `.wait_all`.
pub fn cp_async(m: &Mods, _sm: u32) -> Result<(), RuleError> {
    if m.has_flag("mbarrier") {
        return cp_async_mbarrier(m);
    }
    if m.ty().is_some() {
        return Err("only `cp.async.mbarrier.arrive` takes a type (`.b64`)"
            .to_string()
            .into());
    }
    let controls = ["commit_group", "wait_group", "wait_all"];
    let control: Vec<&str> = controls.iter().copied().filter(|c| m.has_flag(c)).collect();
    let copy_mods = m.cache.is_some() || m.flags.iter().any(|f| f != "async" && !controls.contains(&f.as_str()));
    match control.as_slice() {
        [] => {}
        [_] if !copy_mods => return Ok(()),
        [c] => return Err(format!("`cp.async.{c}` takes no other modifier").into()),
        _ => return Err(format!("`cp.async` takes one of `.{}`", controls.join("`, `.")).into()),
    }
    if !matches!(m.cache, Some(CacheOp::Ca | CacheOp::Cg)) {
        return Err("`cp.async` needs `.ca` or `.cg`".to_string().into());
    }
    let to_shared = m.has_flag("shared") || m.has_flag("shared::cta");
    if !(to_shared && m.has_flag("global")) {
        return Err(
            "`cp.async` copies `.shared.global` (write `.shared` or `.shared::cta`, then `.global`)"
                .to_string()
                .into(),
        );
    }
    if m.has_flag("shared") && m.has_flag("shared::cta") {
        return Err("`cp.async` takes one of `.shared` and `.shared::cta`"
            .to_string()
            .into());
    }
    Ok(())
}

/// `cp.async.mbarrier.arrive{.noinc}{.shared|.shared::cta}.b64 [bar]`: no other modifier;
/// without a state space the address is generic.
fn cp_async_mbarrier(m: &Mods) -> Result<(), RuleError> {
    let allowed = ["async", "mbarrier", "arrive", "noinc", "shared", "shared::cta"];
    let stray = m.flags.iter().find(|f| !allowed.contains(&f.as_str()));
    if !m.has_flag("arrive") || m.cache.is_some() || stray.is_some() || m.ty() != Some(ScalarType::B64) {
        return Err(
            "write `cp.async.mbarrier.arrive{.noinc}{.shared|.shared::cta}.b64 [bar]`"
                .to_string()
                .into(),
        );
    }
    if m.has_flag("shared") && m.has_flag("shared::cta") {
        return Err("`cp.async.mbarrier.arrive` takes one of `.shared` and `.shared::cta`"
            .to_string()
            .into());
    }
    Ok(())
}

/// The operand shapes of `cp.async`: a copy's, a group operation's, an arrival's.
pub fn cp_async_operands(m: &Mods) -> &'static str {
    if m.has_flag("mbarrier") {
        "a"
    } else if m.has_flag("L2::cache_hint") {
        "a a i s:b64|a a i s:u32 s:b64"
    } else {
        "a a i|a a i s:u32||i"
    }
}

/// Operand shapes of `ld`: `.L2::cache_hint` adds the 64-bit cache policy.
pub fn load_operands(m: &Mods) -> &'static str {
    if m.has_flag("L2::cache_hint") {
        "d:T a s:b64"
    } else {
        "d:T a"
    }
}

/// Operand shapes of `st`: `.L2::cache_hint` adds the 64-bit cache policy.
pub fn store_operands(m: &Mods) -> &'static str {
    if m.has_flag("L2::cache_hint") {
        "a s:T s:b64"
    } else {
        "a s:T"
    }
}

/// `mbarrier` (sm_80): one operation; on `.shared` or generic addresses; `.noComplete` on an arrival
/// with a count (an arrival with a count but without `.noComplete`, and `try_wait`, need
/// sm_90, as ptxas says); `.parity` on `test_wait`; `.release` on arrivals, `.acquire` on
/// `test_wait`, both `.cta` only.
pub fn mbarrier(m: &Mods, _sm: u32) -> Result<(), RuleError> {
    if m.has_flag("try_wait") {
        let parity = if m.has_flag("parity") { ".parity" } else { "" };
        return Err(needs_sm(&format!("mbarrier.try_wait{parity}"), 90));
    }
    let arrival = m.has_flag("arrive") || m.has_flag("arrive_drop");
    if m.has_flag("noComplete") && !arrival {
        return Err("`.noComplete` goes with `mbarrier.arrive` and `.arrive_drop`"
            .to_string()
            .into());
    }
    if m.has_flag("parity") && !m.has_flag("test_wait") {
        return Err("`.parity` goes with `mbarrier.test_wait`".to_string().into());
    }
    let pending = m.has_flag("pending_count");
    if pending && m.space.is_some() {
        return Err("`mbarrier.pending_count` reads a state, it takes no state space"
            .to_string()
            .into());
    }
    let (order_ok, order) = match m.order {
        None => (true, ""),
        Some(MemOrder::Release) => (arrival, "release"),
        Some(MemOrder::Acquire) => (m.has_flag("test_wait"), "acquire"),
        Some(_) => (false, "this order"),
    };
    if !order_ok {
        return Err(format!("`.{order}` does not go with this `mbarrier` operation").into());
    }
    if m.order.is_some() != m.scope.is_some() || m.scope.is_some_and(|s| s != MemScope::Cta) {
        return Err(
            "`mbarrier` orders at `.cta` scope: write `.release.cta` or `.acquire.cta`"
                .to_string()
                .into(),
        );
    }
    Ok(())
}

/// The operand shapes of `createpolicy`: `d[, fraction]` for `.fractional`, `d, [a],
/// primary_size, total_size` for `.range`.
pub fn createpolicy_operands(m: &Mods) -> &'static str {
    if m.has_flag("range") {
        "d:b64 a s:u32 s:u32"
    } else {
        "d:b64|d:b64 s:f32"
    }
}

/// The operand shapes of an `mbarrier` operation (an arrival's count and `.noComplete` go
/// together: `check_shape`).
pub fn mbarrier_operands(m: &Mods) -> &'static str {
    if m.has_flag("init") {
        "a s:u32"
    } else if m.has_flag("arrive") || m.has_flag("arrive_drop") {
        "d:b64 a|d:b64 a s:u32"
    } else if m.has_flag("test_wait") {
        if m.has_flag("parity") {
            "d:pred a s:u32"
        } else {
            "d:pred a s:b64"
        }
    } else if m.has_flag("pending_count") {
        "d:u32 s:b64"
    } else {
        "a"
    }
}

/// `createpolicy` (sm_80): `.fractional` or `.range` (with an optional `.global`), a primary
/// eviction priority and an optional secondary (`.L2::evict_unchanged` or `.L2::evict_first`).
pub fn createpolicy(m: &Mods, _sm: u32) -> Result<(), RuleError> {
    let mode = if m.has_flag("range") { "range" } else { "fractional" };
    if m.space.is_some() && mode == "fractional" {
        return Err(
            "`createpolicy.fractional` takes no state space (`.global` is for `.range`)"
                .to_string()
                .into(),
        );
    }
    if m.space.is_some_and(|s| s != crate::ast::StateSpace::Global) {
        return Err("`createpolicy.range` takes only the `.global` state space"
            .to_string()
            .into());
    }
    let priorities: Vec<&str> = m
        .flags
        .iter()
        .map(String::as_str)
        .filter(|f| f.starts_with("L2::"))
        .collect();
    match priorities.as_slice() {
        [_] => Ok(()),
        [_, "L2::evict_unchanged" | "L2::evict_first"] => Ok(()),
        [] => Err(format!("`createpolicy.{mode}` needs a primary priority (e.g. `.L2::evict_last`)").into()),
        _ => Err(format!(
            "`createpolicy.{mode}` takes a primary priority and an optional secondary one, `.L2::evict_unchanged` or `.L2::evict_first`"
        )
        .into()),
    }
}
