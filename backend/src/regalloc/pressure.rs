//! Register pressure: the largest number of simultaneously live virtual registers of each
//! class, from a backward liveness analysis over the VCode blocks.

use crate::vcode::{MKind, VClass, VCode, VReg};

/// The classes, in the order of the counters below.
const CLASSES: [VClass; 4] = [VClass::Single, VClass::Pair, VClass::Quad, VClass::Pred];

fn class_index(vcode: &VCode, v: VReg) -> usize {
    CLASSES
        .iter()
        .position(|&c| c == vcode.class(v))
        .expect("every class is listed")
}

/// A dense set of virtual registers.
#[derive(Clone, PartialEq, Eq)]
struct VSet(Vec<u64>);

impl VSet {
    fn new(n: usize) -> VSet {
        VSet(vec![0; n.div_ceil(64)])
    }
    fn contains(&self, v: VReg) -> bool {
        self.0[v.0 as usize / 64] & (1 << (v.0 % 64)) != 0
    }
    /// Inserts `v`; true if it was absent.
    fn insert(&mut self, v: VReg) -> bool {
        let (w, bit) = (v.0 as usize / 64, 1u64 << (v.0 % 64));
        let absent = self.0[w] & bit == 0;
        self.0[w] |= bit;
        absent
    }
    /// Removes `v`; true if it was present.
    fn remove(&mut self, v: VReg) -> bool {
        let (w, bit) = (v.0 as usize / 64, 1u64 << (v.0 % 64));
        let present = self.0[w] & bit != 0;
        self.0[w] &= !bit;
        present
    }
    fn iter(&self) -> impl Iterator<Item = VReg> + '_ {
        super::set_bits(&self.0).map(VReg)
    }
}

/// One dense set per block in one allocation: row `b` is `bits[b * words..(b + 1) * words]`.
struct Rows {
    words: usize,
    bits: Vec<u64>,
}

impl Rows {
    /// `rows` empty sets of `n` registers.
    fn new(rows: usize, n: usize) -> Rows {
        let words = n.div_ceil(64);
        Rows {
            words,
            bits: vec![0; rows * words],
        }
    }

    fn row(&self, b: usize) -> &[u64] {
        &self.bits[b * self.words..(b + 1) * self.words]
    }

    fn row_mut(&mut self, b: usize) -> &mut [u64] {
        &mut self.bits[b * self.words..(b + 1) * self.words]
    }
}

/// Sets bit `v` of a set's words.
fn set_bit(words: &mut [u64], v: VReg) {
    words[v.0 as usize / 64] |= 1 << (v.0 % 64);
}

/// Clears bit `v` of a set's words.
fn clear_bit(words: &mut [u64], v: VReg) {
    words[v.0 as usize / 64] &= !(1 << (v.0 % 64));
}

/// The register pressure of a function, per class (single, pair, quad, predicate).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pressure {
    /// The most values live at an instruction when its definitions and all its sources are
    /// counted together (a source that dies there and a definition may in fact share a
    /// register): the region sizes the allocation starts from.
    pub wanted: [usize; 4],
    /// The most values live at one program point, as regalloc2 sees them: before an
    /// instruction its sources and the values live through it (and its definitions, if
    /// they are written early), after it its definitions and the values live through it.
    /// No allocation without spills has fewer registers of a class than this.
    pub lower: [usize; 4],
    /// Number of virtual registers of each class that the code mentions.
    pub values: [usize; 4],
}

impl Pressure {
    /// The entry of `class`.
    pub fn of(counts: &[usize; 4], class: VClass) -> usize {
        counts[CLASSES.iter().position(|&c| c == class).expect("every class is listed")]
    }
}

