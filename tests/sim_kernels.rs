//! The CUDA C kernel set (`tests/kernels`) on the simulator: every kernel's ptxas cubin
//! (`-arch=sm_75 -O3`, and `-maxrregcount 16` for the spill variants) runs with inputs
//! generated here deterministically, launched as its `<name>.toml` says, on the timed and the
//! functional engine with zero hazards and no stray memory accesses; the outputs are checked
//! against a reference computed in Rust (exactly where the operations are IEEE or integer,
//! within documented error bounds for approximations), and the two engines must agree byte for
//! byte wherever the result does not depend on the order of atomics or on clocks.

mod common;

use common::elem::*;
use common::rng::Rng;
use common::*;
use ptxc::launch;
use ptxc::npy::Array;
use ptxc::run::{RunOptions, run};
use ptxc_sim::Engine;
use std::collections::BTreeMap;
use std::path::PathBuf;

// ---------------------------------------------------------------------------------------
// Running a kernel.

/// The buffers after a run.
struct Out {
    bufs: BTreeMap<String, Array>,
}

impl Out {
    fn get<T: Elem>(&self, name: &str) -> Vec<T> {
        values(&self.bufs[name])
    }
}

fn kernels_dir() -> PathBuf {
    root().join("tests").join("kernels")
}

/// Compiles `name` with ptxas (plus `extra` options), runs it with `inputs` on `engine`,
/// and checks the run was clean.
fn launch_on(name: &str, extra: &[&str], inputs: &[(&str, Array)], engine: Engine) -> Out {
    let tag = format!("{}{}_{:?}", name, extra.join("").replace('-', "_"), engine);
    let dir = scratch(&format!("kernels_{tag}"));
    let cubin = dir.join(format!("{name}.cubin"));
    let ptx = kernels_dir().join(format!("{name}.ptx"));
    let mut args = vec!["-arch=sm_75", "-O3"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&[ptx.to_str().unwrap(), "-o", cubin.to_str().unwrap()]);
    let o = oracle("ptxas", &args);
    assert!(o.status.success(), "ptxas {name}: {}", text(&o.stderr));
    for (buf, a) in inputs {
        ptxc::npy::write(&dir.join(format!("{buf}.npy")), a).unwrap();
    }
    let toml = std::fs::read_to_string(kernels_dir().join(format!("{name}.toml"))).unwrap();
    let spec = launch::parse(&toml, &dir).unwrap_or_else(|e| panic!("{name}.toml: {e}"));
    let opts = RunOptions {
        engine,
        ..RunOptions::default()
    };
    let out = run(&std::fs::read(&cubin).unwrap(), &spec, &opts).unwrap_or_else(|e| panic!("{tag}: {e}"));
    let s = &out.stats;
    assert_eq!(
        s.hazards,
        0,
        "{tag}: hazards in ptxas's schedule: {:?}",
        s.hazard_reports.first()
    );
    assert_eq!(s.stray_accesses, 0, "{tag}: {:?}", s.stray_reports.first());
    if engine == Engine::Timed {
        assert_eq!(
            s.warp_cycles,
            s.warp_instructions + s.stalls.total(),
            "{tag}: every warp-cycle is an issue or one stall reason: {:?}",
            s.stalls
        );
    }
    Out { bufs: out.buffers }
}

