//! Hopper's mbarrier instructions (sm_90): SYNCS.EXCH (init), SYNCS.ARRIVE (arrivals),
//! SYNCS.PHASECHK (test and try waits), SYNCS.CCTL (inval), and the barrier word they share
//! with Hopper's `ARRIVES.LDGSTSBAR.64` ([`HopperBarrier`]).
//!
//! The word's layout is read off ptxas 13.5's sm_90 SASS for `tests/ampere/mbarrier*.ptx`:
//! `mbarrier.init` of `n` stores `(2^20 - n) << 1` in the low word and `(2^20 - n) << 11`
//! in the high word (SYNCS.EXCH.64 of a pair ptxas computes); `mbarrier.pending_count` of a
//! state is `2^20 - ((hi >> 11) & 0xfffff)`; a wait on a state compares bit 31 of its high
//! word (the phase) with the barrier's, and a parity wait passes the parity in bit 31. The
//! rest is a model that follows the PTX ISA: an arrival (a warp's, see [`arrive`]) adds its
//! count to the pending field
//! (bits 43..62); when that reaches 2^20 (nothing pending) the phase (bit 63) flips and the
//! field restarts from the expected one (bits 1..20), which `arrive_drop` (`.OPTOUT`) raises
//! by its count first. Transaction counts (`.A0TX`, `.A0TR`, PTX `expect_tx` and
//! `complete_tx`, TMA) and `.TMASK` are not simulated: such an instruction faults.

use super::mem::{address_of, read_bytes, space_of, write_bytes};
use crate::decoded::{Decoded, Src, SrcOp};
use crate::error::SimError;
use crate::exec::ctx::Ctx;
use crate::exec::warp::{WARP, Warp, lanes};
use ptxc_sass::isa::inst::URZ;
use ptxc_sass::isa::values::ArrivalKind;

type R = Result<(), SimError>;

/// The 20-bit count fields of the word.
const COUNT: u64 = 1 << 20;
const FIELD: u64 = COUNT - 1;
/// Where the expected and pending counts (as `2^20 - n`) and the phase are.
const EXPECTED_AT: u32 = 1;
const PENDING_AT: u32 = 43;
const PHASE_AT: u32 = 63;

/// A Hopper mbarrier word (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HopperBarrier(pub u64);

impl HopperBarrier {
    /// The current phase's parity.
    pub fn phase(self) -> u64 {
        self.0 >> PHASE_AT & 1
    }

    /// `count` arrivals; `drop` first takes them off the expected count of later phases.
    pub fn arrive(self, count: u64, drop: bool) -> Self {
        let mut expected = self.0 >> EXPECTED_AT & FIELD;
        if drop {
            expected = (expected + count) & FIELD;
        }
        let mut pending = (self.0 >> PENDING_AT & FIELD) + count;
        let mut phase = self.phase();
        if pending >= COUNT {
            pending = expected;
            phase ^= 1;
        }
        self.with(expected, pending, phase)
    }

    /// `n` more pending arrivals in the current phase (`.A0T1`, one per lane).
    pub fn expect_more(self, n: u64) -> Self {
        let pending = (self.0 >> PENDING_AT & FIELD).wrapping_sub(n) & FIELD;
        self.with(self.0 >> EXPECTED_AT & FIELD, pending, self.phase())
    }

    /// The word with its fields replaced (other bits kept).
    fn with(self, expected: u64, pending: u64, phase: u64) -> Self {
        let mask = FIELD << EXPECTED_AT | FIELD << PENDING_AT | 1 << PHASE_AT;
        HopperBarrier(self.0 & !mask | expected << EXPECTED_AT | pending << PENDING_AT | phase << PHASE_AT)
    }
}

/// Reads the barrier of `lane` at `addr`.
fn load(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, lane: usize, addr: u64) -> Result<u64, SimError> {
    let mut buf = [0u8; 8];
    read_bytes(ctx, w, d, space_of(d), lane, addr, &mut buf)?;
    Ok(u64::from_le_bytes(buf))
}

/// Faults for what the simulator does not model.
fn not_simulated(ctx: &Ctx, w: &Warp, d: &Decoded, group: u32, what: &str) -> SimError {
    SimError::Unsupported {
        at: ctx.at(w, group.trailing_zeros() as usize, d.pc),
        what: format!("{} ({what} is not simulated)", d.text()),
    }
}

