//! Control flow beyond plain if/else and counted loops: exits from loops (break and continue,
//! also out of several loops at once), runs of instructions guarded by one predicate and
//! short branches (the code the back end turns into predicated instructions), and values
//! uniform across the block (from special registers and constants) that decide branches and
//! trip counts, as the uniform datapath computes them.

use super::{Ctx, Gen};
use crate::program::{Class, Dsts, ExitKind, Imm, ImmTy, Inst, LoopCount, Operand, Reg, Src, Stmt};

/// A break or continue of one of the loops around (only where `ctx.exit_levels > 0`).
pub fn exit(g: &mut Gen, ctx: Ctx) -> Stmt {
    let cond = (g.rng.chance(30), g.reg(Class::Pred));
    let level = g.rng.below(ctx.exit_levels.max(1) as u64) as u8;
    let kind = if g.rng.chance(60) {
        ExitKind::Break
    } else {
        ExitKind::Continue
    };
    Stmt::Exit { cond, level, kind }
}

/// Two to five instructions all guarded by one predicate (some by its negation), as
/// if-converted code looks.
pub fn predicated_run(g: &mut Gen, ctx: Ctx) -> Vec<Stmt> {
    let p = g.reg(Class::Pred);
    let negated = g.rng.pick(&[0, 30, 50]);
    let n = g.rng.range(2, 5);
    let mut out = Vec::new();
    for _ in 0..n {
        g.budget -= 1;
        g.forced_guard = Some((p, negated));
        let s = g.allowed(|g| g.op(ctx));
        g.forced_guard = None;
        out.push(s);
    }
    out
}

/// An if/else whose sides are one to three plain instructions (a candidate for
/// predication instead of a branch).
pub fn short_branch(g: &mut Gen, ctx: Ctx) -> Stmt {
    let inner = Ctx {
        convergent: false,
        if_depth: ctx.if_depth + 1,
        ..ctx
    };
    let cond = (g.rng.chance(30), g.reg(Class::Pred));
    let side = |g: &mut Gen, n: u64| -> Vec<Stmt> {
        (0..n)
            .map(|_| {
                g.budget -= 1;
                g.allowed(|g| g.op(inner))
            })
            .collect()
    };
    let n = g.rng.range(1, 3);
    let then_ = side(g, n);
    let m = if g.rng.chance(50) { g.rng.range(1, 3) } else { 0 };
    let else_ = side(g, m);
    Stmt::If { cond, then_, else_ }
}

fn fixed(s: &str) -> Src {
    Src {
        op: Operand::Fixed(s.into()),
        imm: None,
    }
}

fn imm(v: u64) -> Src {
    Src {
        op: Operand::Imm(Imm::new(ImmTy::U32, v)),
        imm: None,
    }
}

fn to(op: &str, dst: Operand, srcs: Vec<Src>) -> Inst {
    Gen::bare(op.into(), vec![dst], Dsts::Plain, srcs)
}

/// Special registers that are the same in every thread of a block.
const UNIFORM_SREGS: &[&str] = &["%ctaid.x", "%nctaid.x", "%ntid.x", "%ntid.y", "%nctaid.y"];

/// A value uniform across the block, computed into the temporary `%xt2` from special
/// registers (read with `mov` into `%xt3`) and constants by two to six instructions.
fn uniform_chain(g: &mut Gen) -> Vec<Inst> {
    let t = || Operand::Fixed("%xt2".into());
    let mut chain = vec![to("mov.u32", t(), vec![fixed(g.rng.pick(UNIFORM_SREGS))])];
    for _ in 0..g.rng.range(1, 3) {
        let k = g.rng.range(0, 40);
        let step = match g.rng.below(6) {
            0 => to(
                "mad.lo.u32",
                t(),
                vec![fixed("%xt2"), imm(k | 1), imm(g.rng.range(0, 9))],
            ),
            1 => to("add.u32", t(), vec![fixed("%xt2"), imm(k)]),
            2 => to("xor.b32", t(), vec![fixed("%xt2"), imm(k)]),
            3 => to("shl.b32", t(), vec![fixed("%xt2"), imm(k % 5)]),
            k => {
                let sreg = fixed(g.rng.pick(UNIFORM_SREGS));
                chain.push(to("mov.u32", Operand::Fixed("%xt3".into()), vec![sreg]));
                let op = if k == 4 { "min.u32" } else { "add.u32" };
                to(op, t(), vec![fixed("%xt2"), fixed("%xt3")])
            }
        };
        chain.push(step);
    }
    chain
}

/// A uniform value and a use of it: mixed into a pool register, a branch on a predicate
/// computed from it (the branches stay convergent), or the trip count of a loop (the loop
/// stays convergent).
pub fn uniform(g: &mut Gen, ctx: Ctx) -> Vec<Stmt> {
    let mut chain = uniform_chain(g);
    g.budget -= chain.len() as i64;
    let can_nest = ctx.if_depth + ctx.loop_depth < 3 && g.budget > 4;
    match g.rng.below(if can_nest { 3 } else { 1 }) {
        0 => {
            let d = g.reg(Class::B32);
            let other = g.src_reg(Class::B32, Some(ImmTy::U32));
            let op = g.rng.pick(&["add.u32", "mul.lo.u32", "and.b32", "shr.u32"]);
            chain.push(Gen::bare(
                op.into(),
                vec![Operand::Reg(d)],
                Dsts::Plain,
                vec![other, fixed("%xt2")],
            ));
            vec![Stmt::Group(chain)]
        }
        1 => {
            let p = g.reg(Class::Pred);
            let cmp = g.rng.pick(&["lt", "ge", "eq", "ne"]);
            let k = g.rng.range(0, 8);
            chain.push(Gen::bare(
                format!("setp.{cmp}.u32"),
                vec![Operand::Reg(p)],
                Dsts::Plain,
                vec![fixed("%xt2"), imm(k)],
            ));
            let cond = (g.rng.chance(30), p);
            vec![Stmt::Group(chain), g.if_on(ctx, cond, true)]
        }
        _ => {
            let r: Reg = g.reg(Class::B32);
            chain.push(to("mov.u32", Operand::Reg(r), vec![fixed("%xt2")]));
            let count = LoopCount::Reg(r, g.rng.pick(&[1, 3]));
            vec![Stmt::Group(chain), g.loop_with(ctx, count, true)]
        }
    }
}
