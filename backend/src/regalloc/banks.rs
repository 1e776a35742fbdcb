//! Bank-aware renaming: after allocation, single registers are permuted within their region
//! (a consistent renaming keeps the program valid) so that the register sources of each
//! fixed-latency instruction fall in different banks (bank = register index mod 2). Pairs
//! and quads span both banks and are left alone.

use super::Regions;
use crate::emit::CodeBlock;
use crate::isa::{Inst, RZ, Value};
use std::collections::HashMap;

/// Register sources (slots A, B, C) of a fixed-latency instruction that are single registers
/// of the region `singles`.
fn sources(inst: &Inst, singles: &std::ops::Range<u8>) -> Vec<u8> {
    if !inst.desc().meta.cat.is_coupled() {
        return Vec::new();
    }
    inst.desc()
        .operands
        .iter()
        .zip(&inst.operands)
        .enumerate()
        .filter_map(|(i, (d, o))| match (d.reuse, o.value) {
            (Some(_), Value::Reg(r)) if r != RZ && !d.is_def && inst.reg_width(i) == 1 && singles.contains(&r) => {
                Some(r)
            }
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

/// Renames single registers to reduce bank conflicts; returns the conflicts removed.
pub fn spread_banks(blocks: &mut [CodeBlock], regions: &Regions) -> u32 {
    let base = regions.base[2] as u8;
    let singles = base..base.saturating_add(regions.count[2] as u8);
    let groups: Vec<Vec<u8>> = blocks
        .iter()
        .flat_map(|b| b.insts.iter())
        .map(|e| sources(&e.inst, &singles))
        .filter(|s| s.len() > 1)
        .collect();
    if groups.is_empty() {
        return 0;
    }
    let mut by_reg: HashMap<u8, Vec<usize>> = HashMap::new();
    for (g, srcs) in groups.iter().enumerate() {
        for &r in srcs {
            by_reg.entry(r).or_default().push(g);
        }
    }
    let mut map: HashMap<u8, u8> = singles.clone().map(|r| (r, r)).collect();
    let before: u32 = groups.iter().map(|g| conflicts(g, &map)).sum();
    let regs: Vec<u8> = singles.clone().collect();
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
    let after: u32 = groups.iter().map(|g| conflicts(g, &map)).sum();
    if after < before {
        for e in blocks.iter_mut().flat_map(|b| b.insts.iter_mut()) {
            rename(&mut e.inst, &map);
        }
    }
    before - after.min(before)
}

/// Applies the renaming to every single-register operand.
fn rename(inst: &mut Inst, map: &HashMap<u8, u8>) {
    for i in 0..inst.operands.len() {
        let width = inst.reg_width(i);
        match &mut inst.operands[i].value {
            Value::Reg(r) if width == 1 => *r = *map.get(r).unwrap_or(r),
            Value::Mem { base, .. } if width == 1 => *base = *map.get(base).unwrap_or(base),
            Value::CBank { reg: Some(r), .. } => *r = *map.get(r).unwrap_or(r),
            _ => {}
        }
    }
}
