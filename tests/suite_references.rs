//! Host references for the benchmark-suite kernels that `tests/sim_kernels.rs` does not
//! cover with a reference of their own (saxpy, transpose, histogram, bitonic sort, DGEMM,
//! Black-Scholes, row softmax, the two tensor-core GEMMs). Each runs with its benchmark launch spec
//! (`benches/suite/<name>.toml`, pseudo-random buffers) from ptxc's cubin and from ptxas's on
//! the functional simulator, and both results must equal a Rust reference computed from the
//! same initial buffers: bit for bit where the kernel's arithmetic is exact or a fixed
//! sequence of correctly rounded operations, within stated bounds where it calls the
//! approximate `expf`/`logf` sequences.

mod common;

use common::elem::*;
use common::*;
use ptxc::launch::{LaunchSpec, ParamSpec};
use ptxc::npy::Array;
use ptxc::pipeline::{CompileOptions, compile_ptx};
use ptxc::run::{RunOptions, run};
use ptxc_sass::isa::Arch;
use ptxc_sim::Engine;
use std::collections::BTreeMap;

/// Initial and final buffers of one run.
struct Runs {
    spec: LaunchSpec,
    inputs: BTreeMap<String, Array>,
    /// Final buffers by compiler and target (`ptxc sm_75`, `ptxas sm_86`, ...).
    outputs: Vec<(String, BTreeMap<String, Array>)>,
}

impl Runs {
    fn input<T: Elem>(&self, name: &str) -> Vec<T> {
        values(&self.inputs[name])
    }

    /// The `i`-th parameter as an i32 or f32.
    fn scalar(&self, i: usize) -> [u8; 4] {
        match &self.spec.params[i] {
            ParamSpec::Scalar { bytes, .. } => bytes[..4].try_into().unwrap(),
            other => panic!("parameter {i} is {other:?}"),
        }
    }

    /// Calls `check` with each compiler's final buffers.
    fn each(&self, check: impl Fn(&str, &BTreeMap<String, Array>)) {
        for (who, out) in &self.outputs {
            check(who, out);
        }
    }
}

/// The targets every suite kernel is compiled for (each runs on its default device model).
const TARGETS: [Arch; 5] = [Arch::Sm75, Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90];

/// Compiles `name` with ptxc and ptxas for every target and runs each cubin with the suite's
/// launch spec.
fn run_suite_kernel(name: &str) -> Runs {
    run_suite_kernel_on(name, "kernels", &TARGETS)
}

/// As [`run_suite_kernel`], for the PTX in `tests/<dir>` and the targets `targets`.
fn run_suite_kernel_on(name: &str, dir: &str, targets: &[Arch]) -> Runs {
    let spec = ptxc::launch::load(&root().join(format!("benches/suite/{name}.toml"))).unwrap();
    let ptx = root().join(format!("tests/{dir}/{name}.ptx"));
    let src = std::fs::read_to_string(&ptx).unwrap();
    let dir = scratch(&format!("suite_ref_{name}"));
    let mut cubins = Vec::new();
    for &arch in targets {
        let opts = CompileOptions {
            arch,
            ..CompileOptions::default()
        };
        let ours = compile_ptx(&src, name, &opts).unwrap_or_else(|e| panic!("{e}"));
        let theirs_path = dir.join(format!("{name}.{}.cubin", arch.name()));
        ptxas_for(arch.name(), &ptx, &theirs_path);
        let theirs = std::fs::read(&theirs_path).unwrap();
        cubins.push((format!("ptxc {}", arch.name()), ours));
        cubins.push((format!("ptxas {}", arch.name()), theirs));
    }
    let inputs = spec
        .buffers
        .iter()
        .map(|(k, init)| (k.clone(), init.materialize().unwrap()))
        .collect();
    let opts = RunOptions {
        engine: Engine::Functional,
        ..RunOptions::default()
    };
    let outputs = cubins
        .into_iter()
        .map(|(who, cubin)| {
            let out = run(&cubin, &spec, &opts).unwrap_or_else(|e| panic!("{name} ({who}): {e}"));
            assert_eq!(out.stats.stray_accesses, 0, "{name} ({who})");
            (who, out.buffers)
        })
        .collect();
    Runs { spec, inputs, outputs }
}

fn check_bits<T: PartialEq + std::fmt::Debug>(what: &str, got: &[T], want: &[T]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        panic!("{what}[{i}]: got {:?}, want {:?}", got[i], want[i]);
    }
}

