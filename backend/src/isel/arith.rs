//! Integer, float, logic, comparison and select instructions.

use super::fit::Arg;
use super::wide::{int_cmp, swap_cond};
use super::{Isel, IselError};
use crate::vcode::MOp;
use ptxc_mir::ir::{Aux, Cond, Inst, Opcode, Type, Value};
use ptxc_sass::isa::values::{BoolOp, MinMaxType, ShfType};
use ptxc_sass::isa::{Arch, Mod, ModSet};
use ptxc_sass::isa::{Op, Role, Value as V};

/// LOP3/PLOP3 truth tables of the inputs a, b, c.
const LUT_A: u16 = 0xf0;
const LUT_B: u16 = 0xcc;

impl Isel<'_> {
    /// Puts a foldable value second for commutative operations (A must be a register).
    pub(super) fn commute(&self, a: Value, b: Value) -> (Value, Value) {
        if self.foldable(a).is_some() && self.foldable(b).is_none() {
            (b, a)
        } else {
            (a, b)
        }
    }

    pub(super) fn dst(&mut self, inst: Inst) -> MOp {
        let v = self.func.results[inst][0];
        if self.func.ty(v) == Type::Pred {
            MOp::Pred(self.def_reg(v), false)
        } else {
            MOp::Reg(self.def_reg(v))
        }
    }

    /// `-v` as an argument: constants are negated in place.
    pub(super) fn negated(&self, v: Value, float: bool) -> Arg {
        match self.foldable(v) {
            Some(V::Imm(bits)) if float => Arg::imm(bits as u32 ^ 0x8000_0000),
            Some(V::Imm(bits)) => Arg::imm((bits as u32).wrapping_neg()),
            _ => Arg::neg(v),
        }
    }

    /// Integer and logic operations on 32-bit values and predicates.
    pub fn lower_int(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let (op, ty) = (data.op, data.ty);
        let args = data.args.clone();
        if ty == Type::Pred {
            return self.lower_pred_logic(inst);
        }
        if self.lower_lea(inst)? || self.lower_bits(inst)? {
            return Ok(());
        }
        let narrow_hi = matches!(
            op,
            Opcode::ImulHiS | Opcode::ImulHiU | Opcode::ImadHiS | Opcode::ImadHiU
        );
        if ty.bits() < 32 && narrow_hi {
            return self.narrow_mul_hi(inst);
        }
        if ty.bits() > 32 {
            return Err(self.unsupported(format!("{} on {ty}", op.name())));
        }
        let d = self.dst(inst);
        let dst = [(Role::Dst, d)];
        let signed = |s: bool| Mod::Signed.flag(s);
        match op {
            Opcode::Iadd => {
                let (a, b) = self.commute(args[0], args[1]);
                self.emit_sass(
                    Op::Iadd3,
                    &dst,
                    &[(Role::A, Arg::v(a)), (Role::B, Arg::v(b)), (Role::C, Arg::rz())],
                    &[],
                    None,
                )
            }
            Opcode::Isub => {
                let b = self.negated(args[1], false);
                self.emit_sass(
                    Op::Iadd3,
                    &dst,
                    &[(Role::A, Arg::v(args[0])), (Role::B, b), (Role::C, Arg::rz())],
                    &[],
                    None,
                )
            }
            Opcode::Ineg => {
                let a = self.negated(args[0], false);
                self.emit_sass(
                    Op::Iadd3,
                    &dst,
                    &[(Role::A, Arg::rz()), (Role::B, a), (Role::C, Arg::rz())],
                    &[],
                    None,
                )
            }
            Opcode::ImulWideS | Opcode::ImulWideU | Opcode::ImadWideS | Opcode::ImadWideU if ty.bits() < 32 => {
                // 8/16-bit sources: the full product fits in the 32-bit result.
                let s = matches!(op, Opcode::ImulWideS | Opcode::ImadWideS);
                let (a, b) = self.narrow_args(ty, s, args[0], args[1])?;
                let c = args.get(2).map_or(Arg::rz(), |&c| Arg::v(c));
                self.emit_sass(
                    Op::Imad,
                    &dst,
                    &[(Role::A, a), (Role::B, b), (Role::C, c)],
                    &[signed(true)],
                    None,
                )
            }
            Opcode::Imul | Opcode::ImulHiS | Opcode::ImulHiU | Opcode::ImulWideS | Opcode::ImulWideU => {
                let (a, b) = self.commute(args[0], args[1]);
                let (sop, s) = match op {
                    Opcode::Imul => (Op::Imad, true),
                    Opcode::ImulHiS => (Op::ImadHi, true),
                    Opcode::ImulHiU => (Op::ImadHi, false),
                    Opcode::ImulWideS => (Op::ImadWide, true),
                    _ => (Op::ImadWide, false),
                };
                self.emit_sass(
                    sop,
                    &dst,
                    &[(Role::A, Arg::v(a)), (Role::B, Arg::v(b)), (Role::C, Arg::rz())],
                    &[signed(s)],
                    None,
                )
            }
            Opcode::Imad | Opcode::ImadWideS | Opcode::ImadWideU => {
                let (a, b) = self.commute(args[0], args[1]);
                let (sop, s) = match op {
                    Opcode::Imad => (Op::Imad, true),
                    Opcode::ImadWideS => (Op::ImadWide, true),
                    _ => (Op::ImadWide, false),
                };
                self.emit_sass(
                    sop,
                    &dst,
                    &[(Role::A, Arg::v(a)), (Role::B, Arg::v(b)), (Role::C, Arg::v(args[2]))],
                    &[signed(s)],
                    None,
                )
            }
            Opcode::And | Opcode::Or | Opcode::Xor => {
                let (a, b) = self.commute(args[0], args[1]);
                let lut = match op {
                    Opcode::And => LUT_A & LUT_B,
                    Opcode::Or => LUT_A | LUT_B,
                    _ => LUT_A ^ LUT_B,
                };
                self.lop3(&dst, Arg::v(a), Arg::v(b), lut)
            }
            Opcode::Not => self.lop3(&dst, Arg::rz(), Arg::v(args[0]), !LUT_B & 0xff),
            Opcode::Shl | Opcode::ShrU | Opcode::ShrS => self.lower_shift(ty, op, &dst, args[0], args[1]),
            Opcode::MinS | Opcode::MinU | Opcode::MaxS | Opcode::MaxU => {
                let (a, b) = self.commute(args[0], args[1]);
                let max = matches!(op, Opcode::MaxS | Opcode::MaxU);
                let s = matches!(op, Opcode::MinS | Opcode::MaxS);
                let (a, b) = self.narrow_args(ty, s, a, b)?;
                let srcs = [(Role::A, a), (Role::B, b), (Role::PredSrc0, Arg::pt(max))];
                self.emit_sass(Op::Imnmx, &dst, &srcs, &[self.minmax_type(s)], None)
            }
            _ => Err(self.unsupported(format!("{} on {ty}", op.name()))),
        }
    }

    fn lop3(&mut self, dst: &[(Role, MOp)], a: Arg, b: Arg, lut: u16) -> Result<(), IselError> {
        let srcs = [
            (Role::A, a),
            (Role::B, b),
            (Role::C, Arg::rz()),
            (Role::Other, Arg::imm(lut as u32)),
            (Role::PredSrc0, Arg::pt(true)),
        ];
        self.emit_sass(Op::Lop3, dst, &srcs, &[], None)
    }

    /// Shifts of 32-bit (and narrower) values: SHF clamps the amount at 32, which is PTX's
    /// semantics for out-of-range amounts (ptxas emits a bare SHF too). Narrow values are
    /// extended before a right shift.
    fn lower_shift(
        &mut self,
        ty: Type,
        op: Opcode,
        dst: &[(Role, MOp)],
        a: Value,
        amount: Value,
    ) -> Result<(), IselError> {
        let (right, shf_type) = match op {
            Opcode::Shl => (false, ShfType::U32),
            Opcode::ShrU => (true, ShfType::U32),
            _ => (true, ShfType::S32),
        };
        let value = if right {
            Arg::op(self.extended(a, ty.bits(), op == Opcode::ShrS)?)
        } else {
            Arg::v(a)
        };
        let srcs = if !right {
            [(Role::A, value), (Role::B, Arg::v(amount)), (Role::C, Arg::rz())]
        } else {
            [(Role::A, Arg::rz()), (Role::B, Arg::v(amount)), (Role::C, value)]
        };
        let mods = [Mod::Right.flag(right), shf_type.set(), Mod::Hi.flag(right)];
        self.emit_sass(Op::Shf, dst, &srcs, &mods, None)
    }

    /// IMNMX's (sm_75..sm_89) or VIMNMX's (sm_90) signedness.
    pub(super) fn minmax_type(&self, signed: bool) -> ModSet {
        if self.vcode.arch >= Arch::Sm90 {
            if signed { MinMaxType::S32 } else { MinMaxType::U32 }.set()
        } else {
            Mod::Signed.flag(signed)
        }
    }

    /// Two operands extended to 32 bits when `ty` is narrower (constants stay foldable).
    fn narrow_args(&mut self, ty: Type, signed: bool, a: Value, b: Value) -> Result<(Arg, Arg), IselError> {
        if ty.bits() >= 32 {
            return Ok((Arg::v(a), Arg::v(b)));
        }
        let a = self.extended(a, ty.bits(), signed)?;
        let b = self.extended(b, ty.bits(), signed)?;
        Ok((Arg::op(a), Arg::op(b)))
    }

    /// `mul.hi`/`mad.hi` on 8- and 16-bit values: the extended operands' product fits in 32
    /// bits, and its bits above the width are the high half (`IMAD`, `SHF.R.S32.HI` as ptxas
    /// writes it; the result keeps garbage above its width), plus the addend for `mad.hi`.
    fn narrow_mul_hi(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let (op, ty, args) = (data.op, data.ty, data.args.clone());
        let signed = matches!(op, Opcode::ImulHiS | Opcode::ImadHiS);
        let (a, b) = self.narrow_args(ty, signed, args[0], args[1])?;
        let srcs = [(Role::A, a), (Role::B, b), (Role::C, Arg::rz())];
        let product = self.emit_temp(Op::Imad, &srcs, &[Mod::Signed.flag(true)])?;
        let d = self.dst(inst);
        let addend = args.get(2).copied();
        let hi = if addend.is_some() { self.new_single() } else { d };
        let srcs = [
            (Role::A, Arg::rz()),
            (Role::B, Arg::imm(ty.bits())),
            (Role::C, Arg::op(product)),
        ];
        let mods = [Mod::Right.flag(true), ShfType::S32.set(), Mod::Hi.flag(true)];
        self.emit_sass(Op::Shf, &[(Role::Dst, hi)], &srcs, &mods, None)?;
        let Some(c) = addend else {
            return Ok(());
        };
        let srcs = [(Role::A, Arg::op(hi)), (Role::B, Arg::v(c)), (Role::C, Arg::rz())];
        self.emit_sass(Op::Iadd3, &[(Role::Dst, d)], &srcs, &[], None)
    }

    /// and/or/xor/not/select on predicates with PLOP3.
    fn lower_pred_logic(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let args = data.args.clone();
        let op = data.op;
        let d = self.dst(inst);
        if let Some((cmp, other)) = self.combined_compare(inst) {
            let bop = match op {
                Opcode::And => BoolOp::And,
                Opcode::Or => BoolOp::Or,
                _ => BoolOp::Xor,
            };
            return if self.func.insts[cmp].op == Opcode::Fcmp {
                self.emit_fcmp(cmp, d, bop, Arg::v(other))
            } else {
                self.emit_cmp(cmp, d, bop, Arg::v(other))
            };
        }
        let lut = match op {
            Opcode::And => LUT_A & LUT_B,
            Opcode::Or => LUT_A | LUT_B,
            Opcode::Xor => LUT_A ^ LUT_B,
            Opcode::Not => !LUT_A & 0xff,
            _ => return Err(self.unsupported(format!("{} on predicates", op.name()))),
        };
        let b = args.get(1).map_or(Arg::pt(false), |&v| Arg::v(v));
        let srcs = [
            (Role::PredSrc0, Arg::v(args[0])),
            (Role::PredSrc1, b),
            (Role::PredSrc2, Arg::pt(false)),
            (Role::Other, Arg::imm(lut as u32)),
            (Role::Aux, Arg::imm(0)),
        ];
        let dsts = [
            (Role::PredDst0, d),
            (Role::PredDst1, MOp::Fixed(V::Pred { idx: 7, neg: false })),
        ];
        self.emit_sass(Op::Plop3, &dsts, &srcs, &[], None)
    }

    /// Integer comparisons (float ones are `float.rs`'s `lower_fcmp`).
    pub fn lower_cmp(&mut self, inst: Inst) -> Result<(), IselError> {
        let d = self.dst(inst);
        self.emit_cmp(inst, d, BoolOp::And, Arg::pt(false))
    }

    /// The integer comparison `inst` into predicate `d`, combined by `bop` with the
    /// predicate `with` (`PT` and AND for a plain compare).
    pub(super) fn emit_cmp(&mut self, inst: Inst, d: MOp, bop: BoolOp, with: Arg) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let (ty, args) = (data.ty, data.args.clone());
        let Aux::Cond(mut cond) = data.aux else {
            return Err(self.unsupported("compare without condition"));
        };
        let (mut a, mut b) = (args[0], args[1]);
        if self.foldable(a).is_some() && self.foldable(b).is_none() {
            (a, b) = (b, a);
            cond = swap_cond(cond);
        }
        let dsts = [
            (Role::PredDst0, d),
            (Role::PredDst1, MOp::Fixed(V::Pred { idx: 7, neg: false })),
        ];
        match (data.op, ty) {
            (Opcode::Icmp, t) if t.is_int() && t.bits() <= 32 => {
                let (code, signed) = int_cmp(cond).ok_or_else(|| self.unsupported("unordered integer compare"))?;
                let extend_signed = signed && !matches!(cond, Cond::Eq | Cond::Ne);
                let (ea, eb) = self.narrow_args(t, extend_signed, a, b)?;
                let srcs = [(Role::A, ea), (Role::B, eb), (Role::PredSrc0, with)];
                let mods = [code.set(), Mod::Signed.flag(signed), bop.set()];
                self.emit_sass(Op::Isetp, &dsts, &srcs, &mods, None)
            }
            (op, ty) => Err(self.unsupported(format!("{} on {ty}", op.name()))),
        }
    }

    /// `select p, a, b`: one guarded instruction where `guarded_select.rs` found one.
    pub fn lower_select(&mut self, inst: Inst) -> Result<(), IselError> {
        if let Some(&idiom) = self.select_idioms.get(&inst) {
            return self.lower_select_idiom(inst, idiom);
        }
        match self.guarded_selects.get(&inst) {
            Some(&arm) => self.lower_guarded_select(inst, arm),
            None => self.lower_plain_select(inst),
        }
    }

    /// `select p, a, b` as PLOP3, SEL or FSEL.
    pub fn lower_plain_select(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let (ty, args) = (data.ty, data.args.clone());
        let d = self.dst(inst);
        match ty {
            Type::Pred => {
                // d = (p & a) | (!p & b)
                let srcs = [
                    (Role::PredSrc0, Arg::v(args[0])),
                    (Role::PredSrc1, Arg::v(args[1])),
                    (Role::PredSrc2, Arg::v(args[2])),
                    (Role::Other, Arg::imm(((LUT_A & LUT_B) | (!LUT_A & 0xaa)) as u32 & 0xff)),
                    (Role::Aux, Arg::imm(0)),
                ];
                let dsts = [
                    (Role::PredDst0, d),
                    (Role::PredDst1, MOp::Fixed(V::Pred { idx: 7, neg: false })),
                ];
                self.emit_sass(Op::Plop3, &dsts, &srcs, &[], None)
            }
            // Narrow values select their whole registers (upper bits are undefined anyway).
            t if t.bits() <= 32 => {
                let op = if t == Type::F32 { Op::Fsel } else { Op::Sel };
                let srcs = [
                    (Role::A, Arg::v(args[1])),
                    (Role::B, Arg::v(args[2])),
                    (Role::PredSrc0, Arg::v(args[0])),
                ];
                self.emit_sass(op, &[(Role::Dst, d)], &srcs, &[], None)
            }
            t => Err(self.unsupported(format!("select on {t}"))),
        }
    }
}
