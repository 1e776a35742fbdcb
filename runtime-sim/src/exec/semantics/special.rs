//! Special registers: S2R, CS2R, S2UR, LEPC.

use super::write_dst;
use crate::decoded::Decoded;
use crate::error::SimError;
use crate::exec::ctx::Ctx;
use crate::exec::warp::{WARP, Warp, lanes};

type R = Result<(), SimError>;

/// Warps per SM slot in `SR_VIRTID` (bits 8..15: warp id, bits 20..28: SM id).
const WARPID_SHIFT: u32 = 8;
const SMID_SHIFT: u32 = 20;

/// The value of special register `sr` for `lane` of `w` at cycle `now`.
pub fn special_value(ctx: &Ctx, w: &Warp, sr: u8, lane: usize, now: i64) -> u64 {
    let tid = w.tid[lane];
    let now = now.max(0) as u64;
    match sr {
        0x00 => lane as u64,
        0x03 => ((w.index as u64 & 0x7f) << WARPID_SHIFT) | ((ctx.cta.sm as u64 & 0x1ff) << SMID_SHIFT),
        0x20 => (tid[0] | tid[1] << 16 | tid[2] << 26) as u64,
        0x21..=0x23 => tid[(sr - 0x21) as usize] as u64,
        0x25..=0x27 => ctx.cta.ctaid[(sr - 0x25) as usize] as u64,
        // SR_SWINHI: the high word of the shared window (Hopper's `cvta.shared`).
        0x2f => crate::exec::SHARED_WINDOW >> 32,
        0x32 => ctx.cta.shared.len() as u64,
        // SR_VIRTUALSMID: %smid (%nsmid comes from c[0x0][0x10c]).
        0x43 => ctx.cta.sm as u64,
        0x38 => 1 << lane,
        0x39 => (1u64 << lane) - 1,
        0x3a => (2u64 << lane) - 1,
        0x3b => (u32::MAX as u64) << (lane + 1) & 0xffff_ffff,
        0x3c => (u32::MAX as u64) << lane & 0xffff_ffff,
        // Clock and global timer (nanoseconds at a nominal 1 GHz): 64-bit values whose
        // high words are registers 0x51 and 0x53.
        0x50 | 0x52 => now,
        0x51 | 0x53 => now >> 32,
        // SR_CgaCtaId (Hopper): the CTA's rank in its cluster.
        0x88 => ctx.cta.cluster.rank as u64,
        // Others read 0.
        _ => 0,
    }
}

/// S2R: a special register into a general register.
pub fn s2r(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let mut out = [0u32; WARP];
    for l in lanes(exec) {
        out[l] = special_value(ctx, w, d.special, l, ctx.now) as u32;
    }
    write_dst(w, &d.dst, exec, &out);
    Ok(())
}

/// CS2R: a special register (pair) into registers without a scoreboard; `SRZ` zeroes.
pub fn cs2r(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let wide = d.dst.width >= 2 && d.m.wide;
    let mut out = [0u64; WARP];
    for l in lanes(exec) {
        out[l] = if d.special == 0xff {
            0
        } else {
            special_value(ctx, w, d.special, l, ctx.now)
        };
    }
    if wide {
        super::write_dst64(w, &d.dst, exec, &out);
    } else {
        let lo: [u32; WARP] = std::array::from_fn(|l| out[l] as u32);
        write_dst(w, &d.dst, exec, &lo);
    }
    Ok(())
}

/// S2UR: a special register into a uniform register (the first executing lane's value).
pub fn s2ur(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    if exec != 0 {
        let lane = exec.trailing_zeros() as usize;
        let v = special_value(ctx, w, d.special, lane, ctx.now) as u32;
        w.set_ureg(d.dst.reg, v);
    }
    Ok(())
}

/// LEPC: the address of the instruction (kernel-relative, 64-bit); sm_90's form names a
/// label and gives the label's address (ptxas's return addresses: `LEPC R20, .L_x_0`, where
/// its sm_75 code adds the offset to the program counter).
pub fn lepc(_: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let at = d.target.unwrap_or(d.pc);
    super::write_dst64(w, &d.dst, exec, &[at as u64; WARP]);
    Ok(())
}
