//! Exact rounding of an f64 quotient or square root computed in a safe exponent range and
//! then scaled by `2^k`: the slow paths of the f64 expansions normalise their operands,
//! compute the result `q` (rounded to nearest, in [0.5, 4)) and the residual `rem` whose
//! sign says on which side of `q` the exact result lies, and call [`scale`].
//!
//! - normal results: `q` is moved to the neighbouring f64 value in the direction of the exact
//!   result when the rounding is directed and `rem` says it lies that way, and `k` is added
//!   to the exponent field;
//! - overflow: infinity, or the largest finite value when rounding toward zero;
//! - subnormal results (and those that round up to the smallest normal): with `Q` the 53-bit
//!   significand of `q` and `E` the biased exponent of `q 2^k` (at most 1), the exact result
//!   in units of 2^-1074 is `(2Q + e) 2^-s` with `s = 2 - E` and `|e| < 1` of the sign of
//!   `rem`. Shifting out `s` bits leaves `M` and the remainder `R` (even) against the half
//!   `H = 2^(s-1)`: to nearest rounds up when `R > H`, or `R = H` and `e > 0` (ties, `e = 0`,
//!   to even `M`); away from zero when `R > 0` or `e > 0`; toward zero subtracts one when
//!   `R = 0` and `e < 0`. `M + 1 = 2^52` is the smallest normal's encoding.

use super::builder::Builder;
use ptxc_mir::ir::{Cond, Opcode, Rounding, Type, Value};

/// How a magnitude is rounded: to nearest, or a runtime predicate saying away from zero
/// (else toward zero).
#[derive(Clone, Copy)]
pub enum Direction {
    /// Round to nearest, ties to even.
    Nearest,
    /// Away from zero when the predicate holds, toward zero otherwise.
    Directed(Value),
}

impl Direction {
    /// The direction of mode `rnd` for a result whose sign is the predicate `negative`.
    pub fn of(b: &mut Builder, rnd: Rounding, negative: Value) -> Direction {
        match rnd {
            Rounding::Rn => Direction::Nearest,
            Rounding::Rz => {
                let f = b.k(Type::Pred, 0);
                Direction::Directed(f)
            }
            Rounding::Rp => {
                let t = b.k(Type::Pred, 1);
                let up = b.pred(Opcode::Xor, negative, t);
                Direction::Directed(up)
            }
            Rounding::Rm => Direction::Directed(negative),
        }
    }
}

/// The bits (i64) of the magnitude of `q 2^k` rounded as `dir` says; `q` is positive and
/// normal, `rem` the residual (positive if the exact result is above `q`), `k` an i32.
pub fn scale(b: &mut Builder, q: Value, rem: Value, k: Value, dir: Direction) -> Value {
    let zero = b.f64(0.0);
    let above = b.fcmp(Cond::Gt, Type::F64, rem, zero);
    let below = b.fcmp(Cond::Lt, Type::F64, rem, zero);
    let qbits = b.bitcast(Type::I64, q);
    let qdir = match dir {
        Direction::Nearest => qbits,
        Direction::Directed(up) => step(b, qbits, up, above, below),
    };
    let e = exponent_field(b, q);
    let big_e = b.bin(Opcode::Iadd, Type::I32, e, k);
    let edir = exponent_field_bits(b, qdir);
    let edir = b.bin(Opcode::Iadd, Type::I32, edir, k);
    let normal = add_exponent(b, qdir, k);
    let overflow = overflow_bits(b, dir);
    let max_e = b.i32(0x7ff);
    let over = b.icmp(Cond::Ge, Type::I32, edir, max_e);
    let normal = b.select(Type::I64, over, overflow, normal);
    let sub = subnormal(b, qbits, big_e, dir, above, below);
    let one = b.i32(1);
    let tiny = b.icmp(Cond::Le, Type::I32, big_e, one);
    b.select(Type::I64, tiny, sub, normal)
}

/// `bits` moved one unit up when the exact value is above and rounding goes away from zero,
/// one down when it is below and rounding goes toward zero.
fn step(b: &mut Builder, bits: Value, up: Value, above: Value, below: Value) -> Value {
    let t = b.k(Type::Pred, 1);
    let down = b.pred(Opcode::Xor, up, t);
    let inc = b.pred(Opcode::And, up, above);
    let dec = b.pred(Opcode::And, down, below);
    let (one, zero, minus) = (b.k(Type::I64, 1), b.k(Type::I64, 0), b.k(Type::I64, u64::MAX));
    let d = b.select(Type::I64, dec, minus, zero);
    let d = b.select(Type::I64, inc, one, d);
    b.bin(Opcode::Iadd, Type::I64, bits, d)
}

