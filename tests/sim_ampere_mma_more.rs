//! More of Ampere's `mma.sync` shapes (`tests/ampere/mma_more.ptx`) on sm_80, sm_86 and sm_89:
//! m16n8k4 of tf32 (HMMA.1684), m16n8k32 and m16n8k64 of 4-bit integers (IMMA.16832 /
//! IMMA.16864, with and without `.satfinite`), Turing's m8n8k16 and m8n8k32 integer shapes
//! (Ampere's IMMA.8816 / IMMA.8832 encodings), and the single-bit shapes m8n8k128,
//! m16n8k128 and m16n8k256 with `.xor.popc` and `.and.popc` (BMMA.88128 / .168128 /
//! .168256), and the same kernels on sm_90, whose tensor cores lack the 4-bit and XOR forms.
//! Each kernel runs as one warp five ways per target (`common::five_ways`: ptxas's
//! and ptxc's cubins on the timed and the functional engine, ptxc's MIR on the interpreter):
//! all runs have zero hazards and agree bit for bit, and D matches a host reference computed
//! from the matrices: exactly for the integer and single-bit forms (a 64-bit sum, wrapped to
//! 32 bits or, with `.satfinite`, clamped to the s32 range; `popc(a & b)` or `popc(a ^ b)`),
//! and for tf32 within the bound of the tensor-core model (`ptxc_softfloat::tensor`, Ampere
//! variant: one block of four tf32 products for k = 4, each term truncated to 23 bits below
//! the block's largest exponent, the f32 sum rounded toward zero): `|d - exact| <=
//! (10 * 2^-23 + 2^-23) * (|c| + sum |a_k b_k|)`. The tf32 elements are their f32 registers
//! with the low 13 bits cleared (the reference multiplies the truncated values; the kernel's
//! inputs have all 32 bits random, so a model that rounded instead would fail the bound
//! only by chance, not by design: the bound is the model's, the truncation rests on the
//! PTX ISA's "the lower 13 bits are ignored" reading of `.tf32` registers).
//!
//! The fragments are built on the host from the PTX ISA's fragment tables ("Matrix
//! Fragments for mma.m16n8k4 / m16n8k32 / m16n8k64 / m16n8k128 / m16n8k256 / m8n8k16 /
//! m8n8k32 / m8n8k128"), independently of the simulator's and the interpreter's register
//! arithmetic.
//!
//! Needs ptxas (`CUDA_ORACLE_BIN`, or installed by `scripts/cuda-oracle`).

mod common;

use common::five_ways::Cubins;
use common::mma::{c_at, pack, spec};
use common::rng::Rng;
use common::*;
use ptxc_sass::isa::Arch;

/// An element type of a fragment.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Ty {
    Tf32,
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
            Ty::S8 | Ty::U8 => 8,
            Ty::S4 | Ty::U4 => 4,
            Ty::B1 => 1,
            _ => 32,
        }
    }
    /// A random element's raw bits: f32 and tf32 with a random sign and significand (all 32
    /// bits random below the exponent for tf32: the kernel must ignore the low 13),
    /// magnitude in [2^-3, 4), one in 16 zero; integers and bits over their whole range, s32
    /// near its limits one time in four.
    fn random(self, r: &mut Rng) -> u32 {
        match self {
            Ty::Tf32 | Ty::F32 if r.below(16) == 0 => 0,
            Ty::Tf32 | Ty::F32 => (r.below(2) as u32) << 31 | (124 + r.below(5) as u32) << 23 | r.below(1 << 23) as u32,
            Ty::S32 => match r.below(8) {
                0 => (i32::MAX - r.below(64) as i32) as u32,
                1 => (i32::MIN + r.below(64) as i32) as u32,
                _ => (r.below(20001) as i32 - 10000) as u32,
            },
            _ => r.below(1 << self.bits()) as u32,
        }
    }
    /// The value the tensor core multiplies or adds.
    fn value(self, raw: u32) -> f64 {
        match self {
            Ty::Tf32 => f32::from_bits(raw & !0x1fff) as f64,
            Ty::F32 => f32::from_bits(raw) as f64,
            Ty::S32 => raw as i32 as f64,
            Ty::S8 => raw as u8 as i8 as f64,
            Ty::U8 | Ty::U4 | Ty::B1 => raw as f64,
            Ty::S4 => ((raw as i32) << 28 >> 28) as f64,
        }
    }
}

/// How the single bits combine.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Bits {
    /// Multiply (the integer and float shapes).
    Mul,
    /// `.xor.popc`.
    Xor,
    /// `.and.popc`.
    And,
}

/// One kernel of `tests/ampere/mma_more.ptx`: `D (m x 8) = A (m x k) B (k x 8) + C`.
struct Kernel {
    name: &'static str,
    m: usize,
    k: usize,
    ab: (Ty, Ty),
    sat: bool,
    op: Bits,
}

