//! Integer, float and logic arithmetic: add, sub, mul, mad, fma, and, or, xor, shl, shr,
//! min, max, neg, not, abs.

use super::LowerError;
use super::context::{Lowerer, mir_type};
use crate::ir::{Aux, FloatMode, Opcode, Rounding as R, Type};
use ptxc_frontend::checked::{CheckedInst, MulMode, Opcode as P, Rounding};

/// The float behaviour written on an instruction.
pub fn float_mode(inst: &CheckedInst) -> FloatMode {
    FloatMode {
        rnd: inst.mods.rounding.and_then(float_rounding),
        ftz: inst.mods.ftz,
        sat: inst.mods.sat,
    }
}

/// A PTX rounding modifier as a float rounding mode (the integer `i` modes map too).
pub fn float_rounding(r: Rounding) -> Option<R> {
    Some(match r {
        Rounding::Rn | Rounding::Rni => R::Rn,
        Rounding::Rz | Rounding::Rzi => R::Rz,
        Rounding::Rm | Rounding::Rmi => R::Rm,
        Rounding::Rp | Rounding::Rpi => R::Rp,
        Rounding::Rna => return None,
    })
}

impl Lowerer<'_> {
    /// The instruction type (first type suffix).
    fn inst_type(&self, inst: &CheckedInst) -> Result<(Type, bool), LowerError> {
        let t = inst
            .mods
            .ty()
            .ok_or_else(|| LowerError::new("instruction needs a type", inst.span))?;
        Ok((mir_type(t), t.is_signed()))
    }

    fn refuse(&self, inst: &CheckedInst, what: &str) -> LowerError {
        LowerError::new(format!("{what} is not supported by this version of ptxc"), inst.span)
    }

    /// Two- and three-source arithmetic and logic.
    pub fn lower_binary_family(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let (ty, signed) = self.inst_type(inst)?;
        if inst.mods.cc {
            return Err(self.refuse(inst, "carry-out (`.cc`)"));
        }
        if inst.mods.sat && ty.is_int() {
            return Err(self.refuse(inst, "integer saturation (`.sat`)"));
        }
        let d = self.dst(inst, 0)?;
        let a = self.operand(self.arg(inst, 1)?, ty, signed, inst.span)?;
        let b_ty = if matches!(inst.op, P::Shl | P::Shr) {
            Type::I32
        } else {
            ty
        };
        let b = self.operand(self.arg(inst, 2)?, b_ty, signed, inst.span)?;
        let (op, result_ty, extra) = self.select_binary(inst, ty, signed)?;
        let v = match extra {
            None => self.emit_typed(op, ty, &[a, b], aux_for(ty, inst), result_ty),
            Some(c_ty) => {
                let c = self.operand(self.arg(inst, 3)?, c_ty, signed, inst.span)?;
                self.emit_typed(op, ty, &[a, b, c], aux_for(ty, inst), result_ty)
            }
        };
        self.write_reg(d, v, signed, inst.span)
    }

    /// The MIR opcode, result type and (for three-source ops) the type of `c`.
    fn select_binary(
        &self,
        inst: &CheckedInst,
        ty: Type,
        signed: bool,
    ) -> Result<(Opcode, Type, Option<Type>), LowerError> {
        let wide_ty = || Type::int(ty.bits() * 2).ok_or_else(|| self.refuse(inst, "this `.wide` type"));
        let float = ty.is_float();
        let pick = |s, u| if signed { s } else { u };
        Ok(match (inst.op, inst.mods.mul_mode) {
            (P::Add, _) => (if float { Opcode::Fadd } else { Opcode::Iadd }, ty, None),
            (P::Sub, _) => (if float { Opcode::Fsub } else { Opcode::Isub }, ty, None),
            (P::Mul, _) if float => (Opcode::Fmul, ty, None),
            (P::Mul, Some(MulMode::Lo) | None) => (Opcode::Imul, ty, None),
            (P::Mul, Some(MulMode::Hi)) => (pick(Opcode::ImulHiS, Opcode::ImulHiU), ty, None),
            (P::Mul, Some(MulMode::Wide)) => (pick(Opcode::ImulWideS, Opcode::ImulWideU), wide_ty()?, None),
            (P::Mad | P::Fma, _) if float => (Opcode::Ffma, ty, Some(ty)),
            (P::Mad, Some(MulMode::Lo) | None) => (Opcode::Imad, ty, Some(ty)),
            (P::Mad, Some(MulMode::Wide)) => {
                let w = wide_ty()?;
                (pick(Opcode::ImadWideS, Opcode::ImadWideU), w, Some(w))
            }
            (P::Mad, Some(MulMode::Hi)) => return Err(self.refuse(inst, "`mad.hi`")),
            (P::And, _) => (Opcode::And, ty, None),
            (P::Or, _) => (Opcode::Or, ty, None),
            (P::Xor, _) => (Opcode::Xor, ty, None),
            (P::Shl, _) => (Opcode::Shl, ty, None),
            (P::Shr, _) => (pick(Opcode::ShrS, Opcode::ShrU), ty, None),
            (P::Min, _) if float => (Opcode::Fmin, ty, None),
            (P::Max, _) if float => (Opcode::Fmax, ty, None),
            (P::Min, _) => (pick(Opcode::MinS, Opcode::MinU), ty, None),
            (P::Max, _) => (pick(Opcode::MaxS, Opcode::MaxU), ty, None),
            (op, _) => return Err(self.refuse(inst, &format!("`{op:?}`"))),
        })
    }

    /// neg, not, abs.
    pub fn lower_unary(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let (ty, signed) = self.inst_type(inst)?;
        let d = self.dst(inst, 0)?;
        let a = self.operand(self.arg(inst, 1)?, ty, signed, inst.span)?;
        let v = match (inst.op, ty.is_float()) {
            (P::Neg, true) => self.emit(Opcode::Fneg, ty, &[a], aux_for(ty, inst)),
            (P::Neg, false) => self.emit(Opcode::Ineg, ty, &[a], Aux::None),
            (P::Not, _) => self.emit(Opcode::Not, ty, &[a], Aux::None),
            (P::Abs, true) => self.emit(Opcode::Fabs, ty, &[a], aux_for(ty, inst)),
            (P::Abs, false) => {
                let zero = self.konst(ty, 0);
                let neg = self.emit(Opcode::Ineg, ty, &[a], Aux::None);
                let cond = crate::ir::Cond::Lt;
                let is_neg = self.emit_typed(Opcode::Icmp, ty, &[a, zero], Aux::Cond(cond), Type::Pred);
                self.emit(Opcode::Select, ty, &[is_neg, neg, a], Aux::None)
            }
            _ => return Err(self.refuse(inst, "this unary operation")),
        };
        self.write_reg(d, v, signed, inst.span)
    }
}

fn aux_for(ty: Type, inst: &CheckedInst) -> Aux {
    if ty.is_float() {
        let mut m = float_mode(inst);
        if matches!(inst.op, P::Mad) && m.rnd.is_none() {
            // mad.f32 is fma.rn.f32 on sm_20 and later.
            m.rnd = Some(R::Rn);
        }
        Aux::Float(m)
    } else {
        Aux::None
    }
}
