//! Selects that are one instruction. MIR spells some PTX operations as a compare and a
//! select (`mir/src/lower`); ptxas selects each as one instruction, and so does ptxc:
//! - `abs.s32 a` = `select(a < 0, -a, a)` → `IABS d, a`;
//! - `bfind.shiftamt.{u32,s32} a` = `select(f != ~0, 31 - f, ~0)` with `f = bfind(a)` →
//!   `FLO.SH d, a` (`FLO.U32.SH`, `FLO.S32.SH`).
//!
//! Only 32-bit operands: a narrower value's register has undefined upper bits, which the
//! instruction would read.

use super::fit::Arg;
use super::{Isel, IselError};
use ptxc_mir::ir::{Aux, Cond, Inst, Opcode, Type, Value};
use ptxc_sass::isa::{Mod, Op, Role};

/// A select computed by one instruction.
#[derive(Clone, Copy, Debug)]
pub(super) enum Idiom {
    /// `IABS d, a`.
    Abs(Value),
    /// `FLO.SH d, a` (`signed`: `FLO.S32.SH`).
    ShiftAmount { a: Value, signed: bool },
}

impl Idiom {
    /// The value the instruction reads.
    fn operand(self) -> Value {
        match self {
            Idiom::Abs(a) | Idiom::ShiftAmount { a, .. } => a,
        }
    }
}

impl Isel<'_> {
    /// Marks the selects that are one instruction. Their operands lose the select's use,
    /// and the instruction's own operand gains one; what is left unread goes away (this
    /// runs before [`Isel::discount_folded_uses`], which removes the dead values).
    pub(super) fn find_select_idioms(&mut self) {
        let func = self.func;
        let mut found = Vec::new();
        for &b in &func.layout {
            for &s in &func.blocks[b].insts {
                if let Some(idiom) = self.abs_idiom(s).or_else(|| self.shift_amount_idiom(s)) {
                    found.push((s, idiom));
                }
            }
        }
        for &(s, idiom) in &found {
            for &v in &func.insts[s].args {
                if let Some(n) = self.uses.get_mut(&v) {
                    *n = n.saturating_sub(1);
                }
            }
            *self.uses.entry(idiom.operand()).or_default() += 1;
        }
        self.select_idioms.extend(found);
    }

    /// `select(a < 0, -a, a)` on 32-bit integers.
    fn abs_idiom(&self, s: Inst) -> Option<Idiom> {
        let d = &self.func.insts[s];
        if d.op != Opcode::Select || d.ty != Type::I32 {
            return None;
        }
        let (cond, neg, a) = (d.args[0], d.args[1], d.args[2]);
        let c = self.def_of(cond)?;
        let is_neg = c.op == Opcode::Icmp
            && c.ty == Type::I32
            && c.aux == Aux::Cond(Cond::Lt)
            && c.args[0] == a
            && self.int_const(c.args[1]) == Some(0);
        let n = self.def_of(neg)?;
        let negates = n.op == Opcode::Ineg && n.ty == Type::I32 && n.args[0] == a;
        (is_neg && negates).then_some(Idiom::Abs(a))
    }

    /// `select(f != ~0, 31 - f, ~0)` with `f = bfind(a)` of a 32-bit `a`.
    fn shift_amount_idiom(&self, s: Inst) -> Option<Idiom> {
        let d = &self.func.insts[s];
        if d.op != Opcode::Select || d.ty != Type::I32 || self.int_const(d.args[2]) != Some(-1) {
            return None;
        }
        let (found, amount) = (self.def_of(d.args[0])?, self.def_of(d.args[1])?);
        let f = amount.args.get(1).copied()?;
        let subtracts =
            amount.op == Opcode::Isub && amount.ty == Type::I32 && self.int_const(amount.args[0]) == Some(31);
        let tests = found.op == Opcode::Icmp
            && found.ty == Type::I32
            && found.aux == Aux::Cond(Cond::Ne)
            && found.args[0] == f
            && self.int_const(found.args[1]) == Some(-1);
        let bfind = self.def_of(f)?;
        let signed = match bfind.op {
            Opcode::BfindS => true,
            Opcode::BfindU => false,
            _ => return None,
        };
        let a = bfind.args[0];
        (subtracts && tests && self.func.ty(a) == Type::I32).then_some(Idiom::ShiftAmount { a, signed })
    }

    /// Selects a select marked by [`Isel::find_select_idioms`] as its instruction.
    pub(super) fn lower_select_idiom(&mut self, s: Inst, idiom: Idiom) -> Result<(), IselError> {
        let d = [(Role::Dst, self.dst(s))];
        let srcs = [(Role::B, Arg::v(idiom.operand()))];
        match idiom {
            Idiom::Abs(_) => self.emit_sass(Op::Iabs, &d, &srcs, &[], None),
            Idiom::ShiftAmount { signed, .. } => {
                let mods = [Mod::Signed.flag(signed), Mod::ShiftAmount.flag(true)];
                self.emit_sass(Op::Flo, &d, &srcs, &mods, None)
            }
        }
    }
}