/// Runs on both engines; `check` judges each, and when `same` the engines must agree.
fn launch(name: &str, extra: &[&str], inputs: &[(&str, Array)], same: bool, check: impl Fn(&Out)) {
    let timed = launch_on(name, extra, inputs, Engine::Timed);
    check(&timed);
    let functional = launch_on(name, extra, inputs, Engine::Functional);
    check(&functional);
    if same {
        for (buf, a) in &timed.bufs {
            assert!(
                a.bytes == functional.bufs[buf].bytes,
                "{name}: the engines disagree on `{buf}`"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Comparisons.

fn same_f32(got: f32, want: f32) -> bool {
    got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan())
}

fn same_f64(got: f64, want: f64) -> bool {
    got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan())
}

fn check_exact<T: PartialEq + std::fmt::Debug + Copy>(what: &str, got: &[T], want: &[T]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        panic!("{what}[{i}]: got {:?}, want {:?}", got[i], want[i]);
    }
}

fn check_f32(what: &str, got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(i) = (0..got.len()).find(|&i| !same_f32(got[i], want[i])) {
        panic!(
            "{what}[{i}]: got {:e} ({:#x}), want {:e} ({:#x})",
            got[i],
            got[i].to_bits(),
            want[i],
            want[i].to_bits()
        );
    }
}

fn check_f64(what: &str, got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(i) = (0..got.len()).find(|&i| !same_f64(got[i], want[i])) {
        panic!("{what}[{i}]: got {:e}, want {:e}", got[i], want[i]);
    }
}

/// Within `rel * |want| + abs` (NaN matches NaN, infinities match exactly).
fn check_close(what: &str, got: &[f64], want: &[f64], rel: f64, abs: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for i in 0..got.len() {
        let (g, w) = (got[i], want[i]);
        let ok = (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= rel * w.abs() + abs;
        assert!(ok, "{what}[{i}]: got {g:e}, want {w:e}");
    }
}

fn widen(v: &[f32]) -> Vec<f64> {
    v.iter().map(|&x| x as f64).collect()
}

// ---------------------------------------------------------------------------------------
// IEEE helpers for the references.

fn next_up32(x: f32) -> f32 {
    if x.is_nan() || x == f32::INFINITY {
        x
    } else if x == 0.0 {
        f32::from_bits(1)
    } else if x > 0.0 {
        f32::from_bits(x.to_bits() + 1)
    } else {
        f32::from_bits(x.to_bits() - 1)
    }
}

fn next_down32(x: f32) -> f32 {
    -next_up32(-x)
}

/// Rounding directions of the conversion references.
#[derive(Clone, Copy, PartialEq)]
enum Dir {
    Nearest,
    Zero,
    Down,
    Up,
}

/// Adjusts the nearest `r` of an exact value for a direction, given `cmp` = sign of r - exact.
fn direct32(r: f32, cmp: std::cmp::Ordering, negative: bool, dir: Dir) -> f32 {
    use std::cmp::Ordering::*;
    match (dir, cmp) {
        (Dir::Nearest, _) | (_, Equal) => r,
        (Dir::Down, Greater) => next_down32(r),
        (Dir::Up, Less) => next_up32(r),
        (Dir::Zero, Greater) if !negative => next_down32(r),
        (Dir::Zero, Less) if negative => next_up32(r),
        _ => r,
    }
}

fn int_to_f32(v: i128, dir: Dir) -> f32 {
    let r = v as f32;
    direct32(r, (r as i128).cmp(&v), v < 0, dir)
}

fn f64_to_f32(y: f64, dir: Dir) -> f32 {
    let r = y as f32;
    if !r.is_finite() && y.is_finite() {
        // Overflow: directed modes stop at the largest finite value.
        let max = if y > 0.0 { f32::MAX } else { f32::MIN };
        return match (dir, y > 0.0) {
            (Dir::Zero, _) | (Dir::Down, true) | (Dir::Up, false) => max,
            _ => r,
        };
    }
    direct32(
        r,
        (r as f64).partial_cmp(&y).unwrap_or(std::cmp::Ordering::Equal),
        y < 0.0,
        dir,
    )
}

fn u64_to_f64(v: u64, dir: Dir) -> f64 {
    let r = v as f64;
    let cmp = (r as u128).cmp(&(v as u128));
    match (dir, cmp) {
        (Dir::Zero | Dir::Down, std::cmp::Ordering::Greater) => f64::from_bits(r.to_bits() - 1),
        (Dir::Up, std::cmp::Ordering::Less) => f64::from_bits(r.to_bits() + 1),
        _ => r,
    }
}

fn f32_to_f16_bits(x: f32, dir: Dir) -> u16 {
    let h = half::f16::from_f32(x);
    if dir == Dir::Nearest || !x.is_finite() {
        return h.to_bits();
    }
    // Toward zero: step back when rounding went away from zero.
    if h.to_f32().abs() > x.abs() || h.is_infinite() {
        h.to_bits() - 1
    } else {
        h.to_bits()
    }
}

// ---------------------------------------------------------------------------------------
// The kernels.

#[test]
fn vec_add_f32() {
    let mut r = Rng(1);
    let n = 10000;
    let a: Vec<f32> = (0..n).map(|_| r.f32_in(-1e3, 1e3)).collect();
    let b: Vec<f32> = (0..n).map(|_| r.f32_in(-1e3, 1e3)).collect();
    let want: Vec<f32> = (0..n).map(|i| a[i] + b[i]).collect();
    launch("vec_add_f32", &[], &[("a", array(&a)), ("b", array(&b))], true, |o| {
        check_f32("c", &o.get("c"), &want)
    });
}

#[test]
fn daxpy_f64() {
    let mut r = Rng(2);
    let n = 3000;
    let x: Vec<f64> = (0..n).map(|_| r.f64_in(-10.0, 10.0)).collect();
    let y: Vec<f64> = (0..n).map(|_| r.f64_in(-10.0, 10.0)).collect();
    let want: Vec<f64> = (0..n).map(|i| 1.5f64.mul_add(x[i], y[i])).collect();
    launch("daxpy_f64", &[], &[("x", array(&x)), ("y", array(&y))], true, |o| {
        check_f64("y", &o.get("y"), &want)
    });
}

/// Floats that exercise the slow paths: zeros, subnormals, huge and tiny, infinities, NaN.
fn special_f32(r: &mut Rng, i: usize) -> f32 {
    match i % 16 {
        0 => 0.0,
        1 => -0.0,
        2 => f32::from_bits(r.u32() & 0x007f_ffff),
        3 => f32::INFINITY,
        4 => f32::NAN,
        5 => 3e38,
        6 => 1e-38,
        _ => r.f32_in(-100.0, 100.0),
    }
}

#[test]
fn div_sqrt_f32() {
    let mut r = Rng(3);
    let n = 2048;
    let x: Vec<f32> = (0..n)
        .map(|i| special_f32(&mut r, i).abs() + if i % 3 == 0 { 0.0 } else { 1.0 })
        .collect();
    let y: Vec<f32> = (0..n).map(|i| special_f32(&mut r, i / 7).abs()).collect();
    launch("div_sqrt_f32", &[], &[("x", array(&x)), ("y", array(&y))], true, |o| {
        let out: Vec<f32> = o.get("out");
        let exact = |k: usize| -> Vec<f32> { (0..n).map(|i| out[4 * i + k]).collect() };
        check_f32("a / b", &exact(0), &(0..n).map(|i| x[i] / y[i]).collect::<Vec<_>>());
        check_f32("sqrtf", &exact(1), &(0..n).map(|i| x[i].sqrt()).collect::<Vec<_>>());
        // rsqrtf and __fdividef are approximations (2 ulp; __fdividef is 0 for huge divisors);
        // the sums are f32 additions of the (approximate) terms.
        let approx = |k: usize, f: &dyn Fn(usize) -> f32| {
            let idx: Vec<usize> = (0..n)
                .filter(|&i| x[i].is_normal() && y[i].is_normal() && y[i] < 1e30)
                .collect();
            let got: Vec<f64> = idx.iter().map(|&i| out[4 * i + k] as f64).collect();
            let want: Vec<f64> = idx.iter().map(|&i| f(i) as f64).collect();
            check_close(&format!("out[4i+{k}]"), &got, &want, 1e-6, 1e-30);
        };
        approx(2, &|i| (1.0 / (y[i] as f64).sqrt()) as f32 + 1.0 / x[i]);
        approx(3, &|i| (x[i] as f64 / y[i] as f64) as f32 + y[i].sqrt() + 1.0 / x[i]);
    });
}

#[test]
fn div_sqrt_f64() {
    let mut r = Rng(4);
    let n = 1024;
    let special = |r: &mut Rng, i: usize| match i % 11 {
        0 => 0.0,
        1 => f64::INFINITY,
        2 => f64::from_bits(r.u64() & 0x000f_ffff_ffff_ffff),
        3 => 1e300,
        4 => 1e-300,
        _ => r.f64_in(0.0, 1e4),
    };
    let x: Vec<f64> = (0..n).map(|i| special(&mut r, i)).collect();
    let y: Vec<f64> = (0..n).map(|i| special(&mut r, i / 5) + 0.5).collect();
    launch("div_sqrt_f64", &[], &[("x", array(&x)), ("y", array(&y))], true, |o| {
        let out: Vec<f64> = o.get("out");
        let col = |k: usize| -> Vec<f64> { (0..n).map(|i| out[3 * i + k]).collect() };
        check_f64("a / b", &col(0), &(0..n).map(|i| x[i] / y[i]).collect::<Vec<_>>());
        check_f64("sqrt", &col(1), &(0..n).map(|i| x[i].sqrt()).collect::<Vec<_>>());
        let want: Vec<f64> = (0..n).map(|i| 1.0 / y[i] + 1.0 / x[i].sqrt()).collect();
        check_close("1/b + rsqrt(a)", &col(2), &want, 1e-15, 0.0);
    });
}

#[test]
fn int_divmod() {
    let mut r = Rng(5);
    let n = 2048;
    let a: Vec<i32> = (0..n).map(|_| r.u32() as i32).collect();
    let b: Vec<i32> = (0..n)
        .map(|i| {
            let v = if i % 4 == 0 {
                r.i32_in(-20, 20)
            } else {
                r.u32() as i32 >> (r.u32() % 31)
            };
            if v == 0 || v == -1 { 3 } else { v }
        })
        .collect();
    let c: Vec<i64> = (0..n).map(|_| r.u64() as i64 >> (r.u32() % 40)).collect();
    let mut q32 = vec![0i32; 6 * n];
    let mut q64 = vec![0i64; 3 * n];
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        let (ux, uy) = (x as u32, (y as u32) | 1);
        let z = c[i];
        q32[6 * i] = x.wrapping_div(y);
        q32[6 * i + 1] = x.wrapping_rem(y);
        q32[6 * i + 2] = (ux / uy) as i32;
        q32[6 * i + 3] = (ux % uy) as i32;
        q32[6 * i + 4] = (x / 7).wrapping_add(x % 10);
        q32[6 * i + 5] = ((ux / 1000) as i32).wrapping_add((ux % 3) as i32);
        q64[3 * i] = z.wrapping_div((y | 1) as i64);
        q64[3 * i + 1] = ((z as u64) % (uy as u64)) as i64;
        q64[3 * i + 2] = z / 12345;
    }
    let inputs = [("a", array(&a)), ("b", array(&b)), ("c", array(&c))];
    launch("int_divmod", &[], &inputs, true, |o| {
        check_exact("q32", &o.get::<i32>("q32"), &q32);
        check_exact("q64", &o.get::<i64>("q64"), &q64);
    });
}

#[test]
fn conversions() {
    let mut r = Rng(6);
    let n = 1024;
    let f: Vec<f32> = (0..n)
        .map(|i| match i % 8 {
            0 => r.f32_in(-3.0, 3.0).round() + 0.5,
            1 => r.f32_in(-70000.0, 70000.0),
            2 => r.f32_in(-1e10, 1e10),
            _ => r.f32_in(-300.0, 300.0),
        })
        .collect();
    let d: Vec<f64> = (0..n)
        .map(|i| match i % 4 {
            0 => r.f64_in(-5.0, 5.0).round() + 0.5,
            1 => r.f64_in(-1e12, 1e12),
            _ => r.f64_in(-1e6, 1e6),
        })
        .collect();
    let l: Vec<i64> = (0..n).map(|i| (r.u64() as i64) >> (i % 64)).collect();
    let (mut oi, mut of, mut od, mut ol) = (
        vec![0i32; 8 * n],
        vec![0f32; 4 * n],
        vec![0f64; 3 * n],
        vec![0i64; 3 * n],
    );
    for i in 0..n {
        let (x, y, z) = (f[i], d[i], l[i]);
        let rn = |v: f32| v.round_ties_even();
        oi[8 * i] = rn(x) as i32;
        oi[8 * i + 1] = (x.trunc() as i32)
            .wrapping_add(x.floor() as i32)
            .wrapping_add(x.ceil() as i32);
        oi[8 * i + 2] = (x.trunc() as u32 as i32).wrapping_add(rn(x) as u32 as i32);
        oi[8 * i + 3] = (y.round_ties_even() as i32).wrapping_add(y.trunc() as u32 as i32);
        oi[8 * i + 4] = (x.trunc() as i32 as i8 as i32) + ((x as u32) & 0xffff) as i32;
        // ptxas writes `cvt.rz.f16.f32` as `HADD2 R, R.F32, -RZ.H0_H0` (the f32 operand is
        // converted toward zero).
        oi[8 * i + 5] = f32_to_f16_bits(x, Dir::Nearest) as i16 as i32 + f32_to_f16_bits(x, Dir::Zero) as i16 as i32;
        oi[8 * i + 6] = z as i16 as i32 + ((z >> 8) as u8) as i32;
        oi[8 * i + 7] = rn(half::f16::from_bits(z as u16).to_f32()) as i32;
        of[4 * i] = int_to_f32(z as i128, Dir::Nearest)
            + int_to_f32(z as i32 as i128, Dir::Zero)
            + int_to_f32(z as u32 as i128, Dir::Down);
        of[4 * i + 1] = f64_to_f32(y, Dir::Nearest) + f64_to_f32(y, Dir::Zero) + f64_to_f32(y, Dir::Up);
        of[4 * i + 2] = int_to_f32(z as i128, Dir::Down) + int_to_f32(z as u64 as i128, Dir::Up);
        of[4 * i + 3] = (z as i16 as f32) + (z as u8 as f32) + rn(x) + x.trunc() + x.floor() + x.ceil();
        od[3 * i] = x as f64 + z as i32 as f64 + z as u32 as f64;
        od[3 * i + 1] = z as f64 + u64_to_f64(z as u64, Dir::Zero);
        od[3 * i + 2] = y.round_ties_even() + y.trunc() + y.floor() + y.ceil();
        ol[3 * i] = (x as i64).wrapping_add(x.floor() as i64);
        ol[3 * i + 1] = (y as i64).wrapping_add(y.ceil() as u64 as i64);
        ol[3 * i + 2] = (x as u64 as i64).wrapping_add(rn(x) as i64);
    }
    let inputs = [("f", array(&f)), ("d", array(&d)), ("l", array(&l))];
    launch("conversions", &[], &inputs, true, |o| {
        check_exact("oi", &o.get::<i32>("oi"), &oi);
        check_f32("of", &o.get("of"), &of);
        check_f64("od", &o.get("od"), &od);
        check_exact("ol", &o.get::<i64>("ol"), &ol);
    });
}

#[test]
fn atomics_global() {
    let n = 2000usize;
    let iv: Vec<i32> = (0..80).map(|k| [1000 * k as i32, 5000, -5000, 7, 9][k / 16]).collect();
    let uv: Vec<u32> = (0..112)
        .map(|j| match j / 16 {
            0 => (j % 16) as u32,
            2 => 50,
            3 => 60,
            4 => u32::MAX,
            _ => 0,
        })
        .collect();
    let lv: Vec<u64> = (0..64).map(|j| [10, 1, u64::MAX, 0][j / 16]).collect();
    let fv = vec![0.0f32; 32];
    let dv = vec![0.0f64; 32];
    let inputs = [
        ("iv", array(&iv)),
        ("uv", array(&uv)),
        ("lv", array(&lv)),
        ("fv", array(&fv)),
        ("dv", array(&dv)),
    ];
    launch("atomics_global", &[], &inputs, false, |o| {
        let (giv, guv, glv) = (o.get::<i32>("iv"), o.get::<u32>("uv"), o.get::<u64>("lv"));
        let (gfv, gdv) = (o.get::<f32>("fv"), o.get::<f64>("dv"));
        for k in 0..16 {
            let ids: Vec<usize> = (0..n).filter(|i| i & 15 == k).collect();
            let c = ids.len();
            assert_eq!(giv[k], iv[k] + ids.iter().sum::<usize>() as i32, "atomicAdd {k}");
            assert_eq!(
                giv[16 + k],
                (*ids.iter().min().unwrap() as i32).min(5000),
                "atomicMin {k}"
            );
            assert_eq!(
                giv[32 + k],
                (-(*ids.iter().min().unwrap() as i32)).max(-5000),
                "atomicMax {k}"
            );
            assert_eq!(giv[48 + k], 7 + c as i32, "atomicAdd_block {k}");
            assert_eq!(giv[64 + k], 9 + c as i32, "atomicAdd_system {k}");
            assert_eq!(guv[k], k as u32 + 1, "atomicCAS {k}");
            assert!(ids.contains(&(guv[16 + k] as usize)), "atomicExch {k}: {}", guv[16 + k]);
            assert_eq!(guv[32 + k], (50 + c as u32) % 101, "atomicInc {k}");
            assert_eq!(guv[48 + k], (60 + 101 - c as u32 % 101) % 101, "atomicDec {k}");
            let and = ids.iter().fold(u32::MAX, |m, &i| m & (0xff << (i & 7)));
            let or = ids.iter().fold(0, |m, &i| m | 1 << (i & 31));
            let xor = ids.iter().fold(0, |m, &i| m ^ i as u32);
            assert_eq!(
                (guv[64 + k], guv[80 + k], guv[96 + k]),
                (and, or, xor),
                "and/or/xor {k}"
            );
            assert_eq!(glv[k], 10 + 3 * c as u64, "atomicAdd 64 {k}");
            assert!(
                glv[16 + k] == 1 || ids.contains(&(glv[16 + k] as usize)),
                "atomicCAS 64 {k}"
            );
            assert_eq!(glv[32 + k], *ids.iter().min().unwrap() as u64, "atomicMin 64 {k}");
            assert_eq!(glv[48 + k], *ids.iter().max().unwrap() as u64, "atomicMax 64 {k}");
            assert_eq!(gfv[k], 0.5 * c as f32, "atomicAdd f32 {k}");
            assert_eq!(gdv[k], 0.25 * c as f64, "atomicAdd f64 {k}");
            assert_eq!(gfv[16 + k], c as f32, "red f32 {k}");
            assert_eq!(gdv[16 + k], 2.0 * c as f64, "red f64 {k}");
        }
        // The first thread of each slot found the initial values.
        let old: Vec<i32> = o.get("old");
        for (i, &v) in iv.iter().enumerate().take(16) {
            assert!(old[8 * i] >= v, "old atomicAdd of thread {i}");
            assert_eq!(old[8 * i + 3], i as i32, "old atomicCAS of thread {i}");
        }
    });
}

#[test]
fn atomics_shared() {
    let mut r = Rng(8);
    let n = 4096;
    let data: Vec<u8> = (0..n).map(|_| r.u32() as u8).collect();
    let extrema = vec![i32::MAX, i32::MIN, 0];
    let inputs = [("data", array(&data)), ("extrema", array(&extrema))];
    launch("atomics_shared", &[], &inputs, false, |o| {
        let hist: Vec<u32> = o.get("hist");
        let blocks = 8usize;
        let threads = blocks * 256;
        for (j, &got) in hist.iter().enumerate() {
            let count = data.iter().filter(|&&v| (v & 63) as usize == j).count() as u32;
            let base = count + if j == 0 { n as u32 } else { 0 };
            // Each block's CAS on bin j adds at most one.
            assert!(
                (base..=base + blocks as u32).contains(&got),
                "bin {j}: {got} not in {base}..={}",
                base + blocks as u32
            );
        }
        let ext: Vec<i32> = o.get("extrema");
        assert_eq!(ext[0], *data.iter().min().unwrap() as i32);
        assert_eq!(ext[1], *data.iter().max().unwrap() as i32);
        // extrema[2] = last + wide of one block: an index that block handled plus its sum.
        let ok = (0..blocks).any(|b| {
            let mine: Vec<usize> = (b * 256..n)
                .step_by(threads)
                .flat_map(|s| s..(s + 256).min(n))
                .collect();
            let wide: u64 = mine.iter().map(|&i| data[i] as u64).sum();
            mine.iter().any(|&i| ext[2] == i as i32 + wide as i32)
        });
        assert!(ok, "extrema[2] = {}", ext[2]);
        let total: u64 = data.iter().map(|&v| v as u64).sum();
        assert_eq!(o.get::<f32>("fsum")[0], total as f32);
    });
}

/// `__byte_perm(x, y, s)`.
fn byte_perm(x: u32, y: u32, s: u32) -> u32 {
    let bytes = (y as u64) << 32 | x as u64;
    (0..4).fold(0, |r, i| {
        r | (((bytes >> (8 * ((s >> (4 * i)) & 7))) & 0xff) as u32) << (8 * i)
    })
}

/// PTX `bfe` of `len` bits at `pos` (signed: sign-extended).
fn bfe(a: u32, pos: u32, len: u32, signed: bool) -> u32 {
    let (pos, len) = (pos & 0xff, len & 0xff);
    if len == 0 {
        return 0;
    }
    let sbit = if signed { (a >> (pos + len - 1).min(31)) & 1 } else { 0 };
    (0..32).fold(0, |d, i| {
        let bit = if i < len && pos + i <= 31 {
            (a >> (pos + i)) & 1
        } else {
            sbit
        };
        d | bit << i
    })
}

/// PTX `bfi`: `len` bits of `a` inserted into `b` at `pos`.
fn bfi(a: u32, b: u32, pos: u32, len: u32) -> u32 {
    let (pos, len) = (pos & 0xff, len & 0xff);
    (0..len)
        .filter(|&i| pos + i < 32)
        .fold(b, |d, i| (d & !(1 << (pos + i))) | ((a >> i) & 1) << (pos + i))
}

#[test]
fn bit_ops() {
    let mut r = Rng(9);
    let n = 1024;
    let x: Vec<u32> = (0..n)
        .map(|i| if i % 17 == 0 { 0 } else { r.u32() >> (i % 29) })
        .collect();
    let y: Vec<u64> = (0..n)
        .map(|i| if i % 13 == 0 { 0 } else { r.u64() >> (i % 61) })
        .collect();
    let mut want = vec![0u32; 8 * n];
    for i in 0..n {
        let (a, b) = (x[i], y[i]);
        let ffs32 = |v: u32| if v == 0 { 0 } else { v.trailing_zeros() + 1 };
        let ffs64 = |v: u64| if v == 0 { 0 } else { v.trailing_zeros() + 1 };
        let sh = i as u32;
        let hi = b as u32;
        let funnel_l = ((((hi as u64) << 32 | a as u64) << (sh & 31)) >> 32) as u32;
        let funnel_rc = ((((b >> 32) << 32) | a as u64) >> sh.min(32)) as u32;
        want[8 * i] = a.count_ones() + b.count_ones();
        want[8 * i + 1] = a.leading_zeros() + b.leading_zeros();
        want[8 * i + 2] = a.reverse_bits() ^ (b.reverse_bits() as u32);
        want[8 * i + 3] = ffs32(a) + ffs64(b);
        want[8 * i + 4] = byte_perm(a, b as u32, 0x5140);
        want[8 * i + 5] = funnel_l ^ funnel_rc;
        let f1 = bfe(a, i as u32 & 31, 5, false);
        let f2 = bfi(a, b as u32, i as u32 & 15, 7);
        let s = bfe(a, 4, 9, true);
        want[8 * i + 6] = f1.wrapping_add(f2).wrapping_add(s).wrapping_add((a >> 3) & 0x1f);
        want[8 * i + 7] = ((b >> (i & 63)) as u32).wrapping_add((b << (a & 63)) as u32);
    }
    launch("bit_ops", &[], &[("x", array(&x)), ("y", array(&y))], true, |o| {
        check_exact("out", &o.get::<u32>("out"), &want)
    });
}

#[test]
fn const_lookup() {
    let mut r = Rng(10);
    let n = 1000;
    let coeff: Vec<f32> = (0..64).map(|_| r.f32_in(-1.0, 1.0)).collect();
    let offsets: Vec<i32> = (0..16).map(|_| r.i32_in(-40, 100)).collect();
    let x: Vec<f32> = (0..n).map(|_| r.f32_in(-1.5, 1.5)).collect();
    let sel: Vec<i32> = (0..n).map(|_| r.u32() as i32).collect();
    let want: Vec<f32> = (0..n)
        .map(|i| {
            let mut p = coeff[0];
            for c in &coeff[1..8] {
                p = p.mul_add(x[i], *c);
            }
            let s = (sel[i] & 15) as usize;
            p + coeff[(offsets[s] & 63) as usize] + offsets[s] as f32
        })
        .collect();
    let inputs = [
        ("x", array(&x)),
        ("sel", array(&sel)),
        ("coeff", array(&coeff)),
        ("offsets", array(&offsets)),
    ];
    launch("const_lookup", &[], &inputs, true, |o| {
        check_f32("y", &o.get("y"), &want)
    });
}

#[test]
fn device_calls() {
    let mut r = Rng(11);
    let n = 512;
    let x: Vec<f32> = (0..n).map(|_| r.f32_in(-2.0, 2.0)).collect();
    let a: Vec<i32> = (0..n).map(|_| r.i32_in(-5000, 5000) * r.i32_in(1, 12)).collect();
    fn gcd(a: i32, b: i32) -> i32 {
        if b == 0 { a } else { gcd(b, a % b) }
    }
    let y: Vec<f32> = (0..n)
        .map(|i| {
            let mut p = 1.0f32;
            for k in 0..(i & 7) {
                p = p.mul_add(x[i], k as f32);
            }
            p + if i & 1 == 0 { 2.0 * x[i] } else { x[i] * x[i] }
        })
        .collect();
    let g: Vec<i32> = (0..n).map(|i| gcd(a[i], a[(i + 1) % n])).collect();
    launch("device_calls", &[], &[("x", array(&x)), ("a", array(&a))], true, |o| {
        check_f32("y", &o.get("y"), &y);
        check_exact("g", &o.get::<i32>("g"), &g);
    });
}

#[test]
fn divergent_loops() {
    let mut r = Rng(12);
    let n = 1000usize;
    let trips: Vec<i32> = (0..n).map(|_| r.i32_in(0, 40)).collect();
    let x: Vec<f32> = (0..n).map(|_| r.f32_in(-0.3, 30.0)).collect();
    let threads = 4 * 256;
    let mut acc = vec![0.0f32; threads];
    for (i, a) in acc.iter_mut().enumerate().take(n) {
        'outer: for k in 0..trips[i] {
            if ((k ^ i as i32) & 1) != 0 {
                continue;
            }
            let v = x[(i + k as usize) % n];
            if v < 0.0 {
                break;
            }
            for j in 0..(k & 3) {
                *a = v.mul_add(j as f32, *a);
                if *a > 1000.0 {
                    break 'outer;
                }
            }
            *a += v;
        }
    }
    let mut out = vec![0.0f32; n];
    for w in 0..threads / 32 {
        let lanes: Vec<f32> = (0..32).map(|l| acc[32 * w + l]).collect();
        let down: Vec<f32> = (0..32)
            .map(|l| lanes[l] + if l < 31 { lanes[l + 1] } else { lanes[l] })
            .collect();
        let mask = (0..32).fold(0u32, |m, l| m | ((down[l] > 1.0) as u32) << l);
        let src = ((mask.trailing_zeros() + 1) as i32 - 1) as usize & 31;
        let src = if mask == 0 { 31 } else { src };
        for l in 0..32 {
            let v = if down[l] > 0.5 { down[src] } else { down[l] };
            if 32 * w + l < n {
                out[32 * w + l] = v;
            }
        }
    }
    launch(
        "divergent_loops",
        &[],
        &[("trips", array(&trips)), ("x", array(&x))],
        true,
        |o| check_f32("out", &o.get("out"), &out),
    );
}

