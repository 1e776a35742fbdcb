//! `cp.async.bulk` (sm_90): bulk copies between global and shared memory and their bulk
//! groups, lowered as ptxas lowers them: each thread that executes the PTX instruction issues
//! its own copy, one at a time (ptxas's ELECT loop around UBLKCP; here `elect` picks the
//! thread, which alone runs the `bulk_copy` block, so that the copy's operands are that
//! thread's and the copy is made once). The size goes in 16-byte units, as UBLKCP takes it.
//! `cp.async.bulk.tensor` (tiled TMA) is lowered the same way to `tma_load` / `tma_store`
//! with the tensor map's generic address (a kernel parameter's is `cvta.param` of it).

use super::LowerError;
use super::context::Lowerer;
use super::memory::Address;
use crate::ir::{Aux, Opcode, Space, Type, Value};
use ptxc_frontend::checked::{CheckedInst, CheckedOperand};

/// `Aux::Imm` bit of `bulk_copy`: from global into shared memory, completing on an mbarrier
/// (else from shared memory to global memory, in the bulk group).
pub const BULK_TO_SHARED: u64 = 1;
/// `Aux::Imm` bit of `bulk_wait`: `.read` (the sources may be reused; the writes may still
/// be under way).
pub const BULK_WAIT_READ: u64 = 1 << 8;

