//! Predicate demotion: when more than seven predicates are live at once, the longest-lived
//! predicates are kept in general registers instead. After the definition of a demoted
//! predicate `p`, `SEL g, RZ, 0x1, !p` stores it as 0/1; before each use,
//! `ISETP.NE.U32.AND p', PT, g, RZ, PT` recreates it, and the use reads `p'`. The VCode stays
//! in SSA form, so the allocation simply runs again (ptxas likewise moves predicates to
//! general registers, with P2R/R2P).

use crate::vcode::{MInst, MKind, MOp, Slot, VClass, VCode, VReg, is_def_role};
use ptxc_sass::isa::Mod;
use ptxc_sass::isa::desc::Role;
use ptxc_sass::isa::values::{BoolOp, IntCmp};
use ptxc_sass::isa::{Op, PT, RZ, Value};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
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
