//! The shrinker: greedy reduction of a failing case while the same mismatch persists (an
//! unexplained mismatch with the same [`Mismatch::signature`], or a part the same open issue
//! explains). Stages, repeated until none makes progress: drop
//! statements, flatten if/else and loops, drop guards, turn operands into constants or the
//! first register of their class, shrink the launch, drop unused registers and accumulators,
//! and make input columns zero or uniform.

use crate::check::check_case;
use crate::classify::Verdict;
use crate::compare::Mismatch;
use crate::engines::Engines;
use crate::generator::Case;
use crate::program::walk;
use crate::program::{Class, Imm, LoopCount, Operand, Reg, Space, Stmt};

/// Limits of a shrink.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Most candidate checks.
    pub max_checks: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_checks: 3000 }
    }
}

/// What a shrink keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// An unexplained mismatch with this signature.
    Unexplained(String),
    /// A part that this open issue explains.
    Issue(&'static str),
}

impl Target {
    /// The mismatch of `v` the target names, if it still shows.
    pub fn find(&self, v: &Verdict) -> Option<Mismatch> {
        match self {
            Target::Unexplained(sig) => v.unexplained.iter().find(|m| m.signature() == *sig).cloned(),
            Target::Issue(id) => v
                .explained
                .iter()
                .find(|e| e.issues.contains(id))
                .map(|e| e.mismatch.clone()),
        }
    }
}

/// The result of a shrink.
#[derive(Clone, Debug)]
pub struct Shrunk {
    /// The smallest case found.
    pub case: Case,
    /// Its mismatch.
    pub mismatch: Mismatch,
    /// Candidate checks run.
    pub checks: usize,
}

type Stage = fn(&Case, usize) -> Option<Option<Case>>;

const STAGES: &[Stage] = &[
    remove_stmt,
    simplify_stmt,
    drop_guard,
    simplify_operand,
    shrink_launch,
    compact,
    simplify_input,
];

/// Shrinks `case`, which shows `mismatch` (found by `target`), while `target` still finds one.
pub fn shrink(engines: &Engines, case: Case, target: &Target, mismatch: Mismatch, limits: Limits) -> Shrunk {
    let mut best = Shrunk {
        case,
        mismatch,
        checks: 0,
    };
    loop {
        let mut progress = false;
        for stage in STAGES {
            let mut k = 0;
            while let Some(candidate) = stage(&best.case, k) {
                if best.checks >= limits.max_checks {
                    return best;
                }
                let Some(c) = candidate.filter(|c| *c != best.case) else {
                    k += 1;
                    continue;
                };
                best.checks += 1;
                match target.find(&check_case(engines, &c)) {
                    Some(m) => {
                        best.case = c;
                        best.mismatch = m;
                        progress = true;
                    }
                    None => k += 1,
                }
            }
        }
        if !progress {
            return best;
        }
    }
}

/// Number of statements in pre-order.
fn count_stmts(body: &[Stmt]) -> usize {
    let mut n = 0;
    walk::stmts(body, &mut |_| n += 1);
    n
}

/// Stage: remove statement `k` (numbered list by list, outermost list first, so that whole
/// if/else and loops go before their contents).
fn remove_stmt(case: &Case, k: usize) -> Option<Option<Case>> {
    if k >= count_stmts(&case.program.body) {
        return None;
    }
    let mut c = case.clone();
    let mut seen = 0;
    walk::lists_mut(&mut c.program.body, &mut |list| {
        if (seen..seen + list.len()).contains(&k) {
            list.remove(k - seen);
            seen = usize::MAX / 2;
        } else {
            seen += list.len();
        }
    });
    Some(Some(c))
}

