//! Integer arithmetic, logic and predicate instructions: MOV, IADD3, IMAD (and .WIDE, .HI),
//! LEA, LOP3, SHF, ISETP, SEL, IMNMX, IABS, PLOP3, P2R, R2P, IDP, VABSDIFF.

use super::{each, set_compare, write_dst, write_dst64};
use crate::decoded::{Decoded, SrcOp};
use crate::error::SimError;
use crate::exec::ctx::Ctx;
use crate::exec::warp::{WARP, Warp, lanes};
use ptxc_sass::isa::values::{IdpKind, IntCmp, ShfType};

type R = Result<(), SimError>;

/// An integer source with `-x` (two's complement, as a 33-bit value) or `~x` applied; in
/// `.X` forms the negation bit means `~x`.
#[inline]
pub fn ineg(v: u32, s: &SrcOp, x: bool) -> u64 {
    if s.not || (s.neg && x) {
        !v as u64
    } else if s.neg {
        (!v) as u64 + 1
    } else {
        v as u64
    }
}

/// MOV: `d = b`.
pub fn mov(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let b = ctx.row(w, &d.b);
    write_dst(w, &d.dst, exec, &b);
    Ok(())
}

/// IADD3: `d = a + b + c (+ carries)`; the carry count goes to the predicate destinations
/// (P0 = at least one carry, P1 = two), which `.X` adds back.
pub fn iadd3(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (a, b, c) = (ctx.row(w, &d.a), ctx.row(w, &d.b), ctx.row(w, &d.c));
    let x = d.m.x;
    let cin = if x {
        (w.pred_mask(d.ps[0], exec), w.pred_mask(d.ps[1], exec))
    } else {
        (0, 0)
    };
    let mut out = [0u32; WARP];
    let (mut c0, mut c1) = (0u32, 0u32);
    for l in 0..WARP {
        let carry = ((cin.0 >> l) & 1) as u64 + ((cin.1 >> l) & 1) as u64;
        let sum = ineg(a[l], &d.a, x) + ineg(b[l], &d.b, x) + ineg(c[l], &d.c, x) + carry;
        out[l] = sum as u32;
        let k = (sum >> 32) as u32;
        c0 |= ((k >= 1) as u32) << l;
        c1 |= ((k >= 2) as u32) << l;
    }
    write_dst(w, &d.dst, exec, &out);
    w.set_pred(d.pd[0].idx, exec, c0);
    w.set_pred(d.pd[1].idx, exec, c1);
    Ok(())
}

/// The carry-in of `.X` forms for each lane.
fn carry_in(w: &Warp, d: &Decoded, exec: u32) -> u32 {
    if d.m.x { w.pred_mask(d.ps[0], exec) } else { 0 }
}

/// IMAD: `d = a * b + c (+ carry)` (low 32 bits); the carry out of the addition goes to the
/// predicate destination.
pub fn imad(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (a, b, c) = (ctx.row(w, &d.a), ctx.row(w, &d.b), ctx.row(w, &d.c));
    let cin = carry_in(w, d, exec);
    let mut out = [0u32; WARP];
    let mut cout = 0u32;
    for l in 0..WARP {
        let prod = a[l].wrapping_mul(b[l]) as u64;
        let sum = prod + ineg(c[l], &d.c, d.m.x) + ((cin >> l) & 1) as u64;
        out[l] = sum as u32;
        cout |= (((sum >> 32) & 1) as u32) << l;
    }
    write_dst(w, &d.dst, exec, &out);
    w.set_pred(d.pd[0].idx, exec, cout);
    Ok(())
}

/// The 64-bit product of two 32-bit values, signed or unsigned.
#[inline]
fn wide_product(a: u32, b: u32, signed: bool) -> u64 {
    if signed {
        (a as i32 as i64).wrapping_mul(b as i32 as i64) as u64
    } else {
        a as u64 * b as u64
    }
}

/// The 64-bit C operand of IMAD.WIDE / IMAD.HI for every lane, with its negation or
/// complement, as a 65-bit value: `-c` is `!c + 1`, as IADD3 negates, so subtracting 0
/// carries out. ptxas relies on it: `sub.cc.s64` of a `mul.wide` becomes
/// `IMAD.WIDE R6, P0, R11, 0x1, -R4` and `IADD3.X R8, P0, RZ, -0x1, RZ, P0, !PT`, right
/// for a zero subtrahend only if P0 is set then.
fn c64_row(ctx: &Ctx, w: &Warp, d: &Decoded) -> [u128; WARP] {
    let c = ctx.row64(w, &d.c);
    if d.c.not || (d.c.neg && d.m.x) {
        c.map(|v| !v as u128)
    } else if d.c.neg {
        c.map(|v| !v as u128 + 1)
    } else {
        c.map(u128::from)
    }
}

