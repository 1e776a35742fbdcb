//! Hopper's bulk copies and TMA (sm_90): UBLKCP (`cp.async.bulk`), UTMALDG and UTMASTG
//! (`cp.async.bulk.tensor`, tiled), their prefetches and flushes, and USETMAXREG.
//!
//! The operands are uniform-register blocks (`sass/src/isa/sm90/tma.rs`, `bulk.rs`): a
//! shared destination is URa with its mbarrier in URa+1; a global address is a pair; TMA's
//! coordinates follow in URa+2.. (loads) or URa+1.. (stores), and URb:URb+1 is the tensor
//! map's generic address (`c[0x0][0x198]` plus the parameter's offset for a map passed by
//! value). One instruction is one copy: ptxas issues it once per thread that executes the
//! PTX instruction, in an ELECT loop.
//!
//! The bytes move when the instruction issues; a copy into shared memory completes its bytes
//! on the mbarrier ([`HopperBarrier::add_tx`]) when it lands: at once in the functional
//! engine's order, and in the timed engine after the global-memory latency of the device
//! model plus `per_line` cycles for every further 128-byte line (a model resting on the
//! engine's memory timing, not on a TMA measurement). A copy out of shared memory is done
//! when it issues, so waiting for its bulk group (UTMACMDFLUSH, `DEPBAR.LE SB0`) is timing
//! only. A copy from the CTA's shared memory into another CTA's of the cluster (`.S.S`)
//! completes on that CTA's barrier at issue; so do the other CTAs' parts of a multicast
//! copy (`.MULTICAST`: the same bytes at the same offset in every CTA of the mask, each
//! completing on its own barrier). Im2col and reductions fault as not simulated. Tensor maps must be in the simulator's format (`crate::tensor_map`).

use super::mem::{Space, read_bytes, write_bytes};
use super::syncs::HopperBarrier;
use crate::decoded::Decoded;
use crate::error::SimError;
use crate::exec::ctx::{Ctx, PendingArrival, RANK_SHIFT, split_shared};
use crate::exec::warp::{Warp, lanes};
use crate::tensor_map::{SIZE, TensorMap};
use ptxc_sass::isa::values::{BulkDirection, TmaDim};
use ptxc_sass::isa::{Mod, Role, Value};

type R = Result<(), SimError>;

/// Bytes moved per read or write of a bulk copy.
const CHUNK: usize = 16;

/// The first uniform register of the block operand with `role`.
fn block(d: &Decoded, role: Role) -> Option<u8> {
    match d.inst.as_ref()?.get(role)?.value {
        Value::UReg(r) => Some(r),
        _ => None,
    }
}

/// Whether the instruction has flag `id`.
fn flag(d: &Decoded, id: Mod) -> bool {
    d.inst.as_ref().is_some_and(|i| i.flag(id))
}

/// A fault for a form or a case the simulator does not model.
fn not_simulated(ctx: &Ctx, w: &Warp, d: &Decoded, lane: usize, what: &str) -> SimError {
    SimError::Unsupported {
        at: ctx.at(w, lane, d.pc),
        what: format!("{} ({what} is not simulated)", d.text()),
    }
}

/// The lane that stands for the warp in messages (the first active one).
fn first_lane(exec: u32) -> Option<usize> {
    lanes(exec).next()
}

/// The cycle a copy of `bytes` into shared memory lands, issued at `now`.
fn landing(ctx: &Ctx, bytes: usize) -> i64 {
    let lines = bytes.div_ceil(128).max(1) as i64;
    ctx.now + i64::from(ctx.memory.dram) + (lines - 1) * i64::from(ctx.memory.per_line)
}

/// Completes `bytes` transaction bytes on the mbarrier at shared address `bar`, now or when
/// the copy lands.
fn complete_tx(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, lane: usize, bar: u64, bytes: usize) -> R {
    let mut word = [0u8; 8];
    read_bytes(ctx, w, d, Space::Shared, lane, bar, &mut word)?;
    let arrival = PendingArrival {
        at: landing(ctx, bytes),
        addr: bar as u32,
        hopper: true,
        tx: bytes as u32,
    };
    // A barrier in another CTA of the cluster gets its bytes at once.
    let remote = split_shared(bar).0 != ctx.cta.cluster.rank;
    if arrival.at <= ctx.now || !ctx.timed || remote {
        let new = HopperBarrier(u64::from_le_bytes(word)).add_tx(-(bytes as i64));
        write_bytes(ctx, w, d, Space::Shared, lane, bar, &new.0.to_le_bytes())
    } else {
        ctx.cta.pending_arrivals.push(arrival);
        Ok(())
    }
}

