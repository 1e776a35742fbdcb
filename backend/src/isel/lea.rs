//! Shift-and-add: an addition whose operand is a value shifted left by a constant becomes
//! one `LEA d, x, y, k` (32-bit) or `LEA d, P, x, y, k` + `LEA.HI.X` (64-bit), as ptxas
//! writes index arithmetic (`base + (i << 2)`), instead of a shift and an add. The shift is
//! fused (not selected) when every use of it is such an addition in the same block. So is
//! a sign extension from 32 bits whose every use is a 64-bit addition: `x + sext(i)`
//! becomes `IADD3` + `LEA.HI.X.SX32` (the high word adds the sign of `i`).

use super::fit::Arg;
use super::{Isel, IselError};
use crate::vcode::{MOp, WideOp};
use ptxc_mir::ir::{Aux, Block, Inst, Opcode, Type, Value, ValueDef};
use ptxc_sass::isa::{Op, Role};

impl Isel<'_> {
    /// `(x, k)` if `v` is `shl x, k` with a constant `k` in 1..=31, `x` a register value and
    /// the shift as wide as the addition of type `ty` that would use it.
    fn shl_by_const(&self, v: Value, ty: Type) -> Option<(Value, u32)> {
        let ValueDef::Result(i, _) = self.func.values[v].def else {
            return None;
        };
        let d = &self.func.insts[i];
        if d.op != Opcode::Shl || d.ty != ty || self.func.ty(d.args[0]) != ty {
            return None;
        }
        let k = self.func.const_value(d.args[1])?;
        let x_is_reg = if ty == Type::I64 {
            self.foldable64(d.args[0]).is_none() && self.const64(d.args[0]).is_none()
        } else {
            self.foldable(d.args[0]).is_none()
        };
        ((1..=31).contains(&k) && x_is_reg).then_some((d.args[0], k as u32))
    }

    /// `i` if `v` is `sext(i)` from 32 to 64 bits.
    fn sext32(&self, v: Value) -> Option<Value> {
        let ValueDef::Result(c, _) = self.func.values[v].def else {
            return None;
        };
        let d = &self.func.insts[c];
        let Aux::Convert(info) = d.aux else { return None };
        let plain = !info.sat && info.rnd.is_none() && info.from_signed;
        (d.op == Opcode::Convert
            && plain
            && info.from == Type::I32
            && d.ty == Type::I64
            && self.foldable(d.args[0]).is_none())
        .then_some(d.args[0])
    }

    /// Marks the sign extensions whose every use is a 64-bit addition in their block.
    pub(super) fn find_sext_add_fusions(&mut self) {
        self.fuse_add_operands(&[Type::I64], |isel, v, _| isel.sext32(v).is_some());
    }

    /// Marks the shifts whose every use is an addition (of their width, in their block)
    /// whose other operand is no shift marked before: each such addition becomes a LEA.
    pub(super) fn find_lea_fusions(&mut self) {
        self.fuse_add_operands(&[Type::I32, Type::I64], |isel, v, ty| {
            isel.shl_by_const(v, ty).is_some()
        });
    }

    /// Fuses each operand `a` of an addition of one of the types `types` for which
    /// `candidate(a, type)` holds, when every use of `a` is such an addition in the block
    /// (additions in layout order, operands in order).
    fn fuse_add_operands(&mut self, types: &[Type], candidate: impl Fn(&Self, Value, Type) -> bool) {
        for bi in 0..self.func.layout.len() {
            let b = self.func.layout[bi];
            for ii in 0..self.func.blocks[b].insts.len() {
                let d = &self.func.insts[self.func.blocks[b].insts[ii]];
                if d.op != Opcode::Iadd || !types.contains(&d.ty) {
                    continue;
                }
                let (ty, args) = (d.ty, d.args.clone());
                for a in args {
                    if candidate(self, a, ty)
                        && let Some(s) = self.func.def_inst(a)
                        && !self.is_fused(s)
                        && self.all_uses_are_adds(a, ty, b)
                    {
                        self.fuse(s);
                    }
                }
            }
        }
    }

    /// True if every use of `v` is an emitted addition of type `ty` in block `b` whose
    /// other operand is not a fused value (dead instructions, not selected, do not count).
    fn all_uses_are_adds(&self, v: Value, ty: Type, b: Block) -> bool {
        let mut uses = 0;
        for &i in &self.func.blocks[b].insts {
            let d = &self.func.insts[i];
            let n = d.all_args().filter(|&a| a == v).count() as u32;
            if n == 0 {
                continue;
            }
            let emitted = self.func.results[i].iter().all(|&r| self.use_count(r) > 0);
            if !emitted && d.op.is_pure() && self.func.results[i].iter().all(|&r| self.use_count(r) == 0) {
                continue;
            }
            let other = d.args.iter().copied().find(|&a| a != v);
            let other_fused = other.is_none_or(|o| self.func.def_inst(o).is_some_and(|s| self.is_fused(s)));
            if d.op != Opcode::Iadd || d.ty != ty || n > 1 || !emitted || other_fused {
                return false;
            }
            uses += n;
        }
        uses == self.use_count(v)
    }

    /// `(x, k, other)` if the addition `inst` has a fused shift `x << k` as an operand.
    fn lea_operands(&self, inst: Inst) -> Option<(Value, u32, Value)> {
        let d = &self.func.insts[inst];
        if d.op != Opcode::Iadd {
            return None;
        }
        [(d.args[0], d.args[1]), (d.args[1], d.args[0])]
            .into_iter()
            .find_map(|(s, other)| {
                let (x, k) = self.shl_by_const(s, d.ty)?;
                let i = self.func.def_inst(s)?;
                self.is_fused(i).then_some((x, k, other))
            })
    }

    /// Selects the 64-bit addition `inst` of a fused sign extension as IADD3 +
    /// LEA.HI.X.SX32; false if it has none.
    fn lower_sext_add(&mut self, inst: Inst) -> Result<bool, IselError> {
        let d = &self.func.insts[inst];
        if d.op != Opcode::Iadd || d.ty != Type::I64 {
            return Ok(false);
        }
        let found = [(d.args[0], d.args[1]), (d.args[1], d.args[0])]
            .into_iter()
            .find_map(|(s, other)| {
                let i = self.sext32(s)?;
                let c = self.func.def_inst(s)?;
                self.is_fused(c).then_some((i, other))
            });
        let Some((i, other)) = found else { return Ok(false) };
        let result = self.func.results[inst][0];
        let dst = self.def_reg(result);
        let x = self.wide_src(other);
        let y = MOp::Reg(self.reg(i));
        self.wide(WideOp::AddSext, dst, &[x, y], true);
        Ok(true)
    }

    /// Selects the addition `inst` as LEA if it adds a fused shift (or, 64-bit, a fused sign
    /// extension); false otherwise.
    pub(super) fn lower_lea(&mut self, inst: Inst) -> Result<bool, IselError> {
        if self.lower_sext_add(inst)? {
            return Ok(true);
        }
        let Some((x, k, other)) = self.lea_operands(inst) else {
            return Ok(false);
        };
        let result = self.func.results[inst][0];
        if self.func.insts[inst].ty == Type::I64 {
            let d = self.def_reg(result);
            let (x, y) = (self.wide_reg(x), self.wide_src(other));
            self.wide(WideOp::Lea(k as u8), d, &[x, y], true);
            return Ok(true);
        }
        let d = MOp::Reg(self.def_reg(result));
        let srcs = [
            (Role::A, Arg::v(x)),
            (Role::B, Arg::v(other)),
            (Role::Other, Arg::imm(k)),
        ];
        self.emit_sass(Op::Lea, &[(Role::Dst, d)], &srcs, &[], None)?;
        Ok(true)
    }
}