/// Stage: structural simplifications of statement `k / 4`, variant `k % 4`.
fn simplify_stmt(case: &Case, k: usize) -> Option<Option<Case>> {
    let (target, variant) = (k / 4, k % 4);
    if target >= count_stmts(&case.program.body) {
        return None;
    }
    let mut c = case.clone();
    let mut seen = 0;
    let mut changed = false;
    walk::lists_mut(&mut c.program.body, &mut |list| {
        if (seen..seen + list.len()).contains(&target) {
            changed = simplify_at(list, target - seen, variant);
            seen = usize::MAX / 2;
        } else {
            seen += list.len();
        }
    });
    Some(changed.then_some(c))
}

/// Simplifies `list[i]` by `variant`; false if the variant does not apply.
fn simplify_at(list: &mut Vec<Stmt>, i: usize, variant: usize) -> bool {
    let replacement: Option<Vec<Stmt>> = match (&mut list[i], variant) {
        (Stmt::If { then_, .. }, 0) => Some(then_.clone()),
        (Stmt::If { else_, .. }, 1) => Some(else_.clone()),
        (Stmt::If { else_, .. }, 2) if !else_.is_empty() => {
            else_.clear();
            return true;
        }
        (Stmt::Loop { body, .. }, 0) => Some(body.clone()),
        (Stmt::Loop { count, .. }, 1) if *count != LoopCount::Const(1) => {
            *count = LoopCount::Const(1);
            return true;
        }
        (Stmt::Loop { count, .. }, 2) if *count != LoopCount::Const(0) => {
            *count = LoopCount::Const(0);
            return true;
        }
        (Stmt::Loop { top_test, .. }, 3) if !*top_test => {
            *top_test = true;
            return true;
        }
        (Stmt::Exchange { offset, .. }, 0) if *offset != 1 => {
            *offset = 1;
            return true;
        }
        (Stmt::Atomic { ret, .. }, 0) if *ret => {
            *ret = false;
            return true;
        }
        (Stmt::Exit { level, .. }, 0) if *level > 0 => {
            *level = 0;
            return true;
        }
        (Stmt::Group(g), v) if g.len() > 1 && v < g.len() && v > 0 => {
            // Drop a later member (never the first: it may set the carry flag).
            g.remove(v);
            return true;
        }
        _ => None,
    };
    match replacement {
        Some(stmts) => {
            list.splice(i..=i, stmts);
            true
        }
        None => false,
    }
}

/// Stage: drop the guard of instruction `k`.
fn drop_guard(case: &Case, k: usize) -> Option<Option<Case>> {
    let mut c = case.clone();
    let (mut seen, mut changed) = (0, false);
    walk::insts_mut(&mut c.program.body, &mut |i| {
        if seen == k && i.guard.is_some() {
            i.guard = None;
            changed = true;
        }
        seen += 1;
    });
    if k >= seen {
        return None;
    }
    Some(changed.then_some(c))
}

/// Stage: source `k / 3` becomes variant `k % 3`: the immediate 0, the immediate 1, or the
/// first register of its class.
fn simplify_operand(case: &Case, k: usize) -> Option<Option<Case>> {
    let (target, variant) = (k / 3, k % 3);
    let mut c = case.clone();
    let (mut seen, mut changed) = (0, false);
    walk::srcs_mut(&mut c.program.body, &mut |s| {
        if seen == target {
            let new = match (&s.op, s.imm, variant) {
                (Operand::Reg(_), Some(t), 0 | 1) => Some(Operand::Imm(Imm::new(t, variant as u64))),
                // Immediates only move toward 0 (then 1), so that no two candidates undo each other.
                (Operand::Imm(i), Some(t), 0) if i.bits != 0 => Some(Operand::Imm(Imm::new(t, 0))),
                (Operand::Imm(i), Some(t), 1) if i.bits > 1 => Some(Operand::Imm(Imm::new(t, 1))),
                (Operand::Reg(r), _, 2) if r.index > 0 => Some(Operand::Reg(Reg { index: 0, ..*r })),
                (Operand::NotPred(r), _, 0) => Some(Operand::Reg(*r)),
                (Operand::NotPred(r), _, 2) if r.index > 0 => Some(Operand::NotPred(Reg { index: 0, ..*r })),
                _ => None,
            };
            if let Some(op) = new.filter(|op| *op != s.op) {
                s.op = op;
                changed = true;
            }
        }
        seen += 1;
    });
    if target >= seen {
        return None;
    }
    Some(changed.then_some(c))
}

