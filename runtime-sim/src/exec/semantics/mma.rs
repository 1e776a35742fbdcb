//! Tensor-core instructions: HMMA.1688, the HMMA.884 steps, IMMA.8816/.8832, BMMA.88128,
//! MOVM, and Ampere's HMMA.16816, HMMA.1688 with bf16 or tf32 multiplicands and
//! IMMA.16816/.16832. Each reads the fragments of the whole warp and writes the lanes of `exec`. The
//! register layouts are PTX's fragment layouts (PTX ISA, "Matrix fragments for mma"), which
//! ptxas maps onto the instructions register for register (ptxas 13.5 compiles
//! `mma.m16n8k8 {d0,d1,d2,d3}, {a0,a1}, {b0}, {c0,..,c3}` to `HMMA.1688.F32 R8, R2, R0, R8`
//! with d0 in R8). In a lane `l`, `g = l / 4` and `t = l % 4`:
//!
//! - HMMA.1688 (16x8x8): A register 0 holds row g, columns 2t and 2t+1 (low half first),
//!   register 1 row g+8; B holds rows 2t and 2t+1 of column g; an f32 C/D holds (g, 2t),
//!   (g, 2t+1), (g+8, 2t), (g+8, 2t+1), an f16 C/D the same four elements as two pairs.
//! - HMMA.884 (`mma.m8n8k4`): four independent 8x8x4 products, one per quad-pair (lanes
//!   4q..4q+3 and 16+4q..16+4q+3). A row-major lane holds a row of A (row l%4, plus 4 in
//!   the upper half-warp), a column-major lane a column; B likewise. An f16 C/D lane holds a
//!   whole row (8 halves in 4 registers); an f32 C/D lane holds 8 elements at row
//!   `(l&1) + (i&2)` (plus 4), column `(i&4) + (l&2) + (i&1)`. STEPn writes D registers
//!   2n and 2n+1 and reads the C pair that holds their accumulators: C registers 2n, 2n+1,
//!   or, for an f16 C under an f32 D, registers 0, 1 (steps 0 and 1) or 2, 3 (steps 2, 3).
//! - IMMA.8816: A holds row g, columns 4t..4t+3 (byte i is column 4t+i), B column g, rows
//!   4t..4t+3; C/D hold (g, 2t) and (g, 2t+1). IMMA.8832: eight nibbles, columns (rows)
//!   8t..8t+7. BMMA.88128: 32 bits, columns (rows) 32t..32t+31, bit i first.
//! - HMMA.16816 (16x16x16, sm_80): A registers 0..3 hold (g, 2t..2t+1), (g+8, 2t..),
//!   (g, 2t+8..), (g+8, 2t+8..); B registers 0 and 1 rows 2t, 2t+1 and 2t+8, 2t+9 of column
//!   g; C/D as HMMA.1688. With tf32 multiplicands (HMMA.1688.TF32) each register holds one
//!   element: A (g, t), (g+8, t), (g, t+4), (g+8, t+4); B rows t and t+4 of column g.
//! - IMMA.16816 / .16832 (sm_80): A register 0 holds row g, columns 4t..4t+3 (byte i is
//!   column 4t+i), register 1 row g+8; for k32 registers 2 and 3 the same at columns +16. B
//!   register 0 holds rows 4t..4t+3 of column g (k32: register 1 rows +16). C/D are quads:
//!   (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1). With 4-bit elements (IMMA.16832 and
//!   .16864) a register holds eight nibbles, columns (rows) 8t..8t+7, and the second
//!   register pair of A (of B: register 1) starts at column (row) 32.
//! - HMMA.1684 (tf32, sm_80): A registers 0 and 1 hold (g, t) and (g+8, t), B (t, g).
//! - BMMA.88128 (from sm_80 also `.AND.POPC`), BMMA.168128 / .168256 (sm_80): 32 bits to a
//!   register in the layout of the 8-bit shapes (a register word is four bytes' span).
//! - DMMA.884 (8x8x4 f64, sm_80): A and B are register pairs holding one f64, C and D quads
//!   holding two: A holds (g, t), B (t, g), C/D (g, 2t) and (g, 2t+1) (PTX ISA, "Matrix
//!   Fragments for mma.m8n8k4 with .f64 floating point type"; ptxas 13.5 compiles
//!   `mma.m8n8k4.f64 {d0, d1}, {a0}, {b0}, {c0, c1}` to `DMMA.884 R12, R2, R4, R8` with d0
//!   in R12:R13 and c0 in R8:R9).
//! - MOVM.16.MT88: an 8x8 matrix of halves, lane l holding row g, columns 2t, 2t+1; the
//!   result holds the transpose in the same layout (PTX `movmatrix`).
//!
//! Arithmetic: f16 products accumulate as `ptxc_softfloat::tensor` models Turing's tensor
//! cores (blocks of four exact products, truncating alignment, f32 accumulators rounded
//! toward zero, f16 accumulators to nearest); the Ampere forms use its Ampere variant
//! (`tensor::Dot::ampere`: blocks of eight f16 or bf16 products, four tf32 products, tf32
//! elements truncated from their f32 registers); the integer forms are exact (a 64-bit sum,
//! wrapped to 32 bits or, with `.SAT`, clamped to the s32 range). `.SATFINITE` clamps an
//! infinite HMMA result to the largest finite value of its type (NaN stays NaN). DMMA is
//! `ptxc_softfloat::tensor::dmma_dot`: a chain of f64 fused multiply-adds from C in
//! increasing k, rounded as the instruction's `.RM`/`.RP` (else to nearest) says.

