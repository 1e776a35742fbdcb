//! Global memory instructions (LDG, STG) with bounds and alignment checks.

use super::ctx::Ctx;
use super::warp::{Warp, lanes};
use crate::decoded::Decoded;
use crate::error::SimError;
use ptxc_backend::isa::Op;

/// Access size in bytes and sign extension of the `size` field (B.4).
fn size_of(code: u8) -> (usize, bool) {
    match code {
        0 => (1, false),
        1 => (1, true),
        2 => (2, false),
        3 => (2, true),
        5 => (8, false),
        6 => (16, false),
        _ => (4, false),
    }
}

/// The address of `lane`: a 64-bit register pair (`.E`) or a 32-bit register, plus offset.
fn address(w: &Warp, d: &Decoded, lane: usize) -> u64 {
    let (base, offset) = d.addr.unwrap_or((ptxc_backend::isa::RZ, 0));
    let b = if d.m.e {
        w.reg64(base, lane)
    } else {
        w.reg(base, lane) as u64
    };
    b.wrapping_add(offset as i64 as u64)
}

fn check(ctx: &Ctx, w: &Warp, d: &Decoded, lane: usize, addr: u64, size: usize) -> Result<(), SimError> {
    if !addr.is_multiple_of(size as u64) {
        return Err(SimError::Misaligned {
            at: ctx.at(w, lane, d.pc),
            space: "global",
            addr,
            size: size as u32,
        });
    }
    Ok(())
}

/// Executes a global memory instruction.
pub fn exec(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, mask: u32) -> Result<(), SimError> {
    let (size, sign) = size_of(d.m.size);
    match d.op {
        Op::Ldg => {
            for l in lanes(mask) {
                let addr = address(w, d, l);
                check(ctx, w, d, l, addr, size)?;
                let mut buf = [0u8; 16];
                ctx.global
                    .read(addr, &mut buf[..size])
                    .ok_or_else(|| SimError::OutOfBounds {
                        at: ctx.at(w, l, d.pc),
                        space: "global",
                        addr,
                        size: size as u32,
                    })?;
                write_loaded(w, d.dst, l, &buf[..size], sign);
            }
        }
        Op::Stg => {
            let (data, _) = d.data.unwrap_or((ptxc_backend::isa::RZ, 1));
            for l in lanes(mask) {
                let addr = address(w, d, l);
                check(ctx, w, d, l, addr, size)?;
                let mut buf = [0u8; 16];
                for k in 0..size.div_ceil(4) {
                    let v = w.reg(data.wrapping_add(k as u8), l).to_le_bytes();
                    let n = (size - 4 * k).min(4);
                    buf[4 * k..4 * k + n].copy_from_slice(&v[..n]);
                }
                ctx.global
                    .write(addr, &buf[..size])
                    .ok_or_else(|| SimError::OutOfBounds {
                        at: ctx.at(w, l, d.pc),
                        space: "global",
                        addr,
                        size: size as u32,
                    })?;
            }
        }
        _ => unreachable!("not a global memory instruction: {:?}", d.op),
    }
    Ok(())
}

/// Writes loaded bytes to consecutive registers, extending sub-word values.
fn write_loaded(w: &mut Warp, dst: u8, lane: usize, bytes: &[u8], sign: bool) {
    if bytes.len() < 4 {
        let mut v = 0u32;
        for (i, b) in bytes.iter().enumerate() {
            v |= (*b as u32) << (8 * i);
        }
        let bits = 8 * bytes.len() as u32;
        if sign {
            v = ((v << (32 - bits)) as i32 >> (32 - bits)) as u32;
        }
        w.set_reg(dst, lane, v);
        return;
    }
    for (k, chunk) in bytes.chunks(4).enumerate() {
        w.set_reg(
            dst.wrapping_add(k as u8),
            lane,
            u32::from_le_bytes(chunk.try_into().expect("4 bytes")),
        );
    }
}
