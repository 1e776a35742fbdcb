//! Instruction semantics of the simulator checked on ptxas's code: small PTX kernels compiled
//! by ptxas run on the simulator (timed engine, zero hazards) over edge cases and random
//! values, against references that follow the PTX ISA (IEEE division, `cvt` to integers and
//! to f16, `dp4a`/`dp2a`,
//! `min`/`max`), which NVIDIA's hardware implements. Each test also checks that ptxas wrote
//! the instruction it is about (FCHK, F2I, IDP, DSETP.MIN/MAX, `[R.U32+UR]`).
//!
//! Needs ptxas and nvdisasm (`CUDA_ORACLE_BIN`, or installed by `scripts/cuda-oracle`).

mod common;
#[path = "backend_float_harness/mod.rs"]
mod harness;

use harness::*;

/// Compiles `ptx` with ptxas; the cubin and nvdisasm's listing of it.
fn ptxas(ptx: &str, dir: &std::path::Path, name: &str) -> (Vec<u8>, String) {
    let src = dir.join(format!("{name}.ptx"));
    let out = dir.join(format!("{name}.cubin"));
    std::fs::write(&src, ptx).unwrap();
    common::ptxas(&src, &out);
    let listing = common::text(&common::oracle("nvdisasm", &[out.to_str().unwrap()]).stdout);
    (std::fs::read(&out).unwrap(), listing)
}

/// Runs `k` compiled by ptxas over `inputs` and compares with `reference`; `expect` must
/// appear in ptxas's listing.
fn check(k: &OpKernel, inputs: &[[u64; 3]], how: Compare, expect: &str, reference: impl Fn([u64; 3]) -> u64) {
    let name: String = k.body.chars().filter(|c| c.is_ascii_alphanumeric()).take(40).collect();
    let dir = common::scratch(&format!("sim_semantics_{name}"));
    let (cubin, listing) = ptxas(&k.ptx(), &dir, "op");
    assert!(
        listing.contains(expect),
        "`{}`: ptxas wrote no {expect}:\n{listing}",
        k.body
    );
    let got = run_cubin(&cubin, k, inputs, &dir).unwrap_or_else(|e| panic!("`{}`: {e}", k.body));
    let bad: Vec<String> = inputs
        .iter()
        .zip(&got)
        .filter(|(i, g)| !agree(how, **g, reference(**i)))
        .take(8)
        .map(|(i, g)| {
            format!(
                "inputs {:#x} {:#x} {:#x}: got {g:#x}, want {:#x}",
                i[0],
                i[1],
                i[2],
                reference(*i)
            )
        })
        .collect();
    assert!(bad.is_empty(), "`{}` on the simulator:\n{}", k.body, bad.join("\n"));
}

/// f32 pairs around the exponents where FCHK's checks change.
fn division_inputs() -> Vec<[u64; 3]> {
    let mut v = pairs(&f32_edges(), 3000, random_f32);
    let mut r = Rng(0x51ed_270b_27ac_3f1d);
    for _ in 0..6000 {
        let x = r.next();
        let exp = |k: u64| {
            [
                1u64, 2, 3, 20, 23, 24, 25, 26, 27, 100, 127, 150, 228, 229, 230, 250, 251, 252, 253, 254,
            ][(k % 20) as usize]
        };
        let a = (x & 0x807f_ffff) | exp(x >> 32) << 23;
        let b = ((x >> 8) & 0x807f_ffff) | exp(x >> 40) << 23;
        v.push([a & 0xffff_ffff, b & 0xffff_ffff, 0]);
    }
    v
}

fn f32_of(bits: u64) -> f32 {
    f32::from_bits(bits as u32)
}

fn flush(x: f32) -> f32 {
    if x.is_subnormal() { 0.0f32.copysign(x) } else { x }
}

#[test]
fn ieee_division_with_fchk_is_correctly_rounded() {
    let inputs = division_inputs();
    let k = OpKernel::new("div.rn.f32 %d, %a, %b;", "f32", "f32");
    check(&k, &inputs, Compare::Exact(32), "FCHK", |i| {
        (f32_of(i[0]) / f32_of(i[1])).to_bits() as u64
    });
    // `.ftz` flushes a quotient that is subnormal before rounding (ptxas's slow path decides
    // by the exponent), also one that would round up to the smallest normal.
    let k = OpKernel::new("div.rn.ftz.f32 %d, %a, %b;", "f32", "f32");
    check(&k, &inputs, Compare::Exact(32), "FCHK", |i| {
        let q = flush(f32_of(i[0])) as f64 / flush(f32_of(i[1])) as f64;
        let q = if q.abs() < f32::MIN_POSITIVE as f64 {
            0.0f64.copysign(q)
        } else {
            q
        };
        (q as f32).to_bits() as u64
    });
}