/// `|got - want| <= bound(i)` for every element.
fn check_within(what: &str, got: &[f32], want: &[f64], bound: impl Fn(usize) -> f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for i in 0..got.len() {
        let err = (got[i] as f64 - want[i]).abs();
        assert!(
            err <= bound(i),
            "{what}[{i}]: got {:e}, want {:e} (error {err:e} > {:e})",
            got[i],
            want[i],
            bound(i)
        );
    }
}

#[test]
fn saxpy_f32() {
    let r = run_suite_kernel("saxpy_f32");
    let a = f32::from_le_bytes(r.scalar(1));
    let (x, y) = (r.input::<f32>("x"), r.input::<f32>("y"));
    // nvcc contracts `a * x[i] + y[i]` into one fma.rn.f32.
    let want: Vec<u32> = x.iter().zip(&y).map(|(x, y)| a.mul_add(*x, *y).to_bits()).collect();
    r.each(|who, out| {
        let got = values::<u32>(&out["y"]);
        check_bits(&format!("saxpy ({who}) y"), &got, &want);
    });
}

#[test]
fn transpose_tiled() {
    let r = run_suite_kernel("transpose_tiled");
    let rows = i32::from_le_bytes(r.scalar(2)) as usize;
    let cols = i32::from_le_bytes(r.scalar(3)) as usize;
    let input = r.input::<u32>("in");
    let mut want = vec![0u32; rows * cols];
    for y in 0..rows {
        for x in 0..cols {
            want[x * rows + y] = input[y * cols + x];
        }
    }
    r.each(|who, out| check_bits(&format!("transpose ({who}) out"), &values::<u32>(&out["out"]), &want));
}

#[test]
fn histogram_atomic() {
    let r = run_suite_kernel("histogram_atomic");
    let n = i32::from_le_bytes(r.scalar(1)) as usize;
    let data = &r.inputs["data"].bytes;
    let mut want = vec![0u32; 64];
    for &byte in &data[..n] {
        want[(byte & 63) as usize] += 1;
    }
    assert_eq!(want.iter().sum::<u32>() as usize, n);
    r.each(|who, out| check_bits(&format!("histogram ({who}) hist"), &values::<u32>(&out["hist"]), &want));
}

#[test]
fn bitonic_sort() {
    let r = run_suite_kernel("bitonic_sort");
    let mut want = r.input::<u32>("keys");
    for block in want.chunks_mut(256) {
        block.sort_unstable();
    }
    r.each(|who, out| {
        check_bits(
            &format!("bitonic sort ({who}) keys"),
            &values::<u32>(&out["keys"]),
            &want,
        )
    });
}

#[test]
fn dgemm_small() {
    let r = run_suite_kernel("dgemm_small");
    let n = i32::from_le_bytes(r.scalar(3)) as usize;
    let (a, b) = (r.input::<f64>("a"), r.input::<f64>("b"));
    // `acc += sa[k] * sb[k]` is one fma.rn.f64 per k, in order.
    let mut want = vec![0u64; n * n];
    for row in 0..n {
        for col in 0..n {
            let acc = (0..n).fold(0.0f64, |acc, k| a[row * n + k].mul_add(b[k * n + col], acc));
            want[row * n + col] = acc.to_bits();
        }
    }
    r.each(|who, out| {
        let got = values::<u64>(&out["c"]);
        check_bits(&format!("dgemm ({who}) c"), &got, &want);
    });
}

/// The cumulative normal distribution by the kernel's Abramowitz-Stegun polynomial, in f64.
fn cnd(d: f64) -> f64 {
    let (a1, a2, a3, a4, a5) = (0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429);
    let k = 1.0 / (1.0 + 0.2316419 * d.abs());
    let poly = k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5))));
    let c = 0.398_942_280_401_432_7 * (-0.5 * d * d).exp() * poly;
    if d > 0.0 { 1.0 - c } else { c }
}

