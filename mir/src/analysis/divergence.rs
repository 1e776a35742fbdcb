//! Divergence analysis: which values may differ between the threads of a warp that execute
//! an instruction together, and so which conditional branches may split a warp (and need a
//! convergence barrier) and which loops the threads of a warp may leave in different
//! iterations.
//!
//! A value is divergent when it comes from a per-thread source (`%tid`, `%laneid`, the lane
//! masks, the clocks, per-thread memory (but a device function's arguments that every call
//! passes uniform), atomics, shuffles, `match.any`, matrix fragments, driver calls), reads a
//! divergent value, or is a block parameter that merges the paths of
//! a divergent branch (sync dependence: its join or any block both paths reach before it).
//! A loop that a divergent branch leaves is left by the threads in different iterations, so
//! every value of the loop that is read after it is divergent there (temporal divergence;
//! this analysis marks the value divergent everywhere, which is conservative).
//! Everything else is uniform: the same in every thread executing it, such as a load of a
//! uniform address (one instruction reads one location for all its threads).

use super::dom::{DomPreorder, DomTree};
use super::loops::{Loop, natural_loops};
use super::postdom::PostDomTree;
use crate::ir::{Aux, Block, Function, InstData, Opcode, Space, SpecialReg, Value, ValueDef};
use cranelift_entity::SecondaryMap;

/// The divergence facts of one function.
pub struct Divergence {
    divergent: SecondaryMap<Value, bool>,
    /// The edges by which divergent branches leave loops (from the branching block).
    divergent_exits: Vec<(Block, Block)>,
}

/// The analysis state besides the facts: what has been done once and need not be redone.
struct Work {
    /// The block of every instruction.
    block_of: SecondaryMap<crate::ir::Inst, Option<Block>>,
    /// Divergent branches whose meeting points are marked (by their block).
    joined: SecondaryMap<Block, bool>,
    /// Loops whose values read after them are marked.
    left: Vec<bool>,
    /// Two visit marks for the searches of [`reach`].
    marks: [SecondaryMap<Block, u32>; 2],
    stamp: u32,
    /// The blocks of the loop [`Divergence::temporal`] looks at (a dense copy of its body,
    /// cleared after each loop).
    in_loop: SecondaryMap<Block, bool>,
    /// The dominator tree in preorder: where a loop's values can be read.
    dominated: DomPreorder,
    /// The unreachable blocks (the verifier does not ask their reads to be dominated).
    unreachable: Vec<Block>,
}

impl Divergence {
    /// Analyses `func`.
    pub fn new(func: &Function) -> Divergence {
        let mut d = Divergence {
            divergent: SecondaryMap::new(),
            divergent_exits: Vec::new(),
        };
        let dom = DomTree::new(func);
        let pdom = PostDomTree::new(func);
        let loops = natural_loops(func, &dom);
        let mut work = Work {
            block_of: SecondaryMap::with_default(None),
            joined: SecondaryMap::new(),
            left: vec![false; loops.len()],
            marks: [SecondaryMap::new(), SecondaryMap::new()],
            stamp: 0,
            in_loop: SecondaryMap::new(),
            dominated: dom.preorder(),
            unreachable: func.layout.iter().copied().filter(|&b| !dom.is_reachable(b)).collect(),
        };
        for &b in &func.layout {
            for &i in &func.blocks[b].insts {
                work.block_of[i] = Some(b);
            }
        }
        loop {
            let mut changed = d.propagate(func);
            changed |= d.sync_dependence(func, &pdom, &mut work);
            changed |= d.temporal(func, &loops, &mut work);
            if !changed {
                break;
            }
        }
        let left = loops.iter().zip(&work.left).filter(|(_, left)| **left);
        d.divergent_exits = left.flat_map(|(l, _)| d.exits_divergently(func, l)).collect();
        d
    }

    /// True if `v` may differ between the threads that execute its definition together.
    pub fn is_divergent(&self, v: Value) -> bool {
        self.divergent[v]
    }

    /// True if a conditional branch on `cond` takes every thread of the warp the same way.
    pub fn is_uniform(&self, cond: Value) -> bool {
        !self.divergent[cond]
    }

