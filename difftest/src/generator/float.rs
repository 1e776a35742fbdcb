//! Float arithmetic with explicit rounding (so nothing may be contracted): add/sub/mul/fma
//! in all four rounding modes with `.ftz`/`.sat` on f32, IEEE div/rcp/sqrt, min/max, abs/neg,
//! copysign, and f16 arithmetic on 16-bit registers.

use super::Gen;
use crate::program::{Class, ImmTy, Operand, Src, Stmt};

const ROUND: &[&str] = &["rn", "rz", "rm", "rp"];

/// One float statement.
pub fn any(g: &mut Gen) -> Stmt {
    match g.rng.weighted(&[30, 16, 8, 10, 10, 6, 4, 6]) {
        0 => arith(g),
        1 => fma(g),
        2 => div(g),
        3 => rcp_sqrt(g),
        4 => min_max(g),
        5 => abs_neg(g),
        6 => copysign(g),
        _ => half(g),
    }
}

/// A float type: (name, class, immediate type).
fn fty(g: &mut Gen) -> (&'static str, Class, ImmTy) {
    if g.rng.chance(60) {
        ("f32", Class::F32, ImmTy::F32)
    } else {
        ("f64", Class::F64, ImmTy::F64)
    }
}

/// `.ftz` and `.sat` for f32 (sometimes), nothing for f64.
fn f32_mods(g: &mut Gen, ty: &str, sat: bool) -> String {
    let mut s = String::new();
    if ty == "f32" {
        if g.rng.chance(30) {
            s.push_str(".ftz");
        }
        if sat && g.rng.chance(20) {
            s.push_str(".sat");
        }
    }
    s
}

fn arith(g: &mut Gen) -> Stmt {
    let (ty, c, imm) = fty(g);
    let op = g.rng.pick(&["add", "sub", "mul"]);
    let rnd = g.rng.pick(ROUND);
    let mods = f32_mods(g, ty, true);
    let d = g.reg(c);
    let srcs = vec![g.src(c, imm), g.src(c, imm)];
    g.inst(format!("{op}.{rnd}{mods}.{ty}"), d, srcs)
}

fn fma(g: &mut Gen) -> Stmt {
    let (ty, c, imm) = fty(g);
    let op = if g.rng.chance(15) { "mad" } else { "fma" };
    let rnd = g.rng.pick(ROUND);
    let mods = f32_mods(g, ty, true);
    let d = g.reg(c);
    let srcs = vec![g.src(c, imm), g.src(c, imm), g.src(c, imm)];
    g.inst(format!("{op}.{rnd}{mods}.{ty}"), d, srcs)
}

fn div(g: &mut Gen) -> Stmt {
    let (ty, c, imm) = fty(g);
    let rnd = g.rng.pick(ROUND);
    let mods = f32_mods(g, ty, false);
    let d = g.reg(c);
    let srcs = vec![g.src(c, imm), g.src(c, imm)];
    g.inst(format!("div.{rnd}{mods}.{ty}"), d, srcs)
}

fn rcp_sqrt(g: &mut Gen) -> Stmt {
    let (ty, c, imm) = fty(g);
    let op = g.rng.pick(&["rcp", "sqrt"]);
    let rnd = g.rng.pick(ROUND);
    let mods = f32_mods(g, ty, false);
    let d = g.reg(c);
    let s = g.src_reg(c, Some(imm));
    g.inst(format!("{op}.{rnd}{mods}.{ty}"), d, vec![s])
}

fn min_max(g: &mut Gen) -> Stmt {
    let (ty, c, imm) = fty(g);
    let op = g.rng.pick(&["min", "max"]);
    let mods = f32_mods(g, ty, false);
    let d = g.reg(c);
    let srcs = vec![g.src(c, imm), g.src(c, imm)];
    g.inst(format!("{op}{mods}.{ty}"), d, srcs)
}

fn abs_neg(g: &mut Gen) -> Stmt {
    let (ty, c, imm) = fty(g);
    let op = g.rng.pick(&["abs", "neg"]);
    let mods = f32_mods(g, ty, false);
    let d = g.reg(c);
    let s = g.src_reg(c, Some(imm));
    g.inst(format!("{op}{mods}.{ty}"), d, vec![s])
}

/// `copysign d, a, b` with an immediate sign source `a` that is not a NaN: which NaN a
/// division, reciprocal or square root returns (its sign included) differs between ptxas's
/// code, ptxc's and the interpreter, as PTX allows, so a register there would copy an
/// unspecified sign.
fn copysign(g: &mut Gen) -> Stmt {
    let (ty, c, imm) = fty(g);
    let d = g.reg(c);
    let mut sign = g.imm(imm);
    let nan = if ty == "f32" {
        f32::from_bits(sign.bits as u32).is_nan()
    } else {
        f64::from_bits(sign.bits).is_nan()
    };
    if nan {
        sign.bits &= 1 << (imm.bits() - 1);
    }
    let a = Src {
        op: Operand::Imm(sign),
        imm: Some(imm),
    };
    let srcs = vec![a, g.src(c, imm)];
    g.inst(format!("copysign.{ty}"), d, srcs)
}

fn half(g: &mut Gen) -> Stmt {
    let c = Class::B16;
    let mut mods = String::new();
    if g.rng.chance(25) {
        mods.push_str(".ftz");
    }
    if g.rng.chance(20) {
        mods.push_str(".sat");
    }
    // f16 operands are registers only.
    let d = g.reg(c);
    if g.rng.chance(30) {
        let srcs = vec![g.src_reg(c, None), g.src_reg(c, None), g.src_reg(c, None)];
        g.inst(format!("fma.rn{mods}.f16"), d, srcs)
    } else {
        let op = g.rng.pick(&["add", "sub", "mul"]);
        let srcs = vec![g.src_reg(c, None), g.src_reg(c, None)];
        g.inst(format!("{op}.rn{mods}.f16"), d, srcs)
    }
}