/// `a * b + c + carry-in` in 65 bits for one lane: the 64-bit sum and its carry out.
#[inline]
fn wide_sum(a: u32, b: u32, signed: bool, c: u128, cin: u32) -> (u64, bool) {
    let sum = wide_product(a, b, signed) as u128 + c + cin as u128;
    (sum as u64, sum >> 64 != 0)
}

/// IMAD.WIDE: `d:d+1 = a * b + c:c+1 (+ carry)`, carry out of the 64-bit addition.
pub fn imad_wide(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let cin = carry_in(w, d, exec);
    let (a, b, c) = (ctx.row(w, &d.a), ctx.row(w, &d.b), c64_row(ctx, w, d));
    let mut out = [0u64; WARP];
    let mut cout = 0u32;
    for l in 0..WARP {
        let (sum, carry) = wide_sum(a[l], b[l], d.m.signed, c[l], (cin >> l) & 1);
        out[l] = sum;
        cout |= (carry as u32) << l;
    }
    write_dst64(w, &d.dst, exec, &out);
    w.set_pred(d.pd[0].idx, exec, cout);
    Ok(())
}

/// IMAD.HI: the high word of `a * b + c`, where `c` is the register pair `c:c+1` (a 64-bit
/// addend); the carry out of the 64-bit sum goes to the predicate destination. ptxas's
/// integer division shows the pair: `IMAD.MOV.U32 R2, RZ, RZ, RZ` then
/// `IMAD.HI.U32 R3, R3, R5, R2` computes `R3 + hi(R3 * R5)` (C = R2:R3 = R3 << 32).
pub fn imad_hi(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let cin = carry_in(w, d, exec);
    let (a, b, c) = (ctx.row(w, &d.a), ctx.row(w, &d.b), c64_row(ctx, w, d));
    let mut out = [0u32; WARP];
    let mut cout = 0u32;
    for l in 0..WARP {
        let (sum, carry) = wide_sum(a[l], b[l], d.m.signed, c[l], (cin >> l) & 1);
        out[l] = (sum >> 32) as u32;
        cout |= (carry as u32) << l;
    }
    write_dst(w, &d.dst, exec, &out);
    w.set_pred(d.pd[0].idx, exec, cout);
    Ok(())
}

/// LEA: `d = (a << s) + b (+ carry)`; LEA.HI: `d = hi((c:a) << s) + b`, with `c` the sign
/// of `a` under `.SX32`. The carry out goes to the predicate destination.
pub fn lea(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let s = (d.other & 31) as u32;
    let (a, b, c) = (ctx.row(w, &d.a), ctx.row(w, &d.b), ctx.row(w, &d.c));
    let cin = carry_in(w, d, exec);
    let mut out = [0u32; WARP];
    let mut cout = 0u32;
    // `LEA Rd, P0, -A, B, s` subtracts the shifted A as IADD3 subtracts (`~x + 1` in 33 bits):
    // P0 is set when `A << s` is 0, which ptxas's 64-bit `neg` of a shifted value relies on
    // (`LEA R6, P0, -R2, RZ, 0x1; IADD3.X R7, RZ, ~R0, RZ, P0, !PT`).
    let negate_shifted = d.a.neg && !d.a.not && !d.m.x && !d.m.hi;
    for l in 0..WARP {
        let av = if d.a.not || (d.a.neg && d.m.x) {
            !a[l]
        } else if d.a.neg && !negate_shifted {
            a[l].wrapping_neg()
        } else {
            a[l]
        };
        let shifted = if d.m.hi {
            let high = if d.m.sx32 { ((av as i32) >> 31) as u32 } else { c[l] };
            (((high as u64) << 32 | av as u64) << s >> 32) as u32
        } else {
            av << s
        };
        let term = if negate_shifted {
            (!shifted) as u64 + 1
        } else {
            shifted as u64
        };
        let sum = term + ineg(b[l], &d.b, d.m.x) + ((cin >> l) & 1) as u64;
        out[l] = sum as u32;
        cout |= (((sum >> 32) & 1) as u32) << l;
    }
    write_dst(w, &d.dst, exec, &out);
    w.set_pred(d.pd[0].idx, exec, cout);
    Ok(())
}