const fn kernel(name: &'static str, m: usize, k: usize, ab: (Ty, Ty), sat: bool, op: Bits) -> Kernel {
    Kernel {
        name,
        m,
        k,
        ab,
        sat,
        op,
    }
}

use Bits::*;
use Ty::*;

const KERNELS: [Kernel; 16] = [
    kernel("mma_m16n8k4_tf32", 16, 4, (Tf32, Tf32), false, Mul),
    kernel("mma_m16n8k32_s4_s4", 16, 32, (S4, S4), false, Mul),
    kernel("mma_m16n8k32_u4_s4_sat", 16, 32, (U4, S4), true, Mul),
    kernel("mma_m16n8k64_u4_u4_sat", 16, 64, (U4, U4), true, Mul),
    kernel("mma_m16n8k64_s4_u4", 16, 64, (S4, U4), false, Mul),
    kernel("mma_m8n8k32_s4_s4", 8, 32, (S4, S4), false, Mul),
    kernel("mma_m8n8k32_u4_s4_sat", 8, 32, (U4, S4), true, Mul),
    kernel("mma_m8n8k16_s8_u8", 8, 16, (S8, U8), false, Mul),
    kernel("mma_m8n8k16_u8_u8_sat", 8, 16, (U8, U8), true, Mul),
    kernel("mma_m8n8k16_s8_s8_sat", 8, 16, (S8, S8), true, Mul),
    kernel("mma_m8n8k128_xor", 8, 128, (B1, B1), false, Xor),
    kernel("mma_m8n8k128_and", 8, 128, (B1, B1), false, And),
    kernel("mma_m16n8k128_xor", 16, 128, (B1, B1), false, Xor),
    kernel("mma_m16n8k128_and", 16, 128, (B1, B1), false, And),
    kernel("mma_m16n8k256_xor", 16, 256, (B1, B1), false, Xor),
    kernel("mma_m16n8k256_and", 16, 256, (B1, B1), false, And),
];

impl Kernel {
    /// C's and D's type.
    fn acc(&self) -> Ty {
        if self.ab.0 == Tf32 { F32 } else { S32 }
    }
}

// ---------------------------------------------------------------------------------------
// The PTX ISA's fragment tables: for lane `l` (group `g = l / 4`, `t = l % 4`) and its
// element `i`, the (row, column) of the matrix it holds. Elements are packed into 32-bit
// registers low first, `per = 32 / bits` per register.

/// A's element `i` of lane `l` (m x k of `ty`).
fn a_at(ty: Ty, m: usize, k: usize, l: usize, i: usize) -> (usize, usize) {
    let (g, t) = (l / 4, l % 4);
    match (m, ty.bits(), k) {
        // tf32 a0, a1: (g, t), (g+8, t).
        (16, 32, 4) => (g + 8 * i, t),
        // 4-bit a0..a15: rows g (a0..a7) and g+8 (a8..a15), columns 8t + (i % 8).
        (16, 4, 32) => (g + 8 * (i / 8), 8 * t + i % 8),
        // 4-bit a0..a31: rows g (a0..a7, a16..a23) and g+8, columns 8t + (i % 8), +32 from
        // a16.
        (16, 4, 64) => (g + 8 * (i / 8 % 2), 8 * t + i % 8 + 32 * (i / 16)),
        // b1 a0..a63: rows g (a0..a31) and g+8 (a32..a63), columns 32t + (i % 32).
        (16, 1, 128) => (g + 8 * (i / 32), 32 * t + i % 32),
        // b1 a0..a127: rows g (a0..a31, a64..a95) and g+8, columns 32t + (i % 32), +128
        // from a64.
        (16, 1, 256) => (g + 8 * (i / 32 % 2), 32 * t + i % 32 + 128 * (i / 64)),
        // m8n8: row g, the lane's one register of columns: 4t.. (8-bit), 8t.. (4-bit),
        // 32t.. (b1).
        (8, 8, 16) => (g, 4 * t + i),
        (8, 4, 32) => (g, 8 * t + i),
        (8, 1, 128) => (g, 32 * t + i),
        _ => unreachable!("no such A fragment"),
    }
}

/// B's element `i` of lane `l` (k x 8 of `ty`): column g.
fn b_at(ty: Ty, k: usize, l: usize, i: usize) -> (usize, usize) {
    let (g, t) = (l / 4, l % 4);
    let row = match (ty.bits(), k) {
        // tf32 b0: row t.
        (32, 4) => t,
        // 4-bit m16n8k32 / m8n8k32 b0..b7: rows 8t + i.
        (4, 32) => 8 * t + i,
        // 4-bit m16n8k64 b0..b15: rows 8t + (i % 8), +32 from b8.
        (4, 64) => 8 * t + i % 8 + 32 * (i / 8),
        // 8-bit m8n8k16 b0..b3: rows 4t + i.
        (8, 16) => 4 * t + i,
        // b1 k128 b0..b31: rows 32t + i.
        (1, 128) => 32 * t + i,
        // b1 k256 b0..b63: rows 32t + (i % 32), +128 from b32.
        (1, 256) => 32 * t + i % 32 + 128 * (i / 32),
        _ => unreachable!("no such B fragment"),
    };
    (row, g)
}

