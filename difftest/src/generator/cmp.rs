//! Comparisons and selects: setp on integers and floats (ordered and unordered, `.ftz`,
//! `.and/.or/.xor` with a third predicate, two destinations), set, selp, slct, predicate
//! logic and testp.

use super::Gen;
use super::types::IntTy;
use crate::program::{Class, Dsts, ImmTy, Operand, Src, Stmt};

const INT_CMP: &[&str] = &["eq", "ne", "lt", "le", "gt", "ge"];
const UNSIGNED_CMP: &[&str] = &["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"];
const FLOAT_CMP: &[&str] = &[
    "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
];

/// One comparison or select statement.
pub fn any(g: &mut Gen) -> Stmt {
    match g.rng.weighted(&[24, 20, 14, 8, 6, 12, 6]) {
        0 => setp_int(g),
        1 => setp_float(g),
        2 => selp(g),
        3 => set(g),
        4 => slct(g),
        5 => pred_logic(g),
        _ => testp(g),
    }
}

/// A comparison type: (type name, class, immediate type, operators).
fn cmp_ty(g: &mut Gen, float: bool) -> (String, Class, ImmTy, &'static [&'static str]) {
    if float {
        if g.rng.chance(60) {
            ("f32".into(), Class::F32, ImmTy::F32, FLOAT_CMP)
        } else {
            ("f64".into(), Class::F64, ImmTy::F64, FLOAT_CMP)
        }
    } else {
        let t = IntTy::random(g.rng);
        if g.rng.chance(15) {
            (t.bname(), t.class(), t.imm(), &INT_CMP[..2])
        } else if t.signed {
            (t.name(), t.class(), t.imm(), INT_CMP)
        } else {
            (t.name(), t.class(), t.imm(), UNSIGNED_CMP)
        }
    }
}

fn setp_with(g: &mut Gen, float: bool) -> Stmt {
    let (ty, c, imm, ops) = cmp_ty(g, float);
    let cmp = g.rng.pick(ops);
    let ftz = if ty == "f32" && g.rng.chance(30) { ".ftz" } else { "" };
    let combine = if g.rng.chance(30) {
        g.rng.pick(&[".and", ".or", ".xor"])
    } else {
        ""
    };
    let mut srcs = vec![g.src(c, imm), g.src(c, imm)];
    if !combine.is_empty() {
        srcs.push(g.pred_src());
    }
    let op = format!("setp.{cmp}{combine}{ftz}.{ty}");
    if g.rng.chance(25) {
        let (p, q) = (g.reg(Class::Pred), g.reg(Class::Pred));
        if p != q {
            let mut i = Gen::bare(op, vec![Operand::Reg(p), Operand::Reg(q)], Dsts::Pair, srcs);
            i.guard = g.guard();
            return Stmt::Inst(i);
        }
    }
    let d = g.reg(Class::Pred);
    g.inst(op, d, srcs)
}

fn setp_int(g: &mut Gen) -> Stmt {
    setp_with(g, false)
}

fn setp_float(g: &mut Gen) -> Stmt {
    setp_with(g, true)
}

/// A random value type for selects: (name, class, immediate type).
fn value_ty(g: &mut Gen) -> (&'static str, Class, ImmTy) {
    g.rng.pick(&[
        ("b16", Class::B16, ImmTy::U16),
        ("b32", Class::B32, ImmTy::U32),
        ("s32", Class::B32, ImmTy::S32),
        ("u64", Class::B64, ImmTy::U64),
        ("f32", Class::F32, ImmTy::F32),
        ("f64", Class::F64, ImmTy::F64),
    ])
}

fn selp(g: &mut Gen) -> Stmt {
    let (ty, c, imm) = value_ty(g);
    let d = g.reg(c);
    let p = g.src_reg(Class::Pred, None);
    let srcs = vec![g.src(c, imm), g.src(c, imm), p];
    g.inst(format!("selp.{ty}"), d, srcs)
}

fn set(g: &mut Gen) -> Stmt {
    let float = g.rng.chance(40);
    let (ty, c, imm, ops) = cmp_ty(g, float);
    let cmp = g.rng.pick(ops);
    let (dty, dc) = g
        .rng
        .pick(&[("u32", Class::B32), ("s32", Class::B32), ("f32", Class::F32)]);
    let ftz = if ty == "f32" && g.rng.chance(25) { ".ftz" } else { "" };
    let combine = if g.rng.chance(25) {
        g.rng.pick(&[".and", ".or", ".xor"])
    } else {
        ""
    };
    let mut srcs = vec![g.src(c, imm), g.src(c, imm)];
    if !combine.is_empty() {
        srcs.push(g.pred_src());
    }
    let d = g.reg(dc);
    let op = format!("set.{cmp}{combine}{ftz}.{dty}.{ty}");
    if dty == "f32" || ty.ends_with("16") {
        // Never guarded: ptxas miscompiles a guarded set with an f32 result or 16-bit
        // operands (known issues ptxas-guarded-set-f32, ptxas-guarded-set-s16).
        return Stmt::Inst(Gen::bare(op, vec![Operand::Reg(d)], Dsts::Plain, srcs));
    }
    g.inst(op, d, srcs)
}

fn slct(g: &mut Gen) -> Stmt {
    let (ty, c, imm) = value_ty(g);
    let ty = if ty == "b16" { "b32" } else { ty };
    let c = if c == Class::B16 { Class::B32 } else { c };
    let d = g.reg(c);
    let (a, b) = (g.src(c, imm), g.src(c, imm));
    if g.rng.chance(50) {
        let s = g.src(Class::B32, ImmTy::S32);
        g.inst(format!("slct.{ty}.s32"), d, vec![a, b, s])
    } else {
        let ftz = if g.rng.chance(30) { ".ftz" } else { "" };
        let s = g.src(Class::F32, ImmTy::F32);
        g.inst(format!("slct{ftz}.{ty}.f32"), d, vec![a, b, s])
    }
}

fn pred_logic(g: &mut Gen) -> Stmt {
    let d = g.reg(Class::Pred);
    let a = g.src_reg(Class::Pred, None);
    match g.rng.below(5) {
        0 => g.inst("not.pred".into(), d, vec![a]),
        1 => g.inst("mov.pred".into(), d, vec![a]),
        k => {
            let op = ["and", "or", "xor"][k as usize - 2];
            let b = g.src_reg(Class::Pred, None);
            g.inst(format!("{op}.pred"), d, vec![a, b])
        }
    }
}

fn testp(g: &mut Gen) -> Stmt {
    let what = g
        .rng
        .pick(&["finite", "infinite", "number", "notanumber", "normal", "subnormal"]);
    let (ty, c) = g.rng.pick(&[("f32", Class::F32), ("f64", Class::F64)]);
    let d = g.reg(Class::Pred);
    let s: Src = g.src_reg(c, ImmTy::of(ty));
    // Never guarded: ptxas drops the guard of testp (known issue ptxas-guarded-testp).
    Stmt::Inst(Gen::bare(
        format!("testp.{what}.{ty}"),
        vec![Operand::Reg(d)],
        Dsts::Plain,
        vec![s],
    ))
}
