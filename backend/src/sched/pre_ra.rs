//! Scheduling before register allocation: each VCode block is reordered (on virtual
//! registers, so only true dependences constrain it) to lower the number of values live at
//! once, which is what decides the registers a kernel needs. Memory accesses keep the
//! order the post-allocation scheduler also keeps (loads may pass loads), and control,
//! convergence and synchronisation instructions stay where they are.

use crate::isa::desc::{Pipe, Role};
use crate::isa::{Op, isa};
use crate::vcode::{MInst, MKind, VCode, VReg};
use std::collections::{HashMap, HashSet};

/// The pre-allocation heuristics by name (`--pre-sched`).
pub const NAMES: [&str; 3] = ["none", "pressure", "critical-path"];

/// How an instruction may move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Compute,
    Load,
    Effect,
    Fixed,
}

fn class_of_op(op: Op) -> Class {
    let Some((_, f)) = isa().forms().find(|(_, f)| f.op == op) else {
        return Class::Fixed;
    };
    match f.meta.pipe {
        Pipe::Branch => Class::Fixed,
        Pipe::Misc if op != Op::S2r => Class::Fixed,
        Pipe::Lsu => {
            let load =
                f.operand_index(Role::Dst).is_some() && f.operand_index(Role::Data).is_none() && !f.meta.reads_late;
            if load { Class::Load } else { Class::Effect }
        }
        _ => Class::Compute,
    }
}

fn class_of(inst: &MInst, cache: &mut HashMap<Op, Class>) -> Class {
    if inst.guard.is_some() || inst.target.is_some() || inst.is_terminator() {
        return Class::Fixed;
    }
    match &inst.kind {
        MKind::Sass { op, .. } => *cache.entry(*op).or_insert_with(|| class_of_op(*op)),
        MKind::Wide { .. } => Class::Compute,
        _ => Class::Fixed,
    }
}

/// The cost of keeping a virtual register live: its width in 32-bit registers, and far more
/// for predicates (seven in all, and they cannot be spilled).
fn width(vcode: &VCode, v: VReg) -> i64 {
    match vcode.class(v) {
        crate::vcode::VClass::Pred => 16,
        c => i64::from(c.width()),
    }
}

/// Reorders the instructions of every block of `vcode` with heuristic `name`
/// (see [`NAMES`]); false if the name is unknown.
pub fn schedule(vcode: &mut VCode, name: &str) -> bool {
    let pressure = match name {
        "none" => return true,
        "pressure" => true,
        "critical-path" => false,
        _ => return false,
    };
    // Values used outside the block that defines them never die inside it.
    let mut use_blocks: HashMap<VReg, HashSet<usize>> = HashMap::new();
    for (b, blk) in vcode.blocks.iter().enumerate() {
        for inst in &vcode.insts[blk.start as usize..blk.end as usize] {
            inst.for_each_reg(|v, def| {
                if !def {
                    use_blocks.entry(v).or_default().insert(b);
                }
            });
        }
        for args in &blk.succ_args {
            for &v in args {
                use_blocks.entry(v).or_default().insert(usize::MAX);
            }
        }
    }
    let mut cache = HashMap::new();
    for b in 0..vcode.blocks.len() {
        let (start, end) = (vcode.blocks[b].start as usize, vcode.blocks[b].end as usize);
        let insts = vcode.insts[start..end].to_vec();
        let order = schedule_block(vcode, &insts, b, &use_blocks, &mut cache, pressure);
        for (k, i) in order.into_iter().enumerate() {
            vcode.insts[start + k] = insts[i].clone();
        }
    }
    true
}

