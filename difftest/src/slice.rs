//! Static slices of a generated program: for every output word, the statements its value may
//! be computed from (data flow through registers, temporaries, the carry flag, shared
//! exchanges and accumulators, plus the guards, branch conditions and loop counts that decide
//! whether they run). A known issue explains a differing word only if the instructions it
//! names are in the word's slice ([`crate::known`]).
//!
//! The analysis runs forward over the body once (loops to a fixed point): each location holds
//! the set of sites (numbered statements, in pre-order) its value may depend on and whether
//! it may be the result of floating-point arithmetic (whose NaN bits PTX leaves open).

use crate::known::equiv::WordFacts;
use crate::program::{Dsts, ExitKind, Inst, LoopCount, Operand, Program, Reg, Space, Src, Stmt, opcode};
use std::collections::HashMap;

/// A program with its slices: what the comparison and the explanations of its mismatches
/// need to know about it.
#[derive(Clone, Debug)]
pub struct Facts<'p> {
    /// The program.
    pub program: &'p Program,
    /// Its slices.
    pub analysis: Analysis,
}

impl<'p> Facts<'p> {
    /// Analyses `program`.
    pub fn of(program: &'p Program) -> Facts<'p> {
        Facts {
            program,
            analysis: Analysis::of(program),
        }
    }

    /// The slice of output word `i`.
    pub fn slice(&self, i: u32) -> Slice<'_> {
        self.analysis.word(self.program, i)
    }

    /// What the equivalence rules need to know about output word `i`.
    pub fn word(&self, i: u32) -> WordFacts {
        let s = self.slice(i);
        WordFacts::of(self.program.word_class(i), s.float(), s.has(opcode::sat_float))
    }
}

/// A set of site numbers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sites(Vec<u64>);

impl Sites {
    fn insert(&mut self, i: usize) {
        if self.0.len() <= i / 64 {
            self.0.resize(i / 64 + 1, 0);
        }
        self.0[i / 64] |= 1 << (i % 64);
    }

    /// Whether site `i` is in the set.
    pub fn contains(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
    }

    fn union_with(&mut self, o: &Sites) {
        if self.0.len() < o.0.len() {
            self.0.resize(o.0.len(), 0);
        }
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a |= b;
        }
    }

    /// The site numbers, ascending.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.0.len() * 64).filter(|&i| self.contains(i))
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }
}

/// Where a value lives while the kernel runs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Loc {
    /// A pool register.
    Pool(Reg),
    /// A reserved temporary (`%xt0`, `%xd0` ...).
    Temp(String),
    /// The carry flag.
    Carry,
    /// An accumulator.
    Acc(Space, usize),
    /// A thread's scratch slots of a state space (`local`, `shared`) that vector stores
    /// write and vector loads read back.
    Mem(String),
}

/// What a location's value may come from.
#[derive(Clone, Debug, Default, PartialEq)]
struct Flow {
    deps: Sites,
    float: bool,
}

type State = HashMap<Loc, Flow>;

/// Joins two states: a location's value may come from either.
fn join(a: &mut State, b: &State) {
    for (loc, f) in b {
        let e = a.entry(loc.clone()).or_default();
        e.deps.union_with(&f.deps);
        e.float |= f.float;
    }
}

/// One numbered statement: an instruction (a group's members each), an atomic (as the
/// `atom`/`red` it prints as) or an exchange (as the shared load that receives the value).
#[derive(Clone, Debug)]
pub struct Site {
    /// The instruction.
    pub inst: Inst,
    /// Loops around it (numbers into the analysis's loops, outermost first).
    pub loops: Vec<usize>,
    /// Never runs: it is inside two branches on the same value of a predicate with
    /// opposite senses (`@p bra L1; @!p bra L2; site`).
    pub unreachable: bool,
}

/// The branch conditions around a statement: (predicate, the sense that runs it, the
/// predicate's version).
type Path = Vec<(Reg, bool, u32)>;

