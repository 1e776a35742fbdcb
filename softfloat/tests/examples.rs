//! Worked examples and comparisons with the host's round-to-nearest arithmetic (the tests
//! of the interpreter's and the simulator's former soft-float modules).

use ptxc_softfloat::{
    F16, F32, F64, IntType, Rounding, add, convert, div, fma, from_int, mul, round_to_integral, sqrt, sub, to_int,
};

fn f32op(op: fn(u64, u64, ptxc_softfloat::Format, Rounding) -> u64, a: f32, b: f32, r: Rounding) -> f32 {
    f32::from_bits(op(a.to_bits() as u64, b.to_bits() as u64, F32, r) as u32)
}

fn f32_of(b: u64) -> f32 {
    f32::from_bits(b as u32)
}

#[test]
fn nearest_matches_the_host_on_chosen_values() {
    let vals = [1.0f32, 3.0, 0.1, -7.25, 1e-40, 3.4e38, -2.5e-38, 16777217.0, 1.0e-7];
    for &a in &vals {
        for &b in &vals {
            assert_eq!(f32op(add, a, b, Rounding::Rn), a + b, "{a} + {b}");
            assert_eq!(f32op(sub, a, b, Rounding::Rn), a - b, "{a} - {b}");
            assert_eq!(f32op(mul, a, b, Rounding::Rn), a * b, "{a} * {b}");
            assert_eq!(f32op(div, a, b, Rounding::Rn), a / b, "{a} / {b}");
            let c = 1.5f32.to_bits() as u64;
            let got = fma(a.to_bits() as u64, b.to_bits() as u64, c, F32, Rounding::Rn);
            assert_eq!(f32_of(got), a.mul_add(b, 1.5));
        }
        if a >= 0.0 {
            assert_eq!(f32_of(sqrt(a.to_bits() as u64, F32, Rounding::Rn)), a.sqrt());
        }
    }
}

#[test]
fn nearest_matches_the_host_on_random_values() {
    let mut seed = 0x1234_5678_9abc_def0u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..20000 {
        let (a, b, c) = (next(), next(), next());
        let (fa, fb, fc) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
        let check = |got: u64, want: f64| {
            if want.is_nan() {
                assert_eq!(got, F64.canonical_nan());
            } else {
                assert_eq!(got, want.to_bits(), "{fa:e} {fb:e} {fc:e}");
            }
        };
        check(add(a, b, F64, Rounding::Rn), fa + fb);
        check(mul(a, b, F64, Rounding::Rn), fa * fb);
        check(div(a, b, F64, Rounding::Rn), fa / fb);
        check(sqrt(a, F64, Rounding::Rn), fa.sqrt());
        check(fma(a, b, c, F64, Rounding::Rn), fa.mul_add(fb, fc));
        let (xa, xb, xc) = (a as u32 as u64, b as u32 as u64, c as u32 as u64);
        let want = f32_of(xa).mul_add(f32_of(xb), f32_of(xc));
        let got = fma(xa, xb, xc, F32, Rounding::Rn);
        if want.is_nan() {
            assert_eq!(got, F32.canonical_nan());
        } else {
            assert_eq!(got, want.to_bits() as u64);
        }
        // Sums of close values cancel exactly.
        let near = (b & 0xffff) | (a & !0xffff);
        check(add(a, near ^ (1 << 63), F64, Rounding::Rn), fa - f64::from_bits(near));
        let want = fa as f32;
        let want = if want.is_nan() {
            F32.canonical_nan()
        } else {
            want.to_bits() as u64
        };
        assert_eq!(convert(a, F64, F32, Rounding::Rn), want);
    }
}