use super::unsupported;
use crate::decoded::{Decoded, Src, SrcOp};
use crate::error::SimError;
use crate::exec::ctx::Ctx;
use crate::exec::warp::{Row, WARP, Warp};
use ptxc_sass::isa::values::{BmmaOp, HmmaAType, HmmaCType, HmmaDType, ImmaElem, MmaLayout};
use ptxc_sass::isa::{Arch, Op, RZ};
use ptxc_softfloat::{BF16, F16, F32, Format, Rounding, TF32, convert, tensor};

type R = Result<(), SimError>;

/// Register `k` of the tuple at `s`, every lane (RZ and a missing operand read zeros).
fn tuple_row(w: &Warp, s: &SrcOp, k: u8) -> Row {
    match s.src {
        Src::Reg(r) if r != RZ => w.row(r.saturating_add(k)),
        _ => [0; WARP],
    }
}

/// `count` registers of the tuple at `s`.
fn tuple(w: &Warp, s: &SrcOp, count: u8) -> Vec<Row> {
    (0..count).map(|k| tuple_row(w, s, k)).collect()
}

/// Writes `rows` to the destination tuple for the lanes of `exec`.
fn write_tuple(w: &mut Warp, d: &Decoded, exec: u32, rows: &[Row]) {
    if d.dst.reg == RZ {
        return;
    }
    for (k, row) in rows.iter().enumerate() {
        w.write_row(d.dst.reg.saturating_add(k as u8), exec, row);
    }
}

/// Half `i` (0 low, 1 high) of a register.
fn half(v: u32, i: usize) -> u64 {
    (v >> (16 * (i & 1))) as u64 & 0xffff
}

/// An f16 element, negated when the operand is.
fn elem16(v: u32, i: usize, neg: bool) -> u64 {
    half(v, i) ^ if neg { 0x8000 } else { 0 }
}

/// The f16 bits of an element stored in a half, or an f32 widened exactly.
fn to_acc(bits: u64, from: Format, acc: Format) -> u64 {
    if from == acc {
        bits
    } else {
        convert(bits, from, acc, Rounding::Rn)
    }
}

/// `.SATFINITE`: infinities become the largest finite value of the same sign.
fn sat_finite(x: u64, f: Format, on: bool) -> u64 {
    if on && f.is_inf(x) {
        f.max_finite(f.is_negative(x))
    } else {
        x
    }
}

fn format_of(f32: bool) -> Format {
    if f32 { F32 } else { F16 }
}

/// HMMA.1688: D (16x8) = A (16x8) · B (8x8) + C.
pub fn hmma1688(_: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    hmma_m16n8(w, d, exec, 8)
}

/// HMMA.1684 (sm_80, tf32 only): D (16x8) = A (16x4) · B (4x8) + C.
pub fn hmma1684(_: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    hmma_m16n8(w, d, exec, 4)
}

/// HMMA.16816 (sm_80): D (16x8) = A (16x16) · B (16x8) + C.
pub fn hmma16816(_: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    hmma_m16n8(w, d, exec, 16)
}

/// Whether `d` is one of the Ampere forms (sm_80 on), which use Ampere's numerics.
fn ampere_form(d: &Decoded) -> bool {
    d.inst.as_ref().is_some_and(|i| i.desc().archs.since >= Arch::Sm80)
}

