//! The arithmetic of Turing's f16 tensor cores (HMMA), shared by the MIR interpreter and the
//! simulator: `d = c + Σ a_k b_k` over f16 products, accumulated in blocks of four.
//!
//! The model, and what each rule rests on:
//!
//! - **Blocks of four, in order.** A dot product of length `k` is `k / 4` fused block
//!   operations in increasing `k`: each adds four products to the accumulator and rounds once
//!   into the accumulator's format, which is the next block's addend. (Fasi, Higham, Mikaitis
//!   and Pranesh, "Numerical behavior of NVIDIA tensor cores", PeerJ Computer Science 7:e330,
//!   2021, measured on V100 and T4: blocks of 4 terms plus the addend; the V100 model of
//!   Khattak and Mikaitis, "Accurate models of NVIDIA tensor cores", 2025, validated bit for
//!   bit against the GPU, has `fma = 4` and chains blocks recursively. Turing's tensor cores
//!   behave as Volta's in every test of Fasi et al.)
//! - **Products are exact** (both sources): the 11-bit significands multiply to at most 22
//!   bits, subnormal f16 inputs included (Fasi et al., tests "products are computed exactly"
//!   and "binary16 subnormals in input").
//! - **Alignment without guard bits.** The terms of a block (the non-zero products and a
//!   non-zero addend) are aligned to `E = max(ea + eb, ec)`, where `ea`, `eb` are the
//!   exponents of the f16 operands (the exponent of their leading bit, at least -14 for
//!   subnormals) and `ec` the addend's (at least -126): the sum of two exponents, not the
//!   exponent of the product's leading bit, so a product in `[2, 4) · 2^(ea+eb)` keeps one
//!   more bit than an addend of the same exponent. Every term is truncated toward zero to a
//!   multiple of `2^(E - 23)`. (Khattak and Mikaitis' `Generic_BFMA_TC`: significands with 23
//!   fraction bits shifted right by the exponent difference, `neab = 0` extra bits, plus one
//!   bit when the largest product's significand is at least 2; Fasi et al.: "no guard digits",
//!   test D1 gives `2^-23` where the exact result is `2^-24`.)
//! - **One exact sum, normalised once.** The truncated terms are added exactly, with as many
//!   carry bits as the sum needs, and the sum is normalised and rounded once: toward zero for
//!   an f32 accumulator, to nearest even for an f16 accumulator (Fasi et al.: "round-down for
//!   positive values, round-up for negative values", "accumulator rounded to nearest in
//!   binary16 mode", partial sums not normalised; the model's `frmode` `rz` / `rne`).
//!   Subnormal results are kept (Fasi et al., tests A4 and A5).
//! - **Special values** (Khattak and Mikaitis' `GEMM`, not measured by Fasi et al.): a NaN
//!   operand, an infinite product with a zero factor, or infinities of both signs give NaN
//!   (the canonical NaN, as every NVIDIA float unit); otherwise an infinite term gives that
//!   infinity. A finite sum whose leading bit lies above the largest exponent becomes
//!   infinity even under rounding toward zero (the model's rule). An exactly zero sum is +0.
//!
//! Ampere and Ada (sm_80, sm_86, sm_89) reuse this model with two changes ([`Dot::ampere`]):
//!
//! - **Blocks of eight for f16 and bf16, four for tf32.** Fasi et al. ran their suite on an
//!   A100 as well and report that its tensor cores fuse eight binary16 or bfloat16 products
//!   per block and four TensorFloat-32 products (as ptxc reads the paper; the alignment,
//!   truncation and rounding rules are Turing's, carried over without an Ampere measurement
//!   of their own).
//! - **Other multiplicand formats.** bf16 products (8-bit significands) and tf32 products
//!   (11-bit) are as exact as f16 ones, and their exponents enter the alignment exactly as
//!   f16's do. A tf32 element is the upper 19 bits of its f32 register (sign, exponent, ten
//!   fraction bits): the tensor core truncates, which is what [`tf32`] does (PTX ISA: for
//!   `.tf32` operands the low 13 bits are not used).
//!
//! Sources not measured here (there is no GPU on this machine): which operand of a block
//! comes first does not matter in this model (the sum is exact), and the order of blocks is
//! the model's.

use crate::class::{Class, Num, classify};
use crate::format::{F16, F32, Format, TF32};
use crate::round::{Rounding, round};

/// Products a Turing tensor core adds in one fused block.
pub const BLOCK: usize = 4;

/// The most products any modelled tensor core adds in one block (Ampere's f16 and bf16).
pub const MAX_BLOCK: usize = 8;