    /// True if some loop is left by a divergent branch (its threads leave in different
    /// iterations).
    pub fn has_divergent_loop(&self) -> bool {
        // Every loop a divergent branch leaves has such an exit edge.
        !self.divergent_exits.is_empty()
    }

    /// The edges `(from, to)` by which divergent branches leave loops.
    pub fn divergent_exits(&self) -> &[(Block, Block)] {
        &self.divergent_exits
    }

    /// Marks `v` divergent; true if it was not.
    fn mark(&mut self, v: Value) -> bool {
        !std::mem::replace(&mut self.divergent[v], true)
    }

    /// Forward sweeps over the instructions and the branch arguments until nothing changes;
    /// true if the first one changed something.
    fn propagate(&mut self, func: &Function) -> bool {
        let mut any = false;
        loop {
            let mut changed = false;
            for &b in &func.layout {
                for &i in &func.blocks[b].insts {
                    let data = &func.insts[i];
                    let results = &func.results[i];
                    if results.iter().any(|&r| !self.divergent[r])
                        && (source_is_divergent(func, data) || data.args.iter().any(|&a| self.divergent[a]))
                    {
                        for &r in results {
                            changed |= self.mark(r);
                        }
                    }
                    for call in data.targets() {
                        let params = &func.blocks[call.block].params;
                        for (&a, &p) in call.args.iter().zip(params) {
                            if self.divergent[a] {
                                changed |= self.mark(p);
                            }
                        }
                    }
                }
            }
            any |= changed;
            if !changed {
                return any;
            }
        }
    }

    /// Whether the conditional branch ending `b` is divergent.
    fn divergent_branch(&self, func: &Function, b: Block) -> bool {
        func.terminator(b).is_some_and(|t| {
            let data = &func.insts[t];
            data.op == Opcode::Brif && self.divergent[data.args[0]]
        })
    }

    /// Block parameters where the two paths of a divergent branch meet: at its join (the
    /// immediate post-dominator) and at every block both paths reach before it.
    fn sync_dependence(&mut self, func: &Function, pdom: &PostDomTree, work: &mut Work) -> bool {
        let mut changed = false;
        for &b in &func.layout {
            if work.joined[b] || !self.divergent_branch(func, b) {
                continue;
            }
            work.joined[b] = true;
            let succs = func.successors(b);
            let meets: Vec<Block> = if succs[0] == succs[1] {
                vec![succs[0]]
            } else {
                work.stamp += 1;
                let join = pdom.ipdom(b);
                reach(func, succs[0], b, join, &mut work.marks[0], work.stamp);
                let second = reach(func, succs[1], b, join, &mut work.marks[1], work.stamp);
                let (in_first, stamp) = (&work.marks[0], work.stamp);
                second.into_iter().filter(|&m| in_first[m] == stamp).collect()
            };
            for m in meets {
                for &p in &func.blocks[m].params {
                    changed |= self.mark(p);
                }
            }
        }
        changed
    }

    /// Whether a divergent branch leaves loop `l`.
    fn leaves_divergently(&self, func: &Function, l: &Loop) -> bool {
        self.exits_divergently(func, l).next().is_some()
    }

    /// The edges `(from, to)` by which divergent branches leave loop `l`.
    fn exits_divergently<'f>(&'f self, func: &'f Function, l: &'f Loop) -> impl Iterator<Item = (Block, Block)> + 'f {
        let branches = l.blocks.iter().filter(move |&&b| self.divergent_branch(func, b));
        branches.flat_map(move |&b| {
            let outside = func.successors(b).into_iter().filter(move |s| !l.body.contains(s));
            outside.map(move |s| (b, s))
        })
    }

    /// Values of a loop that a divergent branch leaves, read after the loop (by an
    /// instruction outside it, or on an edge out of it).
    fn temporal(&mut self, func: &Function, loops: &[Loop], work: &mut Work) -> bool {
        let mut changed = false;
        for (n, l) in loops.iter().enumerate() {
            if work.left[n] || !self.leaves_divergently(func, l) {
                continue;
            }
            work.left[n] = true;
            for &b in &l.blocks {
                work.in_loop[b] = true;
            }
            let (body, block_of) = (&work.in_loop, &work.block_of);
            let inside = |v: Value| match func.values[v].def {
                ValueDef::Result(i, _) => block_of[i].is_some_and(|b| body[b]),
                ValueDef::Param(blk, _) => body[blk],
            };
            // A value of the loop is read only where its definition, and so the loop's
            // header, dominates (the verifier checks it in reachable blocks).
            let reachable = work.dominated.dominated(l.header);
            let scanned: &[Block] = if reachable.is_empty() { &func.layout } else { reachable };
            let unreachable = if reachable.is_empty() {
                &[][..]
            } else {
                &work.unreachable[..]
            };
            let mut read_after: Vec<Value> = Vec::new();
            for &b in scanned.iter().chain(unreachable) {
                let in_loop = body[b];
                for &i in &func.blocks[b].insts {
                    let data = &func.insts[i];
                    if !in_loop {
                        read_after.extend(data.args.iter().copied().filter(|&v| inside(v)));
                    }
                    for call in data.targets().iter().filter(|c| !in_loop || !body[c.block]) {
                        read_after.extend(call.args.iter().copied().filter(|&v| inside(v)));
                    }
                }
            }
            for &b in &l.blocks {
                work.in_loop[b] = false;
            }
            for v in read_after {
                changed |= self.mark(v);
            }
        }
        changed
    }
}

