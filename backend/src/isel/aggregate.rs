//! Warp-aggregated atomics, as ptxas 13.5 makes them (`docs/CUBIN.md`, section 4): an atomic
//! whose address is the same in every thread of the warp (the divergence analysis,
//! `mir/src/analysis/divergence.rs`) is done once per warp instead of once per thread.
//!
//! - `atom.add` (32-bit integer) of an operand the same in every thread: the active mask
//!   (`VOTEU.ANY`), its highest thread as the leader (`FLO`), one atomic of operand × active
//!   threads by the leader; when the old value is used, the leader's is broadcast
//!   (`SHFL.IDX`) and each thread adds operand × the active threads below it. The results
//!   are those of the threads running one after the other, lowest lane first.
//! - `atom.min` / `atom.max` (32-bit integer) whose old value is unused, whatever the
//!   operand: the warp's minimum or maximum from one `REDUX` (sm_80 on) stored by the leader;
//!   on sm_75, when the whole warp is active (`VOTE.ANY` equal to all ones), a `SHFL.BFLY`
//!   reduction stored by lane 0, else every thread's own atomic.
//!
//! Like ptxas, it leaves alone an atomic that only threads whose `%tid.x` equals a
//! warp-uniform value reach (a block behind `setp.ne %p, %tid.x, x; @%p bra`): at most one
//! thread of a warp runs it in a one-dimensional block (probes in `docs/CUBIN.md`).
//!
//! The warp-wide instructions inserted (`VOTEU`, `VOTE`, `SHFL`, `REDUX`) are marked so
//! (`MInst::warp_wide`) and listed in `EIATTR_INT_WARP_WIDE_INSTR_OFFSETS`, as ptxas lists
//! its own. `ptxc compile --disable warp-aggregation` switches this off.

use super::atomic::AtomSite;
use super::fit::Arg;
use super::{Isel, IselError};
use crate::vcode::{MOp, VClass, VReg};
use ptxc_mir::analysis::dom::DomTree;
use ptxc_mir::ir::{AtomOp, Aux, Block, Cond, Inst, Opcode, Space, SpecialReg, Value, ValueDef};
use ptxc_sass::isa::values::{AtomType, BoolOp, IntCmp, ReduxOp, ShflMode, VoteMode};
use ptxc_sass::isa::{Arch, Mod, Op, Role, Value as V};

/// `SR_LANEID`'s S2R number.
const SR_LANEID: u8 = 0x00;
/// `SR_LTMASK`'s S2R number.
const SR_LTMASK: u8 = 0x39;
/// LOP3 table of `a & b`.
const AND: u32 = 0xc0;
/// The constant-true predicate (`PT`, or `UPT` in a uniform predicate slot).
const PT: MOp = MOp::Fixed(V::Pred { idx: 7, neg: false });

/// The active threads of a warp and their leader, computed once per block.
#[derive(Clone, Copy, Debug)]
pub struct Leader {
    /// The active mask.
    mask: MOp,
    /// The leader's lane.
    lane: MOp,
    /// Whether this thread is the leader.
    is_leader: VReg,
}

/// How an atomic is aggregated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    /// `atom.add` of a warp-uniform operand.
    UniformAdd,
    /// `atom.min` / `atom.max` whose old value is unused.
    MinMax,
}

