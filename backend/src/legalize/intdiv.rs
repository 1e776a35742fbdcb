//! Integer division and remainder.
//!
//! - by a variable, 32 bits: ptxas's sequence. `x = trunc(2^32 / f32_rp(d))` from MUFU.RCP
//!   (the reciprocal's bits plus 0x0ffffffe: times 2^32, minus two units, so `x` is below
//!   `2^32 / d`), one Newton step `x += mulhi(x, -d x)`, `q = mulhi(x, n)`, `r = n - q d`,
//!   then at most two corrections `q += 1, r -= d` while `r >= d`. Signed operations divide
//!   the magnitudes and fix the signs (the quotient's from both, the remainder's from `n`);
//! - by a variable, 64 bits: the 32-bit sequence when both operands fit in 32 bits, else
//!   (a block of its own) the same scheme with a 64-bit reciprocal (`I2F.U64.RP`, plus
//!   0x1ffffffe: times 2^64) and two Newton steps;
//! - by a constant: multiply-high by a magic number (unsigned; Granlund-Montgomery, see
//!   `ptxc_mir::opt::strength`), shifts for powers of two, a compare for constants with the
//!   top bit set (the quotient is 0 or 1), and the unsigned sequence on the magnitude for
//!   signed division by other constants;
//! - 8- and 16-bit operations are done on the operands extended to 32 bits.
//!
//! Division by zero gives all ones and remainder by zero the dividend, as the MIR says
//! (ptxas's remainder gives all ones; PTX leaves both unspecified).

use super::builder::{Builder, int_convert};
use ptxc_mir::ir::{Aux, Cond, ConvertInfo, InstData, Opcode, Rounding, Type, Value};

/// What is computed.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Kind {
    signed: bool,
    rem: bool,
}

/// Expands integer `div`/`rem`.
pub fn expand(b: &mut Builder, d: &InstData) -> Option<Value> {
    let kind = match d.op {
        Opcode::DivU => Kind {
            signed: false,
            rem: false,
        },
        Opcode::DivS => Kind {
            signed: true,
            rem: false,
        },
        Opcode::RemU => Kind {
            signed: false,
            rem: true,
        },
        Opcode::RemS => Kind {
            signed: true,
            rem: true,
        },
        _ => return None,
    };
    let (n, dv) = (d.args[0], d.args[1]);
    Some(match d.ty {
        Type::I8 | Type::I16 => narrow(b, d.ty, kind, n, dv),
        ty => match b.func.const_value(dv) {
            Some(c) if c != 0 && !(kind.signed && is_min(c, ty)) => by_constant(b, ty, kind, n, c),
            _ => by_variable(b, ty, kind, n, dv),
        },
    })
}

/// True if `c` is the most negative value of `ty`.
fn is_min(c: u64, ty: Type) -> bool {
    c == 1 << (ty.bits() - 1)
}

/// 8- and 16-bit division: on 32-bit extensions, truncated back.
fn narrow(b: &mut Builder, ty: Type, kind: Kind, n: Value, d: Value) -> Value {
    let widen = |b: &mut Builder, v: Value| {
        let info = ConvertInfo {
            from_signed: kind.signed,
            to_signed: kind.signed,
            ..int_convert(ty)
        };
        b.convert(Type::I32, v, info)
    };
    let (wn, wd) = (widen(b, n), widen(b, d));
    let op = match (kind.signed, kind.rem) {
        (false, false) => Opcode::DivU,
        (true, false) => Opcode::DivS,
        (false, true) => Opcode::RemU,
        (true, true) => Opcode::RemS,
    };
    let r = b.bin(op, Type::I32, wn, wd);
    b.convert(ty, r, int_convert(Type::I32))
}

/// `|x|` (the most negative value stays, read as unsigned it is its magnitude).
fn abs(b: &mut Builder, ty: Type, x: Value) -> Value {
    let n = b.op(Opcode::Ineg, ty, &[x], Aux::None);
    let zero = b.k(ty, 0);
    let neg = b.icmp(Cond::Lt, ty, x, zero);
    b.select(ty, neg, n, x)
}

/// `negate ? -x : x`.
fn negate_if(b: &mut Builder, ty: Type, negate: Value, x: Value) -> Value {
    let n = b.op(Opcode::Ineg, ty, &[x], Aux::None);
    b.select(ty, negate, n, x)
}

