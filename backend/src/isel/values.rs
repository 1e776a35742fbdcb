//! Dispatch of non-terminator MIR instructions, and the value-producing ones that are not
//! arithmetic: constants, parameters, special registers, copies, bitcasts, conversions.

use super::fit::Arg;
use super::operand::driver_constant;
use super::{Isel, IselError};
use crate::isa::{Op, Role, Value as V};
use crate::vcode::{MInst, MKind, MOp};
use ptxc_mir::ir::{Aux, Inst, Opcode, SpecialReg, Type};

/// The S2R number of a special register.
fn sr_number(sr: SpecialReg) -> Option<u8> {
    Some(match sr {
        SpecialReg::Tid(d) => 0x21 + d,
        SpecialReg::Ctaid(d) => 0x25 + d,
        SpecialReg::LaneId => 0x00,
        SpecialReg::LaneMaskEq => 0x38,
        SpecialReg::LaneMaskLt => 0x39,
        SpecialReg::LaneMaskLe => 0x3a,
        SpecialReg::LaneMaskGt => 0x3b,
        SpecialReg::LaneMaskGe => 0x3c,
        SpecialReg::TotalSmemSize => 0x32,
        _ => return None,
    })
}

impl Isel<'_> {
    /// Selects one non-terminator instruction.
    pub fn lower_inst(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let unused = self.func.results[inst].iter().all(|&r| self.use_count(r) == 0);
        if unused && !data.op.has_side_effects() && data.op != Opcode::Load {
            return Ok(());
        }
        match data.op {
            Opcode::Const | Opcode::Param | Opcode::Undef => Ok(()),
            Opcode::Special => self.lower_special(inst),
            Opcode::Copy | Opcode::Bitcast => {
                let (src, dst) = (data.args[0], self.func.results[inst][0]);
                if self.foldable(src).is_none() && self.foldable64(src).is_none() {
                    let r = self.reg(src);
                    self.alias(dst, r);
                }
                Ok(())
            }
            Opcode::Iadd if data.ty == Type::I64 => self.lower_add64(inst),
            Opcode::Iadd
            | Opcode::Isub
            | Opcode::Imul
            | Opcode::ImulHiS
            | Opcode::ImulHiU
            | Opcode::ImulWideS
            | Opcode::ImulWideU
            | Opcode::Imad
            | Opcode::ImadWideS
            | Opcode::ImadWideU
            | Opcode::Ineg
            | Opcode::And
            | Opcode::Or
            | Opcode::Xor
            | Opcode::Not
            | Opcode::Shl
            | Opcode::ShrS
            | Opcode::ShrU
            | Opcode::MinS
            | Opcode::MinU
            | Opcode::MaxS
            | Opcode::MaxU => self.lower_int(inst),
            Opcode::Icmp | Opcode::Fcmp => self.lower_cmp(inst),
            Opcode::Select => self.lower_select(inst),
            Opcode::Fadd
            | Opcode::Fsub
            | Opcode::Fmul
            | Opcode::Ffma
            | Opcode::Fneg
            | Opcode::Fabs
            | Opcode::Fmin
            | Opcode::Fmax => self.lower_float(inst),
            Opcode::Convert => self.lower_convert(inst),
            Opcode::Load => self.lower_load(inst),
            Opcode::Store => self.lower_store(inst),
            Opcode::Jump | Opcode::Brif | Opcode::Exit | Opcode::Trap => {
                unreachable!("terminators are selected by cfg")
            }
            other => Err(self.unsupported(format!("MIR `{}`", other.name()))),
        }
    }

    fn lower_special(&mut self, inst: Inst) -> Result<(), IselError> {
        let Aux::Special(sr) = self.func.insts[inst].aux else {
            return Err(self.unsupported("special register"));
        };
        if driver_constant(sr).is_some() {
            return Ok(());
        }
        let n = sr_number(sr).ok_or_else(|| self.unsupported(format!("special register {sr:?}")))?;
        let d = MOp::Reg(self.def_reg(self.func.results[inst][0]));
        self.emit_sass(
            Op::S2r,
            &[(Role::Dst, d)],
            &[(Role::A, Arg::op(MOp::Fixed(V::SReg(n))))],
            &[],
            None,
        )
    }

    /// Integer width changes between 32 and 64 bits.
    fn lower_convert(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let Aux::Convert(info) = data.aux else {
            return Err(self.unsupported("conversion"));
        };
        let (to, from, a) = (data.ty, info.from, data.args[0]);
        let result = self.func.results[inst][0];
        match (from, to) {
            (Type::I32, Type::I64) => {
                let lo = MOp::Reg(self.reg(a));
                let d = self.def_reg(result);
                let hi = if info.from_signed {
                    let t = self.vcode.new_vreg(crate::vcode::VClass::Single);
                    let srcs = [(Role::A, Arg::rz()), (Role::B, Arg::imm(31)), (Role::C, Arg::op(lo))];
                    self.emit_sass(
                        Op::Shf,
                        &[(Role::Dst, MOp::Reg(t))],
                        &srcs,
                        &[("right", 1), ("type", 2), ("hi", 1)],
                        None,
                    )?;
                    MOp::Reg(t)
                } else {
                    MOp::Fixed(V::Reg(crate::isa::RZ))
                };
                self.push(MInst::new(MKind::Pack64 { d, lo, hi }));
                Ok(())
            }
            (Type::I64, Type::I32) => {
                let p = self.reg(a);
                let d = MOp::Reg(self.def_reg(result));
                self.emit_sass(
                    Op::Mov,
                    &[(Role::Dst, d)],
                    &[(Role::B, Arg::op(MOp::Half(p, 0)))],
                    &[],
                    None,
                )
            }
            (f, t) => Err(self.unsupported(format!("conversion from {f} to {t}"))),
        }
    }
}
