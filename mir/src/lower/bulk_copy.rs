//! `cp.async.bulk` (sm_90): bulk copies between global and shared memory and their bulk
//! groups, lowered as ptxas lowers them: each thread that executes the PTX instruction issues
//! its own copy, one at a time (ptxas's ELECT loop around UBLKCP; here `elect` picks the
//! thread, which alone runs the `bulk_copy` block, so that the copy's operands are that
//! thread's and the copy is made once). The size goes in 16-byte units, as UBLKCP takes it.

use super::LowerError;
use super::context::Lowerer;
use super::memory::Address;
use crate::ir::{Aux, Opcode, Space, Type, Value};
use ptxc_frontend::checked::CheckedInst;

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
    /// threads leave the loop one by one, each after its own pass.
    pub(super) fn once_per_thread(&mut self, body: impl FnOnce(&mut Self)) {
        let (head, alone, join, cont) = (
            self.func.add_block(),
            self.func.add_block(),
            self.func.add_block(),
            self.func.add_block(),
        );
        self.jump(head);
        self.cur = head;
        let all = self.konst(Type::I32, u64::from(u32::MAX));
        let mask = self.emit_typed(Opcode::Activemask, Type::I32, &[], Aux::None, Type::I32);
        let mask = self.emit(Opcode::And, Type::I32, &[mask, all], Aux::None);
        let elected = self.emit_multi(Opcode::Elect, Type::I32, &[mask], Aux::None);
        let mine = elected[1];
        self.brif(mine, alone, join);
        self.ssa.seal(&mut self.func, alone);
        self.cur = alone;
        body(self);
        self.jump(join);
        self.ssa.seal(&mut self.func, join);
        self.cur = join;
        self.brif(mine, cont, head);
        self.ssa.seal(&mut self.func, head);
        self.ssa.seal(&mut self.func, cont);
        self.cur = cont;
    }
}
