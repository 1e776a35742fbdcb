//! 64-bit integer operations on register pairs: add (folding a 32x32->64 multiply into
//! IMAD.WIDE), subtract, negate, logic, shifts, multiply, min/max, select and compare, as
//! [`WideOp`] pseudo-instructions expanded after register allocation.

use super::fit::Arg;
use super::{Isel, IselError};
use crate::vcode::{MInst, MKind, MOp, VClass, VReg, WideOp};
use ptxc_mir::ir::{Aux, Cond, Inst, Opcode, Value};
use ptxc_sass::isa::Mod;
use ptxc_sass::isa::values::IntCmp;
use ptxc_sass::isa::{Op, Role, Value as V};
use smallvec::SmallVec;

/// LOP3 tables of the inputs a, b.
const LUT_A: u8 = 0xf0;
const LUT_B: u8 = 0xcc;

/// The ISETP comparison and signedness of a condition (None for float-only conditions).
pub fn int_cmp(c: Cond) -> Option<(IntCmp, bool)> {
    Some(match c {
        Cond::Lt => (IntCmp::Lt, true),
        Cond::Eq => (IntCmp::Eq, true),
        Cond::Le => (IntCmp::Le, true),
        Cond::Gt => (IntCmp::Gt, true),
        Cond::Ne => (IntCmp::Ne, true),
        Cond::Ge => (IntCmp::Ge, true),
        Cond::Ult => (IntCmp::Lt, false),
        Cond::Ule => (IntCmp::Le, false),
        Cond::Ugt => (IntCmp::Gt, false),
        Cond::Uge => (IntCmp::Ge, false),
        _ => return None,
    })
}

/// The comparison with its operands swapped.
pub fn swap_cond(c: Cond) -> Cond {
    match c {
        Cond::Lt => Cond::Gt,
        Cond::Gt => Cond::Lt,
        Cond::Le => Cond::Ge,
        Cond::Ge => Cond::Le,
        Cond::Ult => Cond::Ugt,
        Cond::Ugt => Cond::Ult,
        Cond::Ule => Cond::Uge,
        Cond::Uge => Cond::Ule,
        Cond::Ltu => Cond::Gtu,
        Cond::Gtu => Cond::Ltu,
        Cond::Leu => Cond::Geu,
        Cond::Geu => Cond::Leu,
        c => c,
    }
}

