//! `cp.async` (sm_80): asynchronous copies from global to shared memory and their groups.
//! A copy becomes `cp_async` with its addresses (offsets added), `commit_group` becomes
//! `cp_async_commit`, `wait_group n` becomes `cp_async_wait n`, and `wait_all` a commit
//! followed by `cp_async_wait 0` (as ptxas lowers it: LDGDEPBAR, then `DEPBAR.LE SB0, 0x0`).
//! `cp.async.mbarrier.arrive.noinc [bar]` becomes `cp_async_arrive` of the barrier's shared
//! address (a generic address converted); without `.noinc` an atomic add of -1 to the
//! barrier's high word (one more pending arrival, as ptxas's `ATOMS.ADD` of minus the
//! arriving threads) comes first, so that the asynchronous arrival changes the pending count
//! by nothing in the current phase (PTX ISA, `cp.async.mbarrier.arrive`).

use super::LowerError;
use super::context::Lowerer;
use super::memory::Address;
use crate::ir::{AtomInfo, AtomOp, Aux, InstData, Opcode, Space, Type, Value};
use ptxc_frontend::checked::{CacheOp, CheckedInst, CheckedOperand};

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
        if !inst.mods.has_flag("noinc") {
            let minus_one = self.konst(Type::I32, 0xffff_ffff);
            let data = InstData {
                op: Opcode::Atom,
                ty: Type::I32,
                args: smallvec::smallvec![bar, minus_one],
                aux: Aux::Atom(AtomInfo {
                    op: AtomOp::Add,
                    space: Space::Shared,
                    offset: 4,
                }),
            };
            self.func.ins(self.cur, data);
        }
        self.emit_effect(Opcode::CpAsyncArrive, &[bar], Aux::None);
        Ok(())
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

    fn emit_effect(&mut self, op: Opcode, args: &[Value], aux: Aux) {
        self.emit_multi(op, Type::I32, args, aux);
    }
}