/// The register pressure of `vcode`'s general registers (the predicate entries stay 0:
/// `pred_lower_bound` measures those), by backward liveness over its blocks.
pub fn max_live(vcode: &VCode) -> Pressure {
    let num = Numbering::new(vcode, |v| {
        !matches!(
            vcode.class(v),
            VClass::Pred | VClass::Uniform | VClass::UniformPair | VClass::Fixed(_)
        )
    });
    let refs = Refs::new(vcode, &num);
    let live_out = live_out(vcode, &num, &refs);
    // The class index of each tracked register, by dense number.
    let mut class_of = vec![0u8; num.count];
    for v in 0..vcode.classes.len() as u32 {
        if let Some(d) = num.of(VReg(v)) {
            class_of[d.0 as usize] = class_index(vcode, VReg(v)) as u8;
        }
    }
    let class = |v: VReg| class_of[v.0 as usize] as usize;
    let mut p = Pressure::default();
    let raise = |max: &mut [usize; 4], count: &[usize; 4]| {
        for k in 0..4 {
            max[k] = max[k].max(count[k]);
        }
    };
    let mut seen = VSet::new(num.count);
    for blk in &vcode.blocks {
        for &v in blk.params.iter().chain(blk.succ_args.iter().flatten()) {
            if let Some(v) = num.of(v)
                && seen.insert(v)
            {
                p.values[class(v)] += 1;
            }
        }
    }
    let mut defs = Vec::new();
    let mut uses = Vec::new();
    let mut extra: Vec<VReg> = Vec::new();
    let mut live = VSet::new(num.count);
    for (b, blk) in vcode.blocks.iter().enumerate() {
        live.0.copy_from_slice(live_out.row(b));
        let mut count = [0usize; 4];
        for v in live.iter() {
            count[class(v)] += 1;
        }
        raise(&mut p.wanted, &count);
        raise(&mut p.lower, &count);
        for i in (blk.start as usize..blk.end as usize).rev() {
            let inst = &vcode.insts[i];
            defs.clear();
            uses.clear();
            for &(v, is_def) in refs.of(i) {
                if is_def { defs.push(v) } else { uses.push(v) }
            }
            // Definitions and the values live across the instruction coexist; after the
            // instruction, what is live after it and its dead definitions.
            let mut during = count;
            let mut after = count;
            extra.clear();
            for &v in &defs {
                if seen.insert(v) {
                    p.values[class(v)] += 1;
                }
                if !live.contains(v) && !extra.contains(&v) {
                    extra.push(v);
                    during[class(v)] += 1;
                    after[class(v)] += 1;
                }
            }
            for &v in &uses {
                if seen.insert(v) {
                    p.values[class(v)] += 1;
                }
                if !live.contains(v) && !extra.contains(&v) {
                    extra.push(v);
                    during[class(v)] += 1;
                }
            }
            raise(&mut p.wanted, &during);
            raise(&mut p.lower, &after);
            for &d in &defs {
                if live.remove(d) {
                    count[class(d)] -= 1;
                }
            }
            for &u in &uses {
                if live.insert(u) {
                    count[class(u)] += 1;
                }
            }
            // Before the instruction: its sources and what lives through it, with its
            // definitions too where they are written early (the wide operations).
            let before = if matches!(inst.kind, MKind::Wide { .. }) {
                during
            } else {
                count
            };
            raise(&mut p.lower, &before);
        }
    }
    p
}

/// The blocks' effects on liveness: `live_in = (live_out - kills) | exposed`, where `kills`
/// holds a block's definitions and parameters and `exposed` the uses not defined before them.
struct Transfers {
    kills: Rows,
    exposed: Rows,
}

/// Dense numbers for the virtual registers a liveness analysis tracks (the others are
/// ignored), so that sets stay small when only one class matters.
struct Numbering {
    number: Vec<u32>,
    count: usize,
}

impl Numbering {
    fn new(vcode: &VCode, tracked: impl Fn(VReg) -> bool) -> Numbering {
        let mut count = 0;
        let number = (0..vcode.classes.len() as u32)
            .map(|v| {
                if tracked(VReg(v)) {
                    count += 1;
                    count as u32 - 1
                } else {
                    u32::MAX
                }
            })
            .collect();
        Numbering { number, count }
    }
    /// The dense number of `v`, if tracked.
    fn of(&self, v: VReg) -> Option<VReg> {
        let n = self.number[v.0 as usize];
        (n != u32::MAX).then_some(VReg(n))
    }
}

/// The tracked registers each instruction reads and writes (in `for_each_reg`'s order, as
/// dense numbers), gathered in one walk over the code for the analyses that visit every
/// instruction several times.
struct Refs {
    /// Instruction `i`'s references are `regs[start[i]..start[i + 1]]`.
    start: Vec<u32>,
    /// (register, is a definition).
    regs: Vec<(VReg, bool)>,
}

impl Refs {
    fn new(vcode: &VCode, num: &Numbering) -> Refs {
        let mut start = Vec::with_capacity(vcode.insts.len() + 1);
        let mut regs = Vec::new();
        start.push(0);
        for inst in &vcode.insts {
            inst.for_each_reg(|v, is_def| {
                if let Some(v) = num.of(v) {
                    regs.push((v, is_def));
                }
            });
            start.push(regs.len() as u32);
        }
        Refs { start, regs }
    }

    /// The references of instruction `i`.
    fn of(&self, i: usize) -> &[(VReg, bool)] {
        &self.regs[self.start[i] as usize..self.start[i + 1] as usize]
    }
}

fn transfers(vcode: &VCode, num: &Numbering, refs: &Refs) -> Transfers {
    let n = vcode.blocks.len();
    let mut t = Transfers {
        kills: Rows::new(n, num.count),
        exposed: Rows::new(n, num.count),
    };
    for (b, blk) in vcode.blocks.iter().enumerate() {
        let (kills, exposed) = (t.kills.row_mut(b), t.exposed.row_mut(b));
        for i in (blk.start as usize..blk.end as usize).rev() {
            let r = refs.of(i);
            for &(v, _) in r.iter().filter(|&&(_, is_def)| is_def) {
                set_bit(kills, v);
                clear_bit(exposed, v);
            }
            for &(v, _) in r.iter().filter(|&&(_, is_def)| !is_def) {
                set_bit(exposed, v);
            }
        }
        for p in blk.params.iter().filter_map(|&p| num.of(p)) {
            set_bit(kills, p);
            clear_bit(exposed, p);
        }
    }
    t
}