/// The slices of a program.
#[derive(Clone, Debug, Default)]
pub struct Analysis {
    /// Every site in pre-order.
    pub sites: Vec<Site>,
    /// What each site's inputs (sources, guard, carry, control) may depend on.
    inputs: Vec<Sites>,
    /// The sites inside each loop.
    loops: Vec<Sites>,
    /// Per loop: what decides whether its exits (break, continue) are taken.
    exits: Vec<Sites>,
    /// Per loop: the locations where a `break` to it is taken (they reach its end).
    breaks: Vec<State>,
    /// Per loop: the locations where a `continue` to it is taken (they reach its next
    /// iteration).
    continues: Vec<State>,
    /// The locations at the end of the body.
    exit: State,
    /// How many times each pool register has been written so far in the walk.
    versions: HashMap<Reg, u32>,
    /// Predicate values that are copies of others (`mov.pred`, `not.pred`, `and.pred d, a,
    /// a`, `or.pred d, a, a`): (predicate, version) to the value it copies, (predicate,
    /// version, negated), so that branches on a copy and on its original are seen as
    /// branches on one value.
    copies: HashMap<(Reg, u32), (Reg, u32, bool)>,
}

/// Where a statement is: the sites that decide whether it runs, the loops around it, and the
/// branch conditions around it.
#[derive(Clone, Debug)]
struct Ctx {
    control: Sites,
    loops: Vec<usize>,
    path: Path,
}

/// Walk position: the next site and loop numbers.
#[derive(Clone, Copy)]
struct Cursor {
    site: usize,
    loop_: usize,
}

impl Analysis {
    /// Analyses the body of `p`.
    pub fn of(p: &Program) -> Analysis {
        let mut a = Analysis::default();
        let mut st = State::new();
        let mut at = Cursor { site: 0, loop_: 0 };
        let ctx = Ctx {
            control: Sites::default(),
            loops: Vec::new(),
            path: Vec::new(),
        };
        a.stmts(p, &p.body, &mut st, &ctx, &mut at);
        a.exit = st;
        a
    }

