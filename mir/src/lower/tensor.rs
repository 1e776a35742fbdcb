//! Tensor-core instructions: `mma.sync.aligned` of the integer shapes (m8n8k16 s8/u8,
//! m8n8k32 s4/u4, m8n8k128 b1) becomes one [`Opcode::MmaInt`], the m16n8 integer shapes
//! (k16/k32 of 8-bit, k32/k64 of 4-bit, k128/k256 of single-bit elements) one
//! [`Opcode::MmaIntM16n8`], m16n8k4 of tf32 and m16n8k8 and m16n8k16 of f16, bf16 or tf32
//! one [`Opcode::MmaF16`], m8n8k4 one [`Opcode::Mma884`] (f16) or [`Opcode::MmaF64`] (f64;
//! sm_80) (`wmma` is in `wmma.rs`). Where the target's tensor cores lack a form (4-bit and
//! `.xor.popc` on sm_90, m8n8k4 of f16 from sm_80 on), `mma_sub_byte.rs` and `mma_m8n8k4.rs`
//! expand it instead.

use super::LowerError;
use super::context::Lowerer;
use crate::ir::mma::{MmaF16Flags, MmaInput, MmaIntFlags};
use crate::ir::{Aux, Opcode, Type};
use ptxc_frontend::checked::CheckedInst;
use ptxc_frontend::tensor::{MmaLayout, MmaOp, MmaShape, MmaType, TensorOp};

