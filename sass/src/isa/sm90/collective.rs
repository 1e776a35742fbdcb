//! Hopper's collective regions (sm_90): where ptxas's sm_80 code runs a warp-synchronous
//! instruction in a divergent warp under `WARPSYNC.EXCLUSIVE mask` (`redux.sync` with a
//! run-time mask, `tests/ampere/redux_mask.ptx`), its sm_90 code writes
//! `WARPSYNC.COLLECTIVE mask, target`, the instruction, and `ENDCOLLECTIVE`, with `target`
//! the address right after the ENDCOLLECTIVE (15 of 15 regions in ptxas 13.5's code).
//! Fields found by flipping bits under nvdisasm 13.5:
//!
//! * WARPSYNC (0x348): `.COLLECTIVE` is bit 86 (with `.EXCLUSIVE`, bit 85: illegal); the
//!   target is BRA's split offset (4-byte units from the next instruction, low 8 bits in
//!   16..23, the rest in 34..81), ignored without `.COLLECTIVE`. `WARPSYNC.ALL` (0x948) has
//!   a `.COLLECTIVE` form too (printed `WARPSYNC.COLLECTIVE.ALL`), not described.
//! * `ENDCOLLECTIVE` (0x91b): a guard and the predicate operand of the branches (87..90);
//!   bits 16..86 print nothing.

use crate::flag;
use crate::isa::arch::Arch;
use crate::isa::build::*;
use crate::isa::desc::{Form, LatCat as L, Op, OperandDesc, Pipe, Show};
use crate::isa::sm75::common::ps87;

/// BRA's split target of WARPSYNC.COLLECTIVE (4-byte units, 48 bits at 34, the low 8 at 16).
fn target() -> OperandDesc {
    super::split_target(rel_scaled(bits(34, 48), 2))
}

/// `.COLLECTIVE` and its target on the sm_90 register-mask WARPSYNC.
pub fn warpsync(b: FormBuilder) -> FormBuilder {
    b.mods([flag!(Mod::Collective, 86, ".COLLECTIVE")])
        .invalid_when(&[(85, true), (86, true)])
        .op_under_always(Mod::Collective, target())
}

/// ENDCOLLECTIVE.
pub fn forms() -> Vec<Form> {
    vec![
        form("ENDCOLLECTIVE", Op::EndCollective, 0x91b)
            .since(Arch::Sm90)
            .ops([ps87().show(Show::IfNotDefault)])
            .timing(L::Decoupled, Pipe::Branch)
            .build(),
    ]
}
