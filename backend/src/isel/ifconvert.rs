//! If-conversion during selection: a short block that runs only when a conditional branch
//! goes its way, and then joins the other way's target (a triangle: `if (c) { x = load; }`),
//! is selected as guarded instructions at the end of the branching block. A value the join
//! block receives from the block is written in place of the other way's value where the
//! instruction that makes it allows (`MInst::keep`: `MOV R4, RZ; @!P0 LDG R4, [R2]`, as
//! ptxas writes it, with no SEL waiting for the load after it); other values are merged
//! with SEL. Done before register
//! allocation, the guarded loads and stores are ordinary instructions of one block for the
//! pre-allocation scheduler (a tiled loop's guarded global loads all start before the first
//! shared store, as ptxas orders them) and their values get their own registers; the
//! post-allocation predication (`emit/predicate.rs`) only saw them after allocation, when
//! every guarded load of a row shared one register and had to wait for the store before it.
//! ptxas guards the same blocks (`@!P0 LDG` with the join value zeroed beforehand).

use super::fit::Arg;
use super::{Isel, IselError};
use crate::vcode::{MInst, MKind, MOp, VClass, VReg, WideOp};
use ptxc_mir::ir::{Block, Function, InstData, Opcode, Type, Value, ValueDef};
use ptxc_sass::isa::{Op, Role};
use rustc_hash::FxHashMap as HashMap;

/// The most MIR instructions (constants aside) a guarded block may hold: each is selected
/// under the guard, so every lane issues them whichever way the branch goes. ptxas guards
/// `dynamic_shared`'s block of 15. Measured on the suite (sm_75, with the in-place writes),
/// 24 here and [`MAX_TAIL`] against 6 for both: geometric mean 0.994 against 0.999, no
/// kernel slower (`saxpy_f32` 0.976 to 0.932, `scan_block` 0.964 to 0.941).
const MAX_BODY: usize = 24;
/// The most a guarded block that ends the kernel may hold: a longer one is better left
/// through a guarded EXIT (`stencil_2d`: 1.065 guarded, 1.052 with the EXIT).
const MAX_TAIL: usize = 8;

/// A block selected under a guard at the end of the block that branches to it.
#[derive(Clone, Copy, Debug)]
pub struct Arm {
    /// The guarded block.
    pub body: Block,
    /// The block both ways reach.
    pub join: Block,
    /// The branch condition's value under which `body` runs.
    pub when: bool,
}

/// Operations that may run under a guard: pure ones (no side effects, never fault) and
/// loads and stores (a guarded-off access does not happen).
fn predicable(d: &InstData) -> bool {
    d.op.is_pure() || matches!(d.op, Opcode::Load | Opcode::Store)
}

/// The arms to convert, by branching block (`preds` counts a block's predecessors).
pub fn find(func: &Function, preds: &dyn Fn(Block) -> usize) -> HashMap<Block, Arm> {
    let mut arms = HashMap::default();
    for &a in &func.layout {
        let Some(t) = func.terminator(a) else { continue };
        let d = &func.insts[t];
        let targets = d.targets();
        if d.op != Opcode::Brif || targets.len() != 2 || targets[0].block == targets[1].block {
            continue;
        }
        if is_constant(func, d.args[0]) {
            continue;
        }
        for (k, when) in [(0, true), (1, false)] {
            let (body, join) = (targets[k].block, targets[1 - k].block);
            if let Some(arm) = arm_of(func, preds, a, body, join, when) {
                arms.insert(a, arm);
                break;
            }
        }
    }
    arms
}

