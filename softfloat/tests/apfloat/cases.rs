//! The comparisons, one test per operation group, each over every format.

use crate::ap::{self, Op, Tf32S, WideS};
use crate::operands::{self, Rng, edges, few_edges};
use crate::{Check, ties};
use ptxc_softfloat::{self as sf, BF16, F16, F32, F64, Format, IntType, Rounding, TF32};
use rustc_apfloat::ieee::{BFloatS, DoubleS, HalfS, IeeeFloat, QuadS, Semantics, SingleS};
use rustc_apfloat::{Float, FloatConvert, Round};
use std::time::Instant;

/// Random operand tuples per format and operation (each compared in all five modes).
const RANDOM: usize = 200_000;

/// Runs `$run::<Semantics>(format, name, ...)` for every format.
macro_rules! each_format {
    ($run:ident($($arg:expr),*)) => {{
        $run::<HalfS>(F16, "f16", $($arg),*);
        $run::<BFloatS>(BF16, "bf16", $($arg),*);
        $run::<Tf32S>(TF32, "tf32", $($arg),*);
        $run::<SingleS>(F32, "f32", $($arg),*);
        $run::<DoubleS>(F64, "f64", $($arg),*);
    }};
}

/// A subnormal flushed to a zero of its sign, written here independently of the crate.
fn ftz(f: Format, x: u64) -> u64 {
    if x & f.exp_mask() == 0 { x & f.sign_bit() } else { x }
}

/// Whether flushing changes any of `xs`.
fn flushes(f: Format, xs: &[u64]) -> bool {
    xs.iter().any(|&x| f.is_subnormal(x))
}

fn ours(op: Op, a: u64, b: u64, c: u64, f: Format, r: Rounding) -> u64 {
    match op {
        Op::Add => sf::add(a, b, f, r),
        Op::Sub => sf::sub(a, b, f, r),
        Op::Mul => sf::mul(a, b, f, r),
        Op::Div => sf::div(a, b, f, r),
        Op::Fma => sf::fma(a, b, c, f, r),
    }
}

/// Compares `op` on one operand tuple in every mode, and its `.ftz` form where flushing
/// changes an operand or the result.
fn compare_op<S: Semantics>(ck: &mut Check, f: Format, name: &str, op: Op, [a, b, c]: [u64; 3]) {
    for r in Rounding::ALL {
        let got = ours(op, a, b, c, f, r);
        let want = ap::arith::<S>(op, a, b, c, r);
        ck.same(f, got, want, || format!("{name} {op:?} {r:?} {a:#x} {b:#x} {c:#x}"));
        if flushes(f, &[a, b, c, got]) {
            let (fa, fb, fc) = (sf::flush(a, f), sf::flush(b, f), sf::flush(c, f));
            let got = sf::flush(ours(op, fa, fb, fc, f, r), f);
            let want = ftz(f, ap::arith::<S>(op, ftz(f, a), ftz(f, b), ftz(f, c), r));
            ck.same(f, got, want, || format!("{name} {op:?}.ftz {r:?} {a:#x} {b:#x} {c:#x}"));
        }
    }
}

fn binary<S: Semantics>(f: Format, name: &str, ck: &mut Check, ops: &[Op], seed: u64) {
    let e = edges(f);
    for &a in &e {
        for &b in &e {
            for &op in ops {
                compare_op::<S>(ck, f, name, op, [a, b, 0]);
            }
        }
    }
    let mut rng = Rng::new(seed ^ f.width() as u64);
    for _ in 0..RANDOM {
        for &op in ops {
            let (a, b) = match op {
                Op::Mul => ties::mul_operands(&mut rng, f),
                Op::Div => ties::div_operands(&mut rng, f),
                _ => ties::add(&mut rng, f),
            };
            compare_op::<S>(ck, f, name, op, [a, b, 0]);
        }
    }
}

#[test]
fn add_and_sub() {
    let (t, mut ck) = (Instant::now(), Check::new("add, sub"));
    each_format!(binary(&mut ck, &[Op::Add, Op::Sub], 1));
    ck.finish(t);
}

#[test]
fn mul() {
    let (t, mut ck) = (Instant::now(), Check::new("mul"));
    each_format!(binary(&mut ck, &[Op::Mul], 2));
    ck.finish(t);
}

#[test]
fn div() {
    let (t, mut ck) = (Instant::now(), Check::new("div"));
    each_format!(binary(&mut ck, &[Op::Div], 3));
    ck.finish(t);
}

