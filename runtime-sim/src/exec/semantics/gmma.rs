//! Hopper's warpgroup tensor-core instructions (sm_90a): HGMMA (PTX `wgmma.mma_async`),
//! WARPGROUP.ARRIVE and WARPGROUP.DEPBAR (`wgmma.fence`, `wgmma.wait_group`), and
//! FENCE.VIEW.ASYNC.S (`fence.proxy.async.shared::cta`).
//!
//! `HGMMA.64xNx16` is run per warp: warp `w` of the warpgroup (its index in the CTA mod 4)
//! computes rows `16w..16w+15` of D (64xN) = A (64x16) B (16xN) + C, reading its rows of A
//! and all of B from shared memory through the matrix descriptors ([`super::matrix_desc`]),
//! or its rows of A from registers. Register fragments (PTX ISA, "Register Fragments" of
//! `wgmma .m64nNk16`; CUTLASS's `CLayout_64xN` and `ALayout_64x16`): in lane `l`,
//! `g = l / 4`, `t = l % 4`, accumulator value `v` is row `16w + g + 8 ((v / 2) % 2)`,
//! column `8 (v / 4) + 2t + v % 2`; f32 values are registers `v`, f16 values halves of
//! register `v / 2` (low first). A from registers is the same layout over 16 columns, four
//! registers of f16 or bf16 pairs. The scale-d predicate false means D = A B (C unread);
//! `.negA`/`.negB` negate the multiplicands, `.tnspA`/`.tnspB` read them MN-major.
//!
//! Asynchrony: the results are computed and written when the HGMMA issues; the warp's timer
//! ([`crate::exec::timer`]) tracks them as outstanding until a `WARPGROUP.DEPBAR` retires
//! their commit group, so an earlier read is a hazard (and sees the old value while the
//! HGMMA runs), as is an HGMMA using registers another instruction accessed since the last
//! `WARPGROUP.ARRIVE`. Shared memory: every warp's generic-proxy writes (stores, atomics,
//! copies) are noted per 16-byte chunk until it executes `FENCE.VIEW.ASYNC.S`; an HGMMA
//! reading a chunk with such writes is reported as a hazard (the async proxy might not see
//! them). Not modelled: the HGMMA reading shared memory later than it issues (a write to
//! its operands before the wait is not detected), and the warpgroup's warps waiting for
//! each other (each warp computes its rows on its own).
//!
//! Arithmetic: `ptxc_softfloat::tensor` with Ampere's parameters (blocks of eight f16 or
//! bf16 products, each k16 step one dot product rounded into the accumulator: toward zero
//! for f32, to nearest for f16). No measurement of Hopper's tensor-core numerics is used:
//! Ampere's model is a modelling choice.

use super::matrix_desc::MatrixDesc;
use crate::decoded::{Decoded, Src};
use crate::error::SimError;
use crate::exec::ctx::Ctx;
use crate::exec::warp::{Row, WARP, Warp};
use crate::stats::Hazard;
use ptxc_sass::isa::RZ;
use ptxc_sass::isa::sm90::gmma::{GmmaShape, shape_of};
use ptxc_sass::isa::values::{HmmaAType, HmmaDType};
use ptxc_softfloat::{BF16, F16, F32, Format, tensor};

type R = Result<(), SimError>;

/// Rows of D (and of A) one warp computes, and K of one HGMMA.
const ROWS: usize = 16;
const K: usize = 16;

/// One row of A or one column of B: K element bit patterns.
type Line = [u64; K];

/// Why an HGMMA cannot run: a layout or field the simulator does not model, or a read
/// outside the CTA's shared memory.
enum Fault {
    Unsupported(String),
    OutOfBounds(u32),
}

