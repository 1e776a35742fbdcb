//! Atomics and reductions on global, shared and generic addresses: ATOMG, ATOMS, ATOM (old
//! value to the destination) and RED (no result), with ADD (integer and f32: round to
//! nearest, subnormals flushed), MIN/MAX (signed with `.S32`/`.S64`), INC/DEC (wrapping at
//! the operand), AND/OR/XOR, EXCH and CAS (`.CAST`: the result is 1 if it swapped, else
//! 0). Lanes are applied in lane order.

use super::mem::{address_of, read_bytes, space_of, write_bytes};
use crate::decoded::{AtomicOp, Decoded, NumType, Src};
use crate::error::SimError;
use crate::exec::ctx::Ctx;
use crate::exec::warp::{WARP, Warp, lanes};
use crate::fp::{self, Rnd};
use ptxc_sass::isa::RZ;
use ptxc_softfloat::{self as sf, F16};

type R = Result<(), SimError>;

/// The new memory value of `op` applied to `old` with operand `v` (and `swap` for CAS).
pub fn apply(op: AtomicOp, t: NumType, old: u64, v: u64, swap: u64) -> u64 {
    let wide = t.bytes() == 8;
    let mask = if wide { u64::MAX } else { 0xffff_ffff };
    let (old, v, swap) = (old & mask, v & mask, swap & mask);
    let signed_less = |x: u64, y: u64| {
        if wide {
            (x as i64) < (y as i64)
        } else {
            (x as u32 as i32) < (y as u32 as i32)
        }
    };
    let r = match op {
        AtomicOp::Add if t == NumType::F32 => {
            let (a, b) = (f32::from_bits(old as u32), f32::from_bits(v as u32));
            fp::add(a, b, Rnd::Rn, true).to_bits() as u64
        }
        AtomicOp::Add if t == NumType::F64 => fp::dadd(f64::from_bits(old), f64::from_bits(v), Rnd::Rn).to_bits(),
        AtomicOp::Add if t == NumType::F16x2 => {
            let half = |x: u64, y: u64| sf::add(x & 0xffff, y & 0xffff, F16, Rnd::Rn);
            half(old, v) | half(old >> 16, v >> 16) << 16
        }
        AtomicOp::Add => old.wrapping_add(v),
        AtomicOp::Min if t.is_signed() => {
            if signed_less(v, old) {
                v
            } else {
                old
            }
        }
        AtomicOp::Max if t.is_signed() => {
            if signed_less(old, v) {
                v
            } else {
                old
            }
        }
        AtomicOp::Min => old.min(v),
        AtomicOp::Max => old.max(v),
        AtomicOp::Inc => {
            if old >= v {
                0
            } else {
                old + 1
            }
        }
        AtomicOp::Dec => {
            if old == 0 || old > v {
                v
            } else {
                old - 1
            }
        }
        AtomicOp::And => old & v,
        AtomicOp::Or => old | v,
        AtomicOp::Xor => old ^ v,
        AtomicOp::Exch => v,
        AtomicOp::Cas => {
            if old == v {
                swap
            } else {
                old
            }
        }
    };
    r & mask
}

/// The value of register (pair) `r` in `lane`.
fn value(w: &Warp, r: u8, wide: bool, lane: usize) -> u64 {
    if wide { w.reg64(r, lane) } else { w.reg(r, lane) as u64 }
}

/// The register of a source slot (RZ if absent).
fn reg_of(s: &crate::decoded::SrcOp) -> u8 {
    match s.src {
        Src::Reg(r) => r,
        _ => RZ,
    }
}

/// Runs the atomic for every lane of `exec`; returns the old values.
fn run(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, exec: u32) -> Result<[u64; WARP], SimError> {
    let mut old = [0u64; WARP];
    let Some(a) = d.addr else {
        return Ok(old);
    };
    let space = space_of(d);
    let t = d.m.atom_type;
    let wide = t.bytes() == 8;
    let size = if wide { 8 } else { 4 };
    // CAS compares with B and swaps in C; the others take the data operand.
    let cas = d.m.atom_op == AtomicOp::Cas;
    let data = if cas {
        reg_of(&d.b)
    } else {
        d.data.map_or(RZ, |(r, _)| r)
    };
    let swap_reg = reg_of(&d.c);
    for l in lanes(exec) {
        let addr = address_of(w, &a, l);
        let mut buf = [0u8; 8];
        read_bytes(ctx, w, d, space, l, addr, &mut buf[..size])?;
        let o = u64::from_le_bytes(buf);
        let v = value(w, data, wide, l);
        let s = if cas { value(w, swap_reg, wide, l) } else { 0 };
        let n = apply(d.m.atom_op, t, o, v, s);
        write_bytes(ctx, w, d, space, l, addr, &n.to_le_bytes()[..size])?;
        old[l] = if d.m.cas_try { (o == v) as u64 } else { o };
    }
    Ok(old)
}

/// ATOMG / ATOMS / ATOM: the old value goes to the destination. A generic ATOM's predicate
/// destination says that the atomic was done: ptxas's sm_90 code for 64-bit `atom.exch`,
/// `.cas`, `.add` and f32 `.add` on generic addresses runs a fallback (a plain LD/ST, or an
/// ATOMS.CAST loop) where it is false (the SASS alone; when the hardware leaves it false is
/// not established). The simulator does every atomic, so the predicate is true.
pub fn atom(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let old = run(ctx, w, d, exec)?;
    w.set_pred(d.pd[0].idx, exec, exec);
    if d.m.atom_type.bytes() == 8 {
        super::write_dst64(w, &d.dst, exec, &old);
    } else {
        let out: [u32; WARP] = std::array::from_fn(|l| old[l] as u32);
        super::write_dst(w, &d.dst, exec, &out);
    }
    Ok(())
}

