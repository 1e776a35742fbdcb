//! Expansion of [`MKind::Wide`](crate::vcode::MKind::Wide) operations on register tuples:
//! 64-bit arithmetic, logic, shifts, multiplies, selects, moves and comparisons, written as
//! ptxas writes them (IADD3 + IADD3.X, LEA + LEA.HI.X, IADD3 + LEA.HI.X.SX32, SHF.L.U64.HI, IMAD.WIDE.U32 + IMAD, ISETP + ISETP.EX).
//! The destination never shares registers with a source, so halves may be written in any order.

use super::expand::Expander;
use super::{EmitError, Locations};
use crate::vcode::{MOp, VReg, WideOp};
use ptxc_sass::isa::Mod;
use ptxc_sass::isa::values::{BoolOp, ShfType};
use ptxc_sass::isa::{Op, Operand, PT, RZ, Role, Value as V};

fn op(v: V) -> Operand {
    Operand::new(v)
}

impl Expander<'_> {
    /// The destination pair and the carry predicate (`tmp`) of a two-word addition.
    fn carried(&self, op_kind: WideOp, d: VReg, tmp: Option<VReg>, locs: &Locations) -> Result<(u8, u8), EmitError> {
        let dst = self.phys(self.loc(locs, d)?)?;
        let carry = tmp.ok_or_else(|| self.err(format!("{op_kind:?} without a carry predicate")))?;
        Ok((dst, self.pred_index(self.loc(locs, carry)?)?))
    }

    /// Expands one wide operation.
    pub fn wide(
        &mut self,
        op_kind: WideOp,
        d: VReg,
        srcs: &[MOp],
        tmp: Option<VReg>,
        locs: &Locations,
    ) -> Result<(), EmitError> {
        let src = |i: usize| {
            srcs.get(i)
                .copied()
                .ok_or_else(|| self.err(format!("{op_kind:?} needs operand {i}")))
        };
        match op_kind {
            WideOp::Add | WideOp::Sub | WideOp::Neg => {
                let (dst, p) = self.carried(op_kind, d, tmp, locs)?;
                let ((alo, ahi), (mut blo, mut bhi)) = match op_kind {
                    WideOp::Neg => ((V::Reg(RZ), V::Reg(RZ)), self.halves(src(0)?, locs)?),
                    _ => (self.halves(src(0)?, locs)?, self.halves(src(1)?, locs)?),
                };
                let mut negate = op_kind != WideOp::Add;
                if let (true, V::Imm(lo), V::Imm(hi)) = (negate, blo, bhi) {
                    // An immediate cannot be negated by the operand bit: add its negation.
                    let v = ((hi & 0xffff_ffff) << 32 | (lo & 0xffff_ffff)).wrapping_neg();
                    (blo, bhi, negate) = (V::Imm(v & 0xffff_ffff), V::Imm(v >> 32), false);
                }
                let lo = [
                    (Role::Dst, Operand::reg(dst)),
                    (Role::PredDst0, Operand::pred(p, false)),
                    (Role::A, op(alo)),
                    (Role::B, Operand { neg: negate, ..op(blo) }),
                    (Role::C, Operand::reg(RZ)),
                ];
                let i = self.make(Op::Iadd3, &lo, &[])?;
                self.push(i);
                let hi = [
                    (Role::Dst, Operand::reg(dst + 1)),
                    (Role::A, op(ahi)),
                    (Role::B, Operand { neg: negate, ..op(bhi) }),
                    (Role::C, Operand::reg(RZ)),
                    (Role::PredSrc0, Operand::pred(p, false)),
                ];
                let i = self.make(Op::Iadd3, &hi, &[Mod::X.flag(true)])?;
                self.push(i);
            }
            WideOp::Lea(k) => {
                let (dst, p) = self.carried(op_kind, d, tmp, locs)?;
                let ((alo, ahi), (blo, bhi)) = (self.halves(src(0)?, locs)?, self.halves(src(1)?, locs)?);
                let lo = [
                    (Role::Dst, Operand::reg(dst)),
                    (Role::PredDst0, Operand::pred(p, false)),
                    (Role::A, op(alo)),
                    (Role::B, op(blo)),
                    (Role::Other, Operand::imm(k as u64)),
                ];
                let i = self.make(Op::Lea, &lo, &[])?;
                self.push(i);
                let hi = [
                    (Role::Dst, Operand::reg(dst + 1)),
                    (Role::A, op(alo)),
                    (Role::B, op(bhi)),
                    (Role::C, op(ahi)),
                    (Role::Other, Operand::imm(k as u64)),
                    (Role::PredSrc0, Operand::pred(p, false)),
                ];
                let i = self.make(Op::Lea, &hi, &[Mod::Hi.flag(true), Mod::X.flag(true)])?;
                self.push(i);
            }
            WideOp::AddSext => {
                let (dst, p) = self.carried(op_kind, d, tmp, locs)?;
                let (alo, ahi) = self.halves(src(0)?, locs)?;
                let b = self.value(src(1)?, locs)?;
                let lo = [
                    (Role::Dst, Operand::reg(dst)),
                    (Role::PredDst0, Operand::pred(p, false)),
                    (Role::A, op(b)),
                    (Role::B, op(alo)),
                    (Role::C, Operand::reg(RZ)),
                ];
                let i = self.make(Op::Iadd3, &lo, &[])?;
                self.push(i);
                // The high word: a's plus the sign of b (bits 63..32 of sext(b) << 1, shifted
                // back) plus the carry, as ptxas adds a sign-extended index.
                let hi = [
                    (Role::Dst, Operand::reg(dst + 1)),
                    (Role::A, op(b)),
                    (Role::B, op(ahi)),
                    (Role::Other, Operand::imm(1)),
                    (Role::PredSrc0, Operand::pred(p, false)),
                ];
                let i = self.make(
                    Op::Lea,
                    &hi,
                    &[Mod::Hi.flag(true), Mod::X.flag(true), Mod::Sx32.flag(true)],
                )?;
                self.push(i);
            }
            WideOp::Logic(lut) => {
                let dst = self.phys(self.loc(locs, d)?)?;
                let (alo, ahi) = self.halves(src(0)?, locs)?;
                let (blo, bhi) = match srcs.get(1) {
                    Some(b) => self.halves(*b, locs)?,
                    None => (V::Reg(RZ), V::Reg(RZ)),
                };
                for (k, a, b) in [(0, alo, blo), (1, ahi, bhi)] {
                    let ops = [
                        (Role::Dst, Operand::reg(dst + k)),
                        (Role::A, op(a)),
                        (Role::B, op(b)),
                        (Role::C, Operand::reg(RZ)),
                        (Role::Other, Operand::imm(lut as u64)),
                        (Role::PredSrc0, Operand::pred(PT, true)),
                    ];
                    let i = self.make(Op::Lop3, &ops, &[])?;
                    self.push(i);
                }
            }
            WideOp::Shl | WideOp::ShrU | WideOp::ShrS => {
                let dst = self.phys(self.loc(locs, d)?)?;
                let (alo, ahi) = self.halves(src(0)?, locs)?;
                let s = self.value(src(1)?, locs)?;
                let steps: [(u8, bool, ShfType, bool, V, V); 2] = match op_kind {
                    WideOp::Shl => [
                        (1, false, ShfType::U64, true, alo, ahi),
                        (0, false, ShfType::U32, false, alo, V::Reg(RZ)),
                    ],
                    WideOp::ShrU => [
                        (0, true, ShfType::U64, false, alo, ahi),
                        (1, true, ShfType::U32, true, V::Reg(RZ), ahi),
                    ],
                    _ => [
                        (0, true, ShfType::S64, false, alo, ahi),
                        (1, true, ShfType::S32, true, V::Reg(RZ), ahi),
                    ],
                };
                for (k, right, ty, hi, a, c) in steps {
                    let ops = [
                        (Role::Dst, Operand::reg(dst + k)),
                        (Role::A, op(a)),
                        (Role::B, op(s)),
                        (Role::C, op(c)),
                    ];
                    let i = self.make(Op::Shf, &ops, &[Mod::Right.flag(right), ty.set(), Mod::Hi.flag(hi)])?;
                    self.push(i);
                }
            }
            WideOp::Mul => {
                let dst = self.phys(self.loc(locs, d)?)?;
                let (alo, ahi) = self.halves(src(0)?, locs)?;
                let (blo, bhi) = self.halves(src(1)?, locs)?;
                let steps = [
                    (Op::ImadWide, alo, blo, V::Reg(RZ), dst, false),
                    (Op::Imad, alo, bhi, V::Reg(dst + 1), dst + 1, true),
                    (Op::Imad, ahi, blo, V::Reg(dst + 1), dst + 1, true),
                ];
                for (o, a, b, c, dd, signed) in steps {
                    let (a, b) = if matches!(a, V::Reg(_)) { (a, b) } else { (b, a) };
                    let ops = [
                        (Role::Dst, Operand::reg(dd)),
                        (Role::A, op(a)),
                        (Role::B, op(b)),
                        (Role::C, op(c)),
                    ];
                    let i = self.make(o, &ops, &[Mod::Signed.flag(signed)])?;
                    self.push(i);
                }
            }
            WideOp::Select => {
                let dst = self.phys(self.loc(locs, d)?)?;
                let p = self.value(src(0)?, locs)?;
                let (alo, ahi) = self.halves(src(1)?, locs)?;
                let (blo, bhi) = self.halves(src(2)?, locs)?;
                for (k, a, b) in [(0, alo, blo), (1, ahi, bhi)] {
                    let (a, b, neg) = if matches!(a, V::Reg(_)) {
                        (a, b, false)
                    } else {
                        (b, a, true)
                    };
                    let pred = match p {
                        V::Pred { idx, neg: n } => Operand::pred(idx, n ^ neg),
                        other => return Err(self.err(format!("select predicate {other:?}"))),
                    };
                    let ops = [
                        (Role::Dst, Operand::reg(dst + k)),
                        (Role::A, op(a)),
                        (Role::B, op(b)),
                        (Role::PredSrc0, pred),
                    ];
                    let i = self.make(Op::Sel, &ops, &[])?;
                    self.push(i);
                }
            }
            WideOp::Mov => {
                let dst = self.phys(self.loc(locs, d)?)?;
                let width = self.vcode.class(d).width();
                let s = src(0)?;
                if width == 2 {
                    let (lo, hi) = self.halves(s, locs)?;
                    self.mov(dst, lo)?;
                    self.mov(dst + 1, hi)?;
                } else {
                    let V::Reg(base) = self.value(s, locs)? else {
                        return Err(self.err("quad move from a non-register"));
                    };
                    for k in 0..width {
                        self.mov(dst + k, V::Reg(base + k))?;
                    }
                }
            }
            WideOp::Pack => {
                let dst = self.phys(self.loc(locs, d)?)?;
                for (k, s) in srcs.iter().enumerate() {
                    let v = self.value(*s, locs)?;
                    self.mov(dst + k as u8, v)?;
                }
            }
            WideOp::Cmp(code, signed) => {
                let p = self.pred_index(self.loc(locs, d)?)?;
                let (alo, ahi) = self.halves(src(0)?, locs)?;
                let (blo, bhi) = self.halves(src(1)?, locs)?;
                let steps = [(alo, blo, false, false), (ahi, bhi, signed, true)];
                for (a, b, s, ex) in steps {
                    let mut ops = vec![
                        (Role::PredDst0, Operand::pred(p, false)),
                        (Role::PredDst1, Operand::pred(PT, false)),
                        (Role::A, op(a)),
                        (Role::B, op(b)),
                        (Role::PredSrc0, Operand::pred(PT, false)),
                    ];
                    if ex {
                        ops.push((Role::PredSrc1, Operand::pred(p, false)));
                    }
                    let mods = [code.set(), Mod::Signed.flag(s), BoolOp::And.set(), Mod::Ex.flag(ex)];
                    let i = self.make(Op::Isetp, &ops, &mods)?;
                    self.push(i);
                }
            }
        }
        Ok(())
    }
}
