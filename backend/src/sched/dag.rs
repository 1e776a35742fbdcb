//! The dependency graph of one block's instructions for the list scheduler: register and
//! predicate RAW/WAR/WAW edges weighted with NVIDIA's latencies, memory ordering (loads
//! may pass loads; any store, atomic or fence keeps its order with every memory access),
//! and scheduling barriers (branches, barriers, convergence operations) that keep their
//! position relative to everything.

use super::barrier_motion::moves_over_cta_barrier;
use crate::emit::Emitted;
use ptxc_sass::isa::access::{Reg, accesses, reads_late};
use ptxc_sass::isa::desc::{Pipe, Role};
use ptxc_sass::isa::timing::{
    LATE_READ, LatCat, SB_VISIBLE, address_unit, pred_raw_on, pred_war, pred_waw, raw, raw_on, war, waw,
};
use ptxc_sass::isa::uniform_timing::{upred_raw, upred_war, upred_waw, uraw, uwar, uwaw};
use ptxc_sass::isa::{Arch, Inst, Op};
use smallvec::SmallVec;

/// Assumed latency of variable-latency results when ordering (the real wait is a scoreboard).
/// Tensor-core results: NVIDIA's distance to a reader, the least any reader waits.
fn variable_latency(inst: &Inst) -> u32 {
    let meta = inst.desc().meta;
    match meta.pipe {
        Pipe::Lsu => 30,
        Pipe::Mufu | Pipe::Conv => 16,
        Pipe::Fp64 => 10,
        Pipe::Tensor => raw(meta.cat, LatCat::Decoupled),
        _ => 20,
    }
}

/// How an instruction may be reordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Registers only.
    Compute,
    /// A memory read with a result and no side effect.
    Load,
    /// Any other memory access (store, atomic, reduction, fence).
    MemoryEffect,
    /// Must stay in place relative to every instruction.
    Barrier,
}

/// The reordering class of an instruction.
pub fn kind(inst: &Inst) -> Kind {
    let f = inst.desc();
    match f.meta.pipe {
        Pipe::Branch => Kind::Barrier,
        Pipe::Misc if f.op != Op::S2r => Kind::Barrier,
        // HGMMA reads its operands from shared memory.
        Pipe::Tensor if f.op == Op::Hgmma => Kind::MemoryEffect,
        Pipe::Lsu => {
            let has_dst = f.operand_index(Role::Dst).is_some();
            let has_data = f.operand_index(Role::Data).is_some();
            if has_dst && !has_data && !f.meta.reads_late {
                Kind::Load
            } else {
                Kind::MemoryEffect
            }
        }
        _ => Kind::Compute,
    }
}

/// One edge: the successor may issue `latency` cycles after the predecessor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// Later instruction.
    pub to: usize,
    /// Minimum distance in cycles.
    pub latency: u32,
}

/// The graph.
#[derive(Clone, Debug, Default)]
pub struct Dag {
    /// Successor edges of each node.
    pub succs: Vec<SmallVec<[Edge; 4]>>,
    /// Number of predecessors of each node.
    pub npreds: Vec<usize>,
    /// Longest latency path from each node to the end of the block.
    pub height: Vec<u32>,
}

impl Dag {
    /// Builds the graph of `insts` with the latencies of `arch` (the ones the control codes
    /// then enforce: on Ampere and Ada NVIDIA's sm_80 table, not Turing's).
    pub fn new(insts: &[Emitted], arch: Arch) -> Dag {
        let n = insts.len();
        let mut dag = Dag {
            succs: vec![SmallVec::new(); n],
            npreds: vec![0; n],
            height: vec![0; n],
        };
        let acc: Vec<_> = insts.iter().map(|e| accesses(&e.inst)).collect();
        let traits: Vec<Traits> = insts.iter().map(|e| Traits::of(&e.inst)).collect();
        // Short blocks test every earlier instruction: indexing them costs more there.
        let mut earlier = (n > SHORT_BLOCK).then(|| Earlier::new(n));
        let all: Vec<usize> = (0..n.min(SHORT_BLOCK)).collect();
        for j in 0..n {
            let candidates = match &mut earlier {
                Some(e) => e.candidates(j, traits[j].kind, &acc[j]),
                None => &all[..j],
            };
            for &i in candidates {
                if let Some(l) = dependence(arch, &insts[i].inst, &acc[i], &acc[j], traits[i], traits[j]) {
                    dag.add(i, j, l);
                }
            }
            if let Some(e) = &mut earlier {
                e.record(j, traits[j].kind, &acc[j]);
            }
        }
        for i in (0..n).rev() {
            dag.height[i] = dag.succs[i]
                .iter()
                .map(|e| e.latency + dag.height[e.to])
                .max()
                .unwrap_or(0);
        }
        dag
    }

