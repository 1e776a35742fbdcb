//! Bank moves, the last step of compaction: on the colouring compaction keeps, webs move one
//! at a time to another free register where that removes bank bubbles (two sources of a
//! fixed-latency instruction in one bank, `bank_costs.rs`), weighted by loop depth. Only
//! webs with a bubble in the hottest code (the deepest loops, or all of a kernel without
//! loops) move. Unlike recolouring the whole file, the rest of the allocation stays where it
//! is, and so do the dependences the scheduler sees; a web moves only within the registers
//! the code already uses, never onto a register it interferes with, nor onto one a memory
//! instruction shortly before its definition is still to read ([`super::WAR_WINDOW`]).

use super::{Analysis, Edge, RZ, extents, weighted_bubbles};
use crate::emit::CodeBlock;

/// Rounds over the groups with bubbles.
const ROUNDS: usize = 4;

/// Both ends of each group's edges: `(other group, delta)`, where the group may not (or, for
/// soft edges, should not) take `base[other] + delta`.
fn symmetric(edges: &[Vec<Edge>]) -> Vec<Vec<Edge>> {
    let mut all: Vec<Vec<Edge>> = edges.to_vec();
    for (later, list) in edges.iter().enumerate() {
        for &(earlier, delta) in list {
            all[earlier as usize].push((later as u32, -delta));
        }
    }
    all
}

/// Both ends of each group's bank partners (`Problem::banks`).
fn symmetric_banks(banks: &[Vec<(u32, i32, u64)>]) -> Vec<Vec<(u32, i32, u64)>> {
    let mut all = banks.to_vec();
    for (later, list) in banks.iter().enumerate() {
        for &(earlier, delta, w) in list {
            all[earlier as usize].push((later as u32, -delta, w));
        }
    }
    all
}

/// Moves groups of `a` from their registers in `base` to registers in the other bank where
/// that removes weighted bank bubbles from `blocks`; true if it did (`base` then holds the
/// moves; otherwise it is unchanged).
pub(super) fn spread(blocks: &[CodeBlock], a: &Analysis, base: &mut [i32]) -> bool {
    let p = &a.problem;
    let ext = extents(p);
    let start = base.to_vec();
    let highest = (0..base.len())
        .filter_map(|g| ext[g].map(|(_, hi)| base[g] + hi))
        .max()
        .unwrap_or(-1);
    let hard = symmetric(&p.edges);
    let soft = symmetric(&p.soft);
    let banks = symmetric_banks(&p.banks);
    let cost = |g: usize, b: i32, base: &[i32]| -> u64 {
        banks[g]
            .iter()
            .filter(|&&(other, delta, _)| (b - base[other as usize] - delta).rem_euclid(2) == 0)
            .map(|&(_, _, w)| w)
            .sum()
    };
    // Only the hottest code's bubbles move webs: elsewhere a move saves little and still
    // changes which registers the scheduler sees reused.
    let hottest = banks.iter().flatten().map(|&(_, _, w)| w).max().unwrap_or(0);
    let hot = |g: usize, base: &[i32]| {
        banks[g]
            .iter()
            .any(|&(other, delta, w)| w == hottest && (base[g] - base[other as usize] - delta).rem_euclid(2) == 0)
    };
    let mut moved = false;
    for _ in 0..ROUNDS {
        let mut order: Vec<(u64, usize)> = (0..base.len())
            .filter(|&g| ext[g].is_some() && hot(g, base))
            .map(|g| (cost(g, base[g], base), g))
            .collect();
        order.sort_by_key(|&(c, g)| (std::cmp::Reverse(c), g));
        let mut changed = false;
        for (_, g) in order {
            let now = cost(g, base[g], base);
            let (lo, hi) = ext[g].expect("a group");
            let free = |b: i32| {
                b + lo >= 0
                    && b + hi <= highest
                    && b + hi < RZ as i32
                    && p.align[g].iter().all(|&(o, m)| (b + o) % m == 0)
                    && hard[g].iter().all(|&(o, d)| base[o as usize] + d != b)
                    && soft[g].iter().all(|&(o, d)| base[o as usize] + d != b)
            };
            let best = (-lo..=highest - hi)
                .filter(|&b| b != base[g] && free(b))
                .map(|b| (cost(g, b, base), b))
                .min();
            if let Some((_, b)) = best.filter(|&(c, _)| c < now) {
                base[g] = b;
                changed = true;
            }
        }
        moved |= changed;
        if !changed {
            break;
        }
    }
    if moved && weighted_bubbles(blocks, a, base) < weighted_bubbles(blocks, a, &start) {
        return true;
    }
    base.copy_from_slice(&start);
    false
}

