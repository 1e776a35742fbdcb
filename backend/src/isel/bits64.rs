//! 64-bit operations built from 32-bit ones: population count and leading zeros of both
//! halves, bit reversal (reversed halves swapped), the high half of the 128-bit product
//! (four IMAD.WIDE.U32 partial products, each absorbing a carry word, and a sign correction
//! for `mul.hi.s64`) and the low half of a multiply-add.

use super::fit::Arg;
use super::{Isel, IselError};
use crate::isa::{Op, RZ, Role, Value as V};
use crate::vcode::{MInst, MKind, MOp, VClass, VReg, WideOp};
use ptxc_mir::ir::{Inst, Opcode, Value};
use smallvec::smallvec;

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
                let (a, b) = (self.reg(args[0]), self.reg(args[1]));
                let hi = self.mul_hi_u64(a, b)?;
                let d = self.def_reg(result);
                if op == Opcode::ImulHiU {
                    self.wide(WideOp::Mov, d, &[MOp::Reg(hi)], false);
                } else {
                    self.signed_correction(d, hi, a, b)?;
                }
            }
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
        self.emit_sass(Op::ImadWide, &[(Role::Dst, MOp::Reg(d))], &srcs, &[("signed", 0)], None)?;
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
        self.emit_sass(Op::Isetp, &pd, &srcs, &[("cmp", 1), ("signed", 1), ("bop", 0)], None)?;
        let d = self.vcode.new_vreg(VClass::Pair);
        self.wide(WideOp::Select, d, &[MOp::Pred(p, false), then, otherwise], false);
        Ok(d)
    }

    /// Leading zeros of a 64-bit value: of the high half if it is not zero, else 32 plus
    /// those of the low half (FLO gives -1 for zero, so an all-zero value gives 64).
    fn clz64(&mut self, a: Value, result: Value) -> Result<(), IselError> {
        let a = self.reg(a);
        let p = self.vcode.new_vreg(VClass::Pred);
        let srcs = [
            (Role::A, Arg::op(MOp::Sub(a, 1))),
            (Role::B, Arg::rz()),
            (Role::PredSrc0, Arg::pt(false)),
        ];
        let pd = [
            (Role::PredDst0, MOp::Pred(p, false)),
            (Role::PredDst1, MOp::Fixed(V::Pred { idx: 7, neg: false })),
        ];
        self.emit_sass(Op::Isetp, &pd, &srcs, &[("cmp", 5), ("signed", 0), ("bop", 0)], None)?;
        let word_srcs = [
            (Role::A, Arg::op(MOp::Sub(a, 1))),
            (Role::B, Arg::op(MOp::Sub(a, 0))),
            (Role::PredSrc0, Arg::op(MOp::Pred(p, false))),
        ];
        let word = self.emit_temp(Op::Sel, &word_srcs, &[])?;
        let flo = self.emit_temp(Op::Flo, &[(Role::B, Arg::op(word))], &[("signed", 0)])?;
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