/// Whether an instruction's results differ between threads whatever its arguments.
fn source_is_divergent(func: &Function, data: &InstData) -> bool {
    use Opcode as O;
    match data.op {
        O::Special => matches!(data.aux, Aux::Special(sr) if per_thread_special(sr)),
        O::Addr => matches!(data.aux, Aux::Var(v) if func.vars[v as usize].space == Space::Local),
        O::ToGeneric => matches!(data.aux, Aux::Space(Space::Local)),
        O::Load => matches!(data.aux, Aux::Mem(m) if m.space == Space::Local && !uniform_argument(func, data)),
        O::Atom
        | O::Shfl
        | O::MatchAny
        | O::Ldmatrix
        | O::Movmatrix
        | O::MmaInt
        | O::MmaF16
        | O::MmaIntM16n8
        | O::Mma884
        | O::MmaF64
        | O::Wgmma
        | O::Elect
        | O::MbarArrive
        | O::MbarPhaseTest
        | O::CallDriver => true,
        _ => false,
    }
}

/// Whether `data`, a load of local memory, reads an argument of a device function that
/// every call passes the same in every thread (`Function::uniform_args`).
fn uniform_argument(func: &Function, data: &InstData) -> bool {
    let (Some(&addr), Aux::Mem(m)) = (data.args.first(), &data.aux) else {
        return false;
    };
    let from_area = matches!(func.values[addr].def, ValueDef::Result(i, _) if func.insts[i].op == Opcode::ArgArea);
    let (start, end) = (
        m.offset,
        m.offset + i64::from(data.ty.bytes()) * i64::from(m.vector.max(1)),
    );
    from_area
        && func
            .uniform_args
            .iter()
            .any(|&(at, size)| i64::from(at) <= start && end <= i64::from(at + size))
}

/// Special registers whose value differs between the threads of a warp (the clocks too:
/// ptxc does not rely on one read serving the whole warp).
fn per_thread_special(sr: SpecialReg) -> bool {
    use SpecialReg as S;
    matches!(
        sr,
        S::Tid(_)
            | S::LaneId
            | S::LaneMaskEq
            | S::LaneMaskLe
            | S::LaneMaskLt
            | S::LaneMaskGe
            | S::LaneMaskGt
            | S::Clock
            | S::Clock64
            | S::GlobalTimer
            | S::GlobalTimerLo
            | S::GlobalTimerHi
    )
}

