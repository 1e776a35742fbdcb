//! Selects made of a guarded instruction: `d = select p, a, b` whose `a` is computed by an
//! instruction of the same block for this select alone becomes that instruction guarded by
//! `p`, writing `b`'s register in place (`MInst::keep`): where `p` is off the register keeps
//! `b`. ptxas writes the subnormal scaling of `rsqrt.approx.f32` this way (`@!P0 FMUL R4,
//! R4, 16777216; MUFU.RSQ R5, R4; @!P0 FMUL R5, R5, 4096`), one instruction each where a
//! select needs the product and a SEL (or FSEL and a MOV of a constant). The same holds
//! with `a` and `b` swapped, under `!p`.

use super::{Isel, IselError};
use crate::vcode::{MInst, MKind, MOp, VClass};
use ptxc_mir::ir::{Block, Inst, Opcode, Value, ValueDef};

/// The instruction computing one arm of a select, and the select's condition value under
/// which that arm is chosen.
#[derive(Clone, Copy, Debug)]
pub struct GuardedArm {
    /// The instruction selected under the guard.
    pub inst: Inst,
    /// True if the arm is the select's first value (chosen where the condition holds).
    pub when: bool,
}

/// Operations whose single instruction may run under a guard in place of a select: pure
/// arithmetic, never a constant, copy or another select (those have nothing to save).
fn guardable(op: Opcode) -> bool {
    use super::family::{Family, family};
    op.is_pure() && matches!(family(op), Family::Int | Family::Float) && op != Opcode::Select
}

impl Isel<'_> {
    /// Finds the selects whose arm can be computed under the guard, and marks that arm's
    /// instruction as fused into its select.
    pub(super) fn find_guarded_selects(&mut self) {
        let func = self.func;
        for &b in &func.layout {
            for &s in &func.blocks[b].insts {
                let d = &func.insts[s];
                let dead = func.results[s].iter().all(|&r| self.use_count(r) == 0);
                if d.op != Opcode::Select
                    || dead
                    || self.select_idioms.contains_key(&s)
                    || super::class_of(d.ty) != VClass::Single
                    || d.args[1] == d.args[2]
                {
                    continue;
                }
                let arm = [(1, true), (2, false)]
                    .into_iter()
                    .find_map(|(k, when)| self.guardable_arm(b, d.args[k]).map(|inst| GuardedArm { inst, when }));
                if let Some(arm) = arm {
                    self.fuse(arm.inst);
                    self.guarded_selects.insert(s, arm);
                }
            }
        }
    }

    /// The instruction of block `b` that computes `v` for one use only, if it may run
    /// under a guard.
    fn guardable_arm(&self, b: Block, v: Value) -> Option<Inst> {
        let ValueDef::Result(m, 0) = self.func.values[v].def else {
            return None;
        };
        let d = &self.func.insts[m];
        let ok = guardable(d.op)
            && self.func.results[m].len() == 1
            && self.use_count(v) == 1
            && !self.is_fused(m)
            && !self.is_operand_value(v)
            && super::class_of(d.ty) == VClass::Single
            && self.func.blocks[b].insts.contains(&m);
        ok.then_some(m)
    }

    /// Selects `select` (found by [`Isel::find_guarded_selects`]) as its arm under the
    /// guard, in place of the other value; falls back to SEL when the arm's selection is
    /// not a plain guardable instruction.
    pub(super) fn lower_guarded_select(&mut self, select: Inst, arm: GuardedArm) -> Result<(), IselError> {
        let d = &self.func.insts[select];
        let (cond, chosen, other) = if arm.when {
            (d.args[0], d.args[1], d.args[2])
        } else {
            (d.args[0], d.args[2], d.args[1])
        };
        // Inside an if-converted arm every instruction takes the arm's guard instead.
        let guard = match self.pred(cond) {
            MOp::Pred(p, neg) if !self.in_guarded_arm => Some((p, neg)),
            _ => None,
        };
        let Some((p, neg)) = guard else {
            self.lower_inst(arm.inst)?;
            return self.lower_plain_select(select);
        };
        let keep = self.reg(other);
        let result = self.func.results[select][0];
        let saved = self.save_block_values();
        let start = self.out.len();
        self.lower_inst(arm.inst)?;
        let made = self.reg(chosen);
        let plain = self.out[start..].iter().all(|m| match &m.kind {
            MKind::Sass { op, .. } => m.guard.is_none() && !crate::emit::predicate::blocks_predication(*op),
            _ => false,
        });
        let last_defines_only_made =
            self.out.len() > start && self.out.last().and_then(MInst::single_def) == Some(made);
        // Values made under the guard must not stand for unguarded ones below.
        self.restore_block_values(saved);
        if !plain || !last_defines_only_made || self.vcode.class(keep) != VClass::Single {
            return self.lower_plain_select(select);
        }
        let guard = (p, if arm.when { neg } else { !neg });
        for m in &mut self.out[start..] {
            m.guard = Some(guard);
        }
        let last = self.out.len() - 1;
        self.out[last].keep = Some(keep);
        // A use selected before the select (a loop's back edge) has named the result's
        // register already: the guarded instruction defines that one.
        match self.regs.get(&result) {
            Some(&r) => {
                self.out[last].rename_def(made, r);
                self.alias(chosen, r);
            }
            None => self.alias(result, made),
        }
        Ok(())
    }
}
