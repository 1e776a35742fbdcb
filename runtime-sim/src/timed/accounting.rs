//! Why a resident warp did not issue, cycle by cycle, without looking at every warp every
//! cycle.
//!
//! Every cycle of a warp from its launch to the cycle after its EXIT is exactly one of: an
//! issue, or one stall reason ([`StallReasons`]). After an instruction issues at `t`, the
//! next one waits, in this order, for the stall count (`stall_until`), the yield hint
//! (`yield_until`) and its scoreboards and DEPBAR (`ready_at`); those cycles are settled
//! lazily by [`settle`], when the warp issues again or its next instruction changes. From
//! `ready_at` on the warp is ready and the scheduler counts each cycle it does not issue
//! (pipe busy, register-bank bubbles, another warp chosen), see [`waiting_cycles`]. Cycles
//! blocked at a CTA or convergence barrier count as barrier time. The statistic
//! `warp_cycles` (launch to exit of every warp) equals the warp instructions plus every
//! stall reason.

use crate::stats::StallReasons;

/// When the next instruction of a warp can issue, and from which cycle on its waiting is
/// not yet accounted.
#[derive(Clone, Copy, Debug)]
pub struct Waits {
    /// First cycle not yet accounted.
    pub since: i64,
    /// The stall count of the previous instruction holds until here.
    pub stall_until: i64,
    /// The yield hint holds until here.
    pub yield_until: i64,
    /// Scoreboards (wait mask, DEPBAR) allow the issue from here.
    pub ready_at: i64,
}

/// Accounts the cycles `since .. upto` that precede `ready_at` as stall count, yield and
/// scoreboard waits (cycles from `ready_at` on are the scheduler's) and moves `since` to
/// `upto`.
pub fn settle(stalls: &mut StallReasons, w: &mut Waits, upto: i64) {
    if upto <= w.since {
        return;
    }
    let a = w.stall_until.clamp(w.since, upto);
    stalls.stall_count += (a - w.since) as u64;
    let b = w.yield_until.clamp(a, upto);
    stalls.yield_ += (b - a) as u64;
    let c = w.ready_at.clamp(b, upto);
    stalls.scoreboard += (c - b) as u64;
    w.since = upto;
}

/// Accounts the cycles `from .. to` in which a ready warp could not issue because its
/// sub-partition had register-bank bubbles (until `busy_until`) or its pipe was busy (the
/// rest: the scheduler skipped ahead to the first cycle some warp can issue).
pub fn waiting_cycles(stalls: &mut StallReasons, from: i64, to: i64, busy_until: i64) {
    if to <= from {
        return;
    }
    let bank = (busy_until.clamp(from, to) - from) as u64;
    stalls.bank_conflict += bank;
    stalls.pipe_busy += (to - from) as u64 - bank;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_split_in_order_and_count_once() {
        let mut s = StallReasons::default();
        let mut w = Waits {
            since: 11,
            stall_until: 14,
            yield_until: 15,
            ready_at: 20,
        };
        settle(&mut s, &mut w, 17);
        assert_eq!((s.stall_count, s.yield_, s.scoreboard), (3, 1, 2));
        settle(&mut s, &mut w, 17);
        assert_eq!(s.total(), 6);
        settle(&mut s, &mut w, 25);
        assert_eq!(s.scoreboard, 5, "only up to ready_at; the scheduler counts the rest");
        waiting_cycles(&mut s, 20, 25, 22);
        assert_eq!((s.bank_conflict, s.pipe_busy), (2, 3));
    }
}
