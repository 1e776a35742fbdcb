//! The back end's legalization computes exactly what the MIR says: each expanded operation
//! (f32/f64 division, reciprocal and square root in every rounding mode and with `.ftz`,
//! f64 min/max/testp, integer division and remainder by variables and constants, 64-bit
//! saturating conversions, the approximate functions within their error bounds) runs on
//! the MIR interpreter before and after legalization over edge cases (zeros, infinities,
//! NaN, subnormals, the ends of the normal range, huge and tiny quotients) and random
//! values, and the results must agree bit for bit (any NaN matching any NaN).

#[path = "backend_float_harness/mod.rs"]
mod harness;

use harness::*;

fn f32_cases() -> Vec<[u64; 3]> {
    let mut v = pairs(&f32_edges(), 6000, random_f32);
    v.extend(pairs(&[], 6000, moderate_f32));
    v
}

fn f64_cases() -> Vec<[u64; 3]> {
    let mut v = pairs(&f64_edges(), 6000, random_f64);
    v.extend(pairs(&[], 6000, moderate_f64));
    v
}

#[test]
fn f32_division_is_exact_in_every_mode() {
    let cases = f32_cases();
    for m in ["rn", "rn.ftz", "rz", "rm", "rp", "rz.ftz"] {
        let k = OpKernel::new(&format!("div.{m}.f32 %d, %a, %b;"), "f32", "f32");
        check_legalized(&k, &cases, Compare::Exact(32));
    }
}

#[test]
fn f32_reciprocal_and_square_root_are_exact_in_every_mode() {
    let cases = f32_cases();
    for m in ["rn", "rn.ftz", "rz", "rm", "rp", "rp.ftz"] {
        for op in ["rcp", "sqrt"] {
            let k = OpKernel::new(&format!("{op}.{m}.f32 %d, %a;"), "f32", "f32");
            check_legalized(&k, &cases, Compare::Exact(32));
        }
    }
}

/// An f32 with a random sign and significand and a biased exponent field in `exponents`.
fn f32_with_exponent(rng: &mut Rng, exponents: std::ops::Range<u64>) -> u64 {
    let r = rng.next();
    let exponent = exponents.start + (r >> 40) % (exponents.end - exponents.start);
    (r & 0x807f_ffff) | exponent << 23
}

/// The slow paths of `div.rn.f32` and `rcp.rn.f32` at the ends of the range, 20000 draws of
/// each: operands whose exponents put the quotient around the smallest normal, deep in the
/// subnormals, under the smallest subnormal or around the largest finite value, and
/// subnormal operands (an f32 version of the slow path that dropped the tie rule's sticky
/// bit failed here).
#[test]
fn f32_division_at_the_ends_of_the_range_is_exact() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut cases = Vec::new();
    for _ in 0..20000 {
        // Quotient exponents from about -152 to -120: subnormal results and their edges.
        let y = f32_with_exponent(&mut rng, 140..170);
        let x = f32_with_exponent(&mut rng, 1..30);
        cases.push([x, y, 0]);
        // Around overflow.
        let x = f32_with_exponent(&mut rng, 230..255);
        let y = f32_with_exponent(&mut rng, 100..130);
        cases.push([x, y, 0]);
        // Subnormal operands (exponent field 0).
        let x = f32_with_exponent(&mut rng, 0..1);
        let y = f32_with_exponent(&mut rng, 0..255);
        cases.push([x, y, 0]);
        cases.push([y, x, 0]);
    }
    for m in ["rn", "rn.ftz"] {
        let k = OpKernel::new(&format!("div.{m}.f32 %d, %a, %b;"), "f32", "f32");
        check_legalized(&k, &cases, Compare::Exact(32));
        let k = OpKernel::new(&format!("rcp.{m}.f32 %d, %a;"), "f32", "f32");
        check_legalized(&k, &cases, Compare::Exact(32));
    }
}

/// `sqrt.rn.f32`'s slow path scales values below the fast path's range (exponent field under
/// 26) into it: every 1021st bit pattern of them, subnormals and their negations included.
#[test]
fn f32_square_root_below_the_fast_range_is_exact() {
    let tiny: Vec<[u64; 3]> = (1u64..0x0d00_0000)
        .step_by(1021)
        .flat_map(|bits| [[bits, 0, 0], [bits | 0x8000_0000, 0, 0]])
        .collect();
    for m in ["rn", "rn.ftz"] {
        let k = OpKernel::new(&format!("sqrt.{m}.f32 %d, %a;"), "f32", "f32");
        check_legalized(&k, &tiny, Compare::Exact(32));
    }
}

#[test]
fn f64_division_is_exact_in_every_mode() {
    let cases = f64_cases();
    for m in ["rn", "rz", "rm", "rp"] {
        let k = OpKernel::new(&format!("div.{m}.f64 %d, %a, %b;"), "f64", "f64");
        check_legalized(&k, &cases, Compare::Exact(64));
    }
}

