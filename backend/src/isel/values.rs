//! Dispatch of non-terminator MIR instructions, and the value-producing ones that are not
//! arithmetic: constants, parameters, special registers, copies, bitcasts, conversions.

use super::fit::Arg;
use super::operand::driver_constant;
use super::{Isel, IselError};
use crate::vcode::MOp;
use ptxc_mir::ir::{Aux, Inst, Opcode, SpecialReg, Type};
use ptxc_sass::isa::Mod;
use ptxc_sass::isa::values::{MemSize, ShfType};
use ptxc_sass::isa::{Op, Role, Value as V};

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
        SpecialReg::SmId => 0x43,
        // SR_CgaCtaId (sm_90): the CTA's rank in its cluster.
        SpecialReg::ClusterCtaRank => 0x88,
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
        // Values that fold into their users' operands are materialised there.
        if data.op.is_pure() && self.func.results[inst].len() == 1 && self.is_operand_value(self.func.results[inst][0])
        {
            return Ok(());
        }
        use super::family::{Family, family};
        match family(data.op) {
            Family::Value => self.lower_value(inst),
            Family::Int if data.ty == Type::I64 && self.packed_halves(inst).is_some() => self.lower_pack64(inst),
            Family::Int if data.ty == Type::I64 => self.lower_int64(inst),
            Family::Int => self.lower_int(inst),
            Family::Compare if data.ty == Type::I64 => self.lower_icmp64(inst),
            Family::Compare => self.lower_cmp(inst),
            Family::Select if super::class_of(data.ty) == crate::vcode::VClass::Pair => self.lower_select64(inst),
            Family::Select => self.lower_select(inst),
            Family::Float => self.lower_float_family(inst),
            Family::Convert => self.lower_convert(inst),
            Family::Memory => self.lower_memory(inst),
            Family::Atomic => self.lower_atomic(inst),
            Family::Warp => self.lower_warp(inst),
            Family::Tensor => self.lower_tensor(inst),
            Family::Barrier => self.lower_barrier(inst),
            Family::Call => self.lower_call(inst),
            Family::AsyncCopy => self.lower_async_copy(inst),
            Family::Mbarrier => self.lower_mbarrier(inst),
            Family::Control => unreachable!("terminators are selected by cfg"),
        }
    }

    /// An 8- or 16-bit parameter at an offset ALU operands cannot address: `LDC.U8` /
    /// `LDC.U16 d, c[0x0][offset]` (byte offsets), as ptxas loads `char` and `short`
    /// arguments that follow narrower ones.
    fn load_param(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let Aux::Param(off) = data.aux else {
            return Err(self.unsupported("parameter without an offset"));
        };
        let size = if data.ty.bits() <= 8 { MemSize::U8 } else { MemSize::U16 };
        let operand = MOp::Fixed(V::CBank {
            bank: 0,
            offset: self.param_base() + off as i32,
            reg: Some(ptxc_sass::isa::RZ),
        });
        let d = MOp::Reg(self.def_reg(self.func.results[inst][0]));
        self.emit_sass(
            Op::Ldc,
            &[(Role::Dst, d)],
            &[(Role::B, Arg::op(operand))],
            &[size.set()],
            None,
        )
    }

    /// Constants, parameters and special registers (folded or materialised at their uses),
    /// copies and bitcasts (aliases).
    fn lower_value(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        match data.op {
            Opcode::Param if self.foldable(self.func.results[inst][0]).is_none() && data.ty.bits() <= 16 => {
                self.load_param(inst)
            }
            Opcode::Const | Opcode::Param | Opcode::Undef => Ok(()),
            Opcode::Special => self.lower_special(inst),
            Opcode::Addr => self.lower_addr(inst),
            Opcode::Copy | Opcode::Bitcast => {
                let (src, dst) = (data.args[0], self.func.results[inst][0]);
                // A constant is left to fold again at each use.
                let folds = self.foldable(src).is_some() || self.foldable64(src).is_some();
                if self.sub_of(src).is_some() || !folds {
                    self.alias_value(dst, src);
                }
                Ok(())
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
        let d = MOp::Reg(self.def_reg(self.func.results[inst][0]));
        // Clocks and timers: CS2R (64-bit, or `.32` for one word).
        let counter = match sr {
            SpecialReg::Clock => Some((0x50, false)),
            SpecialReg::Clock64 => Some((0x50, true)),
            SpecialReg::GlobalTimer => Some((0x52, true)),
            SpecialReg::GlobalTimerLo => Some((0x52, false)),
            SpecialReg::GlobalTimerHi => Some((0x53, false)),
            _ => None,
        };
        if let Some((n, wide)) = counter {
            let src = [(Role::A, Arg::op(MOp::Fixed(V::SReg(n))))];
            return self.emit_sass(Op::Cs2r, &[(Role::Dst, d)], &src, &[Mod::Wide.flag(wide)], None);
        }
        if sr == SpecialReg::WarpId {
            // Bits 14..8 of SR_VIRTID.
            let id = self.emit_temp(Op::S2r, &[(Role::A, Arg::op(MOp::Fixed(V::SReg(0x03))))], &[])?;
            let srcs = [(Role::A, Arg::rz()), (Role::B, Arg::imm(8)), (Role::C, Arg::op(id))];
            let shifted = self.emit_temp(
                Op::Shf,
                &srcs,
                &[Mod::Right.flag(true), ShfType::U32.set(), Mod::Hi.flag(true)],
            )?;
            let srcs = [(Role::A, Arg::op(shifted)), (Role::B, Arg::imm(7))];
            return self.emit_sass(Op::Sgxt, &[(Role::Dst, d)], &srcs, &[Mod::Signed.flag(false)], None);
        }
        let n = sr_number(sr).ok_or_else(|| self.unsupported(format!("special register {sr:?}")))?;
        self.emit_sass(
            Op::S2r,
            &[(Role::Dst, d)],
            &[(Role::A, Arg::op(MOp::Fixed(V::SReg(n))))],
            &[],
            None,
        )
    }

    /// Makes `result` the value of operand `x` (a register alias, or a move for fixed values).
    pub(super) fn bind(&mut self, result: ptxc_mir::ir::Value, x: MOp) -> Result<(), IselError> {
        match x {
            MOp::Reg(r) => {
                self.alias(result, r);
                Ok(())
            }
            MOp::Sub(t, i) => {
                self.alias_sub(result, t, i);
                Ok(())
            }
            other => {
                let d = MOp::Reg(self.def_reg(result));
                self.emit_sass(Op::Mov, &[(Role::Dst, d)], &[(Role::B, Arg::op(other))], &[], None)
            }
        }
    }
}
