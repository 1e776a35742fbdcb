//! Operand reuse flags: when the next instruction of a block reads the same register in the
//! same operand slot (A, B or C), the first sets that slot's `.reuse` bit so the second is
//! served by the reuse cache instead of the register file (fewer bank conflicts). The
//! control code's validity rules allow reuse only without the yield hint and with stall
//! 1..=11; only fixed-latency instructions use the cache.

use crate::emit::Emitted;
use ptxc_sass::isa::desc::Role;
use ptxc_sass::isa::{Inst, Op, RZ, Value};

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

/// Operations whose sources A and B commute (a sum or a product of the two, plus C).
fn commutes_a_b(op: Op) -> bool {
    matches!(
        op,
        Op::Ffma | Op::Fmul | Op::Fadd | Op::Imad | Op::Iadd3 | Op::Dfma | Op::Dmul | Op::Dadd
    )
}

/// The operand indices of sources A and B of `inst` if they may trade places: commuting
/// operation, both plain registers of one width, no modifier on either.
fn swappable(inst: &Inst) -> Option<(usize, usize)> {
    if !commutes_a_b(inst.desc().op) {
        return None;
    }
    let d = inst.desc();
    let (a, b) = (d.operand_index(Role::A)?, d.operand_index(Role::B)?);
    let plain = |i: usize| {
        let o = &inst.operands[i];
        matches!(o.value, Value::Reg(r) if r != RZ) && !o.neg && !o.abs && !o.not && o.swizzle == 0
    };
    (plain(a) && plain(b) && inst.reg_width(a) == inst.reg_width(b)).then_some((a, b))
}

/// Registers `next` reads in the same reuse slot as `cur`.
fn shared_slots(cur: &Inst, next: &Inst) -> usize {
    (0..3)
        .filter(|&slot| matches!((slot_reg(cur, slot), slot_reg(next, slot)), (Some(a), Some(b)) if a == b))
        .count()
}

/// Swaps the sources A and B of an instruction where that puts a register the previous
/// instruction reads into the same operand slot, so the reuse cache can serve it (ptxas's
/// `FFMA R43, R20, R23.reuse, R43; FFMA R48, R21, R23, R48`).
pub fn align_commuted_sources(insts: &mut [Emitted]) {
    for i in 1..insts.len() {
        let Some((a, b)) = swappable(&insts[i].inst) else {
            continue;
        };
        let before = shared_slots(&insts[i - 1].inst, &insts[i].inst);
        let mut swapped = insts[i].inst.clone();
        swapped.operands.swap(a, b);
        if shared_slots(&insts[i - 1].inst, &swapped) > before {
            insts[i].inst = swapped;
        }
    }
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
        // Some forms take no reuse flag on some sources (HADD2.F32 on sm_90).
        if reuse != 0 && !encodable(&insts[i].inst) {
            insts[i].inst.ctrl.reuse = encodable_flags(&insts[i].inst, reuse);
        }
    }
}

/// Whether `inst` encodes, its control bits included.
fn encodable(inst: &Inst) -> bool {
    ptxc_sass::isa::encode(inst).is_ok()
}

/// The largest part of the reuse flags `flags` that `inst` encodes (most flags first, then
/// the lower slots), 0 if none does.
fn encodable_flags(inst: &Inst, flags: u8) -> u8 {
    let mut parts: Vec<u8> = (1..flags).filter(|p| p & !flags == 0).collect();
    parts.sort_by_key(|p| (std::cmp::Reverse(p.count_ones()), *p));
    let mut trial = inst.clone();
    parts
        .into_iter()
        .find(|&p| {
            trial.ctrl.reuse = p;
            encodable(&trial)
        })
        .unwrap_or(0)
}

/// True if `inst` writes register `r` (a cached value would be stale).
fn writes(inst: &Inst, r: u8) -> bool {
    ptxc_sass::isa::access::accesses(inst)
        .writes
        .iter()
        .any(|w| w.reg == ptxc_sass::isa::access::Reg::R(r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxc_sass::isa::make::make;
    use ptxc_sass::isa::{Arch, Mod, Op, Operand};

    /// `HADD2.F32 R4, R8, R9` on sm_90, whose A and B slots take no reuse flag (bits 122 and
    /// 123 with `.F32`, which nvdisasm 13.5 rejects) while the third slot's flag encodes.
    fn hadd2_f32() -> Inst {
        make(
            Arch::Sm90,
            Op::Hadd2,
            &[
                (Role::Dst, Operand::reg(4)),
                (Role::A, Operand::reg(8)),
                (Role::B, Operand::reg(9)),
            ],
            &[Mod::HalfF32.flag(true)],
        )
        .expect("HADD2.F32 encodes on sm_90")
    }

    #[test]
    fn flags_a_form_cannot_encode_are_dropped_one_by_one() {
        let inst = hadd2_f32();
        let mut all = inst.clone();
        all.ctrl.reuse = 0b111;
        assert!(!encodable(&all));
        let kept = encodable_flags(&inst, 0b111);
        assert_eq!(kept, 0b100, "the third slot's flag encodes, the others do not");
        assert_eq!(encodable_flags(&inst, 0b011), 0);
    }
}
