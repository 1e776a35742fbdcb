//! Synchronisation rules: `bar`/`barrier` (and `barrier.cluster`), `fence`, `vote`,
//! `redux.sync` and `mbarrier`.

use super::*;

/// `bar`/`barrier`.
pub fn barrier(m: &Mods, sm: u32) -> Result<(), RuleError> {
    if m.has_flag("cluster") {
        return cluster_barrier(m, sm);
    }
    if m.has_flag("wait") || m.order.is_some() {
        return Err("`.wait` and memory orders go with `barrier.cluster`".to_string().into());
    }
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

/// `barrier.cluster.arrive{.release|.relaxed}{.aligned}` and
/// `barrier.cluster.wait{.acquire}{.aligned}` (sm_90).
fn cluster_barrier(m: &Mods, sm: u32) -> Result<(), RuleError> {
    if sm < 90 {
        return Err(needs_sm("barrier.cluster", 90));
    }
    let (arrive, wait) = (m.has_flag("arrive"), m.has_flag("wait"));
    if m.sync || m.has_flag("red") || arrive == wait {
        return Err("`barrier.cluster` is `.arrive` or `.wait`".to_string().into());
    }
    if m.bool_op.is_some() || m.ty().is_some() {
        return Err("`barrier.cluster` takes no reduction and no type".to_string().into());
    }
    let order_ok = match m.order {
        None => true,
        Some(MemOrder::Release | MemOrder::Relaxed) => arrive,
        Some(MemOrder::Acquire) => wait,
        Some(_) => false,
    };
    if !order_ok {
        return Err(
            "`barrier.cluster.arrive` takes `.release` or `.relaxed`, `barrier.cluster.wait` `.acquire`"
                .to_string()
                .into(),
        );
    }
    Ok(())
}

/// The operand shapes of `barrier`: none for `barrier.cluster`.
pub fn barrier_operands(m: &Mods) -> &'static str {
    if m.has_flag("cluster") {
        ""
    } else {
        "s:u32|s:u32 s:u32|d:T s:u32 n:pred|d:T s:u32 s:u32 n:pred"
    }
}