    /// The slice of output word `i` (empty for a word no statement writes).
    pub fn word(&self, p: &Program, i: u32) -> Slice<'_> {
        let loc = word_loc(p, i);
        let flow = loc.and_then(|l| self.exit.get(&l)).cloned().unwrap_or_default();
        Slice {
            a: self,
            sites: flow.deps,
            float: flow.float,
        }
    }

    /// The whole program as one slice (for mismatches that are no word: faults, crashes).
    pub fn whole(&self) -> Slice<'_> {
        let mut sites = Sites::default();
        (0..self.sites.len()).for_each(|i| sites.insert(i));
        Slice {
            a: self,
            sites,
            float: false,
        }
    }

    fn site(&mut self, at: &mut Cursor, inst: Inst, ctx: &Ctx) -> usize {
        let id = at.site;
        at.site += 1;
        let unreachable = ctx.path.iter().any(|&(p, sense, v)| ctx.path.contains(&(p, !sense, v)));
        if id == self.sites.len() {
            self.sites.push(Site {
                inst,
                loops: ctx.loops.clone(),
                unreachable,
            });
            self.inputs.push(Sites::default());
            for &l in &ctx.loops {
                self.loops[l].insert(id);
            }
        }
        self.sites[id].unreachable &= unreachable;
        id
    }

    fn stmts(&mut self, p: &Program, body: &[Stmt], st: &mut State, ctx: &Ctx, at: &mut Cursor) {
        let mut ctx = ctx.clone();
        for s in body {
            self.stmt(p, s, st, &ctx, at);
            // The statements after a guarded break or continue run only where it was not
            // taken: where the predicate is `neg`.
            if let Stmt::Exit {
                cond: (neg, r), level, ..
            } = s
                && usize::from(*level) < ctx.loops.len()
            {
                ctx.path.push(self.cond(*r, *neg));
            }
        }
    }

    /// The branch condition "predicate `r` (its current value) is `sense`", as a condition on
    /// the value `r` copies, if it is a copy.
    fn cond(&self, r: Reg, sense: bool) -> (Reg, bool, u32) {
        let version = self.versions.get(&r).copied().unwrap_or(0);
        match self.copies.get(&(r, version)) {
            Some(&(root, v, negated)) => (root, sense != negated, v),
            None => (r, sense, version),
        }
    }

    fn stmt(&mut self, p: &Program, s: &Stmt, st: &mut State, ctx: &Ctx, at: &mut Cursor) {
        match s {
            Stmt::Inst(i) => self.inst(i, st, ctx, at),
            Stmt::Group(g) => g.iter().for_each(|i| self.inst(i, st, ctx, at)),
            Stmt::If {
                cond: (neg, r),
                then_,
                else_,
            } => {
                let mut then_ctx = ctx.clone();
                then_ctx.control.union_with(&deps(st, &Loc::Pool(*r)));
                let mut else_ctx = then_ctx.clone();
                // The printer branches around `then` unless the condition holds: `then` runs
                // when the predicate is !neg.
                then_ctx.path.push(self.cond(*r, !neg));
                else_ctx.path.push(self.cond(*r, *neg));
                let mut other = st.clone();
                self.stmts(p, then_, st, &then_ctx, at);
                self.stmts(p, else_, &mut other, &else_ctx, at);
                join(st, &other);
            }
            Stmt::Loop { count, body, .. } => self.loop_(p, count, body, st, ctx, at),
            Stmt::Exit { cond, level, kind } => {
                // The loops it leaves (up to and including its target) run fewer statements
                // where it is taken: their statements depend on the condition.
                let mut taken = ctx.control.clone();
                taken.union_with(&deps(st, &Loc::Pool(cond.1)));
                let n = ctx.loops.len();
                for &l in &ctx.loops[n.saturating_sub(*level as usize + 1)..] {
                    self.exits[l].union_with(&taken);
                }
                // Where it is taken, the values it leaves with reach the end (break) or the
                // next iteration (continue) of its target loop.
                if let Some(&target) = n.checked_sub(*level as usize + 1).map(|k| &ctx.loops[k]) {
                    let to = match kind {
                        ExitKind::Break => &mut self.breaks[target],
                        ExitKind::Continue => &mut self.continues[target],
                    };
                    join(to, st);
                }
            }
            Stmt::Exchange { src, dst, .. } => {
                let inst = Inst {
                    guard: None,
                    op: format!("ld.shared.{}", dst.class.mem_type()),
                    dsts: vec![Operand::Reg(*dst)],
                    dst_form: Dsts::Plain,
                    srcs: vec![Src {
                        op: Operand::Reg(*src),
                        imm: None,
                    }],
                };
                self.inst(&inst, st, ctx, at);
            }
            Stmt::Atomic { space, slot, src, ret } => {
                let Some(inst) = p.atomic_inst(*space, *slot, src, *ret) else {
                    return;
                };
                let id = self.site(at, inst, ctx);
                let mut input = ctx.control.clone();
                src.op
                    .regs()
                    .iter()
                    .for_each(|r| input.union_with(&deps(st, &Loc::Pool(*r))));
                self.inputs[id].union_with(&input);
                let acc = st.entry(Loc::Acc(*space, *slot)).or_default();
                acc.deps.union_with(&input);
                acc.deps.insert(id);
            }
        }
    }

    fn loop_(&mut self, p: &Program, count: &LoopCount, body: &[Stmt], st: &mut State, ctx: &Ctx, at: &mut Cursor) {
        let mut inner = ctx.clone();
        if let LoopCount::Reg(r, _) = count {
            inner.control.union_with(&deps(st, &Loc::Pool(*r)));
        }
        let id = at.loop_;
        at.loop_ += 1;
        if id == self.loops.len() {
            self.loops.push(Sites::default());
            self.exits.push(Sites::default());
            self.breaks.push(State::new());
            self.continues.push(State::new());
        }
        inner.loops.push(id);
        let start = *at;
        loop {
            *at = start;
            let before = (st.clone(), self.exits[id].clone());
            let mut iter = st.clone();
            let mut this = inner.clone();
            this.control.union_with(&self.exits[id]);
            self.stmts(p, body, &mut iter, &this, at);
            join(&mut iter, &self.continues[id]);
            join(st, &iter);
            join(st, &self.breaks[id]);
            if *st == before.0 && self.exits[id] == before.1 {
                return;
            }
        }
    }

    fn inst(&mut self, i: &Inst, st: &mut State, ctx: &Ctx, at: &mut Cursor) {
        let id = self.site(at, i.clone(), ctx);
        let mut input = ctx.control.clone();
        let mut float_src = false;
        for s in &i.srcs {
            for loc in locs(&s.op) {
                let f = st.get(&loc).cloned().unwrap_or_default();
                input.union_with(&f.deps);
                float_src |= f.float;
            }
        }
        if let Some((_, g)) = i.guard {
            input.union_with(&deps(st, &Loc::Pool(g)));
        }
        if opcode::reads_carry(i) {
            input.union_with(&deps(st, &Loc::Carry));
        }
        let scratch = scratch_space(i).map(|sp| Loc::Mem(sp.to_string()));
        let store = opcode::family(i) == "st";
        if let Some(mem) = scratch.as_ref().filter(|_| !store) {
            let f = st.get(mem).cloned().unwrap_or_default();
            input.union_with(&f.deps);
            float_src |= f.float;
        }
        self.inputs[id].union_with(&input);
        let mut out = input;
        out.insert(id);
        let copied = pred_copy(i).map(|(src, negated)| {
            let (root, sense, v) = self.cond(src, !negated);
            (root, v, !sense)
        });
        let float = opcode::float_arith(i) || ((opcode::moves_bits(i) || store) && float_src);
        let mut written: Vec<(Loc, bool)> = i.dsts.iter().flat_map(locs).map(|l| (l, float)).collect();
        if let Some(mem) = scratch.filter(|_| store) {
            written.push((mem, float));
        }
        if opcode::writes_carry(i) {
            written.push((Loc::Carry, false));
        }
        for (loc, float) in written {
            if let Loc::Pool(r) = &loc {
                let v = self.versions.entry(*r).or_default();
                *v += 1;
                if let Some(c) = copied {
                    self.copies.insert((*r, *v), c);
                }
            }
            let mut f = Flow {
                deps: out.clone(),
                float,
            };
            if (i.guard.is_some() || matches!(loc, Loc::Mem(_)))
                && let Some(old) = st.get(&loc)
            {
                // The guard may be false, or the store may write other slots: the old value
                // may stay.
                f.deps.union_with(&old.deps);
                f.float |= old.float;
            }
            st.insert(loc, f);
        }
    }
}

