//! Walks over a body in pre-order: every statement list, every statement, every instruction
//! (group members included), so that the shrinker can number them and edit one by number.

use super::{Inst, Reg, Src, Stmt};

/// Calls `f` on every statement list, outermost first.
pub fn lists_mut(body: &mut Vec<Stmt>, f: &mut dyn FnMut(&mut Vec<Stmt>)) {
    f(body);
    for s in body.iter_mut() {
        match s {
            Stmt::If { then_, else_, .. } => {
                lists_mut(then_, f);
                lists_mut(else_, f);
            }
            Stmt::Loop { body, .. } => lists_mut(body, f),
            _ => {}
        }
    }
}

/// Calls `f` on every statement, parents before children.
pub fn stmts_mut(body: &mut [Stmt], f: &mut dyn FnMut(&mut Stmt)) {
    for s in body.iter_mut() {
        f(s);
        match s {
            Stmt::If { then_, else_, .. } => {
                stmts_mut(then_, f);
                stmts_mut(else_, f);
            }
            Stmt::Loop { body, .. } => stmts_mut(body, f),
            _ => {}
        }
    }
}

/// Calls `f` on every statement, parents before children.
pub fn stmts(body: &[Stmt], f: &mut dyn FnMut(&Stmt)) {
    for s in body {
        f(s);
        match s {
            Stmt::If { then_, else_, .. } => {
                stmts(then_, f);
                stmts(else_, f);
            }
            Stmt::Loop { body, .. } => stmts(body, f),
            _ => {}
        }
    }
}

/// Calls `f` on every instruction.
pub fn insts_mut(body: &mut [Stmt], f: &mut dyn FnMut(&mut Inst)) {
    stmts_mut(body, &mut |s| match s {
        Stmt::Inst(i) => f(i),
        Stmt::Group(g) => g.iter_mut().for_each(&mut *f),
        _ => {}
    });
}

/// Calls `f` on every source operand that can change without changing the statement's shape
/// (instruction sources and atomic operands).
pub fn srcs_mut(body: &mut [Stmt], f: &mut dyn FnMut(&mut Src)) {
    stmts_mut(body, &mut |s| match s {
        Stmt::Inst(i) => i.srcs.iter_mut().for_each(&mut *f),
        Stmt::Group(g) => g.iter_mut().flat_map(|i| i.srcs.iter_mut()).for_each(&mut *f),
        Stmt::Atomic { src, .. } => f(src),
        _ => {}
    });
}

/// Every pool register the body names.
pub fn used_regs(body: &[Stmt]) -> Vec<Reg> {
    fn inst_regs(i: &Inst, out: &mut Vec<Reg>) {
        out.extend(i.guard.map(|(_, p)| p));
        i.dsts.iter().for_each(|d| out.extend(d.regs()));
        i.srcs.iter().for_each(|s| out.extend(s.op.regs()));
    }
    let mut out = Vec::new();
    stmts(body, &mut |s| match s {
        Stmt::Inst(i) => inst_regs(i, &mut out),
        Stmt::Group(g) => g.iter().for_each(|i| inst_regs(i, &mut out)),
        Stmt::If { cond, .. } | Stmt::Exit { cond, .. } => out.push(cond.1),
        Stmt::Loop {
            count: super::LoopCount::Reg(r, _),
            ..
        } => out.push(*r),
        Stmt::Exchange { src, dst, .. } => out.extend([*src, *dst]),
        Stmt::Atomic { src, .. } => out.extend(src.op.regs()),
        _ => {}
    });
    out.sort();
    out.dedup();
    out
}

/// Renames every pool register of the body with `f`.
pub fn rename_regs(body: &mut [Stmt], f: &dyn Fn(Reg) -> Reg) {
    stmts_mut(body, &mut |s| match s {
        Stmt::Inst(i) => rename_inst(i, f),
        Stmt::Group(g) => g.iter_mut().for_each(|i| rename_inst(i, f)),
        Stmt::If { cond, .. } | Stmt::Exit { cond, .. } => cond.1 = f(cond.1),
        Stmt::Loop {
            count: super::LoopCount::Reg(r, _),
            ..
        } => *r = f(*r),
        Stmt::Exchange { src, dst, .. } => {
            *src = f(*src);
            *dst = f(*dst);
        }
        Stmt::Atomic { src, .. } => src.op = src.op.map_regs(f),
        _ => {}
    });
}

fn rename_inst(i: &mut Inst, f: &dyn Fn(Reg) -> Reg) {
    if let Some((_, p)) = &mut i.guard {
        *p = f(*p);
    }
    for d in &mut i.dsts {
        *d = d.map_regs(f);
    }
    for s in &mut i.srcs {
        s.op = s.op.map_regs(f);
    }
}
