//! Conversions: cvt between integer widths, integers and floats, and float widths.

use super::LowerError;
use super::arith::float_rounding;
use super::context::{Lowerer, mir_type};
use crate::ir::{Aux, ConvertInfo, Opcode};
use ptxc_frontend::checked::CheckedInst;

impl Lowerer<'_> {
    /// `cvt[.rnd][.ftz][.sat].dtype.stype d, a`.
    pub fn lower_cvt(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let [to, from] = inst.mods.types[..] else {
            return Err(LowerError::new("cvt needs a destination and a source type", inst.span));
        };
        let (to_ty, from_ty) = (mir_type(to), mir_type(from));
        let d = self.dst(inst, 0)?;
        let a = self.operand(self.arg(inst, 1)?, from_ty, from.is_signed(), inst.span)?;
        let info = ConvertInfo {
            from: from_ty,
            from_signed: from.is_signed(),
            to_signed: to.is_signed(),
            rnd: inst.mods.rounding.and_then(float_rounding),
            sat: inst.mods.sat,
            ftz: inst.mods.ftz,
        };
        let v = if to_ty == from_ty && !info.sat && !(to_ty.is_float() && (info.rnd.is_some() || info.ftz)) {
            a
        } else {
            self.emit(Opcode::Convert, to_ty, &[a], Aux::Convert(info))
        };
        self.write_reg(d, v, to.is_signed(), inst.span)
    }
}
