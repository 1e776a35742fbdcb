//! Operand reuse flags: when the next instruction of a block reads the same register in the
//! same operand slot (A, B or C), the first sets that slot's `.reuse` bit so the second is
//! served by the reuse cache instead of the register file (fewer bank conflicts). The
//! control code's validity rules allow reuse only without the yield hint and with stall
//! 1..=11; only fixed-latency instructions use the cache.

use crate::emit::Emitted;
use ptxc_sass::isa::{Inst, RZ, Value};

/// The register read in reuse slot `slot`, if any.
fn slot_reg(inst: &Inst, slot: u8) -> Option<u8> {
    inst.desc()
        .operands
        .iter()
        .zip(&inst.operands)
        .find_map(|(d, o)| match (d.reuse, o.value) {
            (Some(s), Value::Reg(r)) if s == slot && r != RZ && !d.is_def => Some(r),
            _ => None,
        })
}

/// Sets reuse flags within one block.
pub fn set_reuse_flags(insts: &mut [Emitted]) {
    for i in 0..insts.len().saturating_sub(1) {
        let (cur, next) = (&insts[i].inst, &insts[i + 1].inst);
        let coupled = |x: &Inst| x.desc().meta.cat.is_coupled();
        if !coupled(cur) || !coupled(next) || cur.ctrl.yield_ || !(1..=11).contains(&cur.ctrl.stall) {
            continue;
        }
        let mut reuse = 0u8;
        for slot in 0..3 {
            if let (Some(a), Some(b)) = (slot_reg(cur, slot), slot_reg(next, slot))
                && a == b
                && !writes(cur, a)
            {
                reuse |= 1 << slot;
            }
        }
        insts[i].inst.ctrl.reuse = reuse;
    }
}

/// True if `inst` writes register `r` (a cached value would be stale).
fn writes(inst: &Inst, r: u8) -> bool {
    ptxc_sass::isa::access::accesses(inst)
        .writes
        .iter()
        .any(|w| w.reg == ptxc_sass::isa::access::Reg::R(r))
}