#[test]
fn f64_reciprocal_and_square_root_are_exact_in_every_mode() {
    let cases = f64_cases();
    for m in ["rn", "rz", "rm", "rp"] {
        for op in ["rcp", "sqrt"] {
            let k = OpKernel::new(&format!("{op}.{m}.f64 %d, %a;"), "f64", "f64");
            check_legalized(&k, &cases, Compare::Exact(64));
        }
    }
}

#[test]
fn f64_min_max_and_class_tests_match() {
    let cases = pairs(&f64_edges(), 2000, random_f64);
    for op in ["min", "max"] {
        let k = OpKernel::new(&format!("{op}.f64 %d, %a, %b;"), "f64", "f64");
        check_legalized(&k, &cases, Compare::Exact(64));
    }
    for class in ["finite", "infinite", "number", "notanumber", "subnormal"] {
        let body = format!("testp.{class}.f64 %p, %a; selp.f64 %d, %a, %b, %p;");
        check_legalized(&OpKernel::new(&body, "f64", "f64"), &cases, Compare::Bits);
    }
}

#[test]
fn approximate_functions_stay_within_their_bounds() {
    let cases = f32_cases();
    for op in ["rcp", "sqrt", "rsqrt", "ex2", "lg2"] {
        let k = OpKernel::new(&format!("{op}.approx.f32 %d, %a;"), "f32", "f32");
        check_legalized(&k, &cases, Compare::Ulps(32, 2));
    }
    let moderate = pairs(&[], 4000, moderate_f32);
    for op in [
        "div.approx.f32",
        "div.full.f32",
        "div.approx.ftz.f32",
        "div.full.ftz.f32",
    ] {
        let k = OpKernel::new(&format!("{op} %d, %a, %b;"), "f32", "f32");
        check_legalized(&k, &moderate, Compare::Ulps(32, 2));
    }
    let k = OpKernel::new("rsqrt.approx.f64 %d, %a;", "f64", "f64");
    check_legalized(&k, &f64_cases(), Compare::Ulps(64, 2));
}

/// Integer edge values of a width.
fn int_edges(bits: u32) -> Vec<u64> {
    let mask = if bits == 64 { u64::MAX } else { (1 << bits) - 1 };
    let top = 1u64 << (bits - 1);
    let mut v = vec![
        0,
        1,
        2,
        3,
        7,
        10,
        mask,
        mask - 1,
        top,
        top - 1,
        top + 1,
        0x1234_5678 & mask,
    ];
    if bits == 64 {
        v.extend([0xffff_ffff, 0x1_0000_0000, 0x1_0000_0001, 0xdead_beef_0000_0001]);
    }
    v
}

fn int_cases(bits: u32) -> Vec<[u64; 3]> {
    let mask = if bits == 64 { u64::MAX } else { (1 << bits) - 1 };
    let mut v = pairs(&int_edges(bits), 3000, |r| {
        let x = r.next();
        // Mix full-width values with small ones (short quotients).
        (if x & 1 == 0 { x } else { x >> (x >> 58) }) & mask
    });
    v.extend(pairs(&[], 1000, |r| r.next() & 0xffff & mask));
    v
}

#[test]
fn integer_division_by_variables_matches() {
    for (t, bits) in [
        ("u32", 32),
        ("s32", 32),
        ("u64", 64),
        ("s64", 64),
        ("u16", 16),
        ("s16", 16),
    ] {
        let cases = int_cases(bits);
        for op in ["div", "rem"] {
            let k = OpKernel::new(&format!("{op}.{t} %d, %a, %b;"), t, t);
            check_legalized(&k, &cases, Compare::Bits);
        }
    }
}

#[test]
fn integer_division_by_constants_matches() {
    for (t, bits) in [("u32", 32), ("s32", 32), ("u64", 64), ("s64", 64), ("s16", 16)] {
        let cases = int_cases(bits);
        for c in [
            "1",
            "2",
            "3",
            "7",
            "10",
            "64",
            "641",
            "1000",
            "-1",
            "-7",
            "-8",
            "2147483647",
        ] {
            if c.starts_with('-') && t.starts_with('u') {
                continue;
            }
            if bits == 16 && c.len() > 5 {
                continue;
            }
            for op in ["div", "rem"] {
                let k = OpKernel::new(&format!("{op}.{t} %d, %a, {c};"), t, t);
                check_legalized(&k, &cases, Compare::Bits);
            }
        }
    }
}

#[test]
fn saturating_conversions_with_a_64_bit_side_match() {
    let cases = int_cases(64);
    for (d, s) in [
        ("s32", "s64"),
        ("u32", "s64"),
        ("s32", "u64"),
        ("u64", "s64"),
        ("s64", "u64"),
        ("u16", "s64"),
    ] {
        let k = OpKernel::new(&format!("cvt.sat.{d}.{s} %d, %a;"), s, d);
        check_legalized(&k, &cases, Compare::Bits);
    }
    let cases = int_cases(32);
    for (d, s) in [("u64", "s32"), ("s64", "u32")] {
        let k = OpKernel::new(&format!("cvt.sat.{d}.{s} %d, %a;"), s, d);
        check_legalized(&k, &cases, Compare::Bits);
    }
}
