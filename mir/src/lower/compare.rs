//! Comparisons and selects: setp (incl. the `p|q` form and `.and/.or/.xor` combining) and selp.

use super::LowerError;
use super::context::{Lowerer, mir_type};
use crate::ir::{Aux, Cond, Opcode, Type};
use ptxc_frontend::checked::{BoolOp, CheckedInst, CheckedOperand, CmpOp};

/// The MIR condition of a PTX comparison for a signed/unsigned/float type.
pub fn cond_of(c: CmpOp, signed: bool, float: bool) -> Cond {
    use CmpOp::*;
    let unsigned = !signed && !float;
    match c {
        Eq => Cond::Eq,
        Ne => Cond::Ne,
        Lt | Lo if unsigned => Cond::Ult,
        Le | Ls if unsigned => Cond::Ule,
        Gt | Hi if unsigned => Cond::Ugt,
        Ge | Hs if unsigned => Cond::Uge,
        Lt | Lo => Cond::Lt,
        Le | Ls => Cond::Le,
        Gt | Hi => Cond::Gt,
        Ge | Hs => Cond::Ge,
        Equ => Cond::Equ,
        Neu => Cond::Neu,
        Ltu => Cond::Ltu,
        Leu => Cond::Leu,
        Gtu => Cond::Gtu,
        Geu => Cond::Geu,
        Num => Cond::Num,
        Nan => Cond::Nan,
    }
}

impl Lowerer<'_> {
    /// `setp.cmp[.bop].type p[|q], a, b[, c]`.
    pub fn lower_setp(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let t = inst
            .mods
            .ty()
            .ok_or_else(|| LowerError::new("setp needs a type", inst.span))?;
        let ty = mir_type(t);
        let cmp = inst
            .mods
            .cmp
            .ok_or_else(|| LowerError::new("setp needs a comparison", inst.span))?;
        let cond = cond_of(cmp, t.is_signed(), ty.is_float());
        let a = self.operand(self.arg(inst, 1)?, ty, t.is_signed(), inst.span)?;
        let b = self.operand(self.arg(inst, 2)?, ty, t.is_signed(), inst.span)?;
        let op = if ty.is_float() { Opcode::Fcmp } else { Opcode::Icmp };
        let r = self.emit_typed(op, ty, &[a, b], Aux::Cond(cond), Type::Pred);
        let (p, q) = match self.arg(inst, 0)? {
            CheckedOperand::Reg(p) => (*p, None),
            CheckedOperand::Vector(v) => match v.as_slice() {
                [CheckedOperand::Reg(p), CheckedOperand::Reg(q)] => (*p, Some(*q)),
                [CheckedOperand::Reg(p), CheckedOperand::Sink] => (*p, None),
                _ => {
                    return Err(LowerError::new("setp destination must be `p` or `p|q`", inst.span));
                }
            },
            _ => {
                return Err(LowerError::new("setp destination must be a predicate", inst.span));
            }
        };
        let not_r = self.emit(Opcode::Not, Type::Pred, &[r], Aux::None);
        let (r, not_r) = match inst.mods.bool_op {
            None => (r, not_r),
            Some(bop) => {
                let c = self.operand(self.arg(inst, 3)?, Type::Pred, false, inst.span)?;
                let op = match bop {
                    BoolOp::And => Opcode::And,
                    BoolOp::Or => Opcode::Or,
                    BoolOp::Xor => Opcode::Xor,
                    BoolOp::Popc => {
                        return Err(LowerError::new("setp cannot combine with .popc", inst.span));
                    }
                };
                (
                    self.emit(op, Type::Pred, &[r, c], Aux::None),
                    self.emit(op, Type::Pred, &[not_r, c], Aux::None),
                )
            }
        };
        self.write_reg(p, r, false, inst.span)?;
        if let Some(q) = q {
            self.write_reg(q, not_r, false, inst.span)?;
        }
        Ok(())
    }

    /// `selp.type d, a, b, p`.
    pub fn lower_selp(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let t = inst
            .mods
            .ty()
            .ok_or_else(|| LowerError::new("selp needs a type", inst.span))?;
        let ty = mir_type(t);
        let d = self.dst(inst, 0)?;
        let a = self.operand(self.arg(inst, 1)?, ty, t.is_signed(), inst.span)?;
        let b = self.operand(self.arg(inst, 2)?, ty, t.is_signed(), inst.span)?;
        let p = self.operand(self.arg(inst, 3)?, Type::Pred, false, inst.span)?;
        let v = self.emit(Opcode::Select, ty, &[p, a, b], Aux::None);
        self.write_reg(d, v, t.is_signed(), inst.span)
    }
}