/// One product term of the reference.
fn term(k: &Kernel, a: u32, b: u32) -> f64 {
    let (ta, tb) = k.ab;
    match k.op {
        Mul => ta.value(a) * tb.value(b),
        Xor => (a ^ b) as f64,
        And => (a & b) as f64,
    }
}

/// Checks D (lane-major words, `per_lane` per lane) against the product of the matrices.
fn check_reference(k: &Kernel, a: &[Vec<u32>], b: &[Vec<u32>], c: &[Vec<u32>], d: &[u32]) -> Vec<String> {
    let mut bad = Vec::new();
    let per_lane = k.m / 4;
    for l in 0..32 {
        for e in 0..per_lane {
            let (i, j) = c_at(l, e);
            let got_raw = d[l * per_lane + e];
            if k.acc() == F32 {
                let cv = F32.value(c[i][j]);
                let (mut exact, mut mag) = (cv, cv.abs());
                for x in 0..k.k {
                    let p = term(k, a[i][x], b[x][j]);
                    exact += p;
                    mag += p.abs();
                }
                let bound = k.k.div_ceil(4) as f64 * 11.0 * 2f64.powi(-23) * mag;
                let got = F32.value(got_raw);
                if (got - exact).abs() > bound {
                    bad.push(format!("D[{i}][{j}] = {got}, exact {exact}, bound {bound}"));
                }
            } else {
                let sum: i64 = c[i][j] as i32 as i64 + (0..k.k).map(|x| term(k, a[i][x], b[x][j]) as i64).sum::<i64>();
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
    let ptx = root().join("tests/ampere/mma_more.ptx");
    let cubins = Cubins::new(arch, &ptx, "mma_more");
    let dir = scratch(&format!("sim_ampere_mma_more_run_{}", arch.name()));
    let mut failures = Vec::new();
    for (n, k) in KERNELS.iter().enumerate() {
        let mut r = Rng(0x5eed_1000 + n as u64);
        let (ta, tb) = k.ab;
        let matrix = |rows: usize, cols: usize, ty: Ty, r: &mut Rng| -> Vec<Vec<u32>> {
            (0..rows).map(|_| (0..cols).map(|_| ty.random(r)).collect()).collect()
        };
        let a = matrix(k.m, k.k, ta, &mut r);
        let b = matrix(k.k, 8, tb, &mut r);
        let c = matrix(k.m, 8, k.acc(), &mut r);
        // Elements per lane: A m k / 32, B 8 k / 32, C m 8 / 32.
        let aw = pack(&a, ta.bits(), k.m * k.k / 32, |l, i| a_at(ta, k.m, k.k, l, i));
        let bw = pack(&b, tb.bits(), k.k / 4, |l, i| b_at(tb, k.k, l, i));
        let cw = pack(&c, k.acc().bits(), k.m / 4, c_at);
        let spec = spec(&dir, k.name, [&aw, &bw, &cw], cw.len());
        let bytes = cubins.agree(&spec, "d");
        let d = words(&bytes);
        failures.extend(
            check_reference(k, &a, &b, &c, &d)
                .into_iter()
                .take(4)
                .map(|e| format!("{} {}: {e}", arch.name(), k.name)),
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn sm80_more_mma_shapes_agree_five_ways_and_match_the_host_reference() {
    every_kernel_on(Arch::Sm80);
}

#[test]
fn sm86_more_mma_shapes_agree_five_ways_and_match_the_host_reference() {
    every_kernel_on(Arch::Sm86);
}

#[test]
fn sm89_more_mma_shapes_agree_five_ways_and_match_the_host_reference() {
    every_kernel_on(Arch::Sm89);
}

/// On sm_90 the 4-bit and `.xor.popc` kernels run as expanded (`mir/src/lower/mma_sub_byte.rs`
/// in ptxc, a subroutine in ptxas); the MIR way runs the unexpanded `mma` on the interpreter.
#[test]
fn sm90_more_mma_shapes_agree_five_ways_and_match_the_host_reference() {
    every_kernel_on(Arch::Sm90);
}

/// The sm_80 shapes are refused for an sm_75 module at the instruction, naming the shape.
#[test]
fn ampere_shapes_are_refused_on_sm75_with_the_shape() {
    let src = std::fs::read_to_string(root().join("tests/ampere/mma_more.ptx"))
        .unwrap()
        .replace(".target sm_80", ".target sm_75");
    let err = ptxc::pipeline::compile_ptx(&src, "mma_more", &Default::default())
        .expect_err("refused")
        .0;
    assert!(err.contains("m16n8k4") && err.contains("sm_80"), "{err}");
}
