//! The scalar half-precision and bf16 PTX of sm_80 and sm_86 (`tests/ampere/half.ptx`,
//! `tests/ampere/half86.ptx`): cvt to f16x2/bf16x2 pairs and to bf16 (`.rn`/`.rz`, `.relu`),
//! `cvt.rn.relu.f16.f32`, `cvt.f32.bf16`, `cvt.rna.tf32.f32`, min/max of f16, f16x2, bf16 and
//! bf16x2 (`.ftz`, `.NaN`; `.xorsign.abs` on sm_86, also on f32), `min/max.NaN.f32`, fma
//! `.relu` on f16/f16x2 and fma on bf16/bf16x2, neg/abs of bf16/bf16x2, and a bf16 loaded,
//! selected and stored as bits. 128 threads run every form on inputs with NaNs (quiet,
//! signalling, negative), infinities, ±0, subnormals, the largest finite values, values that
//! round to a tie or overflow, and random ones; five ways per target (ptxas's and ptxc's
//! cubins on the timed and the functional engine, ptxc's MIR on the interpreter): all runs
//! have zero hazards, agree bit for bit, and equal a host reference written here.
//!
//! The reference reads the PTX ISA ("Half Precision Floating-Point Instructions: min, max,
//! fma", "cvt"): min/max return the non-NaN operand of one NaN and -0 is below +0; `.NaN`
//! gives the canonical NaN for any NaN operand; `.xorsign.abs` compares absolute values and
//! gives the result the XOR of the operands' signs (a NaN result keeps the canonical NaN);
//! `.relu` turns a negative result (-0 too) into +0 and keeps a NaN (the canonical NaN); `.ftz`
//! flushes f16/f32 subnormal operands and results to signed zero. Roundings come from
//! `ptxc_softfloat` (one rounding of the exact result; NaN results are the canonical NaN,
//! 0x7fff for f16 and bf16). `cvt.f32.bf16` moves the bits up (ptxas: `SHF.L.U32`);
//! `cvt.rna.tf32.f32` adds 0x1000 to a finite value's bits and clears the 13 low bits
//! (ptxas's code; the SASS alone), an infinity or NaN only loses them.
//!
//! Needs ptxas (`CUDA_ORACLE_BIN`, or installed by `scripts/cuda-oracle`).

mod common;

use common::five_ways::{Cubins, Via, WAYS};
use common::rng::Rng;
use common::*;
use ptxc::launch::LaunchSpec;
use ptxc_sass::isa::Arch;
use ptxc_softfloat::{self as sf, BF16, F16, F32, Format, Rounding};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Threads of the launch (one block).
const THREADS: usize = 128;

/// 16-bit patterns of interest, as f16 and as bf16.
const HALVES: &[u32] = &[
    0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x83ff, 0x0400, 0x3c00, 0xbc00, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00,
    0x7c01, 0xfe00, 0x3555, 0xc000, 0x007f, 0x0080, 0x3f80, 0xbf80, 0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0x7f81,
    0xffc0, 0x4049, 0xc2f7, 0x3c01,
];

/// f32 patterns of interest: NaNs, infinities, zeros, subnormals, the largest values, f16
/// overflow and underflow boundaries, bf16 and tf32 ties.
const SINGLES: &[u32] = &[
    0x0000_0000,
    0x8000_0000,
    0x3f80_0000,
    0xbf80_0000,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0x7f80_0001,
    0xffc0_0001,
    0x0000_0001,
    0x807f_ffff,
    0x0080_0000,
    0x7f7f_ffff,
    0xff7f_ffff,
    0x477f_e000,
    0x477f_f000,
    0x477f_efff,
    0xc77f_f000,
    0x3380_0000,
    0x3300_0000,
    0x3340_0000,
    0x3f80_8000,
    0x3f81_8000,
    0x3f80_8001,
    0xbf80_8000,
    0x3f80_1000,
    0x3f80_0fff,
    0x3f80_3000,
    0x7f7f_f000,
    0x7f7f_efff,
    0x387f_c000,
    0x3880_0000,
    0xc780_0000,
    0x0080_8000,
    0xbf81_7fff,
    0x4049_0fdb,
];

/// The inputs of one thread: half-pair words a, b, c and f32 words x, y.
#[derive(Clone, Copy, Debug)]
struct In {
    a: u32,
    b: u32,
    c: u32,
    x: u32,
    y: u32,
}

