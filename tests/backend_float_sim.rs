//! ptxc's SASS for the float, conversion and division operations computes on the simulator
//! what the MIR says: each operation is compiled alone (no contraction) and run over edge
//! cases and random values, and compared with the MIR interpreter on the unlegalized MIR
//! (bit for bit, any NaN matching any NaN; the approximate functions within 2 ulp).
//!
//! Operations where the two disagree are listed in [`NOT_SIMULATED`]; the test fails if one
//! of them starts passing (shrink the list).

#[path = "backend_float_harness/mod.rs"]
mod harness;

use harness::*;

/// What an operation's inputs are.
#[derive(Clone, Copy)]
enum Inputs {
    F32,
    F64,
    Moderate32,
    Int(u32),
    /// Pairs of f16 values (edge cases and random ones) in 32 bits.
    Half2,
    /// f64 values around 2^-126, where `cvt.ftz.f32.f64` decides whether to flush.
    NearMinNormal32,
}

/// The operations: PTX body, input and output types, inputs, comparison.
fn ops() -> Vec<(String, &'static str, &'static str, Inputs, Compare)> {
    let mut v = Vec::new();
    let mut add = |body: String, i, o, inputs, how| v.push((body, i, o, inputs, how));
    let f32x = Compare::Exact(32);
    let f64x = Compare::Exact(64);
    for m in ["rn", "rn.ftz", "rz", "rm", "rp"] {
        add(format!("div.{m}.f32 %d, %a, %b;"), "f32", "f32", Inputs::F32, f32x);
        add(format!("rcp.{m}.f32 %d, %a;"), "f32", "f32", Inputs::F32, f32x);
        add(format!("sqrt.{m}.f32 %d, %a;"), "f32", "f32", Inputs::F32, f32x);
    }
    for m in ["rn", "rz", "rm", "rp"] {
        add(format!("div.{m}.f64 %d, %a, %b;"), "f64", "f64", Inputs::F64, f64x);
        add(format!("rcp.{m}.f64 %d, %a;"), "f64", "f64", Inputs::F64, f64x);
        add(format!("sqrt.{m}.f64 %d, %a;"), "f64", "f64", Inputs::F64, f64x);
        add(format!("fma.{m}.f64 %d, %a, %b, %c;"), "f64", "f64", Inputs::F64, f64x);
        add(format!("add.{m}.f32 %d, %a, %b;"), "f32", "f32", Inputs::F32, f32x);
        add(format!("mul.{m}.ftz.f32 %d, %a, %b;"), "f32", "f32", Inputs::F32, f32x);
    }
    for op in ["min", "max"] {
        add(format!("{op}.f32 %d, %a, %b;"), "f32", "f32", Inputs::F32, f32x);
        add(format!("{op}.ftz.f32 %d, %a, %b;"), "f32", "f32", Inputs::F32, f32x);
        add(format!("{op}.f64 %d, %a, %b;"), "f64", "f64", Inputs::F64, f64x);
    }
    // FADD-based negation gives the canonical NaN where the MIR flips a NaN's sign.
    for op in [
        "neg.f32",
        "abs.f32",
        "neg.ftz.f32",
        "abs.ftz.f32",
        "cvt.rni.f32.f32",
        "cvt.rzi.ftz.f32.f32",
    ] {
        add(format!("{op} %d, %a;"), "f32", "f32", Inputs::F32, f32x);
    }
    add(
        "copysign.f32 %d, %a, %b;".into(),
        "f32",
        "f32",
        Inputs::F32,
        Compare::Bits,
    );
    add(
        "copysign.f64 %d, %a, %b;".into(),
        "f64",
        "f64",
        Inputs::F64,
        Compare::Bits,
    );
    for cond in ["lt", "equ", "neu", "gtu", "num", "nan", "le"] {
        let body = format!("setp.{cond}.f32 %p, %a, %b; selp.f32 %d, %a, %b, %p;");
        add(body, "f32", "f32", Inputs::F32, Compare::Bits);
        let body = format!("setp.{cond}.f64 %p, %a, %b; selp.f64 %d, %a, %b, %p;");
        add(body, "f64", "f64", Inputs::F64, Compare::Bits);
    }
    for class in ["finite", "infinite", "number", "notanumber", "subnormal"] {
        let body = format!("testp.{class}.f32 %p, %a; selp.f32 %d, %a, %b, %p;");
        add(body, "f32", "f32", Inputs::F32, Compare::Bits);
        let body = format!("testp.{class}.f64 %p, %a; selp.f64 %d, %a, %b, %p;");
        add(body, "f64", "f64", Inputs::F64, Compare::Bits);
    }
    for (t, m) in [
        ("s32", "rni"),
        ("u32", "rzi"),
        ("s64", "rmi"),
        ("u64", "rpi"),
        ("s16", "rzi"),
    ] {
        add(format!("cvt.{m}.{t}.f32 %d, %a;"), "f32", t, Inputs::F32, Compare::Bits);
    }
    for (t, m) in [("s32", "rzi"), ("u32", "rni"), ("s64", "rzi")] {
        add(format!("cvt.{m}.{t}.f64 %d, %a;"), "f64", t, Inputs::F64, Compare::Bits);
    }
    add(
        "cvt.rn.f32.f64 %d, %a;".into(),
        "f64",
        "f32",
        Inputs::F64,
        Compare::Bits,
    );
    for m in ["rn", "rz", "rm", "rp"] {
        let body = format!("cvt.{m}.ftz.f32.f64 %d, %a;");
        add(body.clone(), "f64", "f32", Inputs::F64, Compare::Bits);
        add(body, "f64", "f32", Inputs::NearMinNormal32, Compare::Bits);
    }
    add(
        "cvt.rn.ftz.sat.f32.f64 %d, %a;".into(),
        "f64",
        "f32",
        Inputs::NearMinNormal32,
        Compare::Bits,
    );
    add("cvt.f64.f32 %d, %a;".into(), "f32", "f64", Inputs::F32, Compare::Bits);
    add(
        "cvt.rn.f32.s32 %d, %a;".into(),
        "s32",
        "f32",
        Inputs::Int(32),
        Compare::Bits,
    );
    add(
        "cvt.rz.f32.u64 %d, %a;".into(),
        "u64",
        "f32",
        Inputs::Int(64),
        Compare::Bits,
    );
    add(
        "cvt.rn.f64.s64 %d, %a;".into(),
        "s64",
        "f64",
        Inputs::Int(64),
        Compare::Bits,
    );
    add(
        "cvt.sat.f32.f32 %d, %a;".into(),
        "f32",
        "f32",
        Inputs::F32,
        Compare::Bits,
    );
    for op in ["rcp", "sqrt", "rsqrt", "ex2", "lg2"] {
        add(
            format!("{op}.approx.f32 %d, %a;"),
            "f32",
            "f32",
            Inputs::F32,
            Compare::Ulps(32, 2),
        );
    }
    add(
        "div.full.f32 %d, %a, %b;".into(),
        "f32",
        "f32",
        Inputs::Moderate32,
        Compare::Ulps(32, 2),
    );
    for t in ["u32", "s32", "u64", "s64"] {
        let bits = if t.ends_with("32") { 32 } else { 64 };
        for op in ["div", "rem"] {
            add(format!("{op}.{t} %d, %a, %b;"), t, t, Inputs::Int(bits), Compare::Bits);
            add(format!("{op}.{t} %d, %a, 7;"), t, t, Inputs::Int(bits), Compare::Bits);
        }
    }
    for body in [
        "add.f16x2 %d, %a, %b;",
        "sub.ftz.sat.f16x2 %d, %a, %b;",
        "mul.f16x2 %d, %a, %b;",
        "fma.rn.sat.f16x2 %d, %a, %b, %c;",
        "neg.f16x2 %d, %a;",
        "abs.f16x2 %d, %a;",
    ] {
        add(body.into(), "b32", "b32", Inputs::Half2, Compare::Half2);
    }
    let halves = "mov.b32 {%h0, %h1}, %a; mov.b32 {%h2, %h3}, %b;";
    for op in [
        "add.ftz.f16 %h0, %h0, %h2;",
        "mul.f16 %h0, %h1, %h3;",
        "fma.rn.f16 %h0, %h0, %h2, %h1;",
    ] {
        let body = format!("{halves} {op} mov.b32 %d, {{%h0, %h0}};");
        add(body, "b32", "b32", Inputs::Half2, Compare::Half2);
    }
    let body = format!("{halves} cvt.f32.f16 %f0, %h1; mov.b32 %d, %f0;");
    add(body, "b32", "b32", Inputs::Half2, Compare::Exact(32));
    add(
        "cvt.rn.f16.f32 %h0, %a; cvt.rz.f16.f32 %h1, %a; mov.b32 %d, {%h0, %h1};".into(),
        "f32",
        "b32",
        Inputs::F32,
        Compare::Half2,
    );
    add(
        "mul.hi.u64 %d, %a, %b;".into(),
        "u64",
        "u64",
        Inputs::Int(64),
        Compare::Bits,
    );
    add(
        "cvt.sat.s32.s64 %d, %a;".into(),
        "s64",
        "s32",
        Inputs::Int(64),
        Compare::Bits,
    );
    v
}

