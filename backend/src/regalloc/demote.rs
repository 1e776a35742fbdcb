//! Predicate demotion: when more than seven predicates are live at once, the longest-lived
//! predicates are kept in general registers instead. After the definition of a demoted
//! predicate `p`, `SEL g, RZ, 0x1, !p` stores it as 0/1; before each use,
//! `ISETP.NE.U32.AND p', PT, g, RZ, PT` recreates it, and the use reads `p'`. The VCode stays
//! in SSA form, so the allocation simply runs again (ptxas likewise moves predicates to
//! general registers, with P2R/R2P).

use super::pressure::Crowded;
use crate::vcode::{MInst, MKind, MOp, Slot, VClass, VCode, VReg, is_def_role};
use ptxc_sass::isa::Mod;
use ptxc_sass::isa::desc::Role;
use ptxc_sass::isa::values::{BoolOp, IntCmp};
use ptxc_sass::isa::{Op, PT, RZ, Value};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use smallvec::SmallVec;
use smallvec::smallvec;

/// `SEL g, RZ, 0x1, !p`: 1 where `p` holds.
fn store(g: VReg, p: VReg) -> MInst {
    MInst::new(MKind::Sass {
        op: Op::Sel,
        slots: smallvec![
            Slot::plain(Role::Dst, MOp::Reg(g)),
            Slot::plain(Role::A, MOp::Fixed(Value::Reg(RZ))),
            Slot::plain(Role::B, MOp::Fixed(Value::Imm(1))),
            Slot::plain(Role::PredSrc0, MOp::Pred(p, true)),
        ],
        mods: smallvec![],
    })
}

/// `ISETP.NE.U32.AND p, PT, g, RZ, PT`.
fn reload(p: VReg, g: VReg) -> MInst {
    let pt = MOp::Fixed(Value::Pred { idx: PT, neg: false });
    MInst::new(MKind::Sass {
        op: Op::Isetp,
        slots: smallvec![
            Slot::plain(Role::PredDst0, MOp::Pred(p, false)),
            Slot::plain(Role::PredDst1, pt),
            Slot::plain(Role::A, MOp::Reg(g)),
            Slot::plain(Role::B, MOp::Fixed(Value::Reg(RZ))),
            Slot::plain(Role::PredSrc0, pt),
        ],
        mods: smallvec![IntCmp::Ne.set(), Mod::Signed.flag(false), BoolOp::And.set()],
    })
}

/// Replaces the uses (not the definitions) of `old` in `inst` by `new`.
fn replace_uses(inst: &mut MInst, old: VReg, new: VReg) {
    let swap = |v: &mut VReg| {
        if *v == old {
            *v = new;
        }
    };
    if let Some((g, _)) = &mut inst.guard {
        swap(g);
    }
    let swap_op = |op: &mut MOp| match op {
        MOp::Pred(v, _) | MOp::Reg(v) => swap(v),
        _ => {}
    };
    match &mut inst.kind {
        MKind::Sass { slots, .. } => slots
            .iter_mut()
            .filter(|s| !is_def_role(s.role))
            .for_each(|s| swap_op(&mut s.op)),
        MKind::Wide { srcs, .. } => srcs.iter_mut().for_each(swap_op),
        MKind::CondJump { cond, .. } => swap(cond),
        _ => {}
    }
}

/// Predicates that may be demoted (defined by an instruction, never a block parameter or
/// argument), longest-lived first.
pub fn candidates(vcode: &VCode) -> Vec<VReg> {
    let mut excluded: HashSet<VReg> = HashSet::default();
    for b in &vcode.blocks {
        excluded.extend(b.params.iter().copied());
        excluded.extend(b.succ_args.iter().flatten().copied());
    }
    let mut span: HashMap<VReg, (usize, usize)> = HashMap::default();
    for (i, inst) in vcode.insts.iter().enumerate() {
        inst.for_each_reg(|v, def| {
            if vcode.class(v) != VClass::Pred || excluded.contains(&v) {
                return;
            }
            let e = span.entry(v).or_insert((i, i));
            if def {
                e.0 = i;
            }
            e.1 = e.1.max(i);
        });
    }
    let mut v: Vec<(usize, VReg)> = span.into_iter().map(|(v, (d, u))| (u.saturating_sub(d), v)).collect();
    v.sort_by_key(|&(len, r)| (std::cmp::Reverse(len), r.0));
    v.into_iter().filter(|&(len, _)| len > 2).map(|(_, r)| r).collect()
}

/// The demotions that relieve every crowded point (`pressure::pred_crowding`) for the fewest
/// added instructions, chosen greedily: a demoted predicate costs its `SEL` and one reload
/// per instruction that reads it, and relieves the points where it is live. Candidates are
/// taken best ratio first (ties in `candidates`' order, longest-lived first). Empty when no
/// candidate is live at a crowded point.
pub fn cheapest_cover(vcode: &VCode, candidates: &[VReg], crowded: &[Crowded]) -> Vec<VReg> {
    let mut readers: HashMap<VReg, usize> = candidates.iter().map(|&c| (c, 0)).collect();
    for inst in &vcode.insts {
        let mut read: SmallVec<[VReg; 4]> = SmallVec::new();
        inst.for_each_reg(|v, def| {
            if !def && readers.contains_key(&v) && !read.contains(&v) {
                read.push(v);
            }
        });
        for v in read {
            *readers.get_mut(&v).expect("a candidate") += 1;
        }
    }
    let costs: Vec<(VReg, usize)> = candidates.iter().map(|&c| (c, 1 + readers[&c])).collect();
    greedy_cover(&costs, crowded)
}

