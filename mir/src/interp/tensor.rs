//! Warp matrix multiply-accumulate: the integer shapes ([`crate::ir::Opcode::MmaInt`],
//! [`crate::ir::Opcode::MmaIntM16n8`]: exact products and sums, wrapped to 32 bits or
//! saturated with `.satfinite`) and the f16 family ([`crate::ir::Opcode::MmaF16`],
//! [`crate::ir::Opcode::Mma884`]: numerics of `ptxc_softfloat::tensor`) and f64
//! ([`crate::ir::Opcode::MmaF64`]: `ptxc_softfloat::tensor::dmma_dot`).

use crate::ir::mma::{MmaF16Flags, MmaInput, MmaIntFlags};

/// One lane's `(d0, d1)` of `mma_int` with `flags` (see the opcode), given the A and B words
/// of every lane (`None` for lanes that do not take part) and this lane's C.
pub fn mma_int(flags: u64, lane: u32, ab: &dyn Fn(u32) -> Option<(u64, u64)>, c: [u64; 2]) -> Result<[u64; 2], String> {
    let bits = (flags & 0xff) as u32;
    let (a_signed, b_signed, sat) = (flags >> 8 & 1 == 1, flags >> 9 & 1 == 1, flags >> 10 & 1 == 1);
    let and = flags >> 11 & 1 == 1;
    let word = |l: u32| ab(l).ok_or_else(|| format!("lane {l} does not take part in mma"));
    let (g, t) = (lane / 4, lane % 4);
    let mut out = [0u64; 2];
    for (i, o) in out.iter_mut().enumerate() {
        let n = 2 * t + i as u32;
        let mut sum = c[i] as u32 as i32 as i64;
        for w in 0..4 {
            let a = word(4 * g + w)?.0 as u32;
            let b = word(4 * n + w)?.1 as u32;
            sum += if bits == 1 {
                (if and { a & b } else { a ^ b }).count_ones() as i64
            } else {
                (0..32 / bits)
                    .map(|e| element(a, e, bits, a_signed) * element(b, e, bits, b_signed))
                    .sum::<i64>()
            };
        }
        *o = if sat {
            sum.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32 as u64
        } else {
            sum as i32 as u32 as u64
        };
    }
    Ok(out)
}

/// One lane's `(d0, d1)` of `mma_f64` (m8n8k4 of f64), given the A and B elements of every
/// lane (`None` for lanes that do not take part) and this lane's C: lane `4g + t` holds
/// A (g, t) and B (t, g), C and D (g, 2t) and (g, 2t + 1).
pub fn mma_f64(lane: u32, ab: &dyn Fn(u32) -> Option<(u64, u64)>, c: [u64; 2]) -> Result<[u64; 2], String> {
    let elem = |l: u32| ab(l).ok_or_else(|| format!("lane {l} does not take part in mma"));
    let (g, t) = (lane / 4, lane % 4);
    let mut out = [0u64; 2];
    for (j, o) in out.iter_mut().enumerate() {
        let n = 2 * t + j as u32;
        let mut row = Vec::with_capacity(4);
        let mut col = Vec::with_capacity(4);
        for k in 0..4 {
            row.push(elem(4 * g + k)?.0);
            col.push(elem(4 * n + k)?.1);
        }
        *o = ptxc_softfloat::tensor::dmma_dot(&row, &col, c[j], ptxc_softfloat::Rounding::Rn);
    }
    Ok(out)
}

/// Element `e` of `bits` bits of `word`, sign-extended if `signed`.
fn element(word: u32, e: u32, bits: u32, signed: bool) -> i64 {
    let raw = (word >> (e * bits)) & ((1 << bits) - 1);
    if signed && raw >> (bits - 1) == 1 {
        raw as i64 - (1i64 << bits)
    } else {
        raw as i64
    }
}

