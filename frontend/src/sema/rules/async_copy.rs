//! `cp.async` (sm_80): copies, group operations and `cp.async.mbarrier.arrive`, and their
//! operand shapes.

use super::*;

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