impl Lowerer<'_> {
    /// `mma.sync.aligned.shape.row.col{.satfinite}.s32.atype.btype.s32 {d0, d1}, {a}, {b},
    /// {c0, c1}` (b1: `.xor.popc`).
    pub fn lower_mma(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let Some(TensorOp::Mma(m)) = inst.tensor else {
            return Err(LowerError::new("mma without its shape and types", inst.span));
        };
        let float = matches!(m.types.a, MmaType::F16 | MmaType::Bf16 | MmaType::Tf32);
        if matches!(m.shape, MmaShape::M16n8k4 | MmaShape::M16n8k8 | MmaShape::M16n8k16)
            && float
            && m.types.c == m.types.d
        {
            let flags = MmaF16Flags {
                f32: m.types.d == MmaType::F32,
                input: match m.types.a {
                    MmaType::Bf16 => MmaInput::Bf16,
                    MmaType::Tf32 => MmaInput::Tf32,
                    _ => MmaInput::F16,
                },
                k16: m.shape == MmaShape::M16n8k16,
                ampere: self.module.target_sm >= 80,
                k4: m.shape == MmaShape::M16n8k4,
            };
            return self.lower_mma_f16(inst, flags);
        }
        if m.shape.dims().0 == 16 {
            let bits = m.types.a.bits();
            let flags = MmaIntFlags {
                a_signed: m.types.a.is_signed(),
                b_signed: m.types.b.is_signed(),
                sat: m.satfinite,
                // The longer shape of each element size: 256 bits of A's row per register.
                long_k: m.shape.dims().2 * bits == 256,
                bits,
                and: m.and_popc,
            };
            return self.lower_mma_m16n8_int(inst, flags);
        }
        if m.shape == MmaShape::M8n8k4 && m.types.a == MmaType::F64 {
            return self.lower_mma_f64(inst);
        }
        if m.shape == MmaShape::M8n8k4 {
            return self.lower_mma_884(inst, m);
        }
        let bits: u64 = match m.shape {
            MmaShape::M8n8k16 => 8,
            MmaShape::M8n8k32 => 4,
            MmaShape::M8n8k128 => 1,
            other => {
                return Err(LowerError::new(
                    format!("`mma.{}` is not supported by this version of ptxc", other.name()),
                    inst.span,
                ));
            }
        };
        let signed = |t: MmaType| matches!(t, MmaType::S8 | MmaType::S4) as u64;
        let flags = bits
            | signed(m.types.a) << 8
            | signed(m.types.b) << 9
            | (m.satfinite as u64) << 10
            | (m.and_popc as u64) << 11;
        let mut args = Vec::new();
        for i in 1..4 {
            for e in self.elements(self.arg(inst, i)?) {
                args.push(self.operand(&e, Type::I32, false, inst.span)?);
            }
        }
        if args.len() != 4 {
            return Err(LowerError::new("mma needs one A, one B and two C registers", inst.span));
        }
        let d = self.vector_regs(inst, 0)?;
        let r = self.emit_mma_int(flags, &args);
        for (d, v) in d.into_iter().zip(r) {
            if let Some(d) = d {
                self.write_reg(d, v, false, inst.span)?;
            }
        }
        Ok(())
    }

    /// `mma.sync.aligned.m16n8k{8,16}.row.col.dtype.atype.btype.ctype {d...}, {a...}, {b...},
    /// {c...}` (f16, bf16 or tf32 multiplicands).
    fn lower_mma_f16(&mut self, inst: &CheckedInst, flags: MmaF16Flags) -> Result<(), LowerError> {
        let (a, b, c) = flags.regs();
        self.lower_mma_regs(inst, Opcode::MmaF16, a + b + c, flags.bits())
    }

    /// `mma.sync.aligned.m16n8kK.row.col{.satfinite}.s32.atype.btype.s32 {d0..d3},
    /// {a...}, {b...}, {c0..c3}` (8-bit, 4-bit or single-bit elements).
    fn lower_mma_m16n8_int(&mut self, inst: &CheckedInst, flags: MmaIntFlags) -> Result<(), LowerError> {
        let (a, b, c) = flags.regs();
        self.lower_mma_regs(inst, Opcode::MmaIntM16n8, a + b + c, flags.bits())
    }

    /// One `op` over the registers of operands 1..4 (`count` in all), writing operand 0.
    fn lower_mma_regs(&mut self, inst: &CheckedInst, op: Opcode, count: usize, flags: u64) -> Result<(), LowerError> {
        let mut args = Vec::new();
        for i in 1..4 {
            for e in self.elements(self.arg(inst, i)?) {
                args.push(self.operand(&e, Type::I32, false, inst.span)?);
            }
        }
        if args.len() != count {
            return Err(LowerError::new(
                format!("mma has {} source registers, expected {count}", args.len()),
                inst.span,
            ));
        }
        let d = self.vector_regs(inst, 0)?;
        let r = if op == Opcode::MmaIntM16n8 {
            self.emit_mma_int_m16n8(MmaIntFlags::from_bits(flags), &args)
        } else {
            self.emit_multi(op, Type::I32, &args, Aux::Imm(flags))
        };
        for (d, v) in d.into_iter().zip(r) {
            if let Some(d) = d {
                self.write_reg(d, v, false, inst.span)?;
            }
        }
        Ok(())
    }

    /// `mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {d0, d1}, {a0}, {b0}, {c0, c1}`.
    fn lower_mma_f64(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let mut args = Vec::new();
        for i in 1..4 {
            for e in self.elements(self.arg(inst, i)?) {
                args.push(self.operand(&e, Type::F64, false, inst.span)?);
            }
        }
        if args.len() != 4 {
            return Err(LowerError::new(
                "mma.m8n8k4 of f64 needs one A, one B and two C registers",
                inst.span,
            ));
        }
        let d = self.vector_regs(inst, 0)?;
        let r = self.emit_multi(Opcode::MmaF64, Type::F64, &args, Aux::None);
        for (d, v) in d.into_iter().zip(r) {
            if let Some(d) = d {
                self.write_reg(d, v, false, inst.span)?;
            }
        }
        Ok(())
    }

    /// `mma.sync.aligned.m8n8k4.alayout.blayout.dtype.f16.f16.ctype {d...}, {a0, a1},
    /// {b0, b1}, {c...}`.
    fn lower_mma_884(&mut self, inst: &CheckedInst, m: MmaOp) -> Result<(), LowerError> {
        let f32 = |t: MmaType| (t == MmaType::F32) as u64;
        let col = |l: MmaLayout| (l == MmaLayout::Col) as u64;
        let flags = f32(m.types.d) | f32(m.types.c) << 1 | col(m.a_layout) << 2 | col(m.b_layout) << 3;
        let mut args = Vec::new();
        for i in 1..4 {
            for e in self.elements(self.arg(inst, i)?) {
                args.push(self.operand(&e, Type::I32, false, inst.span)?);
            }
        }
        if args.len() != 4 + 4 + 4 * f32(m.types.c) as usize {
            return Err(LowerError::new(
                "mma.m8n8k4 has the wrong number of registers",
                inst.span,
            ));
        }
        let d = self.vector_regs(inst, 0)?;
        let r = self.emit_mma_884(flags, &args);
        for (d, v) in d.into_iter().zip(r) {
            if let Some(d) = d {
                self.write_reg(d, v, false, inst.span)?;
            }
        }
        Ok(())
    }
}
