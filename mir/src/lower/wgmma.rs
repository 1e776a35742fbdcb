//! The warpgroup instructions of sm_90a and their companions: `wgmma.mma_async` becomes one
//! [`Opcode::Wgmma`] whose results are the accumulator registers (read and written in
//! place, as PTX writes them), `wgmma.fence`, `.commit_group` and `.wait_group` one
//! [`Opcode::WgmmaFence`], [`Opcode::WgmmaCommit`] and [`Opcode::WgmmaWait`],
//! `fence.proxy.async` one [`Opcode::FenceProxyAsync`] and `stmatrix` one
//! [`Opcode::Stmatrix`].

use super::LowerError;
use super::context::Lowerer;
use crate::ir::mma::WgmmaFlags;
use crate::ir::{Aux, Opcode, Type};
use ptxc_frontend::checked::{CheckedInst, CheckedOperand};
use ptxc_frontend::tensor::{MmaType, TensorOp, WgmmaOp};

impl Lowerer<'_> {
    /// `wgmma.mma_async`, `wgmma.fence`, `wgmma.commit_group` and `wgmma.wait_group`.
    pub fn lower_wgmma(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        match inst.tensor {
            Some(TensorOp::Wgmma(op)) => self.lower_wgmma_mma(inst, op),
            Some(TensorOp::WgmmaFence) => self.lower_effect(Opcode::WgmmaFence, 0),
            Some(TensorOp::WgmmaCommit) => self.lower_effect(Opcode::WgmmaCommit, 0),
            Some(TensorOp::WgmmaWait) => match self.arg(inst, 0)? {
                CheckedOperand::Int(n @ 0..=7) => self.lower_effect(Opcode::WgmmaWait, *n as u64),
                _ => Err(LowerError::new("`wgmma.wait_group` waits for 0 to 7 groups", inst.span)),
            },
            _ => Err(LowerError::new("wgmma without its operation", inst.span)),
        }
    }

    /// An instruction without operands or results.
    fn lower_effect(&mut self, op: Opcode, imm: u64) -> Result<(), LowerError> {
        let aux = if op == Opcode::WgmmaWait {
            Aux::Imm(imm)
        } else {
            Aux::None
        };
        self.emit_multi(op, Type::I32, &[], aux);
        Ok(())
    }

    /// The immediate operand `i` of `inst`, which must be one of `allowed`.
    fn imm_of(&self, inst: &CheckedInst, i: usize, what: &str, allowed: &[i64]) -> Result<i64, LowerError> {
        match self.arg(inst, i)? {
            CheckedOperand::Int(v) if allowed.contains(v) => Ok(*v),
            _ => Err(LowerError::new(
                format!("`wgmma.mma_async`'s {what} is one of {allowed:?}"),
                inst.span,
            )),
        }
    }

    /// `wgmma.mma_async.sync.aligned.m64nNk16.dtype.atype.btype d, a, b-desc, scale-d,
    /// imm-scale-a, imm-scale-b[, imm-trans-a], imm-trans-b`.
    fn lower_wgmma_mma(&mut self, inst: &CheckedInst, op: WgmmaOp) -> Result<(), LowerError> {
        let scale_at = 4;
        let trans_b_at = if op.a_regs { 6 } else { 7 };
        let flags = WgmmaFlags {
            n: op.n,
            f32: op.d == MmaType::F32,
            bf16: op.ab == MmaType::Bf16,
            a_regs: op.a_regs,
            neg_a: self.imm_of(inst, scale_at, "imm-scale-a", &[1, -1])? == -1,
            neg_b: self.imm_of(inst, scale_at + 1, "imm-scale-b", &[1, -1])? == -1,
            trans_a: !op.a_regs && self.imm_of(inst, 6, "imm-trans-a", &[0, 1])? == 1,
            trans_b: self.imm_of(inst, trans_b_at, "imm-trans-b", &[0, 1])? == 1,
        };
        let mut args = Vec::new();
        if op.a_regs {
            for e in self.elements(self.arg(inst, 1)?) {
                args.push(self.operand(&e, Type::I32, false, inst.span)?);
            }
        } else {
            args.push(self.operand(self.arg(inst, 1)?, Type::I64, false, inst.span)?);
        }
        args.push(self.operand(self.arg(inst, 2)?, Type::I64, false, inst.span)?);
        args.push(self.operand(self.arg(inst, 3)?, Type::Pred, false, inst.span)?);
        for e in self.elements(self.arg(inst, 0)?) {
            args.push(self.operand(&e, Type::I32, false, inst.span)?);
        }
        if args.len() != flags.leading_args() + flags.accumulator_regs() {
            return Err(LowerError::new(
                format!(
                    "`wgmma.mma_async` has {} registers, expected {}",
                    args.len(),
                    flags.leading_args() + flags.accumulator_regs()
                ),
                inst.span,
            ));
        }
        let d = self.vector_regs(inst, 0)?;
        let r = self.emit_multi(Opcode::Wgmma, Type::I32, &args, Aux::Imm(flags.bits()));
        for (d, v) in d.into_iter().zip(r) {
            if let Some(d) = d {
                self.write_reg(d, v, false, inst.span)?;
            }
        }
        Ok(())
    }

    /// `stmatrix.sync.aligned.m8n8.xN[.trans][.shared].b16 [addr], {r...}`.
    pub fn lower_stmatrix(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let (count, trans) = super::warp::matrix_shape(inst);
        let addr = self.matrix_address(inst, 0)?;
        let mut args = vec![addr];
        for e in self.elements(self.arg(inst, 1)?) {
            args.push(self.operand(&e, Type::I32, false, inst.span)?);
        }
        if args.len() != 1 + count as usize {
            return Err(LowerError::new(
                format!("`stmatrix.x{count}` stores {count} registers"),
                inst.span,
            ));
        }
        self.emit_multi(Opcode::Stmatrix, Type::I32, &args, Aux::Imm(count | trans << 4));
        Ok(())
    }
}
