//! Integer arithmetic of every width: add/sub (with `.sat`), mul/mad (`.lo/.hi/.wide`,
//! `mad.hi.sat`), 24-bit multiplies, min/max/abs/neg, sad, division and remainder with
//! divisors forced away from zero (and from -1 under INT_MIN), and carry chains.

use super::types::IntTy;
use super::{Gen, values};
use crate::program::{Dsts, Imm, Inst, Operand, Src, Stmt};

/// One integer arithmetic statement.
pub fn any(g: &mut Gen) -> Stmt {
    match g.rng.weighted(&[20, 14, 12, 12, 6, 6, 12, 12, 4]) {
        0 => add_sub(g),
        1 => mul(g),
        2 => mad(g),
        3 => min_max_abs(g),
        4 => saturating(g),
        5 => mul24(g),
        6 => div_rem(g),
        7 => carry_chain(g),
        _ => sad(g),
    }
}

fn src(g: &mut Gen, t: IntTy) -> Src {
    g.src(t.class(), t.imm())
}

fn add_sub(g: &mut Gen) -> Stmt {
    let t = IntTy::random(g.rng);
    let op = g.rng.pick(&["add", "sub"]);
    let d = g.reg(t.class());
    let srcs = vec![src(g, t), src(g, t)];
    g.inst(format!("{op}.{}", t.name()), d, srcs)
}

fn mul(g: &mut Gen) -> Stmt {
    let t = IntTy::random(g.rng);
    let mode = if t.bits < 64 {
        g.rng.pick(&["lo", "hi", "wide"])
    } else {
        g.rng.pick(&["lo", "hi"])
    };
    let dt = if mode == "wide" { t.wide() } else { t };
    let d = g.reg(dt.class());
    let srcs = vec![src(g, t), src(g, t)];
    g.inst(format!("mul.{mode}.{}", t.name()), d, srcs)
}

fn mad(g: &mut Gen) -> Stmt {
    let t = IntTy::random(g.rng);
    if t.bits == 32 && t.signed && g.rng.chance(20) {
        let d = g.reg(t.class());
        let srcs = vec![src(g, t), src(g, t), src(g, t)];
        return g.inst("mad.hi.sat.s32".into(), d, srcs);
    }
    let mode = if t.bits < 64 {
        g.rng.pick(&["lo", "hi", "wide"])
    } else {
        g.rng.pick(&["lo", "hi"])
    };
    let dt = if mode == "wide" { t.wide() } else { t };
    let d = g.reg(dt.class());
    let srcs = vec![src(g, t), src(g, t), src(g, dt)];
    g.inst(format!("mad.{mode}.{}", t.name()), d, srcs)
}

fn min_max_abs(g: &mut Gen) -> Stmt {
    let t = IntTy::random(g.rng);
    let d = g.reg(t.class());
    if g.rng.chance(30) {
        let t = IntTy::new(t.bits, true);
        let op = g.rng.pick(&["abs", "neg"]);
        let s = src(g, t);
        return g.inst(format!("{op}.{}", t.name()), d, vec![s]);
    }
    let op = g.rng.pick(&["min", "max"]);
    let srcs = vec![src(g, t), src(g, t)];
    g.inst(format!("{op}.{}", t.name()), d, srcs)
}

fn saturating(g: &mut Gen) -> Stmt {
    let t = IntTy::new(32, true);
    let op = g.rng.pick(&["add.sat.s32", "sub.sat.s32"]);
    let d = g.reg(t.class());
    let srcs = vec![src(g, t), src(g, t)];
    g.inst(op.into(), d, srcs)
}

fn mul24(g: &mut Gen) -> Stmt {
    let t = IntTy::new(32, g.rng.chance(50));
    let mode = g.rng.pick(&["lo", "hi"]);
    let d = g.reg(t.class());
    if g.rng.chance(50) {
        let srcs = vec![src(g, t), src(g, t)];
        g.inst(format!("mul24.{mode}.{}", t.name()), d, srcs)
    } else {
        let srcs = vec![src(g, t), src(g, t), src(g, t)];
        g.inst(format!("mad24.{mode}.{}", t.name()), d, srcs)
    }
}