/// Live-out sets per block (block parameters are defined at block entry; branch arguments
/// are used at the end of the predecessor).
/// (In `num`'s dense numbers.)
fn live_out(vcode: &VCode, num: &Numbering, refs: &Refs) -> Rows {
    let n = vcode.blocks.len();
    let nv = num.count;
    let t = transfers(vcode, num, refs);
    let mut live_in = Rows::new(n, nv);
    let mut live_out = Rows::new(n, nv);
    let mut out = VSet::new(nv);
    let mut live = VSet::new(nv);
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..n).rev() {
            let blk = &vcode.blocks[b];
            out.0.fill(0);
            for (s, args) in blk.succs.iter().zip(&blk.succ_args) {
                out.0
                    .iter_mut()
                    .zip(live_in.row(s.0 as usize))
                    .for_each(|(a, b)| *a |= b);
                args.iter().filter_map(|&a| num.of(a)).for_each(|a| {
                    out.insert(a);
                });
            }
            live.0
                .iter_mut()
                .zip(out.0.iter().zip(t.kills.row(b).iter().zip(t.exposed.row(b))))
                .for_each(|(l, (o, (k, e)))| *l = (o & !k) | e);
            if live.0 != live_in.row(b) {
                live_in.row_mut(b).copy_from_slice(&live.0);
                changed = true;
            }
            if out.0 != live_out.row(b) {
                live_out.row_mut(b).copy_from_slice(&out.0);
                changed = true;
            }
        }
    }
    live_out
}

/// Walks the predicates' program points backwards through every block, as
/// [`pred_lower_bound`] counts them: `visit(live, dead, count)` sees each block's live-out
/// set, then for each instruction the set live out of it with the definitions nobody reads
/// (`dead`, written late), then the set live into it (`dead` empty); `count` is the number
/// of predicates in `live`. The sets are in `num`'s dense numbers.
fn walk_pred_points(vcode: &VCode, num: &Numbering, mut visit: impl FnMut(&VSet, &[VReg], usize)) {
    let refs = Refs::new(vcode, num);
    let live_out = live_out(vcode, num, &refs);
    let (mut defs, mut uses, mut dead) = (Vec::new(), Vec::new(), Vec::new());
    let mut live = VSet::new(num.count);
    for (b, blk) in vcode.blocks.iter().enumerate() {
        live.0.copy_from_slice(live_out.row(b));
        let mut count = live.iter().count();
        visit(&live, &[], count);
        for i in (blk.start as usize..blk.end as usize).rev() {
            defs.clear();
            uses.clear();
            for &(v, is_def) in refs.of(i) {
                if is_def { defs.push(v) } else { uses.push(v) }
            }
            dead.clear();
            dead.extend(defs.iter().copied().filter(|&d| !live.contains(d)));
            visit(&live, &dead, count);
            for &d in &defs {
                count -= usize::from(live.remove(d));
            }
            for &u in &uses {
                count += usize::from(live.insert(u));
            }
            visit(&live, &[], count);
        }
    }
}

/// A lower bound on the predicate registers any allocation needs: the most predicates live
/// into an instruction (sources read early) or out of it with its definitions (written
/// late). Above seven, regalloc2 cannot place them in P0..P6 without spilling.
pub fn pred_lower_bound(vcode: &VCode) -> usize {
    let num = Numbering::new(vcode, |v| vcode.class(v) == VClass::Pred);
    let mut bound = 0;
    walk_pred_points(vcode, &num, |_, dead, count| bound = bound.max(count + dead.len()));
    bound
}

/// A program point where more predicates are live than P0..P6 hold: how many too many,
/// and the predicates live there.
pub struct Crowded {
    /// Live predicates beyond seven.
    pub excess: usize,
    /// The predicates live at the point (its definitions included).
    pub live: Vec<VReg>,
}

/// The points where more than seven predicates are live, as [`pred_lower_bound`] counts
/// them (into an instruction, or out of it with its definitions).
pub fn pred_crowding(vcode: &VCode) -> Vec<Crowded> {
    const HELD: usize = 7;
    let num = Numbering::new(vcode, |v| vcode.class(v) == VClass::Pred);
    let mut vreg_of = vec![VReg(0); num.count];
    for v in (0..vcode.classes.len() as u32).map(VReg) {
        if let Some(n) = num.of(v) {
            vreg_of[n.0 as usize] = v;
        }
    }
    // One point per distinct set of live predicates (points in a row often share one).
    let mut points: Vec<Crowded> = Vec::new();
    let mut seen: rustc_hash::FxHashSet<Vec<VReg>> = Default::default();
    walk_pred_points(vcode, &num, |live, dead, count| {
        if count + dead.len() <= HELD {
            return;
        }
        let mut set: Vec<VReg> = live
            .iter()
            .chain(dead.iter().copied())
            .map(|n| vreg_of[n.0 as usize])
            .collect();
        set.sort_unstable_by_key(|v| v.0);
        if seen.insert(set.clone()) {
            points.push(Crowded {
                excess: set.len() - HELD,
                live: set,
            });
        }
    });
    points
}