/// The multiplicand format and block size of one kind of tensor-core dot product.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dot {
    /// The format of the elements of A and B (f16, bf16, or tf32 as 19-bit patterns).
    pub input: Format,
    /// Products per fused block (at most [`MAX_BLOCK`]).
    pub block: usize,
}

impl Dot {
    /// Turing's HMMA: f16 elements, blocks of four.
    pub const TURING_F16: Dot = Dot {
        input: F16,
        block: BLOCK,
    };
}

impl Dot {
    /// Ampere's tensor cores for elements of `input` (f16, bf16 or tf32): blocks of eight,
    /// four for tf32.
    pub fn ampere(input: Format) -> Dot {
        Dot {
            input,
            block: if input == TF32 { 4 } else { MAX_BLOCK },
        }
    }
}

/// The tf32 element (a 19-bit pattern) a tensor core reads from the f32 bits `x`: the low 13
/// fraction bits are dropped.
pub fn tf32(x: u64) -> u64 {
    (x & 0xffff_ffff) >> 13
}

/// `c + Σ a[k] · b[k]` with f16 elements `a`, `b` (bit patterns) and an accumulator `c` in
/// format `acc` (f16 or f32), which is also the result's format; `a.len()` must equal
/// `b.len()`. Turing's blocks of four.
pub fn hmma_dot(a: &[u64], b: &[u64], c: u64, acc: Format) -> u64 {
    mma_dot(Dot::TURING_F16, a, b, c, acc)
}

/// [`hmma_dot`] with elements in `dot.input` and blocks of `dot.block` products.
pub fn mma_dot(dot: Dot, a: &[u64], b: &[u64], c: u64, acc: Format) -> u64 {
    debug_assert_eq!(a.len(), b.len());
    debug_assert!(dot.block <= MAX_BLOCK);
    if let Some(special) = special(dot.input, a, b, c, acc) {
        return special;
    }
    let mut d = c;
    for (ab, bb) in a.chunks(dot.block).zip(b.chunks(dot.block)) {
        if acc.is_inf(d) {
            // A block overflowed: later blocks add finite terms to an infinity.
            break;
        }
        d = block(dot.input, ab, bb, d, acc);
    }
    d
}

/// The result when an operand is NaN or a term infinite.
fn special(input: Format, a: &[u64], b: &[u64], c: u64, acc: Format) -> Option<u64> {
    let mut pos = false;
    let mut neg = false;
    let mut nan = false;
    for (&x, &y) in a.iter().zip(b) {
        match (classify(x, input), classify(y, input)) {
            (Class::Nan, _) | (_, Class::Nan) => nan = true,
            (Class::Inf(_), Class::Zero(_)) | (Class::Zero(_), Class::Inf(_)) => nan = true,
            (Class::Inf(s), other) | (other, Class::Inf(s)) => {
                if s ^ other.neg() {
                    neg = true
                } else {
                    pos = true
                }
            }
            _ => {}
        }
    }
    match classify(c, acc) {
        Class::Nan => nan = true,
        Class::Inf(true) => neg = true,
        Class::Inf(false) => pos = true,
        _ => {}
    }
    if nan || (pos && neg) {
        Some(acc.canonical_nan())
    } else if pos || neg {
        Some(acc.inf(neg))
    } else {
        None
    }
}

/// The exponent of the leading bit of a non-zero f16 or f32, at least the format's minimum
/// normal exponent (a subnormal counts as having it).
fn exponent(n: Num, f: Format) -> i32 {
    let top = 127 - n.mant.leading_zeros() as i32 + n.exp;
    top.max(f.emin())
}