/// `fence`: `fence{.sc|.acq_rel}.scope`, `fence.proxy.async{.space}` (sm_90) and
/// `fence.mbarrier_init.release.cluster` (sm_90).
pub fn fence(m: &Mods, sm: u32) -> Result<(), RuleError> {
    let spaces = ["shared", "shared::cta", "shared::cluster", "global"];
    if m.has_flag("proxy") {
        if !m.has_flag("async") || m.scope.is_some() || m.order.is_some() || m.has_flag("mbarrier_init") {
            return Err(
                "ptxc compiles `fence.proxy.async` (with `.shared::cta`, `.shared::cluster`, `.global` or no space) of the proxy fences"
                    .to_string()
                    .into(),
            );
        }
        return since(sm, "fence.proxy.async", 90);
    }
    if m.has_flag("async") || spaces.iter().any(|s| m.has_flag(s)) {
        return Err("only `fence.proxy.async` takes `.async` or a state space"
            .to_string()
            .into());
    }
    if m.has_flag("mbarrier_init") {
        if m.order != Some(MemOrder::Release) || m.scope != Some(MemScope::Cluster) {
            return Err("write `fence.mbarrier_init.release.cluster`".to_string().into());
        }
        return since(sm, "fence.mbarrier_init", 90);
    }
    if !matches!(m.order, None | Some(MemOrder::Sc | MemOrder::AcqRel)) {
        return Err("`fence` is `.sc` or `.acq_rel`".to_string().into());
    }
    match m.scope {
        None => Err("`fence` needs a scope (`.cta`, `.cluster`, `.gpu` or `.sys`)"
            .to_string()
            .into()),
        Some(MemScope::Cluster) => since(sm, "fence.cluster", 90),
        Some(_) => Ok(()),
    }
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

/// `setmaxnreg` (sm_90a, PTX 8.0): `.inc` or `.dec`, `.sync.aligned`, `.u32`.
pub fn setmaxnreg(_: &Mods, sm: u32) -> Result<(), RuleError> {
    if sm < 90 {
        return Err(needs_sm("setmaxnreg", 90));
    }
    Ok(())
}

/// The cluster forms of `mbarrier` (sm_90): the `.cluster` scope, and `.shared::cluster`
/// barriers (another CTA's) for the arrivals and transaction counts alone.
fn mbarrier_cluster(m: &Mods, sm: u32) -> Result<(), RuleError> {
    if m.scope == Some(MemScope::Cluster) {
        since(sm, "mbarrier.cluster", 90)?;
    }
    if m.space != Some(StateSpace::SharedCluster) {
        return Ok(());
    }
    since(sm, "mbarrier.shared::cluster", 90)?;
    let local_only = ["init", "test_wait", "try_wait", "pending_count", "inval"];
    if let Some(op) = local_only.iter().find(|o| m.has_flag(o)) {
        return Err(format!("`mbarrier.{op}` takes a `.shared::cta` barrier, not a `.shared::cluster` one").into());
    }
    Ok(())
}

/// `mbarrier` (sm_80): one operation; on `.shared` or generic addresses; `.noComplete` on an arrival
/// with a count (an arrival with a count but without `.noComplete`, and `try_wait`, need
/// sm_90, as ptxas says); `.parity` on `test_wait`; `.release` on arrivals, `.acquire` on
/// `test_wait`, at `.cta` scope or (sm_90) `.cluster`. Transaction counts (sm_90): `expect_tx`
/// and `complete_tx` alone or `arrive.expect_tx`, `.relaxed` or unordered (`arrive.expect_tx`
/// also `.release`). The arrivals and transaction counts also take another CTA's barrier
/// (`.shared::cluster`).
pub fn mbarrier(m: &Mods, sm: u32) -> Result<(), RuleError> {
    mbarrier_cluster(m, sm)?;
    if m.has_flag("expect_tx") || m.has_flag("complete_tx") {
        return mbarrier_tx(m, sm);
    }
    if m.order == Some(MemOrder::Relaxed) {
        return Err("`.relaxed` goes with `mbarrier.expect_tx` and `.complete_tx`"
            .to_string()
            .into());
    }
    if m.has_flag("try_wait") && sm < 90 {
        let parity = if m.has_flag("parity") { ".parity" } else { "" };
        return Err(needs_sm(&format!("mbarrier.try_wait{parity}"), 90));
    }
    let arrival = m.has_flag("arrive") || m.has_flag("arrive_drop");
    if m.has_flag("noComplete") && !arrival {
        return Err("`.noComplete` goes with `mbarrier.arrive` and `.arrive_drop`"
            .to_string()
            .into());
    }
    let wait = m.has_flag("test_wait") || m.has_flag("try_wait");
    if m.has_flag("parity") && !wait {
        return Err("`.parity` goes with `mbarrier.test_wait` and `.try_wait`"
            .to_string()
            .into());
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
        Some(MemOrder::Acquire) => (wait, "acquire"),
        Some(_) => (false, "this order"),
    };
    if !order_ok {
        return Err(format!("`.{order}` does not go with this `mbarrier` operation").into());
    }
    if m.order.is_some() != m.scope.is_some() || m.scope.is_some_and(|s| !mbarrier_scope(s)) {
        return Err(
            "`mbarrier` orders at `.cta` or `.cluster` scope: write `.release.cta` or `.acquire.cluster`, say"
                .to_string()
                .into(),
        );
    }
    Ok(())
}

/// The scopes `mbarrier` orders at.
fn mbarrier_scope(s: MemScope) -> bool {
    matches!(s, MemScope::Cta | MemScope::Cluster)
}

/// `mbarrier.expect_tx`, `mbarrier.complete_tx` and `mbarrier.arrive.expect_tx` (sm_90, PTX
/// 8.0) on `.shared`, `.shared::cta` or `.shared::cluster` barriers.
fn mbarrier_tx(m: &Mods, sm: u32) -> Result<(), RuleError> {
    let name = if m.has_flag("complete_tx") {
        "complete_tx"
    } else {
        "expect_tx"
    };
    if sm < 90 {
        return Err(needs_sm(&format!("mbarrier.{name}"), 90));
    }
    let ops = [
        "init",
        "arrive_drop",
        "test_wait",
        "try_wait",
        "pending_count",
        "inval",
        "noComplete",
        "parity",
    ];
    let arrive = m.has_flag("arrive");
    if ops.iter().any(|o| m.has_flag(o))
        || (arrive && name == "complete_tx")
        || (m.has_flag("expect_tx") && m.has_flag("complete_tx"))
    {
        return Err(
            "write `mbarrier.expect_tx`, `mbarrier.complete_tx` or `mbarrier.arrive.expect_tx`"
                .to_string()
                .into(),
        );
    }
    let order_ok = match m.order {
        None | Some(MemOrder::Relaxed) => true,
        Some(MemOrder::Release) => arrive,
        Some(_) => false,
    };
    if !order_ok || m.order.is_some() != m.scope.is_some() || m.scope.is_some_and(|s| !mbarrier_scope(s)) {
        let orders = if arrive {
            "`.release` or `.relaxed` at `.cta` or `.cluster` scope"
        } else {
            "`.relaxed` at `.cta` or `.cluster` scope"
        };
        return Err(format!(
            "`mbarrier.{}{name}` takes {orders} or no order",
            if arrive { "arrive." } else { "" }
        )
        .into());
    }
    Ok(())
}

/// The operand shapes of an `mbarrier` operation (an arrival's count and `.noComplete` go
/// together: `check_shape`).
pub fn mbarrier_operands(m: &Mods) -> &'static str {
    if m.has_flag("init") {
        "a s:u32"
    } else if m.has_flag("arrive") && m.has_flag("expect_tx") {
        "d:b64 a s:u32"
    } else if m.has_flag("expect_tx") || m.has_flag("complete_tx") {
        "a s:u32"
    } else if m.has_flag("arrive") || m.has_flag("arrive_drop") {
        "d:b64 a|d:b64 a s:u32"
    } else if m.has_flag("try_wait") {
        // An optional suspend-time hint (nanoseconds) follows the state or parity.
        if m.has_flag("parity") {
            "d:pred a s:u32|d:pred a s:u32 s:u32"
        } else {
            "d:pred a s:b64|d:pred a s:b64 s:u32"
        }
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
