//! Hopper's bulk copies as ptxas 13.5 writes them for sm_90 (`tests/hopper_tma/bulk_copy.ptx`):
//! * `bulk_copy` into shared memory becomes `UBLKCP.S.G [UR4], [UR6], UR8` with the shared
//!   destination in UR4, its mbarrier in UR5, the global source in UR6:UR7 and the size in
//!   16-byte units in UR8; out of shared memory `UBLKCP.G.S [UR4], [UR6], UR8` with the
//!   global destination in UR4:UR5 and the shared source in UR6. The MIR lowering runs each
//!   copy with one thread active, so R2UR reads that thread's registers.
//! * `tma_load` becomes `UTMALDG.<n>D [UR4], [UR12]` with the shared destination in UR4, its
//!   mbarrier in UR5 and the coordinates from UR6 on; `tma_store` becomes `UTMASTG.<n>D
//!   [UR4], [UR12]` with the shared source in UR4 and the coordinates from UR5 on; the tensor
//!   map's generic address is UR12:UR13 (ptxas: `c[0x0][0x198]` plus the parameter's offset).
//! * `bulk_commit` becomes `UTMACMDFLUSH` (read scoreboard
//!   [`COPY_SB`](crate::sched::COPY_SB), as ptxas sets it); `bulk_wait n` becomes
//!   `DEPBAR.LE SB0, n`, followed by `CCTL.IVALL` unless only the reads are waited for
//!   (`.read`), as ptxas writes it.

use super::fit::Arg;
use super::{FIXED_UR, Isel, IselError};
use crate::vcode::MOp;
use ptxc_mir::ir::Value;
use ptxc_mir::lower::{BULK_TO_SHARED, BULK_WAIT_READ};
use ptxc_sass::isa::values::{BulkDirection, TmaDim};
use ptxc_sass::isa::{Arch, Mod, Op, Role, Value as V};

/// Where the tensor map's address goes: UR4 + 8 = UR12, an even pair past the largest block
/// (UR4..UR10: destination, barrier and five coordinates).
const MAP: u8 = 8;

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

    /// `UTMALDG.<n>D` of `tma_load (dst, bar, map, coords...)`.
    pub(super) fn utmaldg(&mut self, args: &[Value], dims: u64) -> Result<(), IselError> {
        self.uniform_word(args[0], 0)?;
        self.uniform_word(args[1], 1)?;
        self.tma(Op::Utmaldg, &args[2..], 2, dims)
    }

    /// `UTMASTG.<n>D` of `tma_store (src, map, coords...)`.
    pub(super) fn utmastg(&mut self, args: &[Value], dims: u64) -> Result<(), IselError> {
        self.uniform_word(args[0], 0)?;
        self.tma(Op::Utmastg, &args[1..], 1, dims)
    }

    /// The rest of a TMA instruction: the map (`rest[0]`) to UR12:UR13, the coordinates to
    /// UR4 + `first` on, and the instruction.
    fn tma(&mut self, op: Op, rest: &[Value], first: u8, dims: u64) -> Result<(), IselError> {
        if self.vcode.arch < Arch::Sm90 {
            return Err(self.unsupported("`cp.async.bulk.tensor` before sm_90"));
        }
        let dim = match dims {
            1 => TmaDim::D1,
            2 => TmaDim::D2,
            3 => TmaDim::D3,
            4 => TmaDim::D4,
            5 => TmaDim::D5,
            n => return Err(self.unsupported(format!("a {n}-dimensional TMA copy"))),
        };
        self.uniform_pair(rest[0], MAP)?;
        for (k, &c) in rest[1..].iter().enumerate() {
            self.uniform_word(c, first + k as u8)?;
        }
        let srcs = [(Role::Addr, Arg::op(ur(0))), (Role::SrcAddr, Arg::op(ur(MAP)))];
        self.emit_sass(op, &[], &srcs, &[dim.set()], None)
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
