//! Arithmetic, comparison and move rules: rounding and `.ftz`/`.sat` against the type, the
//! half-precision and bf16 forms (and the targets that have them), `min`/`max`, `set`/`setp`.

use super::*;

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
