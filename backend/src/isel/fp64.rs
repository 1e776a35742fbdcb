//! Double precision on register pairs: DADD, DMUL, DFMA with rounding modes (an immediate is
//! the upper half of an f64, so only constants with a zero lower half fold), negation and
//! absolute value as `DADD -RZ, -x` / `DADD -RZ, |x|` as ptxas writes them, and copysign as
//! one LOP3 on the upper registers. Compares (DSETP) are in `float.rs`; min/max, `testp`,
//! division, reciprocal and square root are legalized before selection.

use super::fit::Arg;
use super::float::{float_mods, mode_of};
use super::{Isel, IselError};
use crate::isa::{Op, Role};
use crate::vcode::{MInst, MKind, MOp, SrcMods, VClass, WideOp};
use ptxc_mir::ir::{Inst, Opcode};
use smallvec::smallvec;

impl Isel<'_> {
    /// Double-precision arithmetic.
    pub(super) fn lower_fp64(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let (op, args) = (data.op, data.args.clone());
        let m = mode_of(&data.aux);
        if m.sat {
            return Err(self.unsupported(format!("{}.sat on f64", op.name())));
        }
        let mods: Vec<_> = float_mods(&data.aux).into_iter().filter(|(n, _)| *n == "rnd").collect();
        let d = self.dst(inst);
        let dst = [(Role::Dst, d)];
        let rz_neg = Arg::Op(
            MOp::Fixed(crate::isa::Value::Reg(crate::isa::RZ)),
            SrcMods {
                neg: true,
                ..SrcMods::default()
            },
        );
        match op {
            Opcode::Fadd | Opcode::Fmul => {
                let (a, b) = (self.fsrc(args[0], false), self.fsrc(args[1], false));
                let (a, b) = if self.is_folded_constant(&a) { (b, a) } else { (a, b) };
                let sop = if op == Opcode::Fadd { Op::Dadd } else { Op::Dmul };
                self.emit_sass(sop, &dst, &[(Role::A, a), (Role::B, b)], &mods, None)
            }
            Opcode::Fsub => {
                let b = match self.fsrc(args[1], false) {
                    Arg::Val(v, mm) => Arg::Val(v, SrcMods { neg: !mm.neg, ..mm }),
                    other => other,
                };
                let srcs = [(Role::A, self.fsrc(args[0], false)), (Role::B, b)];
                self.emit_sass(Op::Dadd, &dst, &srcs, &mods, None)
            }
            Opcode::Ffma => {
                let (a, b) = (self.fsrc(args[0], false), self.fsrc(args[1], false));
                let (a, b) = if self.is_folded_constant(&a) { (b, a) } else { (a, b) };
                let srcs = [(Role::A, a), (Role::B, b), (Role::C, self.fsrc(args[2], false))];
                self.emit_sass(Op::Dfma, &dst, &srcs, &mods, None)
            }
            Opcode::Fneg | Opcode::Fabs => {
                let mm = if op == Opcode::Fneg {
                    SrcMods {
                        neg: true,
                        ..SrcMods::default()
                    }
                } else {
                    SrcMods {
                        abs: true,
                        ..SrcMods::default()
                    }
                };
                let srcs = [(Role::A, rz_neg), (Role::B, Arg::Val(args[0], mm))];
                self.emit_sass(Op::Dadd, &dst, &srcs, &[], None)
            }
            Opcode::Fflush | Opcode::Copy => {
                let r = self.reg(args[0]);
                self.alias(self.func.results[inst][0], r);
                Ok(())
            }
            Opcode::Fcopysign => self.copysign64(inst),
            _ => Err(self.unsupported(format!("{} on f64", op.name()))),
        }
    }

    /// True if `a` is a MIR value that folds into an operand without a register.
    fn is_folded_constant(&self, a: &Arg) -> bool {
        match a {
            Arg::Val(v, _) => self.foldable64(*v).is_some() || self.const64(*v).is_some(),
            Arg::Op(..) => true,
        }
    }

    /// `copysign.f64`: the lower half of `b` and `LOP3 (b_hi & ~s) | (a_hi & s)`.
    fn copysign64(&mut self, inst: Inst) -> Result<(), IselError> {
        let args = self.func.insts[inst].args.clone();
        let (a, b) = (self.reg(args[0]), self.reg(args[1]));
        let hi = MOp::Reg(self.vcode.new_vreg(VClass::Single));
        let srcs = [
            (Role::A, Arg::op(MOp::Sub(b, 1))),
            (Role::B, Arg::imm(0x8000_0000)),
            (Role::C, Arg::op(MOp::Sub(a, 1))),
            (Role::Other, Arg::imm(0xb8)),
            (Role::PredSrc0, Arg::pt(true)),
        ];
        self.emit_sass(Op::Lop3, &[(Role::Dst, hi)], &srcs, &[], None)?;
        let d = self.def_reg(self.func.results[inst][0]);
        self.push(MInst::new(MKind::Wide {
            op: WideOp::Pack,
            d,
            srcs: smallvec![MOp::Sub(b, 0), hi],
            tmp: None,
        }));
        Ok(())
    }
}
