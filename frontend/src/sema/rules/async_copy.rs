//! `cp.async` (sm_80): copies, group operations and `cp.async.mbarrier.arrive`, and their
//! operand shapes.

use super::*;

/// `cp.async`: a copy (`.ca` or `.cg`, `.shared.global`, an optional L2 prefetch size) or one
/// of `.commit_group`, `.wait_group`, `.wait_all`.
pub fn cp_async(m: &Mods, sm: u32) -> Result<(), RuleError> {
    if m.has_flag("bulk") {
        return cp_async_bulk(m, sm);
    }
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

/// `cp.async.bulk` (sm_90, PTX 8.0): a copy from global into shared memory completed on an
/// mbarrier (`.shared::cluster.global.mbarrier::complete_tx::bytes`, or `.shared::cta` as
/// the destination), a copy from shared to global memory in a bulk group
/// (`.global.shared::cta.bulk_group`), and the group's `.commit_group` and
/// `.wait_group{.read}`. Multicast, cache hints and copies between shared memories are
/// refused as not supported.
fn cp_async_bulk(m: &Mods, sm: u32) -> Result<(), RuleError> {
    if sm < 90 {
        return Err(needs_sm("cp.async.bulk", 90));
    }
    let has = |fs: &[&str]| fs.iter().all(|f| m.has_flag(f));
    let only = |allowed: &[&str]| {
        m.cache.is_none() && m.ty().is_none() && m.flags.iter().all(|f| allowed.contains(&f.as_str()))
    };
    if m.has_flag("tensor") {
        return cp_async_bulk_tensor(m, &has, &only);
    }
    let to_shared = (m.has_flag("shared::cluster") || m.has_flag("shared::cta"))
        && !(m.has_flag("shared::cluster") && m.has_flag("shared::cta"));
    let form_ok = if m.has_flag("commit_group") {
        only(&["async", "bulk", "commit_group"])
    } else if m.has_flag("wait_group") {
        only(&["async", "bulk", "wait_group", "read"])
    } else if m.has_flag("bulk_group") {
        has(&["global", "shared::cta"]) && only(&["async", "bulk", "global", "shared::cta", "bulk_group"])
    } else {
        to_shared
            && has(&["global", "mbarrier::complete_tx::bytes"])
            && only(&[
                "async",
                "bulk",
                "shared::cluster",
                "shared::cta",
                "global",
                "mbarrier::complete_tx::bytes",
            ])
    };
    if !form_ok {
        return Err(concat!(
            "write `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], size, [bar]`, ",
            "`cp.async.bulk.global.shared::cta.bulk_group [dst], [src], size`, `cp.async.bulk.commit_group` or ",
            "`cp.async.bulk.wait_group{.read} n` (multicast, cache hints and shared-to-shared copies are not supported)"
        )
        .to_string()
        .into());
    }
    Ok(())
}

/// `cp.async.bulk.tensor.<n>d` (sm_90, PTX 8.0), tiled: a load into shared memory completed
/// on an mbarrier (`.shared::cluster.global{.tile}.mbarrier::complete_tx::bytes [dst], [map,
/// {c...}], [bar]`) or a store from shared memory in a bulk group
/// (`.global.shared::cta{.tile}.bulk_group [map, {c...}], [src]`). im2col, multicast,
/// cache hints and reductions are refused as not supported.
fn cp_async_bulk_tensor(
    m: &Mods,
    has: &dyn Fn(&[&str]) -> bool,
    only: &dyn Fn(&[&str]) -> bool,
) -> Result<(), RuleError> {
    let dims = ["1d", "2d", "3d", "4d", "5d"].iter().filter(|d| m.has_flag(d)).count();
    let common = [
        "async",
        "bulk",
        "tensor",
        "1d",
        "2d",
        "3d",
        "4d",
        "5d",
        "tile",
        "global",
        "shared::cta",
    ];
    let load: Vec<&str> = common
        .iter()
        .copied()
        .chain(["shared::cluster", "mbarrier::complete_tx::bytes"])
        .collect();
    let store: Vec<&str> = common.iter().copied().chain(["bulk_group"]).collect();
    let ok = dims == 1
        && if m.has_flag("bulk_group") {
            has(&["global", "shared::cta"]) && only(&store)
        } else {
            (m.has_flag("shared::cluster") || m.has_flag("shared::cta"))
                && has(&["global", "mbarrier::complete_tx::bytes"])
                && only(&load)
        };
    if !ok {
        return Err(concat!(
            "write `cp.async.bulk.tensor.<n>d.shared::cluster.global{.tile}.mbarrier::complete_tx::bytes [dst], ",
            "[map, {c...}], [bar]` or `cp.async.bulk.tensor.<n>d.global.shared::cta{.tile}.bulk_group [map, {c...}], [src]` ",
            "(im2col, multicast, cache hints and reductions are not supported)"
        )
        .to_string()
        .into());
    }
    Ok(())
}

/// The operand shapes of `cp.async`: a copy's, a group operation's, an arrival's.
pub fn cp_async_operands(m: &Mods) -> &'static str {
    if m.has_flag("bulk") {
        return if m.has_flag("tensor") {
            if m.has_flag("bulk_group") { "t a" } else { "a t a" }
        } else if m.has_flag("commit_group") {
            ""
        } else if m.has_flag("wait_group") {
            "i"
        } else if m.has_flag("bulk_group") {
            "a a s:u32"
        } else {
            "a a s:u32 a"
        };
    }
    if m.has_flag("mbarrier") {
        "a"
    } else if m.has_flag("L2::cache_hint") {
        "a a i s:b64|a a i s:u32 s:b64"
    } else {
        "a a i|a a i s:u32||i"
    }
}
