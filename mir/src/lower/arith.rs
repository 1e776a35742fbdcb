//! Integer, float and logic arithmetic: add, sub, mul, mad, fma (with `.lo/.hi/.wide/.sat/.cc`),
//! addc, subc, madc, and, or, xor, shl, shr, min, max, neg, not, cnot, abs, div, rem, mul24,
//! mad24 and sad.
//!
//! The carry flag of `.cc` chains is a predicate pseudo-register holding the hardware
//! carry: `sub.cc` computes `a + !b + 1` and `subc` computes `a + !b + CF`, so after a
//! subtraction the flag is set when there was no borrow (as recorded on NVIDIA hardware).

use super::LowerError;
use super::context::{Lowerer, mir_type};
use crate::ir::{Aux, Cond, FloatMode, Opcode, Rounding as R, Type, Value};
use ptxc_frontend::checked::{CheckedInst, MulMode, Opcode as P, Rounding};

/// The float behaviour written on an instruction.
pub fn float_mode(inst: &CheckedInst) -> FloatMode {
    FloatMode {
        rnd: inst.mods.rounding.and_then(float_rounding),
        ftz: inst.mods.ftz,
        sat: inst.mods.sat,
        relu: inst.mods.has_flag("relu"),
        nan: inst.mods.has_flag("NaN"),
        xorsign: inst.mods.has_flag("xorsign"),
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
    /// The instruction type (first type suffix) and whether it is signed.
    pub fn inst_type(&self, inst: &CheckedInst) -> Result<(Type, bool), LowerError> {
        let t = self.ptx_type(inst)?;
        Ok((mir_type(t), t.is_signed()))
    }

    /// An error for a form this version does not lower.
    pub fn refuse(&self, inst: &CheckedInst, what: &str) -> LowerError {
        LowerError::new(format!("{what} is not supported by this version of ptxc"), inst.span)
    }

    /// Two- and three-source arithmetic and logic.
    pub fn lower_binary_family(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let (ty, signed) = self.inst_type(inst)?;
        let d = self.dst(inst, 0)?;
        let wide = matches!(inst.mods.mul_mode, Some(MulMode::Wide));
        let src_ty = ty;
        let a = self.operand(self.arg(inst, 1)?, src_ty, signed, inst.span)?;
        let b_ty = if matches!(inst.op, P::Shl | P::Shr) {
            Type::I32
        } else {
            ty
        };
        let b = self.operand(self.arg(inst, 2)?, b_ty, signed, inst.span)?;
        let c = match inst.op {
            P::Mad | P::Fma => {
                let c_ty = if wide { crate::ir::typing::wide(ty) } else { ty };
                Some(self.operand(self.arg(inst, 3)?, c_ty, signed, inst.span)?)
            }
            _ => None,
        };
        let v = if ty.is_float() {
            self.float_arith(inst, ty, a, b, c)?
        } else {
            self.int_arith(inst, ty, signed, a, b, c)?
        };
        self.write_reg(d, v, signed, inst.span)
    }

    fn float_arith(
        &mut self,
        inst: &CheckedInst,
        ty: Type,
        a: Value,
        b: Value,
        c: Option<Value>,
    ) -> Result<Value, LowerError> {
        let mut m = float_mode(inst);
        if matches!(inst.op, P::Mad) && m.rnd.is_none() {
            // mad.f32 is fma.rn.f32 on sm_20 and later.
            m.rnd = Some(R::Rn);
        }
        let aux = Aux::Float(m);
        Ok(match inst.op {
            P::Add => self.emit(Opcode::Fadd, ty, &[a, b], aux),
            P::Sub => self.emit(Opcode::Fsub, ty, &[a, b], aux),
            P::Mul => self.emit(Opcode::Fmul, ty, &[a, b], aux),
            P::Mad | P::Fma => self.emit(Opcode::Ffma, ty, &[a, b, c.expect("three sources")], aux),
            P::Min => self.emit(Opcode::Fmin, ty, &[a, b], aux),
            P::Max => self.emit(Opcode::Fmax, ty, &[a, b], aux),
            _ => return Err(self.refuse(inst, "this float operation")),
        })
    }

    fn int_arith(
        &mut self,
        inst: &CheckedInst,
        ty: Type,
        signed: bool,
        a: Value,
        b: Value,
        c: Option<Value>,
    ) -> Result<Value, LowerError> {
        let pick = |s, u| if signed { s } else { u };
        let mode = inst.mods.mul_mode;
        let sat = inst.mods.sat;
        let none = Aux::None;
        if inst.mods.cc {
            return self.carry_arith(inst, ty, a, b, c, false);
        }
        Ok(match (inst.op, mode) {
            (P::Add, _) if sat => self.emit(Opcode::IaddSatS, ty, &[a, b], none),
            (P::Sub, _) if sat => self.emit(Opcode::IsubSatS, ty, &[a, b], none),
            (P::Add, _) => self.emit(Opcode::Iadd, ty, &[a, b], none),
            (P::Sub, _) => self.emit(Opcode::Isub, ty, &[a, b], none),
            (P::Mul, Some(MulMode::Lo) | None) => self.emit(Opcode::Imul, ty, &[a, b], none),
            (P::Mul, Some(MulMode::Hi)) => self.emit(pick(Opcode::ImulHiS, Opcode::ImulHiU), ty, &[a, b], none),
            (P::Mul, Some(MulMode::Wide)) => {
                let w = crate::ir::typing::wide(ty);
                self.emit_typed(pick(Opcode::ImulWideS, Opcode::ImulWideU), ty, &[a, b], none, w)
            }
            (P::Mad, Some(MulMode::Lo) | None) => self.emit(Opcode::Imad, ty, &[a, b, c.expect("c")], none),
            (P::Mad, Some(MulMode::Hi)) if sat => {
                let hi = self.emit(Opcode::ImulHiS, ty, &[a, b], Aux::None);
                self.emit(Opcode::IaddSatS, ty, &[hi, c.expect("c")], none)
            }
            (P::Mad, Some(MulMode::Hi)) => {
                self.emit(pick(Opcode::ImadHiS, Opcode::ImadHiU), ty, &[a, b, c.expect("c")], none)
            }
            (P::Mad, Some(MulMode::Wide)) => {
                let w = crate::ir::typing::wide(ty);
                let op = pick(Opcode::ImadWideS, Opcode::ImadWideU);
                self.emit_typed(op, ty, &[a, b, c.expect("c")], none, w)
            }
            (P::And, _) => self.emit(Opcode::And, ty, &[a, b], none),
            (P::Or, _) => self.emit(Opcode::Or, ty, &[a, b], none),
            (P::Xor, _) => self.emit(Opcode::Xor, ty, &[a, b], none),
            (P::Shl, _) => self.emit(Opcode::Shl, ty, &[a, b], none),
            (P::Shr, _) => self.emit(pick(Opcode::ShrS, Opcode::ShrU), ty, &[a, b], none),
            (P::Min, _) => self.emit(pick(Opcode::MinS, Opcode::MinU), ty, &[a, b], none),
            (P::Max, _) => self.emit(pick(Opcode::MaxS, Opcode::MaxU), ty, &[a, b], none),
            (op, _) => return Err(self.refuse(inst, &format!("`{op:?}`"))),
        })
    }

    /// `add.cc`, `sub.cc`, `mad.cc` and (with `carry_in`) `addc`, `subc`, `madc`.
    fn carry_arith(
        &mut self,
        inst: &CheckedInst,
        ty: Type,
        a: Value,
        b: Value,
        c: Option<Value>,
        carry_in: bool,
    ) -> Result<Value, LowerError> {
        let (lhs, rhs, cin) = match inst.op {
            P::Add | P::Addc => {
                let cin = if carry_in {
                    self.read_carry()
                } else {
                    self.konst(Type::Pred, 0)
                };
                (a, b, cin)
            }
            P::Sub | P::Subc => {
                let cin = if carry_in {
                    self.read_carry()
                } else {
                    self.konst(Type::Pred, 1)
                };
                let nb = self.emit(Opcode::Not, ty, &[b], Aux::None);
                (a, nb, cin)
            }
            P::Mad | P::Madc => {
                let op = match inst.mods.mul_mode {
                    Some(MulMode::Hi) if self.ptx_type(inst)?.is_signed() => Opcode::ImulHiS,
                    Some(MulMode::Hi) => Opcode::ImulHiU,
                    _ => Opcode::Imul,
                };
                let p = self.emit(op, ty, &[a, b], Aux::None);
                let cin = if carry_in {
                    self.read_carry()
                } else {
                    self.konst(Type::Pred, 0)
                };
                (p, c.expect("mad has c"), cin)
            }
            _ => return Err(self.refuse(inst, "this carry form")),
        };
        let data = crate::ir::InstData {
            op: Opcode::IaddCarry,
            ty,
            args: smallvec::smallvec![lhs, rhs, cin],
            aux: Aux::None,
        };
        let i = self.func.ins(self.cur, data);
        let (sum, cout) = (self.func.results[i][0], self.func.results[i][1]);
        if inst.mods.cc {
            self.write_carry(cout);
        }
        Ok(sum)
    }

    /// `addc`, `subc`, `madc` (`.cc` optional).
    pub fn lower_carry(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let (ty, signed) = self.inst_type(inst)?;
        let d = self.dst(inst, 0)?;
        let a = self.operand(self.arg(inst, 1)?, ty, signed, inst.span)?;
        let b = self.operand(self.arg(inst, 2)?, ty, signed, inst.span)?;
        let c = if inst.op == P::Madc {
            Some(self.operand(self.arg(inst, 3)?, ty, signed, inst.span)?)
        } else {
            None
        };
        let v = self.carry_arith(inst, ty, a, b, c, true)?;
        self.write_reg(d, v, signed, inst.span)
    }

    /// neg, not, abs, cnot.
    pub fn lower_unary(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let (ty, signed) = self.inst_type(inst)?;
        let d = self.dst(inst, 0)?;
        let a = self.operand(self.arg(inst, 1)?, ty, signed, inst.span)?;
        let fm = Aux::Float(float_mode(inst));
        let v = match (inst.op, ty.is_float()) {
            (P::Neg, true) => self.emit(Opcode::Fneg, ty, &[a], fm),
            (P::Neg, false) => self.emit(Opcode::Ineg, ty, &[a], Aux::None),
            (P::Not, _) => self.emit(Opcode::Not, ty, &[a], Aux::None),
            (P::Abs, true) => self.emit(Opcode::Fabs, ty, &[a], fm),
            (P::Abs, false) => self.int_abs(ty, a),
            (P::Cnot, _) => {
                let zero = self.konst(ty, 0);
                let one = self.konst(ty, 1);
                let is_zero = self.emit_typed(Opcode::Icmp, ty, &[a, zero], Aux::Cond(Cond::Eq), Type::Pred);
                self.emit(Opcode::Select, ty, &[is_zero, one, zero], Aux::None)
            }
            _ => return Err(self.refuse(inst, "this unary operation")),
        };
        self.write_reg(d, v, signed, inst.span)
    }

    /// `|a|` of a signed integer (`abs(INT_MIN) == INT_MIN`).
    pub fn int_abs(&mut self, ty: Type, a: Value) -> Value {
        let zero = self.konst(ty, 0);
        let neg = self.emit(Opcode::Ineg, ty, &[a], Aux::None);
        let is_neg = self.emit_typed(Opcode::Icmp, ty, &[a, zero], Aux::Cond(Cond::Lt), Type::Pred);
        self.emit(Opcode::Select, ty, &[is_neg, neg, a], Aux::None)
    }

    /// Integer `div`/`rem`, and float `div` in its approx, full and IEEE forms.
    pub fn lower_div_rem(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let (ty, signed) = self.inst_type(inst)?;
        let d = self.dst(inst, 0)?;
        let a = self.operand(self.arg(inst, 1)?, ty, signed, inst.span)?;
        let b = self.operand(self.arg(inst, 2)?, ty, signed, inst.span)?;
        let pick = |s, u| if signed { s } else { u };
        let v = if ty.is_float() {
            let mut m = float_mode(inst);
            let op = if inst.mods.approx {
                Opcode::FdivApprox
            } else if inst.mods.full {
                Opcode::FdivFull
            } else {
                m.rnd = m.rnd.or(Some(R::Rn));
                Opcode::Fdiv
            };
            self.emit(op, ty, &[a, b], Aux::Float(m))
        } else if inst.op == P::Div {
            self.emit(pick(Opcode::DivS, Opcode::DivU), ty, &[a, b], Aux::None)
        } else {
            self.emit(pick(Opcode::RemS, Opcode::RemU), ty, &[a, b], Aux::None)
        };
        self.write_reg(d, v, signed, inst.span)
    }

    /// `mul24.lo/.hi` and `mad24.lo/.hi[.sat]`.
    pub fn lower_mul24(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let (ty, signed) = self.inst_type(inst)?;
        let d = self.dst(inst, 0)?;
        let a = self.operand(self.arg(inst, 1)?, ty, signed, inst.span)?;
        let b = self.operand(self.arg(inst, 2)?, ty, signed, inst.span)?;
        let hi = inst.mods.mul_mode == Some(MulMode::Hi);
        let op = match (hi, signed) {
            (false, true) => Opcode::Mul24LoS,
            (false, false) => Opcode::Mul24LoU,
            (true, true) => Opcode::Mul24HiS,
            (true, false) => Opcode::Mul24HiU,
        };
        let mut v = self.emit(op, ty, &[a, b], Aux::None);
        if inst.op == P::Mad24 {
            let c = self.operand(self.arg(inst, 3)?, ty, signed, inst.span)?;
            let add = if inst.mods.sat { Opcode::IaddSatS } else { Opcode::Iadd };
            v = self.emit(add, ty, &[v, c], Aux::None);
        }
        self.write_reg(d, v, signed, inst.span)
    }

    /// `sad.type d, a, b, c`: `|a - b| + c`.
    pub fn lower_sad(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let (ty, signed) = self.inst_type(inst)?;
        let d = self.dst(inst, 0)?;
        let a = self.operand(self.arg(inst, 1)?, ty, signed, inst.span)?;
        let b = self.operand(self.arg(inst, 2)?, ty, signed, inst.span)?;
        let c = self.operand(self.arg(inst, 3)?, ty, signed, inst.span)?;
        let (min, max) = if signed {
            (Opcode::MinS, Opcode::MaxS)
        } else {
            (Opcode::MinU, Opcode::MaxU)
        };
        let lo = self.emit(min, ty, &[a, b], Aux::None);
        let hi = self.emit(max, ty, &[a, b], Aux::None);
        let diff = self.emit(Opcode::Isub, ty, &[hi, lo], Aux::None);
        let v = self.emit(Opcode::Iadd, ty, &[diff, c], Aux::None);
        self.write_reg(d, v, signed, inst.span)
    }
}
