//! Tensor-core instructions as ptxas selects them: `movmatrix` is one MOVM.16.MT88 (the
//! register transpose through the MIO unit), reading and writing one register per lane.

use super::fit::Arg;
use super::{Isel, IselError};
use crate::vcode::MOp;
use ptxc_mir::ir::{Inst, Opcode};
use ptxc_sass::isa::{Op, Role};

impl Isel<'_> {
    /// Selects a tensor-core instruction.
    pub(super) fn lower_tensor(&mut self, inst: Inst) -> Result<(), IselError> {
        match self.func.insts[inst].op {
            Opcode::Movmatrix => self.movmatrix(inst),
            other => Err(self.unsupported(format!("MIR `{}`", other.name()))),
        }
    }

    /// `movmatrix`: `MOVM.16.MT88 Rd, Ra`.
    fn movmatrix(&mut self, inst: Inst) -> Result<(), IselError> {
        let a = self.reg(self.func.insts[inst].args[0]);
        let d = self.dst(inst);
        self.emit_sass(
            Op::Movm,
            &[(Role::Dst, d)],
            &[(Role::A, Arg::op(MOp::Reg(a)))],
            &[],
            None,
        )?;
        Ok(())
    }
}