/// A three-input lookup table applied bitwise.
#[inline]
pub fn lut3(lut: u8, a: u32, b: u32, c: u32) -> u32 {
    let mut r = 0u32;
    for bit in 0..8 {
        if lut & (1 << bit) != 0 {
            let fa = if bit & 4 != 0 { a } else { !a };
            let fb = if bit & 2 != 0 { b } else { !b };
            let fc = if bit & 1 != 0 { c } else { !c };
            r |= fa & fb & fc;
        }
    }
    r
}

/// LOP3.LUT: a bitwise function of three sources; the predicate destination is set when
/// the result is non-zero (OR-ed with the predicate source, AND-ed under `.PAND`).
pub fn lop3(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (a, b, c) = (ctx.row(w, &d.a), ctx.row(w, &d.b), ctx.row(w, &d.c));
    let lut = d.other as u8;
    let mut out = [0u32; WARP];
    let mut nonzero = 0u32;
    for l in 0..WARP {
        out[l] = lut3(lut, a[l], b[l], c[l]);
        nonzero |= ((out[l] != 0) as u32) << l;
    }
    write_dst(w, &d.dst, exec, &out);
    if d.pd[0].idx != ptxc_sass::isa::PT {
        let pin = w.pred_mask(d.ps[0], exec);
        let p = if d.m.pand { nonzero & pin } else { nonzero | pin };
        w.set_pred(d.pd[0].idx, exec, p);
    }
    Ok(())
}

/// The funnel shift of `(c:a)` by `amount`, clamped to the type width unless `.W` (signed
/// right shifts are arithmetic).
#[inline]
pub fn funnel(right: bool, ty: ShfType, wrap: bool, hi: bool, a: u32, amount: u32, c: u32) -> u32 {
    let bits: u32 = if matches!(ty, ShfType::S32 | ShfType::U32) {
        32
    } else {
        64
    };
    let s = if wrap { amount & (bits - 1) } else { amount.min(bits) };
    let x = (c as u64) << 32 | a as u64;
    let signed = matches!(ty, ShfType::S32 | ShfType::S64);
    let r = match (right, signed) {
        (false, _) => x.checked_shl(s).unwrap_or(0),
        (true, true) => ((x as i64) >> s.min(63)) as u64,
        (true, false) => x.checked_shr(s).unwrap_or(0),
    };
    if hi { (r >> 32) as u32 } else { r as u32 }
}

/// SHF: funnel shifts.
pub fn shf(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (a, b, c) = (ctx.row(w, &d.a), ctx.row(w, &d.b), ctx.row(w, &d.c));
    let m = d.m;
    let out: [u32; WARP] = std::array::from_fn(|l| funnel(m.right, m.shf_type, m.wrap, m.hi, a[l], b[l], c[l]));
    write_dst(w, &d.dst, exec, &out);
    Ok(())
}

/// An integer comparison (ISETP).
#[inline]
pub fn icmp(cmp: IntCmp, a: u32, b: u32, signed: bool) -> bool {
    let ord = if signed { (a as i32).cmp(&(b as i32)) } else { a.cmp(&b) };
    use std::cmp::Ordering::*;
    match cmp {
        IntCmp::F => false,
        IntCmp::Lt => ord == Less,
        IntCmp::Eq => ord == Equal,
        IntCmp::Le => ord != Greater,
        IntCmp::Gt => ord == Greater,
        IntCmp::Ne => ord != Equal,
        IntCmp::Ge => ord != Less,
        IntCmp::T => true,
    }
}

/// The `.EX` step of a 64-bit compare: the high words decide unless they are equal, then
/// the low-word result (`low`) does.
#[inline]
pub fn icmp_ex(cmp: IntCmp, a: u32, b: u32, signed: bool, low: bool) -> bool {
    match cmp {
        IntCmp::F => false,
        IntCmp::T => true,
        IntCmp::Eq => a == b && low,
        IntCmp::Ne => a != b || low,
        cmp => (a != b && icmp(cmp, a, b, signed)) || (a == b && low),
    }
}

/// ISETP: integer compare into two predicates.
pub fn isetp(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (a, b) = (ctx.row(w, &d.a), ctx.row(w, &d.b));
    let low = w.pred_mask(d.ps[1], u32::MAX);
    let mut r = 0u32;
    for l in 0..WARP {
        let v = if d.m.ex {
            icmp_ex(d.m.int_cmp, a[l], b[l], d.m.signed, (low >> l) & 1 == 1)
        } else {
            icmp(d.m.int_cmp, a[l], b[l], d.m.signed)
        };
        r |= (v as u32) << l;
    }
    set_compare(w, d, exec, r);
    Ok(())
}

