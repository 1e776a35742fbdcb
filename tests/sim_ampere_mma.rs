//! Ampere's `mma.sync` shapes (`tests/ampere/mma_m16n8.ptx`) on sm_80, sm_86, sm_89 and sm_90:
//! m16n8k16 of f16 (f16 and f32 accumulators) and bf16, m16n8k8 of f16, bf16 and tf32,
//! m16n8k32 and m16n8k16 of s8/u8 (with and without `.satfinite`). Each kernel runs as one
//! warp five ways per target (ptxas's and ptxc's cubins on the timed and the functional
//! engine, ptxc's MIR on the interpreter): all runs have zero hazards and agree bit for bit,
//! and D matches a host reference computed from the matrices: exactly for the integer forms,
//! and for the float forms within the bound of the tensor-core model
//! (`ptxc_softfloat::tensor`, Ampere variant: blocks of eight f16/bf16 or four tf32
//! products, each term truncated to 23 bits below the block's largest exponent, f32 sums
//! rounded toward zero, f16 to nearest): `|d - exact| <= blocks * (10 * 2^-23 + r) *
//! (|c| + sum |a_k b_k|)`, `r` the accumulator's unit roundoff. tf32 elements are their f32
//! registers truncated to 19 bits (the reference multiplies the truncated values).
//!
//! The fragments are built on the host from the PTX ISA's fragment tables ("Matrix
//! Fragments for mma.m16n8k16 / m16n8k8 / m16n8k32"), written here element by element,
//! independently of the simulator's and the interpreter's register arithmetic.
//!
//! Needs ptxas (`CUDA_ORACLE_BIN`, or installed by `scripts/cuda-oracle`).

mod common;

use common::mma::{c_at, pack, spec};
use common::rng::Rng;
use common::*;
use ptxc::launch::LaunchSpec;
use ptxc::run::{RunOptions, run, run_mir};
use ptxc_sass::isa::Arch;
use ptxc_sim::Engine;
use std::path::PathBuf;

/// An element type of a fragment.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Ty {
    F16,
    Bf16,
    Tf32,
    F32,
    S32,
    S8,
    U8,
}

impl Ty {
    fn bits(self) -> usize {
        match self {
            Ty::F16 | Ty::Bf16 => 16,
            Ty::S8 | Ty::U8 => 8,
            _ => 32,
        }
    }
    fn is_float(self) -> bool {
        matches!(self, Ty::F16 | Ty::Bf16 | Ty::Tf32 | Ty::F32)
    }
    /// A random element's raw bits: floats with a random sign and significand, magnitude in
    /// [2^-3, 4) (one in 16 zero); tf32 with all 32 bits random below its exponent (the
    /// kernel must ignore the low 13); integers over their whole range, s32 near its limits
    /// one time in four.
    fn random(self, r: &mut Rng) -> u32 {
        let zero = r.below(16) == 0;
        let sign = r.below(2) as u32;
        let e = r.below(5) as u32; // exponent - bias + 3
        match self {
            Ty::F16 if zero => 0,
            Ty::F16 => sign << 15 | (12 + e) << 10 | r.below(1 << 10) as u32,
            Ty::Bf16 if zero => 0,
            Ty::Bf16 => sign << 15 | (124 + e) << 7 | r.below(1 << 7) as u32,
            Ty::Tf32 | Ty::F32 if zero => 0,
            Ty::Tf32 | Ty::F32 => sign << 31 | (124 + e) << 23 | r.below(1 << 23) as u32,
            Ty::S32 => match r.below(8) {
                0 => (i32::MAX - r.below(64) as i32) as u32,
                1 => (i32::MIN + r.below(64) as i32) as u32,
                _ => (r.below(20001) as i32 - 10000) as u32,
            },
            Ty::S8 | Ty::U8 => r.below(256) as u32,
        }
    }
    /// The value the tensor core multiplies or adds.
    fn value(self, raw: u32) -> f64 {
        match self {
            Ty::F16 => {
                let (e, m) = ((raw >> 10 & 0x1f) as i32, (raw & 0x3ff) as f64);
                let v = if e == 0 {
                    m * 2f64.powi(-24)
                } else {
                    (1.0 + m / 1024.0) * 2f64.powi(e - 15)
                };
                if raw >> 15 & 1 == 1 { -v } else { v }
            }
            Ty::Bf16 => f32::from_bits(raw << 16) as f64,
            Ty::Tf32 => f32::from_bits(raw & !0x1fff) as f64,
            Ty::F32 => f32::from_bits(raw) as f64,
            Ty::S32 => raw as i32 as f64,
            Ty::S8 => raw as u8 as i8 as f64,
            Ty::U8 => raw as u8 as f64,
        }
    }
}