impl Lowerer<'_> {
    /// `cp.async.bulk.*`.
    pub fn lower_cp_async_bulk(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let m = &inst.mods;
        if m.has_flag("tensor") {
            return self.lower_tma(inst);
        }
        if m.has_flag("commit_group") {
            self.emit_effect(Opcode::BulkCommit, &[], Aux::None);
            return Ok(());
        }
        if m.has_flag("wait_group") {
            let n = match self.arg(inst, 0)? {
                ptxc_frontend::checked::CheckedOperand::Int(v) if (0..=63).contains(v) => *v as u64,
                _ => {
                    return Err(LowerError::new(
                        "`cp.async.bulk.wait_group` waits for 0 to 63 pending groups",
                        inst.span,
                    ));
                }
            };
            let read = if m.has_flag("read") { BULK_WAIT_READ } else { 0 };
            self.emit_effect(Opcode::BulkWait, &[], Aux::Imm(n | read));
            return Ok(());
        }
        let to_shared = !m.has_flag("bulk_group");
        let (dst_space, src_space) = if to_shared {
            (Space::Shared, Space::Global)
        } else {
            (Space::Global, Space::Shared)
        };
        let dst = self.bulk_address(inst, 0, dst_space)?;
        let src = self.bulk_address(inst, 1, src_space)?;
        let size = self.operand(self.arg(inst, 2)?, Type::I32, false, inst.span)?;
        let units = match self.func.const_value(size) {
            Some(k) if k % 16 != 0 || k == 0 || k >= 1 << 20 => {
                return Err(LowerError::new(
                    format!("`cp.async.bulk` copies a positive multiple of 16 bytes below 1 MiB, not {k}"),
                    inst.span,
                ));
            }
            Some(k) => self.konst(Type::I32, k >> 4),
            None => {
                let four = self.konst(Type::I32, 4);
                self.emit(Opcode::ShrU, Type::I32, &[size, four], Aux::None)
            }
        };
        let mut args = vec![dst, src, units];
        if to_shared {
            args.push(self.bulk_address(inst, 3, Space::Shared)?);
        }
        let flags = if to_shared { BULK_TO_SHARED } else { 0 };
        self.once_per_thread(|l| l.emit_effect(Opcode::BulkCopy, &args, Aux::Imm(flags)));
        Ok(())
    }

    /// `cp.async.bulk.tensor.<n>d`: a TMA load or store, once per executing thread.
    fn lower_tma(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let m = &inst.mods;
        let dims = ["1d", "2d", "3d", "4d", "5d"]
            .iter()
            .position(|d| m.has_flag(d))
            .map_or(0, |i| i + 1);
        let load = !m.has_flag("bulk_group");
        let (shared_at, tensor_at) = if load { (0, 1) } else { (1, 0) };
        let CheckedOperand::TensorAddress { map, coords } = self.arg(inst, tensor_at)?.clone() else {
            return Err(LowerError::new(
                "expected a tensor map and coordinates `[map, {...}]`",
                inst.span,
            ));
        };
        if coords.len() != dims {
            return Err(LowerError::new(
                format!(
                    "a {dims}-dimensional `cp.async.bulk.tensor` takes {dims} coordinates, not {}",
                    coords.len()
                ),
                inst.span,
            ));
        }
        let map = self.tensor_map_address(&map, inst)?;
        let shared = self.bulk_address(inst, shared_at, Space::Shared)?;
        let mut args = vec![shared];
        if load {
            args.push(self.bulk_address(inst, 2, Space::Shared)?);
        }
        args.push(map);
        for c in &coords {
            args.push(self.operand(c, Type::I32, false, inst.span)?);
        }
        let op = if load { Opcode::TmaLoad } else { Opcode::TmaStore };
        self.once_per_thread(|l| l.emit_effect(op, &args, Aux::Imm(dims as u64)));
        Ok(())
    }

    /// The 64-bit generic address of a tensor map operand: a register holding it, or a
    /// kernel parameter or variable named (`[map, {...}]` with `map` a `.param`, `.const` or
    /// `.global` symbol).
    fn tensor_map_address(&mut self, map: &CheckedOperand, inst: &CheckedInst) -> Result<Value, LowerError> {
        let (value, space, offset) = match self.address_of_operand(map, Space::Generic, inst.span)? {
            Address::Param(off) => (self.konst(Type::I64, u64::from(off)), Space::Param, 0),
            Address::Value(v, space, offset) => (self.coerce(v, Type::I64, false, inst.span)?, space, offset),
        };
        let generic = if space == Space::Generic || space == Space::Global {
            value
        } else {
            self.emit(Opcode::ToGeneric, Type::I64, &[value], Aux::Space(space))
        };
        if offset == 0 {
            return Ok(generic);
        }
        let k = self.konst(Type::I64, offset as u64);
        Ok(self.emit(Opcode::Iadd, Type::I64, &[generic, k], Aux::None))
    }

    /// Address operand `i` in `space` as one value (a shared address is 32 bits, a global one
    /// 64; a generic address of shared memory is converted).
    fn bulk_address(&mut self, inst: &CheckedInst, i: usize, space: Space) -> Result<Value, LowerError> {
        let Address::Value(base, at, offset) = self.address_in(inst, i, space)? else {
            return Err(LowerError::new(
                "`cp.async.bulk` cannot copy kernel parameters",
                inst.span,
            ));
        };
        let ty = if space == Space::Shared { Type::I32 } else { Type::I64 };
        let mut v = if at == Space::Generic && space == Space::Shared {
            let wide = self.coerce(base, Type::I64, false, inst.span)?;
            let shared = self.emit(Opcode::FromGeneric, Type::I64, &[wide], Aux::Space(Space::Shared));
            self.coerce(shared, ty, false, inst.span)?
        } else {
            self.coerce(base, ty, false, inst.span)?
        };
        if offset != 0 {
            let k = self.konst(ty, offset as u64 & ty.mask());
            v = self.emit(Opcode::Iadd, ty, &[v, k], Aux::None);
        }
        Ok(v)
    }

    /// Runs `body` once for each active thread, that thread alone (an `elect` loop): the
    /// threads leave the loop one by one, each after its own pass. The election is among the
    /// threads still in the loop (a full member mask: ELECT's `PT`).
    pub(super) fn once_per_thread(&mut self, body: impl FnOnce(&mut Self)) {
        let pick = |l: &mut Self| {
            let all = l.konst(Type::I32, u64::from(u32::MAX));
            (l.emit_multi(Opcode::Elect, Type::I32, &[all], Aux::None)[1], ())
        };
        self.in_turns(pick, |l, ()| body(l));
    }
}