/// PTX `cvt.<rnd>i.<int>.<float>`: round, saturate; NaN is 0 unless the source is f64 or
/// the result 64-bit, where it is `1 << (bits - 1)`.
fn cvt_reference(x: f64, from_f64: bool, rnd: &str, bits: u32, signed: bool) -> u64 {
    let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
    if x.is_nan() {
        return if !from_f64 && bits <= 32 { 0 } else { 1u64 << (bits - 1) };
    }
    let y = match rnd {
        "rni" => x.round_ties_even(),
        "rmi" => x.floor(),
        "rpi" => x.ceil(),
        _ => x.trunc(),
    };
    let (lo, hi) = if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    let v = if y <= lo as f64 {
        lo
    } else if y >= hi as f64 {
        hi
    } else {
        y as i128
    };
    v as u64 & mask
}

#[test]
fn float_to_integer_conversions_follow_the_ptx_isa() {
    let f32s = pairs(&f32_edges(), 1500, random_f32);
    let f64s = pairs(&f64_edges(), 1500, random_f64);
    for from in ["f32", "f64"] {
        for (to, bits, signed) in [
            ("s32", 32, true),
            ("u32", 32, false),
            ("s64", 64, true),
            ("u64", 64, false),
            ("s16", 16, true),
            ("u8", 8, false),
        ] {
            for rnd in ["rzi", "rni", "rmi", "rpi"] {
                let k = OpKernel::new(&format!("cvt.{rnd}.{to}.{from} %d, %a;"), from, to);
                let from_f64 = from == "f64";
                let inputs = if from_f64 { &f64s } else { &f32s };
                check(&k, inputs, Compare::Bits, "F2I", |i| {
                    let x = if from_f64 {
                        f64::from_bits(i[0])
                    } else {
                        f32_of(i[0]) as f64
                    };
                    cvt_reference(x, from_f64, rnd, bits, signed)
                });
            }
        }
    }
}

/// f32 to f16 in rounding mode `mode` (`rn`, `rz`, `rm`, `rp`): the nearest half, stepped
/// one unit when it lies on the wrong side of `x`.
fn f32_to_f16(x: f32, mode: &str) -> u64 {
    let h = half::f16::from_f32(x);
    let (bits, hv) = (h.to_bits(), h.to_f32());
    let negative = bits & 0x8000 != 0;
    let stepped = match mode {
        "rz" if hv.abs() > x.abs() => bits - 1,
        "rm" if hv > x => {
            if negative || bits == 0 {
                (bits | 0x8000) + 1
            } else {
                bits - 1
            }
        }
        "rp" if hv < x => {
            if negative && bits != 0x8000 {
                bits - 1
            } else if negative {
                1
            } else {
                bits + 1
            }
        }
        _ => bits,
    };
    stepped as u64
}

#[test]
fn f32_to_f16_conversions_round_in_every_mode() {
    let inputs = pairs(&f32_edges(), 3000, random_f32);
    // ptxas writes `cvt.rz.f16.f32` as `HADD2 Rd, Ra.F32, -RZ.H0_H0`, the others as F2F.
    for (mode, sass) in [
        ("rn", "F2F.F16.F32"),
        ("rz", "HADD2"),
        ("rm", "F2F.F16.F32.RM"),
        ("rp", "F2F.F16.F32.RP"),
    ] {
        let k = OpKernel::new(&format!("cvt.{mode}.f16.f32 %d, %a;"), "f32", "b16");
        check(&k, &inputs, Compare::Exact(16), sass, |i| {
            f32_to_f16(f32_of(i[0]), mode)
        });
    }
}

/// PTX `dp4a`/`dp2a`: sums of products of sign- or zero-extended bytes (and halves of A for
/// `dp2a`, with bytes 0..1 or 2..3 of B) plus `c`.
fn dot_reference(kind: &str, a_signed: bool, b_signed: bool, [a, b, c]: [u64; 3]) -> u64 {
    let part = |v: u64, i: u32, width: u32, signed: bool| {
        let x = (v >> (width * i)) & ((1 << width) - 1);
        if signed && x >> (width - 1) == 1 {
            x as i64 - (1 << width)
        } else {
            x as i64
        }
    };
    let mut acc = c as u32 as i32 as i64;
    match kind {
        "dp4a" => {
            for i in 0..4 {
                acc += part(a, i, 8, a_signed) * part(b, i, 8, b_signed);
            }
        }
        _ => {
            let base = if kind == "dp2a.hi" { 2 } else { 0 };
            for i in 0..2 {
                acc += part(a, i, 16, a_signed) * part(b, base + i, 8, b_signed);
            }
        }
    }
    acc as u32 as u64
}

