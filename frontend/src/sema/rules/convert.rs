//! `cvt`: mandatory rounding by source and destination type, saturation, and the conversions
//! sm_80 adds.

use super::*;

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
