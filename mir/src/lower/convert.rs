//! Conversions: cvt between integer widths, integers and floats, and float widths; the
//! integer rounding modes on float-to-float (`cvt.rni.f32.f32`, which becomes `frint`) and
//! `cvt.pack.sat` (two saturated narrow values packed above the low bits of `c`).

use super::LowerError;
use super::arith::float_rounding;
use super::context::{Lowerer, mir_type};
use crate::ir::{Aux, ConvertInfo, FloatMode, Opcode, Type, Value};
use ptxc_frontend::ast::ScalarType;
use ptxc_frontend::checked::{CheckedInst, Rounding};

/// True for the integer rounding modifiers (`.rni`, `.rzi`, `.rmi`, `.rpi`).
fn is_integer_rounding(r: Option<Rounding>) -> bool {
    matches!(r, Some(Rounding::Rni | Rounding::Rzi | Rounding::Rmi | Rounding::Rpi))
}

impl Lowerer<'_> {
    /// `cvt[.rnd][.ftz][.sat].dtype.stype d, a` and `cvt.pack.sat.dtype.stype.b32 d, a, b, c`.
    pub fn lower_cvt(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        if inst.mods.has_flag("pack") {
            return self.lower_cvt_pack(inst);
        }
        if matches!(
            inst.mods.types[..],
            [ScalarType::F16x2 | ScalarType::Bf16x2, ScalarType::F32]
        ) {
            return self.lower_cvt_pair(inst);
        }
        if inst.mods.types[..] == [ScalarType::Tf32, ScalarType::F32] {
            return self.lower_cvt_tf32(inst);
        }
        let [to, from] = inst.mods.types[..] else {
            return Err(LowerError::new("cvt needs a destination and a source type", inst.span));
        };
        let (to_ty, from_ty) = (mir_type(to), mir_type(from));
        let d = self.dst(inst, 0)?;
        let mut a = self.operand(self.arg(inst, 1)?, from_ty, from.is_signed(), inst.span)?;
        let mut info = ConvertInfo {
            from: from_ty,
            from_signed: from.is_signed(),
            to_signed: to.is_signed(),
            rnd: inst.mods.rounding.and_then(float_rounding),
            sat: inst.mods.sat,
            ftz: inst.mods.ftz,
            relu: inst.mods.has_flag("relu"),
        };
        if from_ty.is_float() && to_ty.is_float() && is_integer_rounding(inst.mods.rounding) {
            let m = FloatMode {
                rnd: info.rnd,
                ftz: info.ftz,
                ..FloatMode::default()
            };
            a = self.emit(Opcode::Frint, from_ty, &[a], Aux::Float(m));
            info.rnd = None;
        }
        let plain_copy = to_ty == from_ty && !info.sat && !(to_ty.is_float() && info.ftz);
        let v = if plain_copy {
            a
        } else {
            self.emit(Opcode::Convert, to_ty, &[a], Aux::Convert(info))
        };
        self.write_reg(d, v, to.is_signed(), inst.span)
    }

    /// `cvt.rn{.relu}.f16x2.f32 d, a, b` (and `.rz`, `.bf16x2`): `a` into the high half.
    fn lower_cvt_pair(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let to_ty = mir_type(inst.mods.types[0]);
        let d = self.dst(inst, 0)?;
        let a = self.operand(self.arg(inst, 1)?, Type::F32, false, inst.span)?;
        let b = self.operand(self.arg(inst, 2)?, Type::F32, false, inst.span)?;
        let info = ConvertInfo {
            from: Type::F32,
            from_signed: false,
            to_signed: false,
            rnd: inst.mods.rounding.and_then(float_rounding),
            sat: false,
            ftz: false,
            relu: inst.mods.has_flag("relu"),
        };
        let v = self.emit(Opcode::Fpack, to_ty, &[a, b], Aux::Convert(info));
        self.write_reg(d, v, false, inst.span)
    }

    /// `cvt.rna.tf32.f32 d, a`: rounded to 10 fraction bits, ties away from zero, as the
    /// integer operations ptxas emits: finite values get 0x1000 added to their bits, then the
    /// 13 low bits are cleared (an infinity or NaN only loses them).
    fn lower_cvt_tf32(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let d = self.dst(inst, 0)?;
        let a = self.operand(self.arg(inst, 1)?, Type::F32, false, inst.span)?;
        let inf = self.konst(Type::F32, 0x7f80_0000);
        let magnitude = self.emit(Opcode::Fabs, Type::F32, &[a], Aux::Float(FloatMode::default()));
        let finite = self.emit_typed(
            Opcode::Fcmp,
            Type::F32,
            &[magnitude, inf],
            Aux::Cond(crate::ir::Cond::Lt),
            Type::Pred,
        );
        let bits = self.emit(Opcode::Bitcast, Type::I32, &[a], Aux::None);
        let half = self.konst(Type::I32, 0x1000);
        let up = self.emit(Opcode::Iadd, Type::I32, &[bits, half], Aux::None);
        let rounded = self.emit(Opcode::Select, Type::I32, &[finite, up, bits], Aux::None);
        let mask = self.konst(Type::I32, 0xffff_e000);
        let v = self.emit(Opcode::And, Type::I32, &[rounded, mask], Aux::None);
        self.write_reg(d, v, false, inst.span)
    }

    fn lower_cvt_pack(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let [to, from, ..] = inst.mods.types[..] else {
            return Err(LowerError::new("cvt.pack needs its types", inst.span));
        };
        let (to_ty, from_ty) = (mir_type(to), mir_type(from));
        let d = self.dst(inst, 0)?;
        let a = self.operand(self.arg(inst, 1)?, from_ty, from.is_signed(), inst.span)?;
        let b = self.operand(self.arg(inst, 2)?, from_ty, from.is_signed(), inst.span)?;
        let c = self.operand(self.arg(inst, 3)?, Type::I32, false, inst.span)?;
        let info = ConvertInfo {
            from: from_ty,
            from_signed: from.is_signed(),
            to_signed: to.is_signed(),
            rnd: None,
            sat: true,
            ftz: false,
            relu: false,
        };
        let bits = to_ty.bits();
        let narrow = |this: &mut Self, v: Value| {
            let n = this.emit(Opcode::Convert, to_ty, &[v], Aux::Convert(info));
            this.widen(n, Type::I32)
        };
        let (na, nb) = (narrow(self, a), narrow(self, b));
        let sh_a = self.konst(Type::I32, bits as u64);
        let sh_c = self.konst(Type::I32, 2 * bits as u64);
        let na = self.emit(Opcode::Shl, Type::I32, &[na, sh_a], Aux::None);
        let c = self.emit(Opcode::Shl, Type::I32, &[c, sh_c], Aux::None);
        let ab = self.emit(Opcode::Or, Type::I32, &[na, nb], Aux::None);
        let v = self.emit(Opcode::Or, Type::I32, &[ab, c], Aux::None);
        self.write_reg(d, v, false, inst.span)
    }
}