/// The multiplicand format of an HMMA and its dot-product model: Turing's (f16, blocks of
/// four) for the sm_75 forms, Ampere's for the sm_80 ones.
fn hmma_dot_model(d: &Decoded) -> tensor::Dot {
    if !ampere_form(d) {
        return tensor::Dot::TURING_F16;
    }
    tensor::Dot::ampere(match d.m.hmma_a {
        HmmaAType::F16 => F16,
        HmmaAType::Bf16 => BF16,
        HmmaAType::Tf32 => TF32,
    })
}

/// The m16n8k`k` HMMA shapes. Element (row, col) of A, (k, n) of B, by the PTX fragment
/// layouts: a 16-bit element `x` of a 16-wide row (or column) lives in register
/// `x / 8` (A: plus `row / 8` first), lane `4 * (row % 8) + (x % 8) / 2`, half `x % 2`; a
/// tf32 element `x` of an 8-wide row in register `x / 4` (A: `row / 8` first), lane
/// `4 * (row % 8) + x % 4`, the whole register.
fn hmma_m16n8(w: &mut Warp, d: &Decoded, exec: u32, k: usize) -> R {
    let dot = hmma_dot_model(d);
    let wide = d.m.hmma_d == HmmaDType::F32;
    let acc = format_of(wide);
    let tf32 = dot.input == TF32;
    let a_regs = if k > 4 && (tf32 || k == 16) { 4 } else { 2 };
    let (a, b) = (tuple(w, &d.a, a_regs), tuple(w, &d.b, a_regs / 2));
    let c = tuple(w, &d.c, if wide { 4 } else { 2 });
    let sign = |neg: bool| if neg { dot.input.sign_bit() } else { 0 };
    let elem = |regs: &[Row], reg: usize, lane: usize, x: usize, neg: bool| {
        let v = regs[reg][lane];
        let bits = if tf32 { tensor::tf32(v as u64) } else { half(v, x) };
        bits ^ sign(neg)
    };
    let per = if tf32 { 4 } else { 8 };
    let lane_of = |row: usize, x: usize| 4 * (row % 8) + if tf32 { x % 4 } else { (x % 8) / 2 };
    let a_at = |r: usize, x: usize| elem(&a, r / 8 + 2 * (x / per), lane_of(r, x), x, d.a.neg);
    let b_at = |x: usize, n: usize| elem(&b, x / per, lane_of(n, x), x, d.b.neg);
    // (row, column) of accumulator element j (0..4) of lane l.
    let at = |l: usize, j: usize| (l / 4 + 8 * (j / 2), 2 * (l % 4) + j % 2);
    let mut out = vec![[0u32; WARP]; if wide { 4 } else { 2 }];
    for l in 0..WARP {
        for j in 0..4 {
            let (row, col) = at(l, j);
            let cv = if wide { c[j][l] as u64 } else { half(c[j / 2][l], j) };
            let av: Vec<u64> = (0..k).map(|x| a_at(row, x)).collect();
            let bv: Vec<u64> = (0..k).map(|x| b_at(x, col)).collect();
            let r = sat_finite(tensor::mma_dot(dot, &av, &bv, cv, acc), acc, d.m.sat_finite);
            if wide {
                out[j][l] = r as u32;
            } else {
                out[j / 2][l] |= (r as u32) << (16 * (j % 2));
            }
        }
    }
    write_tuple(w, d, exec, &out);
    Ok(())
}

/// The quad-pair of lane `l`, its row offset (4 in the upper half-warp) and its index in
/// the quad (`l % 4`).
fn quad(l: usize) -> (usize, usize, usize) {
    ((l % 16) / 4, if l >= 16 { 4 } else { 0 }, l % 4)
}

/// The lane of quad-pair `q` holding row `r` (0..8) in the row-per-lane layouts.
fn lane_of_row(q: usize, r: usize) -> usize {
    4 * q + (r % 4) + if r >= 4 { 16 } else { 0 }
}

/// (row, column) of element `i` (0..8) of an f32 accumulator in lane `l` of `mma.m8n8k4`.
fn f32_at(l: usize, i: usize) -> (usize, usize) {
    let (_, hi, _) = quad(l);
    ((l & 1) + (i & 2) + hi, (i & 4) + (l & 2) + (i & 1))
}

/// Where an f32 accumulator element (row, column) of quad-pair `q` lives: (lane, element).
fn f32_home(q: usize, row: usize, col: usize) -> (usize, usize) {
    let (hi, r) = (row / 4, row % 4);
    let lane = 4 * q + 16 * hi + (r & 1) + (col & 2);
    (lane, (r & 2) + (col & 4) + (col & 1))
}

