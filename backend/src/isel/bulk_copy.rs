//! Hopper's bulk copies as ptxas 13.5 writes them for sm_90 (`tests/hopper_tma/bulk_copy.ptx`):
//! * `bulk_copy` into shared memory becomes `UBLKCP.S.G [UR4], [UR6], UR8` with the shared
//!   destination in UR4, its mbarrier in UR5, the global source in UR6:UR7 and the size in
//!   16-byte units in UR8; out of shared memory `UBLKCP.G.S [UR4], [UR6], UR8` with the
//!   global destination in UR4:UR5 and the shared source in UR6. The MIR lowering runs each
//!   copy with one thread active, so R2UR reads that thread's registers.
//! * `bulk_commit` becomes `UTMACMDFLUSH` (read scoreboard
//!   [`COPY_SB`](crate::sched::COPY_SB), as ptxas sets it); `bulk_wait n` becomes
//!   `DEPBAR.LE SB0, n`, followed by `CCTL.IVALL` unless only the reads are waited for
//!   (`.read`), as ptxas writes it.

use super::fit::Arg;
use super::{FIXED_UR, Isel, IselError};
use crate::vcode::MOp;
use ptxc_mir::ir::Value;
use ptxc_mir::lower::{BULK_TO_SHARED, BULK_WAIT_READ};
use ptxc_sass::isa::values::BulkDirection;
use ptxc_sass::isa::{Arch, Mod, Op, Role, Value as V};

/// Uniform register UR4 + k of the copy's operand blocks.
fn ur(k: u8) -> MOp {
    MOp::Fixed(V::UReg(FIXED_UR + k))
}

impl Isel<'_> {
    /// `UBLKCP` of `bulk_copy (dst, src, units[, bar])`.
    pub(super) fn ublkcp(&mut self, args: &[Value], flags: u64) -> Result<(), IselError> {
        if self.vcode.arch < Arch::Sm90 {
            return Err(self.unsupported("`cp.async.bulk` before sm_90"));
        }
        let to_shared = flags & BULK_TO_SHARED != 0;
        let direction = if to_shared {
            self.uniform_word(args[0], 0)?;
            self.uniform_word(args[3], 1)?;
            self.uniform_pair(args[1], 2)?;
            BulkDirection::SharedFromGlobal
        } else {
            self.uniform_pair(args[0], 0)?;
            self.uniform_word(args[1], 2)?;
            BulkDirection::GlobalFromShared
        };
        self.uniform_word(args[2], 4)?;
        let srcs = [
            (Role::Addr, Arg::op(ur(0))),
            (Role::SrcAddr, Arg::op(ur(2))),
            (Role::B, Arg::op(ur(4))),
        ];
        self.emit_sass(Op::Ublkcp, &[], &srcs, &[direction.set()], None)
    }

    /// `UTMACMDFLUSH` of `bulk_commit`.
    pub(super) fn utmacmdflush(&mut self) -> Result<(), IselError> {
        self.emit_sass(Op::Utmacmdflush, &[], &[], &[], None)
    }

    /// `DEPBAR.LE SB0, n` of `bulk_wait`, and `CCTL.IVALL` unless `.read`.
    pub(super) fn bulk_wait(&mut self, imm: u64) -> Result<(), IselError> {
        let srcs = [
            (Role::A, Arg::imm(u32::from(crate::sched::COPY_SB))),
            (Role::B, Arg::imm((imm & 0xff) as u32)),
        ];
        self.emit_sass(Op::Depbar, &[], &srcs, &[Mod::DepbarLe.flag(true)], None)?;
        if imm & BULK_WAIT_READ == 0 {
            // The address-less CCTL form, `.IVALL` by default.
            self.emit_sass(Op::Cctl, &[], &[], &[], None)?;
        }
        Ok(())
    }

    /// A 32-bit `value` in UR4 + k: UMOV of a constant, ULDC of a constant-bank word, else
    /// R2UR.
    pub(super) fn uniform_word(&mut self, value: Value, k: u8) -> Result<(), IselError> {
        let dst = [(Role::Dst, ur(k))];
        match self.foldable(value) {
            Some(V::Imm(bits)) => self.emit_sass(Op::Umov, &dst, &[(Role::B, Arg::imm(bits as u32))], &[], None),
            Some(bank @ V::CBank { .. }) => {
                self.emit_sass(Op::Uldc, &dst, &[(Role::B, Arg::op(MOp::Fixed(bank)))], &[], None)
            }
            _ => {
                let r = self.reg(value);
                self.emit_sass(Op::R2ur, &dst, &[(Role::A, Arg::op(MOp::Reg(r)))], &[], None)
            }
        }
    }
}