    fn add(&mut self, from: usize, to: usize, latency: u32) {
        self.succs[from].push(Edge { to, latency });
        self.npreds[to] += 1;
    }
}

/// The earlier instructions of a block by what they touch, so that each instruction is
/// tested only against those it may depend on (every barrier, the memory accesses, and the
/// instructions sharing a register) instead of against all earlier ones: the same edges as
/// testing every pair, in linear rather than quadratic time on long blocks of arithmetic.
struct Earlier {
    barriers: Vec<usize>,
    loads: Vec<usize>,
    effects: Vec<usize>,
    /// By register slot (`slot`): the earlier instructions writing it, and reading it.
    writers: Vec<Vec<usize>>,
    readers: Vec<Vec<usize>>,
    /// The candidates of the current instruction, ascending.
    list: Vec<usize>,
    /// `mark[i] == j + 1` when `i` is already a candidate of `j`.
    mark: Vec<usize>,
}

/// Blocks of at most this many instructions test every pair of instructions.
const SHORT_BLOCK: usize = 48;

/// Register slots: R0..R255, P0..P7, UR0..UR63, then UP0..UP7.
const SLOTS: usize = 256 + 8 + 64 + 8;

fn slot(r: Reg) -> usize {
    match r {
        Reg::R(k) => k as usize,
        Reg::P(k) => 256 + (k as usize & 7),
        Reg::UR(k) => 264 + (k as usize & 63),
        Reg::UP(k) => 328 + (k as usize & 7),
    }
}

impl Earlier {
    fn new(n: usize) -> Earlier {
        Earlier {
            barriers: Vec::new(),
            loads: Vec::new(),
            effects: Vec::new(),
            writers: vec![Vec::new(); SLOTS],
            readers: vec![Vec::new(); SLOTS],
            list: Vec::new(),
            mark: vec![0; n],
        }
    }

    /// The earlier instructions `j` (of kind `k`, accessing `a`) may depend on, ascending: a
    /// superset of those `dependence` finds an edge from.
    fn candidates(&mut self, j: usize, k: Kind, a: &ptxc_sass::isa::access::Accesses) -> &[usize] {
        self.list.clear();
        if k == Kind::Barrier {
            self.list.extend(0..j);
            return &self.list;
        }
        let stamp = j + 1;
        let add = |list: &mut Vec<usize>, mark: &mut [usize], ids: &[usize]| {
            for &i in ids {
                if mark[i] != stamp {
                    mark[i] = stamp;
                    list.push(i);
                }
            }
        };
        add(&mut self.list, &mut self.mark, &self.barriers);
        match k {
            Kind::Load => add(&mut self.list, &mut self.mark, &self.effects),
            Kind::MemoryEffect => {
                add(&mut self.list, &mut self.mark, &self.effects);
                add(&mut self.list, &mut self.mark, &self.loads);
            }
            _ => {}
        }
        for r in &a.reads {
            add(&mut self.list, &mut self.mark, &self.writers[slot(r.reg)]);
        }
        for w in &a.writes {
            add(&mut self.list, &mut self.mark, &self.writers[slot(w.reg)]);
            add(&mut self.list, &mut self.mark, &self.readers[slot(w.reg)]);
        }
        self.list.sort_unstable();
        &self.list
    }

    /// Notes instruction `j` for the later ones.
    fn record(&mut self, j: usize, k: Kind, a: &ptxc_sass::isa::access::Accesses) {
        match k {
            Kind::Barrier => self.barriers.push(j),
            Kind::Load => self.loads.push(j),
            Kind::MemoryEffect => self.effects.push(j),
            Kind::Compute => {}
        }
        for r in &a.reads {
            let list = &mut self.readers[slot(r.reg)];
            if list.last() != Some(&j) {
                list.push(j);
            }
        }
        for w in &a.writes {
            let list = &mut self.writers[slot(w.reg)];
            if list.last() != Some(&j) {
                list.push(j);
            }
        }
    }
}

