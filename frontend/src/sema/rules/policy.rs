//! `createpolicy` (sm_80): `.fractional` and `.range` policies and their operand shapes.

use super::*;

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

/// The operand shapes of `createpolicy`: `d[, fraction]` for `.fractional`, `d, [a],
/// primary_size, total_size` for `.range`.
pub fn createpolicy_operands(m: &Mods) -> &'static str {
    if m.has_flag("range") {
        "d:b64 a s:u32 s:u32"
    } else {
        "d:b64|d:b64 s:f32"
    }
}