/// Operations where the simulator and the MIR interpreter disagree (none: a NaN converted
/// from f64 to an unsigned 32-bit integer, 0x80000000 on the simulator as the PTX ISA says,
/// was 0 on the interpreter until differential testing found it).
const NOT_SIMULATED: &[&str] = &[];

fn inputs(kind: Inputs) -> Vec<[u64; 3]> {
    let mut v = match kind {
        Inputs::F32 => pairs(&f32_edges(), 1500, random_f32),
        Inputs::F64 => pairs(&f64_edges(), 1500, random_f64),
        Inputs::Moderate32 => pairs(&[], 1500, moderate_f32),
        Inputs::NearMinNormal32 => {
            // 2^-126, 2^-126 - 2^-150 (24 bits) and 2^-126 - 2^-151 (their midpoint), a few
            // f64 units either side, both signs; then random values within 2^-150 of 2^-126.
            let bases = [0x3810_0000_0000_0000u64, 0x380f_ffff_e000_0000, 0x380f_ffff_f000_0000];
            let edges: Vec<u64> = bases
                .iter()
                .flat_map(|&b| [b - 2, b - 1, b, b + 1, b + 2])
                .flat_map(|x| [x, x | 1 << 63])
                .collect();
            pairs(&edges, 1500, |r| {
                let x = 0x380f_ffff_c000_0000 + (r.next() & 0x7fff_ffff);
                x | (r.next() & 1) << 63
            })
        }
        Inputs::Half2 => {
            let edges = [
                0u64, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7e00, 1, 0x3ff, 0x400, 0x7bff, 0x3555,
            ];
            let halves: Vec<u64> = edges
                .iter()
                .flat_map(|&h| edges.iter().map(move |&l| h << 16 | l))
                .collect();
            pairs(&halves, 1500, |r| r.next() & 0xffff_ffff)
        }
        Inputs::Int(bits) => {
            let mask = if bits == 64 { u64::MAX } else { (1 << bits) - 1 };
            let edges = [0, 1, 2, 7, mask, mask - 1, 1 << (bits - 1), (1 << (bits - 1)) - 1];
            pairs(&edges, 3000, |r| {
                let x = r.next();
                (if x & 1 == 0 { x } else { x >> (x >> 58) }) & mask
            })
        }
    };
    // Third operands: a rotation of the first.
    let n = v.len();
    let firsts: Vec<u64> = v.iter().map(|x| x[0]).collect();
    for (i, x) in v.iter_mut().enumerate() {
        x[2] = firsts[(i + 17) % n];
    }
    v
}

#[test]
fn float_and_division_sass_matches_the_mir_on_the_simulator() {
    let dir = common_dir();
    let mut failed = Vec::new();
    // Expected failures are caught below; keep their panics quiet.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for (body, i, o, kind, how) in ops() {
        let k = OpKernel::new(&body, i, o);
        let cases = inputs(kind);
        let ok = std::panic::catch_unwind(|| check_simulated(&k, &cases, how, &dir));
        let listed = NOT_SIMULATED.contains(&body.as_str());
        match (ok, listed) {
            (Ok(()), true) => failed.push(format!("`{body}` passes now: remove it from NOT_SIMULATED")),
            (Err(e), false) => failed.push(
                e.downcast_ref::<String>()
                    .cloned()
                    .unwrap_or_else(|| format!("`{body}` failed")),
            ),
            _ => {}
        }
    }
    std::panic::set_hook(hook);
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

/// A scratch folder for the input files.
fn common_dir() -> std::path::PathBuf {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("float_sim_ops");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
