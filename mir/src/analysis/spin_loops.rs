//! Spin loops: loops in which a thread may wait for another thread of its own warp, which
//! the warp's scheduler must let run (forward progress under independent thread
//! scheduling). ptxas gives such loops on sm_75 a latch that yields and waits for the
//! threads that arrive (`docs/CUBIN.md`, section 4); this analysis finds them as its probes
//! show ptxas does, on the PTX operations (before the back end adds loops of its own):
//!
//! - the loop holds (itself or in a loop it contains) an access another thread may be
//!   waiting on or for: an atomic (`atom` in any space, `red` except to global memory), or a
//!   `.volatile` or strong (`.relaxed`, `.acquire`, `.release`) load or store;
//! - and the warp may be split when it runs the loop: the loop's header lies where a
//!   divergent conditional branch (one whose condition may differ between threads) has
//!   split the warp and not yet reconverged, that is, between the branch and its immediate
//!   post-dominator, or the loop holds a spin loop (whose latch leaves the warp split). That
//!   holds for a loop a divergent branch leaves (its own exit test, or a `break`), for a loop
//!   under a divergent guard and for a loop around a spin lock; not for a loop every thread
//!   runs the same number of times at the kernel's top level, even with a divergent branch
//!   or a divergent loop inside (which reconverge within it).

use super::divergence::Divergence;
use super::dom::DomTree;
use super::loops::{Loop, natural_loops};
use super::postdom::PostDomTree;
use crate::ir::{Aux, Block, Function, InstData, Opcode, Space};
use cranelift_entity::SecondaryMap;
use rustc_hash::FxHashSet as HashSet;

/// What a call of a device function means for the loops around it: the function (or one
/// it calls) makes an access another thread may wait on, or has a spin loop. ptxas's probes
/// (sm_75): a divergent loop around a call of a function with a plain `atom` gets the latch,
/// as does any loop around a call of a function with a spin loop, one or two calls deep.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CalleeSpin {
    /// It makes an access another thread may wait on.
    pub waits: bool,
    /// It has a spin loop.
    pub spins: bool,
}

/// The headers of the spin loops of `func`, whose device functions (`call_func` indexes
/// them) are as `callees` says.
pub fn spin_loop_headers(func: &Function, callees: &[CalleeSpin]) -> HashSet<Block> {
    let waits = |d: &InstData| waits_on_others(d) || called(d, callees).is_some_and(|c| c.waits);
    if !func.insts.values().any(waits) {
        return HashSet::default();
    }
    let dom = DomTree::new(func);
    // Outer loops before the loops they contain.
    let candidates: Vec<Loop> = natural_loops(func, &dom)
        .into_iter()
        .filter(|l| {
            l.blocks
                .iter()
                .any(|&b| func.blocks[b].insts.iter().any(|&i| waits(&func.insts[i])))
        })
        .collect();
    if candidates.is_empty() {
        return HashSet::default();
    }
    let split = split_blocks(func, &dom);
    let calls_spinning = |l: &Loop| {
        l.blocks.iter().any(|&b| {
            func.blocks[b]
                .insts
                .iter()
                .any(|&i| called(&func.insts[i], callees).is_some_and(|c| c.spins))
        })
    };
    let mut spin = HashSet::default();
    // Inner loops first: a loop holding a spin loop is one too (ptxas's latch does not
    // reconverge the inner loop, so the warp runs the outer one split).
    for l in candidates.iter().rev() {
        if split[l.header] || spin.iter().any(|h| l.body.contains(h)) || calls_spinning(l) {
            spin.insert(l.header);
        }
    }
    spin
}

/// What a call of `func` means for the loops around it (`callees` as for
/// [`spin_loop_headers`], `headers` its spin loops).
pub fn callee_spin(func: &Function, callees: &[CalleeSpin], headers: &HashSet<Block>) -> CalleeSpin {
    let calls = || func.insts.values().filter_map(|d| called(d, callees));
    CalleeSpin {
        waits: func.insts.values().any(waits_on_others) || calls().any(|c| c.waits),
        spins: !headers.is_empty() || calls().any(|c| c.spins),
    }
}

/// The facts of the device function a `call_func` calls.
fn called<'c>(d: &InstData, callees: &'c [CalleeSpin]) -> Option<&'c CalleeSpin> {
    match (d.op, &d.aux) {
        (Opcode::CallFunc, Aux::Imm(i)) => callees.get(*i as usize),
        _ => None,
    }
}

/// True for an access another thread may be waiting on (or for): an atomic other than a
/// `red` to global memory, a `.volatile` or strong load or store (not of local memory).
fn waits_on_others(d: &InstData) -> bool {
    match (&d.op, &d.aux) {
        (Opcode::Atom, Aux::Atom(a)) => !(a.red && a.space == Space::Global),
        (Opcode::Load | Opcode::Store, Aux::Mem(m)) => m.volatile && m.space != Space::Local,
        _ => false,
    }
}