/// One kernel of `tests/ampere/mma_m16n8.ptx`: `D (16x8) = A (16xk) B (kx8) + C`.
struct Kernel {
    name: &'static str,
    k: usize,
    ab: (Ty, Ty),
    /// C's and D's type.
    acc: Ty,
    sat: bool,
}

const fn kernel(name: &'static str, k: usize, ab: (Ty, Ty), acc: Ty, sat: bool) -> Kernel {
    Kernel { name, k, ab, acc, sat }
}

const KERNELS: [Kernel; 11] = [
    kernel("mma_m16n8k16_f32_f16", 16, (Ty::F16, Ty::F16), Ty::F32, false),
    kernel("mma_m16n8k16_f16_f16", 16, (Ty::F16, Ty::F16), Ty::F16, false),
    kernel("mma_m16n8k16_f32_bf16", 16, (Ty::Bf16, Ty::Bf16), Ty::F32, false),
    kernel("mma_m16n8k8_f32_f16", 8, (Ty::F16, Ty::F16), Ty::F32, false),
    kernel("mma_m16n8k8_f16_f16", 8, (Ty::F16, Ty::F16), Ty::F16, false),
    kernel("mma_m16n8k8_f32_bf16", 8, (Ty::Bf16, Ty::Bf16), Ty::F32, false),
    kernel("mma_m16n8k8_f32_tf32", 8, (Ty::Tf32, Ty::Tf32), Ty::F32, false),
    kernel("mma_m16n8k32_s8_s8", 32, (Ty::S8, Ty::S8), Ty::S32, false),
    kernel("mma_m16n8k32_u8_s8_sat", 32, (Ty::U8, Ty::S8), Ty::S32, true),
    kernel("mma_m16n8k16_s8_u8", 16, (Ty::S8, Ty::U8), Ty::S32, false),
    kernel("mma_m16n8k16_u8_u8_sat", 16, (Ty::U8, Ty::U8), Ty::S32, true),
];

// ---------------------------------------------------------------------------------------
// The PTX ISA's fragment tables: for lane `l` (group `g = l / 4`, `t = l % 4`) and its
// element `i`, the (row, column) of the matrix it holds. Elements are packed into 32-bit
// registers low first, `32 / bits` per register.

/// A's element `i` of lane `l` (16 x k).
fn a_at(ty: Ty, k: usize, l: usize, i: usize) -> (usize, usize) {
    let (g, t) = (l / 4, l % 4);
    match (ty.bits(), k) {
        // a0..a7: rows g (a0,a1,a4,a5) and g+8 (a2,a3,a6,a7), columns 2t+(i%2), +8 for a4..a7.
        (16, 16) => (g + 8 * (i / 2 % 2), 2 * t + i % 2 + 8 * (i / 4)),
        // a0..a3: rows g (a0,a1) and g+8 (a2,a3), columns 2t, 2t+1.
        (16, 8) => (g + 8 * (i / 2), 2 * t + i % 2),
        // tf32 a0..a3: (g, t), (g+8, t), (g, t+4), (g+8, t+4).
        (32, 8) => (g + 8 * (i % 2), t + 4 * (i / 2)),
        // 8-bit a0..a15: rows g (a0..a3, a8..a11) and g+8, columns 4t+(i%4), +16 for a8...
        (8, 32) => (g + 8 * (i / 4 % 2), 4 * t + i % 4 + 16 * (i / 8)),
        // 8-bit a0..a7: rows g (a0..a3) and g+8 (a4..a7), columns 4t+(i%4).
        (8, 16) => (g + 8 * (i / 4), 4 * t + i % 4),
        _ => unreachable!("no such A fragment"),
    }
}

/// B's element `i` of lane `l` (k x 8).
fn b_at(ty: Ty, k: usize, l: usize, i: usize) -> (usize, usize) {
    let (g, t) = (l / 4, l % 4);
    let row = match (ty.bits(), k) {
        (16, 16) => 2 * t + i % 2 + 8 * (i / 2),
        (16, 8) => 2 * t + i,
        (32, 8) => t + 4 * i,
        (8, 32) => 4 * t + i % 4 + 16 * (i / 4),
        (8, 16) => 4 * t + i,
        _ => unreachable!("no such B fragment"),
    };
    (row, g)
}

