//! Tensor cores on the simulator: the tensor-core kernels (`tests/tensor`: CUDA C WMMA tiles
//! of every shape and type, inline-PTX `mma.sync` of every shape and type, `ldmatrix` of
//! every count with and without `.trans`, `movmatrix`) run five ways: ptxas's and ptxc's
//! cubins on the timed and the functional engine, and ptxc's MIR on the interpreter. All
//! runs have zero hazards and no stray accesses and agree bit for bit, and the results match
//! a host reference: exactly for the integer forms, `ldmatrix` and
//! `movmatrix`; for f16 products within the bound of the tensor-core model
//! (`ptxc_softfloat::tensor`: per block of four products every term is truncated to 23 bits
//! below the block's largest exponent, f32 sums are rounded toward zero, f16 sums to
//! nearest): `|d - exact| <= blocks * (6 * 2^-23 + r) * (|c| + sum |a_k b_k|)`, `r` the unit
//! roundoff of the accumulator (2^-23 for f32 toward zero, 2^-11 for f16).
//!
//! Needs ptxas (`CUDA_ORACLE_BIN`, or installed by `scripts/cuda-oracle`).

mod common;

use common::elem::*;
use common::rng::Rng;
use common::*;
use ptxc::launch::{BufferInit, LaunchSpec, ParamSpec, Scalar};
use ptxc::npy::Array;
use ptxc::run::{RunOptions, run, run_mir};
use ptxc_sim::Engine;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;

// ---------------------------------------------------------------------------------------
// Inputs.

/// An f16 with a random sign and significand, magnitude in [2^-3, 4); one in 16 zero.
fn random_f16(r: &mut Rng) -> u16 {
    if r.below(16) == 0 {
        return 0;
    }
    let sign = (r.below(2) as u16) << 15;
    let exp = 12 + r.below(5) as u16;
    sign | exp << 10 | r.below(1024) as u16
}

/// The value of f16 bits (finite inputs only).
fn f16_value(h: u16) -> f64 {
    let sign = if h >> 15 == 1 { -1.0 } else { 1.0 };
    let e = (h >> 10 & 0x1f) as i32;
    let m = (h & 0x3ff) as f64;
    sign * if e == 0 {
        m * 2f64.powi(-24)
    } else {
        (1.0 + m / 1024.0) * 2f64.powi(e - 15)
    }
}

// ---------------------------------------------------------------------------------------
// Running a kernel.

fn tensor_dir() -> PathBuf {
    root().join("tests").join("tensor")
}

/// ptxas's cubin of `tests/tensor/<file>.ptx`, compiled once.
fn cubin(file: &str) -> Vec<u8> {
    static CACHE: OnceLock<std::sync::Mutex<BTreeMap<String, Vec<u8>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(c) = cache.lock().unwrap().get(file) {
        return c.clone();
    }
    let dir = scratch(&format!("tensor_{file}"));
    let out = dir.join(format!("{file}.cubin"));
    let ptx = tensor_dir().join(format!("{file}.ptx"));
    let o = oracle(
        "ptxas",
        &["-arch=sm_75", "-O3", ptx.to_str().unwrap(), "-o", out.to_str().unwrap()],
    );
    assert!(o.status.success(), "ptxas {file}: {}", text(&o.stderr));
    let bytes = std::fs::read(&out).unwrap();
    cache.lock().unwrap().insert(file.to_string(), bytes.clone());
    bytes
}

/// A parameter of a launch: a buffer (input data, or an output of `len` zero bytes) or a u32.
enum Arg {
    In(Array),
    Out(usize),
    U32(u32),
}

/// What runs a kernel: ptxas's or ptxc's cubin on an engine of the simulator, or ptxc's MIR
/// on the interpreter.
#[derive(Clone, Copy, Debug)]
enum Via {
    Ptxas(Engine),
    Ptxc(Engine),
    Mir,
}

/// ptxc's cubin of `tests/tensor/<file>.ptx`.
fn ptxc_cubin(file: &str) -> Vec<u8> {
    let src = std::fs::read_to_string(tensor_dir().join(format!("{file}.ptx"))).unwrap();
    ptxc::pipeline::compile_ptx(&src, file, &ptxc::pipeline::CompileOptions::default())
        .unwrap_or_else(|e| panic!("ptxc {file}: {e}"))
}