/// One lane's D registers of `mma_f16` (m16n8k8 or m16n8k16 with `flags`): `regs(l)` are lane
/// `l`'s A and B registers (`None` for lanes that do not take part), `c` this lane's C
/// registers. A 16-bit element `x` of a row of A (column of B) is in register `x / 8` (A:
/// plus `row / 8` first) of lane `4 * (row % 8) + (x % 8) / 2`, half `x % 2`; a tf32
/// element `x` in register `x / 4` (A: `row / 8` first) of lane `4 * (row % 8) + x % 4`.
pub fn mma_f16(
    flags: MmaF16Flags,
    lane: u32,
    regs: &dyn Fn(u32) -> Option<Vec<u64>>,
    c: &[u64],
) -> Result<Vec<u64>, String> {
    use ptxc_softfloat::tensor::{Dot, mma_dot, tf32};
    use ptxc_softfloat::{BF16, F16, F32, TF32};
    let acc = if flags.f32 { F32 } else { F16 };
    let input = match flags.input {
        MmaInput::F16 => F16,
        MmaInput::Bf16 => BF16,
        MmaInput::Tf32 => TF32,
    };
    let dot = if flags.ampere {
        Dot::ampere(input)
    } else {
        Dot::TURING_F16
    };
    let (na, _, _) = flags.regs();
    let k = if flags.k4 {
        4
    } else if flags.k16 {
        16
    } else {
        8
    };
    let is_tf32 = flags.input == MmaInput::Tf32;
    let per = if is_tf32 { 4 } else { 8 };
    let reg = |l: u32, i: usize| {
        regs(l)
            .map(|r| r[i])
            .ok_or_else(|| format!("lane {l} does not take part in mma"))
    };
    let lane_of = |row: u32, x: u32| 4 * (row % 8) + if is_tf32 { x % 4 } else { (x % 8) / 2 };
    let elem = |v: u64, x: u32| if is_tf32 { tf32(v) } else { v >> (16 * (x & 1)) & 0xffff };
    let half = |v: u64, i: u32| v >> (16 * (i & 1)) & 0xffff;
    let (g, t) = (lane / 4, lane % 4);
    let mut out = vec![0u64; if flags.f32 { 4 } else { 2 }];
    for j in 0..4u32 {
        let (row, col) = (g + 8 * (j / 2), 2 * t + j % 2);
        let mut av = Vec::with_capacity(k);
        let mut bv = Vec::with_capacity(k);
        for x in 0..k as u32 {
            let ra = (row / 8 + 2 * (x / per)) as usize;
            av.push(elem(reg(lane_of(row, x), ra)?, x));
            bv.push(elem(reg(lane_of(col, x), na + (x / per) as usize)?, x));
        }
        let cv = if flags.f32 {
            c[j as usize]
        } else {
            half(c[(j / 2) as usize], j)
        };
        let r = mma_dot(dot, &av, &bv, cv, acc);
        if flags.f32 {
            out[j as usize] = r;
        } else {
            out[(j / 2) as usize] |= r << (16 * (j % 2));
        }
    }
    Ok(out)
}

/// One lane's D registers of `mma_int_m16n8` (m16n8k16 / k32 of 8-bit, k32 / k64 of 4-bit,
/// k128 / k256 of single-bit elements): `regs(l)` are lane `l`'s A and B registers, `c` this
/// lane's four C registers. With `per` elements to a register and `span = 4 * per`, element
/// `x` of a row of A (column of B) is element `x % per` of register `x / span` (A: times 2,
/// plus `row / 8`) of lane `4 * (row % 8) + (x % span) / per`. Single bits sum
/// `popc(a & b)` or `popc(a ^ b)` over the register words.
pub fn mma_int_m16n8(
    flags: MmaIntFlags,
    lane: u32,
    regs: &dyn Fn(u32) -> Option<Vec<u64>>,
    c: &[u64],
) -> Result<Vec<u64>, String> {
    let (na, _, _) = flags.regs();
    let (per, k) = (flags.per_reg(), flags.k());
    let span = 4 * per;
    let reg = |l: u32, i: usize| {
        regs(l)
            .map(|r| r[i])
            .ok_or_else(|| format!("lane {l} does not take part in mma"))
    };
    let lane_of = |row: u32, x: u32| 4 * (row % 8) + (x % span) / per;
    let (g, t) = (lane / 4, lane % 4);
    let mut out = vec![0u64; 4];
    for (j, o) in out.iter_mut().enumerate() {
        let (row, col) = (g + 8 * (j as u32 / 2), 2 * t + j as u32 % 2);
        let mut sum = c[j] as u32 as i32 as i64;
        // One register word (`per` elements) at a time.
        for x in (0..k).step_by(per as usize) {
            let a = reg(lane_of(row, x), (2 * (x / span) + row / 8) as usize)? as u32;
            let b = reg(lane_of(col, x), na + (x / span) as usize)? as u32;
            sum += match (flags.bits, flags.and) {
                (1, true) => (a & b).count_ones() as i64,
                (1, false) => (a ^ b).count_ones() as i64,
                (bits, _) => (0..per)
                    .map(|e| element(a, e, bits, flags.a_signed) * element(b, e, bits, flags.b_signed))
                    .sum(),
            };
        }
        *o = if flags.sat {
            sum.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32 as u64
        } else {
            sum as i32 as u32 as u64
        };
    }
    Ok(out)
}

