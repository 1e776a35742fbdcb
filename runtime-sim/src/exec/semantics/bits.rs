//! Bit-field instructions: PRMT, SGXT, BMSK, POPC, FLO, BREV.

use super::write_dst;
use crate::decoded::{Decoded, SrcOp};
use crate::error::SimError;
use crate::exec::ctx::Ctx;
use crate::exec::warp::{WARP, Warp};
use ptxc_sass::isa::values::PrmtMode;

type R = Result<(), SimError>;

/// The byte permutation of PRMT (PTX `prmt`): `lo` supplies bytes 0..3 and `hi` bytes
/// 4..7. The indexed mode uses four selector nibbles (bit 3 replicates the byte's sign); the
/// others (F4E, B4E, RC8, ECL, ECR, RC16) use the selector's two low bits.
pub fn permute(mode: PrmtMode, lo: u32, sel: u32, hi: u32) -> u32 {
    let bytes = (hi as u64) << 32 | lo as u64;
    let byte = |i: u32| ((bytes >> (8 * (i & 7))) & 0xff) as u32;
    let s = sel & 3;
    let mut out = 0u32;
    for i in 0..4u32 {
        let v = match mode {
            PrmtMode::F4e => byte(s + i),
            PrmtMode::B4e => byte(s.wrapping_sub(i) & 7),
            PrmtMode::Rc8 => byte(s),
            PrmtMode::Ecl => byte(i.max(s)),
            PrmtMode::Ecr => byte(i.min(s)),
            PrmtMode::Rc16 => byte((s & 1) * 2 + (i & 1)),
            PrmtMode::Index => {
                let nib = (sel >> (4 * i)) & 0xf;
                let b = byte(nib & 7);
                if nib & 8 != 0 {
                    if b & 0x80 != 0 { 0xff } else { 0 }
                } else {
                    b
                }
            }
        };
        out |= v << (8 * i);
    }
    out
}

/// PRMT: `d = permute(a, b (selector), c)`.
pub fn prmt(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (a, b, c) = (ctx.row(w, &d.a), ctx.row(w, &d.b), ctx.row(w, &d.c));
    let out: [u32; WARP] = std::array::from_fn(|l| permute(d.m.prmt, a[l], b[l], c[l]));
    write_dst(w, &d.dst, exec, &out);
    Ok(())
}

/// Sign- (or zero-) extends the low `bits` bits of `a` (`.W`: `bits` mod 32; otherwise
/// clamped to 32).
pub fn sign_extend(a: u32, bits: u32, signed: bool, wrap: bool) -> u32 {
    let n = if wrap { bits & 31 } else { bits.min(32) };
    if n == 0 {
        return 0;
    }
    if n >= 32 {
        return a;
    }
    let shifted = a << (32 - n);
    if signed {
        ((shifted as i32) >> (32 - n)) as u32
    } else {
        shifted >> (32 - n)
    }
}

/// SGXT: sign-extend `a` from `b` bits.
pub fn sgxt(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (a, b) = (ctx.row(w, &d.a), ctx.row(w, &d.b));
    let out: [u32; WARP] = std::array::from_fn(|l| sign_extend(a[l], b[l], d.m.signed, d.m.wrap));
    write_dst(w, &d.dst, exec, &out);
    Ok(())
}

/// A mask of `width` ones starting at bit `start` (`.W`: both mod 32; otherwise clamped).
pub fn bit_mask(start: u32, width: u32, wrap: bool) -> u32 {
    let (s, n) = if wrap {
        (start & 31, width & 31)
    } else {
        (start.min(32), width.min(32))
    };
    let ones = if n >= 32 { u64::MAX } else { (1u64 << n) - 1 };
    ((ones << s) & 0xffff_ffff) as u32
}

/// BMSK: `d = mask of b bits starting at bit a`.
pub fn bmsk(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (a, b) = (ctx.row(w, &d.a), ctx.row(w, &d.b));
    let out: [u32; WARP] = std::array::from_fn(|l| bit_mask(a[l], b[l], d.m.wrap));
    write_dst(w, &d.dst, exec, &out);
    Ok(())
}

/// The single source of a one-operand instruction (B in most forms) with `~` applied.
fn unary_source(ctx: &Ctx, w: &Warp, d: &Decoded) -> [u32; WARP] {
    let s: &SrcOp = if d.b.present() { &d.b } else { &d.a };
    let v = ctx.row(w, s);
    if s.not || s.neg { v.map(|x| !x) } else { v }
}

/// POPC: population count.
pub fn popc(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let out = unary_source(ctx, w, d).map(u32::count_ones);
    write_dst(w, &d.dst, exec, &out);
    Ok(())
}

/// Find leading one: the bit index of the most significant 1 (signed: of the most
/// significant bit that differs from the sign), `0xffffffff` if none; `.SH` gives the shift
/// amount `31 - index` instead.
pub fn find_leading(v: u32, signed: bool, shift_amount: bool) -> u32 {
    let x = if signed && (v as i32) < 0 { !v } else { v };
    if x == 0 {
        return u32::MAX;
    }
    let index = 31 - x.leading_zeros();
    if shift_amount { 31 - index } else { index }
}

/// FLO: find leading one.
pub fn flo(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let out = unary_source(ctx, w, d).map(|v| find_leading(v, d.m.signed, d.m.shift_amount));
    write_dst(w, &d.dst, exec, &out);
    Ok(())
}

/// BREV: bit reversal.
pub fn brev(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let out = unary_source(ctx, w, d).map(u32::reverse_bits);
    write_dst(w, &d.dst, exec, &out);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prmt_modes_follow_the_ptx_tables() {
        let (a, b) = (0x4433_2211, 0x8877_6655);
        assert_eq!(permute(PrmtMode::Index, a, 0x3210, b), a);
        assert_eq!(permute(PrmtMode::Index, a, 0x7654, b), b);
        assert_eq!(permute(PrmtMode::Index, a, 0x5410, b), 0x6655_2211);
        assert_eq!(permute(PrmtMode::Index, 0x80, 0x8888, 0), 0xffff_ffff);
        assert_eq!(permute(PrmtMode::F4e, a, 1, b), 0x5544_3322);
        assert_eq!(permute(PrmtMode::B4e, a, 0, b), 0x6677_8811);
        assert_eq!(permute(PrmtMode::Rc8, a, 2, b), 0x3333_3333);
        assert_eq!(permute(PrmtMode::Ecl, a, 1, b), 0x4433_2222);
        assert_eq!(permute(PrmtMode::Ecr, a, 2, b), 0x3333_2211);
        assert_eq!(permute(PrmtMode::Rc16, a, 1, b), 0x4433_4433);
    }

    #[test]
    fn bit_fields() {
        assert_eq!(sign_extend(0x1f, 5, true, false), u32::MAX);
        assert_eq!(sign_extend(0x1f, 5, false, false), 0x1f);
        assert_eq!(sign_extend(0x1234, 40, true, false), 0x1234);
        assert_eq!(sign_extend(0x1234, 0, true, false), 0);
        assert_eq!(bit_mask(4, 8, false), 0xff0);
        assert_eq!(bit_mask(30, 8, false), 0xc000_0000);
        assert_eq!(bit_mask(0, 32, false), u32::MAX);
        assert_eq!(bit_mask(0, 33, true), 1);
        assert_eq!(find_leading(0x10, false, false), 4);
        assert_eq!(find_leading(0, false, false), u32::MAX);
        assert_eq!(find_leading(0xffff_fff0, true, false), 3);
        assert_eq!(find_leading(0x10, false, true), 27);
    }
}