/// ptxc's MIR of `tests/tensor/<file>.ptx`.
fn ptxc_mir(file: &str) -> ptxc_mir::ir::Module {
    let src = std::fs::read_to_string(tensor_dir().join(format!("{file}.ptx"))).unwrap();
    ptxc::pipeline::lower_ptx(&src, file).unwrap_or_else(|e| panic!("ptxc {file}: {e}"))
}

/// Runs `kernel` of `file` as one warp `via` a compiler and engine; the buffers after the
/// run, by parameter index.
fn launch_on(file: &str, kernel: &str, args: &[Arg], via: Via) -> BTreeMap<usize, Array> {
    let dir = scratch(&format!("tensor_{kernel}_{via:?}").replace(['(', ')'], "_"));
    let mut buffers = BTreeMap::new();
    let mut params = Vec::new();
    for (i, a) in args.iter().enumerate() {
        let name = format!("p{i}");
        match a {
            Arg::In(array) => {
                let path = dir.join(format!("{name}.npy"));
                ptxc::npy::write(&path, array).unwrap();
                buffers.insert(name.clone(), BufferInit::File(path));
            }
            Arg::Out(len) => {
                buffers.insert(
                    name.clone(),
                    BufferInit::Zero {
                        dtype: Scalar::U8,
                        len: *len,
                    },
                );
            }
            Arg::U32(v) => {
                params.push(ParamSpec::Scalar {
                    kind: Scalar::U32,
                    bytes: v.to_le_bytes().to_vec(),
                });
                continue;
            }
        }
        params.push(ParamSpec::Ptr {
            buffer: name,
            offset: 0,
        });
    }
    let spec = LaunchSpec {
        kernel: kernel.to_string(),
        grid: [1, 1, 1],
        block: [32, 1, 1],
        dynamic_shared_bytes: 0,
        cluster: None,
        params,
        buffers,
        symbols: BTreeMap::new(),
        limits: Default::default(),
    };
    let tag = format!("{kernel} ({via:?})");
    let out = match via {
        Via::Ptxas(engine) | Via::Ptxc(engine) => {
            let opts = RunOptions {
                engine,
                ..RunOptions::default()
            };
            let bytes = match via {
                Via::Ptxas(_) => cubin(file),
                _ => ptxc_cubin(file),
            };
            run(&bytes, &spec, &opts)
        }
        Via::Mir => run_mir(&ptxc_mir(file), &spec, RunOptions::default().config),
    }
    .unwrap_or_else(|e| panic!("{tag}: {e}"));
    let s = &out.stats;
    assert_eq!(s.hazards, 0, "{tag}: hazards: {:?}", s.hazard_reports.first());
    assert_eq!(s.stray_accesses, 0, "{tag}: {:?}", s.stray_reports.first());
    out.buffers
        .into_iter()
        .map(|(k, v)| (k[1..].parse::<usize>().unwrap(), v))
        .collect()
}

/// Runs ptxas's cubin on the timed engine and then `others`, which must all give the same
/// buffers; the timed engine's buffers.
fn launch_via(file: &str, kernel: &str, args: &[Arg], others: &[Via]) -> BTreeMap<usize, Array> {
    let timed = launch_on(file, kernel, args, Via::Ptxas(Engine::Timed));
    for &via in others {
        let out = launch_on(file, kernel, args, via);
        for (i, a) in &timed {
            assert!(
                a.bytes == out[i].bytes,
                "{kernel}: {via:?} disagrees with ptxas's cubin on the timed engine on parameter {i}"
            );
        }
    }
    timed
}

/// ptxas's cubin on the functional engine, ptxc's on both engines and ptxc's MIR on the
/// interpreter.
const EVERY_WAY: [Via; 4] = [
    Via::Ptxas(Engine::Functional),
    Via::Ptxc(Engine::Timed),
    Via::Ptxc(Engine::Functional),
    Via::Mir,
];

// ---------------------------------------------------------------------------------------
// Element types and matrices in memory.

