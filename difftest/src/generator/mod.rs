//! The generator: a seeded random [`Program`] with its input. Programs are valid and
//! terminating by construction: every register is loaded before the body, loops count down
//! reserved counters, warp-wide operations and barriers only appear where the whole block is
//! converged, divisors are forced non-zero, and atomics only combine with one operation per
//! accumulator so the final value is independent of the order of the threads.

mod bits;
mod cmp;
mod control;
mod convert;
mod float;
mod int;
mod memory;
mod tensor;
mod types;
pub mod values;
mod warp;

use crate::program::{Acc, AtomOp, Class, Dsts, Imm, ImmTy, Inst, LoopCount, Operand, Program, Reg, Src, Stmt};
use crate::rng::Rng;
pub use types::IntTy;

/// A program with the input it runs on.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// The kernel.
    pub program: Program,
    /// The input buffer (`program.input_words` words).
    pub input: Vec<u64>,
}

/// Where a statement is generated.
#[derive(Clone, Copy, Debug)]
pub struct Ctx {
    /// Every thread of the block executes this point together (no divergent branch or loop
    /// around it): warp-wide operations and barriers are allowed.
    pub convergent: bool,
    /// Nesting of if/else.
    pub if_depth: u32,
    /// Nesting of loops.
    pub loop_depth: u32,
    /// How many of the innermost loops around this point may be left by an exit (break or
    /// continue); 0 outside loops with exits.
    pub exit_levels: u32,
}

/// Generator state.
pub struct Gen<'r> {
    /// The random stream.
    pub rng: &'r mut Rng,
    /// The program under construction (its body is filled at the end).
    pub p: Program,
    /// Instructions left to generate.
    budget: i64,
    /// What may be written.
    opts: Options,
    /// The guard every guardable instruction gets while a predicated run is generated
    /// (the predicate, and the chance in percent that an instruction negates it).
    forced_guard: Option<(Reg, u64)>,
}

/// What the generator may write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Leave out the instructions that run into open issues ([`crate::known::ISSUES`] with an
    /// `avoid` predicate), so that the programs test everything else.
    pub avoid_open_issues: bool,
    /// The generator revision whose programs to write (one of [`REVISIONS`]).
    pub revision: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            avoid_open_issues: false,
            revision: REVISION,
        }
    }
}

/// The generator's revision: a seed gives the same program in every build of one revision
/// (raise it when a change to the generator changes the programs, and keep the older ones
/// reachable through [`Options::revision`]). Results files name it, so that shards of
/// different generators are not merged. Revision 3 adds the tensor-core `mma.sync` (and so
/// draws differently from revision 2 wherever a warp-wide operation is drawn).
pub const REVISION: u32 = 3;

/// The revisions this build writes (the findings of older campaigns stay reproducible).
pub const REVISIONS: [u32; 2] = [2, 3];

impl Options {
    /// A name for results files: the options and the revision (a campaign's programs depend
    /// on both).
    pub fn name(&self) -> String {
        let what = if self.avoid_open_issues {
            "avoid-open-issues"
        } else {
            "default"
        };
        format!("{what}-r{}", self.revision)
    }
}

/// The program of `seed` with its input, written with every feature.
pub fn generate(seed: u64) -> Case {
    generate_with(seed, Options::default())
}

/// The program of `seed` with its input.
pub fn generate_with(seed: u64, opts: Options) -> Case {
    let mut rng = Rng::new(seed);
    let p = shape(&mut rng);
    let mut g = Gen {
        budget: rng.range(8, 70) as i64,
        rng: &mut rng,
        p,
        opts,
        forced_guard: None,
    };
    let top = Ctx {
        convergent: true,
        if_depth: 0,
        loop_depth: 0,
        exit_levels: 0,
    };
    let mut body = Vec::new();
    while g.budget > 0 {
        let s = g.stmt(top);
        body.extend(s);
    }
    g.p.body = body;
    let program = g.p;
    let input = crate::inputs::generate(&program, &mut rng);
    Case { program, input }
}

