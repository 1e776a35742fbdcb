//! Single-precision float arithmetic: FADD/FMUL/FFMA with rounding, FTZ and saturation,
//! negation and absolute value, min/max; the FSETP comparison codes.

use super::fit::Arg;
use super::{Isel, IselError};
use crate::isa::{Op, Role, Value as V};
use crate::vcode::{MOp, SrcMods};
use ptxc_mir::ir::{Aux, Cond, FloatMode, Inst, Opcode, Rounding, Type};

pub fn float_cmp(c: Cond) -> u16 {
    match c {
        Cond::Lt => 1,
        Cond::Eq => 2,
        Cond::Le => 3,
        Cond::Gt => 4,
        Cond::Ne => 5,
        Cond::Ge => 6,
        Cond::Num => 7,
        Cond::Nan => 8,
        Cond::Ltu => 9,
        Cond::Equ => 10,
        Cond::Leu => 11,
        Cond::Gtu => 12,
        Cond::Neu => 13,
        Cond::Geu => 14,
        Cond::Ult | Cond::Ule | Cond::Ugt | Cond::Uge => 0,
    }
}

pub fn float_mods(aux: &Aux) -> Vec<(&'static str, u16)> {
    let m = match aux {
        Aux::Float(m) => *m,
        _ => FloatMode::default(),
    };
    let rnd = match m.rnd {
        None | Some(Rounding::Rn) => 0,
        Some(Rounding::Rm) => 1,
        Some(Rounding::Rp) => 2,
        Some(Rounding::Rz) => 3,
    };
    let mut v = vec![("ftz", m.ftz as u16), ("rnd", rnd)];
    if m.sat {
        v.push(("sat", 1));
    }
    v
}

impl Isel<'_> {
    /// Selects a float instruction.
    pub(super) fn lower_float_family(&mut self, inst: Inst) -> Result<(), IselError> {
        match self.func.insts[inst].op {
            Opcode::Fadd
            | Opcode::Fsub
            | Opcode::Fmul
            | Opcode::Ffma
            | Opcode::Fneg
            | Opcode::Fabs
            | Opcode::Fmin
            | Opcode::Fmax => self.lower_float(inst),
            Opcode::Fcmp => self.lower_cmp(inst),
            other => Err(self.unsupported(format!("MIR `{}`", other.name()))),
        }
    }

    /// Single-precision float arithmetic.
    pub fn lower_float(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let (op, ty, args) = (data.op, data.ty, data.args.clone());
        if ty != Type::F32 {
            return Err(self.unsupported(format!("{} on {ty}", op.name())));
        }
        let mods = float_mods(&data.aux);
        let d = self.dst(inst);
        let dst = [(Role::Dst, d)];
        let neg_rz = Arg::Op(MOp::Fixed(V::Reg(crate::isa::RZ)), SrcMods { neg: true, abs: false });
        match op {
            Opcode::Fadd => {
                let (a, b) = self.commute(args[0], args[1]);
                self.emit_sass(
                    Op::Fadd,
                    &dst,
                    &[(Role::A, Arg::v(a)), (Role::B, Arg::v(b))],
                    &mods,
                    None,
                )
            }
            Opcode::Fsub => {
                let b = self.negated(args[1], true);
                self.emit_sass(Op::Fadd, &dst, &[(Role::A, Arg::v(args[0])), (Role::B, b)], &mods, None)
            }
            Opcode::Fmul => {
                let (a, b) = self.commute(args[0], args[1]);
                self.emit_sass(
                    Op::Fmul,
                    &dst,
                    &[(Role::A, Arg::v(a)), (Role::B, Arg::v(b))],
                    &mods,
                    None,
                )
            }
            Opcode::Ffma => {
                let (a, b) = self.commute(args[0], args[1]);
                let srcs = [(Role::A, Arg::v(a)), (Role::B, Arg::v(b)), (Role::C, Arg::v(args[2]))];
                self.emit_sass(Op::Ffma, &dst, &srcs, &mods, None)
            }
            Opcode::Fneg => self.emit_sass(
                Op::Fadd,
                &dst,
                &[(Role::A, Arg::neg(args[0])), (Role::B, neg_rz)],
                &mods,
                None,
            ),
            Opcode::Fabs => {
                let a = Arg::Val(args[0], SrcMods { neg: false, abs: true });
                self.emit_sass(Op::Fadd, &dst, &[(Role::A, a), (Role::B, neg_rz)], &mods, None)
            }
            Opcode::Fmin | Opcode::Fmax => {
                let (a, b) = self.commute(args[0], args[1]);
                let srcs = [
                    (Role::A, Arg::v(a)),
                    (Role::B, Arg::v(b)),
                    (Role::PredSrc0, Arg::pt(op == Opcode::Fmax)),
                ];
                let ftz = mods.iter().find(|m| m.0 == "ftz").map_or(0, |m| m.1);
                self.emit_sass(Op::Fmnmx, &dst, &srcs, &[("ftz", ftz)], None)
            }
            _ => Err(self.unsupported(format!("{} on {ty}", op.name()))),
        }
    }
}
