//! Double precision on register pairs: DADD, DMUL, DFMA with rounding modes (an immediate is
//! the upper half of an f64, so only constants with a zero lower half fold), negation and
//! absolute value as `DADD -RZ, -x` / `DADD -RZ, |x|` as ptxas writes them, and copysign as
//! one LOP3 on the upper registers. Compares (DSETP) are in `float.rs`; min/max, `testp`,
//! division, reciprocal and square root are legalized before selection.

use super::fit::Arg;
use super::float::{float_mods, mode_of};
use super::{Isel, IselError};
use crate::vcode::{MInst, MKind, MOp, SrcMods, VClass, WideOp};
use ptxc_mir::ir::{Inst, Opcode, Value};
use ptxc_sass::isa::Mod;
use ptxc_sass::isa::Value as V;
use ptxc_sass::isa::{Op, Role};
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
        let mods: Vec<_> = float_mods(&data.aux).into_iter().filter(|m| m.id == Mod::Rnd).collect();
        let d = self.dst(inst);
        let dst = [(Role::Dst, d)];
        let rz_neg = Arg::Op(
            MOp::Fixed(ptxc_sass::isa::Value::Reg(ptxc_sass::isa::RZ)),
            SrcMods {
                neg: true,
                ..SrcMods::default()
            },
        );
        match op {
            Opcode::Fadd | Opcode::Fmul | Opcode::Fsub => {
                let (x, y) = if op != Opcode::Fsub && self.is_wide_constant(args[0]) {
                    (args[1], args[0])
                } else {
                    (args[0], args[1])
                };
                let (a, b) = (self.fsrc64(x, false, false), self.fsrc64(y, true, op == Opcode::Fsub));
                let sop = if op == Opcode::Fmul { Op::Dmul } else { Op::Dadd };
                self.emit_sass(sop, &dst, &[(Role::A, a), (Role::B, b)], &mods, None)
            }
            Opcode::Ffma => {
                let (x, y) = if self.is_wide_constant(args[0]) {
                    (args[1], args[0])
                } else {
                    (args[0], args[1])
                };
                let (a, b) = (self.fsrc64(x, false, false), self.fsrc64(y, true, false));
                let c = self.fsrc64(args[2], matches!(b, Arg::Val(..)), false);
                let srcs = [(Role::A, a), (Role::B, b), (Role::C, c)];
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

    /// True if `v` is a 64-bit constant or parameter (better as the second source).
    pub(super) fn is_wide_constant(&self, v: Value) -> bool {
        let (x, _) = self.peel(v);
        self.foldable64(x).is_some() || self.const64(x).is_some()
    }

    /// An f64 source, negated if `negate`: sign operations folded, +0.0 as RZ, and (where
    /// `imm_ok`) a constant whose lower half is zero as the immediate of its upper half.
    pub(super) fn fsrc64(&self, v: Value, imm_ok: bool, negate: bool) -> Arg {
        let (x, mut m) = self.peel(v);
        m.neg ^= negate;
        match self.const64(x) {
            Some(V::Imm(0)) if !m.neg => Arg::rz(),
            Some(V::Imm(bits)) if imm_ok && bits & 0xffff_ffff == 0 => {
                let bits = if m.abs { bits & !(1 << 63) } else { bits };
                let bits = if m.neg { bits ^ 1 << 63 } else { bits };
                Arg::imm((bits >> 32) as u32)
            }
            _ => Arg::Val(x, m),
        }
    }

    /// `v` under its sign operations, with the modifiers they amount to.
    pub(super) fn peel(&self, v: Value) -> (Value, SrcMods) {
        match self.float_src(v, false) {
            Arg::Val(x, m) => (x, m),
            Arg::Op(..) => (v, SrcMods::default()),
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
