//! Scheduling before register allocation: each VCode block is reordered (on virtual
//! registers, so only true dependences constrain it) either to lower the number of values
//! live at once, which is what decides the registers a kernel needs, or to start long
//! chains (loads first) early, which hides latency at the cost of registers. The default,
//! `budget`, does the second while the values live at once stay below the register budget
//! of [`super::budget`] and the first once they reach it. Memory accesses keep the order the
//! post-allocation scheduler also keeps (loads may pass loads), and control, convergence and
//! synchronisation instructions stay where they are.
//!
//! Loads and stores of different memory spaces never alias, so a global load may pass a
//! shared store: a tiled loop's global loads all start before the first shared store
//! (wmma_gemm: 1.23x to 1.12x ptxas's cycles, mma_gemm 1.03x to 0.90x).

use super::barrier_motion::moves_over_cta_barrier;
use crate::vcode::{MInst, MKind, MOp, VCode, VReg};
use ptxc_sass::isa::desc::{Pipe, Role};
use ptxc_sass::isa::table::first_form_of;
use ptxc_sass::isa::{Op, Value as V};
use rustc_hash::FxHashMap as HashMap;

/// A value no instruction reads.
const UNUSED: u32 = u32::MAX - 1;
/// A value read in more than one block (or passed to a successor).
const SHARED: u32 = u32::MAX;

/// The pre-allocation heuristics by name (`--pre-sched`).
pub const NAMES: [&str; 4] = ["none", "pressure", "critical-path", "budget"];

/// How the ready instructions are ranked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Fewest values live at once.
    Pressure,
    /// Longest chain first.
    CriticalPath,
    /// Longest chain first while fewer than this many registers are live, then pressure.
    Budget(i64),
}

/// Registers kept free under the budget for what the block-local estimate does not see
/// (values live through a block without being read in it, copies the allocator inserts).
const BUDGET_SLACK: i64 = 6;

/// How an instruction may move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Compute,
    Load,
    Effect,
    Fixed,
}

