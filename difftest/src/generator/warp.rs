//! Warp-wide operations with the full member mask, only generated where the whole block is
//! converged: shfl.sync in every mode and segment width (with the lane-valid predicate),
//! vote.sync, match.sync, activemask, the block-wide bar.red and (from revision 3) the
//! tensor-core `mma.sync`.

use super::Gen;
use crate::program::{Class, Dsts, Imm, ImmTy, Operand, Src, Stmt};

const FULL: &str = "0xffffffff";

/// One warp-wide statement.
pub fn any(g: &mut Gen) -> Stmt {
    let tensor = if g.opts.revision >= 3 && g.version_at_least(6, 5) {
        20
    } else {
        0
    };
    match g.rng.weighted(&[40, 25, 12, 5, 10, tensor]) {
        0 => shfl(g),
        1 => vote(g),
        2 => match_(g),
        3 => activemask(g),
        4 => bar_red(g),
        _ => super::tensor::mma(g).unwrap_or_else(|| shfl(g)),
    }
}

fn fixed(s: &str) -> Src {
    Src {
        op: Operand::Fixed(s.into()),
        imm: None,
    }
}

fn imm_u32(v: u64) -> Src {
    Src {
        op: Operand::Imm(Imm::new(ImmTy::U32, v)),
        imm: Some(ImmTy::U32),
    }
}

fn shfl(g: &mut Gen) -> Stmt {
    let mode = g.rng.pick(&["up", "down", "bfly", "idx"]);
    let c = if g.rng.chance(50) { Class::B32 } else { Class::F32 };
    let a = g.src_reg(c, None);
    let lane = if g.rng.chance(70) {
        imm_u32(g.rng.below(34))
    } else {
        g.src_reg(Class::B32, Some(ImmTy::U32))
    };
    let width = g.rng.pick(&[32, 32, 16, 8, 4, 2]);
    let clamp = if mode == "up" { 0 } else { 0x1f };
    let cval = if g.rng.chance(10) {
        g.src_reg(Class::B32, Some(ImmTy::U32))
    } else {
        imm_u32(((32 - width) << 8) | clamp)
    };
    let d = g.reg(c);
    let mut dsts = vec![Operand::Reg(d)];
    if g.rng.chance(40) {
        dsts.push(Operand::Reg(g.reg(Class::Pred)));
    }
    let form = if dsts.len() == 2 { Dsts::Pair } else { Dsts::Plain };
    Stmt::Inst(Gen::bare(
        format!("shfl.sync.{mode}.b32"),
        dsts,
        form,
        vec![a, lane, cval, fixed(FULL)],
    ))
}

fn vote(g: &mut Gen) -> Stmt {
    let p = g.pred_src();
    if g.rng.chance(35) {
        let d = g.reg(Class::B32);
        return Stmt::Inst(Gen::bare(
            "vote.sync.ballot.b32".into(),
            vec![Operand::Reg(d)],
            Dsts::Plain,
            vec![p, fixed(FULL)],
        ));
    }
    let mode = g.rng.pick(&["all", "any", "uni"]);
    let d = g.reg(Class::Pred);
    Stmt::Inst(Gen::bare(
        format!("vote.sync.{mode}.pred"),
        vec![Operand::Reg(d)],
        Dsts::Plain,
        vec![p, fixed(FULL)],
    ))
}

fn match_(g: &mut Gen) -> Stmt {
    let (c, ty) = if g.rng.chance(70) {
        (Class::B32, "b32")
    } else {
        (Class::B64, "b64")
    };
    let a = g.src_reg(c, None);
    let d = g.reg(Class::B32);
    if g.rng.chance(60) {
        Stmt::Inst(Gen::bare(
            format!("match.any.sync.{ty}"),
            vec![Operand::Reg(d)],
            Dsts::Plain,
            vec![a, fixed(FULL)],
        ))
    } else {
        let p = g.reg(Class::Pred);
        let dsts = vec![Operand::Reg(d), Operand::Reg(p)];
        Stmt::Inst(Gen::bare(
            format!("match.all.sync.{ty}"),
            dsts,
            Dsts::Pair,
            vec![a, fixed(FULL)],
        ))
    }
}

fn activemask(g: &mut Gen) -> Stmt {
    let d = g.reg(Class::B32);
    Stmt::Inst(Gen::bare(
        "activemask.b32".into(),
        vec![Operand::Reg(d)],
        Dsts::Plain,
        vec![],
    ))
}

fn bar_red(g: &mut Gen) -> Stmt {
    let p = g.pred_src();
    if g.rng.chance(50) {
        let d = g.reg(Class::B32);
        Stmt::Inst(Gen::bare(
            "bar.red.popc.u32".into(),
            vec![Operand::Reg(d)],
            Dsts::Plain,
            vec![fixed("0"), p],
        ))
    } else {
        let op = g.rng.pick(&["and", "or"]);
        let d = g.reg(Class::Pred);
        Stmt::Inst(Gen::bare(
            format!("bar.red.{op}.pred"),
            vec![Operand::Reg(d)],
            Dsts::Plain,
            vec![fixed("0"), p],
        ))
    }
}
