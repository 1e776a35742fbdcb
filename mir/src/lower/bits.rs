//! Bit manipulation: bfe, bfi, bfind (with `.shiftamt`), bmsk, brev, clz, popc, prmt, lop3,
//! shf, szext, dp2a/dp4a and the video shifts vshl/vshr (32-bit operands, no selectors).

use super::LowerError;
use super::context::{Lowerer, mir_type};
use crate::ir::{Aux, Cond, Opcode, Type, Value};
use ptxc_frontend::checked::{CheckedInst, MulMode, Opcode as P};

/// `prmt` mode flags and their `Aux::Imm` numbers.
const PRMT_MODES: &[(&str, u64)] = &[("f4e", 1), ("b4e", 2), ("rc8", 3), ("ecl", 4), ("ecr", 5), ("rc16", 6)];

impl Lowerer<'_> {
    /// Source operand `i` as `ty`.
    fn src(&mut self, inst: &CheckedInst, i: usize, ty: Type, signed: bool) -> Result<Value, LowerError> {
        let op = self.arg(inst, i)?.clone();
        self.operand(&op, ty, signed, inst.span)
    }

    /// `bfe.type d, a, pos, len`.
    pub fn lower_bfe(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let (ty, signed) = self.inst_type(inst)?;
        let d = self.dst(inst, 0)?;
        let a = self.src(inst, 1, ty, signed)?;
        let pos = self.src(inst, 2, Type::I32, false)?;
        let len = self.src(inst, 3, Type::I32, false)?;
        let op = if signed { Opcode::BfeS } else { Opcode::BfeU };
        let v = self.emit(op, ty, &[a, pos, len], Aux::None);
        self.write_reg(d, v, signed, inst.span)
    }

    /// `bfi.type d, a, b, pos, len`.
    pub fn lower_bfi(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let (ty, _) = self.inst_type(inst)?;
        let d = self.dst(inst, 0)?;
        let a = self.src(inst, 1, ty, false)?;
        let b = self.src(inst, 2, ty, false)?;
        let pos = self.src(inst, 3, Type::I32, false)?;
        let len = self.src(inst, 4, Type::I32, false)?;
        let v = self.emit(Opcode::Bfi, ty, &[a, b, pos, len], Aux::None);
        self.write_reg(d, v, false, inst.span)
    }

    /// `bfind[.shiftamt].type d, a`.
    pub fn lower_bfind(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let (ty, signed) = self.inst_type(inst)?;
        let d = self.dst(inst, 0)?;
        let a = self.src(inst, 1, ty, signed)?;
        let op = if signed { Opcode::BfindS } else { Opcode::BfindU };
        let mut v = self.emit_typed(op, ty, &[a], Aux::None, Type::I32);
        if inst.mods.has_flag("shiftamt") {
            // The shift that would move the bit to the top; "not found" stays all ones.
            let none = self.konst(Type::I32, 0xffff_ffff);
            let top = self.konst(Type::I32, ty.bits() as u64 - 1);
            let amt = self.emit(Opcode::Isub, Type::I32, &[top, v], Aux::None);
            let found = self.emit_typed(Opcode::Icmp, Type::I32, &[v, none], Aux::Cond(Cond::Ne), Type::Pred);
            v = self.emit(Opcode::Select, Type::I32, &[found, amt, none], Aux::None);
        }
        self.write_reg(d, v, false, inst.span)
    }

    /// `bmsk.mode.b32 d, pos, len`: `len` ones starting at bit `pos`.
    pub fn lower_bmsk(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let d = self.dst(inst, 0)?;
        let mut pos = self.src(inst, 1, Type::I32, false)?;
        let mut len = self.src(inst, 2, Type::I32, false)?;
        if inst.mods.has_flag("wrap") {
            let m = self.konst(Type::I32, 31);
            pos = self.emit(Opcode::And, Type::I32, &[pos, m], Aux::None);
            len = self.emit(Opcode::And, Type::I32, &[len, m], Aux::None);
        }
        // Shifts clamp amounts >= 32, which is what `.clamp` asks for.
        let ones = self.konst(Type::I32, 0xffff_ffff);
        let high = self.emit(Opcode::Shl, Type::I32, &[ones, len], Aux::None);
        let low_ones = self.emit(Opcode::Not, Type::I32, &[high], Aux::None);
        let v = self.emit(Opcode::Shl, Type::I32, &[low_ones, pos], Aux::None);
        self.write_reg(d, v, false, inst.span)
    }

    /// `brev`, `clz`, `popc`.
    pub fn lower_bit_unary(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let (ty, _) = self.inst_type(inst)?;
        let d = self.dst(inst, 0)?;
        let a = self.src(inst, 1, ty, false)?;
        let v = match inst.op {
            P::Brev => self.emit(Opcode::Brev, ty, &[a], Aux::None),
            P::Clz => self.emit_typed(Opcode::Clz, ty, &[a], Aux::None, Type::I32),
            _ => self.emit_typed(Opcode::Popc, ty, &[a], Aux::None, Type::I32),
        };
        self.write_reg(d, v, false, inst.span)
    }

    /// `prmt.b32[.mode] d, a, b, c`.
    pub fn lower_prmt(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let d = self.dst(inst, 0)?;
        let a = self.src(inst, 1, Type::I32, false)?;
        let b = self.src(inst, 2, Type::I32, false)?;
        let c = self.src(inst, 3, Type::I32, false)?;
        let mode = PRMT_MODES
            .iter()
            .find(|(f, _)| inst.mods.has_flag(f))
            .map_or(0, |(_, m)| *m);
        let v = self.emit(Opcode::Prmt, Type::I32, &[a, b, c], Aux::Imm(mode));
        self.write_reg(d, v, false, inst.span)
    }

    /// `lop3.b32 d, a, b, c, lut`.
    pub fn lower_lop3(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let d = self.dst(inst, 0)?;
        let a = self.src(inst, 1, Type::I32, false)?;
        let b = self.src(inst, 2, Type::I32, false)?;
        let c = self.src(inst, 3, Type::I32, false)?;
        let ptxc_frontend::checked::CheckedOperand::Int(lut) = self.arg(inst, 4)? else {
            return Err(LowerError::new("lop3 needs an immediate table", inst.span));
        };
        let v = self.emit(Opcode::Lop3, Type::I32, &[a, b, c], Aux::Imm(*lut as u64 & 0xff));
        self.write_reg(d, v, false, inst.span)
    }

    /// `shf.{l,r}.{clamp,wrap}.b32 d, a, b, c`.
    pub fn lower_shf(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let d = self.dst(inst, 0)?;
        let a = self.src(inst, 1, Type::I32, false)?;
        let b = self.src(inst, 2, Type::I32, false)?;
        let c = self.src(inst, 3, Type::I32, false)?;
        let op = match (inst.mods.has_flag("l"), inst.mods.has_flag("clamp")) {
            (true, true) => Opcode::ShfLClamp,
            (true, false) => Opcode::ShfLWrap,
            (false, true) => Opcode::ShfRClamp,
            (false, false) => Opcode::ShfRWrap,
        };
        let v = self.emit(op, Type::I32, &[a, b, c], Aux::None);
        self.write_reg(d, v, false, inst.span)
    }

    /// `szext.mode.type d, a, b`: sign- or zero-extends the low `b` bits of `a`.
    pub fn lower_szext(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let (ty, signed) = self.inst_type(inst)?;
        let d = self.dst(inst, 0)?;
        let a = self.src(inst, 1, ty, signed)?;
        let mut n = self.src(inst, 2, Type::I32, false)?;
        let k32 = self.konst(Type::I32, 32);
        if inst.mods.has_flag("wrap") {
            let m = self.konst(Type::I32, 31);
            n = self.emit(Opcode::And, Type::I32, &[n, m], Aux::None);
        } else {
            n = self.emit(Opcode::MinU, Type::I32, &[n, k32], Aux::None);
        }
        let zero = self.konst(Type::I32, 0);
        let op = if signed { Opcode::BfeS } else { Opcode::BfeU };
        let v = self.emit(op, ty, &[a, zero, n], Aux::None);
        self.write_reg(d, v, signed, inst.span)
    }

    /// `dp4a.atype.btype d, a, b, c` and `dp2a.mode.atype.btype d, a, b, c`.
    pub fn lower_dp(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let [at, bt] = inst.mods.types[..] else {
            return Err(LowerError::new("dp2a/dp4a need two types", inst.span));
        };
        let d = self.dst(inst, 0)?;
        let a = self.src(inst, 1, Type::I32, false)?;
        let b = self.src(inst, 2, Type::I32, false)?;
        let c = self.src(inst, 3, Type::I32, false)?;
        let mut bits = at.is_signed() as u64 | (bt.is_signed() as u64) << 1;
        let op = if inst.op == P::Dp2a {
            bits |= ((inst.mods.mul_mode == Some(MulMode::Hi)) as u64) << 2;
            Opcode::Dp2a
        } else {
            Opcode::Dp4a
        };
        let v = self.emit(op, Type::I32, &[a, b, c], Aux::Imm(bits));
        let signed = at.is_signed() || bt.is_signed();
        self.write_reg(d, v, signed, inst.span)
    }

    /// `vshl/vshr.dtype.atype.btype{.clamp,.wrap}[.op2] d, a, b[, c]` on whole 32-bit values.
    pub fn lower_video_shift(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let [dt, at, _] = inst.mods.types[..] else {
            return Err(LowerError::new("video instructions need three types", inst.span));
        };
        if inst.mods.sat {
            return Err(self.refuse(inst, "`.sat` on video instructions"));
        }
        let d = self.dst(inst, 0)?;
        let a = self.src(inst, 1, Type::I32, at.is_signed())?;
        let mut b = self.src(inst, 2, Type::I32, false)?;
        if inst.mods.has_flag("wrap") {
            let m = self.konst(Type::I32, 31);
            b = self.emit(Opcode::And, Type::I32, &[b, m], Aux::None);
        }
        let op = match (inst.op, at.is_signed()) {
            (P::Vshl, _) => Opcode::Shl,
            (_, true) => Opcode::ShrS,
            _ => Opcode::ShrU,
        };
        let mut v = self.emit(op, Type::I32, &[a, b], Aux::None);
        if inst.operands.len() > 3 {
            let c = self.src(inst, 3, mir_type(dt), dt.is_signed())?;
            let signed = dt.is_signed();
            let op2 = if inst.mods.has_flag("add") {
                Opcode::Iadd
            } else if inst.mods.has_flag("min") {
                if signed { Opcode::MinS } else { Opcode::MinU }
            } else if inst.mods.has_flag("max") {
                if signed { Opcode::MaxS } else { Opcode::MaxU }
            } else {
                return Err(self.refuse(inst, "this video secondary operation"));
            };
            v = self.emit(op2, Type::I32, &[v, c], Aux::None);
        }
        self.write_reg(d, v, dt.is_signed(), inst.span)
    }
}