/// The greedy cover of [`cheapest_cover`]: `costs` are the candidates with the instructions
/// each one's demotion adds, in order of preference among equals.
fn greedy_cover(costs: &[(VReg, usize)], crowded: &[Crowded]) -> Vec<VReg> {
    let mut need: Vec<usize> = crowded.iter().map(|c| c.excess).collect();
    // The crowded points where each candidate is live.
    let index: HashMap<VReg, usize> = costs.iter().enumerate().map(|(k, &(c, _))| (c, k)).collect();
    let mut points: Vec<Vec<usize>> = vec![Vec::new(); costs.len()];
    for (p, point) in crowded.iter().enumerate() {
        for k in point.live.iter().filter_map(|v| index.get(v)) {
            points[*k].push(p);
        }
    }
    let mut taken = vec![false; costs.len()];
    let mut chosen: Vec<VReg> = Vec::new();
    loop {
        // Best relief per instruction added: a/b > c/d as a*d > c*b.
        let mut best: Option<(usize, usize, usize)> = None;
        for (k, &(_, cost)) in costs.iter().enumerate().filter(|&(k, _)| !taken[k]) {
            let gain = points[k].iter().filter(|&&p| need[p] > 0).count();
            if gain > 0 && best.is_none_or(|(_, g, c)| gain * c > g * cost) {
                best = Some((k, gain, cost));
            }
        }
        let Some((k, _, _)) = best else { break };
        for &p in &points[k] {
            need[p] = need[p].saturating_sub(1);
        }
        taken[k] = true;
        chosen.push(costs[k].0);
    }
    chosen
}

/// Demotes `preds` to general registers.
pub fn demote(vcode: &mut VCode, preds: &[VReg]) {
    // In order: the reloads before an instruction and the fresh registers' numbers must not
    // depend on hashing (the output must be deterministic).
    let homes: Vec<(VReg, VReg)> = preds.iter().map(|&p| (p, vcode.new_vreg(VClass::Single))).collect();
    // Index into `homes` of each demoted predicate, by register number.
    let mut home_index: Vec<Option<usize>> = vec![None; vcode.classes.len()];
    for (k, &(p, _)) in homes.iter().enumerate() {
        home_index[p.0 as usize] = Some(k);
    }
    let home_of = |v: VReg| home_index.get(v.0 as usize).copied().flatten();
    let old = std::mem::take(&mut vcode.insts);
    let ranges: Vec<(u32, u32)> = vcode.blocks.iter().map(|blk| (blk.start, blk.end)).collect();
    let mut out: Vec<MInst> = Vec::with_capacity(old.len() + 4 * preds.len());
    let mut used: Vec<usize> = Vec::new();
    for (b, &(first, last)) in ranges.iter().enumerate() {
        let start = out.len() as u32;
        for inst in &old[first as usize..last as usize] {
            let mut inst = inst.clone();
            used.clear();
            inst.for_each_reg(|v, def| {
                if !def && let Some(k) = home_of(v) {
                    used.push(k);
                }
            });
            used.sort_unstable();
            used.dedup();
            for &k in &used {
                let (p, g) = homes[k];
                let fresh = vcode.new_vreg(VClass::Pred);
                out.push(reload(fresh, g));
                replace_uses(&mut inst, p, fresh);
            }
            let mut defs = Vec::new();
            inst.for_each_reg(|v, def| {
                if def && let Some(k) = home_of(v) {
                    defs.push((homes[k].1, v));
                }
            });
            out.push(inst);
            out.extend(defs.into_iter().map(|(g, p)| store(g, p)));
        }
        vcode.blocks[b].start = start;
        vcode.blocks[b].end = out.len() as u32;
    }
    vcode.insts = out;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(excess: usize, live: &[u32]) -> Crowded {
        Crowded {
            excess,
            live: live.iter().map(|&v| VReg(v)).collect(),
        }
    }

    #[test]
    fn the_cover_demotes_the_predicates_read_least() {
        // Nine predicates live across two crowded points: the two longest-lived (listed
        // first) are read eight times each, the others once or twice.
        let all: Vec<u32> = (0..9).collect();
        let crowded = [point(2, &all), point(2, &all)];
        let costs: Vec<(VReg, usize)> = (0..9)
            .map(|v| (VReg(v), if v < 2 { 9 } else { 2 + v as usize % 2 }))
            .collect();
        assert_eq!(greedy_cover(&costs, &crowded), vec![VReg(2), VReg(4)]);
    }

    #[test]
    fn the_cover_relieves_every_crowded_point() {
        // Point one crowds 0..8, point two 4..12: one demotion each, or one shared.
        let crowded = [
            point(1, &[0, 1, 2, 3, 4, 5, 6, 7]),
            point(1, &[4, 5, 6, 7, 8, 9, 10, 11]),
        ];
        let costs: Vec<(VReg, usize)> = (0..12).map(|v| (VReg(v), 3)).collect();
        assert_eq!(greedy_cover(&costs, &crowded), vec![VReg(4)]);
        // Without a shared candidate the cover takes one from each.
        let costs: Vec<(VReg, usize)> = [0, 1, 8, 9].iter().map(|&v| (VReg(v), 3)).collect();
        assert_eq!(greedy_cover(&costs, &crowded), vec![VReg(0), VReg(8)]);
    }

    #[test]
    fn no_cover_without_a_candidate_at_a_crowded_point() {
        let crowded = [point(1, &[0, 1, 2, 3, 4, 5, 6, 7])];
        assert!(greedy_cover(&[(VReg(9), 1)], &crowded).is_empty());
    }
}
