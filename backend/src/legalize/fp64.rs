//! IEEE f64 division, reciprocal and square root, and `rsqrt.approx.f64`.
//!
//! Round to nearest keeps ptxas's fast paths (MUFU.RCP64H / MUFU.RSQ64H seeds refined by
//! DFMA Newton-Raphson steps):
//! - `a / b`: `r` refined to full precision, `q = a r`, `q + r(a - b q)`; taken when the
//!   quotient's high word, read as an f32 (plus `0 * b_hi`, which is NaN for huge `b`), is
//!   above 2^-1022's high word and `a`'s high word is at least 0x03600000 (no underflow of
//!   the residual);
//! - `1 / a`: the refined `r`, when `|f32(a_hi + 0x300402)| >= f32(0x400402)`;
//! - `sqrt(a)`: `y = rsqrt(a)` refined (`y + y e (1/2 + 3/8 e)`, `e = 1 - a y^2`), `s = a y`,
//!   `s + (a - s^2) y / 2`, when `a_hi - 0x3500000 < 0x7ca00000` (unsigned).
//!
//! The slow paths (and every directed rounding) handle zero, infinite and NaN operands
//! directly, normalise finite ones to [1, 2) (subnormals scaled by 2^64 first), compute the
//! result there with the same sequence, and scale it back exactly with
//! [`super::subnormal::scale`]. NaN results of invalid operations are 0xfff8000000000000 as
//! in ptxas's routines.

use super::builder::Builder;
use super::fdiv32::{finite_nonzero, special_quotient, sqrt_cases};
use super::subnormal::{Direction, scale};
use ptxc_mir::ir::{Aux, Cond, InstData, Opcode, Rounding, Type, Value};

/// The default NaN of ptxas's f64 routines.
const NAN64: u64 = 0xfff8_0000_0000_0000;

/// Expands an f64 `fdiv`, `frcp`, `fsqrt`, or `frsqrt_approx` without `.ftz`.
pub fn expand(b: &mut Builder, d: &InstData) -> Option<Value> {
    let (&Aux::Float(m), Type::F64) = (&d.aux, d.ty) else {
        return None;
    };
    let rnd = m.rnd.unwrap_or(Rounding::Rn);
    let nearest = rnd == Rounding::Rn;
    let x = d.args[0];
    Some(match d.op {
        Opcode::Fdiv if nearest => divide(b, x, d.args[1]),
        Opcode::Fdiv => {
            let y = d.args[1];
            b.call(Type::F64, |b| slow_divide(b, rnd, x, y))
        }
        Opcode::Frcp if nearest => reciprocal(b, x),
        Opcode::Frcp => b.call(Type::F64, |b| {
            let one = b.f64(1.0);
            slow_divide(b, rnd, one, x)
        }),
        Opcode::Fsqrt if nearest => square_root(b, x),
        Opcode::Fsqrt => b.call(Type::F64, |b| slow_sqrt(b, rnd, x)),
        Opcode::FrsqrtApprox if !m.ftz => rsqrt(b, x),
        _ => return None,
    })
}

/// `fma(x, y, z)` rounded to nearest.
fn fma(b: &mut Builder, x: Value, y: Value, z: Value) -> Value {
    b.fma(Type::F64, x, y, z, Rounding::Rn)
}

/// `x * y` rounded to nearest.
fn mul(b: &mut Builder, x: Value, y: Value) -> Value {
    b.mul(Type::F64, x, y, Rounding::Rn)
}

/// The reciprocal of `y` refined from MUFU.RCP64H to full precision. The seed's lower word
/// is 1, as in ptxas's sequence: with a zero lower word, a seed that is exactly a power of
/// two makes every correction step a tie that rounds back to it (`1 / 0x3fffffffffffffff`
/// would come out one unit low).
fn refined_reciprocal(b: &mut Builder, y: Value) -> Value {
    let seed = b.mufu(Opcode::FrcpApprox, Type::F64, y);
    let hi = b.hi(seed);
    let one = b.i32(1);
    let r0 = b.pack(Type::F64, hi, one);
    let ny = b.neg(Type::F64, y);
    let one = b.f64(1.0);
    let e = fma(b, ny, r0, one);
    let e = fma(b, e, e, e);
    let r = fma(b, r0, e, r0);
    let e2 = fma(b, ny, r, one);
    fma(b, r, e2, r)
}

/// `x / y` by ptxas's Newton-Raphson sequence (correctly rounded to nearest when the
/// operands are in range): the quotient and the reciprocal.
pub fn newton_quotient(b: &mut Builder, x: Value, y: Value) -> (Value, Value) {
    let r = refined_reciprocal(b, y);
    let q = mul(b, x, r);
    let ny = b.neg(Type::F64, y);
    let rem = fma(b, ny, q, x);
    (fma(b, r, rem, q), r)
}