#[test]
fn dynamic_shared() {
    let mut r = Rng(13);
    let (n, block, blocks) = (1000usize, 128usize, 8usize);
    let input: Vec<u8> = (0..4 * n).map(|_| r.u32() as u8).collect();
    let d: Vec<f64> = (0..2 * n).map(|_| r.f64_in(-4.0, 4.0)).collect();
    let mut out = vec![0i16; n];
    let mut dout = vec![0f64; n];
    for b in 0..blocks {
        let mut s16 = vec![0i16; 4 * block];
        let mut s64 = vec![0f64; block];
        for t in 0..block {
            let i = b * block + t;
            let (v, w) = if i < n {
                (
                    [input[4 * i], input[4 * i + 1], input[4 * i + 2], input[4 * i + 3]],
                    (d[2 * i], d[2 * i + 1]),
                )
            } else {
                ([0; 4], (0.0, 0.0))
            };
            s16[4 * t] = v[0] as i16 - v[3] as i16;
            s16[4 * t + 1] = v[1] as i8 as i16;
            s16[4 * t + 2] = (v[2] as i16).wrapping_mul(3);
            s16[4 * t + 3] = t as i16;
            s64[t] = w.0 * w.1;
        }
        for t in 0..block {
            let i = b * block + t;
            let rr = block - 1 - t;
            if i < n {
                out[i] = s16[4 * rr + (t & 3)];
                dout[i] = s64[rr] + s64[(rr + 1) % block];
            }
        }
    }
    launch(
        "dynamic_shared",
        &[],
        &[("input", array(&input)), ("d", array(&d))],
        true,
        |o| {
            check_exact("out", &o.get::<i16>("out"), &out);
            check_f64("dout", &o.get("dout"), &dout);
        },
    );
}

