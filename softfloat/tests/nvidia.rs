//! NVIDIA's rules: canonical NaNs, flush-to-zero, the `.ftz` division rule, min/max,
//! saturation and the integers NaNs convert to.

use ptxc_softfloat::nvidia::{nan_to_int, nan_to_zero};
use ptxc_softfloat::{
    BF16, F16, F32, F64, Format, IntType, Rounding, TF32, add, canonicalize, convert, convert_ftz, div, div_ftz, flush,
    fma, max, min, mul, round_to_integral, saturate, sqrt, sub,
};

const FORMATS: [Format; 5] = [F16, BF16, TF32, F32, F64];

#[test]
fn canonical_nans() {
    assert_eq!(F16.canonical_nan(), 0x7fff);
    assert_eq!(BF16.canonical_nan(), 0x7fff);
    assert_eq!(TF32.canonical_nan(), 0x3_ffff);
    assert_eq!(F32.canonical_nan(), 0x7fff_ffff);
    assert_eq!(F64.canonical_nan(), 0x7fff_ffff_ffff_ffff);
}

/// Every NaN result of arithmetic is the canonical NaN, whatever NaN operands it had.
#[test]
fn nan_results_are_canonical() {
    for f in FORMATS {
        let inf = f.inf(false);
        let nans = [
            f.canonical_nan(),
            inf | 1,
            f.sign_bit() | inf | 1,
            f.sign_bit() | f.canonical_nan(),
        ];
        let one = f.one();
        for r in Rounding::ALL {
            let want = f.canonical_nan();
            for &n in &nans {
                assert_eq!(add(n, one, f, r), want);
                assert_eq!(sub(one, n, f, r), want);
                assert_eq!(mul(n, one, f, r), want);
                assert_eq!(div(one, n, f, r), want);
                assert_eq!(fma(one, one, n, f, r), want);
                assert_eq!(sqrt(n, f, r), want);
                assert_eq!(round_to_integral(n, f, r), want);
                assert_eq!(canonicalize(n, f), want);
                for g in FORMATS {
                    assert_eq!(convert(n, f, g, r), g.canonical_nan());
                }
            }
            // Invalid operations.
            assert_eq!(add(inf, inf | f.sign_bit(), f, r), want);
            assert_eq!(mul(inf, 0, f, r), want);
            assert_eq!(fma(inf, 0, one, f, r), want);
            assert_eq!(fma(inf, one, inf | f.sign_bit(), f, r), want);
            assert_eq!(div(0, f.sign_bit(), f, r), want);
            assert_eq!(div(inf, inf, f, r), want);
            assert_eq!(sqrt(one | f.sign_bit(), f, r), want);
        }
    }
}

#[test]
fn flush_keeps_the_sign() {
    for f in FORMATS {
        assert_eq!(flush(1, f), 0);
        assert_eq!(flush(f.sign_bit() | f.man_mask(), f), f.sign_bit());
        assert_eq!(flush(f.min_normal(true), f), f.min_normal(true));
        assert_eq!(flush(f.canonical_nan(), f), f.canonical_nan());
    }
}

#[test]
fn ftz_division_flushes_results_tiny_after_unbounded_rounding() {
    let (min_normal, one_ulp_up) = (0x0080_0000u64, 0x3f80_0001u64);
    // On the subnormal grid 2^-126 / (1 + 2^-23) rounds up to 2^-126 ...
    assert_eq!(div(min_normal, one_ulp_up, F32, Rounding::Rp), min_normal);
    // ... with 24 bits and an unbounded exponent it stays below it, so .ftz gives 0.
    assert_eq!(div_ftz(min_normal, one_ulp_up, F32, Rounding::Rp), 0);
    assert_eq!(div_ftz(min_normal | 1 << 31, one_ulp_up, F32, Rounding::Rm), 1 << 31);
    // Exactly representable normal and subnormal results.
    assert_eq!(div_ftz(min_normal, 0x3f80_0000, F32, Rounding::Rp), min_normal);
    assert_eq!(div_ftz(min_normal, 0x4000_0000, F32, Rounding::Rp), 0);
    // (A quotient of 24-bit significands below a power of two never rounds up to it with 24
    // bits, so no f32 quotient below 2^-126 escapes the flush: the rule's other side is
    // tested on `tiny_after_rounding` itself.)
    // Subnormal operands are flushed: x / subnormal is infinity.
    assert_eq!(div_ftz(0x3f80_0000, 1, F32, Rounding::Rn), F32.inf(false));
}