/// The refined reciprocal square root of `x` (ptxas's `rsqrt.approx.f64` and square root
/// seed).
fn refined_rsqrt(b: &mut Builder, x: Value) -> Value {
    let y = b.mufu(Opcode::FrsqrtApprox, Type::F64, x);
    let t = mul(b, y, y);
    let nt = b.neg(Type::F64, t);
    let one = b.f64(1.0);
    let e = fma(b, x, nt, one);
    let (c, half) = (b.f64(0.375), b.f64(0.5));
    let p = fma(b, e, c, half);
    let u = mul(b, y, e);
    fma(b, p, u, y)
}

/// `sqrt(x)` by ptxas's sequence (correctly rounded to nearest in range): the root and the
/// refined reciprocal root.
pub fn newton_sqrt(b: &mut Builder, x: Value) -> (Value, Value) {
    let y = refined_rsqrt(b, x);
    let s = mul(b, x, y);
    let half = b.f64(0.5);
    let h = mul(b, y, half);
    let ns = b.neg(Type::F64, s);
    let e = fma(b, s, ns, x);
    (fma(b, e, h, s), y)
}

/// The high word of `x` read as an f32.
fn hi_f32(b: &mut Builder, x: Value) -> Value {
    let h = b.hi(x);
    b.bitcast(Type::F32, h)
}

/// `|x| cond k` on f32 with `k` given by its bits.
fn abs_cmp(b: &mut Builder, cond: Cond, x: Value, k: u32) -> Value {
    let ax = b.abs(Type::F32, x);
    let k = b.k(Type::F32, k as u64);
    b.fcmp(cond, Type::F32, ax, k)
}

/// `div.rn.f64`.
fn divide(b: &mut Builder, x: Value, y: Value) -> Value {
    let (q, _) = newton_quotient(b, x, y);
    let (yh, qh, xh) = (hi_f32(b, y), hi_f32(b, q), hi_f32(b, x));
    let zero = b.f32(0.0);
    let t = b.fma(Type::F32, zero, yh, qh, Rounding::Rn);
    let small_q = abs_cmp(b, Cond::Leu, t, 0x0010_0000);
    let small_x = abs_cmp(b, Cond::Lt, xh, 0x0360_0000);
    let slow = b.pred(Opcode::Or, small_q, small_x);
    b.with_slow_path(Type::F64, slow, q, |b| slow_divide(b, Rounding::Rn, x, y))
}

/// `rcp.rn.f64`.
fn reciprocal(b: &mut Builder, x: Value) -> Value {
    let r = refined_reciprocal(b, x);
    let h = b.hi(x);
    let k = b.i32(0x30_0402);
    let t = b.bin(Opcode::Iadd, Type::I32, h, k);
    let t = b.bitcast(Type::F32, t);
    let slow = abs_cmp(b, Cond::Lt, t, 0x0040_0402);
    b.with_slow_path(Type::F64, slow, r, |b| {
        let one = b.f64(1.0);
        slow_divide(b, Rounding::Rn, one, x)
    })
}

/// `sqrt.rn.f64`.
fn square_root(b: &mut Builder, x: Value) -> Value {
    let (s, _) = newton_sqrt(b, x);
    let h = b.hi(x);
    let k = b.i32(-0x350_0000);
    let t = b.bin(Opcode::Iadd, Type::I32, h, k);
    let limit = b.i32(0x7ca0_0000);
    let slow = b.icmp(Cond::Uge, Type::I32, t, limit);
    b.with_slow_path(Type::F64, slow, s, |b| slow_sqrt(b, Rounding::Rn, x))
}

/// `rsqrt.approx.f64` without `.ftz`: the refined seed for positive normal inputs; zero
/// gives infinity of its sign, +inf zero, negative values and NaN NaN, and subnormals are
/// scaled by 2^54 (the result by 2^27).
fn rsqrt(b: &mut Builder, x: Value) -> Value {
    let y = refined_rsqrt(b, x);
    let h = b.hi(x);
    let k = b.i32(-0x10_0000);
    let t = b.bin(Opcode::Iadd, Type::I32, h, k);
    let limit = b.i32(0x7fe0_0000);
    let slow = b.icmp(Cond::Uge, Type::I32, t, limit);
    b.with_slow_path(Type::F64, slow, y, |b| {
        let (zero, inf) = (b.f64(0.0), b.f64(f64::INFINITY));
        let scale_in = b.f64(2f64.powi(54));
        let xs = mul(b, x, scale_in);
        let ys = refined_rsqrt(b, xs);
        let scale_out = b.f64(2f64.powi(27));
        let ys = mul(b, ys, scale_out);
        let positive = b.fcmp(Cond::Gt, Type::F64, x, zero);
        let is_zero = b.fcmp(Cond::Eq, Type::F64, x, zero);
        let is_inf = b.fcmp(Cond::Eq, Type::F64, x, inf);
        let signed_inf = b.op(Opcode::Fcopysign, Type::F64, &[x, inf], Aux::None);
        let nan = b.k(Type::F64, NAN64);
        let v = b.select(Type::F64, positive, ys, nan);
        let v = b.select(Type::F64, is_inf, zero, v);
        b.select(Type::F64, is_zero, signed_inf, v)
    })
}

