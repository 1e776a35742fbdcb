//! Bit manipulation and the integer operations with more than one SASS instruction, on
//! 32-bit values, selected as ptxas selects them: bit-field extract (SHF + SGXT) and insert
//! (BMSK + SHF + LOP3), FLO/POPC/BREV, PRMT, SHF funnel shifts, LOP3, IDP dot products,
//! saturating add/sub (overflow from the operand signs), carry chains (IADD3.X with
//! predicate carries) and the 24-bit multiplies.

use super::fit::Arg;
use super::{Isel, IselError};
use crate::vcode::{MOp, VClass};
use ptxc_mir::ir::{Aux, Inst, Opcode, Type, Value};
use ptxc_sass::isa::values::{BoolOp, IdpKind, IntCmp, PrmtMode, ShfType};
use ptxc_sass::isa::{Mod, ModSet};
use ptxc_sass::isa::{Op, Role, Value as V};

/// LOP3 truth tables of the inputs a, b, c.
const LA: u16 = 0xf0;
const LB: u16 = 0xcc;
const LC: u16 = 0xaa;

/// A list of operand roles and arguments.
type Srcs<'a> = &'a [(Role, Arg)];

impl Isel<'_> {
    /// Emits `op` into a fresh 32-bit register.
    pub(super) fn emit_temp(&mut self, op: Op, srcs: Srcs, mods: &[ModSet]) -> Result<MOp, IselError> {
        let t = MOp::Reg(self.vcode.new_vreg(VClass::Single));
        self.emit_sass(op, &[(Role::Dst, t)], srcs, mods, None)?;
        Ok(t)
    }

    /// `LOP3.LUT d, a, b, c, lut, !PT` into a fresh register.
    pub(super) fn lop3_temp(&mut self, a: Arg, b: Arg, c: Arg, lut: u16) -> Result<MOp, IselError> {
        let srcs = [
            (Role::A, a),
            (Role::B, b),
            (Role::C, c),
            (Role::Other, Arg::imm(lut as u32)),
            (Role::PredSrc0, Arg::pt(true)),
        ];
        self.emit_temp(Op::Lop3, &srcs, &[])
    }

    /// The low byte of `v` (bit-field positions and lengths use bits 7..0).
    fn low_byte(&mut self, v: Value) -> Result<Arg, IselError> {
        if let Some(V::Imm(k)) = self.foldable(v) {
            return Ok(Arg::imm(k as u32 & 0xff));
        }
        Ok(Arg::op(self.lop3_temp(
            Arg::v(v),
            Arg::imm(0xff),
            Arg::rz(),
            LA & LB,
        )?))
    }

    /// Selects a bit-manipulation or multi-instruction integer operation on 32 bits.
    pub(super) fn lower_bits(&mut self, inst: Inst) -> Result<bool, IselError> {
        let data = &self.func.insts[inst];
        let (op, ty, args) = (data.op, data.ty, data.args.clone());
        if ty != Type::I32 {
            return Ok(false);
        }
        let d = [(Role::Dst, self.dst(inst))];
        let signed = |s: bool| Mod::Signed.flag(s);
        match op {
            Opcode::BfeS | Opcode::BfeU => {
                let s = op == Opcode::BfeS;
                let (pos, len) = (self.low_byte(args[1])?, self.low_byte(args[2])?);
                let shifted = self.emit_temp(
                    Op::Shf,
                    &[(Role::A, Arg::rz()), (Role::B, pos), (Role::C, Arg::v(args[0]))],
                    &[
                        Mod::Right.flag(true),
                        if s { ShfType::S32 } else { ShfType::U32 }.set(),
                        Mod::Hi.flag(true),
                    ],
                )?;
                self.emit_sass(
                    Op::Sgxt,
                    &d,
                    &[(Role::A, Arg::op(shifted)), (Role::B, len)],
                    &[signed(s)],
                    None,
                )?;
            }
            Opcode::Bfi => {
                let (pos, len) = (self.low_byte(args[2])?, self.low_byte(args[3])?);
                let pos_a = self.pos_reg(pos);
                let mask = self.emit_temp(Op::Bmsk, &[(Role::A, pos_a), (Role::B, len)], &[])?;
                let shifted = self.emit_temp(
                    Op::Shf,
                    &[(Role::A, Arg::v(args[0])), (Role::B, pos), (Role::C, Arg::rz())],
                    &[Mod::Right.flag(false), ShfType::U32.set(), Mod::Hi.flag(false)],
                )?;
                let srcs = [
                    (Role::A, Arg::op(shifted)),
                    (Role::B, Arg::op(mask)),
                    (Role::C, Arg::v(args[1])),
                    (Role::Other, Arg::imm(((LB & LA) | (!LB & LC)) as u32 & 0xff)),
                    (Role::PredSrc0, Arg::pt(true)),
                ];
                self.emit_sass(Op::Lop3, &d, &srcs, &[], None)?;
            }
            Opcode::BfindS | Opcode::BfindU => {
                let srcs = [(Role::B, Arg::v(args[0]))];
                self.emit_sass(Op::Flo, &d, &srcs, &[signed(op == Opcode::BfindS)], None)?;
            }
            Opcode::Clz => {
                let flo = self.emit_temp(Op::Flo, &[(Role::B, Arg::v(args[0]))], &[signed(false)])?;
                let srcs = [
                    (Role::A, Arg::Op(flo, crate::vcode::SrcMods::NEG)),
                    (Role::B, Arg::imm(31)),
                    (Role::C, Arg::rz()),
                ];
                self.emit_sass(Op::Iadd3, &d, &srcs, &[], None)?;
            }
            Opcode::Popc | Opcode::Brev => {
                let sop = if op == Opcode::Popc { Op::Popc } else { Op::Brev };
                self.emit_sass(sop, &d, &[(Role::B, Arg::v(args[0]))], &[], None)?;
            }
            Opcode::Prmt => {
                let Aux::Imm(mode) = data.aux else {
                    return Err(self.unsupported("prmt without a mode"));
                };
                let srcs = [
                    (Role::A, Arg::v(args[0])),
                    (Role::B, Arg::v(args[2])),
                    (Role::C, Arg::v(args[1])),
                ];
                let mode =
                    PrmtMode::from_code(mode as u16).ok_or_else(|| self.unsupported(format!("prmt mode {mode}")))?;
                self.emit_sass(Op::Prmt, &d, &srcs, &[mode.set()], None)?;
            }
            Opcode::Lop3 => {
                let Aux::Imm(lut) = data.aux else {
                    return Err(self.unsupported("lop3 without a table"));
                };
                let srcs = [
                    (Role::A, Arg::v(args[0])),
                    (Role::B, Arg::v(args[1])),
                    (Role::C, Arg::v(args[2])),
                    (Role::Other, Arg::imm(lut as u32 & 0xff)),
                    (Role::PredSrc0, Arg::pt(true)),
                ];
                self.emit_sass(Op::Lop3, &d, &srcs, &[], None)?;
            }
            Opcode::ShfLClamp | Opcode::ShfLWrap | Opcode::ShfRClamp | Opcode::ShfRWrap => {
                let left = matches!(op, Opcode::ShfLClamp | Opcode::ShfLWrap);
                let wrap = matches!(op, Opcode::ShfLWrap | Opcode::ShfRWrap);
                let srcs = [
                    (Role::A, Arg::v(args[0])),
                    (Role::B, Arg::v(args[2])),
                    (Role::C, Arg::v(args[1])),
                ];
                let mods = [
                    Mod::Right.flag(!left),
                    Mod::Wrap.flag(wrap),
                    ShfType::U32.set(),
                    Mod::Hi.flag(left),
                ];
                self.emit_sass(Op::Shf, &d, &srcs, &mods, None)?;
            }
            Opcode::Dp4a | Opcode::Dp2a => {
                let Aux::Imm(flags) = data.aux else {
                    return Err(self.unsupported("dot product without signedness"));
                };
                let kind = match (op, flags & 4 != 0) {
                    (Opcode::Dp4a, _) => IdpKind::FourA,
                    (_, false) => IdpKind::TwoALo,
                    (_, true) => IdpKind::TwoAHi,
                };
                let srcs = [
                    (Role::A, Arg::v(args[0])),
                    (Role::B, Arg::v(args[1])),
                    (Role::C, Arg::v(args[2])),
                ];
                let mods = [
                    kind.set(),
                    Mod::ASigned.flag(flags & 1 != 0),
                    Mod::BSigned.flag(flags >> 1 & 1 != 0),
                ];
                self.emit_sass(Op::Idp, &d, &srcs, &mods, None)?;
            }
            Opcode::ImadHiS | Opcode::ImadHiU => {
                let (a, b) = self.commute(args[0], args[1]);
                let srcs = [(Role::A, Arg::v(a)), (Role::B, Arg::v(b)), (Role::C, Arg::rz())];
                let hi = self.emit_temp(Op::ImadHi, &srcs, &[signed(op == Opcode::ImadHiS)])?;
                let srcs = [(Role::A, Arg::op(hi)), (Role::B, Arg::v(args[2])), (Role::C, Arg::rz())];
                self.emit_sass(Op::Iadd3, &d, &srcs, &[], None)?;
            }
            Opcode::IaddSatS | Opcode::IsubSatS => self.saturating(inst, op == Opcode::IsubSatS)?,
            Opcode::IaddCarry => self.add_with_carry(inst)?,
            Opcode::Mul24LoS | Opcode::Mul24LoU | Opcode::Mul24HiS | Opcode::Mul24HiU => self.mul24(inst)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// `a ± b` clamped to the i32 range: the sum overflowed if it has the sign of neither
    /// operand (add) or of the subtrahend but not the minuend (sub); then the result is the
    /// bound on the minuend's side, `sign(a) ^ 0x7fffffff`.
    fn saturating(&mut self, inst: Inst, sub: bool) -> Result<(), IselError> {
        let args = self.func.insts[inst].args.clone();
        let (a, b) = (args[0], args[1]);
        let b_arg = if sub { self.negated(b, false) } else { Arg::v(b) };
        let sum = self.emit_temp(
            Op::Iadd3,
            &[(Role::A, Arg::v(a)), (Role::B, b_arg), (Role::C, Arg::rz())],
            &[],
        )?;
        let lut = if sub {
            (LA ^ LB) & (LA ^ LC)
        } else {
            (LA ^ LC) & (LB ^ LC)
        };
        let ov = self.lop3_temp(Arg::v(a), Arg::v(b), Arg::op(sum), lut & 0xff)?;
        let p = self.vcode.new_vreg(VClass::Pred);
        let cmp = [
            (Role::A, Arg::op(ov)),
            (Role::B, Arg::rz()),
            (Role::PredSrc0, Arg::pt(false)),
        ];
        let pd = [
            (Role::PredDst0, MOp::Pred(p, false)),
            (Role::PredDst1, MOp::Fixed(V::Pred { idx: 7, neg: false })),
        ];
        self.emit_sass(
            Op::Isetp,
            &pd,
            &cmp,
            &[IntCmp::Lt.set(), Mod::Signed.flag(true), BoolOp::And.set()],
            None,
        )?;
        let sign = self.emit_temp(
            Op::Shf,
            &[(Role::A, Arg::rz()), (Role::B, Arg::imm(31)), (Role::C, Arg::v(a))],
            &[Mod::Right.flag(true), ShfType::S32.set(), Mod::Hi.flag(true)],
        )?;
        let bound = self.lop3_temp(Arg::op(sign), Arg::imm(0x7fff_ffff), Arg::rz(), LA ^ LB)?;
        let d = self.dst(inst);
        let srcs = [
            (Role::A, Arg::op(bound)),
            (Role::B, Arg::op(sum)),
            (Role::PredSrc0, Arg::op(MOp::Pred(p, false))),
        ];
        self.emit_sass(Op::Sel, &[(Role::Dst, d)], &srcs, &[], None)
    }

    /// `iadd_carry a, b, cin`: `IADD3.X d, Pcout, a, b, RZ, Pcin, !PT`.
    fn add_with_carry(&mut self, inst: Inst) -> Result<(), IselError> {
        let args = self.func.insts[inst].args.clone();
        let results = self.func.results[inst].clone();
        let sum = MOp::Reg(self.def_reg(results[0]));
        let carry = if self.use_count(results[1]) > 0 {
            MOp::Pred(self.def_reg(results[1]), false)
        } else {
            MOp::Fixed(V::Pred { idx: 7, neg: false })
        };
        let (a, b) = self.commute(args[0], args[1]);
        let cin = self.pred(args[2]);
        let srcs = [
            (Role::A, Arg::v(a)),
            (Role::B, Arg::v(b)),
            (Role::C, Arg::rz()),
            (Role::PredSrc0, Arg::op(cin)),
        ];
        self.emit_sass(
            Op::Iadd3,
            &[(Role::Dst, sum), (Role::PredDst0, carry)],
            &srcs,
            &[Mod::X.flag(true)],
            None,
        )
    }

    /// 24-bit multiplies: the low 24 bits of each operand (sign-extended with SGXT or
    /// zero-extended with LOP3); `.lo` is the low word of their product, `.hi` bits 47..16
    /// (one funnel shift of the 64-bit product).
    fn mul24(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let (op, args) = (data.op, data.args.clone());
        let s = matches!(op, Opcode::Mul24LoS | Opcode::Mul24HiS);
        let narrow = |me: &mut Self, v: Value| -> Result<Arg, IselError> {
            if s {
                let srcs = [(Role::A, Arg::v(v)), (Role::B, Arg::imm(24))];
                Ok(Arg::op(me.emit_temp(Op::Sgxt, &srcs, &[Mod::Signed.flag(true)])?))
            } else {
                Ok(Arg::op(me.lop3_temp(
                    Arg::v(v),
                    Arg::imm(0xff_ffff),
                    Arg::rz(),
                    LA & LB,
                )?))
            }
        };
        let (a, b) = (narrow(self, args[0])?, narrow(self, args[1])?);
        let d = self.dst(inst);
        let srcs = [(Role::A, a), (Role::B, b), (Role::C, Arg::rz())];
        if matches!(op, Opcode::Mul24LoS | Opcode::Mul24LoU) {
            return self.emit_sass(Op::Imad, &[(Role::Dst, d)], &srcs, &[Mod::Signed.flag(s)], None);
        }
        let wide = self.vcode.new_vreg(VClass::Pair);
        self.emit_sass(
            Op::ImadWide,
            &[(Role::Dst, MOp::Reg(wide))],
            &srcs,
            &[Mod::Signed.flag(s)],
            None,
        )?;
        let srcs = [
            (Role::A, Arg::op(MOp::Sub(wide, 0))),
            (Role::B, Arg::imm(16)),
            (Role::C, Arg::op(MOp::Sub(wide, 1))),
        ];
        self.emit_sass(
            Op::Shf,
            &[(Role::Dst, d)],
            &srcs,
            &[Mod::Right.flag(true), ShfType::U64.set(), Mod::Hi.flag(false)],
            None,
        )
    }

    /// BMSK's A operand must be a register: a constant position is materialised.
    fn pos_reg(&mut self, pos: Arg) -> Arg {
        match pos {
            Arg::Op(MOp::Fixed(V::Imm(0)), _) => Arg::rz(),
            Arg::Op(MOp::Fixed(V::Imm(k)), _) => {
                let t = self.vcode.new_vreg(VClass::Single);
                self.push(super::operand::mov(t, MOp::Fixed(V::Imm(k))));
                Arg::op(MOp::Reg(t))
            }
            other => other,
        }
    }
}
