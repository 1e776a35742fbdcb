//! Bank costs for recolouring (`compact.rs`): the register sources of a fixed-latency
//! instruction that fall in the same bank (register index mod 2) cost issue bubbles, one
//! per source beyond the first in a bank (`runtime-sim/src/timed/banks.rs` models them, after
//! MICRO 2025, section 5.3). Instructions in loops weigh more: a block inside `d` loops
//! (ranges closed by a backward branch) weighs `LOOP_WEIGHT^d`, up to three levels.

use ptxc_sass::isa::{Inst, RZ, Value};

/// How much more an instruction one loop deeper weighs.
const LOOP_WEIGHT: u64 = 8;
/// Loop depths beyond this weigh as this one.
const MAX_DEPTH: u32 = 3;

/// The weight of each block: `LOOP_WEIGHT` to the number of loops around it, a loop being
/// the blocks from a branch target up to a block that branches back to it.
pub fn block_weights(succ: &[Vec<usize>]) -> Vec<u64> {
    let mut depth = vec![0u32; succ.len()];
    for (b, targets) in succ.iter().enumerate() {
        for &s in targets.iter().filter(|&&s| s <= b) {
            depth[s..=b].iter_mut().for_each(|d| *d += 1);
        }
    }
    depth.into_iter().map(|d| LOOP_WEIGHT.pow(d.min(MAX_DEPTH))).collect()
}

/// The operand indices of `inst`'s register sources that the banks serve (slots A, B and C
/// of a fixed-latency instruction, RZ excluded); empty for other instructions.
pub fn bank_sources(inst: &Inst) -> Vec<usize> {
    if !inst.desc().meta.cat.is_coupled() {
        return Vec::new();
    }
    inst.desc()
        .operands
        .iter()
        .zip(&inst.operands)
        .enumerate()
        .filter_map(|(i, (d, o))| match (d.reuse, o.value) {
            (Some(_), Value::Reg(r)) if r != RZ && !d.is_def => Some(i),
            _ => None,
        })
        .collect()
}

/// The bubbles of reading registers `regs` in one instruction: per bank, each source beyond
/// the first.
pub fn bubbles(regs: impl Iterator<Item = i32>) -> u64 {
    let mut per_bank = [0u64; 2];
    for r in regs {
        per_bank[(r & 1) as usize] += 1;
    }
    per_bank.iter().map(|n| n.saturating_sub(1)).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_inside_loops_weigh_more() {
        // 0 -> 1 -> 2 -> (1 or 3), 2 -> 2: block 2 is in two loops, block 1 in one.
        let succ = vec![vec![1], vec![2], vec![1, 2, 3], vec![]];
        assert_eq!(block_weights(&succ), vec![1, 8, 64, 1]);
    }

    #[test]
    fn bubbles_count_sources_beyond_the_first_per_bank() {
        assert_eq!(bubbles([4, 6, 8].into_iter()), 2);
        assert_eq!(bubbles([4, 5, 8].into_iter()), 1);
        assert_eq!(bubbles([4, 5].into_iter()), 0);
    }
}