/// `|x|` normalised to [1, 2): the significand as an f64 and the unbiased exponent (i32).
fn normalize(b: &mut Builder, x: Value) -> (Value, Value) {
    let ax = b.abs(Type::F64, x);
    let min = b.f64(f64::MIN_POSITIVE);
    let sub = b.fcmp(Cond::Lt, Type::F64, ax, min);
    let (up, one) = (b.f64(2f64.powi(64)), b.f64(1.0));
    let s = b.select(Type::F64, sub, up, one);
    let xs = mul(b, ax, s);
    let (m64, z) = (b.i32(-64 - 1023), b.i32(-1023));
    let bias = b.select(Type::I32, sub, m64, z);
    let e = super::subnormal::exponent_field(b, xs);
    let e = b.bin(Opcode::Iadd, Type::I32, e, bias);
    let (hi, lo) = (b.hi(xs), b.lo(xs));
    let mask = b.i32(0x000f_ffff);
    let hi = b.bin(Opcode::And, Type::I32, hi, mask);
    let exp1 = b.i32(0x3ff0_0000);
    let hi = b.bin(Opcode::Or, Type::I32, hi, exp1);
    (b.pack(Type::F64, hi, lo), e)
}

/// True if the f64 `x` is negative (sign bit set).
fn sign_bit(b: &mut Builder, x: Value) -> Value {
    let h = b.hi(x);
    let zero = b.i32(0);
    b.icmp(Cond::Lt, Type::I32, h, zero)
}

/// The f64 `magnitude` bits (i64) with the sign bit set if `negative`.
fn with_sign(b: &mut Builder, magnitude: Value, negative: Value) -> Value {
    let sign = b.k(Type::I64, 1 << 63);
    let zero = b.k(Type::I64, 0);
    let s = b.select(Type::I64, negative, sign, zero);
    let bits = b.bin(Opcode::Or, Type::I64, magnitude, s);
    b.bitcast(Type::F64, bits)
}

/// The exact quotient in mode `rnd` for any operands.
fn slow_divide(b: &mut Builder, rnd: Rounding, x: Value, y: Value) -> Value {
    let fx = finite_nonzero(b, Type::F64, x);
    let fy = finite_nonzero(b, Type::F64, y);
    let both = b.pred(Opcode::And, fx, fy);
    let special = special_quotient(b, Type::F64, x, y);
    let (sx, sy) = (sign_bit(b, x), sign_bit(b, y));
    let negative = b.pred(Opcode::Xor, sx, sy);
    let (mx, ex) = normalize(b, x);
    let (my, ey) = normalize(b, y);
    let (q, _) = newton_quotient(b, mx, my);
    let nmy = b.neg(Type::F64, my);
    let rem = fma(b, nmy, q, mx);
    let k = b.bin(Opcode::Isub, Type::I32, ex, ey);
    let dir = Direction::of(b, rnd, negative);
    let magnitude = scale(b, q, rem, k, dir);
    let v = with_sign(b, magnitude, negative);
    b.select(Type::F64, both, v, special)
}

/// The exact square root in mode `rnd` for any operand.
fn slow_sqrt(b: &mut Builder, rnd: Rounding, x: Value) -> Value {
    let (regular, special) = sqrt_cases(b, Type::F64, x, NAN64);
    let (m, e) = normalize(b, x);
    let one = b.i32(1);
    let low = b.bin(Opcode::And, Type::I32, e, one);
    let zero32 = b.i32(0);
    let odd = b.icmp(Cond::Ne, Type::I32, low, zero32);
    let (two, unit) = (b.f64(2.0), b.f64(1.0));
    let f = b.select(Type::F64, odd, two, unit);
    let m = mul(b, m, f);
    let e = b.bin(Opcode::Isub, Type::I32, e, low);
    let half_e = b.bin(Opcode::ShrS, Type::I32, e, one);
    let (s, _) = newton_sqrt(b, m);
    let ns = b.neg(Type::F64, s);
    let rem = fma(b, ns, s, m);
    let f = b.k(Type::Pred, 0);
    let dir = Direction::of(b, rnd, f);
    let magnitude = scale(b, s, rem, half_e, dir);
    let v = b.bitcast(Type::F64, magnitude);
    b.select(Type::F64, regular, v, special)
}