/// The predicate an unguarded predicate instruction copies, and whether it negates it:
/// `mov.pred d, a`, `not.pred d, a`, `and.pred d, a, a` and `or.pred d, a, a` (a source may
/// be negated, `!a`).
fn pred_copy(i: &Inst) -> Option<(Reg, bool)> {
    let src = |s: &Src| match s.op {
        Operand::Reg(r) => Some((r, false)),
        Operand::NotPred(r) => Some((r, true)),
        _ => None,
    };
    let (r, negated) = match (i.op.as_str(), i.srcs.as_slice()) {
        ("mov.pred", [a]) => src(a)?,
        ("not.pred", [a]) => src(a).map(|(r, n)| (r, !n))?,
        ("and.pred" | "or.pred", [a, b]) if a.op == b.op => src(a)?,
        _ => return None,
    };
    (i.guard.is_none() && i.dsts.len() == 1).then_some((r, negated))
}

/// The scratch space a vector store or load of local or shared memory uses.
fn scratch_space(i: &Inst) -> Option<&str> {
    let p = opcode::parts(i);
    (matches!(p[0], "st" | "ld") && p.len() > 1 && matches!(p[1], "local" | "shared")).then(|| p[1])
}

fn deps(st: &State, loc: &Loc) -> Sites {
    st.get(loc).map(|f| f.deps.clone()).unwrap_or_default()
}

/// The locations an operand names: pool registers, and the reserved temporaries in fixed
/// text (`[%xd0+4]` names `%xd0`).
fn locs(o: &Operand) -> Vec<Loc> {
    match o {
        Operand::Fixed(text) => temps(text).into_iter().map(Loc::Temp).collect(),
        _ => o.regs().into_iter().map(Loc::Pool).collect(),
    }
}