fn fma_cases<S: Semantics>(f: Format, name: &str, ck: &mut Check) {
    let e = few_edges(f);
    for &a in &e {
        for &b in &e {
            for &c in &e {
                compare_op::<S>(ck, f, name, Op::Fma, [a, b, c]);
            }
        }
    }
    let mut rng = Rng::new(4 ^ f.width() as u64);
    for _ in 0..2 * RANDOM {
        let (a, b, c) = ties::fma_operands(&mut rng, f);
        compare_op::<S>(ck, f, name, Op::Fma, [a, b, c]);
    }
}

#[test]
fn fma() {
    let (t, mut ck) = (Instant::now(), Check::new("fma"));
    each_format!(fma_cases(&mut ck));
    ck.finish(t);
}

/// `x` as a binary128 value (exact).
fn quad<S: Semantics>(x: u64) -> IeeeFloat<QuadS>
where
    IeeeFloat<S>: FloatConvert<IeeeFloat<QuadS>>,
{
    ap::val::<S>(x).convert_r(Round::NearestTiesToEven, &mut false).value
}

/// Whether `root` is `sqrt(x)` correctly rounded with `r`, from exact squares in binary128
/// of `root`, its neighbours and the midpoints between them (at most 54 bits each, so the
/// squares are exact). A square root is never a midpoint, so both nearest modes agree.
fn sqrt_ok<S: Semantics>(f: Format, x: u64, root: u64, r: Rounding) -> bool
where
    IeeeFloat<S>: FloatConvert<IeeeFloat<QuadS>>,
{
    let v = ap::val::<S>(x);
    if v.is_nan() || (v.is_negative() && !v.is_zero()) {
        return root == f.canonical_nan();
    }
    if v.is_zero() || v.is_infinite() {
        return root == x;
    }
    if f.is_nan(root) || f.is_negative(root) || root == 0 || f.is_inf(root) {
        return false;
    }
    let rn = Round::NearestTiesToEven;
    let q = |b: u64| quad::<S>(b);
    let sq = |y: IeeeFloat<QuadS>| y.mul_r(y, rn).value;
    let mid = |u: u64, w: u64| {
        let two = IeeeFloat::<QuadS>::from_u128(2).value;
        q(u).add_r(q(w), rn).value.div_r(two, rn).value
    };
    let (xv, prev, next) = (q(x), root - 1, root + 1);
    match r {
        Rounding::Rn | Rounding::Rna => sq(mid(prev, root)) < xv && xv < sq(mid(root, next)),
        Rounding::Rz | Rounding::Rm => sq(q(root)) <= xv && xv < sq(q(next)),
        Rounding::Rp => sq(q(prev)) < xv && xv <= sq(q(root)),
    }
}

fn sqrt_cases<S: Semantics>(f: Format, name: &str, ck: &mut Check)
where
    IeeeFloat<S>: FloatConvert<IeeeFloat<QuadS>>,
{
    let mut xs = edges(f);
    let mut rng = Rng::new(5 ^ f.width() as u64);
    for _ in 0..RANDOM {
        let x = operands::any(&mut rng, f);
        // Exact squares and their neighbours too.
        let y = sf::mul(x, x, f, Rounding::Rn);
        xs.extend([x, y, y.wrapping_add(1) & f.mask(), y.wrapping_sub(1) & f.mask()]);
    }
    for &x in &xs {
        for r in Rounding::ALL {
            let root = sf::sqrt(x, f, r);
            ck.holds(sqrt_ok::<S>(f, x, root, r), || {
                format!("{name} sqrt {r:?} {x:#x}: {root:#x}")
            });
            if f.is_subnormal(x) {
                let got = sf::flush(sf::sqrt(sf::flush(x, f), f, r), f);
                ck.holds(got == x & f.sign_bit(), || format!("{name} sqrt.ftz {r:?} {x:#x}"));
            }
        }
        // The host's square roots are correctly rounded to nearest.
        let host = match f {
            F32 => Some(f32::from_bits(x as u32).sqrt().to_bits() as u64),
            F64 => Some(f64::from_bits(x).sqrt().to_bits()),
            _ => None,
        };
        if let Some(h) = host {
            let got = sf::sqrt(x, f, Rounding::Rn);
            ck.holds(got == h || (f.is_nan(h) && got == f.canonical_nan()), || {
                format!("{name} sqrt vs host {x:#x}: {got:#x} {h:#x}")
            });
        }
    }
}

#[test]
fn sqrt() {
    let (t, mut ck) = (Instant::now(), Check::new("sqrt"));
    each_format!(sqrt_cases(&mut ck));
    ck.finish(t);
}