/// Applies the signs of signed division to the unsigned quotient or remainder of the
/// magnitudes.
fn signed_result(b: &mut Builder, ty: Type, kind: Kind, n: Value, d: Value, q: Value, r: Value) -> Value {
    let zero = b.k(ty, 0);
    let n_neg = b.icmp(Cond::Lt, ty, n, zero);
    if kind.rem {
        return negate_if(b, ty, n_neg, r);
    }
    let d_neg = b.icmp(Cond::Lt, ty, d, zero);
    let neg = b.pred(Opcode::Xor, n_neg, d_neg);
    negate_if(b, ty, neg, q)
}

/// Division by a variable.
fn by_variable(b: &mut Builder, ty: Type, kind: Kind, n: Value, d: Value) -> Value {
    let (un, ud) = if kind.signed {
        (abs(b, ty, n), abs(b, ty, d))
    } else {
        (n, d)
    };
    let (q, r) = if ty == Type::I64 {
        udivrem64(b, un, ud)
    } else {
        udivrem32(b, un, ud)
    };
    let v = if kind.signed {
        signed_result(b, ty, kind, n, d, q, r)
    } else if kind.rem {
        r
    } else {
        q
    };
    if kind.rem {
        return v;
    }
    let zero = b.k(ty, 0);
    let by_zero = b.icmp(Cond::Eq, ty, d, zero);
    let ones = b.k(ty, u64::MAX);
    b.select(ty, by_zero, ones, v)
}

/// `trunc(2^w / f32_rp(d))` lowered by two units (`w` = 32 or 64): below `2^w / d`.
fn reciprocal_estimate(b: &mut Builder, ty: Type, d: Value) -> Value {
    let to_f32 = ConvertInfo {
        rnd: Some(Rounding::Rp),
        ..int_convert(ty)
    };
    let f = b.convert(Type::F32, d, to_f32);
    let r = b.mufu(Opcode::FrcpApprox, Type::F32, f);
    let bits = b.bitcast(Type::I32, r);
    let k = b.i32(if ty == Type::I64 { 0x1fff_fffe } else { 0x0fff_fffe });
    let bits = b.bin(Opcode::Iadd, Type::I32, bits, k);
    let scaled = b.bitcast(Type::F32, bits);
    let to_int = ConvertInfo {
        rnd: Some(Rounding::Rz),
        ftz: true,
        ..int_convert(Type::F32)
    };
    b.convert(ty, scaled, to_int)
}

/// One Newton step on the estimate `x` of `2^w / d`: `x + mulhi(x, -d x)`.
fn newton_step(b: &mut Builder, ty: Type, x: Value, nd: Value) -> Value {
    let e = b.bin(Opcode::Imul, ty, nd, x);
    if ty == Type::I64 {
        let h = mulhi64(b, x, e);
        b.bin(Opcode::Iadd, ty, h, x)
    } else {
        let h = b.bin(Opcode::ImulHiU, ty, x, e);
        b.bin(Opcode::Iadd, ty, h, x)
    }
}

/// `q = mulhi(x, n)`, `r = n - q d`, then two corrections: the quotient and remainder.
fn finish(b: &mut Builder, ty: Type, x: Value, n: Value, d: Value, nd: Value) -> (Value, Value) {
    let mut q = if ty == Type::I64 {
        mulhi64(b, x, n)
    } else {
        b.bin(Opcode::ImulHiU, ty, x, n)
    };
    let qd = b.bin(Opcode::Imul, ty, q, nd);
    let mut r = b.bin(Opcode::Iadd, ty, qd, n);
    let one = b.k(ty, 1);
    for _ in 0..2 {
        let ge = b.icmp(Cond::Uge, ty, r, d);
        let r1 = b.bin(Opcode::Isub, ty, r, d);
        let q1 = b.bin(Opcode::Iadd, ty, q, one);
        r = b.select(ty, ge, r1, r);
        q = b.select(ty, ge, q1, q);
    }
    (q, r)
}

/// Unsigned 32-bit quotient and remainder.
fn udivrem32(b: &mut Builder, n: Value, d: Value) -> (Value, Value) {
    let x = reciprocal_estimate(b, Type::I32, d);
    let nd = b.op(Opcode::Ineg, Type::I32, &[d], Aux::None);
    let x = newton_step(b, Type::I32, x, nd);
    finish(b, Type::I32, x, n, d, nd)
}