#[test]
fn fences_volatile() {
    launch("fences_volatile", &[], &[], false, |o| {
        let (flags, data, out) = (o.get::<i32>("flags"), o.get::<i32>("data"), o.get::<i32>("out"));
        for b in 0..8 {
            assert_eq!(flags[b], 1);
            assert_eq!(data[b], 10 * b as i32);
            if b > 0 {
                let spins = out[b] - 10 * (b as i32 - 1);
                assert!((0..=1000).contains(&spins), "block {b}: out {} ", out[b]);
            }
            // count(tid < 100) + 2 * all(tid < 1024) + 4 * any(tid == 5).
            assert_eq!(out[100 + b], 100 + 2 + 4, "block {b}");
        }
    });
}

/// f16 arithmetic for the half2 reference: one rounding from the exact f64 result.
fn h(x: f64) -> u16 {
    half::f16::from_f64(x).to_bits()
}

fn hf(b: u16) -> f64 {
    half::f16::from_bits(b).to_f64()
}

fn h2(lo: u16, hi: u16) -> u32 {
    lo as u32 | (hi as u32) << 16
}

fn halves(v: u32) -> [u16; 2] {
    [v as u16, (v >> 16) as u16]
}

fn sat_h(b: u16) -> u16 {
    let x = hf(b);
    if x.is_nan() || x <= 0.0 {
        0
    } else if x >= 1.0 {
        0x3c00
    } else {
        b
    }
}