/// An element type of a tensor-core matrix.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Ty {
    F16,
    F32,
    S32,
    S8,
    U8,
    S4,
    U4,
    B1,
}

impl Ty {
    fn bits(self) -> usize {
        match self {
            Ty::F32 | Ty::S32 => 32,
            Ty::F16 => 16,
            Ty::S8 | Ty::U8 => 8,
            Ty::S4 | Ty::U4 => 4,
            Ty::B1 => 1,
        }
    }
    fn is_float(self) -> bool {
        matches!(self, Ty::F16 | Ty::F32)
    }
    /// A random element's raw bits.
    fn random(self, r: &mut Rng) -> u32 {
        match self {
            Ty::F16 => random_f16(r) as u32,
            Ty::F32 => (f16_value(random_f16(r)) as f32 * 4.0).to_bits(),
            // Mostly small, some near the s32 limits (saturation).
            Ty::S32 => match r.below(8) {
                0 => (i32::MAX - r.below(64) as i32) as u32,
                1 => (i32::MIN + r.below(64) as i32) as u32,
                _ => (r.below(2001) as i32 - 1000) as u32,
            },
            _ => r.u64() as u32 & ((1u64 << self.bits()) - 1) as u32,
        }
    }
    /// The value of raw bits.
    fn value(self, raw: u32) -> f64 {
        let sext = |bits: usize| ((raw << (32 - bits)) as i32 >> (32 - bits)) as f64;
        match self {
            Ty::F16 => f16_value(raw as u16),
            Ty::F32 => f32::from_bits(raw) as f64,
            Ty::S32 => raw as i32 as f64,
            Ty::S8 => sext(8),
            Ty::S4 => sext(4),
            Ty::U8 | Ty::U4 | Ty::B1 => raw as f64,
        }
    }
}

/// A matrix in memory: `rows x cols` elements of `ty` at `(r, c)` ->
/// `r * ld + c` (row-major) or `c * ld + r` (column-major), packed low first.
struct Mat {
    ty: Ty,
    rows: usize,
    cols: usize,
    col_major: bool,
    ld: usize,
}

impl Mat {
    fn index(&self, r: usize, c: usize) -> usize {
        if self.col_major {
            c * self.ld + r
        } else {
            r * self.ld + c
        }
    }
    fn bytes(&self) -> usize {
        let outer = if self.col_major { self.cols } else { self.rows };
        (outer * self.ld * self.ty.bits()).div_ceil(8)
    }
    fn get(&self, mem: &[u8], r: usize, c: usize) -> u32 {
        let bit = self.index(r, c) * self.ty.bits();
        let mut word = [0u8; 4];
        let n = self.ty.bits().div_ceil(8);
        word[..n].copy_from_slice(&mem[bit / 8..bit / 8 + n]);
        (u32::from_le_bytes(word) >> (bit % 8)) & (u64::MAX >> (64 - self.ty.bits())) as u32
    }
    fn set(&self, mem: &mut [u8], r: usize, c: usize, v: u32) {
        let bit = self.index(r, c) * self.ty.bits();
        let n = self.ty.bits().div_ceil(8);
        let mut word = [0u8; 4];
        word[..n].copy_from_slice(&mem[bit / 8..bit / 8 + n]);
        let mask = ((u64::MAX >> (64 - self.ty.bits())) as u32) << (bit % 8);
        let w = (u32::from_le_bytes(word) & !mask) | (v << (bit % 8) & mask);
        mem[bit / 8..bit / 8 + n].copy_from_slice(&w.to_le_bytes()[..n]);
    }
    /// Random contents (the padding too).
    fn random(&self, r: &mut Rng) -> Vec<u8> {
        let mut mem = vec![0u8; self.bytes()];
        for i in 0..self.rows {
            for j in 0..self.cols {
                self.set(&mut mem, i, j, self.ty.random(r));
            }
        }
        mem
    }
}

/// One matrix product to check: `D = A * B + C` (`xor_popc`: `C + popc(A ^ B)`).
struct Product<'a> {
    a: (&'a Mat, &'a [u8]),
    b: (&'a Mat, &'a [u8]),
    c: (&'a Mat, &'a [u8]),
    d: (&'a Mat, &'a [u8]),
    sat: bool,
    xor_popc: bool,
}