/// The element of the fragment words at `at`'s inverse: D[r][c].
fn unpack(words: &[u32], ty: Ty, r: usize, c: usize) -> u32 {
    let per = 32 / ty.bits();
    let count = 4;
    for l in 0..32 {
        for i in 0..count {
            if c_at(l, i) == (r, c) {
                let w = words[l * count.div_ceil(per) + i / per];
                return if ty.bits() == 32 {
                    w
                } else {
                    w >> (16 * (i % 2)) & 0xffff
                };
            }
        }
    }
    unreachable!("every element of D is in a lane")
}

// ---------------------------------------------------------------------------------------
// Running.

/// What runs a kernel.
#[derive(Clone, Copy, Debug)]
enum Via {
    Ptxas(Engine),
    Ptxc(Engine),
    Mir,
}

const WAYS: [Via; 5] = [
    Via::Ptxas(Engine::Timed),
    Via::Ptxas(Engine::Functional),
    Via::Ptxc(Engine::Timed),
    Via::Ptxc(Engine::Functional),
    Via::Mir,
];

/// The m16n8 kernels' module.
const M16N8: &str = "mma_m16n8";
/// The f64 kernels' module.
const F64: &str = "mma_f64";

fn ptx_path(module: &str) -> PathBuf {
    root().join(format!("tests/ampere/{module}.ptx"))
}

/// ptxas's cubin of `module` for `arch`.
fn ptxas_cubin(arch: Arch, module: &str) -> Vec<u8> {
    let dir = scratch(&format!("sim_ampere_mma_{}_{module}", arch.name()));
    let out = dir.join("ptxas.cubin");
    ptxas_for(arch.name(), &ptx_path(module), &out);
    std::fs::read(out).unwrap()
}

/// ptxc's cubin of `module` for `arch`.
fn ptxc_cubin(arch: Arch, module: &str) -> Vec<u8> {
    let src = std::fs::read_to_string(ptx_path(module)).unwrap();
    let opts = ptxc::pipeline::CompileOptions {
        arch,
        ..Default::default()
    };
    ptxc::pipeline::compile_ptx(&src, module, &opts).unwrap_or_else(|e| panic!("ptxc {arch}: {}", e.0))
}

/// D's words after running `spec` of `module` `via` on `arch` (zero hazards and stray
/// accesses).
fn launch(arch: Arch, module: &str, cubins: &(Vec<u8>, Vec<u8>), spec: &LaunchSpec, via: Via) -> Vec<u32> {
    let tag = format!("{} {} ({via:?})", arch.name(), spec.kernel);
    let out = match via {
        Via::Ptxas(engine) | Via::Ptxc(engine) => {
            let opts = RunOptions {
                engine,
                ..RunOptions::default()
            };
            let cubin = if matches!(via, Via::Ptxas(_)) {
                &cubins.0
            } else {
                &cubins.1
            };
            run(cubin, spec, &opts)
        }
        Via::Mir => {
            let src = std::fs::read_to_string(ptx_path(module)).unwrap();
            let module = ptxc::pipeline::lower_ptx(&src, module).unwrap_or_else(|e| panic!("{}", e.0));
            run_mir(&module, spec, RunOptions::default().config)
        }
    }
    .unwrap_or_else(|e| panic!("{tag}: {e}"));
    let s = &out.stats;
    assert_eq!(s.hazards, 0, "{tag}: hazards: {:?}", s.hazard_reports.first());
    assert_eq!(s.stray_accesses, 0, "{tag}: {:?}", s.stray_reports.first());
    words(&out.buffers["d"].bytes)
}

/// Checks D against the exact product of the matrices.
fn check_reference(k: &Kernel, a: &[Vec<u32>], b: &[Vec<u32>], c: &[Vec<u32>], d: &[u32]) -> Vec<String> {
    let mut bad = Vec::new();
    let (ta, tb) = k.ab;
    for i in 0..16 {
        for j in 0..8 {
            let got_raw = unpack(d, k.acc, i, j);
            let cv = k.acc.value(c[i][j]);
            if k.acc.is_float() {
                let (mut exact, mut mag) = (cv, cv.abs());
                for x in 0..k.k {
                    let p = ta.value(a[i][x]) * tb.value(b[x][j]);
                    exact += p;
                    mag += p.abs();
                }
                let block = if ta == Ty::Tf32 { 4 } else { 8 };
                let unit = if k.acc == Ty::F16 {
                    2f64.powi(-11)
                } else {
                    2f64.powi(-23)
                };
                let bound = k.k.div_ceil(block) as f64 * (10.0 * 2f64.powi(-23) + unit) * mag;
                let got = k.acc.value(got_raw);
                if (got - exact).abs() > bound {
                    bad.push(format!("D[{i}][{j}] = {got}, exact {exact}, bound {bound}"));
                }
            } else {
                let sum: i64 = c[i][j] as i32 as i64
                    + (0..k.k)
                        .map(|x| ta.value(a[i][x]) as i64 * tb.value(b[x][j]) as i64)
                        .sum::<i64>();
                let want = if k.sat {
                    sum.clamp(i32::MIN as i64, i32::MAX as i64) as i32
                } else {
                    sum as i32
                };
                if got_raw as i32 != want {
                    bad.push(format!("D[{i}][{j}] = {}, want {want} (sum {sum})", got_raw as i32));
                }
            }
        }
    }
    bad
}

