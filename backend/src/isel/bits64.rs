//! 64-bit operations built from 32-bit ones: population count, leading zeros and the
//! highest set (or non-sign) bit of both halves, bit reversal (reversed halves swapped), the
//! high half of the 128-bit product (four IMAD.WIDE.U32 partial products, each absorbing a
//! carry word, and a sign correction for `mul.hi.s64`) with or without an addend, the low
//! half of a multiply-add, and additions with carry in and out (two IADD3.X chained by a
//! predicate).

use super::fit::Arg;
use super::{Isel, IselError};
use crate::vcode::{MInst, MKind, MOp, VClass, VReg, WideOp};
use ptxc_mir::ir::{Inst, Opcode, Value};
use ptxc_sass::isa::Mod;
use ptxc_sass::isa::values::{BoolOp, IntCmp, ShfType};
use ptxc_sass::isa::{Op, RZ, Role, Value as V};
use smallvec::smallvec;

/// LOP3 tables of the inputs a, b.
const LUT_A: u16 = 0xf0;
const LUT_B: u16 = 0xcc;

impl Isel<'_> {
    /// Selects the 64-bit operations of this file; false for others.
    pub(super) fn lower_bits64(&mut self, inst: Inst) -> Result<bool, IselError> {
        let data = &self.func.insts[inst];
        let (op, args) = (data.op, data.args.clone());
        let result = self.func.results[inst][0];
        match op {
            Opcode::Popc => {
                let a = self.reg(args[0]);
                let lo = self.emit_temp(Op::Popc, &[(Role::B, Arg::op(MOp::Sub(a, 0)))], &[])?;
                let hi = self.emit_temp(Op::Popc, &[(Role::B, Arg::op(MOp::Sub(a, 1)))], &[])?;
                let d = MOp::Reg(self.def_reg(result));
                let srcs = [(Role::A, Arg::op(lo)), (Role::B, Arg::op(hi)), (Role::C, Arg::rz())];
                self.emit_sass(Op::Iadd3, &[(Role::Dst, d)], &srcs, &[], None)?;
            }
            Opcode::Clz => self.clz64(args[0], result)?,
            Opcode::Brev => {
                let a = self.reg(args[0]);
                let lo = self.emit_temp(Op::Brev, &[(Role::B, Arg::op(MOp::Sub(a, 1)))], &[])?;
                let hi = self.emit_temp(Op::Brev, &[(Role::B, Arg::op(MOp::Sub(a, 0)))], &[])?;
                let d = self.def_reg(result);
                self.pack(d, lo, hi);
            }
            Opcode::ImulHiU | Opcode::ImulHiS => {
                let d = self.def_reg(result);
                self.mul_hi64(d, op == Opcode::ImulHiS, args[0], args[1])?;
            }
            Opcode::ImadHiU | Opcode::ImadHiS => {
                let hi = self.vcode.new_vreg(VClass::Pair);
                self.mul_hi64(hi, op == Opcode::ImadHiS, args[0], args[1])?;
                let c = self.wide_src(args[2]);
                let d = self.def_reg(result);
                self.wide(WideOp::Add, d, &[MOp::Reg(hi), c], true);
            }
            Opcode::BfindU | Opcode::BfindS => self.bfind64(args[0], op == Opcode::BfindS, result)?,
            Opcode::IaddCarry => self.add_with_carry64(inst)?,
            Opcode::Imad => {
                let (a, b) = (self.wide_reg(args[0]), self.wide_src(args[1]));
                let product = self.vcode.new_vreg(VClass::Pair);
                self.wide(WideOp::Mul, product, &[a, b], false);
                let c = self.wide_src(args[2]);
                let d = self.def_reg(result);
                self.wide(WideOp::Add, d, &[MOp::Reg(product), c], true);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// `d` = the high 64 bits of the product of `a` and `b`, signed or not.
    fn mul_hi64(&mut self, d: VReg, signed: bool, a: Value, b: Value) -> Result<(), IselError> {
        let (a, b) = (self.reg(a), self.reg(b));
        let hi = self.mul_hi_u64(a, b)?;
        if signed {
            self.signed_correction(d, hi, a, b)
        } else {
            self.wide(WideOp::Mov, d, &[MOp::Reg(hi)], false);
            Ok(())
        }
    }

    /// Half `k` (0 low, 1 high) of the 64-bit `v` as a 32-bit source: a constant's half, a
    /// parameter's word, or a register of its pair.
    fn half(&mut self, v: Value, k: u8) -> Arg {
        match self.wide_src(v) {
            MOp::Fixed(V::Imm(bits)) => Arg::imm((bits >> (32 * k)) as u32),
            MOp::Fixed(V::CBank { bank, offset, reg }) => Arg::op(MOp::Fixed(V::CBank {
                bank,
                offset: offset + 4 * i32::from(k),
                reg,
            })),
            _ => Arg::op(MOp::Sub(self.reg(v), k)),
        }
    }

    /// `iadd_carry a, b, cin` on 64 bits: `IADD3.X lo, P, a.lo, b.lo, RZ, cin` and
    /// `IADD3.X hi, cout, a.hi, b.hi, RZ, P` (as ptxas chains 128-bit additions).
    fn add_with_carry64(&mut self, inst: Inst) -> Result<(), IselError> {
        let args = self.func.insts[inst].args.clone();
        let results = self.func.results[inst].clone();
        let (a, b) = if self.is_wide_constant(args[0]) {
            (args[1], args[0])
        } else {
            (args[0], args[1])
        };
        let a = self.reg(a);
        let mid = MOp::Pred(self.vcode.new_vreg(VClass::Pred), false);
        let cout = if self.use_count(results[1]) > 0 {
            MOp::Pred(self.def_reg(results[1]), false)
        } else {
            MOp::Fixed(V::Pred { idx: 7, neg: false })
        };
        let cin = self.pred(args[2]);
        let mut words = [MOp::Fixed(V::Reg(RZ)); 2];
        for (k, (carry_in, carry_out)) in [(cin, mid), (mid, cout)].into_iter().enumerate() {
            let w = self.new_single();
            let srcs = [
                (Role::A, Arg::op(MOp::Sub(a, k as u8))),
                (Role::B, self.half(b, k as u8)),
                (Role::C, Arg::rz()),
                (Role::PredSrc0, Arg::op(carry_in)),
            ];
            let dsts = [(Role::Dst, w), (Role::PredDst0, carry_out)];
            self.emit_sass(Op::Iadd3, &dsts, &srcs, &[Mod::X.flag(true)], None)?;
            words[k] = w;
        }
        let d = self.def_reg(results[0]);
        self.pack(d, words[0], words[1]);
        Ok(())
    }

    /// `bfind` on 64 bits: a signed value is first XORed with its sign (the highest
    /// non-sign bit becomes the highest set bit), then the highest set bit is that of the high
    /// word plus 32 if the high word is not zero, else that of the low word (FLO gives
    /// 0xffffffff for zero, which is also bfind's "none").
    fn bfind64(&mut self, a: Value, signed: bool, result: Value) -> Result<(), IselError> {
        let a = self.reg(a);
        let (mut lo, mut hi) = (MOp::Sub(a, 0), MOp::Sub(a, 1));
        if signed {
            let sign = self.emit_temp(
                Op::Shf,
                &[(Role::A, Arg::rz()), (Role::B, Arg::imm(31)), (Role::C, Arg::op(hi))],
                &[Mod::Right.flag(true), ShfType::S32.set(), Mod::Hi.flag(true)],
            )?;
            lo = self.lop3_temp(Arg::op(lo), Arg::op(sign), Arg::rz(), LUT_A ^ LUT_B)?;
            hi = self.lop3_temp(Arg::op(hi), Arg::op(sign), Arg::rz(), LUT_A ^ LUT_B)?;
        }
        let (p, flo) = self.flo_of_upper_nonzero(hi, lo)?;
        let base = [
            (Role::A, Arg::rz()),
            (Role::B, Arg::imm(32)),
            (Role::PredSrc0, Arg::op(MOp::Pred(p, true))),
        ];
        let base = self.emit_temp(Op::Sel, &base, &[])?;
        let d = MOp::Reg(self.def_reg(result));
        let srcs = [(Role::A, Arg::op(flo)), (Role::B, Arg::op(base)), (Role::C, Arg::rz())];
        self.emit_sass(Op::Iadd3, &[(Role::Dst, d)], &srcs, &[], None)
    }

    /// `ISETP.NE.U32 p, hi, RZ`, then FLO of `hi` where `p` holds, else of `lo`: the
    /// highest set bit of the word that has one (of `lo` when both are zero). Returns `p`
    /// and the FLO result.
    fn flo_of_upper_nonzero(&mut self, hi: MOp, lo: MOp) -> Result<(VReg, MOp), IselError> {
        let p = self.vcode.new_vreg(VClass::Pred);
        let srcs = [
            (Role::A, Arg::op(hi)),
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
            &srcs,
            &[IntCmp::Ne.set(), Mod::Signed.flag(false), BoolOp::And.set()],
            None,
        )?;
        let pick = [
            (Role::A, Arg::op(hi)),
            (Role::B, Arg::op(lo)),
            (Role::PredSrc0, Arg::op(MOp::Pred(p, false))),
        ];
        let word = self.emit_temp(Op::Sel, &pick, &[])?;
        let flo = self.emit_temp(Op::Flo, &[(Role::B, Arg::op(word))], &[Mod::Signed.flag(false)])?;
        Ok((p, flo))
    }

    fn pack(&mut self, d: VReg, lo: MOp, hi: MOp) {
        self.push(MInst::new(MKind::Wide {
            op: WideOp::Pack,
            d,
            srcs: smallvec![lo, hi],
            tmp: None,
        }));
    }

    /// A pair holding the 32-bit `w` zero-extended.
    fn zero_extended(&mut self, w: MOp) -> VReg {
        let p = self.vcode.new_vreg(VClass::Pair);
        self.pack(p, w, MOp::Fixed(V::Reg(RZ)));
        p
    }

    /// `IMAD.WIDE.U32 d, a, b, c` into a fresh pair.
    fn mad_wide_u32(&mut self, a: MOp, b: MOp, c: Option<VReg>) -> Result<VReg, IselError> {
        let d = self.vcode.new_vreg(VClass::Pair);
        let c = c.map_or(Arg::rz(), |c| Arg::op(MOp::Reg(c)));
        let srcs = [(Role::A, Arg::op(a)), (Role::B, Arg::op(b)), (Role::C, c)];
        self.emit_sass(
            Op::ImadWide,
            &[(Role::Dst, MOp::Reg(d))],
            &srcs,
            &[Mod::Signed.flag(false)],
            None,
        )?;
        Ok(d)
    }

    /// The high 64 bits of the unsigned product of the pairs `a` and `b`: every partial
    /// product absorbs a 32-bit carry word without overflowing 64 bits.
    fn mul_hi_u64(&mut self, a: VReg, b: VReg) -> Result<VReg, IselError> {
        let (alo, ahi, blo, bhi) = (MOp::Sub(a, 0), MOp::Sub(a, 1), MOp::Sub(b, 0), MOp::Sub(b, 1));
        let ll = self.mad_wide_u32(alo, blo, None)?;
        let c1 = self.zero_extended(MOp::Sub(ll, 1));
        let x = self.mad_wide_u32(alo, bhi, Some(c1))?;
        let c2 = self.zero_extended(MOp::Sub(x, 0));
        let y = self.mad_wide_u32(ahi, blo, Some(c2))?;
        let c3 = self.zero_extended(MOp::Sub(x, 1));
        let z = self.mad_wide_u32(ahi, bhi, Some(c3))?;
        let c4 = self.zero_extended(MOp::Sub(y, 1));
        let hi = self.vcode.new_vreg(VClass::Pair);
        self.wide(WideOp::Add, hi, &[MOp::Reg(z), MOp::Reg(c4)], true);
        Ok(hi)
    }

    /// The signed high product from the unsigned one: minus `b` if `a < 0`, minus `a` if
    /// `b < 0`.
    fn signed_correction(&mut self, d: VReg, hi: VReg, a: VReg, b: VReg) -> Result<(), IselError> {
        let zero = MOp::Fixed(V::Imm(0));
        let fix_a = self.if_negative(a, MOp::Reg(b), zero)?;
        let fix_b = self.if_negative(b, MOp::Reg(a), zero)?;
        let t = self.vcode.new_vreg(VClass::Pair);
        self.wide(WideOp::Sub, t, &[MOp::Reg(hi), MOp::Reg(fix_a)], true);
        self.wide(WideOp::Sub, d, &[MOp::Reg(t), MOp::Reg(fix_b)], true);
        Ok(())
    }

    /// `x < 0 ? then : otherwise` for the pair `x`.
    fn if_negative(&mut self, x: VReg, then: MOp, otherwise: MOp) -> Result<VReg, IselError> {
        let p = self.vcode.new_vreg(VClass::Pred);
        let srcs = [
            (Role::A, Arg::op(MOp::Sub(x, 1))),
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
            &srcs,
            &[IntCmp::Lt.set(), Mod::Signed.flag(true), BoolOp::And.set()],
            None,
        )?;
        let d = self.vcode.new_vreg(VClass::Pair);
        self.wide(WideOp::Select, d, &[MOp::Pred(p, false), then, otherwise], false);
        Ok(d)
    }

    /// Leading zeros of a 64-bit value: of the high half if it is not zero, else 32 plus
    /// those of the low half (FLO gives -1 for zero, so an all-zero value gives 64).
    fn clz64(&mut self, a: Value, result: Value) -> Result<(), IselError> {
        let a = self.reg(a);
        let (p, flo) = self.flo_of_upper_nonzero(MOp::Sub(a, 1), MOp::Sub(a, 0))?;
        let base = self.emit_temp(
            Op::Sel,
            &[
                (Role::A, Arg::op(MOp::Fixed(V::Reg(RZ)))),
                (Role::B, Arg::imm(32)),
                (Role::PredSrc0, Arg::op(MOp::Pred(p, false))),
            ],
            &[],
        )?;
        let d = MOp::Reg(self.def_reg(result));
        let srcs = [
            (Role::A, Arg::Op(flo, crate::vcode::SrcMods::NEG)),
            (Role::B, Arg::imm(31)),
            (Role::C, Arg::op(base)),
        ];
        self.emit_sass(Op::Iadd3, &[(Role::Dst, d)], &srcs, &[], None)
    }
}