/// The blocks a warp may run split: those reachable from a divergent conditional branch
/// before its immediate post-dominator (all it reaches when only the exit post-dominates
/// it).
fn split_blocks(func: &Function, dom: &DomTree) -> SecondaryMap<Block, bool> {
    let divergence = Divergence::new(func);
    let pdom = PostDomTree::new(func);
    let mut split: SecondaryMap<Block, bool> = SecondaryMap::new();
    let mut seen: SecondaryMap<Block, u32> = SecondaryMap::new();
    let mut stamp = 0;
    for &b in &func.layout {
        if !dom.is_reachable(b) || !ends_in_divergent_branch(func, &divergence, b) {
            continue;
        }
        stamp += 1;
        let join = pdom.ipdom(b);
        let mut work: Vec<Block> = func.successors(b).into_iter().collect();
        while let Some(s) = work.pop() {
            if Some(s) == join || seen[s] == stamp {
                continue;
            }
            seen[s] = stamp;
            split[s] = true;
            work.extend(func.successors(s));
        }
    }
    split
}

/// True if `b` ends in a conditional branch whose condition may differ between threads.
fn ends_in_divergent_branch(func: &Function, divergence: &Divergence, b: Block) -> bool {
    func.terminator(b).is_some_and(|t| {
        let d = &func.insts[t];
        d.op == Opcode::Brif && divergence.is_divergent(d.args[0])
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse::parse_function;

    /// The headers of the spin loops of the function `text` describes, by block number.
    fn spin(text: &str) -> Vec<u32> {
        let f = parse_function(text).expect("valid MIR");
        let mut h: Vec<u32> = spin_loop_headers(&f, &[]).into_iter().map(|b| b.as_u32()).collect();
        h.sort_unstable();
        h
    }

    /// A loop (block1) counting from `start` to the parameter, with `access` in its body.
    fn counted_loop(start: &str, access: &str) -> String {
        format!(
            "kernel k(p: 8@0 align 8, n: 4@8 align 4) {{
block0:
    v0 = param.i64 param+0
    v1 = param.i32 param+8
    v2 = {start}
    jump.i32 block1(v2)
block1(v3: i32):
    {access}
    v5 = const.i32 0x1
    v6 = iadd.i32 v3, v5
    v7 = icmp.lt.i32 v6, v1
    brif.pred v7, block1(v6), block2
block2:
    exit.i32
}}"
        )
    }

    const TID: &str = "special.i32 %tid.x";
    const ZERO: &str = "const.i32 0x0";

    #[test]
    fn a_divergent_loop_with_an_atomic_or_a_volatile_access_spins() {
        assert_eq!(spin(&counted_loop(TID, "v4 = atom.global.add.i32 v0, v3")), [1]);
        assert_eq!(spin(&counted_loop(TID, "v4 = atom.shared.cas.i32 v0, v3, v3")), [1]);
        assert_eq!(spin(&counted_loop(TID, "v4 = load.global.volatile.i32 v0")), [1]);
        assert_eq!(spin(&counted_loop(TID, "v4 = atom.shared.add.red.i32 v0, v3")), [1]);
    }

    #[test]
    fn plain_accesses_global_reductions_and_uniform_loops_do_not() {
        assert!(spin(&counted_loop(TID, "v4 = load.global.i32 v0")).is_empty());
        assert!(spin(&counted_loop(TID, "v4 = atom.global.add.red.i32 v0, v3")).is_empty());
        assert!(spin(&counted_loop(ZERO, "v4 = atom.global.add.i32 v0, v3")).is_empty());
    }

    #[test]
    fn the_reduction_form_survives_the_text_form() {
        let text = counted_loop(TID, "v4 = atom.global.add.red.i32 v0, v3");
        let f = parse_function(&text).expect("valid MIR");
        assert!(f.to_string().contains("atom.global.add.red"), "{f}");
    }

    #[test]
    fn a_uniform_loop_around_a_spin_loop_spins_too() {
        let text = "kernel k(p: 8@0 align 8, n: 4@8 align 4) {
block0:
    v0 = param.i64 param+0
    v1 = param.i32 param+8
    v2 = const.i32 0x0
    jump.i32 block1(v2)
block1(v3: i32):
    jump.i32 block2
block2:
    v4 = const.i32 0x0
    v5 = const.i32 0x1
    v6 = atom.global.cas.i32 v0, v4, v5
    v7 = icmp.ne.i32 v6, v4
    brif.pred v7, block2, block3
block3:
    v8 = iadd.i32 v3, v5
    v9 = icmp.lt.i32 v8, v1
    brif.pred v9, block1(v8), block4
block4:
    exit.i32
}";
        assert_eq!(spin(text), [1, 2]);
    }
}
