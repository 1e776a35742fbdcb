//! The 24-bit multiplies and the dot products, as ptxas writes them: the operands of
//! `mul24` are cut to 24 bits (`PRMT x, 0x7210, RZ` unsigned, `SGXT x, 0x18` signed), `.lo`
//! is one IMAD and `.hi` (bits 47..16) an IMAD.WIDE whose halves are joined by a shift and
//! a PRMT; `dp4a` and `dp2a` are IDP.4A / IDP.2A.LO / IDP.2A.HI with the operand types.

use super::fit::Arg;
use super::{Isel, IselError};
use crate::isa::Op;
use crate::isa::Role;
use crate::vcode::{MOp, VClass};
use ptxc_mir::ir::{Aux, Inst, Opcode, Value};

impl Isel<'_> {
    /// Selects `mul24_*`, `dp4a` and `dp2a` on 32-bit values.
    pub(super) fn lower_intmul(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let (op, args) = (data.op, data.args.clone());
        let d = self.dst(inst);
        match op {
            Opcode::Mul24LoS | Opcode::Mul24LoU | Opcode::Mul24HiS | Opcode::Mul24HiU => {
                let signed = matches!(op, Opcode::Mul24LoS | Opcode::Mul24HiS);
                let (a, b) = (self.low24(args[0], signed)?, self.low24(args[1], signed)?);
                if matches!(op, Opcode::Mul24LoS | Opcode::Mul24LoU) {
                    let srcs = [(Role::A, Arg::op(a)), (Role::B, Arg::op(b)), (Role::C, Arg::rz())];
                    return self.emit_sass(Op::Imad, &[(Role::Dst, d)], &srcs, &[("signed", 1)], None);
                }
                self.mul24_hi(d, a, b, signed)
            }
            Opcode::Dp4a | Opcode::Dp2a => {
                let Aux::Imm(bits) = data.aux else {
                    return Err(self.unsupported("dot product without operand types"));
                };
                let kind = match op {
                    Opcode::Dp4a => 0,
                    _ if bits & 4 != 0 => 3,
                    _ => 1,
                };
                let mods = [
                    ("kind", kind),
                    ("atype", (bits & 1) as u16),
                    ("btype", (bits >> 1 & 1) as u16),
                ];
                let srcs = [
                    (Role::A, Arg::v(args[0])),
                    (Role::B, Arg::v(args[1])),
                    (Role::C, Arg::v(args[2])),
                ];
                self.emit_sass(Op::Idp, &[(Role::Dst, d)], &srcs, &mods, None)
            }
            other => Err(self.unsupported(format!("MIR `{}`", other.name()))),
        }
    }

    /// The low 24 bits of `v`, sign- or zero-extended.
    fn low24(&mut self, v: Value, signed: bool) -> Result<MOp, IselError> {
        if let Some(crate::isa::Value::Imm(k)) = self.foldable(v) {
            let x = if signed {
                ((k << 40) as i64 >> 40) as u64
            } else {
                k & 0xff_ffff
            };
            return Ok(MOp::Fixed(crate::isa::Value::Imm(x & 0xffff_ffff)));
        }
        let t = MOp::Reg(self.vcode.new_vreg(VClass::Single));
        if signed {
            let srcs = [(Role::A, Arg::v(v)), (Role::B, Arg::imm(24))];
            self.emit_sass(Op::Sgxt, &[(Role::Dst, t)], &srcs, &[], None)?;
        } else {
            let srcs = [(Role::A, Arg::v(v)), (Role::B, Arg::imm(0x7210)), (Role::C, Arg::rz())];
            self.emit_sass(Op::Prmt, &[(Role::Dst, t)], &srcs, &[], None)?;
        }
        Ok(t)
    }

    /// Bits 47..16 of the 48-bit product of `a` and `b`.
    fn mul24_hi(&mut self, d: MOp, a: MOp, b: MOp, signed: bool) -> Result<(), IselError> {
        // IMAD.WIDE reads A from a register.
        let (a, b) = if matches!(a, MOp::Fixed(_)) { (b, a) } else { (a, b) };
        let a = match a {
            MOp::Fixed(_) => {
                let t = MOp::Reg(self.vcode.new_vreg(VClass::Single));
                self.emit_sass(Op::Mov, &[(Role::Dst, t)], &[(Role::B, Arg::op(a))], &[], None)?;
                t
            }
            _ => a,
        };
        let wide = self.vcode.new_vreg(VClass::Pair);
        let srcs = [(Role::A, Arg::op(a)), (Role::B, Arg::op(b)), (Role::C, Arg::rz())];
        self.emit_sass(
            Op::ImadWide,
            &[(Role::Dst, MOp::Reg(wide))],
            &srcs,
            &[("signed", signed as u16)],
            None,
        )?;
        let lo = MOp::Reg(self.vcode.new_vreg(VClass::Single));
        let srcs = [
            (Role::A, Arg::rz()),
            (Role::B, Arg::imm(16)),
            (Role::C, Arg::op(MOp::Sub(wide, 0))),
        ];
        let mods = [("right", 1), ("type", if signed { 2 } else { 3 }), ("hi", 1)];
        self.emit_sass(Op::Shf, &[(Role::Dst, lo)], &srcs, &mods, None)?;
        let srcs = [
            (Role::A, Arg::op(lo)),
            (Role::B, Arg::imm(0x5410)),
            (Role::C, Arg::op(MOp::Sub(wide, 1))),
        ];
        self.emit_sass(Op::Prmt, &[(Role::Dst, d)], &srcs, &[], None)
    }
}
