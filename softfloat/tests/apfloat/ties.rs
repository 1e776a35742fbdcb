//! Operands whose exact results lie at or next to rounding ties, at the overflow and
//! underflow boundaries, or cancel: one builder per operation, each mixing in plain random
//! operands.

use crate::operands::{Rng, any, compose, exp_field, interesting, near_tie, pattern};
use ptxc_softfloat::{Format, Rounding, mul};

/// A biased exponent field for a normal result near an edge: the subnormal boundary, the
/// top of the range, or anywhere.
fn target_exponent(rng: &mut Rng, f: Format) -> i64 {
    let top = (1i64 << f.exp_bits()) - 2;
    let p = f.man_bits() as i64;
    match rng.below(4) {
        0 => rng.range(-p - 2, 2),
        1 => rng.range(top - 1, top + 1),
        _ => rng.range(1, top),
    }
}

/// Splits a product's exponent field into two operand exponent fields.
fn split_exponent(rng: &mut Rng, f: Format, target: i64) -> (u64, u64) {
    let top = (1i64 << f.exp_bits()) - 2;
    let bias = f.bias() as i64;
    let ea = rng.range(1, top);
    let eb = (target - ea + bias).clamp(1, top);
    (ea as u64, eb as u64)
}

/// `a + b` (and `a - b`): random; `b` at, next to, or around half an ulp of `a`; or close
/// values of opposite signs (cancellation).
pub fn add(rng: &mut Rng, f: Format) -> (u64, u64) {
    let p = f.man_bits() as i64;
    match rng.below(4) {
        0 => (any(rng, f), any(rng, f)),
        1 => {
            let a = interesting(rng, f);
            let eb = exp_field(f, a) - rng.range(p - 1, p + 3);
            let m = match rng.below(3) {
                0 => 0,
                1 => pattern(rng, f.man_bits()),
                _ => f.man_mask(),
            };
            (a, compose(f, rng.bit(), eb.max(0) as u64, m))
        }
        2 => {
            let a = any(rng, f);
            let k = rng.below(f.man_bits() as u64 + 1) as u32;
            let b = (a & !((1u64 << k) - 1)) | (rng.next() & ((1u64 << k) - 1));
            (a, b ^ f.sign_bit())
        }
        _ => (interesting(rng, f), interesting(rng, f)),
    }
}

/// `a * b`: random; `(1 + 2^-i)(1 + 2^-j)` with `i + j` at or next to `p + 1` (an exact
/// tie when equal) scaled to land near the subnormal or overflow boundary; short
/// significands whose products are exact.
pub fn mul_operands(rng: &mut Rng, f: Format) -> (u64, u64) {
    let p = f.man_bits() as i64;
    match rng.below(3) {
        0 => (any(rng, f), any(rng, f)),
        1 => {
            let i = rng.range(1, p);
            let j = (p + 1 - i + rng.range(-1, 1)).clamp(1, p);
            let target = target_exponent(rng, f);
            let (ea, eb) = split_exponent(rng, f, target);
            let (sa, sb) = (rng.bit(), rng.bit());
            (compose(f, sa, ea, 1 << (p - i)), compose(f, sb, eb, 1 << (p - j)))
        }
        _ => {
            let target = target_exponent(rng, f);
            let (ea, eb) = split_exponent(rng, f, target);
            let keep = |rng: &mut Rng| !((1u64 << rng.below(p as u64 + 1)) - 1);
            let (sa, ma, ka) = (rng.bit(), pattern(rng, f.man_bits()), keep(rng));
            let (sb, mb, kb) = (rng.bit(), pattern(rng, f.man_bits()), keep(rng));
            (compose(f, sa, ea, ma & ka), compose(f, sb, eb, mb & kb))
        }
    }
}

/// `a / b`: random; division by a power of two into the subnormal range (ties there);
/// quotients near the edges.
pub fn div_operands(rng: &mut Rng, f: Format) -> (u64, u64) {
    match rng.below(3) {
        0 => (any(rng, f), any(rng, f)),
        1 => {
            let a = interesting(rng, f);
            let top = (1i64 << f.exp_bits()) - 2;
            let b = compose(f, rng.bit(), rng.range(1, top) as u64, 0);
            (a, b)
        }
        _ => {
            let (a, b) = mul_operands(rng, f);
            // Swap the exponent roles: the quotient's exponent is near the edge when the
            // divisor's is the negated part.
            let top = (1i64 << f.exp_bits()) - 2;
            let bias = f.bias() as i64;
            let eb = (2 * bias - exp_field(f, b)).clamp(1, top) as u64;
            (a, compose(f, f.is_negative(b), eb, b & f.man_mask()))
        }
    }
}

