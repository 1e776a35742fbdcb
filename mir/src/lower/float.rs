//! Float-only instructions: rcp, sqrt, rsqrt, ex2, lg2, sin, cos, tanh (approx, full and
//! IEEE forms), copysign and testp.

use super::LowerError;
use super::arith::float_mode;
use super::context::Lowerer;
use crate::ir::{Aux, Opcode, Rounding, Type};
use ptxc_frontend::checked::{CheckedInst, Opcode as P};

/// `testp` class flags and their `Aux::Imm` numbers.
const TESTP_CLASSES: &[(&str, u64)] = &[
    ("finite", 0),
    ("infinite", 1),
    ("number", 2),
    ("notanumber", 3),
    ("normal", 4),
    ("subnormal", 5),
];

impl Lowerer<'_> {
    /// One-source float functions.
    pub fn lower_float_unary(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let (ty, _) = self.inst_type(inst)?;
        let d = self.dst(inst, 0)?;
        let a = self.operand(self.arg(inst, 1)?, ty, false, inst.span)?;
        let mut m = float_mode(inst);
        let approx = inst.mods.approx;
        let op = match inst.op {
            P::Rcp if approx => Opcode::FrcpApprox,
            P::Rcp => Opcode::Frcp,
            P::Sqrt if approx => Opcode::FsqrtApprox,
            P::Sqrt => Opcode::Fsqrt,
            P::Rsqrt => Opcode::FrsqrtApprox,
            P::Ex2 => Opcode::Fex2Approx,
            P::Lg2 => Opcode::Flg2Approx,
            P::Sin => Opcode::FsinApprox,
            P::Cos => Opcode::FcosApprox,
            P::Tanh => Opcode::FtanhApprox,
            _ => return Err(self.refuse(inst, "this float function")),
        };
        if matches!(op, Opcode::Frcp | Opcode::Fsqrt) {
            m.rnd = m.rnd.or(Some(Rounding::Rn));
        }
        let v = self.emit(op, ty, &[a], Aux::Float(m));
        self.write_reg(d, v, false, inst.span)
    }

    /// `copysign.type d, a, b`: the magnitude of `b` with the sign of `a`.
    pub fn lower_float_binary(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let (ty, _) = self.inst_type(inst)?;
        let d = self.dst(inst, 0)?;
        let a = self.operand(self.arg(inst, 1)?, ty, false, inst.span)?;
        let b = self.operand(self.arg(inst, 2)?, ty, false, inst.span)?;
        let v = self.emit(Opcode::Fcopysign, ty, &[a, b], Aux::None);
        self.write_reg(d, v, false, inst.span)
    }

    /// `testp.class.type p, a`.
    pub fn lower_testp(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let (ty, _) = self.inst_type(inst)?;
        let d = self.dst(inst, 0)?;
        let a = self.operand(self.arg(inst, 1)?, ty, false, inst.span)?;
        let class = TESTP_CLASSES
            .iter()
            .find(|(f, _)| inst.mods.has_flag(f))
            .map(|(_, c)| *c)
            .ok_or_else(|| LowerError::new("testp needs a class", inst.span))?;
        let v = self.emit_typed(Opcode::Ftestp, ty, &[a], Aux::Imm(class), Type::Pred);
        self.write_reg(d, v, false, inst.span)
    }
}
