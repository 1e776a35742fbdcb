//! The kernel-set kernels of the float back end (division, square roots, conversions,
//! transcendentals, f16x2, integer division, daxpy, n-body, Mandelbrot) on generated inputs
//! with edge values:
//! - their MIR, before and after the back end's legalization, runs on the MIR interpreter
//!   and reproduces a host reference (exact where the operations are, within the error
//!   bounds of the approximations otherwise; conversions and f16x2 are checked against the
//!   interpreter on the original MIR, which is the MIR's definition);
//! - ptxc's cubins (compiled without contraction, as the references are) reproduce the same
//!   results on the simulator for the kernels whose instructions it simulates
//!   ([`ON_SIMULATOR`]);
//! - `ptxc disasm` of the cubins prints nvdisasm's text for every instruction.

mod common;

use common::*;
use ptxc::launch::{BufferInit, LaunchSpec, ParamSpec, Scalar};
use ptxc::npy::Array;
use ptxc::pipeline::{CompileOptions, compile_ptx, lower_ptx};
use ptxc::run::{RunOptions, run, run_mir};
use std::collections::BTreeMap;
use std::path::Path;

/// The kernels of this test.
const KERNELS: &[&str] = &[
    "half2_math",
    "div_sqrt_f32",
    "div_sqrt_f64",
    "conversions",
    "transcendental",
    "int_divmod",
    "daxpy_f64",
    "nbody_f32",
    "mandelbrot",
];

/// The kernels the back end compiles (all of them).
const COMPILED: &[&str] = &[
    "half2_math",
    "transcendental",
    "div_sqrt_f32",
    "div_sqrt_f64",
    "conversions",
    "int_divmod",
    "daxpy_f64",
    "nbody_f32",
    "mandelbrot",
];

/// Compiled kernels run on the simulator: all but `conversions`, whose `__double2uint_rz` of
/// a NaN is 0x80000000 on the simulator (F2I.U32.F64 without `.NTZ`, as the PTX ISA
/// specifies: NaN gives `1 << (w - 1)` for f64 sources) and 0 on the MIR interpreter.
const ON_SIMULATOR: &[&str] = &[
    "half2_math",
    "transcendental",
    "div_sqrt_f32",
    "div_sqrt_f64",
    "int_divmod",
    "daxpy_f64",
    "nbody_f32",
    "mandelbrot",
];

/// Threads per CTA and elements per kernel.
const BLOCK: u32 = 128;
const N: usize = 1024;

fn kernel_ptx(name: &str) -> String {
    std::fs::read_to_string(root().join("tests/kernels").join(format!("{name}.ptx"))).unwrap()
}

/// A xorshift generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A float of moderate magnitude (2^-20..2^20), either sign.
    fn f32(&mut self) -> f32 {
        let x = self.next();
        f32::from_bits(((x & 0x807f_ffff) | ((107 + (x >> 40) % 40) << 23)) as u32)
    }
    fn f64(&mut self) -> f64 {
        let x = self.next();
        f64::from_bits((x & 0x800f_ffff_ffff_ffff) | ((1023 - 300 + (x >> 12) % 600) << 52))
    }
}

/// f32 edge values, then random ones, `N` in all.
fn f32_inputs(seed: u64) -> Vec<f32> {
    let mut v = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MIN_POSITIVE,
        1e-40,
        -3e-39,
        f32::MAX,
        -f32::MAX,
        0.5,
        2.5,
        -2.5,
        3.5,
        1e30,
        -7.75,
        8.5e37,
        1e-37,
    ];
    let mut r = Rng(seed);
    while v.len() < N {
        v.push(r.f32());
    }
    v
}

fn f64_inputs(seed: u64) -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MIN_POSITIVE,
        4e-320,
        -1e-310,
        f64::MAX,
        -f64::MAX,
        0.5,
        2.5,
        -2.5,
        1e300,
        1e-300,
        3.0,
    ];
    let mut r = Rng(seed);
    while v.len() < N {
        v.push(r.f64());
    }
    v
}