/// One HMMA.884 step: register pair `2n, 2n+1` of D for every lane of `exec`.
// The lane index addresses the lane's row and column as well as `out`.
#[allow(clippy::needless_range_loop)]
pub fn hmma884(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32, exec: u32) -> R {
    let step = d.m.hmma_step.code() as usize;
    let d32 = d.m.hmma_d == HmmaDType::F32;
    let c32 = d.m.hmma_c == HmmaCType::F32;
    let acc = format_of(d32);
    let (a, b, c) = (tuple(w, &d.a, 2), tuple(w, &d.b, 2), tuple(w, &d.c, 2));
    let a_col = MmaLayout::from_code(d.a.swizzle) == MmaLayout::Col;
    let b_col = MmaLayout::from_code(d.b.swizzle) == MmaLayout::Col;
    // A[q][row][k]: row-major lanes hold a row, column-major lanes a column.
    let a_at = |q: usize, row: usize, k: usize| {
        let (lane, i) = if a_col {
            (4 * q + k + if row >= 4 { 16 } else { 0 }, row % 4)
        } else {
            (lane_of_row(q, row), k)
        };
        elem16(a[i / 2][lane], i, d.a.neg)
    };
    let b_at = |q: usize, k: usize, col: usize| {
        let (lane, i) = if b_col {
            (4 * q + col % 4 + if col >= 4 { 16 } else { 0 }, k)
        } else {
            (4 * q + k + if col >= 4 { 16 } else { 0 }, col % 4)
        };
        elem16(b[i / 2][lane], i, d.b.neg)
    };
    // The first C register of the fragment that this step's C pair holds.
    let c_base = if c32 || !d32 { 2 * step } else { 2 * (step / 2) };
    let c_at = |q: usize, row: usize, col: usize| -> Result<u64, ()> {
        let (lane, i) = if c32 {
            f32_home(q, row, col)
        } else {
            (lane_of_row(q, row), col)
        };
        let reg = if c32 { i } else { i / 2 };
        let k = reg.checked_sub(c_base).filter(|&k| k < 2).ok_or(())?;
        let bits = if c32 { c[k][lane] as u64 } else { half(c[k][lane], i) };
        Ok(to_acc(bits, format_of(c32), acc))
    };
    let mut out = [[0u32; WARP]; 2];
    for l in 0..WARP {
        let (q, hi, t) = quad(l);
        // Elements of this step in lane l: f32 elements 2n, 2n+1; f16 halves 4n..4n+3.
        let elems = if d32 {
            2 * step..2 * step + 2
        } else {
            4 * step..4 * step + 4
        };
        for i in elems {
            let (row, col) = if d32 { f32_at(l, i) } else { (t + hi, i) };
            // Every accumulator a step needs is in its C pair (the layouts above); no other
            // reading is modelled.
            let Ok(cv) = c_at(q, row, col) else {
                return unsupported(ctx, w, d, group, exec);
            };
            let av: [u64; 4] = std::array::from_fn(|k| a_at(q, row, k));
            let bv: [u64; 4] = std::array::from_fn(|k| b_at(q, k, col));
            let r = sat_finite(tensor::hmma_dot(&av, &bv, cv, acc), acc, d.m.sat_finite) as u32;
            if d32 {
                out[i - 2 * step][l] = r;
            } else {
                let k = i - 4 * step;
                out[k / 2][l] |= r << (16 * (k % 2));
            }
        }
    }
    write_tuple(w, d, exec, &out);
    Ok(())
}

/// Element `i` of `width`-bit elements packed in `v` (low first), sign-extended if `signed`.
fn packed(v: u32, i: usize, width: u32, signed: bool) -> i64 {
    let raw = (v >> (width * i as u32)) & ((1u32 << width) - 1);
    if signed && raw >> (width - 1) == 1 {
        raw as i64 - (1i64 << width)
    } else {
        raw as i64
    }
}

/// The s32 result of an exact sum: wrapped, or clamped under `.SAT`.
fn s32(sum: i64, sat: bool) -> u32 {
    if sat {
        sum.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32
    } else {
        sum as u32
    }
}