#[test]
fn dot_products_follow_the_ptx_isa() {
    let edges = [
        0u64,
        1,
        0x7f,
        0x80,
        0xff,
        0x8080_8080,
        0x7f7f_7f7f,
        0xffff_ffff,
        0x0180_7fff,
        0x8000_0001,
    ];
    let inputs = pairs(&edges, 3000, |r| r.next() & 0xffff_ffff);
    let inputs: Vec<[u64; 3]> = inputs
        .iter()
        .enumerate()
        .map(|(n, i)| [i[0], i[1], inputs[(n + 7) % inputs.len()][0]])
        .collect();
    for kind in ["dp4a", "dp2a.lo", "dp2a.hi"] {
        for (at, a_signed) in [("u32", false), ("s32", true)] {
            for (bt, b_signed) in [("u32", false), ("s32", true)] {
                let k = OpKernel::new(&format!("{kind}.{at}.{bt} %d, %a, %b, %c;"), "u32", "u32");
                check(&k, &inputs, Compare::Bits, "IDP", |i| {
                    dot_reference(kind, a_signed, b_signed, i)
                });
            }
        }
    }
}

#[test]
fn f64_min_and_max_follow_the_ptx_isa() {
    let inputs = pairs(&f64_edges(), 1500, random_f64);
    for (op, max) in [("min", false), ("max", true)] {
        let k = OpKernel::new(&format!("{op}.f64 %d, %a, %b;"), "f64", "f64");
        let expect = if max { "DSETP.MAX" } else { "DSETP.MIN" };
        check(&k, &inputs, Compare::Exact(64), expect, |[a, b, _]| {
            let (x, y) = (f64::from_bits(a), f64::from_bits(b));
            let r = match (x.is_nan(), y.is_nan()) {
                (true, true) => f64::NAN,
                (true, false) => y,
                (false, true) => x,
                _ if x == 0.0 && y == 0.0 => zero_min_max(x, y, max),
                _ if (x < y) != max => x,
                _ => y,
            };
            r.to_bits()
        });
    }
}

/// min/max of two zeros: -0 is the smaller.
fn zero_min_max(x: f64, y: f64, max: bool) -> f64 {
    let negative = if max {
        x.is_sign_negative() && y.is_sign_negative()
    } else {
        x.is_sign_negative() || y.is_sign_negative()
    };
    if negative { -0.0 } else { 0.0 }
}

/// A global access at a module variable plus a 32-bit offset: ptxas writes
/// `STG.E.SYS [R.U32+UR4]`, the offset zero-extended and added to the 64-bit UR4:UR5 (one
/// block: the offset is the thread index).
#[test]
fn a_32_bit_register_plus_a_uniform_address_is_zero_extended_onto_64_bits() {
    let ptx = r#".version 7.0
.target sm_75
.address_size 64
.global .align 4 .u32 gbuf[1024];
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)
{
  .reg .u32 %i, %n, %x, %a, %v, %t;
  .reg .u64 %r<6>;
  mov.u32 %t, %tid.x;
  mov.u32 %n, %ctaid.x;
  mov.u32 %x, %ntid.x;
  mad.lo.u32 %i, %n, %x, %t;
  ld.param.u64 %r1, [pa];
  ld.param.u64 %r4, [pd];
  mul.wide.u32 %r5, %i, 4;
  add.u64 %r1, %r1, %r5;
  add.u64 %r4, %r4, %r5;
  ld.global.u32 %a, [%r1];
  shl.b32 %x, %t, 2;
  mov.u64 %r2, gbuf;
  cvt.u64.u32 %r3, %x;
  add.u64 %r2, %r2, %r3;
  st.global.u32 [%r2], %a;
  ld.volatile.global.u32 %v, [%r2];
  xor.b32 %v, %v, %x;
  st.global.u32 [%r4], %v;
  ret;
}
"#;
    let dir = common::scratch("sim_semantics_u32_address");
    let (cubin, listing) = ptxas(ptx, &dir, "address");
    assert!(
        listing.contains(".U32+UR"),
        "ptxas wrote no [R.U32+UR] address:\n{listing}"
    );
    let k = OpKernel::new("", "u32", "u32");
    let inputs: Vec<[u64; 3]> = (0..128u64)
        .map(|i| [i.wrapping_mul(0x9e37_79b9) & 0xffff_ffff, 0, 0])
        .collect();
    let got = run_cubin(&cubin, &k, &inputs, &dir).unwrap_or_else(|e| panic!("{e}"));
    for (i, (inp, g)) in inputs.iter().zip(&got).enumerate() {
        assert_eq!(*g, inp[0] ^ (4 * i as u64), "thread {i}");
    }
}