impl Isel<'_> {
    /// Appends a wide operation; `carry` adds a predicate temporary.
    pub(super) fn wide(&mut self, op: WideOp, d: VReg, srcs: &[MOp], carry: bool) {
        let tmp = carry.then(|| self.vcode.new_vreg(VClass::Pred));
        self.push(MInst::new(MKind::Wide {
            op,
            d,
            srcs: SmallVec::from_slice(srcs),
            tmp,
        }));
    }

    /// A 64-bit source that must be a register (the first operand of IADD3/LOP3/IMAD/SEL).
    pub(super) fn wide_reg(&mut self, v: Value) -> MOp {
        match self.src_op(v) {
            MOp::Fixed(_) => MOp::Reg(self.reg(v)),
            other => other,
        }
    }

    /// The two sources with a foldable one second (for commutative operations).
    fn wide_pair(&mut self, a: Value, b: Value) -> (MOp, MOp) {
        let (a, b) = if self.is_wide_const(a) && !self.is_wide_const(b) {
            (b, a)
        } else {
            (a, b)
        };
        (self.wide_reg(a), self.wide_src(b))
    }

    fn is_wide_const(&self, v: Value) -> bool {
        self.foldable64(v).is_some() || self.const64(v).is_some()
    }

    /// Selects a 64-bit integer operation.
    pub fn lower_int64(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let (op, args) = (data.op, data.args.clone());
        let result = self.func.results[inst][0];
        if op == Opcode::Iadd && (self.fused_wide_mul(inst)? || self.lower_lea(inst)?) {
            return Ok(());
        }
        if self.lower_bits64(inst)? {
            return Ok(());
        }
        let d = self.def_reg(result);
        match op {
            Opcode::Iadd => {
                let (a, b) = self.wide_pair(args[0], args[1]);
                self.wide(WideOp::Add, d, &[a, b], true);
            }
            Opcode::Isub => match self.const64(args[1]) {
                Some(V::Imm(k)) => {
                    let a = self.wide_reg(args[0]);
                    self.wide(WideOp::Add, d, &[a, MOp::Fixed(V::Imm(k.wrapping_neg()))], true);
                }
                _ => {
                    let (a, b) = (self.wide_reg(args[0]), self.wide_src(args[1]));
                    self.wide(WideOp::Sub, d, &[a, b], true);
                }
            },
            Opcode::Ineg => {
                let a = self.wide_src(args[0]);
                self.wide(WideOp::Neg, d, &[a], true);
            }
            Opcode::And | Opcode::Or | Opcode::Xor => {
                let (a, b) = self.wide_pair(args[0], args[1]);
                let lut = match op {
                    Opcode::And => LUT_A & LUT_B,
                    Opcode::Or => LUT_A | LUT_B,
                    _ => LUT_A ^ LUT_B,
                };
                self.wide(WideOp::Logic(lut), d, &[a, b], false);
            }
            Opcode::Not => {
                let a = self.wide_reg(args[0]);
                self.wide(WideOp::Logic(!LUT_A), d, &[a], false);
            }
            Opcode::Shl | Opcode::ShrU | Opcode::ShrS => {
                let a = self.wide_reg(args[0]);
                let s = match self.foldable(args[1]) {
                    Some(v @ V::Imm(_)) => MOp::Fixed(v),
                    _ => MOp::Reg(self.reg(args[1])),
                };
                let w = match op {
                    Opcode::Shl => WideOp::Shl,
                    Opcode::ShrU => WideOp::ShrU,
                    _ => WideOp::ShrS,
                };
                self.wide(w, d, &[a, s], false);
            }
            Opcode::Imul => {
                let (a, b) = self.wide_pair(args[0], args[1]);
                self.wide(WideOp::Mul, d, &[a, b], false);
            }
            Opcode::MinS | Opcode::MinU | Opcode::MaxS | Opcode::MaxU => {
                let cond = if matches!(op, Opcode::MinS | Opcode::MaxS) {
                    Cond::Lt
                } else {
                    Cond::Ult
                };
                let lt = self.vcode.new_vreg(VClass::Pred);
                self.cmp64(lt, cond, args[0], args[1])?;
                let (x, y) = if matches!(op, Opcode::MinS | Opcode::MinU) {
                    (args[0], args[1])
                } else {
                    (args[1], args[0])
                };
                let (x, y) = (self.wide_reg(x), self.wide_src(y));
                self.wide(WideOp::Select, d, &[MOp::Pred(lt, false), x, y], false);
            }
            other => return Err(self.unsupported(format!("{} on i64", other.name()))),
        }
        Ok(())
    }

    /// `d = a cond b` on 64-bit integers.
    pub fn cmp64(&mut self, d: VReg, cond: Cond, a: Value, b: Value) -> Result<(), IselError> {
        let (a, b, cond) = if self.is_wide_const(a) && !self.is_wide_const(b) {
            (b, a, swap_cond(cond))
        } else {
            (a, b, cond)
        };
        let (code, signed) = int_cmp(cond).ok_or_else(|| self.unsupported("unordered integer compare"))?;
        let (a, b) = (self.wide_reg(a), self.wide_src(b));
        self.wide(WideOp::Cmp(code, signed), d, &[a, b], false);
        Ok(())
    }

    /// Integer compare of 64-bit values.
    pub fn lower_icmp64(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let Aux::Cond(cond) = data.aux else {
            return Err(self.unsupported("compare without condition"));
        };
        let (a, b) = (data.args[0], data.args[1]);
        let d = self.def_reg(self.func.results[inst][0]);
        self.cmp64(d, cond, a, b)
    }

    /// `select p, a, b` on 64-bit values.
    pub fn lower_select64(&mut self, inst: Inst) -> Result<(), IselError> {
        let args = self.func.insts[inst].args.clone();
        let d = self.def_reg(self.func.results[inst][0]);
        self.select64_into(d, args[0], args[1], args[2]);
        Ok(())
    }

    /// `d = cond ? yes : no` on 64-bit values.
    pub(super) fn select64_into(&mut self, d: VReg, cond: Value, yes: Value, no: Value) {
        let p = self.pred(cond);
        let (a, b) = (self.wide_reg(yes), self.wide_src(no));
        self.wide(WideOp::Select, d, &[p, a, b], false);
    }

    /// A 64-bit add whose operand is a fused 32x32->64 multiply becomes one IMAD.WIDE.
    fn fused_wide_mul(&mut self, inst: Inst) -> Result<bool, IselError> {
        let args = self.func.insts[inst].args.clone();
        for (m, other) in [(args[0], args[1]), (args[1], args[0])] {
            if let Some((x, y, signed)) = self.fused_mul_operands(m) {
                let d = self.def_reg(self.func.results[inst][0]);
                let (x, y) = if self.foldable(x).is_some() && self.foldable(y).is_none() {
                    (y, x)
                } else {
                    (x, y)
                };
                let srcs = [(Role::A, Arg::v(x)), (Role::B, Arg::v(y)), (Role::C, Arg::v(other))];
                self.emit_sass(
                    Op::ImadWide,
                    &[(Role::Dst, MOp::Reg(d))],
                    &srcs,
                    &[Mod::Signed.flag(signed)],
                    None,
                )?;
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// `(x, y, signed)` if `v` is a 32x32->64 multiply that was folded into its users.
    fn fused_mul_operands(&self, v: Value) -> Option<(Value, Value, bool)> {
        let ptxc_mir::ir::ValueDef::Result(i, _) = self.func.values[v].def else {
            return None;
        };
        let d = &self.func.insts[i];
        let signed = match d.op {
            Opcode::ImulWideS => true,
            Opcode::ImulWideU => false,
            _ => return None,
        };
        self.is_fused(i).then_some((d.args[0], d.args[1], signed))
    }
}