/// RED: a reduction without result.
pub fn red(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    run(ctx, w, d, exec).map(|_| ())
}

/// ATOMS.POPC.INC.32 and generic ATOM.E.POPC.INC.32 (sm_80): every active lane adds one to its shared word (ptxas's
/// `atom.shared.add.u32 [a], 1` whose result is unused). ptxas writes RZ as the destination;
/// what a lane would receive is not established, so a destination register faults.
pub fn atoms_popc_inc(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32, exec: u32) -> R {
    if d.dst.present() {
        return Err(SimError::Unsupported {
            at: ctx.at(w, group.trailing_zeros() as usize, d.pc),
            what: format!("{} (a destination register: semantics not established)", d.text()),
        });
    }
    let Some(a) = d.addr else { return Ok(()) };
    let space = space_of(d);
    for l in lanes(exec) {
        let addr = address_of(w, &a, l);
        let mut buf = [0u8; 4];
        read_bytes(ctx, w, d, space, l, addr, &mut buf)?;
        let n = u32::from_le_bytes(buf).wrapping_add(1);
        write_bytes(ctx, w, d, space, l, addr, &n.to_le_bytes())?;
    }
    Ok(())
}

/// One arrival on the 64-bit `mbarrier` word `old` (see `docs/MBARRIER.md`): the low word
/// holds `0x40000000 - expected`, the high word the phase in bit 31 and `0x80000000 -
/// pending` below it. The arrival adds one to the high word; when that carries into bit 31
/// (pending reached zero) the phase is complete and the pending count restarts at the
/// expected count. Returns the new barrier.
pub fn mbarrier_arrive(old: u64) -> u64 {
    let (lo, hi) = (old as u32, (old >> 32) as u32);
    let mut n = hi.wrapping_add(1);
    if (n ^ hi) & 0x8000_0000 != 0 {
        n = (n & 0x8000_0000) | (lo.wrapping_add(0x4000_0000) & 0x7fff_ffff);
    }
    (n as u64) << 32 | lo as u64
}

/// ATOMS.ARRIVE.64 and generic ATOM.E.ARRIVE.64 (sm_80, ptxas's `mbarrier.arrive`): every active lane, in lane order,
/// arrives on its barrier ([`mbarrier_arrive`]) and receives the barrier as it was before.
pub fn atoms_arrive(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let Some(a) = d.addr else { return Ok(()) };
    let space = space_of(d);
    let mut old = [0u64; WARP];
    for l in lanes(exec) {
        let addr = address_of(w, &a, l);
        let mut buf = [0u8; 8];
        read_bytes(ctx, w, d, space, l, addr, &mut buf)?;
        let o = u64::from_le_bytes(buf);
        write_bytes(ctx, w, d, space, l, addr, &mbarrier_arrive(o).to_le_bytes())?;
        old[l] = o;
    }
    super::write_dst64(w, &d.dst, exec, &old);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mbarrier_arrivals_complete_a_phase_and_restart_the_count() {
        // ptxas's init of a barrier of 2: 0x40000000 - 2 and 0x80000000 - 2.
        let init = 0x7fff_fffe_u64 << 32 | 0x3fff_fffe;
        let one = mbarrier_arrive(init);
        assert_eq!(one >> 32, 0x7fff_ffff);
        let two = mbarrier_arrive(one);
        assert_eq!(two >> 32, 0xffff_fffe, "phase 1, 2 pending");
        assert_eq!(
            mbarrier_arrive(mbarrier_arrive(two)) >> 32,
            0x7fff_fffe,
            "phase 0 again"
        );
        // After one `arrive_drop` (low word + 1) the next phase expects one arrival.
        assert_eq!(mbarrier_arrive(two + 1) >> 32, 0xffff_ffff);
    }

    #[test]
    fn atomic_operations() {
        use AtomicOp::*;
        assert_eq!(apply(Add, NumType::U32, 0xffff_ffff, 1, 0), 0);
        assert_eq!(
            apply(Min, NumType::S32, 5, (-3i32) as u32 as u64, 0),
            (-3i32) as u32 as u64
        );
        assert_eq!(apply(Min, NumType::U32, 5, (-3i32) as u32 as u64, 0), 5);
        assert_eq!(apply(Inc, NumType::U32, 7, 7, 0), 0);
        assert_eq!(apply(Inc, NumType::U32, 6, 7, 0), 7);
        assert_eq!(apply(Dec, NumType::U32, 0, 7, 0), 7);
        assert_eq!(apply(Dec, NumType::U32, 9, 7, 0), 7);
        assert_eq!(apply(Dec, NumType::U32, 5, 7, 0), 4);
        assert_eq!(apply(Cas, NumType::U32, 5, 5, 9), 9);
        assert_eq!(apply(Cas, NumType::U32, 5, 4, 9), 5);
        let sub = f32::from_bits(1).to_bits() as u64;
        assert_eq!(
            apply(Add, NumType::F32, 1.0f32.to_bits() as u64, sub, 0),
            1.0f32.to_bits() as u64
        );
        assert_eq!(apply(Add, NumType::U64, u64::MAX, 2, 0), 1);
    }
}
