//! 8- and 16-bit integers live in 32-bit registers with undefined upper bits; operations
//! whose result depends on those bits (compares, right shifts, min/max, widening) extend
//! their operands first: zero-extension with LOP3, sign-extension with a shift pair.

use super::fit::Arg;
use super::{Isel, IselError};
use crate::vcode::{MOp, VClass};
use ptxc_mir::ir::Value;
use ptxc_sass::isa::Mod;
use ptxc_sass::isa::values::ShfType;
use ptxc_sass::isa::{Op, Role, Value as V};

impl Isel<'_> {
    /// `v` (of `bits` bits) extended to 32 bits, as an operand.
    pub fn extended(&mut self, v: Value, bits: u32, signed: bool) -> Result<MOp, IselError> {
        if bits >= 32 {
            return Ok(self.src_op(v));
        }
        if let Some(V::Imm(k)) = self.foldable(v) {
            let shift = 64 - bits;
            let x = if signed {
                ((k << shift) as i64 >> shift) as u64
            } else {
                k & ((1 << bits) - 1)
            };
            return Ok(MOp::Fixed(V::Imm(x & 0xffff_ffff)));
        }
        if !signed && self.zero_extending_load(v, bits) {
            return Ok(self.src_op(v));
        }
        let a = self.src_op(v);
        let d = self.vcode.new_vreg(VClass::Single);
        if signed {
            let t = self.vcode.new_vreg(VClass::Single);
            let up = [
                (Role::A, Arg::op(a)),
                (Role::B, Arg::imm(32 - bits)),
                (Role::C, Arg::rz()),
            ];
            self.emit_sass(
                Op::Shf,
                &[(Role::Dst, MOp::Reg(t))],
                &up,
                &[Mod::Right.flag(false), ShfType::U32.set(), Mod::Hi.flag(false)],
                None,
            )?;
            let down = [
                (Role::A, Arg::rz()),
                (Role::B, Arg::imm(32 - bits)),
                (Role::C, Arg::op(MOp::Reg(t))),
            ];
            self.emit_sass(
                Op::Shf,
                &[(Role::Dst, MOp::Reg(d))],
                &down,
                &[Mod::Right.flag(true), ShfType::S32.set(), Mod::Hi.flag(true)],
                None,
            )?;
        } else {
            let mask = (1u32 << bits) - 1;
            let srcs = [
                (Role::A, Arg::op(a)),
                (Role::B, Arg::imm(mask)),
                (Role::C, Arg::rz()),
                (Role::Other, Arg::imm(0xc0)),
                (Role::PredSrc0, Arg::pt(true)),
            ];
            self.emit_sass(Op::Lop3, &[(Role::Dst, MOp::Reg(d))], &srcs, &[], None)?;
        }
        Ok(MOp::Reg(d))
    }

    /// True if `v` is the result of a scalar `bits`-wide load: LDG/LDS/LDL/LD/LDC `.U8` and
    /// `.U16` leave it zero-extended in its register already.
    fn zero_extending_load(&self, v: Value, bits: u32) -> bool {
        let Some(d) = self.def_of(v) else { return false };
        matches!(d.aux, ptxc_mir::ir::Aux::Mem(m) if m.vector == 1)
            && d.op == ptxc_mir::ir::Opcode::Load
            && self.func.ty(v).bits() == bits
            && self.func.def_inst(v).is_some_and(|i| self.func.results[i].len() == 1)
    }
}