#[test]
fn black_scholes() {
    let r = run_suite_kernel("black_scholes");
    let rate = f32::from_le_bytes(r.scalar(5)) as f64;
    let vol = f32::from_le_bytes(r.scalar(6)) as f64;
    let (s, x, t) = (r.input::<f32>("s"), r.input::<f32>("x"), r.input::<f32>("t"));
    let (mut call, mut put) = (Vec::new(), Vec::new());
    for i in 0..s.len() {
        let (s, x, t) = (s[i] as f64, x[i] as f64, t[i] as f64);
        let sqt = t.sqrt();
        let d1 = ((s / x).ln() + (rate + 0.5 * vol * vol) * t) / (vol * sqt);
        let d2 = d1 - vol * sqt;
        let e = (-rate * t).exp();
        call.push(s * cnd(d1) - x * e * cnd(d2));
        put.push(x * e * (1.0 - cnd(d2)) - s * (1.0 - cnd(d1)));
    }
    // The f32 kernel rounds every step and its expf/logf are within a few ulp; prices are
    // differences of terms up to s + x, so the bound scales with them (the largest error of
    // either compiler's code is 1.8e-7 of s + x, ten times below the bound).
    let bound = |i: usize| 2e-6 * (s[i] + x[i]) as f64;
    r.each(|who, out| {
        check_within(
            &format!("black-scholes ({who}) call"),
            &values::<f32>(&out["call"]),
            &call,
            bound,
        );
        check_within(
            &format!("black-scholes ({who}) put"),
            &values::<f32>(&out["put"]),
            &put,
            bound,
        );
    });
}

#[test]
fn softmax_rows() {
    let r = run_suite_kernel("softmax_rows");
    let cols = i32::from_le_bytes(r.scalar(2)) as usize;
    let input = r.input::<f32>("in");
    let mut want = Vec::with_capacity(input.len());
    for row in input.chunks(cols) {
        let m = row.iter().fold(f32::NEG_INFINITY, |m, &v| m.max(v)) as f64;
        let sum: f64 = row.iter().map(|&v| (v as f64 - m).exp()).sum();
        want.extend(row.iter().map(|&v| (v as f64 - m).exp() / sum));
    }
    // expf is within 2 ulp and the 512-term f32 sum is taken in tree order: the largest
    // relative error of either compiler's code is 6.1e-7, sixteen times below the bound.
    let bound = |i: usize| 1e-5 * want[i] + 1e-12;
    r.each(|who, out| {
        check_within(
            &format!("softmax ({who}) out"),
            &values::<f32>(&out["out"]),
            &want,
            bound,
        )
    });
}

/// A tensor-core GEMM (`tests/tensor/<name>.ptx`, sm_75: Turing's tensor-core forms): f16 A
/// and B, f32 C. Every output lies within the tensor-core model's bound of the exact product
/// (`tests/sim_tensor.rs`: `k / 4 * 7 * 2^-23 * sum |a b|`, blocks of four products with
/// truncating alignment and sums rounded toward zero), and ptxc's and ptxas's cubins agree
/// bit for bit (both issue the same HMMA.1688 chain per accumulator).
fn tensor_gemm(name: &str) {
    let r = run_suite_kernel_on(name, "tensor", &[Arch::Sm75]);
    let n = i32::from_le_bytes(r.scalar(3)) as usize;
    let f16 = |v: Vec<u16>| -> Vec<f64> { v.into_iter().map(|h| half::f16::from_bits(h).to_f64()).collect() };
    let (a, b) = (f16(r.input::<u16>("a")), f16(r.input::<u16>("b")));
    let mut want = vec![0.0f64; n * n];
    let mut mag = vec![0.0f64; n * n];
    for row in 0..n {
        for k in 0..n {
            let x = a[row * n + k];
            for col in 0..n {
                want[row * n + col] += x * b[k * n + col];
                mag[row * n + col] += (x * b[k * n + col]).abs();
            }
        }
    }
    let unit = n.div_ceil(4) as f64 * 7.0 * 2f64.powi(-23);
    let mut runs = r.outputs.iter().map(|(who, out)| (who, values::<u32>(&out["c"])));
    let (first_who, first) = runs.next().unwrap();
    for (who, got) in std::iter::once((first_who, first.clone())).chain(runs) {
        let floats: Vec<f32> = got.iter().map(|&x| f32::from_bits(x)).collect();
        check_within(&format!("{name} ({who}) c"), &floats, &want, |i| unit * mag[i]);
        check_bits(&format!("{name} ({who}) against {first_who}"), &got, &first);
    }
}

#[test]
fn wmma_gemm() {
    tensor_gemm("wmma_gemm");
}

#[test]
fn mma_gemm() {
    tensor_gemm("mma_gemm");
}
