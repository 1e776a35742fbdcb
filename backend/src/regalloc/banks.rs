//! Bank-aware renaming: after allocation, the registers that only ever hold single values
//! are permuted among themselves (a consistent renaming keeps the program valid) so that
//! the register sources of each fixed-latency instruction fall in different banks (bank =
//! register index mod 2). Registers of pairs and quads keep their alignment and stay put,
//! but their components count as sources (a single beside a quad's component conflicts).

use super::bank_costs;
use crate::emit::CodeBlock;
use ptxc_sass::isa::{Inst, RZ, Value};
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeSet;

/// Registers that no operand wider than one register covers.
fn single_only(blocks: &[CodeBlock]) -> BTreeSet<u8> {
    let mut single = BTreeSet::new();
    let mut wide = BTreeSet::new();
    for inst in blocks.iter().flat_map(|b| b.insts.iter()).map(|e| &e.inst) {
        for (i, op) in inst.operands.iter().enumerate() {
            let (r, w) = match op.value {
                Value::Reg(r) => (r, inst.reg_width(i)),
                Value::Mem { base, .. } => (base, inst.reg_width(i)),
                Value::CBank { reg: Some(r), .. } => (r, 1),
                _ => continue,
            };
            if r == RZ {
                continue;
            }
            if w == 1 {
                single.insert(r);
            } else {
                wide.extend((0..w).map(|k| r + k));
            }
        }
    }
    single.difference(&wide).copied().collect()
}

/// Register sources (slots A, B, C) of a fixed-latency instruction
/// ([`bank_costs::bank_sources`]): the single-only ones may be renamed; a pair or quad keeps
/// its bank, the bank of its first register (as the simulator reads it,
/// `runtime-sim/src/timed/banks.rs`), and conflicts all the same.
fn sources(inst: &Inst) -> Vec<u8> {
    bank_costs::bank_sources(inst)
        .into_iter()
        .filter_map(|i| match inst.operands[i].value {
            Value::Reg(r) => Some(r),
            _ => None,
        })
        .collect()
}

/// Bank conflicts of a list of sources under a renaming.
fn conflicts(srcs: &[u8], map: &HashMap<u8, u8>) -> u32 {
    let mut per_bank = [0u32; 2];
    let mut seen: Vec<u8> = Vec::new();
    for &r in srcs {
        let p = *map.get(&r).unwrap_or(&r);
        if !seen.contains(&p) {
            seen.push(p);
            per_bank[p as usize % 2] += 1;
        }
    }
    per_bank.iter().map(|n| n.saturating_sub(1)).sum()
}

/// Renames single-only registers to reduce bank conflicts; returns the conflicts removed.
pub fn spread_banks(blocks: &mut [CodeBlock]) -> u32 {
    let singles = single_only(blocks);
    let groups: Vec<Vec<u8>> = blocks
        .iter()
        .flat_map(|b| b.insts.iter())
        .map(|e| sources(&e.inst))
        .filter(|s| s.len() > 1 && s.iter().any(|r| singles.contains(r)))
        .collect();
    if groups.is_empty() {
        return 0;
    }
    let mut by_reg: HashMap<u8, Vec<usize>> = HashMap::default();
    for (g, srcs) in groups.iter().enumerate() {
        for &r in srcs.iter().filter(|r| singles.contains(r)) {
            by_reg.entry(r).or_default().push(g);
        }
    }
    let mut map: HashMap<u8, u8> = singles.iter().map(|&r| (r, r)).collect();
    let total = |m: &HashMap<u8, u8>| -> u32 { groups.iter().map(|g| conflicts(g, m)).sum() };
    let before = total(&map);
    let regs: Vec<u8> = singles.iter().copied().collect();
    let mut improved = true;
    let mut rounds = 0;
    while improved && rounds < 8 {
        improved = false;
        rounds += 1;
        for (i, &a) in regs.iter().enumerate() {
            for &b in &regs[i + 1..] {
                if (map[&a] ^ map[&b]) & 1 == 0 {
                    continue;
                }
                let touched: Vec<usize> = by_reg
                    .get(&a)
                    .into_iter()
                    .chain(by_reg.get(&b))
                    .flatten()
                    .copied()
                    .collect();
                let cost = |m: &HashMap<u8, u8>| touched.iter().map(|&g| conflicts(&groups[g], m)).sum::<u32>();
                let old = cost(&map);
                let mut trial = map.clone();
                let (pa, pb) = (trial[&a], trial[&b]);
                trial.insert(a, pb);
                trial.insert(b, pa);
                if cost(&trial) < old {
                    map = trial;
                    improved = true;
                }
            }
        }
    }
    let after = total(&map);
    if after < before {
        for e in blocks.iter_mut().flat_map(|b| b.insts.iter_mut()) {
            rename(&mut e.inst, &map);
        }
    }
    before - after.min(before)
}

/// Applies the renaming to every operand of a single-only register.
fn rename(inst: &mut Inst, map: &HashMap<u8, u8>) {
    for i in 0..inst.operands.len() {
        match &mut inst.operands[i].value {
            Value::Reg(r) => *r = *map.get(r).unwrap_or(r),
            Value::Mem { base, .. } => *base = *map.get(base).unwrap_or(base),
            Value::CBank { reg: Some(r), .. } => *r = *map.get(r).unwrap_or(r),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::Emitted;
    use ptxc_sass::isa::make::make;
    use ptxc_sass::isa::values::MemSize;
    use ptxc_sass::isa::{Arch, Op, Operand, Role};

    fn emitted(op: Op, ops: &[(Role, Operand)], mods: &[ptxc_sass::isa::ModSet]) -> Emitted {
        Emitted::new(make(Arch::Sm75, op, ops, mods).expect("encodable"))
    }

    fn fadd(d: u8, a: u8, b: u8) -> Emitted {
        let r = Operand::reg;
        emitted(Op::Fadd, &[(Role::Dst, r(d)), (Role::A, r(a)), (Role::B, r(b))], &[])
    }

    /// The register sources of the FADD at `i`.
    fn fadd_sources(block: &CodeBlock, i: usize) -> (u8, u8) {
        match (
            &block.insts[i].inst.operands[1].value,
            &block.insts[i].inst.operands[2].value,
        ) {
            (Value::Reg(a), Value::Reg(b)) => (*a, *b),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn singles_move_to_the_other_bank_than_the_quad_components_beside_them() {
        // A quad R4..R7 loaded at once; R9 meets R5 (both odd) and R8 meets R4 (both
        // even): swapping the two singles puts every FADD's sources in two banks.
        let addr = Operand::new(Value::Mem {
            base: 0,
            uniform: None,
            offset: 0,
            scale: 0,
        });
        let mov = |d: u8, v: u64| {
            emitted(
                Op::Mov,
                &[(Role::Dst, Operand::reg(d)), (Role::B, Operand::imm(v))],
                &[],
            )
        };
        let mut blocks = vec![CodeBlock {
            insts: vec![
                emitted(
                    Op::Lds,
                    &[(Role::Dst, Operand::reg(4)), (Role::Addr, addr)],
                    &[MemSize::B128.set()],
                ),
                mov(8, 0x3f80_0000),
                mov(9, 0x4000_0000),
                fadd(10, 5, 9),
                fadd(11, 4, 8),
            ],
        }];
        assert!(spread_banks(&mut blocks) > 0);
        for i in [3, 4] {
            let (a, b) = fadd_sources(&blocks[0], i);
            assert_ne!(a % 2, b % 2, "FADD at {i}: R{a}, R{b}");
        }
    }
}