#[test]
fn half2_math() {
    let mut r = Rng(14);
    let n = 1024;
    let rh = |r: &mut Rng| h(r.f64_in(-3.0, 3.0));
    let a: Vec<u32> = (0..n).map(|_| h2(rh(&mut r), rh(&mut r))).collect();
    let b: Vec<u32> = (0..n).map(|_| h2(rh(&mut r), rh(&mut r))).collect();
    let f: Vec<f32> = (0..n).map(|_| r.f32_in(-2.0, 2.0)).collect();
    let lanes = |x: u32, y: u32, op: &dyn Fn(f64, f64) -> f64| {
        let (p, q) = (halves(x), halves(y));
        h2(h(op(hf(p[0]), hf(q[0]))), h(op(hf(p[1]), hf(q[1]))))
    };
    let fma = |x: u32, y: u32, z: u32, sat: bool| {
        let (p, q, s) = (halves(x), halves(y), halves(z));
        let lane = |i: usize| {
            let v = h(hf(p[i]).mul_add(hf(q[i]), hf(s[i])));
            if sat { sat_h(v) } else { v }
        };
        h2(lane(0), lane(1))
    };
    let pack = |lo: f32, hi: f32| h2(half::f16::from_f32(lo).to_bits(), half::f16::from_f32(hi).to_bits());
    let (mut out, mut fo) = (vec![0u32; 3 * n], vec![0f32; 2 * n]);
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        let s = lanes(x, y, &|p, q| p + q);
        let p = lanes(x, y.rotate_left(16), &|p, q| p * q);
        let q = fma(s, p, pack(0.5, 0.5), false);
        let neg = q ^ 0x8000_8000;
        let low = (x & 0xffff) * 0x10001;
        let rr = lanes(neg, low, &|p, q| p - q);
        let c = {
            let (p, q) = (halves(rr), halves(x));
            h2(
                if hf(p[0]) > hf(q[0]) { 0x3c00 } else { 0 },
                if hf(p[1]) > hf(q[1]) { 0x3c00 } else { 0 },
            )
        };
        let sat = {
            let v = lanes(rr, c, &|p, q| p + q);
            let [l, hh] = halves(v);
            h2(sat_h(l), sat_h(hh))
        };
        out[3 * i] = fma(sat, y, x, true);
        out[3 * i + 1] = pack(f[i], f[i] * 2.0);
        let (px, py) = (halves(x), halves(y));
        out[3 * i + 2] = (hf(px[0]) <= hf(py[0])) as u32 + 2 * (hf(px[1]) <= hf(py[1])) as u32;
        fo[2 * i] = hf(halves(sat)[0]) as f32 + hf(halves(q)[1]) as f32;
        fo[2 * i + 1] = hf(halves(lanes(x, y, &|p, q| p * q))[0]) as f32 * f[i];
    }
    let inputs = [("a", array(&a)), ("b", array(&b)), ("f", array(&f))];
    launch("half2_math", &[], &inputs, true, |o| {
        check_exact("out", &o.get::<u32>("out"), &out);
        check_f32("fo", &o.get("fo"), &fo);
    });
}