/// What [`dependence`] asks of an instruction besides its accesses, found once per
/// instruction rather than once per pair.
#[derive(Clone, Copy)]
struct Traits {
    kind: Kind,
    /// Its results have a variable latency (a write scoreboard).
    variable: bool,
    /// It reads its register sources through the address unit.
    address_unit: bool,
    /// A CTA barrier (`BAR`).
    cta_barrier: bool,
    /// Register-only work that may move up across a CTA barrier before it (not a read of
    /// a special register such as the clock, whose value depends on where it runs).
    hoists_over_bar: bool,
}

impl Traits {
    fn of(inst: &Inst) -> Traits {
        let d = inst.desc();
        Traits {
            kind: kind(inst),
            variable: d.meta.cat.needs_write_scoreboard(),
            address_unit: address_unit(d.op, d.meta.pipe),
            cta_barrier: d.op == Op::Bar,
            hoists_over_bar: kind(inst) == Kind::Compute && moves_over_bar(inst),
        }
    }
}

/// Whether register-only `inst` may move above a CTA barrier
/// ([`super::barrier_motion`]).
fn moves_over_bar(inst: &Inst) -> bool {
    let sreg = inst.operands.iter().find_map(|o| match o.value {
        ptxc_sass::isa::Value::SReg(n) => Some(n),
        _ => None,
    });
    moves_over_cta_barrier(inst.desc().op, sreg)
}

/// The minimum distance from `a` (accessing `aa`) to a later instruction accessing `ba`, if
/// that one depends on `a`.
fn dependence(
    arch: Arch,
    a: &Inst,
    aa: &ptxc_sass::isa::access::Accesses,
    ba: &ptxc_sass::isa::access::Accesses,
    ta: Traits,
    tb: Traits,
) -> Option<u32> {
    let (ka, kb, variable, b_address_unit) = (ta.kind, tb.kind, ta.variable, tb.address_unit);
    let mut d: Option<u32> = None;
    let mut need = |l: u32| d = Some(d.map_or(l, |x| x.max(l)));
    // Register-only work after a CTA barrier may issue before it (ptxas computes a loop's
    // exit test ahead of the `BAR.SYNC` ending the body); work before it stays before it.
    let hoists = ta.cta_barrier && tb.hoists_over_bar;
    if (ka == Kind::Barrier && !hoists) || kb == Kind::Barrier {
        need(1);
    }
    let memory = |k: Kind| matches!(k, Kind::Load | Kind::MemoryEffect);
    if memory(ka) && memory(kb) && (ka == Kind::MemoryEffect || kb == Kind::MemoryEffect) {
        need(1);
    }
    for w in &aa.writes {
        for r in ba.reads.iter().filter(|r| r.reg == w.reg) {
            need(if variable {
                variable_latency(a)
            } else {
                match w.reg {
                    Reg::R(_) => raw_on(arch, w.cat, r.cat, b_address_unit),
                    Reg::P(_) => pred_raw_on(arch, w.cat, r.cat, r.guard),
                    Reg::UR(_) => uraw(arch, w.cat, r.cat),
                    Reg::UP(_) => upred_raw(arch, w.cat, r.cat),
                }
            });
        }
        for w2 in ba.writes.iter().filter(|x| x.reg == w.reg) {
            need(match w.reg {
                Reg::R(_) => waw(w.cat, w2.cat, a.guard != ptxc_sass::isa::PT),
                Reg::P(_) => pred_waw(w.cat, w2.cat, a.guard != ptxc_sass::isa::PT),
                Reg::UR(_) => uwaw(arch, w.cat, w2.cat, a.guard != ptxc_sass::isa::PT),
                Reg::UP(_) => upred_waw(w.cat, w2.cat),
            });
        }
    }
    // A late reader (a memory access reading its address or data after issue) holds its
    // general-register sources until its read scoreboard is released and seen.
    let late_war = reads_late(a).then_some(LATE_READ + SB_VISIBLE);
    for r in &aa.reads {
        for w in ba.writes.iter().filter(|w| w.reg == r.reg) {
            need(match r.reg {
                Reg::R(_) => match late_war {
                    Some(cycles) if !r.guard => cycles,
                    _ => war(r.cat, w.cat),
                },
                Reg::P(_) => pred_war(r.cat, w.cat),
                Reg::UR(_) => uwar(arch, r.cat, w.cat),
                Reg::UP(_) => upred_war(arch, r.cat, w.cat),
            });
        }
    }
    d
}