/// Runs every kernel five ways on `arch`.
fn every_kernel_on(arch: Arch) {
    let cubins = (ptxas_cubin(arch, M16N8), ptxc_cubin(arch, M16N8));
    let dir = scratch(&format!("sim_ampere_mma_run_{}", arch.name()));
    let mut failures = Vec::new();
    for (n, k) in KERNELS.iter().enumerate() {
        let mut r = Rng(0x5eed_0000 + n as u64);
        let (ta, tb) = k.ab;
        let matrix = |rows: usize, cols: usize, ty: Ty, r: &mut Rng| -> Vec<Vec<u32>> {
            (0..rows).map(|_| (0..cols).map(|_| ty.random(r)).collect()).collect()
        };
        let a = matrix(16, k.k, ta, &mut r);
        let b = matrix(k.k, 8, tb, &mut r);
        let c = matrix(16, 8, k.acc, &mut r);
        // Elements per lane: A 16k / 32, B 8k / 32.
        let aw = pack(&a, ta.bits(), k.k / 2, |l, i| a_at(ta, k.k, l, i));
        let bw = pack(&b, tb.bits(), k.k / 4, |l, i| b_at(tb, k.k, l, i));
        let cw = pack(&c, k.acc.bits(), 4, c_at);
        let d_words = cw.len();
        let spec = spec(&dir, k.name, [&aw, &bw, &cw], d_words);
        let first = launch(arch, M16N8, &cubins, &spec, WAYS[0]);
        for via in &WAYS[1..] {
            if launch(arch, M16N8, &cubins, &spec, *via) != first {
                failures.push(format!(
                    "{} {}: {via:?} disagrees with ptxas's cubin on the timed engine",
                    arch.name(),
                    k.name
                ));
            }
        }
        failures.extend(
            check_reference(k, &a, &b, &c, &first)
                .into_iter()
                .take(4)
                .map(|e| format!("{} {}: {e}", arch.name(), k.name)),
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn sm80_mma_shapes_agree_five_ways_and_match_the_host_reference() {
    every_kernel_on(Arch::Sm80);
}

#[test]
fn sm86_mma_shapes_agree_five_ways_and_match_the_host_reference() {
    every_kernel_on(Arch::Sm86);
}

#[test]
fn sm89_mma_shapes_agree_five_ways_and_match_the_host_reference() {
    every_kernel_on(Arch::Sm89);
}

#[test]
fn sm90_mma_shapes_agree_five_ways_and_match_the_host_reference() {
    every_kernel_on(Arch::Sm90);
}

// ---------------------------------------------------------------------------------------
// mma.m8n8k4 of f64 (DMMA.884, `tests/ampere/mma_f64.ptx`).
//
// The PTX ISA's fragment table ("Matrix Fragments for mma.m8n8k4 with .f64 floating point
// type"): lane `l` holds one element of A (8x4, row-major) at row `l >> 2`, column `l % 4`;
// one element of B (4x8, column-major) at row `l % 4`, column `l >> 2`; and two elements
// of C and D (8x8) at row `l >> 2`, columns `2 (l % 4) + i`. The numerics the reference
// computes are the model's (`ptxc_softfloat::tensor::dmma_dot`: an f64 fma chain from C in
// increasing k, rounded to nearest), written here with the host's fused multiply-add; the
// order is a model, not a measurement (see `dmma_dot`).

/// A's (row, column) held by lane `l`.
fn f64_a_at(l: usize) -> (usize, usize) {
    (l >> 2, l % 4)
}

/// B's (row, column) held by lane `l`.
fn f64_b_at(l: usize) -> (usize, usize) {
    (l % 4, l >> 2)
}

/// C's and D's (row, column) of element `i` of lane `l`.
fn f64_c_at(l: usize, i: usize) -> (usize, usize) {
    (l >> 2, 2 * (l % 4) + i)
}

/// A random f64: random sign and significand, magnitude in [2^-8, 2^8) so that sums
/// cancel and every fma step rounds; one in 16 zero.
fn random_f64(r: &mut Rng) -> f64 {
    if r.below(16) == 0 {
        return 0.0;
    }
    let e = 1023 - 8 + r.below(16);
    f64::from_bits(r.below(2) << 63 | e << 52 | r.below(1 << 52))
}

/// The words of the fragment of `m` laid out by `at` (`per` f64 per lane).
fn f64_words(m: &[Vec<f64>], per: usize, at: impl Fn(usize, usize) -> (usize, usize)) -> Vec<u32> {
    let mut words = Vec::new();
    for l in 0..32 {
        for i in 0..per {
            let (r, c) = at(l, i);
            let bits = m[r][c].to_bits();
            words.extend([bits as u32, (bits >> 32) as u32]);
        }
    }
    words
}

/// D = A B + C as the reference model computes it.
fn f64_reference(a: &[Vec<f64>], b: &[Vec<f64>], c: &[Vec<f64>]) -> Vec<Vec<f64>> {
    (0..8)
        .map(|i| {
            (0..8)
                .map(|j| (0..4).fold(c[i][j], |acc, k| a[i][k].mul_add(b[k][j], acc)))
                .collect()
        })
        .collect()
}

/// The f64 kernels: one mma, and two chained (D2 = A B + (A B + C)).
const F64_KERNELS: [(&str, usize); 2] = [("mma_m8n8k4_f64", 1), ("mma_m8n8k4_f64_chain", 2)];

/// Runs the f64 kernels five ways on `arch`.
fn f64_kernels_on(arch: Arch) {
    let cubins = (ptxas_cubin(arch, F64), ptxc_cubin(arch, F64));
    let dir = scratch(&format!("sim_ampere_mma_f64_run_{}", arch.name()));
    let mut failures = Vec::new();
    for (n, &(name, steps)) in F64_KERNELS.iter().enumerate() {
        let mut r = Rng(0xd00b_1e00 + n as u64);
        let mut matrix = |rows: usize, cols: usize| -> Vec<Vec<f64>> {
            (0..rows)
                .map(|_| (0..cols).map(|_| random_f64(&mut r)).collect())
                .collect()
        };
        let (a, b, c) = (matrix(8, 4), matrix(4, 8), matrix(8, 8));
        let aw = f64_words(&a, 1, |l, _| f64_a_at(l));
        let bw = f64_words(&b, 1, |l, _| f64_b_at(l));
        let cw = f64_words(&c, 2, f64_c_at);
        let spec = spec(&dir, name, [&aw, &bw, &cw], cw.len());
        let first = launch(arch, F64, &cubins, &spec, WAYS[0]);
        for via in &WAYS[1..] {
            if launch(arch, F64, &cubins, &spec, *via) != first {
                failures.push(format!(
                    "{} {name}: {via:?} disagrees with ptxas's cubin on the timed engine",
                    arch.name()
                ));
            }
        }
        let mut want = c.clone();
        for _ in 0..steps {
            want = f64_reference(&a, &b, &want);
        }
        let got =
            |l: usize, i: usize| f64::from_bits(first[4 * l + 2 * i] as u64 | (first[4 * l + 2 * i + 1] as u64) << 32);
        for l in 0..32 {
            for i in 0..2 {
                let (row, col) = f64_c_at(l, i);
                if got(l, i).to_bits() != want[row][col].to_bits() {
                    failures.push(format!(
                        "{} {name}: D[{row}][{col}] = {:e}, reference {:e}",
                        arch.name(),
                        got(l, i),
                        want[row][col]
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn sm80_mma_f64_agrees_five_ways_and_matches_the_host_reference() {
    f64_kernels_on(Arch::Sm80);
}

#[test]
fn sm86_mma_f64_agrees_five_ways_and_matches_the_host_reference() {
    f64_kernels_on(Arch::Sm86);
}

#[test]
fn sm89_mma_f64_agrees_five_ways_and_matches_the_host_reference() {
    f64_kernels_on(Arch::Sm89);
}

#[test]
fn sm90_mma_f64_agrees_five_ways_and_matches_the_host_reference() {
    f64_kernels_on(Arch::Sm90);
}

/// `mma.m8n8k4` of f64 needs sm_80: an sm_75 module is refused at the instruction.
#[test]
fn mma_f64_is_refused_before_sm80_with_its_location() {
    let src = std::fs::read_to_string(ptx_path(F64))
        .unwrap()
        .replace(".target sm_80", ".target sm_75");
    let err = ptxc::pipeline::compile_ptx(&src, F64, &Default::default())
        .expect_err("refused")
        .0;
    assert!(
        err.contains("m8n8k4") && err.contains("sm_80") && err.contains(":45:"),
        "{err}"
    );
}