#[test]
fn directed_modes_bracket_the_exact_result() {
    let (a, b) = (1.0f32, 1.0e-8f32);
    assert_eq!(f32op(add, a, b, Rounding::Rp), f32::from_bits(1.0f32.to_bits() + 1));
    assert_eq!(f32op(add, a, b, Rounding::Rm), 1.0);
    assert_eq!(f32op(add, -a, -b, Rounding::Rz), -1.0);
    assert_eq!(f32op(mul, 3.4e38, 10.0, Rounding::Rz), f32::MAX);
    assert_eq!(f32op(mul, 3.4e38, 10.0, Rounding::Rna), f32::INFINITY);
    let third = 1.0f32 / 3.0;
    assert_eq!(f32op(mul, third, 3.0, Rounding::Rz), 1.0);
    assert_eq!(
        f32op(mul, third, 3.0, Rounding::Rp),
        f32::from_bits(1.0f32.to_bits() + 1)
    );

    let (one, tiny) = (1.0f64.to_bits(), 1e-30f64.to_bits());
    let d = |x: u64| f64::from_bits(x);
    assert_eq!(d(add(one, tiny, F64, Rounding::Rp)), 1.0 + f64::EPSILON);
    assert_eq!(d(add(one, tiny, F64, Rounding::Rz)), 1.0);
    assert_eq!(
        d(add(one, tiny ^ (1 << 63), F64, Rounding::Rz)),
        1.0 - f64::EPSILON / 2.0
    );
    assert_eq!(d(add(one, tiny ^ (1 << 63), F64, Rounding::Rn)), 1.0);
    // x - x is +0, except -0 when rounding toward minus infinity.
    assert_eq!(sub(one, one, F64, Rounding::Rn), 0);
    assert_eq!(sub(one, one, F64, Rounding::Rm), 1 << 63);
}

#[test]
fn conversions() {
    let third = (1.0f64 / 3.0).to_bits();
    // The nearest f32 to 1/3 lies above it.
    assert_eq!(f32_of(convert(third, F64, F32, Rounding::Rp)), 1.0f32 / 3.0);
    assert_eq!(
        convert(third, F64, F32, Rounding::Rz) as u32,
        (1.0f32 / 3.0).to_bits() - 1
    );
    assert_eq!(from_int(16_777_217, F32, Rounding::Rn), 16_777_216f32.to_bits() as u64);
    assert_eq!(from_int(16_777_217, F32, Rounding::Rp), 16_777_218f32.to_bits() as u64);
    assert_eq!(from_int(16_777_219, F32, Rounding::Rna), 16_777_220f32.to_bits() as u64);
    assert_eq!(
        from_int(i64::MIN as i128, F64, Rounding::Rn),
        (i64::MIN as f64).to_bits()
    );
    let s32 = IntType::new(32, true);
    let int = |x: f32, r| to_int(x.to_bits() as u64, F32, r, s32);
    assert_eq!(int(2.5, Rounding::Rn), Some(2));
    assert_eq!(int(2.5, Rounding::Rna), Some(3));
    assert_eq!(int(3.5, Rounding::Rn), Some(4));
    assert_eq!(int(-2.5, Rounding::Rm), Some(-3));
    assert_eq!(int(1e20, Rounding::Rz), Some(i32::MAX as i128));
    assert_eq!(int(f32::NEG_INFINITY, Rounding::Rz), Some(i32::MIN as i128));
    assert_eq!(int(f32::NAN, Rounding::Rz), None);
    assert_eq!(
        to_int((-1.0f32).to_bits() as u64, F32, Rounding::Rz, IntType::new(32, false)),
        Some(0)
    );
    assert_eq!(
        to_int((-0.5f32).to_bits() as u64, F32, Rounding::Rm, IntType::new(8, false)),
        Some(0)
    );
    assert_eq!(
        to_int(300f32.to_bits() as u64, F32, Rounding::Rm, IntType::new(8, false)),
        Some(255)
    );
    let integral = |x: f32, r| f32_of(round_to_integral(x.to_bits() as u64, F32, r));
    assert_eq!(integral(2.5, Rounding::Rn), 2.0);
    assert_eq!(integral(2.5, Rounding::Rna), 3.0);
    assert_eq!(integral(-0.5, Rounding::Rn).to_bits(), (-0.0f32).to_bits());
    assert_eq!(integral(0.2, Rounding::Rp), 1.0);
    assert_eq!(integral(-0.2, Rounding::Rp).to_bits(), (-0.0f32).to_bits());
    // f32 -> f16: 65520 rounds to infinity, 65519 to the largest half.
    let half = |x: f32, r| convert(x.to_bits() as u64, F32, F16, r);
    assert_eq!(half(65520.0, Rounding::Rn), 0x7c00);
    assert_eq!(half(65519.0, Rounding::Rn), 0x7bff);
    assert_eq!(half(65520.0, Rounding::Rz), 0x7bff);
    // Subnormal halves.
    assert_eq!(half(2f32.powi(-24), Rounding::Rn), 1);
    assert_eq!(half(2f32.powi(-26), Rounding::Rp), 1);
    assert_eq!(half(2f32.powi(-26), Rounding::Rn), 0);
    assert_eq!(half(-2f32.powi(-26), Rounding::Rn), 0x8000);
}