/// SEL: `d = p ? a : b`.
pub fn sel(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (a, b) = (ctx.row(w, &d.a), ctx.row(w, &d.b));
    let p = w.pred_mask(d.ps[0], u32::MAX);
    let out: [u32; WARP] = std::array::from_fn(|l| if (p >> l) & 1 == 1 { a[l] } else { b[l] });
    write_dst(w, &d.dst, exec, &out);
    Ok(())
}

/// IMNMX: minimum when the predicate is true, maximum when false.
pub fn imnmx(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (a, b) = (ctx.row(w, &d.a), ctx.row(w, &d.b));
    let p = w.pred_mask(d.ps[0], u32::MAX);
    let (signed, relu) = (d.m.signed, d.m.relu);
    let out: [u32; WARP] = std::array::from_fn(|l| {
        let min = (p >> l) & 1 == 1;
        if d.m.lanes16 {
            let half = |k: u32| minmax16(a[l] >> k & 0xffff, b[l] >> k & 0xffff, signed, min, relu) << k;
            half(0) | half(16)
        } else {
            minmax32(a[l], b[l], signed, min, relu)
        }
    });
    write_dst(w, &d.dst, exec, &out);
    Ok(())
}

/// The minimum or maximum of 32-bit `a` and `b`; `.RELU` makes a negative signed result 0.
fn minmax32(a: u32, b: u32, signed: bool, min: bool, relu: bool) -> u32 {
    match (signed, min) {
        (true, true) => ((a as i32).min(b as i32)).max(if relu { 0 } else { i32::MIN }) as u32,
        (true, false) => ((a as i32).max(b as i32)).max(if relu { 0 } else { i32::MIN }) as u32,
        (false, true) => a.min(b),
        (false, false) => a.max(b),
    }
}

/// [`minmax32`] of two 16-bit halves (the result in the low 16 bits).
fn minmax16(a: u32, b: u32, signed: bool, min: bool, relu: bool) -> u32 {
    if !signed {
        return if min { a.min(b) } else { a.max(b) };
    }
    let (x, y) = (a as u16 as i16, b as u16 as i16);
    let r = if min { x.min(y) } else { x.max(y) };
    (if relu { r.max(0) } else { r }) as u16 as u32
}

/// VIADDMNMX (Hopper): the minimum (Ps true) or maximum of the wrapping sum `a + b` and `c`,
/// signed unless `.U32` (CUDA's `__viaddmin_s32` / `__viaddmax_u32` family).
pub fn viaddmnmx(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (a, b, c) = (ctx.row(w, &d.a), ctx.row(w, &d.b), ctx.row(w, &d.c));
    let p = w.pred_mask(d.ps[0], u32::MAX);
    let out: [u32; WARP] = std::array::from_fn(|l| {
        let sum = (ineg(a[l], &d.a, false) + ineg(b[l], &d.b, false)) as u32;
        let min = (p >> l) & 1 == 1;
        match (d.m.signed, min) {
            (true, true) => (sum as i32).min(c[l] as i32) as u32,
            (true, false) => (sum as i32).max(c[l] as i32) as u32,
            (false, true) => sum.min(c[l]),
            (false, false) => sum.max(c[l]),
        }
    });
    write_dst(w, &d.dst, exec, &out);
    Ok(())
}

/// IABS: `|b|` (wrapping: `|-2^31| = -2^31`).
pub fn iabs(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let src = if d.b.present() { &d.b } else { &d.a };
    let v = ctx.row(w, src);
    let out: [u32; WARP] = std::array::from_fn(|l| (v[l] as i32).wrapping_abs() as u32);
    write_dst(w, &d.dst, exec, &out);
    Ok(())
}

/// VABSDIFF (PTX `sad`): `|a - b| + c`, the difference taken exactly (signed unless `.U32`)
/// and the sum wrapped to 32 bits. The predicate output is not modelled: ptxas leaves it PT,
/// anything else is reported as unsupported.
pub fn vabsdiff(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32, exec: u32) -> R {
    if d.pd[0].idx != ptxc_sass::isa::PT {
        return super::unsupported(ctx, w, d, group, exec);
    }
    let (a, b, c) = (ctx.row(w, &d.a), ctx.row(w, &d.b), ctx.row(w, &d.c));
    let wide = |x: u32| if d.m.signed { x as i32 as i64 } else { x as i64 };
    let out: [u32; WARP] =
        std::array::from_fn(|l| ((wide(a[l]) - wide(b[l])).unsigned_abs() as u32).wrapping_add(c[l]));
    write_dst(w, &d.dst, exec, &out);
    Ok(())
}