#[test]
fn int64_math() {
    let mut r = Rng(15);
    let n = 1024;
    let a: Vec<u64> = (0..n).map(|i| r.u64() >> (i % 64)).collect();
    let b: Vec<i64> = (0..n).map(|i| (r.u64() as i64) >> (i % 64)).collect();
    let mut want = vec![0u64; 4 * n];
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        let lo = x.wrapping_mul(y as u64);
        let hi = ((x as u128 * y as u64 as u128) >> 64) as u64;
        let shi = ((y as i128 * x as i64 as i128) >> 64) as i64;
        let sum = lo.wrapping_add(hi);
        let carry = (sum < lo) as u64;
        want[4 * i] = sum.wrapping_add(carry).wrapping_add(shi as u64);
        want[4 * i + 1] = (x >> (y & 63)) | ((y >> 3) as u64) << (x & 31);
        want[4 * i + 2] = if (x as i64) < y {
            x.wrapping_sub(y as u64)
        } else {
            (y as u64).wrapping_mul(3)
        };
        let mulhi = ((x as i32 as i64 * y as i32 as i64) >> 32) as i32;
        let umulhi = ((x as u32 as u64 * (y >> 32) as u32 as u64) >> 32) as u32;
        want[4 * i + 3] = (mulhi as i64 as u64).wrapping_add(umulhi as u64);
    }
    launch("int64_math", &[], &[("a", array(&a)), ("b", array(&b))], true, |o| {
        check_exact("out", &o.get::<u64>("out"), &want)
    });
}

fn local_array_case(extra: &[&str]) {
    let mut r = Rng(16);
    let n = 512;
    let keys: Vec<i32> = (0..n).map(|_| r.u32() as i32).collect();
    let picks: Vec<i32> = (0..n).map(|_| r.i32_in(-1000, 1000)).collect();
    let want: Vec<i32> = (0..n)
        .map(|i| {
            let mut a: Vec<i32> = (0..24)
                .map(|k| keys[(i * 24 + k) % n] ^ (k as u32).wrapping_mul(0x9e37_79b9) as i32)
                .collect();
            a.sort();
            let p = picks[i].rem_euclid(24) as usize;
            a[p].wrapping_add(a[23 - p])
        })
        .collect();
    launch(
        "local_array",
        extra,
        &[("keys", array(&keys)), ("picks", array(&picks))],
        true,
        |o| check_exact("out", &o.get::<i32>("out"), &want),
    );
}

#[test]
fn local_array() {
    local_array_case(&[]);
}

#[test]
fn local_array_spilled() {
    local_array_case(&["-maxrregcount", "16"]);
}

#[test]
fn mandelbrot() {
    let (w, hgt, max) = (64usize, 48usize, 200);
    let (x0, y0, step) = (-2.0f32, -1.2f32, 0.05f32);
    let mut want = vec![0u16; w * hgt];
    for py in 0..hgt {
        for px in 0..w {
            let cr = (px as f32).mul_add(step, x0);
            let ci = (py as f32).mul_add(step, y0);
            let (mut zr, mut zi, mut k) = (0f32, 0f32, 0);
            while k < max {
                let (zr2, zi2) = (zr * zr, zi * zi);
                if zr2 + zi2 > 4.0 {
                    break;
                }
                zi = (zr + zr).mul_add(zi, ci);
                zr = cr + (zr2 - zi2);
                k += 1;
            }
            want[py * w + px] = k as u16;
        }
    }
    launch("mandelbrot", &[], &[], true, |o| {
        check_exact("iters", &o.get::<u16>("iters"), &want)
    });
}

fn matmul_case(extra: &[&str]) {
    let mut r = Rng(17);
    let n = 40;
    let a: Vec<f32> = (0..n * n).map(|_| r.f32_in(-1.0, 1.0)).collect();
    let b: Vec<f32> = (0..n * n).map(|_| r.f32_in(-1.0, 1.0)).collect();
    let mut c = vec![0f32; n * n];
    for row in 0..n {
        for col in 0..n {
            let mut acc = 0f32;
            for t in (0..n).step_by(16) {
                for k in 0..16 {
                    let (x, y) = if t + k < n {
                        (a[row * n + t + k], b[(t + k) * n + col])
                    } else {
                        (0.0, 0.0)
                    };
                    acc = x.mul_add(y, acc);
                }
            }
            c[row * n + col] = acc;
        }
    }
    launch(
        "matmul_tiled",
        extra,
        &[("a", array(&a)), ("b", array(&b))],
        true,
        |o| check_f32("c", &o.get("c"), &c),
    );
}

#[test]
fn matmul_tiled() {
    matmul_case(&[]);
}

#[test]
fn matmul_tiled_spilled() {
    matmul_case(&["-maxrregcount", "16"]);
}