/// The integer MMA with elements of `a` and `b` (one register of A and of B per lane), the
/// dot product of lane-row `g` and lane-column `n` given by `dot`.
fn int_mma(w: &mut Warp, d: &Decoded, exec: u32, dot: impl Fn(&Row, &Row, usize, usize) -> i64) {
    let (a, b, c) = (tuple_row(w, &d.a, 0), tuple_row(w, &d.b, 0), tuple(w, &d.c, 2));
    let mut out = [[0u32; WARP]; 2];
    for l in 0..WARP {
        let (g, t) = (l / 4, l % 4);
        for (j, o) in out.iter_mut().enumerate() {
            let sum = c[j][l] as i32 as i64 + dot(&a, &b, g, 2 * t + j);
            o[l] = s32(sum, d.m.sat_finite);
        }
    }
    write_tuple(w, d, exec, &out);
}

/// IMMA.8816 / .8832: D (8x8 s32) = A (8xK) · B (Kx8) + C, exactly.
pub fn imma(_: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (ea, eb): (ImmaElem, ImmaElem) = (d.m.imma_a.elem(), d.m.imma_b.elem());
    let per = (32 / ea.bits) as usize;
    int_mma(w, d, exec, |a, b, row, col| {
        (0..4 * per)
            .map(|k| {
                let x = packed(a[4 * row + k / per], k % per, ea.bits, ea.signed);
                let y = packed(b[4 * col + k / per], k % per, eb.bits, eb.signed);
                x * y
            })
            .sum()
    });
    Ok(())
}

/// The bit operation of a BMMA (`.XOR` or, from sm_80 on, `.AND`) before its population
/// count.
fn bit_op(d: &Decoded) -> fn(u32, u32) -> u32 {
    match d.m.bmma_op {
        BmmaOp::Xor => |a, b| a ^ b,
        BmmaOp::And => |a, b| a & b,
    }
}

/// BMMA.88128.{XOR|AND}.POPC: D = C + popc(A_row op B_col) over the 128 bits.
pub fn bmma(_: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let op = bit_op(d);
    int_mma(w, d, exec, |a, b, row, col| {
        (0..4)
            .map(|t| op(a[4 * row + t], b[4 * col + t]).count_ones() as i64)
            .sum()
    });
    Ok(())
}

/// BMMA.168128 / .168256 (sm_80): D (16x8 s32) = C + popc(A_row op B_col) over K = 128 or
/// 256 bits (PTX ISA, "Matrix Fragments for mma.m16n8k128 / m16n8k256" of `.b1`): word `w`
/// (32 bits, bit i first) of row `r` of A is register `2 * (w / 4) + r / 8` of lane
/// `4 * (r % 8) + w % 4`, word `w` of column `n` of B register `w / 4` of lane
/// `4 * n + w % 4`; C and D quads as HMMA's f32 accumulators.
pub fn bmma_m16n8(_: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let words = if d.op == Op::Bmma168256 { 8 } else { 4 };
    let (a, b, c) = (tuple(w, &d.a, words / 2), tuple(w, &d.b, words / 4), tuple(w, &d.c, 4));
    let op = bit_op(d);
    let mut out = [[0u32; WARP]; 4];
    for l in 0..WARP {
        for (j, o) in out.iter_mut().enumerate() {
            let (row, col) = (l / 4 + 8 * (j / 2), 2 * (l % 4) + j % 2);
            let sum: i64 = (0..words as usize)
                .map(|x| {
                    let av = a[2 * (x / 4) + row / 8][4 * (row % 8) + x % 4];
                    let bv = b[x / 4][4 * col + x % 4];
                    op(av, bv).count_ones() as i64
                })
                .sum();
            o[l] = s32(c[j][l] as i32 as i64 + sum, d.m.sat_finite);
        }
    }
    write_tuple(w, d, exec, &out);
    Ok(())
}