fn sad(g: &mut Gen) -> Stmt {
    let t = IntTy::random(g.rng);
    let d = g.reg(t.class());
    let srcs = vec![src(g, t), src(g, t), src(g, t)];
    g.inst(format!("sad.{}", t.name()), d, srcs)
}

/// Temporaries of a width: (dividend, divisor).
fn temps(bits: u32) -> (&'static str, &'static str) {
    match bits {
        16 => ("%xh0", "%xh1"),
        32 => ("%xt2", "%xt3"),
        _ => ("%xd2", "%xd3"),
    }
}

fn fixed(s: &str) -> Src {
    Src {
        op: Operand::Fixed(s.into()),
        imm: None,
    }
}

/// `div`/`rem` with a divisor that is never zero and a dividend that is never INT_MIN when
/// the divisor may be -1 (both unspecified in PTX), or a constant divisor.
fn div_rem(g: &mut Gen) -> Stmt {
    let t = IntTy::random(g.rng);
    let op = format!("{}.{}", g.rng.pick(&["div", "rem"]), t.name());
    let (ta, tb) = temps(t.bits);
    let b = format!("b{}", t.bits);
    let d = g.reg(t.class());
    let mut group = Vec::new();
    if g.rng.chance(30) {
        // Division by a constant (the multiply-high path).
        let mut k = values::int(g.rng, t.bits) & t.imm().mask();
        if k == 0 || (t.signed && k == t.imm().mask()) {
            k = 7;
        }
        let a = src(g, t);
        let divisor = Src {
            op: Operand::Imm(Imm::new(t.imm(), k)),
            imm: Some(t.imm()),
        };
        group.push(Gen::bare(op, vec![Operand::Reg(d)], Dsts::Plain, vec![a, divisor]));
        return Stmt::Group(group);
    }
    let (a, bsrc) = (src(g, t), src(g, t));
    let dividend = if t.signed {
        let lowest = Src {
            op: Operand::Imm(Imm::new(t.imm(), (1u64 << (t.bits - 1)) + 1)),
            imm: Some(t.imm()),
        };
        let tmp = vec![Operand::Fixed(ta.into())];
        group.push(Gen::bare(
            format!("max.{}", t.name()),
            tmp,
            Dsts::Plain,
            vec![a, lowest],
        ));
        fixed(ta)
    } else {
        a
    };
    let one = Src {
        op: Operand::Imm(Imm::new(t.imm(), 1)),
        imm: None,
    };
    let tmp = vec![Operand::Fixed(tb.into())];
    group.push(Gen::bare(format!("or.{b}"), tmp, Dsts::Plain, vec![bsrc, one]));
    group.push(Gen::bare(
        op,
        vec![Operand::Reg(d)],
        Dsts::Plain,
        vec![dividend, fixed(tb)],
    ));
    Stmt::Group(group)
}

/// A chain of 2 to 4 instructions through the carry flag: add/mad family or sub family.
fn carry_chain(g: &mut Gen) -> Stmt {
    let bits = if g.rng.chance(70) { 32 } else { 64 };
    let t = IntTy::new(bits, g.rng.chance(30));
    let n = g.rng.range(2, 4) as usize;
    let sub = g.rng.chance(35);
    let mut group: Vec<Inst> = Vec::new();
    for i in 0..n {
        let (first, last) = (i == 0, i == n - 1);
        let cc = if last && g.rng.chance(85) { "" } else { ".cc" };
        let mad = !sub && g.rng.chance(30);
        let op = match (sub, mad, first) {
            (true, _, true) => "sub".to_string(),
            (true, _, false) => "subc".to_string(),
            (false, true, true) => format!("mad.{}", g.rng.pick(&["lo", "hi"])),
            (false, true, false) => format!("madc.{}", g.rng.pick(&["lo", "hi"])),
            (false, false, true) => "add".to_string(),
            (false, false, false) => "addc".to_string(),
        };
        let op = if first {
            format!("{op}.cc.{}", t.name())
        } else {
            format!("{op}{cc}.{}", t.name())
        };
        let mut srcs = vec![src(g, t), src(g, t)];
        if mad {
            srcs.push(src(g, t));
        }
        let d = g.reg(t.class());
        group.push(Gen::bare(op, vec![Operand::Reg(d)], Dsts::Plain, srcs));
    }
    Stmt::Group(group)
}