#[cfg(test)]
mod tests {
    use super::super::{analyse, current_bases, rewrite};
    use super::*;
    use crate::emit::Emitted;
    use ptxc_sass::isa::make::make;
    use ptxc_sass::isa::values::MemSize;
    use ptxc_sass::isa::{Arch, Op, Operand, Role, Value};

    fn mov(d: u8, v: u64) -> Emitted {
        let ops = [(Role::Dst, Operand::reg(d)), (Role::B, Operand::imm(v))];
        Emitted::new(make(Arch::Sm75, Op::Mov, &ops, &[]).expect("encodable"))
    }

    fn iadd3(d: u8, a: u8, b: u8, c: u8) -> Emitted {
        let r = Operand::reg;
        let ops = [(Role::Dst, r(d)), (Role::A, r(a)), (Role::B, r(b)), (Role::C, r(c))];
        Emitted::new(make(Arch::Sm75, Op::Iadd3, &ops, &[]).expect("encodable"))
    }

    fn sts(base: u8, data: u8) -> Emitted {
        let addr = Operand::new(Value::Mem {
            base,
            uniform: None,
            offset: 0,
            scale: 0,
        });
        let ops = [(Role::Addr, addr), (Role::Data, Operand::reg(data))];
        Emitted::new(make(Arch::Sm75, Op::Sts, &ops, &[MemSize::B32.set()]).expect("encodable"))
    }

    /// Runs [`spread`] from the code's registers and applies its moves.
    fn moves(blocks: &mut [CodeBlock]) -> bool {
        let a = analyse(blocks).expect("a colouring problem");
        let mut base = current_bases(blocks, &a);
        let moved = spread(blocks, &a, &mut base);
        if moved {
            rewrite(blocks, &a.ops, &a.webs, &a.problem, &base);
        }
        moved
    }

    /// The register operands of instruction `i` of `block`.
    fn regs(block: &CodeBlock, i: usize) -> Vec<u8> {
        block.insts[i]
            .inst
            .operands
            .iter()
            .filter_map(|o| match o.value {
                Value::Reg(r) if r != RZ => Some(r),
                Value::Mem { base, .. } => Some(base),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_web_moves_to_the_other_bank_within_the_registers_used() {
        // R0 and R2 meet in one IADD3 (both in bank 0); R1 and R3 are free while they live.
        let mut blocks = vec![CodeBlock {
            insts: vec![
                mov(0, 5),
                mov(2, 7),
                iadd3(4, 0, 2, RZ),
                mov(1, 0),
                mov(3, 0),
                sts(1, 4),
                sts(3, 4),
            ],
        }];
        assert!(moves(&mut blocks));
        let sources = regs(&blocks[0], 2);
        assert_eq!(sources.len(), 3, "{sources:?}");
        assert_ne!(sources[1] % 2, sources[2] % 2, "{sources:?}");
        let highest = (0..blocks[0].insts.len()).flat_map(|i| regs(&blocks[0], i)).max();
        assert_eq!(highest, Some(4));
        // The moved web's definition follows it.
        assert_eq!(regs(&blocks[0], 0)[0], sources[1]);
        assert_eq!(regs(&blocks[0], 1)[0], sources[2]);
    }

    #[test]
    fn no_move_without_a_free_register_in_the_other_bank() {
        // R1 and R3 live across the IADD3: R2 has nowhere to go below R4.
        let mut blocks = vec![CodeBlock {
            insts: vec![
                mov(1, 0),
                mov(3, 0),
                mov(0, 5),
                mov(2, 7),
                iadd3(4, 0, 2, RZ),
                sts(1, 4),
                sts(3, 4),
            ],
        }];
        assert!(!moves(&mut blocks));
    }
}