#[test]
fn min_max_rules() {
    for f in FORMATS {
        let (one, nan, neg_zero) = (f.one(), f.inf(false) | 1, f.sign_bit());
        assert_eq!(min(nan, one, f), one);
        assert_eq!(max(one, nan, f), one);
        assert_eq!(min(nan, nan, f), f.canonical_nan());
        assert_eq!(min(0, neg_zero, f), neg_zero);
        assert_eq!(min(neg_zero, 0, f), neg_zero);
        assert_eq!(max(0, neg_zero, f), 0);
        assert_eq!(max(neg_zero, 0, f), 0);
        assert_eq!(min(one | f.sign_bit(), one, f), one | f.sign_bit());
        assert_eq!(max(f.inf(true), f.max_finite(true), f), f.max_finite(true));
    }
}

#[test]
fn saturation() {
    let s = |x: f32| f32::from_bits(saturate(x.to_bits() as u64, F32) as u32);
    assert_eq!(s(f32::NAN).to_bits(), 0);
    assert_eq!(s(-3.0).to_bits(), 0);
    assert_eq!(s(-0.0).to_bits(), (-0.0f32).to_bits());
    assert_eq!(s(0.5), 0.5);
    assert_eq!(s(1.5), 1.0);
    assert_eq!(s(f32::INFINITY), 1.0);
    assert_eq!(saturate(0xfc00, F16), 0);
    assert_eq!(saturate(0x7c00, F16), 0x3c00);
}

#[test]
fn nan_to_integer() {
    let (s32, u32_, s64, u16_) = (
        IntType::new(32, true),
        IntType::new(32, false),
        IntType::new(64, true),
        IntType::new(16, false),
    );
    assert!(nan_to_zero(F32, s32) && nan_to_zero(F16, u16_));
    assert!(!nan_to_zero(F64, u32_) && !nan_to_zero(F32, s64));
    assert_eq!(nan_to_int(s32, true), 0);
    assert_eq!(nan_to_int(s32, false), i32::MIN as i128);
    assert_eq!(nan_to_int(u32_, false), 1 << 31);
    assert_eq!(nan_to_int(s64, false), i64::MIN as i128);
}

/// `cvt.RND.ftz.f32.f64` flushes a result that is tiny after rounding with an unbounded
/// exponent: the thresholds of ptxas 13.5's code (F2F.F32.F64, DSETP of |x| against
/// 0x380ffffff0000000 to nearest, 2^-126 toward zero, 0x380fffffe0000001 away from zero).
#[test]
fn narrowing_conversion_flushes_tiny_after_rounding() {
    let c = |x: u64, r| convert_ftz(x, F64, F32, r);
    let min_normal = 0x3810_0000_0000_0000u64; // 2^-126
    let nearest = 0x380f_ffff_f000_0000u64; // 2^-126 - 2^-151: a tie, rounds up to 2^-126
    let away = 0x380f_ffff_e000_0000u64; // 2^-126 - 2^-150: exactly 24 bits
    assert_eq!(c(nearest, Rounding::Rn), 0x0080_0000);
    assert_eq!(c(nearest - 1, Rounding::Rn), 0);
    assert_eq!(c((nearest - 1) | 1 << 63, Rounding::Rn), 1 << 31);
    // On the subnormal grid these round to 2^-126 without the flush.
    assert_eq!(convert(nearest - 1, F64, F32, Rounding::Rn), 0x0080_0000);
    assert_eq!(convert(away, F64, F32, Rounding::Rn), 0x0080_0000);
    assert_eq!(c(away, Rounding::Rn), 0);
    assert_eq!(c(away, Rounding::Rp), 0);
    assert_eq!(c(away + 1, Rounding::Rp), 0x0080_0000);
    assert_eq!(c((away + 1) | 1 << 63, Rounding::Rm), 0x8080_0000);
    assert_eq!(c((away + 1) | 1 << 63, Rounding::Rp), 1 << 31);
    assert_eq!(c(min_normal - 1, Rounding::Rz), 0);
    assert_eq!(c(min_normal, Rounding::Rz), 0x0080_0000);
    // Subnormal inputs and results of the usual size are flushed; NaN and infinity pass.
    assert_eq!(c(1, Rounding::Rn), 0);
    assert_eq!(c(0x3690_0000_0000_0000, Rounding::Rn), 0);
    assert_eq!(c(F64.inf(true), Rounding::Rn), F32.inf(true));
    assert!(F32.is_nan(c(F64.canonical_nan(), Rounding::Rn)));
}