fn convert_pair<S: Semantics, T: Semantics>(ck: &mut Check, (from, fname): (Format, &str), (to, tname): (Format, &str))
where
    IeeeFloat<S>: FloatConvert<IeeeFloat<T>>,
{
    let mut xs = edges(from);
    let mut rng = Rng::new(6 ^ (from.width() as u64) << 8 ^ to.width() as u64);
    xs.extend((0..RANDOM / 2).map(|_| ties::convert_operand(&mut rng, from, to)));
    for &x in &xs {
        for r in Rounding::ALL {
            let got = sf::convert(x, from, to, r);
            let want = ap::convert::<S, T>(x, r);
            ck.same(to, got, want, || format!("{fname}->{tname} {r:?} {x:#x}"));
            if flushes(from, &[x]) || flushes(to, &[got]) {
                let got = sf::flush(sf::convert(sf::flush(x, from), from, to, r), to);
                let want = ftz(to, ap::convert::<S, T>(ftz(from, x), r));
                ck.same(to, got, want, || format!("{fname}->{tname}.ftz {r:?} {x:#x}"));
            }
        }
    }
}

/// Converts from `S` to every format.
fn convert_from<S: Semantics>(from: Format, name: &str, ck: &mut Check)
where
    IeeeFloat<S>: FloatConvert<IeeeFloat<HalfS>>
        + FloatConvert<IeeeFloat<BFloatS>>
        + FloatConvert<IeeeFloat<Tf32S>>
        + FloatConvert<IeeeFloat<SingleS>>
        + FloatConvert<IeeeFloat<DoubleS>>,
{
    let src = (from, name);
    convert_pair::<S, HalfS>(ck, src, (F16, "f16"));
    convert_pair::<S, BFloatS>(ck, src, (BF16, "bf16"));
    convert_pair::<S, Tf32S>(ck, src, (TF32, "tf32"));
    convert_pair::<S, SingleS>(ck, src, (F32, "f32"));
    convert_pair::<S, DoubleS>(ck, src, (F64, "f64"));
}

#[test]
fn convert_between_formats() {
    let (t, mut ck) = (Instant::now(), Check::new("convert"));
    each_format!(convert_from(&mut ck));
    ck.finish(t);
}

fn integral_cases<S: Semantics>(f: Format, name: &str, ck: &mut Check) {
    let mut xs = edges(f);
    let mut rng = Rng::new(7 ^ f.width() as u64);
    xs.extend((0..RANDOM).map(|_| ties::integral_operand(&mut rng, f)));
    for &x in &xs {
        for r in Rounding::ALL {
            let got = sf::round_to_integral(x, f, r);
            ck.same(f, got, ap::round_to_integral::<S>(x, r), || {
                format!("{name} rint {r:?} {x:#x}")
            });
            if f.is_subnormal(x) {
                let got = sf::flush(sf::round_to_integral(sf::flush(x, f), f, r), f);
                let want = ftz(f, ap::round_to_integral::<S>(ftz(f, x), r));
                ck.same(f, got, want, || format!("{name} rint.ftz {r:?} {x:#x}"));
            }
        }
    }
}

#[test]
fn round_to_integral() {
    let (t, mut ck) = (Instant::now(), Check::new("round_to_integral"));
    each_format!(integral_cases(&mut ck));
    ck.finish(t);
}

fn to_int_cases<S: Semantics>(f: Format, name: &str, ck: &mut Check) {
    let mut xs = edges(f);
    let mut rng = Rng::new(8 ^ f.width() as u64);
    xs.extend((0..RANDOM / 2).map(|_| ties::integral_operand(&mut rng, f)));
    // Every width on the edges and some of the rest, the common ones on all.
    for (i, &x) in xs.iter().enumerate() {
        let widths: &[u32] = if i < 1000 { &WIDTHS_ALL } else { &[8, 16, 32, 64] };
        for &bits in widths {
            for signed in [false, true] {
                let ty = IntType::new(bits, signed);
                for r in Rounding::ALL {
                    let got = sf::to_int(x, f, r, ty);
                    let want = ap::to_int::<S>(x, r, bits, signed);
                    let ok = if f.is_nan(x) { got.is_none() } else { got == Some(want) };
                    ck.holds(ok, || {
                        format!("{name} to {ty:?} {r:?} {x:#x}: ours {got:?}, apfloat {want}")
                    });
                }
            }
        }
    }
}

/// Integer widths 1 to 64.
const WIDTHS_ALL: [u32; 64] = {
    let mut w = [0; 64];
    let mut i = 0;
    while i < 64 {
        w[i] = i as u32 + 1;
        i += 1;
    }
    w
};