/// One lane's D registers of `mma_884` (`mma.m8n8k4`, flags as the opcode says): `regs(l)` are
/// lane `l`'s arguments `(a0, a1, b0, b1, c...)`. Four independent 8x8x4 products, one per
/// quad-pair `q` (lanes `4q..4q+3` and `16+4q..16+4q+3`), in the PTX ISA's m8n8k4 layouts:
/// a row-major A lane holds row `l % 4` (plus 4 in the upper half-warp) of its quad-pair's
/// A, a column-major one column `l % 4` of rows 0..3 (4..7 above); B likewise by columns
/// (column-major) or rows; an f16 C or D lane holds its row's eight halves, an f32 one the
/// eight elements at row `(l & 1) + (i & 2)` (plus 4), column `(i & 4) + (l & 2) + (i & 1)`.
pub fn mma_884(flags: u64, lane: u32, regs: &dyn Fn(u32) -> Option<Vec<u64>>) -> Result<Vec<u64>, String> {
    use ptxc_softfloat::{F16, F32, Rounding, convert};
    let (d32, c32, a_col, b_col) = (
        flags & 1 == 1,
        flags >> 1 & 1 == 1,
        flags >> 2 & 1 == 1,
        flags >> 3 & 1 == 1,
    );
    let acc = if d32 { F32 } else { F16 };
    let reg = |l: usize, k: usize| -> Result<u64, String> {
        regs(l as u32)
            .map(|r| r[k])
            .ok_or_else(|| format!("lane {l} does not take part in mma"))
    };
    let half = |v: u64, i: usize| v >> (16 * (i & 1)) & 0xffff;
    let l = lane as usize;
    let (q, hi, t) = ((l % 16) / 4, if l >= 16 { 4 } else { 0 }, l % 4);
    let upper = |x: usize| if x >= 4 { 16 } else { 0 };
    let a_at = |row: usize, k: usize| -> Result<u64, String> {
        let (lane, i) = if a_col {
            (4 * q + k + upper(row), row % 4)
        } else {
            (4 * q + row % 4 + upper(row), k)
        };
        Ok(half(reg(lane, i / 2)?, i))
    };
    let b_at = |k: usize, col: usize| -> Result<u64, String> {
        let (lane, i) = if b_col {
            (4 * q + col % 4 + upper(col), k)
        } else {
            (4 * q + k + upper(col), col % 4)
        };
        Ok(half(reg(lane, 2 + i / 2)?, i))
    };
    let c_at = |row: usize, col: usize| -> Result<u64, String> {
        if c32 {
            let (h, r) = (row / 4, row % 4);
            let lane = 4 * q + 16 * h + (r & 1) + (col & 2);
            Ok(reg(lane, 4 + (r & 2) + (col & 4) + (col & 1))? & 0xffff_ffff)
        } else {
            let lane = 4 * q + row % 4 + upper(row);
            let c = half(reg(lane, 4 + col / 2)?, col);
            Ok(if d32 { convert(c, F16, F32, Rounding::Rn) } else { c })
        }
    };
    let mut elems = Vec::with_capacity(8);
    for i in 0..8 {
        let (row, col) = if d32 {
            ((l & 1) + (i & 2) + hi, (i & 4) + (l & 2) + (i & 1))
        } else {
            (t + hi, i)
        };
        let mut av = [0u64; 4];
        let mut bv = [0u64; 4];
        for (k, (x, y)) in av.iter_mut().zip(bv.iter_mut()).enumerate() {
            *x = a_at(row, k)?;
            *y = b_at(k, col)?;
        }
        elems.push(ptxc_softfloat::tensor::hmma_dot(&av, &bv, c_at(row, col)?, acc));
    }
    Ok(if d32 {
        elems
    } else {
        elems.chunks(2).map(|p| p[0] | p[1] << 16).collect()
    })
}