fn inputs() -> Vec<In> {
    let mut r = Rng(0x4a1f_0080);
    let (nh, ns) = (HALVES.len(), SINGLES.len());
    (0..THREADS)
        .map(|t| {
            if t < 64 {
                let h = |i: usize, j: usize| HALVES[i % nh] | HALVES[j % nh] << 16;
                In {
                    a: h(t, 3 * t + 1),
                    b: h(5 * t + 2, t / 2 + 7),
                    c: h(7 * t + 3, 11 * t + 5),
                    x: SINGLES[t % ns],
                    y: SINGLES[(5 * t + 1) % ns],
                }
            } else {
                // Random signs and fractions, exponents around the f16 range.
                let mut single = || {
                    let v = r.u64();
                    (v as u32 & 0x807f_ffff) | (100 + (v >> 40) as u32 % 60) << 23
                };
                let (x, y) = (single(), single());
                let mut half = || r.u64() as u32;
                In {
                    a: half(),
                    b: half(),
                    c: half(),
                    x,
                    y,
                }
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// The host reference.

/// Which operation of the kernels; every one names its PTX.
#[derive(Clone, Copy, Debug)]
enum Ref {
    /// cvt to a pair: format, rounding toward zero, `.relu`.
    Pair(Format, bool, bool),
    /// cvt.f32 to a 16-bit value.
    Narrow(Format, bool, bool),
    CvtF32Bf16,
    Tf32,
    /// min/max of halves: format, pair, max, `.ftz`, `.NaN`, `.xorsign.abs`.
    MinMax(Format, bool, bool, bool, bool, bool),
    /// min/max of f32: max, `.ftz`, `.NaN`, `.xorsign.abs`.
    MinMax32(bool, bool, bool, bool),
    /// fma of halves: format, pair, `.ftz`, `.relu`.
    Fma(Format, bool, bool, bool),
    /// neg (false) or abs (true) of bf16: pair.
    Sign(bool, bool),
    Selp,
}

use Ref::*;

/// The operations of `half80` in the order of `tests/ampere/half.ptx`.
const OPS80: [(&str, Ref); 41] = [
    ("cvt.rn.f16x2.f32", Pair(F16, false, false)),
    ("cvt.rn.relu.f16x2.f32", Pair(F16, false, true)),
    ("cvt.rz.f16x2.f32", Pair(F16, true, false)),
    ("cvt.rn.bf16x2.f32", Pair(BF16, false, false)),
    ("cvt.rn.relu.bf16x2.f32", Pair(BF16, false, true)),
    ("cvt.rz.relu.bf16x2.f32", Pair(BF16, true, true)),
    ("cvt.rn.bf16.f32", Narrow(BF16, false, false)),
    ("cvt.rz.bf16.f32", Narrow(BF16, true, false)),
    ("cvt.rn.relu.bf16.f32", Narrow(BF16, false, true)),
    ("cvt.rz.relu.bf16.f32", Narrow(BF16, true, true)),
    ("cvt.rn.relu.f16.f32", Narrow(F16, false, true)),
    ("cvt.rz.relu.f16.f32", Narrow(F16, true, true)),
    ("cvt.f32.bf16", CvtF32Bf16),
    ("cvt.rna.tf32.f32", Tf32),
    ("min.f16", MinMax(F16, false, false, false, false, false)),
    ("max.f16", MinMax(F16, false, true, false, false, false)),
    ("min.ftz.f16", MinMax(F16, false, false, true, false, false)),
    ("max.NaN.f16", MinMax(F16, false, true, false, true, false)),
    ("min.f16x2", MinMax(F16, true, false, false, false, false)),
    ("max.ftz.NaN.f16x2", MinMax(F16, true, true, true, true, false)),
    ("min.bf16", MinMax(BF16, false, false, false, false, false)),
    ("max.NaN.bf16", MinMax(BF16, false, true, false, true, false)),
    ("min.bf16x2", MinMax(BF16, true, false, false, false, false)),
    ("max.bf16x2", MinMax(BF16, true, true, false, false, false)),
    ("min.NaN.bf16x2", MinMax(BF16, true, false, false, true, false)),
    ("min.NaN.f32", MinMax32(false, false, true, false)),
    ("max.NaN.f32", MinMax32(true, false, true, false)),
    ("min.ftz.NaN.f32", MinMax32(false, true, true, false)),
    ("fma.rn.relu.f16", Fma(F16, false, false, true)),
    ("fma.rn.ftz.relu.f16", Fma(F16, false, true, true)),
    ("fma.rn.relu.f16x2", Fma(F16, true, false, true)),
    ("fma.rn.ftz.relu.f16x2", Fma(F16, true, true, true)),
    ("fma.rn.bf16", Fma(BF16, false, false, false)),
    ("fma.rn.relu.bf16", Fma(BF16, false, false, true)),
    ("fma.rn.bf16x2", Fma(BF16, true, false, false)),
    ("fma.rn.relu.bf16x2", Fma(BF16, true, false, true)),
    ("neg.bf16", Sign(false, false)),
    ("abs.bf16", Sign(true, false)),
    ("neg.bf16x2", Sign(false, true)),
    ("abs.bf16x2", Sign(true, true)),
    ("ld.b16 + selp.b16", Selp),
];

/// The operations of `half86` in the order of `tests/ampere/half86.ptx`.
const OPS86: [(&str, Ref); 10] = [
    ("min.xorsign.abs.f16", MinMax(F16, false, false, false, false, true)),
    ("max.NaN.xorsign.abs.f16", MinMax(F16, false, true, false, true, true)),
    ("min.ftz.xorsign.abs.f16x2", MinMax(F16, true, false, true, false, true)),
    ("max.xorsign.abs.f16x2", MinMax(F16, true, true, false, false, true)),
    ("min.xorsign.abs.bf16", MinMax(BF16, false, false, false, false, true)),
    (
        "max.NaN.xorsign.abs.bf16x2",
        MinMax(BF16, true, true, false, true, true),
    ),
    ("min.xorsign.abs.bf16x2", MinMax(BF16, true, false, false, false, true)),
    ("min.xorsign.abs.f32", MinMax32(false, false, false, true)),
    ("max.NaN.xorsign.abs.f32", MinMax32(true, false, true, true)),
    ("min.ftz.xorsign.abs.f32", MinMax32(false, true, false, true)),
];

/// Sign bit, exponent mask and fraction mask of a format of `bits` with `fraction` bits.
fn parts(f: Format) -> (u32, u32, u32) {
    match (f == F32, f == BF16) {
        (true, _) => (0x8000_0000, 0x7f80_0000, 0x007f_ffff),
        (_, true) => (0x8000, 0x7f80, 0x007f),
        _ => (0x8000, 0x7c00, 0x03ff),
    }
}

fn is_nan(x: u32, f: Format) -> bool {
    let (_, e, m) = parts(f);
    x & e == e && x & m != 0
}

fn canonical_nan(f: Format) -> u32 {
    let (s, _, _) = parts(f);
    s - 1
}

/// `.ftz`: a subnormal becomes a zero of its sign.
fn flush(x: u32, f: Format, on: bool) -> u32 {
    let (s, e, _) = parts(f);
    if on && x & e == 0 { x & s } else { x }
}

/// `.relu`: negative results (-0 too) become +0, NaN stays.
fn relu(x: u32, f: Format, on: bool) -> u32 {
    let (s, _, _) = parts(f);
    if on && x & s != 0 && !is_nan(x, f) { 0 } else { x }
}

/// The value of a non-NaN pattern, with -0 just below +0 (as a pair for comparing).
fn order(x: u32, f: Format) -> (f64, bool) {
    let (s, e, m) = parts(f);
    let (bias, frac_bits) = match (f == F32, f == BF16) {
        (true, _) => (127, 23),
        (_, true) => (127, 7),
        _ => (15, 10),
    };
    let shift = m.count_ones();
    let exp = ((x & e) >> shift) as i32;
    let frac = (x & m) as f64;
    let mag = if exp == 0 {
        frac * 2f64.powi(1 - bias - frac_bits)
    } else if x & e == e {
        f64::INFINITY
    } else {
        (1.0 + frac / 2f64.powi(frac_bits)) * 2f64.powi(exp - bias)
    };
    let neg = x & s != 0;
    (if neg { -mag } else { mag }, !neg)
}

fn min_max(a: u32, b: u32, f: Format, max: bool, ftz: bool, nan: bool, xorsign: bool) -> u32 {
    let (s, _, _) = parts(f);
    let (a, b) = (flush(a, f, ftz), flush(b, f, ftz));
    let sign = (a ^ b) & s;
    let (a, b) = if xorsign { (a & !s, b & !s) } else { (a, b) };
    let r = match (is_nan(a, f), is_nan(b, f)) {
        (true, true) => return canonical_nan(f),
        (true, false) | (false, true) if nan => return canonical_nan(f),
        (true, false) => b,
        (false, true) => a,
        _ => {
            let (oa, ob) = (order(a, f), order(b, f));
            let a_first = oa.0 < ob.0 || oa.0 == ob.0 && !oa.1;
            if a_first != max { a } else { b }
        }
    };
    let r = flush(r, f, ftz);
    if xorsign { (r & !s) | sign } else { r }
}

fn rounding(rz: bool) -> Rounding {
    if rz { Rounding::Rz } else { Rounding::Rn }
}

/// f32 to a 16-bit format.
fn narrow(x: u32, f: Format, rz: bool, relu_on: bool) -> u32 {
    relu(sf::convert(x as u64, F32, f, rounding(rz)) as u32, f, relu_on)
}

/// Applies `op` to the low and high halves (`pair`) or to the selected half.
fn halves(pair: bool, high: bool, args: [u32; 3], op: impl Fn([u32; 3]) -> u32) -> u32 {
    let lane = |k: u32| op(args.map(|v| v >> (16 * k) & 0xffff)) & 0xffff;
    if pair {
        lane(0) | lane(1) << 16
    } else {
        lane(high as u32)
    }
}

/// Op number `k` (`op`) on thread inputs `i`.
fn reference(k: usize, op: Ref, i: &In) -> u32 {
    let high = k % 2 == 1;
    let abc = [i.a, i.b, i.c];
    match op {
        Pair(f, rz, r) => narrow(i.x, f, rz, r) << 16 | narrow(i.y, f, rz, r),
        Narrow(f, rz, r) => narrow(i.x, f, rz, r),
        CvtF32Bf16 => (if high { i.a >> 16 } else { i.a & 0xffff }) << 16,
        Tf32 => {
            let finite = i.x & 0x7f80_0000 != 0x7f80_0000;
            let up = if finite { i.x.wrapping_add(0x1000) } else { i.x };
            up & 0xffff_e000
        }
        MinMax(f, pair, max, ftz, nan, xs) => halves(pair, high, abc, |[a, b, _]| min_max(a, b, f, max, ftz, nan, xs)),
        MinMax32(max, ftz, nan, xs) => min_max(i.x, i.y, F32, max, ftz, nan, xs),
        Fma(f, pair, ftz, r) => halves(pair, high, abc, |[a, b, c]| {
            let [a, b, c] = [a, b, c].map(|v| flush(v, f, ftz) as u64);
            let v = sf::fma(a, b, c, f, Rounding::Rn) as u32;
            relu(flush(v, f, ftz), f, r)
        }),
        Sign(abs, pair) => halves(pair, high, abc, |[a, _, _]| {
            if is_nan(a, BF16) {
                canonical_nan(BF16)
            } else if abs {
                a & 0x7fff
            } else {
                a ^ 0x8000
            }
        }),
        Selp => {
            // Odd threads: the high half of a (loaded as b16); even ones: b's low half.
            unreachable!("the thread's parity decides: see `expected`")
        }
    }
}

/// The expected word of op `k` on thread `t`.
fn expected(t: usize, k: usize, op: Ref, i: &In) -> u32 {
    match op {
        Selp if t % 2 == 1 => i.a >> 16,
        Selp => i.b & 0xffff,
        _ => reference(k, op, i),
    }
}

// ---------------------------------------------------------------------------------------
// Running.

/// One of the two modules.
struct Module {
    file: &'static str,
    kernel: &'static str,
    ops: &'static [(&'static str, Ref)],
}

const HALF80: Module = Module {
    file: "half",
    kernel: "half80",
    ops: &OPS80,
};
const HALF86: Module = Module {
    file: "half86",
    kernel: "half86",
    ops: &OPS86,
};

fn ptx_path(m: &Module) -> PathBuf {
    root().join(format!("tests/ampere/{}.ptx", m.file))
}

/// One input word of a thread.
type Field = fn(&In) -> u32;

fn spec(dir: &std::path::Path, m: &Module, inputs: &[In]) -> LaunchSpec {
    let mut buffers = BTreeMap::new();
    let fields: [(&str, Field); 5] = [
        ("a", |i| i.a),
        ("b", |i| i.b),
        ("c", |i| i.c),
        ("x", |i| i.x),
        ("y", |i| i.y),
    ];
    for (name, get) in fields {
        let words: Vec<u32> = inputs.iter().map(get).collect();
        let path = dir.join(format!("{}_{name}.npy", m.kernel));
        buffers.insert(name.to_string(), u32_file(path, &words));
    }
    buffers.insert("d".to_string(), u32_zeros(THREADS * m.ops.len()));
    one_block_spec(m.kernel, THREADS as u32, buffers, &["a", "b", "c", "x", "y", "d"])
}

/// d's words after running `spec` `via` (zero hazards and stray accesses).
fn launch(cubins: &Cubins, spec: &LaunchSpec, via: Via) -> Vec<u32> {
    words(&cubins.run(spec, via, "d"))
}

/// Runs module `m` five ways on `arch` and checks every result against the reference.
fn check(m: &Module, arch: Arch) {
    let cubins = Cubins::new(arch, &ptx_path(m), m.file);
    let dir = scratch(&format!("sim_ampere_half_run_{}_{}", m.file, arch.name()));
    let inputs = inputs();
    let spec = spec(&dir, m, &inputs);
    let first = launch(&cubins, &spec, WAYS[0]);
    let mut failures = Vec::new();
    for via in &WAYS[1..] {
        let got = launch(&cubins, &spec, *via);
        if let Some(w) = (0..got.len()).find(|&w| got[w] != first[w]) {
            let (t, k) = (w / m.ops.len(), w % m.ops.len());
            failures.push(format!(
                "{} {via:?} disagrees with ptxas's cubin on the timed engine: thread {t} `{}`: {:#x} vs {:#x}",
                arch.name(),
                m.ops[k].0,
                got[w],
                first[w]
            ));
        }
    }
    let mut wrong = 0;
    for (t, i) in inputs.iter().enumerate() {
        for (k, &(name, op)) in m.ops.iter().enumerate() {
            let (got, want) = (first[t * m.ops.len() + k], expected(t, k, op, i));
            if got != want {
                wrong += 1;
                if wrong <= 12 {
                    failures.push(format!(
                        "{} thread {t} `{name}` ({i:x?}): {got:#x}, reference {want:#x}",
                        arch.name()
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{wrong} wrong results\n{}", failures.join("\n"));
}

#[test]
fn sm80_half_forms_agree_five_ways_and_match_the_host_reference() {
    check(&HALF80, Arch::Sm80);
}

#[test]
fn sm86_half_forms_agree_five_ways_and_match_the_host_reference() {
    check(&HALF80, Arch::Sm86);
    check(&HALF86, Arch::Sm86);
}

#[test]
fn sm89_half_forms_agree_five_ways_and_match_the_host_reference() {
    check(&HALF80, Arch::Sm89);
    check(&HALF86, Arch::Sm89);
}

#[test]
fn sm90_half_forms_agree_five_ways_and_match_the_host_reference() {
    check(&HALF80, Arch::Sm90);
    check(&HALF86, Arch::Sm90);
}

/// What needs a later target is refused with the form and the target: bf16 before sm_80,
/// `.xorsign` before sm_86, and the sm_90 bf16 arithmetic.
#[test]
fn later_forms_are_refused_with_the_form_and_the_target() {
    let cases = [
        (75, "cvt.rn.bf16.f32 %h1, %f1;", "`.bf16` needs sm_80 (target is sm_75)"),
        (
            75,
            "min.NaN.f32 %f2, %f1, %f1;",
            "`min.NaN or max.NaN` needs sm_80 (target is sm_75)",
        ),
        (
            75,
            "fma.rn.relu.f16 %h1, %h1, %h1, %h1;",
            "`fma.relu` needs sm_80 (target is sm_75)",
        ),
        (
            80,
            "min.xorsign.abs.f32 %f2, %f1, %f1;",
            "`min.xorsign or max.xorsign` needs sm_86 (target is sm_80)",
        ),
        (
            80,
            "add.rn.bf16 %h1, %h1, %h1;",
            "`add.bf16` needs sm_90 (target is sm_80)",
        ),
        (
            86,
            "ex2.approx.ftz.bf16x2 %r1, %r1;",
            "`ex2.bf16x2` needs sm_90 (target is sm_86)",
        ),
        (
            80,
            "cvt.rn.bf16.f16 %h1, %h1;",
            "`cvt.bf16.f16` needs sm_90 (target is sm_80)",
        ),
        (
            80,
            "min.xorsign.f32 %f2, %f1, %f1;",
            "`.xorsign` and `.abs` are written together",
        ),
        (
            80,
            "fma.rn.sat.relu.f16 %h1, %h1, %h1, %h1;",
            "`.relu` or `.sat`, not both",
        ),
    ];
    for (sm, line, want) in cases {
        let src = format!(
            ".version 7.8\n.target sm_{sm}\n.address_size 64\n.visible .entry k() {{\n.reg .b16 %h<2>;\n\
             .reg .b32 %r<2>;\n.reg .f32 %f<3>;\nmov.b32 %f1, 0;\n{line}\nret;\n}}\n"
        );
        let arch = match sm {
            75 => Arch::Sm75,
            80 => Arch::Sm80,
            _ => Arch::Sm86,
        };
        let opts = ptxc::pipeline::CompileOptions {
            arch,
            ..Default::default()
        };
        let err = ptxc::pipeline::compile_ptx(&src, "k", &opts).expect_err(line).0;
        assert!(err.contains(want), "{line} on sm_{sm}: {err}");
    }
}
