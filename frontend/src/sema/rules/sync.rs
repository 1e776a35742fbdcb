//! Synchronisation rules: `bar`/`barrier`, `fence`, `vote`, `redux.sync` and `mbarrier`.

use super::*;

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
pub fn fence(m: &Mods, sm: u32) -> Result<(), RuleError> {
    let spaces = ["shared", "shared::cta", "global"];
    if m.has_flag("proxy") {
        if !m.has_flag("async") || m.scope.is_some() {
            return Err(
                "ptxc compiles `fence.proxy.async` (with `.shared::cta`, `.global` or no space) of the proxy fences"
                    .to_string()
                    .into(),
            );
        }
        if sm < 90 {
            return Err(needs_sm("fence.proxy.async", 90));
        }
        return Ok(());
    }
    if m.has_flag("async") || spaces.iter().any(|s| m.has_flag(s)) {
        return Err("only `fence.proxy.async` takes `.async` or a state space"
            .to_string()
            .into());
    }
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

/// `setmaxnreg` (sm_90a, PTX 8.0): `.inc` or `.dec`, `.sync.aligned`, `.u32`.
pub fn setmaxnreg(_: &Mods, sm: u32) -> Result<(), RuleError> {
    if sm < 90 {
        return Err(needs_sm("setmaxnreg", 90));
    }
    Ok(())
}

/// `mbarrier` (sm_80): one operation; on `.shared` or generic addresses; `.noComplete` on an arrival
/// with a count (an arrival with a count but without `.noComplete`, and `try_wait`, need
/// sm_90, as ptxas says); `.parity` on `test_wait`; `.release` on arrivals, `.acquire` on
/// `test_wait`, both `.cta` only. Transaction counts (sm_90): `expect_tx` and `complete_tx`
/// alone or `arrive.expect_tx`, `.relaxed.cta` or unordered (`arrive.expect_tx` also
/// `.release.cta`).
pub fn mbarrier(m: &Mods, sm: u32) -> Result<(), RuleError> {
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
    if m.order.is_some() != m.scope.is_some() || m.scope.is_some_and(|s| s != MemScope::Cta) {
        return Err(
            "`mbarrier` orders at `.cta` scope: write `.release.cta` or `.acquire.cta`"
                .to_string()
                .into(),
        );
    }
    Ok(())
}

/// `mbarrier.expect_tx`, `mbarrier.complete_tx` and `mbarrier.arrive.expect_tx` (sm_90, PTX
/// 8.0) on `.shared` or `.shared::cta` barriers (`.shared::cluster` ones need clusters,
/// which ptxc does not compile yet).
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
    if !order_ok || m.order.is_some() != m.scope.is_some() || m.scope.is_some_and(|s| s != MemScope::Cta) {
        let orders = if arrive {
            "`.release.cta` or `.relaxed.cta`"
        } else {
            "`.relaxed.cta`"
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