/// The dependences of one block: predecessors of each instruction.
fn dependences(insts: &[MInst], classes: &[Class]) -> Vec<Vec<usize>> {
    let n = insts.len();
    let mut preds = vec![Vec::new(); n];
    let mut def_at: HashMap<VReg, usize> = HashMap::new();
    let (mut last_fixed, mut last_effect) = (None::<usize>, None::<usize>);
    let mut loads_since_effect: Vec<usize> = Vec::new();
    let mut since_fixed: Vec<usize> = Vec::new();
    for (i, inst) in insts.iter().enumerate() {
        inst.for_each_reg(|v, def| {
            if !def && let Some(&d) = def_at.get(&v) {
                preds[i].push(d);
            }
        });
        inst.for_each_reg(|v, def| {
            if def {
                def_at.insert(v, i);
            }
        });
        preds[i].extend(last_fixed);
        match classes[i] {
            Class::Fixed => {
                preds[i].append(&mut since_fixed);
                last_fixed = Some(i);
                last_effect = Some(i);
                loads_since_effect.clear();
            }
            Class::Effect => {
                preds[i].extend(last_effect);
                preds[i].append(&mut loads_since_effect);
                last_effect = Some(i);
            }
            Class::Load => {
                preds[i].extend(last_effect);
                loads_since_effect.push(i);
            }
            Class::Compute => {}
        }
        if classes[i] != Class::Fixed {
            since_fixed.push(i);
        }
        preds[i].sort_unstable();
        preds[i].dedup();
    }
    preds
}

fn schedule_block(
    vcode: &VCode,
    insts: &[MInst],
    b: usize,
    use_blocks: &HashMap<VReg, HashSet<usize>>,
    cache: &mut HashMap<Op, Class>,
    pressure: bool,
) -> Vec<usize> {
    let n = insts.len();
    let classes: Vec<Class> = insts.iter().map(|i| class_of(i, cache)).collect();
    let preds = dependences(insts, &classes);
    let mut succs = vec![Vec::new(); n];
    for (i, ps) in preds.iter().enumerate() {
        for &p in ps {
            succs[p].push(i);
        }
    }
    // Height: the longest chain to the block's end (in instructions, loads weigh more).
    let mut height = vec![0i64; n];
    for i in (0..n).rev() {
        let own = if classes[i] == Class::Load { 20 } else { 4 };
        height[i] = own + succs[i].iter().map(|&s| height[s]).max().unwrap_or(0);
    }
    // Remaining uses in this block of each value, and whether it dies here.
    let mut remaining: HashMap<VReg, usize> = HashMap::new();
    for inst in insts {
        inst.for_each_reg(|v, def| {
            if !def {
                *remaining.entry(v).or_default() += 1;
            }
        });
    }
    let dies_here = |v: VReg| use_blocks.get(&v).is_none_or(|s| s.iter().all(|&x| x == b));
    let delta = |i: usize, remaining: &HashMap<VReg, usize>| -> i64 {
        let mut d = 0;
        let mut seen = Vec::new();
        insts[i].for_each_reg(|v, def| {
            if def {
                d += width(vcode, v);
            } else if !seen.contains(&v) {
                seen.push(v);
                let uses_here = {
                    let mut k = 0;
                    insts[i].for_each_reg(|u, du| k += usize::from(!du && u == v));
                    k
                };
                if remaining.get(&v) == Some(&uses_here) && dies_here(v) {
                    d -= width(vcode, v);
                }
            }
        });
        d
    };
    let mut npreds: Vec<usize> = preds.iter().map(Vec::len).collect();
    let mut ready: Vec<usize> = (0..n).filter(|&i| npreds[i] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while !ready.is_empty() {
        let (pos, &pick) = ready
            .iter()
            .enumerate()
            .max_by_key(|&(_, &i)| {
                let rank = if pressure {
                    // Source order, except that instructions which free registers go first.
                    let d = delta(i, &remaining);
                    if d < 0 { -d * 1_000_000 - i as i64 } else { -(i as i64) }
                } else {
                    height[i]
                };
                (rank, std::cmp::Reverse(i))
            })
            .expect("ready is not empty");
        ready.swap_remove(pos);
        insts[pick].for_each_reg(|v, def| {
            if !def && let Some(r) = remaining.get_mut(&v) {
                *r -= 1;
            }
        });
        order.push(pick);
        for &s in &succs[pick] {
            npreds[s] -= 1;
            if npreds[s] == 0 {
                ready.push(s);
            }
        }
    }
    debug_assert_eq!(order.len(), n);
    order
}
