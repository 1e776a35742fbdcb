//! Conversions: cvt between integer widths, integers and floats, and float widths; the
//! integer rounding modes on float-to-float (`cvt.rni.f32.f32`, which becomes `frint`) and
//! `cvt.pack.sat` (two saturated narrow values packed above the low bits of `c`).

use super::LowerError;
use super::arith::float_rounding;
use super::context::{Lowerer, mir_type};
use crate::ir::{Aux, ConvertInfo, FloatMode, Opcode, Type, Value};
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
        };
        if from_ty.is_float() && to_ty.is_float() && is_integer_rounding(inst.mods.rounding) {
            let m = FloatMode {
                rnd: info.rnd,
                ftz: info.ftz,
                sat: false,
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