/// Launch shape, register pools, version and accumulators.
fn shape(rng: &mut Rng) -> Program {
    let version = rng.pick(&[
        (6, 5),
        (7, 0),
        (7, 1),
        (7, 2),
        (7, 3),
        (7, 4),
        (7, 5),
        (7, 6),
        (7, 7),
        (7, 8),
    ]);
    let block = if rng.chance(85) {
        32 * rng.range(1, 4) as u32
    } else {
        rng.range(1, 100) as u32
    };
    let grid = rng.range(1, 3) as u32;
    let pools = [
        rng.range(3, 10) as u8,
        rng.range(2, 6) as u8,
        rng.range(1, 3) as u8,
        rng.range(2, 6) as u8,
        rng.range(1, 4) as u8,
        rng.range(2, 4) as u8,
    ];
    let shared_acc = (0..rng.below(4)).map(|_| acc(rng)).collect();
    let global_acc = (0..rng.below(4)).map(|_| acc(rng)).collect();
    let mut p = Program {
        version,
        grid,
        block,
        pools,
        body: Vec::new(),
        shared_acc,
        global_acc,
        input_words: 0,
    };
    p.input_words = (p.threads() * p.row()).next_power_of_two();
    p
}

/// An accumulator with a random operation, type and initial value.
fn acc(rng: &mut Rng) -> Acc {
    let op = rng.pick(&[
        AtomOp::Add,
        AtomOp::And,
        AtomOp::Or,
        AtomOp::Xor,
        AtomOp::Min,
        AtomOp::Max,
    ]);
    let ty = match op {
        AtomOp::Add => rng.pick(&["u32", "s32", "u64"]),
        AtomOp::And | AtomOp::Or | AtomOp::Xor => rng.pick(&["b32", "b64"]),
        AtomOp::Min | AtomOp::Max => rng.pick(&["u32", "s32", "u64", "s64"]),
    };
    let bits = if ty.ends_with("64") { 64 } else { 32 };
    Acc {
        op,
        ty,
        init: values::int(rng, bits),
    }
}

