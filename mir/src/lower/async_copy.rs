//! `cp.async` (sm_80): asynchronous copies from global to shared memory and their groups.
//! A copy becomes `cp_async` with its addresses (offsets added), `commit_group` becomes
//! `cp_async_commit`, `wait_group n` becomes `cp_async_wait n`, and `wait_all` a commit
//! followed by `cp_async_wait 0` (as ptxas lowers it: LDGDEPBAR, then `DEPBAR.LE SB0, 0x0`).
//! `cp.async.mbarrier.arrive.noinc [bar]` becomes `cp_async_arrive` of the barrier's shared
//! address (a generic address converted); without `.noinc` an atomic add of -1 to the
//! barrier's high word (one more pending arrival, as ptxas's `ATOMS.ADD` of minus the
//! arriving threads) comes first, so that the asynchronous arrival changes the pending count
//! by nothing in the current phase (PTX ISA, `cp.async.mbarrier.arrive`). A barrier address
//! that is not a shared variable's (plus a constant) is served one distinct address at a
//! time by a loop, so that every `cp_async_arrive` names one address for all the threads
//! executing it (ptxas's `R2UR` loop; the back end moves the address to a uniform register).

use super::LowerError;
use super::context::Lowerer;
use super::memory::Address;
use crate::ir::{AtomInfo, AtomOp, Aux, Cond, InstData, Opcode, Space, Type, Value};
use ptxc_frontend::ast::Span;
use ptxc_frontend::checked::{CacheOp, CheckedInst, CheckedOperand};

/// `Aux::Imm` bit of `cp_async_arrive`: the barrier has Hopper's layout (ARRIVES.ARVCNT).
pub const CP_ASYNC_ARRIVE_HOPPER: u64 = 1;
/// `Aux::Imm` bit of `cp_async_arrive` (with [`CP_ASYNC_ARRIVE_HOPPER`]): a Hopper
/// `mbar_arrive` announced the arrival as pending (ARRIVES.TRANSCNT).
pub const CP_ASYNC_ARRIVE_ANNOUNCED: u64 = 2;
/// `Aux::Imm` bit of `cp_async`: the copy bypasses L1 (`.cg`).
pub const CP_ASYNC_CG: u64 = 1 << 8;
/// `Aux::Imm` shift of `cp_async`'s L2 prefetch size (1 64 B, 2 128 B, 3 256 B).
pub const CP_ASYNC_L2_SHIFT: u32 = 9;
/// `Aux::Imm` bit of `cp_async`: the last argument is a 64-bit L2 cache policy
/// (`.L2::cache_hint`).
pub const CP_ASYNC_POLICY: u64 = 1 << 11;