/// IMMA.16816 / .16832 / .16864 (sm_80): D (16x8 s32) = A (16xK) · B (Kx8) + C with 8-bit
/// or 4-bit elements, exactly. With `per` elements to a register (4 or 8) and `span = 4 *
/// per` (the K one register row of a quad of lanes covers), A register
/// `2 * (x / span) + row / 8` of lane `4 * (row % 8) + (x % span) / per` holds element
/// (row, x) as its element `x % per`; B register `x / span` of lane `4 * n + (x % span) / per`
/// element (x, n); C and D quads as HMMA's f32 accumulators (PTX ISA, "Matrix Fragments for
/// mma.m16n8k16 / m16n8k32 / m16n8k64").
pub fn imma_m16n8(_: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (ea, eb): (ImmaElem, ImmaElem) = (d.m.imma_a.elem(), d.m.imma_b.elem());
    let k: usize = match d.op {
        Op::Imma16864 => 64,
        Op::Imma16832 => 32,
        _ => 16,
    };
    let per = (32 / ea.bits) as usize;
    let span = 4 * per;
    let a = tuple(w, &d.a, (2 * k / span) as u8);
    let b = tuple(w, &d.b, (k / span) as u8);
    let c = tuple(w, &d.c, 4);
    let lane_of = |row: usize, x: usize| 4 * (row % 8) + (x % span) / per;
    let a_at = |r: usize, x: usize| packed(a[2 * (x / span) + r / 8][lane_of(r, x)], x % per, ea.bits, ea.signed);
    let b_at = |x: usize, n: usize| packed(b[x / span][lane_of(n, x)], x % per, eb.bits, eb.signed);
    let mut out = [[0u32; WARP]; 4];
    for l in 0..WARP {
        for (j, o) in out.iter_mut().enumerate() {
            let (row, col) = (l / 4 + 8 * (j / 2), 2 * (l % 4) + j % 2);
            let sum: i64 = (0..k).map(|x| a_at(row, x) * b_at(x, col)).sum();
            o[l] = s32(c[j][l] as i32 as i64 + sum, d.m.sat_finite);
        }
    }
    write_tuple(w, d, exec, &out);
    Ok(())
}

/// The f64 in registers `2k`, `2k + 1` of the tuple `rows`, lane `l`, with the operand's
/// `|x|` and `-x`.
fn f64_elem(rows: &[Row], k: usize, l: usize, s: &SrcOp) -> u64 {
    let mut x = (rows[2 * k][l] as u64) | (rows[2 * k + 1][l] as u64) << 32;
    if s.abs {
        x &= !(1 << 63);
    }
    if s.neg {
        x ^= 1 << 63;
    }
    x
}

/// DMMA.884 (sm_80): D (8x8 f64) = A (8x4) · B (4x8) + C. Lane `4g + t` holds A (g, t),
/// B (t, g) and C/D (g, 2t), (g, 2t + 1).
pub fn dmma(_: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let (a, b, c) = (tuple(w, &d.a, 2), tuple(w, &d.b, 2), tuple(w, &d.c, 4));
    let rnd = crate::fp::rnd(d.m.rnd);
    let element = |l: usize, j: usize| {
        let (g, n) = (l / 4, 2 * (l % 4) + j);
        let row: Vec<u64> = (0..4).map(|k| f64_elem(&a, 0, 4 * g + k, &d.a)).collect();
        let col: Vec<u64> = (0..4).map(|k| f64_elem(&b, 0, 4 * n + k, &d.b)).collect();
        tensor::dmma_dot(&row, &col, f64_elem(&c, j, l, &d.c), rnd)
    };
    let mut out = [[0u32; WARP]; 4];
    for (r, regs) in out.iter_mut().enumerate() {
        for (l, x) in regs.iter_mut().enumerate() {
            *x = (element(l, r / 2) >> (32 * (r % 2))) as u32;
        }
    }
    write_tuple(w, d, exec, &out);
    Ok(())
}

/// MOVM.16.MT88: the transpose of the warp's 8x8 matrix of halves.
pub fn movm(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32, exec: u32) -> R {
    if d.a.src == Src::None {
        return unsupported(ctx, w, d, group, exec);
    }
    let a = tuple_row(w, &d.a, 0);
    let at = |r: usize, c: usize| half(a[4 * r + c / 2], c) as u32;
    let mut out = [0u32; WARP];
    for (l, o) in out.iter_mut().enumerate() {
        let (g, t) = (l / 4, l % 4);
        *o = at(2 * t, g) | at(2 * t + 1, g) << 16;
    }
    write_tuple(w, d, exec, &[out]);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f32_layout_round_trips() {
        for l in 0..32 {
            for i in 0..8 {
                let (row, col) = f32_at(l, i);
                assert_eq!(f32_home(quad(l).0, row, col), (l, i), "lane {l} element {i}");
            }
        }
    }

    #[test]
    fn packed_elements() {
        assert_eq!(packed(0xf0, 0, 4, true), 0);
        assert_eq!(packed(0xf0, 1, 4, true), -1);
        assert_eq!(packed(0xf0, 1, 4, false), 15);
        assert_eq!(packed(0x80ff, 1, 8, true), -128);
        assert_eq!(s32(i64::from(i32::MAX) + 1, true), i32::MAX as u32);
        assert_eq!(s32(i64::from(i32::MAX) + 1, false), i32::MIN as u32);
    }
}