/// HGMMA: D = A B (+ C) for the warp's 16 rows.
pub fn hgmma(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32, exec: u32) -> R {
    let at = ctx.at(w, group.trailing_zeros() as usize, d.pc);
    let unsupported = |what: String| SimError::Unsupported {
        at: at.clone(),
        what: format!("{}: {what}", d.text()),
    };
    let Some(shape) = d.inst.as_ref().and_then(shape_of) else {
        return Err(unsupported("not an HGMMA form".into()));
    };
    if exec != u32::MAX {
        return Err(unsupported(format!(
            "running for lanes {exec:#010x} (wgmma.mma_async needs all 32 lanes of each warp of the warpgroup)"
        )));
    }
    let input = match d.m.hmma_a {
        HmmaAType::F16 => F16,
        HmmaAType::Bf16 => BF16,
        HmmaAType::Tf32 => return Err(unsupported("tf32 multiplicands".into())),
    };
    let (a, b) = operands(ctx, w, d, &shape, input).map_err(|f| match f {
        Fault::Unsupported(what) => unsupported(what),
        Fault::OutOfBounds(addr) => SimError::OutOfBounds {
            at: at.clone(),
            space: "shared",
            addr: addr as u64,
            size: 2,
        },
    })?;
    let c = accumulator_input(w, d);
    let out = multiply(&a, &b, &c, d, input);
    for (k, row) in out.iter().enumerate() {
        w.write_row(d.dst.reg.saturating_add(k as u8), exec, row);
    }
    Ok(())
}

/// `FENCE.VIEW.ASYNC.S`: the warp's shared-memory writes so far are visible to HGMMA.
pub fn fence_view_async(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    // The global view orders global memory for the async proxy (TMA), which the model has
    // not: it does not stand for the shared-memory fence.
    if exec != 0 && d.m.async_view == ptxc_sass::isa::values::AsyncView::Shared {
        ctx.cta.fence_async(w.index);
    }
    Ok(())
}

/// The warp's rows of A and the columns of B, negated as the flags say; shared-memory reads
/// without a fence are reported as hazards.
fn operands(
    ctx: &mut Ctx,
    w: &Warp,
    d: &Decoded,
    shape: &GmmaShape,
    input: Format,
) -> Result<(Vec<Line>, Vec<Line>), Fault> {
    let Src::UReg(ur) = d.b.src else {
        return Err(Fault::Unsupported("no descriptor register".into()));
    };
    let first_row = ROWS as u32 * (w.index % 4);
    let flags = shape.flags;
    let mut reads = Reads::default();
    let mut a = if shape.a_in_registers {
        a_from_registers(w, d)
    } else {
        let desc = descriptor(w, ur, "A")?;
        from_shared(
            ctx,
            &desc,
            "A",
            first_row..first_row + ROWS as u32,
            flags.tnsp_a,
            &mut reads,
        )?
    };
    let desc = descriptor(w, ur.saturating_add(2), "B")?;
    let mut b = from_shared(ctx, &desc, "B", 0..shape.n, flags.tnsp_b, &mut reads)?;
    negate(&mut a, flags.neg_a, input);
    negate(&mut b, flags.neg_b, input);
    reads.report(ctx, w, d);
    Ok((a, b))
}

/// Operand `name`'s matrix descriptor in uniform registers `ur`, `ur + 1`.
fn descriptor(w: &Warp, ur: u8, name: &str) -> Result<MatrixDesc, Fault> {
    let raw = w.ureg64(ur);
    MatrixDesc::decode(raw).map_err(|e| Fault::Unsupported(format!("{name}'s matrix descriptor {raw:#x} with {e}")))
}

/// The shared-memory reads of one HGMMA: the first whose bytes have unfenced writes.
#[derive(Default)]
struct Reads {
    unfenced: Option<(u32, u32)>,
}

impl Reads {
    /// Notes a two-byte read at `addr`.
    fn note(&mut self, ctx: &Ctx, addr: u32) {
        if self.unfenced.is_none() {
            let warps = ctx.cta.unfenced_writers(addr as usize, 2);
            if warps != 0 {
                self.unfenced = Some((addr, warps));
            }
        }
    }

    /// Reports an unfenced read as a hazard.
    fn report(&self, ctx: &mut Ctx, w: &Warp, d: &Decoded) {
        let Some((addr, warps)) = self.unfenced else {
            return;
        };
        let (kernel, ctaid) = (ctx.kernel.name.clone(), ctx.cta.ctaid);
        ctx.stats.hazard(|| Hazard {
            kernel,
            ctaid,
            warp: w.index,
            pc: d.pc,
            what: format!(
                "shared memory at {addr:#x}, written by warps {warps:#x} with no FENCE.VIEW.ASYNC.S \
                 (fence.proxy.async) since, read by the async proxy ({})",
                d.text()
            ),
        });
    }
}