fn class_of_op(op: Op) -> Class {
    let Some(f) = first_form_of(op) else {
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
    // A guarded instruction moves like an unguarded one: its guard is a source.
    if inst.target.is_some() || inst.is_terminator() {
        return Class::Fixed;
    }
    match &inst.kind {
        // A fixed uniform register (REDUX's UR4) carries a dependence no virtual register
        // shows: its writer and readers keep their order.
        MKind::Sass { slots, .. } if slots.iter().any(|s| names_uniform_register(&s.op)) => Class::Fixed,
        MKind::Sass { op, .. } => *cache.entry(*op).or_insert_with(|| class_of_op(*op)),
        MKind::Wide { .. } => Class::Compute,
        _ => Class::Fixed,
    }
}

/// Whether `op` names a uniform register other than URZ (REDUX's, the cache-policy pair of
/// an access's memory descriptor, or the barrier address of an arrival).
fn names_uniform_register(op: &MOp) -> bool {
    use ptxc_sass::isa::Value as V;
    matches!(
        op,
        MOp::Fixed(V::UReg(r)) | MOp::Mem { uniform: Some(r), .. } | MOp::Fixed(V::Mem { uniform: Some(r), .. })
            if *r != 63
    )
}

/// The cost of keeping a virtual register live: its width in 32-bit registers, and far more
/// for predicates (seven in all, and they cannot be spilled).
fn width(vcode: &VCode, v: VReg) -> i64 {
    match vcode.class(v) {
        crate::vcode::VClass::Pred => 16,
        c => i64::from(c.width()),
    }
}

/// A distinct source value of an instruction: its local number, uses by the instruction,
/// pressure width, whether it dies in the block, and its width in general registers.
type Source = (usize, usize, i64, bool, i64);

/// The general registers a virtual register occupies (none for predicates).
fn gprs(vcode: &VCode, v: VReg) -> i64 {
    match vcode.class(v) {
        crate::vcode::VClass::Pred => 0,
        c => i64::from(c.width()),
    }
}

/// Reorders the instructions of every block of `vcode` with heuristic `name`
/// (see [`NAMES`]; `budget` is the register budget the `budget` heuristic keeps to); false
/// if the name is unknown.
pub fn schedule(vcode: &mut VCode, name: &str, budget: u32) -> bool {
    let mode = match name {
        "none" => return true,
        "pressure" => Mode::Pressure,
        "critical-path" => Mode::CriticalPath,
        "budget" => Mode::Budget(i64::from(budget) - BUDGET_SLACK),
        _ => return false,
    };
    // Values used outside the block that defines them never die inside it: the one block
    // that uses each value, `UNUSED` or `SHARED`.
    let mut use_block: Vec<u32> = vec![UNUSED; vcode.classes.len()];
    let mut note = |v: VReg, b: u32| {
        let home = &mut use_block[v.0 as usize];
        if *home == UNUSED {
            *home = b;
        } else if *home != b {
            *home = SHARED;
        }
    };
    for (b, blk) in vcode.blocks.iter().enumerate() {
        for inst in &vcode.insts[blk.start as usize..blk.end as usize] {
            inst.for_each_reg(|v, def| {
                if !def {
                    note(v, b as u32);
                }
            });
        }
        for args in &blk.succ_args {
            for &v in args {
                note(v, SHARED);
            }
        }
    }
    let mut cache = HashMap::default();
    for b in 0..vcode.blocks.len() {
        let (start, end) = (vcode.blocks[b].start as usize, vcode.blocks[b].end as usize);
        let insts = vcode.insts[start..end].to_vec();
        let order = schedule_block(vcode, &insts, b, &use_block, &mut cache, mode);
        for (k, i) in order.into_iter().enumerate() {
            vcode.insts[start + k] = insts[i].clone();
        }
    }
    true
}

/// Memory spaces an access may touch, as a bit set.
const GLOBAL: u8 = 1;
/// Shared memory.
const SHARED_MEM: u8 = 2;
/// Local memory.
const LOCAL: u8 = 4;
/// Any space (generic addresses, or an access of unknown kind).
const ANY_SPACE: u8 = GLOBAL | SHARED_MEM | LOCAL;

/// The spaces a load or memory effect may touch: accesses of different spaces never alias
/// (a global load may pass a shared store), constant loads and register-only operations
/// (SHFL, MOVM) touch none.
fn memory_spaces(inst: &MInst) -> u8 {
    let MKind::Sass { op, .. } = &inst.kind else {
        return ANY_SPACE;
    };
    match op {
        Op::Ldg | Op::Stg | Op::Atomg | Op::Red => GLOBAL,
        Op::Lds | Op::Sts | Op::Atoms | Op::Ldsm => SHARED_MEM,
        Op::Ldl | Op::Stl => LOCAL,
        Op::Ldgsts => GLOBAL | SHARED_MEM,
        Op::Ldc | Op::Shfl | Op::Movm => 0,
        _ => ANY_SPACE,
    }
}

/// Whether `inst` is a CTA barrier (`BAR.SYNC`, `BAR.ARV`, `BAR.RED`).
fn is_cta_barrier(inst: &MInst) -> bool {
    matches!(inst.kind, MKind::Sass { op: Op::Bar, .. })
}

/// Whether register-only `inst` may move up across a CTA barrier
/// ([`super::barrier_motion`]; not an instruction the compiler made warp-wide itself).
fn hoists_over_bar(inst: &MInst) -> bool {
    if inst.warp_wide {
        return false;
    }
    match &inst.kind {
        MKind::Sass { op, slots, .. } => {
            let sreg = slots.iter().find_map(|s| match s.op {
                MOp::Fixed(V::SReg(n)) => Some(n),
                _ => None,
            });
            moves_over_cta_barrier(*op, sreg)
        }
        _ => true,
    }
}

/// The dependences of one block: predecessors of each instruction. Loads stay after the
/// last memory effect on their spaces, effects after the last effect and the loads since it
/// on theirs.
fn dependences(insts: &[MInst], classes: &[Class]) -> Vec<Vec<usize>> {
    let n = insts.len();
    let mut preds = vec![Vec::new(); n];
    let mut def_at: HashMap<VReg, usize> = HashMap::default();
    let mut last_fixed = None::<usize>;
    // The last fixed instruction other than a CTA barrier.
    let mut last_fence = None::<usize>;
    // Per space (global, shared, local): the last effect and the loads since it.
    let mut last_effect: [Option<usize>; 3] = [None; 3];
    let mut loads_since_effect: [Vec<usize>; 3] = Default::default();
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
        // Register-only work may move up across CTA barriers (not past other fixed
        // instructions): ptxas computes addresses and indices needed after a `BAR.SYNC`
        // while warps wait at it.
        if classes[i] == Class::Compute && hoists_over_bar(inst) {
            preds[i].extend(last_fence);
        } else {
            preds[i].extend(last_fixed);
        }
        let spaces = memory_spaces(inst);
        let touched = (0..3).filter(|k| spaces >> k & 1 == 1);
        match classes[i] {
            Class::Fixed => {
                preds[i].append(&mut since_fixed);
                last_fixed = Some(i);
                if !is_cta_barrier(inst) {
                    last_fence = Some(i);
                }
                last_effect = [Some(i); 3];
                loads_since_effect.iter_mut().for_each(Vec::clear);
            }
            Class::Effect => {
                for k in touched {
                    preds[i].extend(last_effect[k]);
                    preds[i].append(&mut loads_since_effect[k]);
                    last_effect[k] = Some(i);
                }
            }
            Class::Load => {
                for k in touched {
                    preds[i].extend(last_effect[k]);
                    loads_since_effect[k].push(i);
                }
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
    use_block: &[u32],
    cache: &mut HashMap<Op, Class>,
    mode: Mode,
) -> Vec<usize> {
    let n = insts.len();
    let classes: Vec<Class> = insts
        .iter()
        .map(|i| {
            // A pinned accumulator register is written asynchronously by HGMMA: its readers
            // and writers keep their places around the warpgroup's fences and waits.
            let mut pinned = false;
            i.for_each_reg(|v, _| pinned |= vcode.fixed_reg(v).is_some());
            if pinned { Class::Fixed } else { class_of(i, cache) }
        })
        .collect();
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
    // The values the block reads, numbered densely, with their remaining uses in the block.
    let mut local: HashMap<VReg, usize> = HashMap::default();
    let mut remaining: Vec<usize> = Vec::new();
    // Per instruction: the width it defines, and per distinct source value its local
    // number, uses by this instruction, width, whether the value dies in this block and
    // its width in general registers (none for predicates).
    let mut defined = vec![0i64; n];
    let mut defined_gprs = vec![0i64; n];
    let mut sources: Vec<Vec<Source>> = vec![Vec::new(); n];
    let dies_here = |v: VReg| matches!(use_block[v.0 as usize], UNUSED) || use_block[v.0 as usize] == b as u32;
    for (i, inst) in insts.iter().enumerate() {
        inst.for_each_reg(|v, def| {
            if def {
                defined[i] += width(vcode, v);
                defined_gprs[i] += gprs(vcode, v);
                return;
            }
            let k = *local.entry(v).or_insert_with(|| {
                remaining.push(0);
                remaining.len() - 1
            });
            remaining[k] += 1;
            match sources[i].iter_mut().find(|s| s.0 == k) {
                Some(s) => s.1 += 1,
                None => sources[i].push((k, 1, width(vcode, v), dies_here(v), gprs(vcode, v))),
            }
        });
    }
    // Registers the instruction would add to the live set (negative: it frees some).
    let delta = |i: usize, remaining: &[usize]| -> i64 {
        defined[i]
            - sources[i]
                .iter()
                .filter(|&&(k, here, _, dies, _)| dies && remaining[k] == here)
                .map(|s| s.2)
                .sum::<i64>()
    };
    // The general registers it would add.
    let gpr_delta = |i: usize, remaining: &[usize]| -> i64 {
        defined_gprs[i]
            - sources[i]
                .iter()
                .filter(|&&(k, here, _, dies, _)| dies && remaining[k] == here)
                .map(|s| s.4)
                .sum::<i64>()
    };
    // Registers live at the block's start: the values it reads but does not define (values
    // live through it unread are not seen; `BUDGET_SLACK` stands for them).
    let mut defined_here = vec![false; remaining.len()];
    for inst in insts {
        inst.for_each_reg(|v, def| {
            if def && let Some(&k) = local.get(&v) {
                defined_here[k] = true;
            }
        });
    }
    let mut live: i64 = local
        .iter()
        .filter(|&(_, &k)| !defined_here[k])
        .map(|(&v, _)| gprs(vcode, v))
        .sum();
    let mut npreds: Vec<usize> = preds.iter().map(Vec::len).collect();
    let mut ready: Vec<usize> = (0..n).filter(|&i| npreds[i] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while !ready.is_empty() {
        let pressure = match mode {
            Mode::Pressure => true,
            Mode::CriticalPath => false,
            Mode::Budget(budget) => live >= budget,
        };
        let (pos, &pick) = ready
            .iter()
            .enumerate()
            .max_by_key(|&(_, &i)| {
                let rank = match (mode, pressure) {
                    // Source order, except that instructions which free registers go first.
                    (Mode::Pressure, _) => {
                        let d = delta(i, &remaining);
                        if d < 0 { -d * 1_000_000 - i as i64 } else { -(i as i64) }
                    }
                    // At the budget: the fewest registers added, then the longest chain.
                    (_, true) => -delta(i, &remaining) * 1_000_000 + height[i],
                    (_, false) => height[i],
                };
                (rank, std::cmp::Reverse(i))
            })
            .expect("ready is not empty");
        ready.swap_remove(pos);
        live += gpr_delta(pick, &remaining);
        for &(k, here, ..) in &sources[pick] {
            remaining[k] -= here;
        }
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