/// Unsigned 64-bit quotient and remainder: the 32-bit sequence when both fit in 32 bits,
/// else the 64-bit one in a block of its own.
fn udivrem64(b: &mut Builder, n: Value, d: Value) -> (Value, Value) {
    let both = b.bin(Opcode::Or, Type::I64, n, d);
    let high = b.hi(both);
    let zero = b.i32(0);
    let wide = b.icmp(Cond::Ne, Type::I32, high, zero);
    let (n32, d32) = (b.lo(n), b.lo(d));
    let (q32, r32) = udivrem32(b, n32, d32);
    let zext = |b: &mut Builder, v: Value| b.convert(Type::I64, v, int_convert(Type::I32));
    let (q, r) = (zext(b, q32), zext(b, r32));
    let merge = b.new_block(false);
    let (mq, mr) = (b.param(merge, Type::I64), b.param(merge, Type::I64));
    b.subroutine(wide, merge, &[q, r], |b| {
        let x = reciprocal_estimate(b, Type::I64, d);
        let nd = b.op(Opcode::Ineg, Type::I64, &[d], Aux::None);
        let x = newton_step(b, Type::I64, x, nd);
        let x = newton_step(b, Type::I64, x, nd);
        let (q, r) = finish(b, Type::I64, x, n, d, nd);
        vec![q, r]
    });
    (mq, mr)
}

/// The high 64 bits of the 128-bit unsigned product of `x` and `y`.
fn mulhi64(b: &mut Builder, x: Value, y: Value) -> Value {
    b.bin(Opcode::ImulHiU, Type::I64, x, y)
}

/// Division by the nonzero constant `c` (not the most negative value when signed).
fn by_constant(b: &mut Builder, ty: Type, kind: Kind, n: Value, c: u64) -> Value {
    let w = ty.bits();
    let c = c & ty.mask();
    let negative_c = kind.signed && (c >> (w - 1)) & 1 == 1;
    let magnitude = if negative_c { c.wrapping_neg() & ty.mask() } else { c };
    let un = if kind.signed { abs(b, ty, n) } else { n };
    let q = udiv_const(b, ty, un, magnitude);
    let mk = b.k(ty, magnitude);
    let qc = b.bin(Opcode::Imul, ty, q, mk);
    let r = b.bin(Opcode::Isub, ty, un, qc);
    if !kind.signed {
        return if kind.rem { r } else { q };
    }
    let zero = b.k(ty, 0);
    let n_neg = b.icmp(Cond::Lt, ty, n, zero);
    if kind.rem {
        return negate_if(b, ty, n_neg, r);
    }
    let neg = if negative_c {
        let t = b.k(Type::Pred, 1);
        b.pred(Opcode::Xor, n_neg, t)
    } else {
        n_neg
    };
    negate_if(b, ty, neg, q)
}

/// `x / c` for unsigned `x` and a constant `c >= 1`.
fn udiv_const(b: &mut Builder, ty: Type, x: Value, c: u64) -> Value {
    let w = ty.bits();
    if c.is_power_of_two() {
        let k = b.i32(c.trailing_zeros() as i64);
        return b.bin(Opcode::ShrU, ty, x, k);
    }
    if c > ty.mask() >> 1 {
        // The quotient is 0 or 1 (and the magic number would need 2^(2w) / c: 2^128 for
        // 64 bits, past u128).
        let (ck, one, zero) = (b.k(ty, c), b.k(ty, 1), b.k(ty, 0));
        let ge = b.icmp(Cond::Uge, ty, x, ck);
        return b.select(ty, ge, one, zero);
    }
    let (m, s) = ptxc_mir::opt::strength::magic_unsigned(c, w);
    let mulhi = |b: &mut Builder, x: Value, m: u64| {
        let mk = b.k(ty, m);
        if ty == Type::I64 {
            mulhi64(b, x, mk)
        } else {
            b.bin(Opcode::ImulHiU, ty, x, mk)
        }
    };
    if m < 1u128 << w {
        let hi = mulhi(b, x, m as u64);
        let k = b.i32(s as i64);
        return b.bin(Opcode::ShrU, ty, hi, k);
    }
    let t = mulhi(b, x, (m - (1u128 << w)) as u64);
    let diff = b.bin(Opcode::Isub, ty, x, t);
    let one = b.i32(1);
    let half = b.bin(Opcode::ShrU, ty, diff, one);
    let sum = b.bin(Opcode::Iadd, ty, t, half);
    let k = b.i32(s as i64 - 1);
    b.bin(Opcode::ShrU, ty, sum, k)
}