/// One fused block of at most [`MAX_BLOCK`] finite products of `input` elements and a finite
/// addend `c` (format `acc`), rounded into `acc`.
fn block(input: Format, a: &[u64], b: &[u64], c: u64, acc: Format) -> u64 {
    // Terms as (negative, exact significand, exponent of its last bit) and their alignment
    // exponents.
    let mut terms: [(Num, i32); MAX_BLOCK + 1] = [(
        Num {
            neg: false,
            mant: 0,
            exp: 0,
        },
        i32::MIN,
    ); MAX_BLOCK + 1];
    let mut n = 0;
    for (&x, &y) in a.iter().zip(b) {
        if let (Class::Finite(p), Class::Finite(q)) = (classify(x, input), classify(y, input)) {
            let product = Num {
                neg: p.neg ^ q.neg,
                mant: p.mant * q.mant,
                exp: p.exp + q.exp,
            };
            terms[n] = (product, exponent(p, input) + exponent(q, input));
            n += 1;
        }
    }
    if let Class::Finite(z) = classify(c, acc) {
        // The addend's exponent as an f32 (an f16 accumulator is widened exactly).
        terms[n] = (z, exponent(z, F32));
        n += 1;
    }
    let terms = &terms[..n];
    let Some(e) = terms.iter().map(|t| t.1).max() else {
        return acc.zero(false);
    };
    let last = e - 23;
    let mut sum: i128 = 0;
    for (t, _) in terms {
        let shift = t.exp - last;
        let magnitude = if shift >= 0 {
            t.mant << shift
        } else {
            t.mant >> (-shift).min(127)
        };
        sum += if t.neg { -(magnitude as i128) } else { magnitude as i128 };
    }
    if sum == 0 {
        return acc.zero(false);
    }
    let exact = Num {
        neg: sum < 0,
        mant: sum.unsigned_abs(),
        exp: last,
    };
    let top = 127 - exact.mant.leading_zeros() as i32 + exact.exp;
    if top > acc.bias() {
        return acc.inf(exact.neg);
    }
    let mode = if acc == F32 { Rounding::Rz } else { Rounding::Rn };
    round(exact, acc, mode)
}

/// `c + Σ a[k] · b[k]` of Ampere's double-precision tensor core (DMMA, PTX `mma.m8n8k4` of
/// f64), bit patterns of f64, as a chain of fused multiply-adds in increasing `k`, each
/// rounded once with `r`: `fma(a[3], b[3], fma(a[2], b[2], fma(a[1], b[1], fma(a[0], b[0],
/// c))))`. What this rests on: the PTX ISA defines `mma` of `.f64` as IEEE arithmetic
/// rounded to nearest (no `.rnd` qualifier on sm_80) and the SASS has DMMA's `.RM`/`.RP`
/// rounding bits (nvdisasm), as DFMA has; that each step is one IEEE fma and the order is
/// increasing `k` is the model's, not a measurement (there is no GPU on this machine, and
/// no published measurement of DMMA's internal order was found). A NaN result is the
/// canonical NaN, as every NVIDIA float unit's.
pub fn dmma_dot(a: &[u64], b: &[u64], c: u64, r: Rounding) -> u64 {
    debug_assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .fold(c, |acc, (&x, &y)| crate::arith::fma(x, y, acc, crate::format::F64, r))
}

#[cfg(test)]
mod tests {
    //! The test vectors of Fasi, Higham, Mikaitis and Pranesh's suite
    //! (`tc_test_numerics-T4-A100-binary16.cu`, one 16x16x16 WMMA whose first row and
    //! column carry the vector; element 0 of the result is checked), with the results the
    //! paper reports for V100 and T4.
    use super::*;
    use crate::convert::{from_f64, to_f64};

    fn h(x: f64) -> u64 {
        from_f64(x, F16, Rounding::Rn)
    }
    fn s(x: f64) -> u64 {
        from_f64(x, F32, Rounding::Rn)
    }

    /// Element (0, 0) of a 16x16x16 product with an f32 accumulator.
    fn dot32(a: &[f64], b: &[f64], c: f64) -> f64 {
        let (mut av, mut bv) = (vec![h(0.0); 16], vec![h(0.0); 16]);
        for (k, (&x, &y)) in a.iter().zip(b).enumerate() {
            av[k] = h(x);
            bv[k] = h(y);
        }
        to_f64(hmma_dot(&av, &bv, s(c), F32), F32)
    }

    fn dot16(a: &[f64], b: &[f64], c: f64) -> f64 {
        let (mut av, mut bv) = (vec![h(0.0); 16], vec![h(0.0); 16]);
        for (k, (&x, &y)) in a.iter().zip(b).enumerate() {
            av[k] = h(x);
            bv[k] = h(y);
        }
        to_f64(hmma_dot(&av, &bv, h(c), F16), F16)
    }

    const U: f64 = 5.960464477539063e-8; // 2^-24

    #[test]
    fn subnormals_in_and_out() {
        assert_eq!(dot16(&[U], &[4.0], 0.0), 4.0 * U);
        assert_eq!(dot32(&[U], &[4.0], 0.0), 4.0 * U);
        let tiny32 = f64::from(f32::from_bits(1));
        assert_eq!(dot32(&[], &[], tiny32), tiny32);
        assert_ne!(dot16(&[2f64.powi(-14)], &[1.0], -(2f64.powi(-15))), 0.0);
        assert_ne!(dot32(&[2f64.powi(-14)], &[1.0], -(2f64.powi(-15))), 0.0);
    }

