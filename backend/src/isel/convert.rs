//! Conversions: integer width changes (with extension and saturation) and float
//! conversions.

use super::fit::Arg;
use super::{Isel, IselError};
use crate::isa::{Op, Role, Value as V};
use crate::vcode::{MInst, MKind, MOp, WideOp};
use ptxc_mir::ir::{Aux, Inst, Type};

impl Isel<'_> {
    /// Conversions (integer width changes; float conversions need the converter forms).
    pub(super) fn lower_convert(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let Aux::Convert(info) = data.aux else {
            return Err(self.unsupported("conversion"));
        };
        let (to, from, a) = (data.ty, info.from, data.args[0]);
        let result = self.func.results[inst][0];
        match (from.is_int(), to.is_int()) {
            (true, true) => self.int_convert(result, a, from, to, info.from_signed, info.to_signed, info.sat),
            (false, false) if from == to && to == Type::F32 && info.rnd.is_none() => {
                // cvt.ftz/.sat.f32.f32: an addition of -0 flushes and saturates.
                let mods = [("ftz", info.ftz as u16), ("rnd", 0), ("sat", info.sat as u16)];
                let d = MOp::Reg(self.def_reg(result));
                let neg_rz = Arg::Op(
                    MOp::Fixed(V::Reg(crate::isa::RZ)),
                    crate::vcode::SrcMods { neg: true, abs: false },
                );
                self.emit_sass(
                    Op::Fadd,
                    &[(Role::Dst, d)],
                    &[(Role::A, Arg::v(a)), (Role::B, neg_rz)],
                    &mods,
                    None,
                )
            }
            _ => Err(self.unsupported(format!("conversion from {from} to {to}"))),
        }
    }

    /// Integer conversions between 8, 16, 32 and 64 bits (narrow values keep garbage above
    /// their width; widening extends them), with optional saturation.
    #[allow(clippy::too_many_arguments)]
    fn int_convert(
        &mut self,
        result: ptxc_mir::ir::Value,
        a: ptxc_mir::ir::Value,
        from: Type,
        to: Type,
        from_signed: bool,
        to_signed: bool,
        sat: bool,
    ) -> Result<(), IselError> {
        if sat {
            return self.saturate(result, a, from, to, from_signed, to_signed);
        }
        match (from.bits(), to.bits()) {
            (64, 64) => {
                let r = self.reg(a);
                self.alias(result, r);
                Ok(())
            }
            (64, _) => {
                let src = match self.sub_of(a) {
                    Some((t, i)) => MOp::Sub(t, i),
                    None => MOp::Sub(self.reg(a), 0),
                };
                let d = MOp::Reg(self.def_reg(result));
                self.emit_sass(Op::Mov, &[(Role::Dst, d)], &[(Role::B, Arg::op(src))], &[], None)
            }
            (f, 64) => {
                let lo = self.extended(a, f, from_signed)?;
                let d = self.def_reg(result);
                let hi = if from_signed {
                    let t = self.vcode.new_vreg(crate::vcode::VClass::Single);
                    let srcs = [(Role::A, Arg::rz()), (Role::B, Arg::imm(31)), (Role::C, Arg::op(lo))];
                    let mods = [("right", 1), ("type", 2), ("hi", 1)];
                    self.emit_sass(Op::Shf, &[(Role::Dst, MOp::Reg(t))], &srcs, &mods, None)?;
                    MOp::Reg(t)
                } else {
                    MOp::Fixed(V::Reg(crate::isa::RZ))
                };
                let tmp = None;
                self.push(MInst::new(MKind::Wide {
                    op: WideOp::Pack,
                    d,
                    srcs: smallvec::smallvec![lo, hi],
                    tmp,
                }));
                Ok(())
            }
            (f, t) if t > f => {
                let x = self.extended(a, f, from_signed)?;
                self.bind(result, x)
            }
            _ => {
                let x = self.src_op(a);
                self.bind(result, x)
            }
        }
    }

    /// cvt.sat between integer types of at most 32 bits: clamp to the destination's range.
    fn saturate(
        &mut self,
        result: ptxc_mir::ir::Value,
        a: ptxc_mir::ir::Value,
        from: Type,
        to: Type,
        from_signed: bool,
        to_signed: bool,
    ) -> Result<(), IselError> {
        if from.bits() > 32 || to.bits() > 32 {
            return Err(self.unsupported("saturating conversions of 64-bit integers"));
        }
        let x = self.extended(a, from.bits(), from_signed)?;
        let bits = to.bits();
        let (lo, hi): (i64, i64) = if to_signed {
            (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
        } else {
            (0, (1i64 << bits) - 1)
        };
        // Clamp in the source's signedness; bounds outside its range do nothing.
        let (src_lo, src_hi): (i64, i64) = if from_signed {
            (i32::MIN as i64, i32::MAX as i64)
        } else {
            (0, u32::MAX as i64)
        };
        let mut cur = x;
        for (bound, max) in [(lo, true), (hi, false)] {
            if (max && bound <= src_lo) || (!max && bound >= src_hi) {
                continue;
            }
            let t = self.vcode.new_vreg(crate::vcode::VClass::Single);
            let srcs = [
                (Role::A, Arg::op(cur)),
                (Role::B, Arg::imm(bound as u32)),
                (Role::PredSrc0, Arg::pt(max)),
            ];
            self.emit_sass(
                Op::Imnmx,
                &[(Role::Dst, MOp::Reg(t))],
                &srcs,
                &[("signed", from_signed as u16)],
                None,
            )?;
            cur = MOp::Reg(t);
        }
        self.bind(result, cur)
    }
}
