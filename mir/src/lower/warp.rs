//! Warp and CTA collectives and synchronisation: shfl.sync, vote.sync, match.sync,
//! activemask, ldmatrix, movmatrix, bar/barrier, membar/fence, nanosleep, trap; and the instructions
//! that lower to nothing (pmevent, brkpt, `bar.warp.sync`).

use super::LowerError;
use super::context::Lowerer;
use crate::ir::{Aux, InstData, Opcode, Space, Type, Value};
use ptxc_frontend::ast::StateSpace;
use ptxc_frontend::checked::{BoolOp, CheckedInst, CheckedOperand, MemOrder, MemScope, ShflMode, VoteMode};

impl Lowerer<'_> {
    /// Appends a multi-result instruction; returns its results.
    pub(super) fn emit_multi(&mut self, op: Opcode, ty: Type, args: &[Value], aux: Aux) -> Vec<Value> {
        let data = InstData {
            op,
            ty,
            args: args.into(),
            aux,
        };
        let i = self.func.ins(self.cur, data);
        self.func.results[i].to_vec()
    }

    /// Writes the `d|p` destinations of shfl and match.
    fn write_pair(&mut self, inst: &CheckedInst, v: Value, p: Option<Value>) -> Result<(), LowerError> {
        match self.arg(inst, 0)?.clone() {
            CheckedOperand::PredPair(d, q) => {
                if let Some(d) = self.dst_of(&d) {
                    self.write_reg(d, v, false, inst.span)?;
                }
                if let (Some(q), Some(p)) = (self.dst_of(&q), p) {
                    self.write_reg(q, p, false, inst.span)?;
                }
                Ok(())
            }
            other => {
                let d = self
                    .dst_of(&other)
                    .ok_or_else(|| LowerError::new("expected a destination", inst.span))?;
                self.write_reg(d, v, false, inst.span)
            }
        }
    }

    /// `shfl.sync.mode.b32 d[|p], a, b, c, membermask`.
    pub fn lower_shfl(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let mut args = Vec::new();
        for i in 1..5 {
            args.push(self.operand(self.arg(inst, i)?, Type::I32, false, inst.span)?);
        }
        let mode = match inst.mods.shfl_mode {
            Some(ShflMode::Up) => 0,
            Some(ShflMode::Down) => 1,
            Some(ShflMode::Bfly) => 2,
            _ => 3,
        };
        let r = self.emit_multi(Opcode::Shfl, Type::I32, &args, Aux::Imm(mode));
        self.write_pair(inst, r[0], Some(r[1]))
    }

    /// `vote.sync.mode.type d, {!}a, membermask`.
    pub fn lower_vote(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let d = self.dst(inst, 0)?;
        let a = self.operand(self.arg(inst, 1)?, Type::Pred, false, inst.span)?;
        let mask = self.operand(self.arg(inst, 2)?, Type::I32, false, inst.span)?;
        let (op, ty) = match inst.mods.vote_mode {
            Some(VoteMode::All) => (Opcode::VoteAll, Type::Pred),
            Some(VoteMode::Any) => (Opcode::VoteAny, Type::Pred),
            Some(VoteMode::Uni) => (Opcode::VoteUni, Type::Pred),
            _ => (Opcode::VoteBallot, Type::I32),
        };
        let v = self.emit_typed(op, Type::Pred, &[a, mask], Aux::None, ty);
        self.write_reg(d, v, false, inst.span)
    }

    /// `match.{any,all}.sync.type d[|p], a, membermask`.
    pub fn lower_match(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let (ty, _) = self.inst_type(inst)?;
        let a = self.operand(self.arg(inst, 1)?, ty, false, inst.span)?;
        let mask = self.operand(self.arg(inst, 2)?, Type::I32, false, inst.span)?;
        if inst.mods.vote_mode == Some(VoteMode::All) {
            let r = self.emit_multi(Opcode::MatchAll, ty, &[a, mask], Aux::None);
            self.write_pair(inst, r[0], Some(r[1]))
        } else {
            let r = self.emit_typed(Opcode::MatchAny, ty, &[a, mask], Aux::None, Type::I32);
            self.write_pair(inst, r, None)
        }
    }

    /// `setmaxnreg.{inc|dec}.sync.aligned.u32 n`: the count must be a multiple of 8 in 24..=256
    /// (the PTX ISA). ptxc allocates one register count for the whole kernel, so the
    /// instruction changes nothing; it is recorded for the back end's warning (ptxas also
    /// ignores it, with a warning, when it cannot tell the count at the kernel's entry).
    pub fn lower_setmaxnreg(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let n = match self.arg(inst, 0)? {
            ptxc_frontend::checked::CheckedOperand::Int(n) if (24..=256).contains(n) && n % 8 == 0 => *n as u32,
            _ => {
                return Err(LowerError::new(
                    "`setmaxnreg` takes a register count that is a multiple of 8 from 24 to 256",
                    inst.span,
                ));
            }
        };
        self.func.setmaxnreg.push(n);
        Ok(())
    }

    /// `elect.sync d|p, membermask`.
    pub fn lower_elect(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let mask = self.operand(self.arg(inst, 1)?, Type::I32, false, inst.span)?;
        let r = self.emit_multi(Opcode::Elect, Type::I32, &[mask], Aux::None);
        self.write_pair(inst, r[0], Some(r[1]))
    }

    /// `redux.sync.op.type d, a, membermask`.
    pub fn lower_redux(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        use crate::ir::redux::{ReduxFlags, ReduxKind};
        use ptxc_frontend::checked::AtomOp;
        let d = self.dst(inst, 0)?;
        let a = self.operand(self.arg(inst, 1)?, Type::I32, false, inst.span)?;
        let mask = self.operand(self.arg(inst, 2)?, Type::I32, false, inst.span)?;
        let kind = match inst.mods.atom_op {
            Some(AtomOp::Min) => ReduxKind::Min,
            Some(AtomOp::Max) => ReduxKind::Max,
            Some(AtomOp::And) => ReduxKind::And,
            Some(AtomOp::Or) => ReduxKind::Or,
            Some(AtomOp::Xor) => ReduxKind::Xor,
            _ => ReduxKind::Add,
        };
        let flags = ReduxFlags {
            kind,
            signed: inst.mods.ty() == Some(ptxc_frontend::ast::ScalarType::S32),
        };
        let v = self.emit_typed(Opcode::Redux, Type::I32, &[a, mask], Aux::Imm(flags.bits()), Type::I32);
        self.write_reg(d, v, false, inst.span)
    }

    /// `activemask.b32 d`.
    pub fn lower_activemask(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let d = self.dst(inst, 0)?;
        let v = self.emit_typed(Opcode::Activemask, Type::I32, &[], Aux::None, Type::I32);
        self.write_reg(d, v, false, inst.span)
    }

    /// `movmatrix.sync.aligned.m8n8.trans.b16 d, a`.
    pub fn lower_movmatrix(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let d = self.dst(inst, 0)?;
        let a = self.operand(self.arg(inst, 1)?, Type::I32, false, inst.span)?;
        let v = self.emit(Opcode::Movmatrix, Type::I32, &[a], Aux::None);
        self.write_reg(d, v, false, inst.span)
    }

    /// `ldmatrix.sync.aligned.m8n8.xN[.trans][.shared].b16 {d...}, [addr]`.
    pub fn lower_ldmatrix(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let (count, trans) = matrix_shape(inst);
        let dsts = self.vector_regs(inst, 0)?;
        let addr = self.matrix_address(inst, 1)?;
        let r = self.emit_multi(Opcode::Ldmatrix, Type::I32, &[addr], Aux::Imm(count | trans << 4));
        for (d, v) in dsts.into_iter().zip(r) {
            if let Some(d) = d {
                self.write_reg(d, v, false, inst.span)?;
            }
        }
        Ok(())
    }

    /// The shared-memory address of operand `i` of `ldmatrix` or `stmatrix` (a generic one
    /// converted to shared).
    pub(super) fn matrix_address(&mut self, inst: &CheckedInst, i: usize) -> Result<crate::ir::Value, LowerError> {
        let CheckedOperand::Address { base, offset } = self.arg(inst, i)?.clone() else {
            return Err(LowerError::new("a matrix load or store needs an address", inst.span));
        };
        let base = match base {
            ptxc_frontend::checked::AddrBase::Reg(r) => self.read_raw(r),
            ptxc_frontend::checked::AddrBase::Var(v) => self.var_address(v, Type::I64, 0, inst.span)?,
            ptxc_frontend::checked::AddrBase::Absolute => self.konst(Type::I64, 0),
        };
        let ty = self.func.ty(base);
        let k = self.konst(ty, offset as u64);
        let addr = self.emit(Opcode::Iadd, ty, &[base, k], Aux::None);
        Ok(if inst.mods.space != Some(StateSpace::Shared) {
            self.emit(Opcode::FromGeneric, ty, &[addr], Aux::Space(Space::Shared))
        } else {
            addr
        })
    }

    /// `bar`/`barrier` `.sync`, `.arrive` and `.red`; `bar.warp.sync` needs nothing here.
    pub fn lower_bar(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        if inst.mods.has_flag("warp") {
            return Ok(());
        }
        if inst.mods.has_flag("cluster") {
            return self.lower_cluster_barrier(inst);
        }
        let red = inst.mods.has_flag("red");
        let first = if red { 1 } else { 0 };
        let id = self.operand(self.arg(inst, first)?, Type::I32, false, inst.span)?;
        let mut args = vec![id];
        let n = inst.operands.len();
        let has_count = if red { n == 4 } else { n == 2 };
        if red {
            let p = self.operand(self.arg(inst, n - 1)?, Type::Pred, false, inst.span)?;
            args.push(p);
        }
        if has_count {
            args.push(self.operand(self.arg(inst, first + 1)?, Type::I32, false, inst.span)?);
        }
        if !red {
            let op = if inst.mods.has_flag("arrive") {
                Opcode::BarArrive
            } else {
                Opcode::BarSync
            };
            self.emit_multi(op, Type::I32, &args, Aux::None);
            return Ok(());
        }
        let (op, ty) = match inst.mods.bool_op {
            Some(BoolOp::Popc) => (Opcode::BarRedPopc, Type::I32),
            Some(BoolOp::And) => (Opcode::BarRedAnd, Type::Pred),
            _ => (Opcode::BarRedOr, Type::Pred),
        };
        let r = self.emit_multi(op, ty, &args, Aux::None);
        let d = self.dst(inst, 0)?;
        self.write_reg(d, r[0], false, inst.span)
    }

    /// `membar.scope` and `fence.*`: `fence.proxy.async` (`.shared::cluster` as without a
    /// space, as ptxas 13.5 writes it), a fence at CTA, cluster, GPU or system scope (at
    /// cluster scope `MEMBAR.ALL` unless `.sc`), and `fence.mbarrier_init.release.cluster`,
    /// which ptxas compiles to nothing.
    pub fn lower_fence(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        if inst.mods.has_flag("proxy") {
            // 0 shared::cta, 1 global, 2 every state space.
            let global = if inst.mods.has_flag("global") {
                1
            } else if inst.mods.has_flag("shared::cta") || inst.mods.has_flag("shared") {
                0
            } else {
                2
            };
            self.emit_multi(Opcode::FenceProxyAsync, Type::I32, &[], Aux::Imm(global));
            return Ok(());
        }
        if inst.mods.has_flag("mbarrier_init") {
            return Ok(());
        }
        let scope = match inst.mods.scope {
            Some(MemScope::Cta) => 0,
            Some(MemScope::Sys) => 2,
            Some(MemScope::Cluster) if inst.mods.order == Some(MemOrder::Sc) => super::FENCE_CLUSTER,
            Some(MemScope::Cluster) => super::FENCE_CLUSTER | super::FENCE_ALL,
            _ if inst.mods.has_flag("sys") => 2,
            _ => 1,
        };
        self.emit_multi(Opcode::Fence, Type::I32, &[], Aux::Imm(scope));
        Ok(())
    }

    /// `nanosleep.u32 t`.
    pub fn lower_nanosleep(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let t = self.operand(self.arg(inst, 0)?, Type::I32, false, inst.span)?;
        self.emit_multi(Opcode::Nanosleep, Type::I32, &[t], Aux::None);
        Ok(())
    }

    /// `trap`: ends the block; what follows it lands in an unreachable block.
    pub fn lower_trap(&mut self, _inst: &CheckedInst) -> Result<(), LowerError> {
        self.emit_multi(Opcode::Trap, Type::I32, &[], Aux::None);
        let next = self.func.add_block();
        self.ssa.seal(&mut self.func, next);
        self.cur = next;
        Ok(())
    }

    /// Instructions without an effect on the results (pmevent, brkpt).
    pub fn lower_nothing(&mut self, _inst: &CheckedInst) -> Result<(), LowerError> {
        Ok(())
    }
}

/// The matrix count (`.x1`, `.x2`, `.x4`) and transposition (`.trans`) of `ldmatrix` or
/// `stmatrix`.
pub(super) fn matrix_shape(inst: &CheckedInst) -> (u64, u64) {
    let count = [("x1", 1u64), ("x2", 2), ("x4", 4)]
        .iter()
        .find(|(f, _)| inst.mods.has_flag(f))
        .map_or(1, |(_, n)| *n);
    (count, inst.mods.has_flag("trans") as u64)
}