/// CUDA's fminf/fmaxf: the number if one operand is NaN, -0 < +0.
fn fmin32(a: f32, b: f32) -> f32 {
    if a.is_nan() {
        b
    } else if b.is_nan() || a < b || (a == b && a.is_sign_negative()) {
        a
    } else {
        b
    }
}

fn fmax32(a: f32, b: f32) -> f32 {
    -fmin32(-a, -b)
}

#[test]
fn minmax_abs() {
    let mut r = Rng(18);
    let n = 512;
    let a: Vec<i32> = (0..n)
        .map(|i| if i % 9 == 0 { i32::MIN } else { r.i32_in(-1000, 1000) })
        .collect();
    let l: Vec<i64> = (0..n).map(|_| (r.u64() as i64) >> 20).collect();
    let f: Vec<f32> = (0..n)
        .map(|i| match i % 10 {
            0 => f32::NAN,
            1 => -0.0,
            2 => 0.0,
            _ => r.f32_in(-3.0, 3.0),
        })
        .collect();
    let d: Vec<f64> = (0..n)
        .map(|i| if i % 7 == 0 { -0.0 } else { r.f64_in(-3.0, 3.0) })
        .collect();
    let (mut oi, mut ol, mut of, mut od) = (
        vec![0i32; 3 * n],
        vec![0i64; 2 * n],
        vec![0f32; 2 * n],
        vec![0f64; 2 * n],
    );
    for i in 0..n {
        let (x, y, u, v) = (a[i], l[i], f[i], d[i]);
        let ux = x as u32;
        oi[3 * i] = x.min(100).wrapping_add(x.max(-100)).wrapping_add(x.wrapping_abs());
        oi[3 * i + 1] = ux.min(77).wrapping_add(ux.max(i as u32)) as i32;
        oi[3 * i + 2] = x.clamp(0, 255);
        ol[2 * i] = y.min(i as i64).wrapping_add(y.max(5));
        ol[2 * i + 1] = y.wrapping_abs().wrapping_add((y as u64).max(9) as i64);
        of[2 * i] = fmin32(u, 1.0) + fmax32(u, -1.0) + u.abs();
        let saturate = if u.is_nan() { 0.0 } else { u.clamp(0.0, 1.0) };
        of[2 * i + 1] = saturate + 2.0f32.copysign(u);
        od[2 * i] = v.min(1.0) + v.max(-1.0) + v.abs();
        od[2 * i + 1] = 3.0f64.copysign(v);
    }
    let inputs = [("a", array(&a)), ("l", array(&l)), ("f", array(&f)), ("d", array(&d))];
    launch("minmax_abs", &[], &inputs, true, |o| {
        check_exact("oi", &o.get::<i32>("oi"), &oi);
        check_exact("ol", &o.get::<i64>("ol"), &ol);
        check_f32("of", &o.get("of"), &of);
        check_f64("od", &o.get("od"), &od);
    });
}

#[test]
fn nbody_f32() {
    let mut r = Rng(19);
    let n = 256;
    let pos: Vec<f32> = (0..4 * n)
        .map(|k| {
            if k % 4 == 3 {
                r.f32_in(0.5, 2.0)
            } else {
                r.f32_in(-1.0, 1.0)
            }
        })
        .collect();
    let mut want = vec![0f64; 4 * n];
    for i in 0..n {
        let p: Vec<f64> = (0..4).map(|c| pos[4 * i + c] as f64).collect();
        let mut a = [0f64; 3];
        for j in 0..n {
            let q: Vec<f64> = (0..4).map(|c| pos[4 * j + c] as f64).collect();
            let d = [q[0] - p[0], q[1] - p[1], q[2] - p[2]];
            let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + 0.01f32 as f64;
            let s = q[3] / (r2 * r2.sqrt());
            for c in 0..3 {
                a[c] += d[c] * s;
            }
        }
        want[4 * i..4 * i + 3].copy_from_slice(&a);
    }
    launch("nbody_f32", &[], &[("pos", array(&pos))], true, |o| {
        // rsqrtf (2 ulp) and 256 f32 accumulations against an f64 sum.
        check_close("acc", &widen(&o.get("acc")), &want, 1e-3, 1e-2);
    });
}

#[test]
fn reduce_block() {
    let mut r = Rng(20);
    let n = 8192;
    let x: Vec<f32> = (0..n).map(|_| r.i32_in(-100, 100) as f32).collect();
    let sum: f32 = x.iter().sum();
    launch("reduce_block", &[], &[("x", array(&x))], true, |o| {
        assert_eq!(o.get::<f32>("result")[0], sum)
    });
}

#[test]
fn scan_block() {
    let mut r = Rng(21);
    let n = 1000;
    let input: Vec<i32> = (0..n).map(|_| r.i32_in(-1000, 1000)).collect();
    let mut want = vec![0i32; n];
    for b in 0..2 {
        let mut acc = 0;
        for i in (512 * b..(512 * b + 512)).take_while(|&i| i < n) {
            acc += input[i];
            want[i] = acc;
        }
    }
    launch("scan_block", &[], &[("input", array(&input))], true, |o| {
        check_exact("out", &o.get::<i32>("out"), &want)
    });
}

#[test]
fn special_regs() {
    launch("special_regs", &[], &[], false, |o| {
        let (out, clocks) = (o.get::<u32>("out"), o.get::<i64>("clocks"));
        let sms = ptxc_sim::Config::default().sms;
        for g in 0..256usize {
            let tid = g % 64;
            let next = (tid + 1) % 64;
            // lane ^ warp of the next thread: a small warp number and its lane.
            assert!(out[4 * g] ^ (next as u32 % 32) < 64, "thread {g}: {}", out[4 * g]);
            let (sm, nsm) = (out[4 * g + 1] % 100, out[4 * g + 1] / 100);
            assert!(nsm == sms && sm < nsm, "thread {g}: %smid {sm}, %nsmid {nsm}");
            assert!(
                (0..1_000_000).contains(&clocks[g]),
                "thread {g}: clock64 delta {}",
                clocks[g]
            );
        }
    });
}

fn spill_case(extra: &[&str]) {
    let mut r = Rng(22);
    let n = 528;
    let x: Vec<f64> = (0..n).map(|_| r.f64_in(-2.0, 2.0)).collect();
    let w: Vec<i32> = (0..n).map(|_| r.i32_in(-5, 5)).collect();
    let mut y = vec![0f64; n];
    for (i, out) in y.iter_mut().enumerate().take(n - 16 + 1) {
        let mut acc: Vec<f64> = (0..8).map(|k| x[i + k]).collect();
        let mut iacc: Vec<i32> = (0..8).map(|k| w[i + k]).collect();
        let (mut s, mut t) = (0f64, 0i32);
        for r in 0..4 {
            for k in 0..8 {
                acc[k] = acc[k].mul_add(0.5, x[i + k + r + 1] * iacc[(k + r) & 7] as f64);
                iacc[k] = iacc[k].wrapping_mul(3).wrapping_add(acc[(k + 1) & 7] as i32);
            }
            s += acc[r] + acc[7 - r];
            t ^= iacc[r].wrapping_add(iacc[7 - r]);
        }
        for k in 0..8 {
            s = acc[k].mul_add(iacc[k].wrapping_add(t) as f64, s);
        }
        *out = s;
    }
    launch(
        "spill_pressure",
        extra,
        &[("x", array(&x)), ("w", array(&w))],
        true,
        |o| check_f64("y", &o.get("y"), &y),
    );
}