/// Copies `bytes` from `from` in space `src` to `to` in space `dst`, 16 bytes at a time.
#[allow(clippy::too_many_arguments)]
fn copy(
    ctx: &mut Ctx,
    w: &mut Warp,
    d: &Decoded,
    lane: usize,
    (to, dst): (u64, Space),
    (from, src): (u64, Space),
    bytes: usize,
) -> R {
    let mut buf = [0u8; CHUNK];
    for k in (0..bytes).step_by(CHUNK) {
        read_bytes(ctx, w, d, src, lane, from + k as u64, &mut buf)?;
        write_bytes(ctx, w, d, dst, lane, to + k as u64, &buf)?;
    }
    Ok(())
}

/// `UBLKCP.<dst>.<src> [URa], [URb], URc`: `URc & 0xffff` 16-byte units.
pub fn ublkcp(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let Some(lane) = first_lane(exec) else { return Ok(()) };
    let (Some(a), Some(b)) = (block(d, Role::Addr), block(d, Role::SrcAddr)) else {
        return Err(not_simulated(ctx, w, d, lane, "this operand form"));
    };
    let bytes = (ctx.src32(w, &d.b, lane) & 0xffff) as usize * CHUNK;
    let ranks = destinations(ctx, w, d, lane);
    let direction = d
        .inst
        .as_ref()
        .and_then(|i| i.get_mod::<BulkDirection>())
        .unwrap_or_default();
    match direction {
        BulkDirection::SharedFromGlobal => {
            let (to, bar) = (w.ureg(a), w.ureg(a.wrapping_add(1)));
            for rank in ranks {
                let (to, bar) = (at_rank(to, rank), at_rank(bar, rank));
                copy(
                    ctx,
                    w,
                    d,
                    lane,
                    (to, Space::Shared),
                    (w.ureg64(b), Space::Global),
                    bytes,
                )?;
                complete_tx(ctx, w, d, lane, bar, bytes)?;
            }
            Ok(())
        }
        BulkDirection::GlobalFromShared => {
            let (to, from) = (w.ureg64(a), u64::from(w.ureg(b)));
            copy(ctx, w, d, lane, (to, Space::Global), (from, Space::Shared), bytes)
        }
        BulkDirection::SharedFromShared => {
            // The CTA's shared memory into the cluster's (another CTA's, usually), completed
            // on the mbarrier next to the destination.
            let (to, bar) = (u64::from(w.ureg(a)), u64::from(w.ureg(a.wrapping_add(1))));
            let from = u64::from(w.ureg(b));
            copy(ctx, w, d, lane, (to, Space::Shared), (from, Space::Shared), bytes)?;
            complete_tx(ctx, w, d, lane, bar, bytes)
        }
        BulkDirection::GlobalFromGlobal => Err(not_simulated(ctx, w, d, lane, "a global-to-global bulk copy")),
    }
}

/// Reads the tensor map at generic address `at`, which must be 64-byte aligned (the PTX ISA).
fn tensor_map(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, lane: usize, at: u64) -> Result<TensorMap, SimError> {
    if !at.is_multiple_of(64) {
        return Err(SimError::Misaligned {
            at: ctx.at(w, lane, d.pc),
            space: "tensor map",
            addr: at,
            size: 64,
        });
    }
    let mut bytes = [0u8; SIZE];
    for k in (0..SIZE).step_by(CHUNK) {
        read_bytes(ctx, w, d, Space::Generic, lane, at + k as u64, &mut bytes[k..k + CHUNK])?;
    }
    TensorMap::decode(&bytes).map_err(|e| SimError::Unsupported {
        at: ctx.at(w, lane, d.pc),
        what: format!("{}: tensor map at {at:#x}: {e}", d.text()),
    })
}

/// The tensor map and the box coordinates of a TMA instruction whose coordinates start at
/// `first` (a tiled copy of the instruction's dimensions).
fn tma_operands(
    ctx: &mut Ctx,
    w: &mut Warp,
    d: &Decoded,
    lane: usize,
    first: u8,
) -> Result<(TensorMap, Vec<i32>), SimError> {
    let inst = d.inst.as_ref();
    if flag(d, Mod::Im2col) {
        return Err(not_simulated(ctx, w, d, lane, "im2col TMA"));
    }
    let dims = inst.and_then(|i| i.get_mod::<TmaDim>()).map_or(1, TmaDim::count) as usize;
    let Some(b) = block(d, Role::SrcAddr).or_else(|| block(d, Role::B)) else {
        return Err(not_simulated(ctx, w, d, lane, "this operand form"));
    };
    let map = tensor_map(ctx, w, d, lane, w.ureg64(b))?;
    if map.dims.len() != dims {
        return Err(SimError::Unsupported {
            at: ctx.at(w, lane, d.pc),
            what: format!(
                "{}: a {dims}-dimensional copy of a {}-dimensional tensor map",
                d.text(),
                map.dims.len()
            ),
        });
    }
    let coords = (0..dims).map(|k| w.ureg(first.wrapping_add(k as u8)) as i32).collect();
    Ok((map, coords))
}

