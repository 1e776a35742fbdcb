//! Warp-wide instructions: SHFL (IDX/UP/DOWN/BFLY with clamp and segment mask), VOTE and
//! VOTEU (ALL/ANY/EQ and the ballot), MATCH (ANY/ALL over 32- or 64-bit values). The lanes
//! that take part are the executing lanes of the group.

use super::write_dst;
use crate::decoded::Decoded;
use crate::error::SimError;
use crate::exec::ctx::Ctx;
use crate::exec::warp::{WARP, Warp, lanes};
use ptxc_sass::isa::values::{MatchMode, ReduxOp, ShflMode, VoteMode};

type R = Result<(), SimError>;

/// The source lane and validity of a shuffle for `lane` (PTX `shfl` semantics).
pub fn shuffle_source(mode: ShflMode, lane: u32, b: u32, c: u32) -> (u32, bool) {
    let bval = b & 0x1f;
    let cval = c & 0x1f;
    let segmask = (c >> 8) & 0x1f;
    let max_lane = (lane & segmask) | (cval & !segmask);
    let min_lane = lane & segmask;
    let (j, ok) = match mode {
        ShflMode::Up => {
            let j = lane as i32 - bval as i32;
            (j, j >= max_lane as i32)
        }
        ShflMode::Down => {
            let j = lane + bval;
            (j as i32, j <= max_lane)
        }
        ShflMode::Idx => {
            let j = min_lane | (bval & !segmask);
            (j as i32, j <= max_lane)
        }
        ShflMode::Bfly => {
            let j = lane ^ bval;
            (j as i32, j <= max_lane)
        }
    };
    if ok { (j as u32 & 31, true) } else { (lane, false) }
}

/// SHFL: exchange a register between lanes; the predicate destination says whether the
/// source lane was in range.
pub fn shfl(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (a, b, c) = (ctx.row(w, &d.a), ctx.row(w, &d.b), ctx.row(w, &d.c));
    let mut out = [0u32; WARP];
    let mut valid = 0u32;
    for l in lanes(exec) {
        let (j, ok) = shuffle_source(d.m.shfl, l as u32, b[l], c[l]);
        out[l] = a[j as usize];
        valid |= (ok as u32) << l;
    }
    write_dst(w, &d.dst, exec, &out);
    w.set_pred(d.pd[0].idx, exec, valid);
    Ok(())
}

/// The ballot of the predicate source over `exec` and the vote's result.
fn ballot(w: &Warp, d: &Decoded, exec: u32) -> (u32, bool) {
    let ballot = w.pred_mask(d.ps[0], exec);
    let result = match d.m.vote {
        VoteMode::All => ballot == exec,
        VoteMode::Any => ballot != 0,
        VoteMode::Eq => ballot == 0 || ballot == exec,
    };
    (ballot, result)
}

/// VOTE: the ballot to the destination register, the vote to the predicate destination.
pub fn vote(_: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (b, r) = ballot(w, d, exec);
    write_dst(w, &d.dst, exec, &[b; WARP]);
    w.set_pred(d.pd[0].idx, exec, if r { u32::MAX } else { 0 });
    Ok(())
}

/// VOTEU: the ballot to a uniform register, the vote to a uniform predicate.
pub fn voteu(_: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    if exec == 0 {
        return Ok(());
    }
    let (b, r) = ballot(w, d, exec);
    if d.dst.present() {
        w.set_ureg(d.dst.reg, b);
    }
    if d.pd[0].uniform {
        w.set_upred(d.pd[0].idx, r);
    } else {
        w.set_pred(d.pd[0].idx, exec, if r { u32::MAX } else { 0 });
    }
    Ok(())
}

/// ELECT: the lowest active lane whose source predicate holds is elected (the PTX ISA leaves
/// the choice open; lowest is the model's): the predicate destination is true in that lane
/// alone and the uniform destination gets its lane number. With no such lane nothing is
/// elected and the uniform register keeps its value.
pub fn elect(_: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    if exec == 0 {
        return Ok(());
    }
    let eligible = w.pred_mask(d.ps[0], exec);
    let leader = (eligible != 0).then(|| eligible.trailing_zeros());
    if let Some(lane) = leader
        && d.dst.present()
    {
        w.set_ureg(d.dst.reg, lane);
    }
    w.set_pred(d.pd[0].idx, exec, leader.map_or(0, |l| 1u32 << l));
    Ok(())
}

/// MATCH.ANY: each lane gets the lanes holding its value; MATCH.ALL: every lane gets all
/// lanes if they all hold the same value (else 0), and the predicate says so.
pub fn match_(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let vals: [u64; WARP] = std::array::from_fn(|l| {
        if d.m.match64 {
            ctx.src64(w, &d.a, l)
        } else {
            ctx.src32(w, &d.a, l) as u64
        }
    });
    let same = |l: usize| {
        lanes(exec)
            .filter(|&k| vals[k] == vals[l])
            .fold(0u32, |m, k| m | 1 << k)
    };
    let mut out = [0u32; WARP];
    if d.m.match_mode == MatchMode::Any {
        for l in lanes(exec) {
            out[l] = same(l);
        }
    } else {
        let first = exec.trailing_zeros() as usize % WARP;
        let all = exec != 0 && same(first) == exec;
        for l in lanes(exec) {
            out[l] = if all { exec } else { 0 };
        }
        w.set_pred(d.pd[0].idx, exec, if all { u32::MAX } else { 0 });
    }
    write_dst(w, &d.dst, exec, &out);
    Ok(())
}

/// REDUX.op (sm_80): A reduced over the active lanes into the uniform destination (SUM
/// wraps; MIN/MAX signed with `.S32`).
pub fn redux(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    if exec == 0 {
        return Ok(());
    }
    let vals = lanes(exec).map(|l| ctx.src32(w, &d.a, l));
    let signed = d.m.signed;
    let r = match d.m.redux {
        ReduxOp::And => vals.fold(u32::MAX, |x, y| x & y),
        ReduxOp::Or => vals.fold(0, |x, y| x | y),
        ReduxOp::Xor => vals.fold(0, |x, y| x ^ y),
        ReduxOp::Sum => vals.fold(0, u32::wrapping_add),
        ReduxOp::Min if signed => vals.map(|v| v as i32).min().unwrap_or(0) as u32,
        ReduxOp::Max if signed => vals.map(|v| v as i32).max().unwrap_or(0) as u32,
        ReduxOp::Min => vals.min().unwrap_or(0),
        ReduxOp::Max => vals.max().unwrap_or(0),
    };
    if d.dst.present() {
        w.set_ureg(d.dst.reg, r);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffles_follow_ptx() {
        assert_eq!(shuffle_source(ShflMode::Up, 5, 2, 0), (3, true));
        assert_eq!(shuffle_source(ShflMode::Up, 1, 2, 0), (1, false));
        assert_eq!(shuffle_source(ShflMode::Down, 30, 2, 0x1f), (30, false));
        assert_eq!(shuffle_source(ShflMode::Down, 3, 2, 0x1f), (5, true));
        assert_eq!(shuffle_source(ShflMode::Idx, 9, 3, 0x1f), (3, true));
        assert_eq!(shuffle_source(ShflMode::Bfly, 9, 1, 0x1f), (8, true));
        // Segments of 8 lanes (c = 0x1807: segmask 0x18, clamp 7).
        assert_eq!(shuffle_source(ShflMode::Idx, 13, 2, 0x1807), (10, true));
        assert_eq!(shuffle_source(ShflMode::Down, 14, 2, 0x1807), (14, false));
    }
}
