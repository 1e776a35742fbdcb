//! Asynchronous copies (sm_80 on): `LDGSTS` copies 4, 8 or 16 bytes per lane from global to
//! shared memory; `LDGDEPBAR` closes a group of them (its timing is the timer's).
//!
//! The copy lands when it issues: a program that reads the shared bytes before waiting for
//! the group (`DEPBAR.LE`) is not caught here. What `.ZFILL` means rests on ptxas's SASS
//! alone: for `cp.async ..., cp-size, src-size` ptxas adds `(cp-size - src-size) mod cp-size`
//! to the global address and passes `src-size != 0` as the predicate operand, so the low
//! address bits count the trailing bytes to zero-fill and a false predicate zero-fills all.

use super::mem::{Space, address_row, read_bytes, write_bytes};
use crate::decoded::Decoded;
use crate::error::SimError;
use crate::exec::ctx::Ctx;
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