impl Lowerer<'_> {
    /// `cp.async.*`.
    pub fn lower_cp_async(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let m = &inst.mods;
        if m.has_flag("bulk") {
            return self.lower_cp_async_bulk(inst);
        }
        if m.has_flag("commit_group") {
            self.emit_effect(Opcode::CpAsyncCommit, &[], Aux::None);
            return Ok(());
        }
        if m.has_flag("wait_all") {
            self.emit_effect(Opcode::CpAsyncCommit, &[], Aux::None);
            self.emit_effect(Opcode::CpAsyncWait, &[], Aux::Imm(0));
            return Ok(());
        }
        if m.has_flag("mbarrier") {
            return self.lower_copy_arrive(inst);
        }
        if m.has_flag("wait_group") {
            let n = self.int_arg(inst, 0)?;
            if !(0..=63).contains(&n) {
                return Err(LowerError::new(
                    format!("`cp.async.wait_group` waits for 0 to 63 pending groups, not {n}"),
                    inst.span,
                ));
            }
            self.emit_effect(Opcode::CpAsyncWait, &[], Aux::Imm(n as u64));
            return Ok(());
        }
        self.lower_copy(inst)
    }

    fn lower_copy(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        if inst.operands.len() < 3 {
            return Err(LowerError::new(
                "`cp.async` copies `[dst], [src], cp-size` (and an optional src-size)",
                inst.span,
            ));
        }
        let size = self.int_arg(inst, 2)?;
        let cg = inst.mods.cache == Some(CacheOp::Cg);
        let ok = if cg { size == 16 } else { matches!(size, 4 | 8 | 16) };
        if !ok {
            let want = if cg { "16" } else { "4, 8 or 16" };
            return Err(LowerError::new(
                format!(
                    "`cp.async.{}` copies {want} bytes, not {size}",
                    if cg { "cg" } else { "ca" }
                ),
                inst.span,
            ));
        }
        let to = self.copy_address(inst, 0, Space::Shared)?;
        let from = self.copy_address(inst, 1, Space::Global)?;
        let mut args = vec![to, from];
        let policy = inst.mods.has_flag("L2::cache_hint");
        if inst.operands.len() == 4 + usize::from(policy) {
            args.push(self.operand(self.arg(inst, 3)?, Type::I32, false, inst.span)?);
        }
        args.extend(self.policy(inst, inst.operands.len() - 1)?);
        let l2 = [("L2::64B", 1u64), ("L2::128B", 2), ("L2::256B", 3)]
            .iter()
            .find(|(f, _)| inst.mods.has_flag(f))
            .map_or(0, |&(_, v)| v);
        let imm = size as u64
            | if cg { CP_ASYNC_CG } else { 0 }
            | l2 << CP_ASYNC_L2_SHIFT
            | if policy { CP_ASYNC_POLICY } else { 0 };
        self.emit_effect(Opcode::CpAsync, &args, Aux::Imm(imm));
        Ok(())
    }

    /// `cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [bar]`.
    fn lower_copy_arrive(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let written = if inst.mods.has_flag("shared") || inst.mods.has_flag("shared::cta") {
            Space::Shared
        } else {
            Space::Generic
        };
        let Address::Value(base, space, offset) = self.address_in(inst, 0, written)? else {
            return Err(LowerError::new(
                "`cp.async.mbarrier.arrive` arrives on a barrier in shared memory, not a parameter",
                inst.span,
            ));
        };
        let base = match space {
            Space::Shared => base,
            Space::Generic => self.emit(Opcode::FromGeneric, Type::I64, &[base], Aux::Space(Space::Shared)),
            other => {
                return Err(LowerError::new(
                    format!(
                        "`cp.async.mbarrier.arrive` arrives on a barrier in shared memory, not in `.{}`",
                        other.name()
                    ),
                    inst.span,
                ));
            }
        };
        let ty = self.func.ty(base);
        let bar = if offset == 0 {
            base
        } else {
            let k = self.konst(ty, offset as u64 & ty.mask());
            self.emit(Opcode::Iadd, ty, &[base, k], Aux::None)
        };
        let hopper = self.options.hopper_mbarrier;
        let noinc = inst.mods.has_flag("noinc");
        let arrive_flags = match (hopper, noinc) {
            (false, _) => Aux::Imm(0),
            (true, true) => Aux::Imm(CP_ASYNC_ARRIVE_HOPPER),
            (true, false) => Aux::Imm(CP_ASYNC_ARRIVE_HOPPER | CP_ASYNC_ARRIVE_ANNOUNCED),
        };
        if hopper && !noinc {
            // One more pending arrival, which the asynchronous one then makes (SYNCS.ARRIVE
            // .A0T1, then ARRIVES.TRANSCNT).
            let unused = self.konst(Type::I32, 0);
            self.hopper_op(bar, Space::Shared, 0, AtomOp::HopperPending, unused);
        } else if !noinc {
            let minus_one = self.konst(Type::I32, 0xffff_ffff);
            let data = InstData {
                op: Opcode::Atom,
                ty: Type::I32,
                args: smallvec::smallvec![bar, minus_one],
                aux: Aux::Atom(AtomInfo {
                    op: AtomOp::Add,
                    space: Space::Shared,
                    offset: 4,
                    red: false,
                }),
            };
            self.func.ins(self.cur, data);
        }
        if self.is_symbol_address(bar) {
            self.emit_effect(Opcode::CpAsyncArrive, &[bar], arrive_flags);
        } else {
            self.arrive_per_distinct_address(bar, arrive_flags, inst.span)?;
        }
        Ok(())
    }

    /// Whether `v` is a shared variable's address, possibly plus a constant (what the back end
    /// folds into `[URZ+k]`).
    pub(super) fn is_symbol_address(&self, v: Value) -> bool {
        let Some(def) = self.func.def_inst(v) else { return false };
        let data = &self.func.insts[def];
        match data.op {
            Opcode::Addr | Opcode::Const => true,
            Opcode::Iadd => data.args.iter().all(|&a| self.is_symbol_address(a)),
            _ => false,
        }
    }

    /// `cp_async_arrive` of a barrier address held in a register, one distinct address at a
    /// time, as ptxas does (its `R2UR` loop): the arrival names one address for all the
    /// threads that execute it. Each pass takes the least address of the threads still
    /// waiting (`redux.sync.min` over `activemask`); those holding it arrive (in a block of
    /// its own, which the threads leave before the loop's branch) and leave the loop.
    fn arrive_per_distinct_address(&mut self, bar: Value, flags: Aux, span: Span) -> Result<(), LowerError> {
        use crate::ir::redux::{ReduxFlags, ReduxKind};
        let bar = self.coerce(bar, Type::I32, false, span)?;
        let pick = |l: &mut Self| {
            let waiting = l.emit_typed(Opcode::Activemask, Type::I32, &[], Aux::None, Type::I32);
            let least = ReduxFlags {
                kind: ReduxKind::Min,
                signed: false,
            };
            let lead = l.emit_typed(
                Opcode::Redux,
                Type::I32,
                &[bar, waiting],
                Aux::Imm(least.bits()),
                Type::I32,
            );
            let mine = l.emit_typed(Opcode::Icmp, Type::I32, &[bar, lead], Aux::Cond(Cond::Eq), Type::Pred);
            (mine, lead)
        };
        self.in_turns(pick, |l, lead| l.emit_effect(Opcode::CpAsyncArrive, &[lead], flags));
        Ok(())
    }

    /// A loop that serves the threads in turns: each pass, `pick` (in the loop head) chooses
    /// some of the threads still in the loop (its predicate) and a value for them; `body` runs
    /// with only those threads, which then leave the loop while the rest go round again.
    pub(super) fn in_turns<T>(&mut self, pick: impl FnOnce(&mut Self) -> (Value, T), body: impl FnOnce(&mut Self, T)) {
        let (head, turn, join, cont) = (
            self.func.add_block(),
            self.func.add_block(),
            self.func.add_block(),
            self.func.add_block(),
        );
        self.jump(head);
        self.cur = head;
        let (mine, chosen) = pick(self);
        self.brif(mine, turn, join);
        self.ssa.seal(&mut self.func, turn);
        self.cur = turn;
        body(self, chosen);
        self.jump(join);
        self.ssa.seal(&mut self.func, join);
        self.cur = join;
        self.brif(mine, cont, head);
        self.ssa.seal(&mut self.func, head);
        self.ssa.seal(&mut self.func, cont);
        self.cur = cont;
    }

    /// The integer constant operand `i`.
    fn int_arg(&self, inst: &CheckedInst, i: usize) -> Result<i64, LowerError> {
        match self.arg(inst, i)? {
            CheckedOperand::Int(v) => Ok(*v),
            _ => Err(LowerError::new("expected an integer constant", inst.span)),
        }
    }

    /// Address operand `i` in `space`, its offset added.
    fn copy_address(&mut self, inst: &CheckedInst, i: usize, space: Space) -> Result<Value, LowerError> {
        let Address::Value(base, _, offset) = self.address_in(inst, i, space)? else {
            return Err(LowerError::new("`cp.async` cannot copy kernel parameters", inst.span));
        };
        if offset == 0 {
            return Ok(base);
        }
        let ty = self.func.ty(base);
        let k = self.konst(ty, offset as u64 & ty.mask());
        Ok(self.emit(Opcode::Iadd, ty, &[base, k], Aux::None))
    }

    pub(super) fn emit_effect(&mut self, op: Opcode, args: &[Value], aux: Aux) {
        self.emit_multi(op, Type::I32, args, aux);
    }
}
