//! The forward-progress latch of sm_75 spin loops (`ptxc_mir::analysis::spin_loops`), as
//! ptxas makes it: the back edge of such a loop goes through a block that takes the active
//! mask, yields, and goes round again while threads have arrived that were not active
//! before, so the threads of a split warp that wait on one another all get to run:
//!
//! ```text
//! retry: VOTE.ANY R, PT, PT            // the threads here now (listed as warp-wide)
//!        YIELD
//!        VOTEU.ANY UR4, UPT, PT        // the threads here after yielding (listed)
//!        LOP3.LUT P, RZ, R, UR4, RZ, 0xc, !PT   // some arrived that were not here
//!   @!P  BRA.U header
//!        BRA retry
//! ```

use super::fit::Arg;
use super::{FIXED_UR, Isel, IselError};
use crate::vcode::{BlockId, MInst, MKind, MOp, VClass};
use ptxc_sass::isa::{Op, Role, Value as V};

/// `LOP3.LUT`'s table for `!a & b` (a = 0xf0, b = 0xcc).
const ARRIVED_LUT: u32 = 0x0c;

impl Isel<'_> {
    /// Selects the latch's test into the current block: continue with `header_edge` when no
    /// thread has arrived while yielding, else with `retry` (which comes back here).
    pub(super) fn spin_latch(&mut self, header_edge: BlockId, retry: BlockId) -> Result<(), IselError> {
        let before = MOp::Reg(self.vcode.new_vreg(VClass::Single));
        self.vote_any(Op::Vote, before)?;
        self.emit_sass(Op::Yield, &[], &[], &[], None)?;
        let after = MOp::Fixed(V::UReg(FIXED_UR));
        self.vote_any(Op::Voteu, after)?;
        let arrived = self.vcode.new_vreg(VClass::Pred);
        let srcs = [
            (Role::A, Arg::op(before)),
            (Role::B, Arg::op(after)),
            (Role::C, Arg::rz()),
            (Role::Other, Arg::imm(ARRIVED_LUT)),
            (Role::PredSrc0, Arg::pt(true)),
        ];
        let dsts = [
            (Role::PredDst0, MOp::Pred(arrived, false)),
            (Role::Dst, MOp::Fixed(V::Reg(ptxc_sass::isa::RZ))),
        ];
        self.emit_sass(Op::Lop3, &dsts, &srcs, &[], None)?;
        self.push(MInst::new(MKind::CondJump {
            cond: arrived,
            neg: true,
            taken: header_edge,
            not_taken: retry,
            uniform: true,
            active_agree: true,
        }));
        Ok(())
    }
}