/// PLOP3.LUT: two lookup tables of three predicates (or of three registers' sign bits).
pub fn plop3(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let inputs: [u32; 3] = if d.a.present() {
        [&d.a, &d.b, &d.c].map(|s| {
            let row = ctx.row(w, s);
            (0..WARP).fold(0u32, |m, l| m | (row[l] >> 31) << l)
        })
    } else {
        [0, 1, 2].map(|i| w.pred_mask(d.ps[i], u32::MAX))
    };
    let (mut p0, mut p1) = (0u32, 0u32);
    for l in lanes(exec) {
        let idx = ((inputs[0] >> l) & 1) << 2 | ((inputs[1] >> l) & 1) << 1 | ((inputs[2] >> l) & 1);
        p0 |= (((d.other >> idx) & 1) as u32) << l;
        p1 |= (((d.aux >> idx) & 1) as u32) << l;
    }
    w.set_pred(d.pd[0].idx, exec, p0);
    w.set_pred(d.pd[1].idx, exec, p1);
    Ok(())
}

/// P2R: packs the predicates selected by mask `b` into byte `.Bn` of `a`.
pub fn p2r(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (a, b) = (ctx.row(w, &d.a), ctx.row(w, &d.b));
    let shift = 8 * d.m.byte.code() as u32;
    each(w, d, exec, |w, l| {
        let preds = (0..8).fold(0u32, |v, p| v | ((w.preds[p] >> l) & 1) << p);
        let mask = (b[l] & 0xff) << shift;
        (a[l] & !mask) | ((preds << shift) & mask)
    });
    Ok(())
}

/// R2P: sets the predicates selected by mask `b` from byte `.Bn` of `a`.
pub fn r2p(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (a, b) = (ctx.row(w, &d.a), ctx.row(w, &d.b));
    // The byte is selected by A's suffix (`R2P PR, R0.B1, 0x7f`).
    let shift = 8 * ((d.m.byte.code() as u8 | d.a.swizzle) as u32 & 3);
    for p in 0..7u8 {
        let mut sel = 0u32;
        let mut val = 0u32;
        for l in lanes(exec) {
            if (b[l] >> p) & 1 == 1 {
                sel |= 1 << l;
                val |= ((a[l] >> (shift + p as u32)) & 1) << l;
            }
        }
        if sel != 0 {
            w.set_pred(p, sel, val);
        }
    }
    Ok(())
}

/// IDP.4A / IDP.2A: integer dot products of bytes (and halves) plus `c`.
pub fn idp(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (a, b, c) = (ctx.row(w, &d.a), ctx.row(w, &d.b), ctx.row(w, &d.c));
    let two = d.m.idp != IdpKind::FourA;
    let (a_signed, b_signed) = (d.m.a_signed, d.m.b_signed);
    let byte = |v: u32, i: u32, s: bool| {
        let x = (v >> (8 * i)) & 0xff;
        if s { x as u8 as i8 as i64 } else { x as i64 }
    };
    let half = |v: u32, i: u32, s: bool| {
        let x = (v >> (16 * i)) & 0xffff;
        if s { x as u16 as i16 as i64 } else { x as i64 }
    };
    let out: [u32; WARP] = std::array::from_fn(|l| {
        // `-C` (bit 75) subtracts the accumulator.
        let mut acc = c[l] as i32 as i64;
        if d.c.neg {
            acc = -acc;
        }
        if two {
            let base = if d.m.idp == IdpKind::TwoAHi { 2 } else { 0 };
            for i in 0..2 {
                acc += half(a[l], i, a_signed) * byte(b[l], base + i, b_signed);
            }
        } else {
            for i in 0..4 {
                acc += byte(a[l], i, a_signed) * byte(b[l], i, b_signed);
            }
        }
        acc as u32
    });
    write_dst(w, &d.dst, exec, &out);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vimnmx_halves_and_relu() {
        // max.u16x2(R0, 0) is R0 (ptxas's `VIMNMX.U16x2 R0, R0, RZ, !PT`).
        assert_eq!(minmax16(0x8001, 0, false, false, false), 0x8001);
        // Signed halves: -1 < 1; `.RELU` clamps a negative result to 0.
        assert_eq!(minmax16(0xffff, 1, true, true, false), 0xffff);
        assert_eq!(minmax16(0xffff, 0xfffe, true, false, true), 0);
        assert_eq!(minmax32(-5i32 as u32, 3, true, true, true), 0);
        assert_eq!(minmax32(-5i32 as u32, 3, false, true, false), 3);
    }
}
