//! Comparisons and selects: setp (incl. the `p|q` form and `.and/.or/.xor` combining), set,
//! selp and slct. `.ftz` compares flush their operands first; packed `f16x2` compares work
//! on each half.

use super::LowerError;
use super::context::{Lowerer, mir_type};
use crate::ir::{Aux, Cond, FloatMode, Opcode, Type, Value};
use ptxc_frontend::ast::ScalarType;
use ptxc_frontend::checked::{BoolOp, CheckedInst, CheckedOperand, CmpOp, RegId};

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
    /// Compares two values of type `ty` (not `f16x2`).
    fn compare(&mut self, inst: &CheckedInst, ty: Type, signed: bool, a: Value, b: Value) -> Result<Value, LowerError> {
        let cmp = inst
            .mods
            .cmp
            .ok_or_else(|| LowerError::new("the comparison is missing", inst.span))?;
        let cond = cond_of(cmp, signed, ty.is_float());
        let (op, a, b) = if ty.is_float() {
            let (a, b) = if inst.mods.ftz {
                let m = Aux::Float(FloatMode::default());
                (
                    self.emit(Opcode::Fflush, ty, &[a], m.clone()),
                    self.emit(Opcode::Fflush, ty, &[b], m),
                )
            } else {
                (a, b)
            };
            (Opcode::Fcmp, a, b)
        } else {
            (Opcode::Icmp, a, b)
        };
        Ok(self.emit_typed(op, ty, &[a, b], Aux::Cond(cond), Type::Pred))
    }

    /// Combines `r` with the third predicate operand `c` under `.and/.or/.xor`.
    fn combine(&mut self, inst: &CheckedInst, r: Value, c_index: usize) -> Result<Value, LowerError> {
        let Some(bop) = inst.mods.bool_op else {
            return Ok(r);
        };
        let c = self.operand(self.arg(inst, c_index)?, Type::Pred, false, inst.span)?;
        let op = match bop {
            BoolOp::And => Opcode::And,
            BoolOp::Or => Opcode::Or,
            BoolOp::Xor => Opcode::Xor,
            BoolOp::Popc => return Err(LowerError::new("cannot combine with .popc", inst.span)),
        };
        Ok(self.emit(op, Type::Pred, &[r, c], Aux::None))
    }

    /// `setp.cmp[.bop].type p[|q], a, b[, c]`.
    pub fn lower_setp(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let t = self.ptx_type(inst)?;
        let ty = mir_type(t);
        let a = self.operand(self.arg(inst, 1)?, ty, t.is_signed(), inst.span)?;
        let b = self.operand(self.arg(inst, 2)?, ty, t.is_signed(), inst.span)?;
        if ty == Type::F16x2 {
            // `d|e`: the comparisons of the low and of the high halves.
            let (p, q) = self.pred_pair(inst)?;
            for (k, dst) in [(0, p), (1, q)] {
                let (ah, bh) = (self.half_of(a, k), self.half_of(b, k));
                let r = self.compare(inst, Type::F16, false, ah, bh)?;
                let r = self.combine(inst, r, 3)?;
                if let Some(d) = dst {
                    self.write_reg(d, r, false, inst.span)?;
                }
            }
            return Ok(());
        }
        let r = self.compare(inst, ty, t.is_signed(), a, b)?;
        let (p, q) = self.pred_pair(inst)?;
        let not_r = self.emit(Opcode::Not, Type::Pred, &[r], Aux::None);
        let r = self.combine(inst, r, 3)?;
        let not_r = self.combine(inst, not_r, 3)?;
        if let Some(p) = p {
            self.write_reg(p, r, false, inst.span)?;
        }
        if let Some(q) = q {
            self.write_reg(q, not_r, false, inst.span)?;
        }
        Ok(())
    }

    /// The destinations `p` or `p|q` of setp as SSA ids (`None` for `_`).
    fn pred_pair(&self, inst: &CheckedInst) -> Result<(Option<RegId>, Option<RegId>), LowerError> {
        Ok(match self.arg(inst, 0)? {
            CheckedOperand::PredPair(p, q) => (self.dst_of(p), self.dst_of(q)),
            other => (
                Some(
                    self.dst_of(other)
                        .ok_or_else(|| LowerError::new("setp writes a predicate", inst.span))?,
                ),
                None,
            ),
        })
    }

    /// `set.cmp[.bop].dtype.stype d, a, b[, c]`: all ones / 1.0 when true, else 0.
    pub fn lower_set(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let [dt, st] = inst.mods.types[..] else {
            return Err(LowerError::new("set needs two types", inst.span));
        };
        let (dty, sty) = (mir_type(dt), mir_type(st));
        let d = self.dst(inst, 0)?;
        let a = self.operand(self.arg(inst, 1)?, sty, st.is_signed(), inst.span)?;
        let b = self.operand(self.arg(inst, 2)?, sty, st.is_signed(), inst.span)?;
        let v = if sty == Type::F16x2 {
            let mut halves = Vec::new();
            for k in 0..2 {
                let (ah, bh) = (self.half_of(a, k), self.half_of(b, k));
                let r = self.compare(inst, Type::F16, false, ah, bh)?;
                let r = self.combine(inst, r, 3)?;
                let true_bits = if dt == ScalarType::F16x2 { 0x3c00 } else { 0xffff };
                let (t, f) = (self.konst(Type::I16, true_bits), self.konst(Type::I16, 0));
                halves.push(self.emit(Opcode::Select, Type::I16, &[r, t, f], Aux::None));
            }
            let lo = self.widen(halves[0], Type::I32);
            let hi = self.widen(halves[1], Type::I32);
            let sh = self.konst(Type::I32, 16);
            let hi = self.emit(Opcode::Shl, Type::I32, &[hi, sh], Aux::None);
            let packed = self.emit(Opcode::Or, Type::I32, &[lo, hi], Aux::None);
            self.coerce(packed, dty, false, inst.span)?
        } else {
            let r = self.compare(inst, sty, st.is_signed(), a, b)?;
            let r = self.combine(inst, r, 3)?;
            let true_bits = match dty {
                Type::F32 => 1.0f32.to_bits() as u64,
                Type::F16 => 0x3c00,
                _ => u64::MAX,
            };
            let (t, f) = (self.konst(dty, true_bits), self.konst(dty, 0));
            self.emit(Opcode::Select, dty, &[r, t, f], Aux::None)
        };
        self.write_reg(d, v, false, inst.span)
    }

    /// Half `k` (0 low, 1 high) of a packed `f16x2` value.
    pub fn half_of(&mut self, v: Value, k: u32) -> Value {
        let bits = self.emit(Opcode::Bitcast, Type::I32, &[v], Aux::None);
        let h = self.extract_bits(bits, 16 * k, 16);
        self.emit(Opcode::Bitcast, Type::F16, &[h], Aux::None)
    }

    /// `selp.type d, a, b, p`.
    pub fn lower_selp(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let t = self.ptx_type(inst)?;
        let ty = mir_type(t);
        let d = self.dst(inst, 0)?;
        let a = self.operand(self.arg(inst, 1)?, ty, t.is_signed(), inst.span)?;
        let b = self.operand(self.arg(inst, 2)?, ty, t.is_signed(), inst.span)?;
        let p = self.operand(self.arg(inst, 3)?, Type::Pred, false, inst.span)?;
        let v = self.emit(Opcode::Select, ty, &[p, a, b], Aux::None);
        self.write_reg(d, v, t.is_signed(), inst.span)
    }

    /// `slct.dtype.ctype d, a, b, c`: `c >= 0 ? a : b` (a NaN `c` selects `b`).
    pub fn lower_slct(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let [dt, ct] = inst.mods.types[..] else {
            return Err(LowerError::new("slct needs two types", inst.span));
        };
        let (ty, cty) = (mir_type(dt), mir_type(ct));
        let d = self.dst(inst, 0)?;
        let a = self.operand(self.arg(inst, 1)?, ty, dt.is_signed(), inst.span)?;
        let b = self.operand(self.arg(inst, 2)?, ty, dt.is_signed(), inst.span)?;
        let c = self.operand(self.arg(inst, 3)?, cty, true, inst.span)?;
        let zero = self.konst(cty, 0);
        let ge = if cty.is_float() {
            let c = if inst.mods.ftz {
                self.emit(Opcode::Fflush, cty, &[c], Aux::Float(FloatMode::default()))
            } else {
                c
            };
            self.emit_typed(Opcode::Fcmp, cty, &[c, zero], Aux::Cond(Cond::Ge), Type::Pred)
        } else {
            self.emit_typed(Opcode::Icmp, cty, &[c, zero], Aux::Cond(Cond::Ge), Type::Pred)
        };
        let v = self.emit(Opcode::Select, ty, &[ge, a, b], Aux::None);
        self.write_reg(d, v, dt.is_signed(), inst.span)
    }
}