/// The reserved registers (`%x...`) in a text.
fn temps(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(k) = rest.find("%x") {
        let tail = &rest[k..];
        let end = tail[1..]
            .find(|c: char| !c.is_ascii_alphanumeric())
            .map_or(tail.len(), |e| e + 1);
        out.push(tail[..end].to_string());
        rest = &tail[end..];
    }
    out
}

/// Where output word `i` comes from: a pool register or a shared accumulator of a thread's
/// row, or a global accumulator.
fn word_loc(p: &Program, i: u32) -> Option<Loc> {
    let rows = p.threads() * p.out_row();
    if i >= rows {
        let k = (i - rows) as usize;
        return (k < p.global_acc.len()).then_some(Loc::Acc(Space::Global, k));
    }
    let col = i % p.out_row();
    match p.registers().get(col as usize) {
        Some(r) => Some(Loc::Pool(*r)),
        None => Some(Loc::Acc(Space::Shared, (col - p.row()) as usize)),
    }
}

/// The slice of one word: the sites its value may be computed from.
#[derive(Clone, Debug)]
pub struct Slice<'a> {
    a: &'a Analysis,
    sites: Sites,
    float: bool,
}

impl Slice<'_> {
    /// The sites of the slice.
    pub fn sites(&self) -> &Sites {
        &self.sites
    }

    /// Whether the value may be the result of floating-point arithmetic (directly or through
    /// moves, selects, shuffles and exchanges).
    pub fn float(&self) -> bool {
        self.float
    }

    fn insts(&self) -> impl Iterator<Item = (usize, &Inst)> + '_ {
        self.sites.iter().map(|i| (i, &self.a.sites[i].inst))
    }

    /// The instructions of the slice.
    pub fn instructions(&self) -> impl Iterator<Item = &Inst> + '_ {
        self.insts().map(|(_, i)| i)
    }

    /// Every instruction of the program, in the slice or not.
    pub fn program_instructions(&self) -> impl Iterator<Item = &Inst> + '_ {
        self.a.sites.iter().map(|s| &s.inst)
    }

    /// Whether an instruction of the slice satisfies `f`.
    pub fn has(&self, f: impl Fn(&Inst) -> bool) -> bool {
        self.insts().any(|(_, i)| f(i))
    }

    /// Whether an instruction of the slice that satisfies `to` takes an input computed by an
    /// instruction that satisfies `from` (through any chain of instructions).
    pub fn feeds(&self, from: impl Fn(&Inst) -> bool, to: impl Fn(&Inst) -> bool) -> bool {
        self.insts()
            .any(|(t, i)| to(i) && self.a.inputs[t].iter().any(|s| from(&self.a.sites[s].inst)))
    }

    /// Whether an instruction of the slice that never runs ([`Site::unreachable`]) satisfies
    /// `f`.
    pub fn has_unreachable(&self, f: impl Fn(&Inst) -> bool) -> bool {
        self.sites
            .iter()
            .any(|i| self.a.sites[i].unreachable && f(&self.a.sites[i].inst))
    }

    /// Whether an instruction of the slice runs in a loop whose body has an instruction that
    /// satisfies `f`.
    pub fn in_loop_with(&self, f: impl Fn(&Inst) -> bool) -> bool {
        self.sites.iter().any(|t| {
            self.a.sites[t]
                .loops
                .iter()
                .any(|&l| self.a.loops[l].iter().any(|s| f(&self.a.sites[s].inst)))
        })
    }

    /// Whether an instruction of the slice that satisfies `def` is followed (later in the
    /// program, or in a loop around both) by an instruction anywhere that satisfies `call`:
    /// the value `def` computes is live while `call` runs.
    pub fn live_across(&self, def: impl Fn(&Inst) -> bool, call: impl Fn(&Inst) -> bool) -> bool {
        self.insts().any(|(t, i)| {
            def(i)
                && self.a.sites.iter().enumerate().any(|(c, s)| {
                    let shared_loop = s.loops.iter().any(|l| self.a.sites[t].loops.contains(l));
                    (c > t || shared_loop) && call(&s.inst)
                })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::{Class, Imm, ImmTy};

    fn r(class: Class, index: u8) -> Reg {
        Reg { class, index }
    }

    fn reg(x: Reg) -> Src {
        Src {
            op: Operand::Reg(x),
            imm: None,
        }
    }

    fn inst(op: &str, d: Reg, srcs: Vec<Src>) -> Stmt {
        Stmt::Inst(Inst {
            guard: None,
            op: op.into(),
            dsts: vec![Operand::Reg(d)],
            dst_form: Dsts::Plain,
            srcs,
        })
    }

    fn program(body: Vec<Stmt>) -> Program {
        Program {
            version: (7, 8),
            grid: 1,
            block: 32,
            pools: [4, 1, 1, 2, 1, 2],
            body,
            shared_acc: Vec::new(),
            global_acc: Vec::new(),
            input_words: 512,
        }
    }

    #[test]
    fn a_word_depends_on_what_computes_it_only() {
        let (r0, r1, r2, r3) = (r(Class::B32, 0), r(Class::B32, 1), r(Class::B32, 2), r(Class::B32, 3));
        let p = program(vec![
            inst("abs.s32", r1, vec![reg(r0)]),
            inst("cnot.b32", r2, vec![reg(r0)]),
            inst("cvt.sat.u32.s32", r3, vec![reg(r1)]),
        ]);
        let a = Analysis::of(&p);
        let w3 = a.word(&p, p.column(r3));
        assert!(w3.feeds(|i| i.op == "abs.s32", |i| i.op == "cvt.sat.u32.s32"));
        assert!(!w3.has(|i| i.op == "cnot.b32"));
        let w2 = a.word(&p, p.column(r2));
        assert!(w2.has(|i| i.op == "cnot.b32") && !w2.has(|i| i.op == "abs.s32"));
        assert!(a.word(&p, p.column(r0)).sites().is_empty());
    }

    #[test]
    fn branches_and_loops_add_control_and_carried_dependences() {
        let (r0, r1, p0) = (r(Class::B32, 0), r(Class::B32, 1), r(Class::Pred, 0));
        let f0 = r(Class::F32, 0);
        let p = program(vec![
            inst("setp.lt.ftz.f32", p0, vec![reg(f0), reg(f0)]),
            Stmt::If {
                cond: (false, p0),
                then_: vec![inst("add.u32", r1, vec![reg(r1), reg(r0)])],
                else_: Vec::new(),
            },
            Stmt::Loop {
                count: LoopCount::Const(2),
                top_test: true,
                body: vec![
                    inst("mul.lo.u32", r0, vec![reg(r1), reg(r1)]),
                    inst("mov.b32", r1, vec![reg(r0)]),
                ],
            },
        ]);
        let a = Analysis::of(&p);
        let w0 = a.word(&p, p.column(r0));
        // r0 = r1 * r1 with r1 from the branch: the setp that decides it is in the slice.
        assert!(w0.has(|i| i.op.starts_with("setp")));
        assert!(
            w0.feeds(|i| i.op == "mov.b32", |i| i.op == "mul.lo.u32"),
            "loop-carried"
        );
        assert!(w0.in_loop_with(|i| i.op == "mov.b32"));
    }

    #[test]
    fn float_results_are_tracked_through_moves_only() {
        let (f0, f1, r0) = (r(Class::F32, 0), r(Class::F32, 1), r(Class::B32, 0));
        let imm = Src {
            op: Operand::Imm(Imm::new(ImmTy::F32, 0)),
            imm: Some(ImmTy::F32),
        };
        let p = program(vec![
            inst("div.rn.f32", f0, vec![reg(f0), imm]),
            inst("mov.f32", f1, vec![reg(f0)]),
            inst("cvt.rzi.s32.f32", r0, vec![reg(f1)]),
        ]);
        let a = Analysis::of(&p);
        assert!(a.word(&p, p.column(f1)).float());
        assert!(!a.word(&p, p.column(r0)).float());
    }

    #[test]
    fn loop_exits_decide_what_the_loops_compute() {
        let (r0, r1, p0) = (r(Class::B32, 0), r(Class::B32, 1), r(Class::Pred, 0));
        let f0 = r(Class::F32, 0);
        let inner = Stmt::Loop {
            count: LoopCount::Const(3),
            top_test: false,
            body: vec![
                inst("add.u32", r0, vec![reg(r0), reg(r0)]),
                Stmt::Exit {
                    cond: (false, p0),
                    level: 1,
                    kind: crate::program::ExitKind::Break,
                },
            ],
        };
        let p = program(vec![
            inst("setp.lt.f32", p0, vec![reg(f0), reg(f0)]),
            Stmt::Loop {
                count: LoopCount::Const(2),
                top_test: true,
                body: vec![inst("mov.b32", r1, vec![reg(r1)]), inner],
            },
        ]);
        let a = Analysis::of(&p);
        // The break leaves both loops: r0 (inner) and r1 (outer) depend on its condition.
        assert!(a.word(&p, p.column(r0)).has(|i| i.op.starts_with("setp")));
        assert!(a.word(&p, p.column(r1)).has(|i| i.op.starts_with("setp")));
    }

    #[test]
    fn exits_carry_the_values_they_leave_with() {
        // `max.f32 f1, f0, f0; @p0 break; ld.global.f32 f1, ...` (difftest seed 29504): where
        // the break is taken f1 is max's result, so the word f1 is computed by max and is a
        // float result, though the last statement of the body overwrites it with loaded bits.
        let (f0, f1, p0) = (r(Class::F32, 0), r(Class::F32, 1), r(Class::Pred, 0));
        let exit = |kind| Stmt::Exit {
            cond: (false, p0),
            level: 0,
            kind,
        };
        let body = |kind| {
            program(vec![Stmt::Loop {
                count: LoopCount::Const(2),
                top_test: false,
                body: vec![
                    inst("max.f32", f1, vec![reg(f0), reg(f0)]),
                    exit(kind),
                    inst("ld.global.f32", f1, vec![reg(f0)]),
                ],
            }])
        };
        let p = body(ExitKind::Break);
        let a = Analysis::of(&p);
        let w = a.word(&p, p.column(f1));
        assert!(w.has(|i| i.op == "max.f32") && w.float());
        // A continue's values reach the next iteration, and the loop's end through it.
        let p = body(ExitKind::Continue);
        let a = Analysis::of(&p);
        let w = a.word(&p, p.column(f1));
        assert!(w.has(|i| i.op == "max.f32") && w.float());
    }

    #[test]
    fn contradictory_branches_are_unreachable() {
        let (r0, p0, p1) = (r(Class::B32, 0), r(Class::Pred, 0), r(Class::Pred, 1));
        let inner = |p| Stmt::If {
            cond: (true, p),
            then_: vec![inst("not.b32", r0, vec![reg(r0)])],
            else_: Vec::new(),
        };
        let outer = |body| Stmt::If {
            cond: (false, p0),
            then_: vec![body],
            else_: Vec::new(),
        };
        let a = Analysis::of(&program(vec![outer(inner(p0))]));
        assert!(a.whole().has_unreachable(|i| i.op == "not.b32"));
        let a = Analysis::of(&program(vec![outer(inner(p1))]));
        assert!(!a.whole().has_unreachable(|i| i.op == "not.b32"));
        // p0 is written between the two branches: the inner one tests a new value.
        let a = Analysis::of(&program(vec![outer(Stmt::Group(vec![]))]));
        assert!(!a.whole().has_unreachable(|_| true));
        let rewrite = Stmt::If {
            cond: (false, p0),
            then_: vec![inst("not.pred", p0, vec![reg(p0)]), inner(p0)],
            else_: Vec::new(),
        };
        let a = Analysis::of(&program(vec![rewrite]));
        assert!(!a.whole().has_unreachable(|i| i.op == "not.b32"));
    }

    #[test]
    fn branches_on_a_copy_of_a_predicate_are_branches_on_it() {
        // `and.pred p0, p1, p1; @!p1 bra L5; @p0 bra L7; not.b32 ...; L7: L5:` (difftest seed
        // 49293, where the unreachable block holds an atomic and ptxas crashes).
        let (r0, p0, p1, p2) = (
            r(Class::B32, 0),
            r(Class::Pred, 0),
            r(Class::Pred, 1),
            r(Class::Pred, 2),
        );
        let psrc = |p| Src {
            op: Operand::Reg(p),
            imm: None,
        };
        let not_p = |p| Src {
            op: Operand::NotPred(p),
            imm: None,
        };
        let nested = |copy: Stmt, inner_neg| {
            program(vec![
                copy,
                Stmt::If {
                    cond: (false, p1),
                    then_: vec![Stmt::If {
                        cond: (inner_neg, p0),
                        then_: vec![inst("not.b32", r0, vec![reg(r0)])],
                        else_: Vec::new(),
                    }],
                    else_: Vec::new(),
                },
            ])
        };
        let unreachable = |p: &Program| Analysis::of(p).whole().has_unreachable(|i| i.op == "not.b32");
        assert!(unreachable(&nested(
            inst("and.pred", p0, vec![psrc(p1), psrc(p1)]),
            true
        )));
        assert!(unreachable(&nested(
            inst("or.pred", p0, vec![psrc(p1), psrc(p1)]),
            true
        )));
        assert!(unreachable(&nested(inst("mov.pred", p0, vec![psrc(p1)]), true)));
        assert!(unreachable(&nested(inst("not.pred", p0, vec![psrc(p1)]), false)));
        assert!(unreachable(&nested(inst("mov.pred", p0, vec![not_p(p1)]), false)));
        // Not a copy: another predicate, a guarded copy, or the other sense.
        assert!(!unreachable(&nested(
            inst("and.pred", p0, vec![psrc(p1), psrc(p2)]),
            true
        )));
        assert!(!unreachable(&nested(inst("mov.pred", p0, vec![psrc(p1)]), false)));
        let mut guarded = inst("mov.pred", p0, vec![psrc(p1)]);
        if let Stmt::Inst(i) = &mut guarded {
            i.guard = Some((false, p2));
        }
        assert!(!unreachable(&nested(guarded, true)));
    }

    #[test]
    fn code_after_a_contradicting_exit_is_unreachable() {
        let (r0, p0, p1) = (r(Class::B32, 0), r(Class::Pred, 0), r(Class::Pred, 1));
        let exit = |neg, p| Stmt::Exit {
            cond: (neg, p),
            level: 0,
            kind: crate::program::ExitKind::Continue,
        };
        let guarded = |p| Stmt::If {
            cond: (false, p),
            then_: vec![inst("not.b32", r0, vec![reg(r0)])],
            else_: Vec::new(),
        };
        let looped = |body| {
            program(vec![Stmt::Loop {
                count: LoopCount::Const(2),
                top_test: true,
                body,
            }])
        };
        // `@p0 continue; @!p0 bra L; not; L:` (the printer's form of a guarded `if !p0`).
        let p = looped(vec![exit(false, p0), guarded(p0)]);
        let a = Analysis::of(&p);
        assert!(a.whole().has_unreachable(|i| i.op == "not.b32"));
        // Another predicate, or p0 written after the exit: reachable.
        let a = Analysis::of(&looped(vec![exit(false, p1), guarded(p0)]));
        assert!(!a.whole().has_unreachable(|i| i.op == "not.b32"));
        let rewrite = inst("not.pred", p0, vec![reg(p0)]);
        let a = Analysis::of(&looped(vec![exit(false, p0), rewrite, guarded(p0)]));
        assert!(!a.whole().has_unreachable(|i| i.op == "not.b32"));
        // An exit with no loop around it does nothing.
        let a = Analysis::of(&program(vec![exit(false, p0), guarded(p0)]));
        assert!(!a.whole().has_unreachable(|i| i.op == "not.b32"));
    }

    #[test]
    fn reserved_temporaries_in_fixed_text() {
        assert_eq!(temps("[%xd0+4]"), vec!["%xd0"]);
        assert_eq!(temps("%xt2"), vec!["%xt2"]);
        assert!(temps("%tid.x").is_empty());
    }
}