/// `body` as an arm of `a` towards `join`, if it is one.
fn arm_of(
    func: &Function,
    preds: &dyn Fn(Block) -> usize,
    a: Block,
    body: Block,
    join: Block,
    when: bool,
) -> Option<Arm> {
    if body == a || join == a || body == join || preds(body) != 1 || !func.blocks[body].params.is_empty() {
        return None;
    }
    let bt = func.terminator(body)?;
    let jump = &func.insts[bt];
    if jump.op != Opcode::Jump || jump.targets().first()?.block != join {
        return None;
    }
    // The rest of a kernel is guarded only when short: otherwise a guarded EXIT before it
    // (`emit/predicate.rs`) lets the lanes that skip it leave instead of issuing it.
    let limit = if func.only_exits(join) { MAX_TAIL } else { MAX_BODY };
    let insts = &func.blocks[body].insts;
    let inner = &insts[..insts.len() - 1];
    let cost = inner.iter().filter(|&&i| func.insts[i].op != Opcode::Const).count();
    if cost > limit || !inner.iter().all(|&i| predicable(&func.insts[i])) {
        return None;
    }
    // Every join value that differs between the ways must be one SEL can merge.
    let from_a = func.insts[func.terminator(a)?]
        .targets()
        .iter()
        .find(|c| c.block == join)?
        .args
        .clone();
    let from_body = &jump.targets()[0].args;
    let mergeable = from_a
        .iter()
        .zip(from_body)
        .all(|(&x, &y)| x == y || func.ty(y) != Type::Pred && func.ty(y).bits() <= 64);
    mergeable.then_some(Arm { body, join, when })
}

/// Whether `v` is a constant or undefined predicate, possibly negated: selection folds it
/// into an operand (PT), which cannot guard an instruction.
fn is_constant(func: &Function, v: Value) -> bool {
    match func.values[v].def {
        ValueDef::Result(i, _) => match func.insts[i].op {
            Opcode::Const | Opcode::Undef => true,
            Opcode::Not => is_constant(func, func.insts[i].args[0]),
            _ => false,
        },
        ValueDef::Param(..) => false,
    }
}

