//! Which register-only work may move above a CTA barrier (`BAR.SYNC`), for both
//! schedulers: ptxas computes addresses and indices needed after a barrier while warps wait
//! at it. Not a read of a clock or counter (`CS2R`) or of a special register whose value
//! changes while a thread runs, and not a warp-level operation, whose value depends on
//! which threads of the warp run it.

use ptxc_sass::isa::Op;
use ptxc_sass::isa::sm75::is_thread_constant_sreg;

/// Whether an instruction of operation `op` (reading special register `sreg`, if it reads
/// one) may move above a CTA barrier, as far as its operation goes.
pub fn moves_over_cta_barrier(op: Op, sreg: Option<u8>) -> bool {
    match op {
        Op::Cs2r | Op::Vote | Op::Voteu | Op::Shfl | Op::Match | Op::Redux => false,
        Op::S2r => sreg.is_some_and(is_thread_constant_sreg),
        _ => true,
    }
}