/// A buffer of a launch.
enum Buf {
    In(Scalar, Vec<u8>),
    Out(Scalar, usize),
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn f64_bytes(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn i32_bytes(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn i64_bytes(v: &[i64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A kernel parameter: a buffer (passed as its address) or a scalar.
enum P {
    B(&'static str, Buf),
    S(Scalar, Vec<u8>),
}

/// A launch: the parameters in order and the grid.
struct Launch {
    kernel: &'static str,
    params: Vec<P>,
    grid: [u32; 3],
    block: [u32; 3],
}

impl Launch {
    fn spec(&self, dir: &Path) -> LaunchSpec {
        let mut buffers = BTreeMap::new();
        let mut params = Vec::new();
        for p in &self.params {
            match p {
                P::B(name, b) => {
                    let init = match b {
                        Buf::In(dtype, bytes) => {
                            let path = dir.join(format!("{}_{name}.npy", self.kernel));
                            let a = Array::new(*dtype, bytes.clone());
                            ptxc::npy::write(&path, &a).unwrap();
                            BufferInit::File(path)
                        }
                        Buf::Out(dtype, len) => BufferInit::Zero {
                            dtype: *dtype,
                            len: *len,
                        },
                    };
                    buffers.insert(name.to_string(), init);
                    params.push(ParamSpec::Ptr {
                        buffer: name.to_string(),
                        offset: 0,
                    });
                }
                P::S(kind, bytes) => params.push(ParamSpec::Scalar {
                    kind: *kind,
                    bytes: bytes.clone(),
                }),
            }
        }
        LaunchSpec {
            kernel: self.kernel.to_string(),
            grid: self.grid,
            block: self.block,
            dynamic_shared_bytes: 0,
            cluster: None,
            params,
            buffers,
            symbols: Default::default(),
            limits: Default::default(),
        }
    }
}

/// A 1-D launch over `N` elements: the buffers, then the element count.
fn linear(kernel: &'static str, bufs: Vec<(&'static str, Buf)>) -> Launch {
    let mut params: Vec<P> = bufs.into_iter().map(|(n, b)| P::B(n, b)).collect();
    params.push(P::S(Scalar::I32, (N as i32).to_le_bytes().to_vec()));
    Launch {
        kernel,
        params,
        grid: [N as u32 / BLOCK, 1, 1],
        block: [BLOCK, 1, 1],
    }
}

/// Output buffers of a run.
type Outputs = BTreeMap<String, Array>;

/// The kernel's outputs from the MIR interpreter, with or without legalization.
fn on_interpreter(name: &str, launch: &Launch, dir: &Path, legalized: bool) -> Outputs {
    let mut m = lower_ptx(&kernel_ptx(name), name).unwrap_or_else(|e| panic!("{}", e.0));
    if legalized {
        for f in &mut m.functions {
            let opts = ptxc_backend::legalize::LegalizeOptions { fmad: false };
            ptxc_backend::legalize::legalize(f, &opts);
            ptxc_mir::ir::verify(f).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
    run_mir(&m, &launch.spec(dir), Default::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .buffers
}

/// ptxc's cubin (no contraction).
fn cubin(name: &str) -> Vec<u8> {
    let opts = CompileOptions {
        fmad: false,
        ..CompileOptions::default()
    };
    compile_ptx(&kernel_ptx(name), name, &opts).unwrap_or_else(|e| panic!("{}", e.0))
}

/// The kernel's outputs from ptxc's cubin on the simulator (no hazards allowed).
fn on_simulator(name: &str, launch: &Launch, dir: &Path) -> Outputs {
    let out = run(&cubin(name), &launch.spec(dir), &RunOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(out.stats.hazards, 0, "{name}: {:?}", out.stats.hazard_reports.first());
    out.buffers
}

fn f32s(a: &Array) -> Vec<f32> {
    a.bytes
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}
fn f64s(a: &Array) -> Vec<f64> {
    a.bytes
        .chunks(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// How an output element is compared with the reference.
#[derive(Clone, Copy)]
enum Tol {
    /// Bit for bit (any NaN equals any NaN).
    Exact,
    /// Relative error at most this (or both non-finite and equal, or both NaN).
    Rel(f64),
    /// Error at most `r * max(|want|, floor)`: relative, absolute near zero.
    RelAbs(f64, f64),
}

fn close(got: f64, want: f64, tol: Tol) -> bool {
    if got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()) {
        return true;
    }
    match tol {
        Tol::Exact => false,
        // Approximations are specified on finite results only.
        Tol::Rel(r) => !want.is_finite() || (got - want).abs() <= r * want.abs().max(f64::MIN_POSITIVE),
        Tol::RelAbs(r, floor) => !want.is_finite() || (got - want).abs() <= r * want.abs().max(floor),
    }
}

/// Checks `got` against `want` element by element with the tolerance of each position
/// (`tols[i % tols.len()]`).
fn check(what: &str, got: &[f64], want: &[f64], tols: &[Tol]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let bad: Vec<String> = (0..got.len())
        .filter(|&i| !close(got[i], want[i], tols[i % tols.len()]))
        .take(6)
        .map(|i| {
            format!(
                "[{i}] got {:e} ({:#x}) want {:e} ({:#x})",
                got[i],
                got[i].to_bits(),
                want[i],
                want[i].to_bits()
            )
        })
        .collect();
    assert!(bad.is_empty(), "{what}:\n{}", bad.join("\n"));
}

/// A kernel's launch and host reference: (buffer, reference values, tolerances) per output;
/// `None` compares with the interpreter on the original MIR.
type Reference = Vec<(&'static str, Option<Vec<f64>>, Vec<Tol>)>;

fn div_sqrt_f32() -> (Launch, Reference) {
    let (x, mut y) = (f32_inputs(1), f32_inputs(2));
    y.rotate_left(7);
    let mut want = Vec::new();
    for (&a, &b) in x.iter().zip(&y) {
        want.push((a / b) as f64);
        want.push(a.sqrt() as f64);
        want.push((1.0 / b.sqrt() + 1.0 / a) as f64);
        want.push((a / b + b.sqrt() + 1.0 / a) as f64);
    }
    let launch = linear(
        "div_sqrt_f32",
        vec![
            ("x", Buf::In(Scalar::F32, f32_bytes(&x))),
            ("y", Buf::In(Scalar::F32, f32_bytes(&y))),
            ("out", Buf::Out(Scalar::F32, 4 * N)),
        ],
    );
    let approx = Tol::Rel(1e-5);
    (
        launch,
        vec![("out", Some(want), vec![Tol::Exact, Tol::Exact, approx, approx])],
    )
}

fn div_sqrt_f64() -> (Launch, Reference) {
    let (x, mut y) = (f64_inputs(3), f64_inputs(4));
    y.rotate_left(5);
    let mut want = Vec::new();
    for (&a, &b) in x.iter().zip(&y) {
        want.push(a / b);
        want.push(a.sqrt());
        want.push(1.0 / b + 1.0 / a.sqrt());
    }
    let launch = linear(
        "div_sqrt_f64",
        vec![
            ("x", Buf::In(Scalar::F64, f64_bytes(&x))),
            ("y", Buf::In(Scalar::F64, f64_bytes(&y))),
            ("out", Buf::Out(Scalar::F64, 3 * N)),
        ],
    );
    (
        launch,
        vec![("out", Some(want), vec![Tol::Exact, Tol::Exact, Tol::Rel(1e-14)])],
    )
}

fn int_divmod() -> (Launch, Reference) {
    let mut r = Rng(5);
    let edges = [0, 1, -1, 7, -7, i32::MIN, i32::MAX, 1000, 3, -2];
    let a: Vec<i32> = (0..N).map(|i| *edges.get(i).unwrap_or(&(r.next() as i32))).collect();
    let b: Vec<i32> = (0..N)
        .map(|i| {
            let v = *edges.get(N - 1 - i).unwrap_or(&((r.next() as i32) >> (r.next() % 31)));
            if v == 0 { 3 } else { v }
        })
        .collect();
    let c: Vec<i64> = (0..N)
        .map(|i| {
            if i < 4 {
                [i64::MIN, -1, 0, i64::MAX][i]
            } else {
                r.next() as i64
            }
        })
        .collect();
    let (mut q32, mut q64) = (Vec::new(), Vec::new());
    for i in 0..N {
        let (x, y, z) = (a[i], b[i], c[i]);
        let (ux, uy) = (x as u32, y as u32 | 1);
        q32.push(x.wrapping_div(y) as f64);
        q32.push(x.wrapping_rem(y) as f64);
        q32.push((ux / uy) as i32 as f64);
        q32.push((ux % uy) as i32 as f64);
        q32.push((x / 7).wrapping_add(x % 10) as f64);
        q32.push(((ux / 1000) as i32).wrapping_add((ux % 3) as i32) as f64);
        q64.push(f64::from_bits(z.wrapping_div((y | 1) as i64) as u64));
        q64.push(f64::from_bits((z as u64) % (uy as u64)));
        q64.push(f64::from_bits((z / 12345) as u64));
    }
    let launch = linear(
        "int_divmod",
        vec![
            ("a", Buf::In(Scalar::I32, i32_bytes(&a))),
            ("b", Buf::In(Scalar::I32, i32_bytes(&b))),
            ("c", Buf::In(Scalar::I64, i64_bytes(&c))),
            ("q32", Buf::Out(Scalar::I32, 6 * N)),
            ("q64", Buf::Out(Scalar::I64, 3 * N)),
        ],
    );
    (
        launch,
        vec![
            ("q32", Some(q32), vec![Tol::Exact]),
            ("q64", Some(q64), vec![Tol::Exact]),
        ],
    )
}

fn daxpy_f64() -> (Launch, Reference) {
    let (x, y) = (f64_inputs(6), f64_inputs(7));
    let a = 1.5f64;
    let want: Vec<f64> = x.iter().zip(&y).map(|(&x, &y)| a.mul_add(x, y)).collect();
    let launch = Launch {
        kernel: "daxpy_f64",
        params: vec![
            P::S(Scalar::F64, a.to_le_bytes().to_vec()),
            P::B("x", Buf::In(Scalar::F64, f64_bytes(&x))),
            P::B("y", Buf::In(Scalar::F64, f64_bytes(&y))),
            P::S(Scalar::I64, (N as i64).to_le_bytes().to_vec()),
        ],
        grid: [N as u32 / BLOCK, 1, 1],
        block: [BLOCK, 1, 1],
    };
    (launch, vec![("y", Some(want), vec![Tol::Exact])])
}

fn mandelbrot() -> (Launch, Reference) {
    let (w, h, max_iter) = (64usize, 16usize, 200);
    let (x0, y0, step) = (-2.0f32, -1.0f32, 2.5f32 / 64.0);
    let mut want = Vec::new();
    for py in 0..h {
        for px in 0..w {
            // As nvcc wrote the PTX: fused products where it contracted them.
            let (cr, ci) = ((px as f32).mul_add(step, x0), (py as f32).mul_add(step, y0));
            let (mut zr, mut zi, mut k) = (0f32, 0f32, 0);
            while k < max_iter {
                let (zr2, zi2) = (zr * zr, zi * zi);
                if zr2 + zi2 > 4.0 {
                    break;
                }
                zi = (zr + zr).mul_add(zi, ci);
                zr = cr + (zr2 - zi2);
                k += 1;
            }
            want.push(k as f64);
        }
    }
    let i = |v: i32| v.to_le_bytes().to_vec();
    let f = |v: f32| v.to_le_bytes().to_vec();
    let launch = Launch {
        kernel: "mandelbrot",
        params: vec![
            P::B("iters", Buf::Out(Scalar::U16, w * h)),
            P::S(Scalar::I32, i(w as i32)),
            P::S(Scalar::I32, i(h as i32)),
            P::S(Scalar::F32, f(x0)),
            P::S(Scalar::F32, f(y0)),
            P::S(Scalar::F32, f(step)),
            P::S(Scalar::I32, i(max_iter)),
        ],
        grid: [w as u32 / 32, h as u32 / 4, 1],
        block: [32, 4, 1],
    };
    (launch, vec![("iters", Some(want), vec![Tol::Exact])])
}

fn nbody_f32() -> (Launch, Reference) {
    let n = 256usize;
    let mut r = Rng(8);
    let pos: Vec<f32> = (0..4 * n)
        .map(|i| {
            if i % 4 == 3 {
                1.0 + (r.next() % 100) as f32 / 50.0
            } else {
                r.f32().rem_euclid(8.0)
            }
        })
        .collect();
    let eps2 = 0.01f32;
    let mut want = Vec::new();
    for i in 0..n {
        let p = &pos[4 * i..4 * i + 4];
        let mut a = [0f64; 3];
        for j in 0..n {
            let q = &pos[4 * j..4 * j + 4];
            let d = [(q[0] - p[0]) as f64, (q[1] - p[1]) as f64, (q[2] - p[2]) as f64];
            let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2 as f64;
            let inv = 1.0 / r2.sqrt();
            let s = q[3] as f64 * inv * inv * inv;
            for k in 0..3 {
                a[k] += d[k] * s;
            }
        }
        want.extend([a[0], a[1], a[2], 0.0]);
    }
    let launch = Launch {
        kernel: "nbody_f32",
        params: vec![
            P::B("pos", Buf::In(Scalar::F32, f32_bytes(&pos))),
            P::B("acc", Buf::Out(Scalar::F32, 4 * n)),
            P::S(Scalar::I32, (n as i32).to_le_bytes().to_vec()),
            P::S(Scalar::F32, eps2.to_le_bytes().to_vec()),
        ],
        grid: [n as u32 / 128, 1, 1],
        block: [128, 1, 1],
    };
    (launch, vec![("acc", Some(want), vec![Tol::Rel(1e-3)])])
}

fn transcendental() -> (Launch, Reference) {
    let mut r = Rng(9);
    let x: Vec<f32> = (0..N).map(|_| 0.05 + (r.next() % 10_000) as f32 / 1000.0).collect();
    let d: Vec<f64> = (0..N).map(|_| 0.01 + (r.next() % 100_000) as f64 / 1000.0).collect();
    let (mut fast, mut precise) = (Vec::new(), Vec::new());
    for &v in &x {
        let v64 = v as f64;
        fast.extend([
            v64.exp() + v64.ln(),
            v64.sin() * v64.cos(),
            v64.powf(1.5) + v64.tan() + v64.exp2() + v64.log2(),
        ]);
        precise.extend([v64.exp() + v64.ln(), v64.sin() * v64.cos(), v64.powf(2.5) + v64.tanh()]);
    }
    let dp: Vec<f64> = d.iter().map(|v| v.exp() + v.ln()).collect();
    let launch = linear(
        "transcendental",
        vec![
            ("x", Buf::In(Scalar::F32, f32_bytes(&x))),
            ("d", Buf::In(Scalar::F64, f64_bytes(&d))),
            ("fast", Buf::Out(Scalar::F32, 3 * N)),
            ("precise", Buf::Out(Scalar::F32, 3 * N)),
            ("dp", Buf::Out(Scalar::F64, N)),
        ],
    );
    // The fast functions' absolute errors make the relative error of sin*cos and tan large
    // near their zeros: those are checked against the interpreter (its MUFU is exact), within
    // 1e-3 relative and 5e-5 absolute near zero: MUFU.SIN/COS take the argument in
    // revolutions, rounded by the multiplication by 1/(2π) before them, and `__tanf` divides
    // by a cosine that may be small.
    (
        launch,
        vec![
            ("fast", None, vec![Tol::RelAbs(1e-3, 0.05)]),
            ("precise", Some(precise), vec![Tol::RelAbs(1e-5, 1.0)]),
            ("dp", Some(dp), vec![Tol::Rel(1e-14)]),
        ],
    )
}

fn conversions() -> (Launch, Reference) {
    let f = f32_inputs(10);
    let d = f64_inputs(11);
    let mut r = Rng(12);
    let l: Vec<i64> = (0..N)
        .map(|i| {
            if i < 4 {
                [i64::MIN, -1, 0, i64::MAX][i]
            } else {
                (r.next() as i64) >> (r.next() % 60)
            }
        })
        .collect();
    let launch = linear(
        "conversions",
        vec![
            ("f", Buf::In(Scalar::F32, f32_bytes(&f))),
            ("d", Buf::In(Scalar::F64, f64_bytes(&d))),
            ("l", Buf::In(Scalar::I64, i64_bytes(&l))),
            ("oi", Buf::Out(Scalar::I32, 8 * N)),
            ("of", Buf::Out(Scalar::F32, 4 * N)),
            ("od", Buf::Out(Scalar::F64, 3 * N)),
            ("ol", Buf::Out(Scalar::I64, 3 * N)),
        ],
    );
    (
        launch,
        vec![
            ("oi", None, vec![Tol::Exact]),
            ("of", None, vec![Tol::Exact]),
            ("od", None, vec![Tol::Exact]),
            ("ol", None, vec![Tol::Exact]),
        ],
    )
}

fn half2_math() -> (Launch, Reference) {
    let mut r = Rng(13);
    let half = |r: &mut Rng| {
        let edges = [
            0x0000u32, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7e00, 0x0001, 0x7bff, 0x3555,
        ];
        let x = r.next();
        if x.is_multiple_of(4) {
            edges[(x >> 8) as usize % edges.len()]
        } else {
            (x as u32 & 0xbfff) % 0x7c00
        }
    };
    let a: Vec<i32> = (0..N).map(|_| (half(&mut r) | half(&mut r) << 16) as i32).collect();
    let b: Vec<i32> = (0..N).map(|_| (half(&mut r) | half(&mut r) << 16) as i32).collect();
    let fl = f32_inputs(14);
    let launch = linear(
        "half2_math",
        vec![
            ("a", Buf::In(Scalar::U32, i32_bytes(&a))),
            ("b", Buf::In(Scalar::U32, i32_bytes(&b))),
            ("f", Buf::In(Scalar::F32, f32_bytes(&fl))),
            ("out", Buf::Out(Scalar::U32, 3 * N)),
            ("fo", Buf::Out(Scalar::F32, 2 * N)),
        ],
    );
    (
        launch,
        vec![("out", None, vec![Tol::Exact]), ("fo", None, vec![Tol::Exact])],
    )
}

fn setup(name: &str) -> (Launch, Reference) {
    match name {
        "div_sqrt_f32" => div_sqrt_f32(),
        "div_sqrt_f64" => div_sqrt_f64(),
        "int_divmod" => int_divmod(),
        "daxpy_f64" => daxpy_f64(),
        "mandelbrot" => mandelbrot(),
        "nbody_f32" => nbody_f32(),
        "transcendental" => transcendental(),
        "conversions" => conversions(),
        "half2_math" => half2_math(),
        other => panic!("no setup for {other}"),
    }
}

/// An output buffer as f64 values (integers and f32 widened exactly, i64/u64 as bits).
fn values(a: &Array) -> Vec<f64> {
    match a.dtype {
        Scalar::F32 => f32s(a).into_iter().map(f64::from).collect(),
        Scalar::F64 | Scalar::I64 | Scalar::U64 => f64s(a),
        Scalar::I32 | Scalar::U32 => a
            .bytes
            .chunks(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()) as f64)
            .collect(),
        Scalar::U16 => a
            .bytes
            .chunks(2)
            .map(|c| u16::from_le_bytes(c.try_into().unwrap()) as f64)
            .collect(),
        other => panic!("no reader for {other:?}"),
    }
}

/// Compares the outputs of one engine with the reference of `name`.
fn compare(name: &str, engine: &str, got: &Outputs, original: &Outputs, reference: &Reference) {
    for (buf, want, tols) in reference {
        let g = values(&got[*buf]);
        let (w, tols) = match want {
            Some(w) => (w.clone(), tols.clone()),
            None => (values(&original[*buf]), tols.clone()),
        };
        check(&format!("{name} ({engine}) `{buf}`"), &g, &w, &tols);
    }
}

#[test]
fn kernels_reproduce_host_references_on_the_interpreter() {
    let dir = scratch("float_kernels_mir");
    for &name in KERNELS {
        let (launch, reference) = setup(name);
        let original = on_interpreter(name, &launch, &dir, false);
        compare(name, "MIR", &original, &original, &reference);
        let legal = on_interpreter(name, &launch, &dir, true);
        compare(name, "legalized MIR", &legal, &original, &reference);
    }
}

#[test]
fn kernels_reproduce_host_references_on_the_simulator() {
    let dir = scratch("float_kernels_sim");
    for &name in ON_SIMULATOR {
        let (launch, reference) = setup(name);
        let original = on_interpreter(name, &launch, &dir, false);
        let got = on_simulator(name, &launch, &dir);
        compare(name, "simulator", &got, &original, &reference);
    }
}

#[test]
fn disasm_matches_nvdisasm_on_the_kernels() {
    let dir = scratch("float_kernels_disasm");
    for &name in COMPILED {
        let path = dir.join(format!("{name}.cubin"));
        std::fs::write(&path, cubin(name)).unwrap();
        let c = path.to_str().unwrap();
        let want = listing(&text(&oracle("nvdisasm", &["-c", c]).stdout));
        let o = ptxc(&["disasm", c]);
        assert!(o.status.success(), "ptxc disasm {name}: {}", text(&o.stderr));
        let got = listing(&text(&o.stdout));
        assert!(!want.is_empty(), "{name}: nvdisasm printed nothing");
        let diff: Vec<String> = want
            .iter()
            .filter(|(a, t)| got.get(a) != Some(t))
            .take(5)
            .map(|(a, t)| {
                format!(
                    "{a:#06x}: nvdisasm `{t}`, ptxc `{}`",
                    got.get(a).map_or("-", |s| s.as_str())
                )
            })
            .collect();
        assert!(diff.is_empty(), "{name}:\n{}", diff.join("\n"));
    }
}