impl Isel<'_> {
    /// Selects the terminator of block `a`, which absorbs `arm`: the arm's instructions under
    /// the guard, the join's arguments merged, and a jump to the join. Returns the join's
    /// arguments.
    pub(super) fn absorb_arm(&mut self, a: Block, arm: Arm) -> Result<Vec<VReg>, IselError> {
        let func = self.func;
        let branch = &func.insts[func.terminator(a).expect("a branch")];
        let cond = branch.args[0];
        let MOp::Pred(p, neg) = self.pred(cond) else {
            return Err(self.unsupported("a guarded block under a constant condition"));
        };
        let guard = (p, if arm.when { neg } else { !neg });
        let to_join = branch.targets().iter().find(|c| c.block == arm.join).expect("the join");
        let from_body = &func.insts[func.terminator(arm.body).expect("a jump")].targets()[0];
        let kept = self.kept_values(arm, &to_join.args, &from_body.args);
        let start = self.out.len();
        let body = &func.blocks[arm.body].insts;
        self.in_guarded_arm = true;
        for &i in &body[..body.len() - 1] {
            if self.is_fused(i) {
                continue;
            }
            self.srcloc = func.srclocs[i];
            if let Err(e) = self.lower_inst(i) {
                self.in_guarded_arm = false;
                return Err(e);
            }
        }
        self.in_guarded_arm = false;
        for m in &mut self.out[start..] {
            m.guard = Some(guard);
        }
        let written_in_place = self.write_in_place(start, &kept);
        // Values made under the guard must not stand for unguarded ones below.
        self.start_block();
        let mut args = Vec::with_capacity(to_join.args.len());
        for (&other, &mine) in to_join.args.iter().zip(&from_body.args) {
            let v = if other == mine {
                self.reg(other)
            } else if let Some(&(_, made)) = written_in_place.iter().find(|(v, _)| *v == mine) {
                made
            } else if arm.when {
                self.merge(cond, mine, other)?
            } else {
                self.merge(cond, other, mine)?
            };
            args.push(v);
        }
        Ok(args)
    }

    /// The join values the arm may write in place of the other way's value: each value the
    /// arm's block defines and passes to the join once, with the value the other way passes.
    /// ptxas writes a guarded load this way (`MOV R4, RZ; @!P0 LDG R4, [R2]`), with no SEL
    /// after it waiting for the load.
    fn kept_values(&self, arm: Arm, from_a: &[Value], from_body: &[Value]) -> Vec<(Value, Value)> {
        let func = self.func;
        let defined_in_arm = |v: Value| match func.values[v].def {
            ValueDef::Result(m, _) => func.blocks[arm.body].insts.contains(&m),
            ValueDef::Param(..) => false,
        };
        from_a
            .iter()
            .zip(from_body)
            .filter(|&(&other, &mine)| {
                other != mine
                    && defined_in_arm(mine)
                    && from_body.iter().filter(|&&v| v == mine).count() == 1
                    && matches!(super::class_of(func.ty(mine)), VClass::Single | VClass::Pair)
            })
            .map(|(&other, &mine)| (mine, other))
            .collect()
    }

    /// Makes the guarded instruction (from `start` on) that alone defines a kept value's
    /// register keep the other way's value's register where the guard is off
    /// ([`MInst::keep`]); that register is made before the arm. Returns the values written
    /// in place with their registers.
    fn write_in_place(&mut self, start: usize, kept: &[(Value, Value)]) -> Vec<(Value, VReg)> {
        let mut done = Vec::new();
        for &(mine, other) in kept {
            // A value the arm's selection folded away has no register of its own.
            let Some(&made) = self.regs.get(&mine).or_else(|| self.local.get(&mine)) else {
                continue;
            };
            if self.vcode.class(made) != super::class_of(self.func.ty(other)) {
                continue;
            }
            let mut definers = (start..self.out.len()).filter(|&k| defines(&self.out[k], made));
            let (Some(k), None) = (definers.next(), definers.next()) else {
                continue;
            };
            let m = &self.out[k];
            // A 64-bit copy (of a vector load's element) is two MOVs, each writing its half
            // in place.
            let in_place = matches!(m.kind, MKind::Sass { .. } | MKind::Wide { op: WideOp::Mov, .. });
            if !in_place || m.guard.is_none() || m.keep.is_some() || m.single_def() != Some(made) {
                continue;
            }
            let (keep, inserted) = self.make_before(start, other);
            self.out[k + inserted].keep = Some(keep);
            done.push((mine, made));
        }
        done
    }

    /// The register of `v` (defined before the arm that starts at `start`), with the
    /// instructions that make it (a constant's MOV, a vector element's copy) placed before
    /// the arm; also returns how many were placed.
    fn make_before(&mut self, start: usize, v: Value) -> (VReg, usize) {
        // A register the arm made for `v` is guarded: it must not stand for `v` here.
        if let Some(&r) = self.local.get(&v)
            && self.out[start..].iter().any(|m| defines(m, r))
        {
            self.local.remove(&v);
        }
        let before = self.out.len();
        let r = self.reg(v);
        let made: Vec<MInst> = self.out.drain(before..).collect();
        let n = made.len();
        self.out.splice(start..start, made);
        (r, n)
    }

    /// A new register holding `if cond { yes } else { no }`.
    fn merge(&mut self, cond: Value, yes: Value, no: Value) -> Result<VReg, IselError> {
        if self.func.ty(yes).bits() > 32 {
            let d = self.vcode.new_vreg(VClass::Pair);
            self.select64_into(d, cond, yes, no);
            return Ok(d);
        }
        let d = self.vcode.new_vreg(VClass::Single);
        // SEL takes an immediate only as its second source: a constant goes there, under the
        // opposite condition.
        let (yes, no, flip) = if self.foldable(yes).is_some() && self.foldable(no).is_none() {
            (no, yes, true)
        } else {
            (yes, no, false)
        };
        let p = match self.pred(cond) {
            MOp::Pred(v, neg) => MOp::Pred(v, neg != flip),
            other => other,
        };
        let srcs = [
            (Role::A, Arg::v(yes)),
            (Role::B, Arg::v(no)),
            (Role::PredSrc0, Arg::op(p)),
        ];
        self.emit_sass(Op::Sel, &[(Role::Dst, MOp::Reg(d))], &srcs, &[], None)?;
        Ok(d)
    }

    /// Ends the current block with a jump to `target` (a VCode block).
    pub(super) fn push_jump(&mut self, target: crate::vcode::BlockId) {
        self.push(MInst::new(MKind::Jump(target)));
    }
}

/// Whether `m` defines `v`.
fn defines(m: &MInst, v: VReg) -> bool {
    let mut found = false;
    m.for_each_reg(|r, is_def| found |= is_def && r == v);
    found
}