/// Lines `mns` of operand `name` (rows of A, columns of B), each K elements, through `desc`.
fn from_shared(
    ctx: &Ctx,
    desc: &MatrixDesc,
    name: &str,
    mns: std::ops::Range<u32>,
    mn_major: bool,
    reads: &mut Reads,
) -> Result<Vec<Line>, Fault> {
    let shared = &ctx.cta.shared;
    mns.map(|mn| {
        let mut line = [0u64; K];
        for (k, e) in line.iter_mut().enumerate() {
            let addr = desc
                .address(mn, k as u32, mn_major)
                .map_err(|what| Fault::Unsupported(format!("{name}'s layout with {what}")))?;
            let bytes = shared
                .get(addr as usize..addr as usize + 2)
                .ok_or(Fault::OutOfBounds(addr))?;
            reads.note(ctx, addr);
            *e = u16::from_le_bytes([bytes[0], bytes[1]]) as u64;
        }
        Ok(line)
    })
    .collect()
}

/// The warp's 16 rows of A from its four registers: row `r`, column `k` is register
/// `r / 8 + 2 (k / 8)` of lane `4 (r % 8) + (k % 8) / 2`, half `k % 2`.
fn a_from_registers(w: &Warp, d: &Decoded) -> Vec<Line> {
    let Src::Reg(ra) = d.a.src else {
        return vec![[0; K]; ROWS];
    };
    (0..ROWS)
        .map(|r| {
            std::array::from_fn(|k| {
                let reg = ra.saturating_add((r / 8 + 2 * (k / 8)) as u8);
                let v = if reg == RZ {
                    0
                } else {
                    w.reg(reg, 4 * (r % 8) + (k % 8) / 2)
                };
                (v >> (16 * (k % 2))) as u64 & 0xffff
            })
        })
        .collect()
}

/// Flips the sign of every element when `on`.
fn negate(lines: &mut [Line], on: bool, input: Format) {
    if on {
        for e in lines.iter_mut().flatten() {
            *e ^= input.sign_bit();
        }
    }
}

/// C's registers, or nothing when the scale-d predicate is false or C is RZ (D = A B).
fn accumulator_input(w: &Warp, d: &Decoded) -> Vec<Row> {
    let width = d.dst.width as usize;
    match d.c.src {
        Src::Reg(rc) if rc != RZ && w.pred_mask(d.ps[0], u32::MAX) != 0 => {
            (0..width).map(|k| w.row(rc.saturating_add(k as u8))).collect()
        }
        _ => vec![[0; WARP]; width],
    }
}

/// (row, column) of accumulator value `v` of lane `l` within the warp's 16 rows.
fn value_at(l: usize, v: usize) -> (usize, usize) {
    (l / 4 + 8 * ((v / 2) % 2), 8 * (v / 4) + 2 * (l % 4) + v % 2)
}

/// D's registers: every lane's values of A B + C.
fn multiply(a: &[Line], b: &[Line], c: &[Row], d: &Decoded, input: Format) -> Vec<Row> {
    let f32_acc = d.m.hmma_d == HmmaDType::F32;
    let acc = if f32_acc { F32 } else { F16 };
    let per_register = if f32_acc { 1 } else { 2 };
    let dot = tensor::Dot::ampere(input);
    let mut out = vec![[0u32; WARP]; c.len()];
    for l in 0..WARP {
        for v in 0..c.len() * per_register {
            let (reg, shift) = (v / per_register, 16 * (v % per_register));
            let bits = if f32_acc { u64::MAX } else { 0xffff };
            let cv = (c[reg][l] >> shift) as u64 & bits;
            let (row, col) = value_at(l, v);
            let r = tensor::mma_dot(dot, &a[row], &b[col], cv, acc);
            out[reg][l] |= (r as u32) << shift;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accumulator_values_follow_the_m64nnk16_fragment() {
        // Lane 5 (g 1, t 1): d0, d1 at row 1, columns 2, 3; d2, d3 at row 9; d4 at column 10.
        assert_eq!(value_at(5, 0), (1, 2));
        assert_eq!(value_at(5, 1), (1, 3));
        assert_eq!(value_at(5, 2), (9, 2));
        assert_eq!(value_at(5, 3), (9, 3));
        assert_eq!(value_at(5, 4), (1, 10));
        // The last value of N = 256 (128 registers): row 15, column 255 in lane 31.
        assert_eq!(value_at(31, 127), (15, 255));
    }
}
