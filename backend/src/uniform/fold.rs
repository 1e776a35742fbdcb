//! Uniform address parts: a memory access whose address register is the sum of a general
//! register and a uniform one (`IADD3 a, x, u, RZ`), or a general register shifted and
//! added to a uniform one (`LEA a, x, u, k`), reads both in its address instead,
//! `[x + u]` or `[x.X4 + u]`, as ptxas's `LDS R4, [R5+UR5]`; the sum goes away once
//! nothing else reads it.

use super::replace_insts;
use crate::vcode::{MInst, MKind, MOp, SrcMods, VClass, VCode, VReg};
use ptxc_sass::isa::make::make;
use ptxc_sass::isa::{Op, RZ, Role, Value as V};
use rustc_hash::FxHashMap as HashMap;

/// Folds uniform address parts into the accesses of converged blocks.
pub fn fold_addresses(vcode: &mut VCode, converged: &[bool]) {
    let mut def_of: HashMap<VReg, usize> = HashMap::default();
    let mut reads: HashMap<VReg, u32> = HashMap::default();
    for (i, inst) in vcode.insts.iter().enumerate() {
        inst.for_each_reg(|v, is_def| {
            if is_def {
                def_of.insert(v, i);
            } else {
                *reads.entry(v).or_default() += 1;
            }
        });
    }
    for blk in &vcode.blocks {
        for &v in blk.succ_args.iter().flatten() {
            *reads.entry(v).or_default() += 1;
        }
    }
    let mut dead = vec![false; vcode.insts.len()];
    for b in (0..vcode.blocks.len()).filter(|&b| converged[b]) {
        let blk = &vcode.blocks[b];
        for i in blk.start as usize..blk.end as usize {
            let Some((slot, base, offset)) = plain_address(&vcode.insts[i]) else {
                continue;
            };
            let Some(&d) = def_of.get(&base) else {
                continue;
            };
            if vcode.insts[d].guard.is_some_and(|g| Some(g) != vcode.insts[i].guard) {
                continue;
            }
            let Some((x, u, scale)) = uniform_sum(vcode, &vcode.insts[d]) else {
                continue;
            };
            let folded = MOp::UMem {
                base: x,
                ubase: u,
                offset,
                scale,
            };
            if !encodes_with(vcode, &vcode.insts[i], slot, folded) {
                continue;
            }
            if let MKind::Sass { slots, .. } = &mut vcode.insts[i].kind {
                slots[slot].op = folded;
            }
            *reads.entry(x).or_default() += 1;
            *reads.entry(u).or_default() += 1;
            let left = reads.entry(base).or_default();
            *left -= 1;
            if *left == 0 {
                dead[d] = true;
            }
        }
    }
    if !dead.contains(&true) {
        return;
    }
    let blocks: Vec<Vec<MInst>> = (0..vcode.blocks.len())
        .map(|b| {
            let blk = &vcode.blocks[b];
            (blk.start as usize..blk.end as usize)
                .filter(|&i| !dead[i])
                .map(|i| vcode.insts[i].clone())
                .collect()
        })
        .collect();
    replace_insts(vcode, blocks);
}

/// The slot, base and offset of an access's address `[base + offset]` with a single
/// general register as base.
fn plain_address(inst: &MInst) -> Option<(usize, VReg, i32)> {
    let MKind::Sass { slots, .. } = &inst.kind else {
        return None;
    };
    slots.iter().enumerate().find_map(|(k, s)| match s.op {
        MOp::Mem {
            base,
            offset,
            uniform: None,
        } => Some((k, base, offset)),
        _ => None,
    })
}

/// `(x, u, scale)` if `inst` computes `x + u` (IADD3 with RZ) or `(x << k) + u` (LEA,
/// k = 2, 3 or 4: the `.X4`, `.X8`, `.X16` scales) of a single general register `x` and a
/// uniform register `u`.
fn uniform_sum(vcode: &VCode, inst: &MInst) -> Option<(VReg, VReg, u8)> {
    let MKind::Sass { op, slots, mods } = &inst.kind else {
        return None;
    };
    if !mods.is_empty() || inst.keep.is_some() || slots.iter().any(|s| s.mods != SrcMods::default()) {
        return None;
    }
    let source = |role: Role| slots.iter().find(|s| s.role == role).map(|s| s.op);
    let class = |op: Option<MOp>| match op {
        Some(MOp::Reg(v)) => Some((v, vcode.class(v))),
        _ => None,
    };
    match op {
        Op::Iadd3 if source(Role::C) == Some(MOp::Fixed(V::Reg(RZ))) && slots.len() == 4 => {
            match (class(source(Role::A))?, class(source(Role::B))?) {
                ((x, VClass::Single), (u, VClass::Uniform)) | ((u, VClass::Uniform), (x, VClass::Single)) => {
                    Some((x, u, 0))
                }
                _ => None,
            }
        }
        Op::Lea if slots.len() == 4 => {
            let (x, VClass::Single) = class(source(Role::A))? else {
                return None;
            };
            let (u, VClass::Uniform) = class(source(Role::B))? else {
                return None;
            };
            match source(Role::Other)? {
                MOp::Fixed(V::Imm(k @ 2..=4)) => Some((x, u, k as u8 - 1)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// True if `inst` encodes with operand `slot` replaced by `op`.
pub(super) fn encodes_with(vcode: &VCode, inst: &MInst, slot: usize, op: MOp) -> bool {
    let MKind::Sass { op: code, slots, mods } = &inst.kind else {
        return false;
    };
    let ops: Vec<_> = slots
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let o = if k == slot { op } else { s.op };
            let mut operand = crate::isel::fit::representative(o, s.mods);
            if let MOp::Reg(v) = o
                && vcode.class(v) == VClass::Uniform
            {
                operand.value = V::UReg(0);
            }
            (s.role, operand)
        })
        .collect();
    make(vcode.arch, *code, &ops, mods).is_ok()
}