    #[test]
    fn products_are_exact() {
        let below = 1.0 - 2f64.powi(-11);
        assert_eq!(dot32(&[below], &[below], 0.0), 1.0 - 2f64.powi(-10) + 2f64.powi(-22));
        let four = [below; 4];
        assert_eq!(dot32(&four, &four, 0.0), 4.0 * (1.0 - 2f64.powi(-10) + 2f64.powi(-22)));
        let r = dot16(&[below, below], &[below, 2f64.powi(-11)], 0.0);
        assert_eq!(r, 1.0 - 2f64.powi(-10) + 2f64.powi(-11));
    }

    #[test]
    fn sums_align_to_the_largest_term() {
        assert_eq!(dot32(&[0.5; 4], &[U; 4], 1.0), 1.0);
        for j in 0..4 {
            let mut a = [0.5; 4];
            let mut b = [U; 4];
            a[j] = 1.0;
            b[j] = 1.0;
            assert_eq!(dot32(&a, &b, U), 1.0);
        }
    }

    #[test]
    fn rounding_toward_zero_and_to_nearest() {
        let third = 2f64.powi(-23) + 2f64.powi(-24);
        assert_eq!(dot32(&[1.0; 4], &[2.0, third], 0.0), 2.0);
        assert_eq!(dot32(&[1.0; 4], &[-2.0, -third], 0.0), -2.0);
        assert_eq!(dot16(&[U, U], &[0.5, 0.25], 0.0), U);
    }

    #[test]
    fn accumulator_features() {
        let below = 1.0 - U;
        // D1: no guard digits (the exact result is 2^-24).
        assert_eq!(dot32(&[1.0], &[1.0], -below), 2f64.powi(-23));
        // D2: no normalisation of partial sums.
        assert_eq!(dot32(&[1.0; 4], &[U; 4], below), 1.0 + 2f64.powi(-23));
        // D3: bits shifted out are not recovered after cancellation (exact result 0).
        assert_eq!(dot32(&[1.0, 1.0], &[1.0, -U], -below), 2f64.powi(-23));
        // D4: carries are kept.
        for i in 0..4 {
            let mut b = [1.0; 4];
            b[i] = 2f64.powi(-23);
            assert_eq!(
                dot32(&[1.0; 4], &b, 1.0 + 2f64.powi(-22) + 2f64.powi(-23)),
                4.0 + 2f64.powi(-21)
            );
        }
        assert_eq!(dot32(&[1.0; 4], &[1.0, 1.5, 1.75, 1.875], 1.875), 8.0);
        assert_eq!(dot32(&[1.0; 4], &[1.0; 4], 1.0 + 2f64.powi(-22) + 2f64.powi(-23)), 5.0);
        assert_eq!(
            dot32(&[1.0; 4], &[-1.0; 4], -1.0 - 2f64.powi(-22) - 2f64.powi(-23)),
            -5.0
        );
    }

    #[test]
    fn a_product_in_two_to_four_keeps_one_more_bit() {
        // 1.5 * 1.5 = 2.25 = 1.001b * 2^1 is aligned to E = 0 + 0: the last bit kept is
        // 2^-23, so an addend of -2^-23 survives and the sum truncates to 2.25 - 2^-22
        // (aligned to the product's own exponent 1 the addend would vanish: 2.25).
        assert_eq!(dot32(&[1.5], &[1.5], -(2f64.powi(-23))), 2.25 - 2f64.powi(-22));
        // Its own bits below 2^-22 survive: (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20.
        let x = 1.0 + 2f64.powi(-10);
        assert_eq!(dot32(&[x], &[x], 0.0), 1.0 + 2f64.powi(-9) + 2f64.powi(-20));
    }

    #[test]
    fn blocks_chain_in_order_with_rounding_between() {
        // Block 1 gives 1 + 2^-23 (truncation of 1 + 1.5 * 2^-23); block 2 adds 2^-24 to
        // it, which falls below the window.
        let a = [1.0, 1.0, 1.0, 0.0, 2f64.powi(-14), 0.0, 0.0, 0.0];
        let b = [1.0, 2f64.powi(-23), 2f64.powi(-24), 0.0, 2f64.powi(-10), 0.0, 0.0, 0.0];
        assert_eq!(dot32(&a, &b, 0.0), 1.0 + 2f64.powi(-23));
    }

