//! Memory access rules: ordering and scope of `ld`/`st`/`atom`, cache hints and the
//! `.L2::cache_hint` operand, vector sizes, and `prefetch`.

use super::*;

fn memory_order(m: &Mods) -> Result<(), RuleError> {
    match m.order {
        Some(MemOrder::Relaxed | MemOrder::Acquire | MemOrder::Release | MemOrder::AcqRel) if m.scope.is_none() => Err(
            "a `.relaxed`/`.acquire`/`.release` access needs a scope (`.cta`, `.cluster`, `.gpu` or `.sys`)"
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

/// A vector access moves at most 16 bytes.
pub(super) fn vector_size(m: &Mods) -> Result<(), RuleError> {
    let bytes = ty(m).size() * m.vector.map_or(1, u32::from);
    if bytes > 16 {
        return Err(format!("a vector access of {bytes} bytes is over the 16-byte limit").into());
    }
    Ok(())
}

/// The cluster features of an access (sm_90): the `.shared::cluster` space and the
/// `.cluster` scope.
fn cluster_access(m: &Mods, name: &str, sm: u32) -> Result<(), RuleError> {
    if m.space == Some(StateSpace::SharedCluster) {
        since(sm, &format!("{name}.shared::cluster"), 90)?;
    }
    if m.scope == Some(MemScope::Cluster) {
        since(sm, &format!("{name}.cluster"), 90)?;
    }
    Ok(())
}

/// `ld`.
pub fn load(m: &Mods, sm: u32) -> Result<(), RuleError> {
    cluster_access(m, "ld", sm)?;
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
    cluster_access(m, "st", sm)?;
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
pub fn atomic(m: &Mods, sm: u32) -> Result<(), RuleError> {
    use ScalarType::*;
    cluster_access(m, "atom", sm)?;
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

/// `isspacep`: `.shared::cluster` needs sm_90.
pub fn isspacep(m: &Mods, sm: u32) -> Result<(), RuleError> {
    cluster_access(m, "isspacep", sm)
}

/// `cvta`: `.shared::cluster` needs sm_90.
pub fn cvta(m: &Mods, sm: u32) -> Result<(), RuleError> {
    cluster_access(m, "cvta", sm)
}

/// `mapa` (sm_90, the opcode's own check): a `.shared::cluster` address or a generic one.
pub fn mapa(m: &Mods, sm: u32) -> Result<(), RuleError> {
    cluster_access(m, "mapa", sm)?;
    match m.space {
        None | Some(StateSpace::SharedCluster) => Ok(()),
        Some(s) => Err(format!(
            "`mapa` maps `.shared::cluster` or generic addresses, not `.{}`",
            s.name()
        )
        .into()),
    }
}