#[test]
fn to_integer() {
    let (t, mut ck) = (Instant::now(), Check::new("to_int"));
    each_format!(to_int_cases(&mut ck));
    ck.finish(t);
}

fn from_int_cases<S: Semantics>(f: Format, name: &str, ck: &mut Check) {
    let mut rng = Rng::new(9 ^ f.width() as u64);
    let mut vs: Vec<i128> = vec![0, 1, -1, 2, 3, i64::MIN as i128, i64::MAX as i128, u64::MAX as i128];
    vs.extend((0..RANDOM).map(|_| ties::int_value(&mut rng, f.man_bits())));
    for &v in &vs {
        for r in Rounding::ALL {
            let got = sf::from_int(v, f, r);
            ck.same(f, got, ap::from_int::<S>(v, r), || format!("{name} from {v} {r:?}"));
        }
    }
}

#[test]
fn from_integer() {
    let (t, mut ck) = (Instant::now(), Check::new("from_int"));
    each_format!(from_int_cases(&mut ck));
    ck.finish(t);
}

fn min_max_cases<S: Semantics>(f: Format, name: &str, ck: &mut Check) {
    let mut xs = edges(f);
    let mut rng = Rng::new(10 ^ f.width() as u64);
    xs.extend((0..200).map(|_| operands::any(&mut rng, f)));
    for &a in &xs {
        for &b in &xs {
            let what = |m: &str| format!("{name} {m} {a:#x} {b:#x}");
            ck.same(f, sf::min(a, b, f), ap::min_max::<S>(a, b, false), || what("min"));
            ck.same(f, sf::max(a, b, f), ap::min_max::<S>(a, b, true), || what("max"));
        }
    }
}

#[test]
fn min_max() {
    let (t, mut ck) = (Instant::now(), Check::new("min, max"));
    each_format!(min_max_cases(&mut ck));
    ck.finish(t);
}

/// NVIDIA's `.ftz` division: flushed operands; a quotient that is tiny after rounding to the
/// precision of `S` with an unbounded exponent (here: rounded in `W`, of the same precision
/// and a wider exponent) is a signed zero; any other is rounded as usual.
fn div_ftz_cases<S: Semantics, W: Semantics>(f: Format, name: &str, ck: &mut Check)
where
    IeeeFloat<S>: FloatConvert<IeeeFloat<W>>,
    IeeeFloat<W>: FloatConvert<IeeeFloat<S>>,
{
    assert_eq!(S::PRECISION, W::PRECISION);
    let e = edges(f);
    let mut pairs: Vec<(u64, u64)> = e.iter().flat_map(|&a| e.iter().map(move |&b| (a, b))).collect();
    let mut rng = Rng::new(11 ^ f.width() as u64);
    pairs.extend((0..RANDOM).map(|_| ties::div_operands(&mut rng, f)));
    let wide = |x: u64| -> IeeeFloat<W> { ap::val::<S>(x).convert_r(Round::NearestTiesToEven, &mut false).value };
    let min_normal = wide(f.min_normal(false));
    for &(a, b) in &pairs {
        let (fa, fb) = (ftz(f, a), ftz(f, b));
        for r in Rounding::ALL {
            let got = sf::div_ftz(a, b, f, r);
            let (x, y) = (ap::val::<S>(fa), ap::val::<S>(fb));
            let want = if x.is_finite_non_zero() && y.is_finite_non_zero() {
                let q = wide(fa).div_r(wide(fb), ap::round(r)).value;
                if q.abs() < min_normal {
                    f.zero(q.is_negative())
                } else {
                    let back: IeeeFloat<S> = q.convert_r(ap::round(r), &mut false).value;
                    ap::bits(back)
                }
            } else {
                ap::arith::<S>(Op::Div, fa, fb, 0, r)
            };
            ck.same(f, got, want, || format!("{name} div.ftz {r:?} {a:#x} {b:#x}"));
        }
    }
}

#[test]
fn div_ftz() {
    let (t, mut ck) = (Instant::now(), Check::new("div_ftz"));
    div_ftz_cases::<HalfS, WideS<19, 8>>(F16, "f16", &mut ck);
    div_ftz_cases::<BFloatS, WideS<19, 11>>(BF16, "bf16", &mut ck);
    div_ftz_cases::<Tf32S, WideS<22, 11>>(TF32, "tf32", &mut ck);
    div_ftz_cases::<SingleS, WideS<35, 11>>(F32, "f32", &mut ck);
    div_ftz_cases::<DoubleS, WideS<68, 15>>(F64, "f64", &mut ck);
    ck.finish(t);
}