    #[test]
    fn ampere_blocks_of_eight_round_once() {
        // 1 - 1 + 2^-24: in one block of eight every term aligns to the exponent of 1, and
        // 2^-24 falls below its window (0); in blocks of four the first block cancels to 0
        // and the second adds 2^-24 on its own.
        let mut a = vec![h(0.0); 8];
        let mut b = vec![h(0.0); 8];
        (a[0], b[0]) = (h(1.0), h(1.0));
        (a[1], b[1]) = (h(1.0), h(-1.0));
        (a[5], b[5]) = (h(2f64.powi(-12)), h(2f64.powi(-12)));
        let eight = to_f64(mma_dot(Dot::ampere(F16), &a, &b, s(0.0), F32), F32);
        let four = to_f64(hmma_dot(&a, &b, s(0.0), F32), F32);
        assert_eq!(eight, 0.0);
        assert_eq!(four, 2f64.powi(-24));
    }

    #[test]
    fn bf16_and_tf32_elements() {
        use crate::format::BF16;
        let bf = |x: f64| from_f64(x, BF16, Rounding::Rn);
        // bf16's range: 2^100 * 2^-90 = 2^10, far outside f16's.
        let r = mma_dot(
            Dot::ampere(BF16),
            &[bf(2f64.powi(100))],
            &[bf(2f64.powi(-90))],
            s(1.0),
            F32,
        );
        assert_eq!(to_f64(r, F32), 1025.0);
        // tf32 truncates its f32 register: 1 + 2^-10 + 2^-11 reads as 1 + 2^-10.
        let x = tf32(s(1.0 + 2f64.powi(-10) + 2f64.powi(-11)));
        let r = mma_dot(Dot::ampere(TF32), &[x], &[tf32(s(1.0))], s(0.0), F32);
        assert_eq!(to_f64(r, F32), 1.0 + 2f64.powi(-10));
        assert_eq!(Dot::ampere(TF32).block, 4);
    }

    #[test]
    fn special_values() {
        let inf = f64::INFINITY;
        assert!(dot32(&[inf], &[0.0], 1.0).is_nan());
        assert!(dot32(&[inf, inf], &[1.0, -1.0], 1.0).is_nan());
        assert_eq!(dot32(&[inf], &[-2.0], 1.0), -inf);
        assert_eq!(dot32(&[1.0], &[1.0], inf), inf);
        assert!(dot16(&[f64::NAN], &[1.0], 0.0).is_nan());
        assert_eq!(hmma_dot(&[h(f64::NAN)], &[h(1.0)], 0, F32), F32.canonical_nan());
        assert_eq!(dot16(&[256.0], &[256.0], 0.0), inf);
        assert_eq!(dot32(&[1.0], &[-1.0], 1.0).to_bits(), 0.0f64.to_bits());
        assert_eq!(dot32(&[], &[], -0.0).to_bits(), 0.0f64.to_bits());
        // An f32 sum above the largest exponent is infinite, even toward zero.
        assert_eq!(dot32(&[1.0], &[1.0], f64::from(f32::MAX)), f64::from(f32::MAX));
        let r = hmma_dot(&[h(0.0)], &[h(0.0)], F32.max_finite(false), F32);
        assert_eq!(r, F32.max_finite(false));
        let big = hmma_dot(&[h(65504.0); 4], &[h(65504.0); 4], F32.max_finite(false), F32);
        assert_eq!(big, F32.max_finite(false), "the products are far below the window");
    }

    #[test]
    fn dmma_dot_is_an_fma_chain_in_increasing_k() {
        let f = |x: f64| x.to_bits();
        // 2^60 + 1 - 2^60: the 1 survives only if it is added after the cancellation.
        let (big, one) = (2f64.powi(60), 1.0);
        let a = [f(big), f(one), f(-big), f(0.0)];
        let b = [f(1.0); 4];
        assert_eq!(dmma_dot(&a, &b, f(0.0), Rounding::Rn), f(0.0));
        let a = [f(big), f(-big), f(one), f(0.0)];
        assert_eq!(dmma_dot(&a, &b, f(0.0), Rounding::Rn), f(1.0));
        // One rounding per step: (1 + 2^-53) exact product, then + 2^-53 rounds up.
        let e = 2f64.powi(-53);
        let a = [f(1.0 + 2.0 * e), f(e), f(0.0), f(0.0)];
        let b = [f(1.0), f(1.0), f(0.0), f(0.0)];
        assert_eq!(dmma_dot(&a, &b, f(0.0), Rounding::Rn), f((1.0 + 2.0 * e) + e));
    }
}