/// Checks `p` against the exact product (integers exactly, floats within the model's bound).
fn check(what: &str, p: &Product) {
    let (am, a) = p.a;
    let (bm, b) = p.b;
    let (cm, c) = p.c;
    let (dm, d) = p.d;
    let k = am.cols;
    for i in 0..cm.rows {
        for j in 0..cm.cols {
            let cv = cm.ty.value(cm.get(c, i, j));
            let got_raw = dm.get(d, i, j);
            if dm.ty.is_float() {
                let (mut exact, mut mag) = (cv, cv.abs());
                for kk in 0..k {
                    let t = am.ty.value(am.get(a, i, kk)) * bm.ty.value(bm.get(b, kk, j));
                    exact += t;
                    mag += t.abs();
                }
                let blocks = k.div_ceil(4) as f64;
                let unit = if dm.ty == Ty::F16 {
                    2f64.powi(-11)
                } else {
                    2f64.powi(-23)
                };
                let bound = blocks * (6.0 * 2f64.powi(-23) + unit) * mag;
                let got = dm.ty.value(got_raw);
                assert!(
                    (got - exact).abs() <= bound,
                    "{what}: D[{i}][{j}] = {got}, exact {exact}, bound {bound}"
                );
            } else {
                let mut sum = cv as i64;
                for kk in 0..k {
                    let (x, y) = (am.get(a, i, kk), bm.get(b, kk, j));
                    sum += if p.xor_popc {
                        (x ^ y) as i64
                    } else {
                        am.ty.value(x) as i64 * bm.ty.value(y) as i64
                    };
                }
                let want = if p.sat {
                    sum.clamp(i32::MIN as i64, i32::MAX as i64) as i32
                } else {
                    sum as i32
                };
                assert_eq!(got_raw as i32, want, "{what}: D[{i}][{j}] (exact sum {sum})");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// WMMA (tests/tensor/wmma.cu).

/// A WMMA tile kernel: shape, element types, layouts of A, B, C, D (true: column-major),
/// saturation.
struct Tile {
    file: &'static str,
    kernel: &'static str,
    mnk: (usize, usize, usize),
    ab: Ty,
    /// C's type.
    c: Ty,
    /// D's type.
    acc: Ty,
    cols: [bool; 4],
    sat: bool,
}

const fn tile(kernel: &'static str, mnk: (usize, usize, usize), ab: Ty, acc: Ty, cols: [bool; 4], sat: bool) -> Tile {
    Tile {
        file: "wmma",
        kernel,
        mnk,
        ab,
        c: acc,
        acc,
        cols,
        sat,
    }
}

/// An m16n16k16 f16 tile of `tests/tensor/wmma_mixed.ptx` with C of type `c` and D of `d`
/// (A row-major, B column-major, C and D row-major; `wmma_generic` through generic
/// addresses).
const fn mixed(kernel: &'static str, c: Ty, d: Ty) -> Tile {
    Tile {
        file: "wmma_mixed",
        c,
        ..tile(kernel, (16, 16, 16), Ty::F16, d, [R, C, R, R], false)
    }
}

const R: bool = false;
const C: bool = true;

const TILES: &[Tile] = &[
    tile(
        "wmma_f16_f32_m16n16k16_rc",
        (16, 16, 16),
        Ty::F16,
        Ty::F32,
        [R, C, R, R],
        false,
    ),
    tile(
        "wmma_f16_f16_m16n16k16_cr",
        (16, 16, 16),
        Ty::F16,
        Ty::F16,
        [C, R, C, C],
        false,
    ),
    tile(
        "wmma_f16_f32_m32n8k16_rr",
        (32, 8, 16),
        Ty::F16,
        Ty::F32,
        [R, R, R, C],
        false,
    ),
    tile(
        "wmma_f16_f16_m8n32k16_cc",
        (8, 32, 16),
        Ty::F16,
        Ty::F16,
        [C, C, C, R],
        false,
    ),
    tile(
        "wmma_f16_f16_m32n8k16_rc",
        (32, 8, 16),
        Ty::F16,
        Ty::F16,
        [R, C, R, R],
        false,
    ),
    tile(
        "wmma_f16_f32_m8n32k16_cr",
        (8, 32, 16),
        Ty::F16,
        Ty::F32,
        [C, R, R, R],
        false,
    ),
    tile(
        "wmma_s8_m16n16k16_rc",
        (16, 16, 16),
        Ty::S8,
        Ty::S32,
        [R, C, R, R],
        true,
    ),
    tile(
        "wmma_u8_m16n16k16_cr",
        (16, 16, 16),
        Ty::U8,
        Ty::S32,
        [C, R, C, R],
        false,
    ),
    tile("wmma_u8_m32n8k16_rr", (32, 8, 16), Ty::U8, Ty::S32, [R, R, R, R], false),
    tile("wmma_s8_m8n32k16_cc", (8, 32, 16), Ty::S8, Ty::S32, [C, C, R, C], false),
    tile("wmma_s4_m8n8k32", (8, 8, 32), Ty::S4, Ty::S32, [R, C, R, R], true),
    tile("wmma_u4_m8n8k32", (8, 8, 32), Ty::U4, Ty::S32, [R, C, R, C], false),
    tile("wmma_b1_m8n8k128", (8, 8, 128), Ty::B1, Ty::S32, [R, C, R, R], false),
    tile(
        "wmma_f16_f32_m16n16k16_shared",
        (16, 16, 16),
        Ty::F16,
        Ty::F32,
        [R, C, R, R],
        false,
    ),
    mixed("wmma_f32_f16c", Ty::F16, Ty::F32),
    mixed("wmma_f16_f32c", Ty::F32, Ty::F16),
    mixed("wmma_generic", Ty::F32, Ty::F32),
];

/// Padding of a leading dimension beyond the tile (the multiple WMMA requires: 16 bytes, or
/// 128 bits for sub-byte elements).
fn pad(ty: Ty) -> usize {
    match ty {
        Ty::S4 | Ty::U4 => 32,
        Ty::B1 => 128,
        _ => 128 / ty.bits(),
    }
}

fn run_tile(t: &Tile, seed: u64) {
    let (m, n, k) = t.mnk;
    let mut r = Rng(seed);
    let mat = |ty, rows, cols, col_major: bool, ld| Mat {
        ty,
        rows,
        cols,
        col_major,
        ld,
    };
    let lda = if t.cols[0] { m } else { k } + pad(t.ab);
    let ldb = if t.cols[1] { k } else { n } + pad(t.ab);
    let ldc = m.max(n) + pad(t.acc).max(pad(t.c));
    let am = mat(t.ab, m, k, t.cols[0], lda);
    let bm = mat(t.ab, k, n, t.cols[1], ldb);
    let cm = mat(t.c, m, n, t.cols[2], ldc);
    let dm = mat(t.acc, m, n, t.cols[3], ldc);
    let (a, b, c) = (am.random(&mut r), bm.random(&mut r), cm.random(&mut r));
    let len = cm.bytes().max(dm.bytes());
    let mut c_full = c.clone();
    c_full.resize(len, 0);
    let args = [
        Arg::In(array(&a)),
        Arg::In(array(&b)),
        Arg::In(array(&c_full)),
        Arg::Out(len),
        Arg::U32(lda as u32),
        Arg::U32(ldb as u32),
        Arg::U32(ldc as u32),
    ];
    let out = launch_via(t.file, t.kernel, &args, &EVERY_WAY);
    let d: Vec<u8> = values(&out[&3]);
    check(
        t.kernel,
        &Product {
            a: (&am, &a),
            b: (&bm, &b),
            c: (&cm, &c_full),
            d: (&dm, &d),
            sat: t.sat,
            xor_popc: t.ab == Ty::B1,
        },
    );
}

#[test]
fn wmma_tiles_match_the_host_reference() {
    for (i, t) in TILES.iter().enumerate() {
        run_tile(t, 0x5eed + i as u64);
    }
}

// ---------------------------------------------------------------------------------------
// mma.sync (tests/tensor/mma_sync.cu).

/// `mma.m8n8k4`: four independent 8x8x4 products (one per quad-pair).
fn run_884(kernel: &str, d_ty: Ty, c_ty: Ty) {
    let mut r = Rng(0x884 ^ kernel.len() as u64);
    let mat = |ty, rows, cols, ld| Mat {
        ty,
        rows,
        cols,
        col_major: false,
        ld,
    };
    // The four quad-pair matrices stacked: A 32x4, B 16x8 (4 rows each), C and D 32x8.
    let am = mat(Ty::F16, 32, 4, 4);
    let bm = mat(Ty::F16, 16, 8, 8);
    let cm = mat(c_ty, 32, 8, 8);
    let dm = mat(d_ty, 32, 8, 8);
    let (a, b, c) = (am.random(&mut r), bm.random(&mut r), cm.random(&mut r));
    let args = [
        Arg::In(array(&a)),
        Arg::In(array(&b)),
        Arg::In(array(&c)),
        Arg::Out(dm.bytes()),
    ];
    let out = launch_via("mma_sync", kernel, &args, &EVERY_WAY);
    let d: Vec<u8> = values(&out[&3]);
    for q in 0..4 {
        // Quad-pair q's matrices: rows 8q.. of A, C, D and 4q.. of B.
        let slice = |m: &Mat, mem: &[u8], rows: usize| -> (Mat, Vec<u8>) {
            let row_bytes = m.ld * m.ty.bits() / 8;
            let sub = Mat {
                ty: m.ty,
                rows,
                cols: m.cols,
                col_major: false,
                ld: m.ld,
            };
            (sub, mem[q * rows * row_bytes..(q + 1) * rows * row_bytes].to_vec())
        };
        let (qa, qam) = slice(&am, &a, 8);
        let (qb, qbm) = slice(&bm, &b, 4);
        let (qc, qcm) = slice(&cm, &c, 8);
        let (qd, qdm) = slice(&dm, &d, 8);
        check(
            &format!("{kernel} quad-pair {q}"),
            &Product {
                a: (&qa, &qam),
                b: (&qb, &qbm),
                c: (&qc, &qcm),
                d: (&qd, &qdm),
                sat: false,
                xor_popc: false,
            },
        );
    }
}

#[test]
fn mma_m8n8k4_matches_the_host_reference() {
    run_884("mma_m8n8k4_row_col_f16_f16", Ty::F16, Ty::F16);
    run_884("mma_m8n8k4_col_row_f16_f16", Ty::F16, Ty::F16);
    run_884("mma_m8n8k4_row_row_f32_f32", Ty::F32, Ty::F32);
    run_884("mma_m8n8k4_col_col_f32_f32", Ty::F32, Ty::F32);
    run_884("mma_m8n8k4_row_col_f32_f16", Ty::F32, Ty::F16);
    run_884("mma_m8n8k4_col_row_f32_f16", Ty::F32, Ty::F16);
}

/// An `mma` with row-major A (m x k), B (k x n, stored as given by `b_col`), C and D.
fn run_mma(
    (file, others): (&str, &[Via]),
    kernel: &str,
    mnk: (usize, usize, usize),
    ab: (Ty, Ty),
    cd: (Ty, Ty),
    b_col: bool,
    sat: bool,
) {
    let (m, n, k) = mnk;
    let mut r = Rng(0x1688 ^ kernel.len() as u64);
    let am = Mat {
        ty: ab.0,
        rows: m,
        cols: k,
        col_major: false,
        ld: k,
    };
    let bm = Mat {
        ty: ab.1,
        rows: k,
        cols: n,
        col_major: b_col,
        ld: if b_col { k } else { n },
    };
    let cm = Mat {
        ty: cd.0,
        rows: m,
        cols: n,
        col_major: false,
        ld: n,
    };
    let dm = Mat { ty: cd.1, ..cm };
    let (a, b, c) = (am.random(&mut r), bm.random(&mut r), cm.random(&mut r));
    let args = [
        Arg::In(array(&a)),
        Arg::In(array(&b)),
        Arg::In(array(&c)),
        Arg::Out(dm.bytes()),
    ];
    let out = launch_via(file, kernel, &args, others);
    let d: Vec<u8> = values(&out[&3]);
    check(
        kernel,
        &Product {
            a: (&am, &a),
            b: (&bm, &b),
            c: (&cm, &c),
            d: (&dm, &d),
            sat,
            xor_popc: ab.0 == Ty::B1,
        },
    );
}

#[test]
fn mma_m16n8k8_matches_the_host_reference() {
    let f16 = (Ty::F16, Ty::F16);
    run_mma(
        ("mma_1688", &EVERY_WAY),
        "mma_m16n8k8_f32_f32",
        (16, 8, 8),
        f16,
        (Ty::F32, Ty::F32),
        false,
        false,
    );
    run_mma(
        ("mma_1688", &EVERY_WAY),
        "mma_m16n8k8_f16_f16",
        (16, 8, 8),
        f16,
        (Ty::F16, Ty::F16),
        false,
        false,
    );
}

#[test]
fn integer_mma_is_exact() {
    let s32 = (Ty::S32, Ty::S32);
    let cases: [(&str, usize, Ty, Ty, bool); 9] = [
        ("mma_m8n8k16_s8_s8", 16, Ty::S8, Ty::S8, false),
        ("mma_m8n8k16_u8_s8_sat", 16, Ty::U8, Ty::S8, true),
        ("mma_m8n8k16_s8_u8", 16, Ty::S8, Ty::U8, false),
        ("mma_m8n8k16_u8_u8_sat", 16, Ty::U8, Ty::U8, true),
        ("mma_m8n8k32_s4_s4_sat", 32, Ty::S4, Ty::S4, true),
        ("mma_m8n8k32_u4_s4", 32, Ty::U4, Ty::S4, false),
        ("mma_m8n8k32_s4_u4", 32, Ty::S4, Ty::U4, false),
        ("mma_m8n8k32_u4_u4", 32, Ty::U4, Ty::U4, false),
        ("mma_m8n8k128_b1", 128, Ty::B1, Ty::B1, false),
    ];
    for (kernel, k, ta, tb, sat) in cases {
        run_mma(("mma_int", &EVERY_WAY), kernel, (8, 8, k), (ta, tb), s32, true, sat);
    }
}

// ---------------------------------------------------------------------------------------
// ldmatrix and movmatrix.

/// Four random 8x8 matrices of 16-bit elements.
fn matrices() -> Vec<u16> {
    let mut r = Rng(0x1d5);
    (0..256).map(|_| r.u64() as u16).collect()
}

#[test]
fn ldmatrix_loads_every_count_with_and_without_transpose() {
    let m = matrices();
    for (count, trans) in [(1, false), (2, false), (4, false), (1, true), (2, true), (4, true)] {
        let kernel = format!("ldmatrix_x{count}{}", if trans { "_trans" } else { "" });
        let args = [Arg::In(array(&m)), Arg::Out(4 * 32 * count)];
        let out = launch_via("ldmatrix", &kernel, &args, &EVERY_WAY);
        let got: Vec<u32> = values(&out[&1]);
        for j in 0..count {
            for l in 0..32 {
                let (g, t) = (l / 4, l % 4);
                let at = |i: usize| {
                    let (row, col) = if trans { (2 * t + i, g) } else { (g, 2 * t + i) };
                    m[64 * j + 8 * row + col] as u32
                };
                assert_eq!(got[32 * j + l], at(0) | at(1) << 16, "{kernel}: register {j} lane {l}");
            }
        }
    }
}

#[test]
fn movmatrix_transposes() {
    let m = matrices();
    let args = [Arg::In(array(&m)), Arg::Out(4 * 32)];
    let out = launch_via("ldmatrix", "movmatrix_trans", &args, &EVERY_WAY);
    let got: Vec<u32> = values(&out[&1]);
    for (l, &v) in got.iter().enumerate() {
        let (g, t) = (l / 4, l % 4);
        let want = m[8 * (2 * t) + g] as u32 | (m[8 * (2 * t + 1) + g] as u32) << 16;
        assert_eq!(v, want, "lane {l}");
    }
}