/// `UTMALDG.<n>D [URa], [URb]`: the box at URa+2.. from the tensor map at URb into shared
/// memory at URa (out-of-bounds elements filled), completing its bytes on the mbarrier at
/// URa+1.
pub fn utmaldg(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let Some(lane) = first_lane(exec) else { return Ok(()) };
    let Some(a) = block(d, Role::Addr) else {
        return Err(not_simulated(ctx, w, d, lane, "this operand form"));
    };
    let (map, coords) = tma_operands(ctx, w, d, lane, a.wrapping_add(2))?;
    let (to, bar) = (w.ureg(a), w.ureg(a.wrapping_add(1)));
    let size = map.dtype.bytes();
    let fill = map.fill();
    let mut buf = [0u8; 8];
    for rank in destinations(ctx, w, d, lane) {
        let to = at_rank(to, rank) as u32;
        for e in map.box_elements(&coords) {
            let data = &mut buf[..size];
            match e.global {
                Some(g) => read_bytes(ctx, w, d, Space::Global, lane, g, data)?,
                None => data.copy_from_slice(&fill),
            }
            let at = map.swizzle.apply(to.wrapping_add(e.offset));
            write_bytes(ctx, w, d, Space::Shared, lane, u64::from(at), data)?;
        }
        complete_tx(ctx, w, d, lane, at_rank(bar, rank), map.box_bytes())?;
    }
    Ok(())
}

/// The ranks of the CTAs a copy into shared memory writes: those of the CTA mask in the
/// high 16 bits of URc for `.MULTICAST` (`cp.async.bulk{.tensor}...multicast::cluster`),
/// else `NO_RANK` (the destination address's own).
fn destinations(ctx: &Ctx, w: &Warp, d: &Decoded, lane: usize) -> Vec<u32> {
    if !flag(d, Mod::Multicast) {
        return vec![NO_RANK];
    }
    let mask = ctx.src32(w, &d.b, lane) >> 16;
    (0..16).filter(|r| mask & (1 << r) != 0).collect()
}

/// A rank that keeps an address's own.
const NO_RANK: u32 = u32::MAX;

/// Shared address `addr` in the CTA of rank `rank` (the same offset), or `addr` itself for
/// [`NO_RANK`].
fn at_rank(addr: u32, rank: u32) -> u64 {
    let addr = if rank == NO_RANK {
        addr
    } else {
        addr & ((1 << RANK_SHIFT) - 1) | rank << RANK_SHIFT
    };
    u64::from(addr)
}

/// `UTMASTG.<n>D [URa], [URb]`: the box at URa+1.. from shared memory at URa to the tensor
/// map's tensor (out-of-bounds elements are not written).
pub fn utmastg(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let Some(lane) = first_lane(exec) else { return Ok(()) };
    let Some(a) = block(d, Role::Addr) else {
        return Err(not_simulated(ctx, w, d, lane, "this operand form"));
    };
    let (map, coords) = tma_operands(ctx, w, d, lane, a.wrapping_add(1))?;
    let from = w.ureg(a);
    let size = map.dtype.bytes();
    let mut buf = [0u8; 8];
    for e in map.box_elements(&coords) {
        let Some(g) = e.global else { continue };
        let data = &mut buf[..size];
        let at = map.swizzle.apply(from.wrapping_add(e.offset));
        read_bytes(ctx, w, d, Space::Shared, lane, u64::from(at), data)?;
        write_bytes(ctx, w, d, Space::Global, lane, g, data)?;
    }
    Ok(())
}

/// `USETMAXREG.TRY_ALLOC.CTAPOOL UPd, n` / `.DEALLOC`: the register file is not partitioned
/// in the simulator, so every allocation succeeds (UPd true) and registers keep their values.
pub fn usetmaxreg(_: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let p = d.pd[0];
    if exec != 0 && p.uniform && p.idx != 7 {
        w.set_upred(p.idx, true);
    }
    Ok(())
}