/// `a * b + c`: random; product ties plus a zero, tiny or half-ulp addend; an addend that
/// cancels the rounded product (the exact error of the product remains).
pub fn fma_operands(rng: &mut Rng, f: Format) -> (u64, u64, u64) {
    let p = f.man_bits() as i64;
    match rng.below(5) {
        0 => (any(rng, f), any(rng, f), any(rng, f)),
        1 => {
            let (a, b) = mul_operands(rng, f);
            let c = match rng.below(3) {
                0 => f.zero(rng.bit()),
                1 => compose(f, rng.bit(), 0, pattern(rng, f.man_bits())),
                _ => interesting(rng, f),
            };
            (a, b, c)
        }
        2 => {
            let (a, b) = mul_operands(rng, f);
            let r = [Rounding::Rn, Rounding::Rz, Rounding::Rp][rng.below(3) as usize];
            (a, b, mul(a, b, f, r) ^ f.sign_bit())
        }
        3 => {
            // The product is exact (short significands); the addend is half an ulp of it or
            // next to that.
            let (a, b) = mul_operands(rng, f);
            let prod = mul(a, b, f, Rounding::Rz);
            let ec = exp_field(f, prod) - rng.range(p, p + 2);
            let m = [0, 1, f.man_mask()][rng.below(3) as usize];
            (a, b, compose(f, rng.bit(), ec.max(0) as u64, m))
        }
        _ => (interesting(rng, f), interesting(rng, f), interesting(rng, f)),
    }
}

/// A value of `from` to convert to `to`: random, or with the bits below `to`'s precision
/// (at any exponent) at or next to a tie.
pub fn convert_operand(rng: &mut Rng, from: Format, to: Format) -> u64 {
    let x = any(rng, from);
    if rng.bit() || from.man_bits() <= to.man_bits() {
        // Narrower targets also get ties from the subnormal grid: drop more bits.
        let extra = rng.below(from.man_bits() as u64 + 1) as u32;
        return near_tie(rng, x, extra.max(1).min(from.man_bits()));
    }
    near_tie(rng, x, from.man_bits() - to.man_bits())
}

/// A value to round to an integral value or to convert to an integer: random, or an
/// integer plus a half (or next to it), or a value near `2^k` for `k` up to 65.
pub fn integral_operand(rng: &mut Rng, f: Format) -> u64 {
    let p = f.man_bits() as i64;
    let bias = f.bias() as i64;
    let top = (1i64 << f.exp_bits()) - 2;
    match rng.below(3) {
        0 => any(rng, f),
        1 => {
            // Unbiased exponent e in [-1, p): the fraction has p - e bits.
            let e = rng.range(-1, p - 1);
            let x = compose(
                f,
                rng.bit(),
                (bias + e).clamp(1, top) as u64,
                pattern(rng, f.man_bits()),
            );
            near_tie(rng, x, (p - e) as u32)
        }
        _ => {
            let k = rng.range(0, 65);
            let m = [0, f.man_mask(), 1, pattern(rng, f.man_bits())][rng.below(4) as usize];
            let e = (bias + k - rng.range(0, 1)).clamp(1, top);
            compose(f, rng.bit(), e as u64, m)
        }
    }
}

/// An integer to convert to a float with `p` fraction bits: random of a random width, or
/// with `p + 2` or more significant bits ending at or next to a tie.
pub fn int_value(rng: &mut Rng, p: u32) -> i128 {
    let v = match rng.below(3) {
        0 => rng.next() as i128,
        1 => (rng.next() as i64 >> rng.below(64)) as i128,
        _ => {
            let width = (p + 2 + rng.below(64 - p as u64 - 1) as u32).min(64);
            let top = 1u64.checked_shl(width - 1).unwrap_or(0);
            let x = top | (rng.next() & (top.wrapping_sub(1)));
            near_tie(rng, x, width - p - 1) as i128
        }
    };
    if rng.below(4) == 0 { -v } else { v }
}