/// `SYNCS.ARRIVE.TRANS64.<kind> Rd, [a], Rb`: the warp arrives once on each barrier its
/// active lanes name, with their counts summed, and each lane receives its barrier as it was
/// before the warp's arrival. That the arrival is the warp's rests on ptxas 13.5's sm_90
/// SASS: for `mbarrier.pending_count` summed over the threads (`tests/ampere/mbarrier.ptx`)
/// it multiplies one lane's count by the number of active lanes (`UPOPC`), where its sm_80
/// code with ATOMS.ARRIVE (one arrival per lane) adds every lane's own.
pub fn arrive(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32, exec: u32) -> R {
    if d.m.tx_mask {
        return Err(not_simulated(ctx, w, d, group, "`.TMASK`"));
    }
    let Some(a) = d.addr else { return Ok(()) };
    let addrs: Vec<(usize, u64)> = lanes(exec).map(|l| (l, address_of(w, &a, l))).collect();
    let mut old = [0u64; WARP];
    for &(first, addr) in &addrs {
        if addrs.iter().any(|&(l, x)| x == addr && l < first) {
            continue;
        }
        let sharing: Vec<usize> = addrs.iter().filter(|&&(_, x)| x == addr).map(|&(l, _)| l).collect();
        let before = HopperBarrier(load(ctx, w, d, first, addr)?);
        let count = |ctx: &Ctx, w: &Warp| -> u64 { sharing.iter().map(|&l| u64::from(ctx.src32(w, &d.b, l))).sum() };
        let after = match d.m.arrival {
            ArrivalKind::One => before.arrive(sharing.len() as u64, d.m.opt_out),
            ArrivalKind::FromRegister => before.arrive(count(ctx, w), d.m.opt_out),
            ArrivalKind::OnePending => before.expect_more(sharing.len() as u64),
            ArrivalKind::TxFromRegister | ArrivalKind::ExpectTx | ArrivalKind::OneExpectTx => {
                return Err(not_simulated(ctx, w, d, group, "a transaction count"));
            }
        };
        write_bytes(ctx, w, d, space_of(d), first, addr, &after.0.to_le_bytes())?;
        for l in sharing {
            old[l] = before.0;
        }
    }
    if d.dst.present() {
        super::write_dst64(w, &d.dst, exec, &old);
    }
    Ok(())
}

/// `SYNCS.PHASECHK.TRANS64 Pd, [a], Rb`: Pd = the barrier's phase differs from bit 31 of Rb
/// (the phase of a state, or a parity).
pub fn phasechk(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let Some(a) = d.addr else { return Ok(()) };
    let mut done = 0u32;
    for l in lanes(exec) {
        let addr = address_of(w, &a, l);
        let phase = HopperBarrier(load(ctx, w, d, l, addr)?).phase();
        if phase != u64::from(ctx.src32(w, &d.b, l) >> 31) {
            done |= 1 << l;
        }
    }
    w.set_pred(d.pd[0].idx, exec, done);
    Ok(())
}

/// `SYNCS.EXCH.64 URd, [URa+off], URb`: once for the warp, the barrier becomes URb's pair and
/// URd's pair receives what it was.
pub fn exch(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (Some(a), Some(lane)) = (d.addr, lanes(exec).next()) else {
        return Ok(());
    };
    let addr = address_of(w, &a, lane);
    let old = load(ctx, w, d, lane, addr)?;
    let r = ureg_of(&d.b);
    let new = u64::from(w.ureg(r)) | u64::from(w.ureg(r.saturating_add(1))) << 32;
    write_bytes(ctx, w, d, space_of(d), lane, addr, &new.to_le_bytes())?;
    if d.dst.present() {
        w.set_ureg(d.dst.reg, old as u32);
        w.set_ureg(d.dst.reg.saturating_add(1), (old >> 32) as u32);
    }
    Ok(())
}

/// The uniform register a source names (URZ for anything else).
fn ureg_of(s: &SrcOp) -> u8 {
    match s.src {
        Src::UReg(r) => r,
        _ => URZ,
    }
}

/// `SYNCS.CCTL.IV [a]` (`mbarrier.inval`): the address must be shared memory (checked as a
/// read); the simulator keeps no state to invalidate.
pub fn cctl(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let Some(a) = d.addr else { return Ok(()) };
    for l in lanes(exec) {
        let addr = address_of(w, &a, l);
        load(ctx, w, d, l, addr)?;
    }
    Ok(())
}

#[cfg(test)]
impl HopperBarrier {
    /// The barrier ptxas's `mbarrier.init` makes for `n` expected arrivals.
    fn init(n: u32) -> Self {
        let c = COUNT - u64::from(n) % COUNT;
        HopperBarrier(c << EXPECTED_AT | c << PENDING_AT)
    }

    /// Arrivals still pending in the current phase (ptxas's `mbarrier.pending_count`).
    fn pending(self) -> u64 {
        COUNT - (self.0 >> PENDING_AT & FIELD)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn init_matches_ptxas_words() {
        // ptxas's init of 64 (`tests/ampere/mbarrier.ptx`, sm_90): UR6 = (2^20 - 64) << 1,
        // UR7 = (2^20 - 64) << 11.
        let b = HopperBarrier::init(64);
        assert_eq!(b.0 as u32, (0x10_0000 - 64) << 1);
        assert_eq!((b.0 >> 32) as u32, (0x10_0000 - 64) << 11);
        assert_eq!(b.pending(), 64);
        assert_eq!(b.phase(), 0);
    }

    #[test]
    fn arrivals_complete_a_phase_and_restart_the_count() {
        let b = HopperBarrier::init(2).arrive(1, false);
        assert_eq!((b.pending(), b.phase()), (1, 0));
        let b = b.arrive(1, false);
        assert_eq!((b.pending(), b.phase()), (2, 1));
        // A drop lowers the count of the phases after its own.
        let b = b.arrive(1, true);
        assert_eq!((b.pending(), b.phase()), (1, 1));
        let b = b.arrive(1, false);
        assert_eq!((b.pending(), b.phase()), (1, 0));
        // One more pending, then two arrivals complete the phase.
        let b = b.expect_more(1);
        assert_eq!(b.pending(), 2);
        assert_eq!(b.arrive(2, false).phase(), 1);
    }
}
