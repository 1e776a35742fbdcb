//! Asynchronous copies (sm_80 on): `LDGSTS` copies 4, 8 or 16 bytes per lane from global to
//! shared memory; `LDGDEPBAR` closes a group of them (its timing is the timer's).
//!
//! The copy lands when it issues: a program that reads the shared bytes before waiting for
//! the group (`DEPBAR.LE`) is not caught here. What `.ZFILL` means rests on ptxas's SASS
//! alone: for `cp.async ..., cp-size, src-size` ptxas adds `(cp-size - src-size) mod cp-size`
//! to the global address and passes `src-size != 0` as the predicate operand, so the low
//! address bits count the trailing bytes to zero-fill and a false predicate zero-fills all.
//!
//! `ARRIVES.LDGSTSBAR.64` (PTX `cp.async.mbarrier.arrive`) arrives on a shared-memory
//! `mbarrier` for each active lane when the copies the warp issued before it have landed
//! (the PTX ISA: "when all prior cp.async operations initiated by the executing thread
//! complete"; the simulator tracks copies per warp): at once if they have, otherwise the
//! arrival waits in the CTA until the timed engine reaches that cycle
//! ([`apply_arrivals`]).

use super::atomic::mbarrier_arrive;
use super::mem::{Space, address_row, read_bytes, write_bytes};
use super::syncs::HopperBarrier;
use crate::decoded::Decoded;
use crate::error::SimError;
use crate::exec::ctx::{CtaShared, Ctx, PendingArrival, split_shared};
use crate::exec::warp::{Warp, lanes};

type R = Result<(), SimError>;

/// `LDGSTS [shared], [global], Pc`.
pub fn ldgsts(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32, exec: u32) -> R {
    let (Some(to), Some(from)) = (d.addr, d.src_addr) else {
        return super::unsupported(ctx, w, d, group, exec);
    };
    let size = d.m.size.bytes() as usize;
    let copying = w.pred_mask(d.ps[0], exec);
    let (dsts, srcs) = (address_row(w, &to), address_row(w, &from));
    for l in lanes(exec) {
        let mut buf = [0u8; 16];
        let data = &mut buf[..size];
        let on = copying & (1 << l) != 0;
        if d.m.zfill {
            if on {
                // The bytes before the fill, one at a time: the copy may end at the end of
                // its allocation.
                let fill = (srcs[l] % size as u64) as usize;
                let start = srcs[l] - fill as u64;
                for (k, byte) in data[..size - fill].iter_mut().enumerate() {
                    read_bytes(
                        ctx,
                        w,
                        d,
                        Space::Global,
                        l,
                        start + k as u64,
                        std::slice::from_mut(byte),
                    )?;
                }
            }
        } else if on {
            read_bytes(ctx, w, d, Space::Global, l, srcs[l], data)?;
        } else {
            continue;
        }
        write_bytes(ctx, w, d, Space::Shared, l, dsts[l], data)?;
    }
    Ok(())
}

/// `ARRIVES.LDGSTSBAR.64 [a]`: each active lane's arrival on the barrier at `a`, now or when
/// the warp's copies have landed. The barrier is checked to be in shared memory at issue.
pub fn arrives(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32, exec: u32) -> R {
    let Some(a) = d.addr else {
        return super::unsupported(ctx, w, d, group, exec);
    };
    let addrs = address_row(w, &a);
    for l in lanes(exec) {
        let mut buf = [0u8; 8];
        read_bytes(ctx, w, d, Space::Shared, l, addrs[l], &mut buf)?;
        let arrival = PendingArrival {
            at: ctx.copies_landed,
            addr: addrs[l] as u32,
            hopper: d.m.arrives_count.is_some(),
            tx: 0,
        };
        if arrival.at <= ctx.now {
            arrive(ctx.cta, arrival);
        } else {
            ctx.cta.pending_arrivals.push(arrival);
        }
    }
    Ok(())
}

/// Makes the pending arrivals of `cta` due at cycle `t` (or before), in the order of their
/// cycles; returns whether any was made.
pub fn apply_arrivals(cta: &mut CtaShared, t: i64) -> bool {
    if cta.pending_arrivals.iter().all(|p| p.at > t) {
        return false;
    }
    let mut due: Vec<PendingArrival> = Vec::new();
    cta.pending_arrivals.retain(|p| {
        let keep = p.at > t;
        if !keep {
            due.push(*p);
        }
        keep
    });
    due.sort_by_key(|p| p.at);
    for p in due {
        arrive(cta, p);
    }
    true
}

/// One arrival on the barrier at shared offset `addr` (checked in bounds at issue), in
/// Ampere's or Hopper's layout, or the transaction bytes of a landed bulk copy.
fn arrive(cta: &mut CtaShared, arrival: PendingArrival) {
    let at = split_shared(u64::from(arrival.addr)).1;
    if let Some(bytes) = cta.shared.get_mut(at..at + 8) {
        let old = u64::from_le_bytes(bytes.try_into().expect("eight bytes"));
        let new = if arrival.tx > 0 {
            HopperBarrier(old).add_tx(-i64::from(arrival.tx)).0
        } else if arrival.hopper {
            HopperBarrier(old).arrive(1, false).0
        } else {
            mbarrier_arrive(old)
        };
        bytes.copy_from_slice(&new.to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cta() -> CtaShared {
        CtaShared {
            ctaid: [0; 3],
            shared: vec![0; 16],
            bar_arrived: [0; 16],
            bar_expected: [0; 16],
            bar_red: [(0, true, false); 16],
            bar_redop: [Default::default(); 16],
            bar_result: (0, false),
            live_threads: 0,
            pending_arrivals: Vec::new(),
            sm: 0,
            unfenced: Vec::new(),
            cluster: Default::default(),
            cga_arrived: 0,
        }
    }

    #[test]
    fn pending_arrivals_are_made_at_their_cycle() {
        let mut c = cta();
        // ptxas's init of a barrier of 2 at offset 8.
        c.shared[8..16].copy_from_slice(&(0x7fff_fffe_u64 << 32 | 0x3fff_fffe).to_le_bytes());
        c.pending_arrivals = vec![
            PendingArrival {
                at: 20,
                addr: 8,
                hopper: false,
                tx: 0,
            },
            PendingArrival {
                at: 10,
                addr: 8,
                hopper: false,
                tx: 0,
            },
        ];
        let high = |c: &CtaShared| u32::from_le_bytes(c.shared[12..16].try_into().unwrap());
        assert!(!apply_arrivals(&mut c, 9));
        assert_eq!(high(&c), 0x7fff_fffe, "nothing due before cycle 10");
        assert!(apply_arrivals(&mut c, 10));
        assert_eq!((high(&c), c.pending_arrivals.len()), (0x7fff_ffff, 1));
        assert!(apply_arrivals(&mut c, 25));
        assert_eq!(high(&c), 0xffff_fffe, "the second arrival completes phase 0");
        assert!(c.pending_arrivals.is_empty());
    }
}
