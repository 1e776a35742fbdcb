//! Hopper's `mbarrier` operations (sm_90: `mbar_init`, `mbar_arrive` and `mbar_phase_test`
//! of the MIR's Hopper lowering) as ptxas 13.5 writes them (`docs/MBARRIER.md`):
//! * `mbar_arrive` of `hopper_arrive` becomes `SYNCS.ARRIVE.TRANS64.A1T0 Rd, [a], RZ` for one
//!   arrival and `.ART0 Rd, [a], Rcount` for a count, `hopper_drop` the same with `.OPTOUT`,
//!   `hopper_pending` `SYNCS.ARRIVE.TRANS64.RED.A0T1 RZ, [a], RZ`; a state nobody reads is
//!   RZ with `.RED`.
//! * `mbar_phase_test` becomes `SYNCS.PHASECHK.TRANS64 Pd, [a], Rphase`.
//! * `mbar_init` becomes `SYNCS.EXCH.64 URZ, [URZ+k], UR4` with the word in UR4:UR5.

use super::fit::Arg;
use super::{Isel, IselError};
use crate::vcode::MOp;
use ptxc_mir::ir::{AtomInfo, AtomOp, Aux, Inst, Opcode, Value};
use ptxc_sass::isa::values::ArrivalKind;
use ptxc_sass::isa::{Arch, Mod, Op, RZ, Role, URZ, Value as V};

/// Offsets SYNCS's address holds (signed 24 bits).
const SYNCS_OFFSETS: std::ops::Range<i64> = -(1 << 23)..(1 << 23);

/// SYNCS addresses always name a uniform register (URZ when there is none).
fn with_urz(at: MOp) -> MOp {
    match at {
        MOp::Fixed(V::Mem {
            base,
            uniform: None,
            offset,
            scale,
        }) => MOp::Fixed(V::Mem {
            base,
            uniform: Some(URZ),
            offset,
            scale,
        }),
        MOp::Mem {
            base,
            offset,
            uniform: None,
        } => MOp::Mem {
            base,
            offset,
            uniform: Some(URZ),
        },
        other => other,
    }
}

impl Isel<'_> {
    /// The SYNCS address of `addr + offset` in `space`.
    fn syncs_address(&mut self, addr: Value, offset: i64, space: ptxc_mir::ir::Space) -> Result<MOp, IselError> {
        Ok(with_urz(self.mem_operand_within(addr, offset, space, SYNCS_OFFSETS)?))
    }

    /// Selects a Hopper barrier operation.
    pub(super) fn lower_mbarrier(&mut self, inst: Inst) -> Result<(), IselError> {
        if self.vcode.arch < Arch::Sm90 {
            return Err(self.unsupported(format!("Hopper's mbarrier operations on {}", self.vcode.arch)));
        }
        let data = &self.func.insts[inst];
        let (op, args, aux) = (data.op, data.args.clone(), data.aux.clone());
        match (op, aux) {
            (Opcode::MbarArrive, Aux::Atom(info)) => self.syncs_arrive(inst, info, args[1]),
            (Opcode::MbarInit, Aux::Mem(m)) => self.syncs_exch(args[0], m.offset, m.space, args[1]),
            (Opcode::MbarPhaseTest, Aux::Mem(m)) => {
                let at = self.syncs_address(args[0], m.offset, m.space)?;
                let phase = Arg::op(MOp::Reg(self.reg(args[1])));
                let p = MOp::Pred(self.def_reg(self.func.results[inst][0]), false);
                self.emit_sass(
                    Op::SyncsPhasechk,
                    &[(Role::PredDst0, p)],
                    &[(Role::Addr, Arg::op(at)), (Role::B, phase)],
                    &[],
                    None,
                )
            }
            _ => Err(self.unsupported(format!("MIR `{}` without its operands", op.name()))),
        }
    }

    /// `SYNCS.EXCH.64 URZ, [URZ+k], UR4` of `mbar_init`: the word in UR4:UR5 (UMOV of a
    /// constant, else R2UR), the address a shared variable's (a constant offset).
    fn syncs_exch(
        &mut self,
        addr: Value,
        offset: i64,
        space: ptxc_mir::ir::Space,
        word: Value,
    ) -> Result<(), IselError> {
        let offset = match self.mem_operand_within(addr, offset, space, SYNCS_OFFSETS)? {
            MOp::Fixed(V::Mem {
                base: RZ,
                uniform: None,
                offset,
                ..
            }) => offset,
            // The MIR lowering stores a computed address per thread instead (SYNCS.EXCH is
            // the warp's, of one address).
            other => return Err(self.unsupported(format!("`mbar_init` on the computed address {other:?}"))),
        };
        self.uniform_pair(word, 0)?;
        let at = MOp::Fixed(V::Mem {
            base: RZ,
            uniform: Some(URZ),
            offset,
            scale: 0,
        });
        self.emit_sass(
            Op::SyncsExch,
            &[(Role::Dst, MOp::Fixed(V::UReg(URZ)))],
            &[
                (Role::Addr, Arg::op(at)),
                (Role::B, Arg::op(MOp::Fixed(V::UReg(super::FIXED_UR)))),
            ],
            &[],
            None,
        )
    }

    /// `SYNCS.ARRIVE.TRANS64` of `mbar_arrive`: one arrival (a constant count of 1), a count
    /// in a register, `.OPTOUT` for a drop, `.A0T1` for one more pending arrival; transaction
    /// counts in a register, as ptxas 13.5 writes them for sm_90: no kind suffix for
    /// `arrive.expect_tx`, `.RED.A0TR` for `expect_tx`, `.RED.A0TX` for `complete_tx`.
    fn syncs_arrive(&mut self, inst: Inst, info: AtomInfo, count: Value) -> Result<(), IselError> {
        let at = self.syncs_address(self.func.insts[inst].args[0], info.offset, info.space)?;
        let one = self.foldable(count) == Some(V::Imm(1));
        let (kind, b) = match info.op {
            AtomOp::HopperPending => (ArrivalKind::OnePending, MOp::Fixed(V::Reg(RZ))),
            AtomOp::HopperArriveTx => (ArrivalKind::OneExpectTx, MOp::Reg(self.reg(count))),
            AtomOp::HopperExpectTx => (ArrivalKind::ExpectTx, MOp::Reg(self.reg(count))),
            AtomOp::HopperCompleteTx => (ArrivalKind::CompleteTx, MOp::Reg(self.reg(count))),
            _ if one => (ArrivalKind::One, MOp::Fixed(V::Reg(RZ))),
            _ => (ArrivalKind::FromRegister, MOp::Reg(self.reg(count))),
        };
        let result = self.func.results[inst][0];
        let used = self.use_count(result) > 0;
        let d = if used {
            MOp::Reg(self.def_reg(result))
        } else {
            MOp::Fixed(V::Reg(RZ))
        };
        let mods = [
            kind.set(),
            Mod::NoResult.flag(!used),
            Mod::OptOut.flag(info.op == AtomOp::HopperDrop),
        ];
        self.emit_sass(
            Op::SyncsArrive,
            &[(Role::Dst, d)],
            &[(Role::Addr, Arg::op(at)), (Role::B, Arg::op(b))],
            &mods,
            None,
        )
    }
}