impl Isel<'_> {
    /// Selects atomic `inst` at `site` aggregated over the warp, if it qualifies; true if done.
    pub(super) fn aggregated(&mut self, inst: Inst, site: &AtomSite) -> Result<bool, IselError> {
        let Some(form) = self.aggregation(inst, site) else {
            return Ok(false);
        };
        let operand = self.func.insts[inst].args[1];
        match form {
            Form::UniformAdd => self.uniform_add(inst, site, operand)?,
            Form::MinMax if self.vcode.arch >= Arch::Sm80 => self.redux_minmax(inst, site, operand)?,
            Form::MinMax => self.shuffled_minmax(site, operand)?,
        }
        Ok(true)
    }

    /// How `inst` at `site` can be aggregated: a 32-bit integer atomic of global, shared or
    /// generic memory at a warp-uniform address.
    fn aggregation(&self, inst: Inst, site: &AtomSite) -> Option<Form> {
        let args = &self.func.insts[inst].args;
        let uniform = |v: Value| !self.divergence.is_divergent(v);
        let word = matches!(site.atype, AtomType::U32 | AtomType::S32);
        let space = matches!(site.space, Space::Global | Space::Shared | Space::Generic);
        if !word || !space || !uniform(args[0]) || self.lone_thread(inst) {
            return None;
        }
        let used = self.use_count(self.func.results[inst][0]) > 0;
        match site.op {
            AtomOp::Add if uniform(args[1]) => Some(Form::UniformAdd),
            AtomOp::MinS | AtomOp::MinU | AtomOp::MaxS | AtomOp::MaxU if !used => Some(Form::MinMax),
            _ => None,
        }
    }

    /// Whether only threads whose `%tid.x` equals a warp-uniform value reach `inst`: its
    /// block is dominated by the arm of a branch on `%tid.x == x` (or `!=`) taken when equal,
    /// an arm with no other way in.
    fn lone_thread(&self, inst: Inst) -> bool {
        let func = self.func;
        let Some(at) = self.block_of(inst) else {
            return false;
        };
        let dom = DomTree::new(func);
        let preds = func.predecessors();
        func.layout.iter().any(|&b| {
            self.equal_arm(b)
                .is_some_and(|arm| preds[arm].len() == 1 && dom.dominates(arm, at))
        })
    }

    /// The block of `inst`.
    fn block_of(&self, inst: Inst) -> Option<Block> {
        let func = self.func;
        func.layout
            .iter()
            .copied()
            .find(|&b| func.blocks[b].insts.contains(&inst))
    }

    /// The successor of `b` its branch takes when a `%tid.x` equals a warp-uniform value, if
    /// `b` ends in such a branch.
    fn equal_arm(&self, b: Block) -> Option<Block> {
        let func = self.func;
        let t = func.terminator(b)?;
        let data = &func.insts[t];
        if data.op != Opcode::Brif {
            return None;
        }
        let ValueDef::Result(cmp, _) = func.values[data.args[0]].def else {
            return None;
        };
        let cmp = &func.insts[cmp];
        let Aux::Cond(cond @ (Cond::Eq | Cond::Ne)) = cmp.aux else {
            return None;
        };
        let tid_x = |v: Value| match func.values[v].def {
            ValueDef::Result(i, _) => {
                func.insts[i].op == Opcode::Special && func.insts[i].aux == Aux::Special(SpecialReg::Tid(0))
            }
            ValueDef::Param(..) => false,
        };
        let (a, c) = (cmp.args[0], cmp.args[1]);
        let against_uniform =
            (tid_x(a) && !self.divergence.is_divergent(c)) || (tid_x(c) && !self.divergence.is_divergent(a));
        if cmp.op != Opcode::Icmp || !against_uniform {
            return None;
        }
        let succs = func.successors(b);
        (succs.len() == 2).then(|| if cond == Cond::Eq { succs[0] } else { succs[1] })
    }

    /// Emits warp-wide instructions the compiler inserts (marked for
    /// `EIATTR_INT_WARP_WIDE_INSTR_OFFSETS`).
    fn warp_wide_sass(
        &mut self,
        op: Op,
        dsts: &[(Role, MOp)],
        srcs: &[(Role, Arg)],
        mods: &[ptxc_sass::isa::ModSet],
        guard: Option<(VReg, bool)>,
    ) -> Result<(), IselError> {
        self.warp_wide = true;
        let done = self.emit_sass(op, dsts, srcs, mods, guard);
        self.warp_wide = false;
        done
    }

    /// A new register with `value` of the lane `lane` selects in `mode` (an inserted
    /// `SHFL` over the whole warp), under `guard`.
    fn warp_shuffle(
        &mut self,
        mode: ShflMode,
        value: MOp,
        lane: Arg,
        guard: Option<(VReg, bool)>,
    ) -> Result<MOp, IselError> {
        let d = MOp::Reg(self.vcode.new_vreg(VClass::Single));
        let srcs = [(Role::A, Arg::op(value)), (Role::B, lane), (Role::C, Arg::imm(0x1f))];
        self.warp_wide_sass(
            Op::Shfl,
            &[(Role::PredDst0, PT), (Role::Dst, d)],
            &srcs,
            &[mode.set()],
            guard,
        )?;
        Ok(d)
    }

    /// `VOTE.ANY dst, PT, PT` or `VOTEU.ANY dst, UPT, PT` (`op`): the threads active here,
    /// inserted by the compiler (listed as warp-wide).
    pub(super) fn vote_any(&mut self, op: Op, dst: MOp) -> Result<(), IselError> {
        self.warp_wide_sass(
            op,
            &[(Role::Dst, dst), (Role::PredDst0, PT)],
            &[(Role::PredSrc0, Arg::op(PT))],
            &[VoteMode::Any.set()],
            None,
        )
    }

    /// The active mask in a register, from `VOTEU.ANY UR4, UPT, PT`.
    fn uniform_active_mask(&mut self) -> Result<MOp, IselError> {
        let ur = MOp::Fixed(V::UReg(super::FIXED_UR));
        self.vote_any(Op::Voteu, ur)?;
        self.emit_temp(Op::Mov, &[(Role::B, Arg::op(ur))], &[])
    }

    /// A special register read into a fresh register.
    fn special(&mut self, sr: u8) -> Result<MOp, IselError> {
        self.emit_temp(Op::S2r, &[(Role::A, Arg::op(MOp::Fixed(V::SReg(sr))))], &[])
    }

    /// A fresh predicate: `a == b` (unsigned), and `also` when given.
    fn equal(&mut self, a: Arg, b: Arg, also: Option<VReg>) -> Result<VReg, IselError> {
        let p = self.vcode.new_vreg(VClass::Pred);
        let with = also.map_or(Arg::pt(false), |q| Arg::op(MOp::Pred(q, false)));
        self.emit_sass(
            Op::Isetp,
            &[(Role::PredDst0, MOp::Pred(p, false)), (Role::PredDst1, PT)],
            &[(Role::A, a), (Role::B, b), (Role::PredSrc0, with)],
            &[IntCmp::Eq.set(), Mod::Signed.flag(false), BoolOp::And.set()],
            None,
        )?;
        Ok(p)
    }

    /// The active mask (`VOTEU.ANY`), its leader (the highest active lane) and whether this
    /// thread is it; computed once per block of `inst` (the active threads do not change
    /// inside a block).
    fn leader(&mut self, inst: Inst) -> Result<Leader, IselError> {
        let block = self.block_of(inst);
        if let Some((b, l)) = self.warp_leader
            && Some(b) == block
        {
            return Ok(l);
        }
        let mask = self.uniform_active_mask()?;
        let lane = self.emit_temp(Op::Flo, &[(Role::B, Arg::op(mask))], &[Mod::Signed.flag(false)])?;
        let own = self.special(SR_LANEID)?;
        let is_leader = self.equal(Arg::op(lane), Arg::op(own), None)?;
        let l = Leader { mask, lane, is_leader };
        self.warp_leader = block.map(|b| (b, l));
        Ok(l)
    }

    /// `atom.add` of a uniform operand: one atomic of operand × active threads by the
    /// leader; a used result is the leader's old value (`SHFL.IDX`) plus operand × the
    /// active threads below this one.
    fn uniform_add(&mut self, inst: Inst, site: &AtomSite, operand: Value) -> Result<(), IselError> {
        let result = self.func.results[inst][0];
        let used = self.use_count(result) > 0;
        let Leader {
            mask,
            lane: leader,
            is_leader,
        } = self.leader(inst)?;
        let count = self.emit_temp(Op::Popc, &[(Role::B, Arg::op(mask))], &[])?;
        let total = if self.is_one(operand) {
            count
        } else {
            let srcs = [
                (Role::A, Arg::op(count)),
                (Role::B, Arg::v(operand)),
                (Role::C, Arg::rz()),
            ];
            self.emit_temp(Op::Imad, &srcs, &[Mod::Signed.flag(true)])?
        };
        if !used {
            return self.emit_atom(site, total, None, None, Some((is_leader, false)));
        }
        let old = MOp::Reg(self.vcode.new_vreg(VClass::Single));
        self.emit_atom(site, total, None, Some(old), Some((is_leader, false)))?;
        let below = self.special(SR_LTMASK)?;
        let below = self.lop3_temp(Arg::op(below), Arg::op(mask), Arg::rz(), AND as u16)?;
        let rank = self.emit_temp(Op::Popc, &[(Role::B, Arg::op(below))], &[])?;
        let base = self.warp_shuffle(ShflMode::Idx, old, Arg::op(leader), None)?;
        let d = MOp::Reg(self.def_reg(result));
        if self.is_one(operand) {
            let srcs = [(Role::A, Arg::op(rank)), (Role::B, Arg::op(base)), (Role::C, Arg::rz())];
            return self.emit_sass(Op::Iadd3, &[(Role::Dst, d)], &srcs, &[], None);
        }
        self.emit_sass(
            Op::Imad,
            &[(Role::Dst, d)],
            &[
                (Role::A, Arg::op(rank)),
                (Role::B, Arg::v(operand)),
                (Role::C, Arg::op(base)),
            ],
            &[Mod::Signed.flag(true)],
            None,
        )
    }

    /// Whether `v` is the constant 1 (a multiplication by it is left out).
    fn is_one(&self, v: Value) -> bool {
        matches!(self.foldable(v), Some(V::Imm(1)))
    }

    /// `atom.min` / `atom.max` with an unused result, sm_80 on: the warp's value from
    /// `REDUX` (into UR4), stored by the leader.
    fn redux_minmax(&mut self, inst: Inst, site: &AtomSite, operand: Value) -> Result<(), IselError> {
        let is_leader = self.leader(inst)?.is_leader;
        let (max, signed) = minmax_of(site.op);
        let ur = MOp::Fixed(V::UReg(super::FIXED_UR));
        let op = if max { ReduxOp::Max } else { ReduxOp::Min };
        self.warp_wide_sass(
            Op::Redux,
            &[(Role::Dst, ur)],
            &[(Role::A, Arg::v(operand))],
            &[op.set(), Mod::Signed.flag(signed)],
            None,
        )?;
        let value = self.emit_temp(Op::Mov, &[(Role::B, Arg::op(ur))], &[])?;
        self.emit_atom(site, value, None, None, Some((is_leader, false)))
    }

    /// `atom.min` / `atom.max` with an unused result, sm_75: with the whole warp active, a
    /// `SHFL.BFLY` reduction stored by lane 0; otherwise each thread's own atomic.
    fn shuffled_minmax(&mut self, site: &AtomSite, operand: Value) -> Result<(), IselError> {
        let mask = MOp::Reg(self.vcode.new_vreg(VClass::Single));
        self.vote_any(Op::Vote, mask)?;
        let whole = self.equal(Arg::op(mask), Arg::imm(u32::MAX), None)?;
        let own = MOp::Reg(self.reg(operand));
        self.emit_atom(site, own, None, None, Some((whole, true)))?;
        let (max, signed) = minmax_of(site.op);
        let mut value = own;
        for step in [1, 2, 4, 8, 16] {
            let other = self.warp_shuffle(ShflMode::Bfly, value, Arg::imm(step), Some((whole, false)))?;
            let next = MOp::Reg(self.vcode.new_vreg(VClass::Single));
            let srcs = [
                (Role::A, Arg::op(value)),
                (Role::B, Arg::op(other)),
                (Role::PredSrc0, Arg::pt(max)),
            ];
            let mods = [self.minmax_type(signed)];
            self.emit_sass(Op::Imnmx, &[(Role::Dst, next)], &srcs, &mods, Some((whole, false)))?;
            value = next;
        }
        let lane = self.special(SR_LANEID)?;
        let first = self.equal(Arg::op(lane), Arg::rz(), Some(whole))?;
        self.emit_atom(site, value, None, None, Some((first, false)))
    }
}

/// Whether a min/max atomic takes the maximum, and whether it compares signed.
fn minmax_of(op: AtomOp) -> (bool, bool) {
    (
        matches!(op, AtomOp::MaxS | AtomOp::MaxU),
        matches!(op, AtomOp::MinS | AtomOp::MaxS),
    )
}