/// Stage: one block, then one warp (or half the threads when warps do not matter).
fn shrink_launch(case: &Case, k: usize) -> Option<Option<Case>> {
    let p = &case.program;
    let mut c = case.clone();
    let changed = match k {
        0 if p.grid > 1 => {
            c.program.grid = 1;
            true
        }
        1 if p.block > 32 => {
            c.program.block = 32;
            true
        }
        2 if p.block > 1 && !p.block.is_multiple_of(32) => {
            c.program.block = p.block.div_ceil(2);
            true
        }
        0..=2 => false,
        _ => return None,
    };
    Some(changed.then_some(c))
}

/// Stage: drop registers and accumulators the body does not use.
fn compact(case: &Case, k: usize) -> Option<Option<Case>> {
    match k {
        0 => Some(compact_regs(case)),
        1 => Some(compact_accs(case)),
        _ => None,
    }
}

fn compact_regs(case: &Case) -> Option<Case> {
    let used = walk::used_regs(&case.program.body);
    let p = &case.program;
    if used.len() == p.row() as usize {
        return None;
    }
    let mut c = case.clone();
    let mut pools = [0u8; 6];
    for r in &used {
        pools[r.class.slot()] += 1;
    }
    let rename = |r: Reg| Reg {
        class: r.class,
        index: used.iter().filter(|u| u.class == r.class && u.index < r.index).count() as u8,
    };
    walk::rename_regs(&mut c.program.body, &rename);
    c.program.pools = pools;
    let (old_row, new_row) = (p.row() as usize, c.program.row() as usize);
    for t in 0..p.threads() as usize {
        for r in &used {
            let new_col = c.program.column(rename(*r)) as usize;
            c.input[t * new_row + new_col] = case.input[t * old_row + p.column(*r) as usize];
        }
    }
    Some(c)
}

fn compact_accs(case: &Case) -> Option<Case> {
    let mut used: Vec<(Space, usize)> = Vec::new();
    walk::stmts(&case.program.body, &mut |s| {
        if let Stmt::Atomic { space, slot, .. } = s {
            used.push((*space, *slot));
        }
    });
    let p = &case.program;
    let keep = |space: Space, n: usize| -> Vec<usize> { (0..n).filter(|i| used.contains(&(space, *i))).collect() };
    let (ks, kg) = (
        keep(Space::Shared, p.shared_acc.len()),
        keep(Space::Global, p.global_acc.len()),
    );
    if ks.len() == p.shared_acc.len() && kg.len() == p.global_acc.len() {
        return None;
    }
    let mut c = case.clone();
    c.program.shared_acc = ks.iter().map(|&i| p.shared_acc[i].clone()).collect();
    c.program.global_acc = kg.iter().map(|&i| p.global_acc[i].clone()).collect();
    walk::stmts_mut(&mut c.program.body, &mut |s| {
        if let Stmt::Atomic { space, slot, .. } = s {
            let kept = if *space == Space::Shared { &ks } else { &kg };
            *slot = kept.iter().position(|&i| i == *slot).unwrap_or(0);
        }
    });
    Some(c)
}

/// Stage: input column `k / 2` becomes zero (variant 0) or thread 0's value (variant 1).
fn simplify_input(case: &Case, k: usize) -> Option<Option<Case>> {
    let p = &case.program;
    let (col, variant) = (k / 2, k % 2);
    if col >= p.row() as usize {
        return None;
    }
    let row = p.row() as usize;
    let mut c = case.clone();
    let v = if variant == 0 { 0 } else { case.input[col] };
    let is_pred = p.registers()[col].class == Class::Pred;
    for t in 0..p.threads() as usize {
        c.input[t * row + col] = if is_pred && variant == 0 { 0 } else { v };
    }
    Some(Some(c))
}