#[test]
fn spill_pressure() {
    spill_case(&[]);
}

#[test]
fn spill_pressure_spilled() {
    spill_case(&["-maxrregcount", "16"]);
}

#[test]
fn stencil_2d() {
    let mut r = Rng(23);
    let (pitch, w, hgt, alpha) = (72usize, 64usize, 40usize, 0.2f32);
    let input: Vec<f32> = (0..pitch * hgt).map(|_| r.f32_in(0.0, 10.0)).collect();
    let mut want = vec![0f32; pitch * hgt];
    for y in 1..hgt - 1 {
        for x in 1..w - 1 {
            let at = |yy: usize, xx: usize| input[yy * pitch + xx];
            let c = at(y, x);
            let s = at(y, x - 1) + at(y, x + 1) + at(y - 1, x) + at(y + 1, x);
            let t = c.mul_add(-4.0, s);
            want[y * pitch + x] = t.mul_add(alpha, c);
        }
    }
    launch("stencil_2d", &[], &[("input", array(&input))], true, |o| {
        check_f32("out", &o.get("out"), &want)
    });
}

#[test]
fn transcendental() {
    let mut r = Rng(24);
    let n = 512;
    let x: Vec<f32> = (0..n).map(|_| r.f32_in(0.1, 4.0)).collect();
    let d: Vec<f64> = (0..n).map(|_| r.f64_in(0.1, 20.0)).collect();
    let (mut fast, mut precise, mut dp) = (vec![0f64; 3 * n], vec![0f64; 3 * n], vec![0f64; n]);
    for i in 0..n {
        let v = x[i] as f64;
        fast[3 * i] = v.exp() + v.ln();
        fast[3 * i + 1] = v.sin() * v.cos();
        fast[3 * i + 2] = v.powf(1.5) + v.tan() + v.exp2() + v.log2();
        precise[3 * i] = v.exp() + v.ln();
        precise[3 * i + 1] = v.sin() * v.cos();
        precise[3 * i + 2] = v.powf(2.5) + v.tanh();
        dp[i] = d[i].exp() + d[i].ln();
    }
    launch(
        "transcendental",
        &[],
        &[("x", array(&x)), ("d", array(&d))],
        true,
        |o| {
            // The fast intrinsics: about 2^-21 absolute error near their arguments' period,
            // a few ulp relative otherwise; __tanf near pi/2 is ill-conditioned.
            let got = widen(&o.get("fast"));
            let ok: Vec<usize> = (0..3 * n)
                .filter(|&k| (x[k / 3] as f64 - std::f64::consts::FRAC_PI_2).abs() > 0.05)
                .collect();
            let pick = |v: &[f64]| ok.iter().map(|&k| v[k]).collect::<Vec<_>>();
            check_close("fast", &pick(&got), &pick(&fast), 1e-4, 1e-4);
            check_close("precise", &widen(&o.get("precise")), &precise, 1e-6, 1e-6);
            check_close("dp", &o.get("dp"), &dp, 1e-14, 0.0);
        },
    );
}

#[test]
fn uniform_params() {
    let mut r = Rng(25);
    let (rows, cols, stride, seed) = (8usize, 16usize, 20usize, 12345u32);
    let table: Vec<f32> = (0..rows * stride).map(|_| r.f32_in(-1.0, 1.0)).collect();
    let mut acc = 0f32;
    let mut h = seed;
    for row in 0..rows {
        h = h.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        for c in (0..cols).step_by(4) {
            acc = table[row * stride + c].mul_add((h >> 16) as f32, acc);
        }
    }
    let want: Vec<f32> = (0..128).map(|t| acc + (t / 64) as f32).collect();
    launch("uniform_params", &[], &[("table", array(&table))], true, |o| {
        check_f32("out", &o.get("out"), &want)
    });
}

#[test]
fn warp_shuffle_reduce() {
    let mut r = Rng(26);
    let n = 1024;
    let x: Vec<f32> = (0..n).map(|_| r.f32_in(-1.0, 1.0)).collect();
    let d: Vec<f64> = (0..n).map(|_| r.f64_in(-1.0, 1.0)).collect();
    let (mut sums, mut dsums, mut scans) = (vec![0f32; n / 32], vec![0f64; n / 32], vec![0i32; n]);
    for w in 0..n / 32 {
        let mut v: Vec<f32> = (0..32).map(|l| x[32 * w + l]).collect();
        let mut dd: Vec<f64> = (0..32).map(|l| d[32 * w + l]).collect();
        for off in [16, 8, 4, 2, 1] {
            v = (0..32).map(|l| v[l] + v[l ^ off]).collect();
            dd = (0..32)
                .map(|l| dd[l] + if l + off < 32 { dd[l + off] } else { dd[l] })
                .collect();
        }
        sums[w] = v[0];
        dsums[w] = dd[0];
        let mut s: Vec<i32> = (0..32).map(|l| (32 * w + l) as i32).collect();
        for off in [1, 2, 4, 8, 16] {
            s = (0..32)
                .map(|l| if l >= off { s[l] + s[l - off] } else { s[l] })
                .collect();
        }
        for l in 0..32 {
            scans[32 * w + l] = s[l] + s[(l * 7) & 31] + s[l & !15];
        }
    }
    launch(
        "warp_shuffle_reduce",
        &[],
        &[("x", array(&x)), ("d", array(&d))],
        true,
        |o| {
            check_f32("sums", &o.get("sums"), &sums);
            check_f64("dsums", &o.get("dsums"), &dsums);
            check_exact("scans", &o.get::<i32>("scans"), &scans);
        },
    );
}

#[test]
fn warp_vote() {
    let mut r = Rng(27);
    let n = 1000;
    let x: Vec<i32> = (0..n).map(|i| if i % 5 == 0 { 0 } else { r.i32_in(-8, 40) }).collect();
    let mut want = vec![0u32; 4 * n];
    for w in 0..32 {
        let v: Vec<i32> = (0..32)
            .map(|l| if 32 * w + l < n { x[32 * w + l] } else { 0 })
            .collect();
        let ballot = (0..32).fold(0u32, |m, l| m | ((v[l] > 0) as u32) << l);
        let any = v.contains(&3) as u32;
        let all = v.iter().all(|&e| e != 0) as u32;
        let same_all = v.iter().all(|&e| e >> 4 == v[0] >> 4);
        for l in 0..32 {
            let i = 32 * w + l;
            if i >= n {
                continue;
            }
            let peers = (0..32).fold(0u32, |m, k| m | ((v[k] & 7 == v[l] & 7) as u32) << k);
            let lt = (1u32 << l) - 1;
            want[4 * i] = ballot;
            want[4 * i + 1] = (ballot & lt).count_ones() + any + 2 * all;
            want[4 * i + 2] = u32::MAX ^ peers;
            want[4 * i + 3] = if same_all { u32::MAX } else { 0 }.wrapping_add(same_all as u32);
        }
    }
    launch("warp_vote", &[], &[("x", array(&x))], true, |o| {
        check_exact("out", &o.get::<u32>("out"), &want)
    });
}