/// The blocks reached from `from` without passing `avoid`, stopping at `stop` (which is
/// included when reached); each is marked with `stamp` in `marks`.
fn reach(
    func: &Function,
    from: Block,
    avoid: Block,
    stop: Option<Block>,
    marks: &mut SecondaryMap<Block, u32>,
    stamp: u32,
) -> Vec<Block> {
    let mut seen = Vec::new();
    let mut work = vec![from];
    while let Some(b) = work.pop() {
        if b == avoid || marks[b] == stamp {
            continue;
        }
        marks[b] = stamp;
        seen.push(b);
        if Some(b) != stop {
            work.extend(func.successors(b));
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse::parse_function;

    /// The function `text` describes and its analysis.
    fn analyse(text: &str) -> (Function, Divergence) {
        let f = parse_function(text).expect("valid MIR");
        let d = Divergence::new(&f);
        (f, d)
    }

    fn value(f: &Function, n: u32) -> Value {
        f.values.keys().find(|v| v.as_u32() == n).expect("value exists")
    }

    #[test]
    fn thread_index_diverges_and_parameters_do_not() {
        let (f, d) = analyse(
            "kernel k(p: 4@0 align 4) {
block0:
    v0 = param.i32 param+0
    v1 = special.i32 %tid.x
    v2 = special.i32 %ctaid.x
    v3 = iadd.i32 v0, v2
    v4 = iadd.i32 v3, v1
    v5 = icmp.lt.i32 v3, v0
    exit.i32
}",
        );
        assert!(!d.is_divergent(value(&f, 3)));
        assert!(d.is_divergent(value(&f, 4)));
        assert!(d.is_uniform(value(&f, 5)));
        assert!(!d.has_divergent_loop());
    }

    #[test]
    fn loads_of_uniform_addresses_are_uniform_except_per_thread_memory() {
        let (f, d) = analyse(
            "kernel k(p: 8@0 align 8) {
    var @l: local 16 align 4
block0:
    v0 = param.i64 param+0
    v1 = load.global.i32 v0
    v2 = addr.i64 @l
    v3 = load.local.i32 v2
    v4 = const.i32 0x1
    v5 = atom.global.add.i32 v0, v4
    exit.i32
}",
        );
        assert!(!d.is_divergent(value(&f, 1)));
        assert!(d.is_divergent(value(&f, 3)));
        assert!(d.is_divergent(value(&f, 5)));
    }

    #[test]
    fn a_join_of_a_divergent_branch_merges_divergently() {
        let (f, d) = analyse(
            "kernel k(p: 4@0 align 4) {
block0:
    v0 = param.i32 param+0
    v1 = special.i32 %tid.x
    v2 = icmp.lt.i32 v1, v0
    v3 = const.i32 0x1
    v4 = const.i32 0x2
    brif.pred v2, block1, block2
block1:
    jump.i32 block3(v3)
block2:
    jump.i32 block3(v4)
block3(v5: i32):
    v6 = icmp.lt.i32 v0, v3
    brif.pred v6, block4(v3), block4(v4)
block4(v7: i32):
    exit.i32
}",
        );
        assert!(d.is_divergent(value(&f, 5)), "merged by a divergent branch");
        assert!(!d.is_divergent(value(&f, 7)), "merged by a uniform branch");
    }

    #[test]
    fn a_loop_left_divergently_makes_its_values_divergent_after_it() {
        let (f, d) = analyse(
            "kernel k(p: 4@0 align 4) {
block0:
    v0 = param.i32 param+0
    v1 = special.i32 %tid.x
    v2 = const.i32 0x0
    jump.i32 block1(v2)
block1(v3: i32):
    v4 = const.i32 0x1
    v5 = iadd.i32 v3, v4
    v6 = icmp.lt.i32 v5, v1
    brif.pred v6, block1(v5), block2
block2:
    v7 = iadd.i32 v5, v0
    exit.i32
}",
        );
        assert!(d.is_divergent(value(&f, 6)));
        assert!(d.is_divergent(value(&f, 7)), "threads leave in different iterations");
        assert!(d.has_divergent_loop());
    }

    #[test]
    fn a_loop_with_a_uniform_trip_count_is_uniform() {
        let (f, d) = analyse(
            "kernel k(p: 4@0 align 4) {
block0:
    v0 = param.i32 param+0
    v1 = special.i32 %tid.x
    v2 = const.i32 0x0
    jump.i32 block1(v2, v1)
block1(v3: i32, v8: i32):
    v4 = const.i32 0x1
    v5 = iadd.i32 v3, v4
    v9 = iadd.i32 v8, v4
    v6 = icmp.lt.i32 v5, v0
    brif.pred v6, block1(v5, v9), block2
block2:
    v7 = iadd.i32 v5, v0
    exit.i32
}",
        );
        assert!(d.is_uniform(value(&f, 6)));
        assert!(!d.is_divergent(value(&f, 7)));
        assert!(d.is_divergent(value(&f, 9)));
        assert!(!d.has_divergent_loop());
    }
}