/// The biased exponent field of a positive f64, as an i32.
pub fn exponent_field(b: &mut Builder, x: Value) -> Value {
    let hi = b.hi(x);
    let n = b.i32(20);
    b.bin(Opcode::ShrU, Type::I32, hi, n)
}

/// The biased exponent field of the positive f64 with bits `bits` (i64).
fn exponent_field_bits(b: &mut Builder, bits: Value) -> Value {
    let x = b.bitcast(Type::F64, bits);
    exponent_field(b, x)
}

/// `bits` (a positive normal f64) with `k` added to the exponent field.
fn add_exponent(b: &mut Builder, bits: Value, k: Value) -> Value {
    let x = b.bitcast(Type::F64, bits);
    let (hi, lo) = (b.hi(x), b.lo(x));
    let n = b.i32(20);
    let shifted = b.bin(Opcode::Shl, Type::I32, k, n);
    let hi = b.bin(Opcode::Iadd, Type::I32, hi, shifted);
    let v = b.pack(Type::F64, hi, lo);
    b.bitcast(Type::I64, v)
}

/// Infinity, or the largest finite value when rounding toward zero.
fn overflow_bits(b: &mut Builder, dir: Direction) -> Value {
    let inf = b.k(Type::I64, f64::INFINITY.to_bits());
    match dir {
        Direction::Nearest => inf,
        Direction::Directed(up) => {
            let max = b.k(Type::I64, f64::MAX.to_bits());
            b.select(Type::I64, up, inf, max)
        }
    }
}

/// The subnormal (or smallest normal) result, see the module documentation.
fn subnormal(b: &mut Builder, qbits: Value, big_e: Value, dir: Direction, above: Value, below: Value) -> Value {
    let mask = b.k(Type::I64, (1 << 52) - 1);
    let implicit = b.k(Type::I64, 1 << 52);
    let m = b.bin(Opcode::And, Type::I64, qbits, mask);
    let m = b.bin(Opcode::Or, Type::I64, m, implicit);
    let one32 = b.i32(1);
    let q2 = b.bin(Opcode::Shl, Type::I64, m, one32);
    let two = b.i32(2);
    let s = b.bin(Opcode::Isub, Type::I32, two, big_e);
    let cap = b.i32(63);
    let s = b.bin(Opcode::MinS, Type::I32, s, cap);
    let kept = b.bin(Opcode::ShrU, Type::I64, q2, s);
    let one = b.k(Type::I64, 1);
    let unit = b.bin(Opcode::Shl, Type::I64, one, s);
    let low_mask = b.bin(Opcode::Isub, Type::I64, unit, one);
    let rest = b.bin(Opcode::And, Type::I64, q2, low_mask);
    let zero = b.k(Type::I64, 0);
    let (inc, dec) = match dir {
        Direction::Nearest => {
            let s1 = b.bin(Opcode::Isub, Type::I32, s, one32);
            let half = b.bin(Opcode::Shl, Type::I64, one, s1);
            let more = b.icmp(Cond::Ugt, Type::I64, rest, half);
            let tie = b.icmp(Cond::Eq, Type::I64, rest, half);
            let low_bit = b.bin(Opcode::And, Type::I64, kept, one);
            let odd = b.icmp(Cond::Ne, Type::I64, low_bit, zero);
            let t = b.k(Type::Pred, 1);
            let not_below = b.pred(Opcode::Xor, below, t);
            let even_up = b.pred(Opcode::And, odd, not_below);
            let tie_up = b.pred(Opcode::Or, above, even_up);
            let tie_up = b.pred(Opcode::And, tie, tie_up);
            (b.pred(Opcode::Or, more, tie_up), b.k(Type::Pred, 0))
        }
        Direction::Directed(up) => {
            let nonzero = b.icmp(Cond::Ne, Type::I64, rest, zero);
            let is_zero = b.icmp(Cond::Eq, Type::I64, rest, zero);
            let inexact = b.pred(Opcode::Or, nonzero, above);
            let inc = b.pred(Opcode::And, up, inexact);
            let t = b.k(Type::Pred, 1);
            let down = b.pred(Opcode::Xor, up, t);
            let exact_below = b.pred(Opcode::And, is_zero, below);
            (inc, b.pred(Opcode::And, down, exact_below))
        }
    };
    let minus = b.k(Type::I64, u64::MAX);
    let d = b.select(Type::I64, dec, minus, zero);
    let d = b.select(Type::I64, inc, one, d);
    b.bin(Opcode::Iadd, Type::I64, kept, d)
}