impl Gen<'_> {
    /// True when the block is made of whole warps (full-mask warp operations are defined).
    pub fn whole_warps(&self) -> bool {
        self.p.block.is_multiple_of(32)
    }

    /// True when the PTX version is at least `major.minor`.
    pub fn version_at_least(&self, major: u8, minor: u8) -> bool {
        self.p.version >= (major, minor)
    }

    /// A random pool register of class `c`.
    pub fn reg(&mut self, c: Class) -> Reg {
        let n = self.p.pools[c.slot()].max(1);
        Reg {
            class: c,
            index: self.rng.below(n as u64) as u8,
        }
    }

    /// A random immediate of type `ty`.
    pub fn imm(&mut self, ty: ImmTy) -> Imm {
        let bits = match ty {
            ImmTy::F32 => values::f32(self.rng),
            ImmTy::F64 => values::f64(self.rng),
            _ => values::int(self.rng, ty.bits()),
        };
        Imm::new(ty, bits)
    }

    /// A source of class `c` that may be an immediate of type `ty` (one time in six).
    pub fn src(&mut self, c: Class, ty: ImmTy) -> Src {
        if self.rng.chance(16) {
            Src {
                op: Operand::Imm(self.imm(ty)),
                imm: Some(ty),
            }
        } else {
            self.src_reg(c, Some(ty))
        }
    }

    /// A register source of class `c` (the shrinker may replace it by an immediate of `imm`).
    pub fn src_reg(&mut self, c: Class, imm: Option<ImmTy>) -> Src {
        Src {
            op: Operand::Reg(self.reg(c)),
            imm,
        }
    }

    /// A predicate source, negated one time in four.
    pub fn pred_src(&mut self) -> Src {
        let r = self.reg(Class::Pred);
        let op = if self.rng.chance(25) {
            Operand::NotPred(r)
        } else {
            Operand::Reg(r)
        };
        Src { op, imm: None }
    }

    /// A small immediate source in `lo..=hi` of type `ty`.
    pub fn small(&mut self, ty: ImmTy, lo: u64, hi: u64) -> Src {
        Src {
            op: Operand::Imm(Imm::new(ty, self.rng.range(lo, hi))),
            imm: Some(ty),
        }
    }

    /// A guard for a plain instruction (one time in seven; always in a predicated run).
    pub fn guard(&mut self) -> Option<(bool, Reg)> {
        if let Some((p, negated)) = self.forced_guard {
            return Some((self.rng.chance(negated), p));
        }
        if self.rng.chance(14) {
            let r = self.reg(Class::Pred);
            Some((self.rng.chance(40), r))
        } else {
            None
        }
    }

    /// A possibly guarded instruction writing `dst`.
    pub fn inst(&mut self, op: String, dst: Reg, srcs: Vec<Src>) -> Stmt {
        let guard = self.guard();
        Stmt::Inst(Inst {
            guard,
            op,
            dsts: vec![Operand::Reg(dst)],
            dst_form: Dsts::Plain,
            srcs,
        })
    }

    /// An unguarded instruction with the given destinations.
    pub fn bare(op: String, dsts: Vec<Operand>, dst_form: Dsts, srcs: Vec<Src>) -> Inst {
        Inst {
            guard: None,
            op,
            dsts,
            dst_form,
            srcs,
        }
    }

    /// The statements of one generation step in context `ctx` (usually one).
    fn stmt(&mut self, ctx: Ctx) -> Vec<Stmt> {
        let can_nest = ctx.if_depth + ctx.loop_depth < 3 && self.budget > 4;
        let w = [
            80,
            if can_nest { 7 } else { 0 },
            if can_nest && ctx.loop_depth < 2 { 5 } else { 0 },
            if ctx.convergent && self.rng.chance(50) { 4 } else { 0 },
            if self.p.shared_acc.len() + self.p.global_acc.len() > 0 {
                5
            } else {
                0
            },
            if ctx.exit_levels > 0 { 6 } else { 0 },
            4,
            if can_nest { 4 } else { 0 },
            if can_nest { 3 } else { 0 },
            4,
        ];
        match self.rng.weighted(&w) {
            1 => vec![self.if_(ctx)],
            2 => vec![self.loop_(ctx)],
            3 => {
                self.budget -= 1;
                vec![memory::exchange(self)]
            }
            4 => {
                self.budget -= 1;
                vec![self.allowed(|g| memory::atomic(g))]
            }
            5 => {
                self.budget -= 1;
                vec![control::exit(self, ctx)]
            }
            6 => control::predicated_run(self, ctx),
            7 => vec![control::short_branch(self, ctx)],
            8 => control::uniform(self, ctx),
            9 => {
                self.budget -= 2;
                vec![memory::vector(self)]
            }
            _ => {
                self.budget -= 1;
                vec![self.allowed(|g| g.op(ctx))]
            }
        }
    }

    /// A statement from `f` that runs into no open issue when they are to be avoided (after
    /// a few tries, a plain move).
    fn allowed(&mut self, f: impl Fn(&mut Self) -> Stmt) -> Stmt {
        if !self.opts.avoid_open_issues {
            return f(self);
        }
        for _ in 0..50 {
            let s = f(self);
            if crate::known::avoided(&self.p, &s).is_none() {
                return s;
            }
        }
        let d = self.reg(Class::B32);
        let s = self.src(Class::B32, ImmTy::U32);
        self.inst("mov.b32".into(), d, vec![s])
    }

    /// Statements until about `n` instructions are spent.
    fn block(&mut self, ctx: Ctx, n: i64) -> Vec<Stmt> {
        let stop = self.budget - n;
        let mut out = Vec::new();
        while self.budget > stop.max(0) {
            out.extend(self.stmt(ctx));
        }
        out
    }

    fn if_(&mut self, ctx: Ctx) -> Stmt {
        let cond = (self.rng.chance(30), self.reg(Class::Pred));
        self.if_on(ctx, cond, false)
    }

    /// An if/else on `cond`; `uniform`: the condition is the same in every thread of the
    /// block, so the branches keep the context's convergence.
    pub fn if_on(&mut self, ctx: Ctx, cond: (bool, Reg), uniform: bool) -> Stmt {
        let inner = Ctx {
            convergent: ctx.convergent && uniform,
            if_depth: ctx.if_depth + 1,
            ..ctx
        };
        let n = self.rng.range(1, 8) as i64;
        let mut then_ = self.block(inner, n);
        let mut else_ = if self.rng.chance(50) {
            let n = self.rng.range(1, 6) as i64;
            self.block(inner, n)
        } else {
            Vec::new()
        };
        // Sometimes a branch ends with an if or a loop, which joins where this if joins
        // (nested branches sharing one join).
        if ctx.if_depth + ctx.loop_depth < 2 && self.budget > 4 && self.rng.chance(20) {
            let last = if else_.is_empty() || self.rng.chance(50) {
                &mut then_
            } else {
                &mut else_
            };
            let tail = if self.rng.chance(60) {
                self.if_(inner)
            } else {
                self.loop_(inner)
            };
            last.push(tail);
        }
        Stmt::If { cond, then_, else_ }
    }

    fn loop_(&mut self, ctx: Ctx) -> Stmt {
        let uniform = self.rng.chance(40);
        let count = if uniform {
            LoopCount::Const(self.rng.range(0, 5) as u32)
        } else {
            let r = self.reg(Class::B32);
            LoopCount::Reg(r, self.rng.pick(&[1, 3, 5, 7]))
        };
        self.loop_with(ctx, count, uniform)
    }

    /// A loop with trip count `count`; `uniform`: the count is the same in every thread of
    /// the block. One loop in three may be left early (break, continue), which makes it
    /// divergent.
    pub fn loop_with(&mut self, ctx: Ctx, count: LoopCount, uniform: bool) -> Stmt {
        let exits = self.rng.chance(35);
        let inner = Ctx {
            convergent: ctx.convergent && uniform && !exits,
            loop_depth: ctx.loop_depth + 1,
            exit_levels: if exits { ctx.exit_levels + 1 } else { 0 },
            ..ctx
        };
        let n = self.rng.range(2, 10) as i64;
        let body = self.block(inner, n);
        Stmt::Loop {
            count,
            top_test: self.rng.chance(50),
            body,
        }
    }

    /// One instruction (or a short group) of a random kind.
    fn op(&mut self, ctx: Ctx) -> Stmt {
        let warp = if ctx.convergent && self.whole_warps() { 8 } else { 0 };
        match self.rng.weighted(&[20, 20, 14, 18, 14, warp, 3, 3]) {
            0 => int::any(self),
            1 => bits::any(self),
            2 => cmp::any(self),
            3 => float::any(self),
            4 => convert::any(self),
            5 => warp::any(self),
            6 => memory::gather(self),
            _ => self.special(),
        }
    }

    /// A move from a special register or between classes.
    fn special(&mut self) -> Stmt {
        match self.rng.below(3) {
            0 => {
                let sreg = self.rng.pick(&[
                    "%tid.x",
                    "%ntid.x",
                    "%ctaid.x",
                    "%nctaid.x",
                    "%laneid",
                    "%tid.y",
                    "%ntid.z",
                ]);
                let d = self.reg(Class::B32);
                let src = Src {
                    op: Operand::Fixed(sreg.into()),
                    imm: None,
                };
                self.inst("mov.u32".into(), d, vec![src])
            }
            1 => {
                // Integer bits into float registers only: which NaN an operation returns is
                // not specified, so float bits moved into integers could differ legitimately.
                let (dc, sc, ty) = self
                    .rng
                    .pick(&[(Class::F32, Class::B32, "b32"), (Class::F64, Class::B64, "b64")]);
                let d = self.reg(dc);
                let s = self.src(sc, ImmTy::of(ty).unwrap_or(ImmTy::U32));
                self.inst(format!("mov.{ty}"), d, vec![s])
            }
            _ => {
                // Pack or unpack 64-bit values through vectors of 32-bit halves.
                let wide = self.reg(Class::B64);
                let halves = vec![self.reg(Class::B32), self.reg(Class::B32)];
                if self.rng.chance(50) || halves[0] == halves[1] {
                    let src = Src {
                        op: Operand::Vector(halves),
                        imm: None,
                    };
                    self.inst("mov.b64".into(), wide, vec![src])
                } else {
                    let dsts = halves.into_iter().map(Operand::Reg).collect();
                    let mut i = Gen::bare("mov.b64".into(), dsts, Dsts::Vector, vec![]);
                    i.srcs.push(Src {
                        op: Operand::Reg(wide),
                        imm: Some(ImmTy::U64),
                    });
                    i.guard = self.guard();
                    Stmt::Inst(i)
                }
            }
        }
    }
}
