//! Conversions: integer to integer with and without `.sat` (8-bit types in 16- and 32-bit
//! registers), float to integer in the four integer roundings (saturating, NaN to 0), integer
//! to float in the four roundings, f32/f64/f16 to each other, and rounding to an integral
//! float.

use super::Gen;
use crate::program::{Class, ImmTy, Src, Stmt};

const INT_ROUND: &[&str] = &["rni", "rzi", "rmi", "rpi"];
const ROUND: &[&str] = &["rn", "rz", "rm", "rp"];
const INTS: &[&str] = &["u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64"];

/// One conversion statement.
pub fn any(g: &mut Gen) -> Stmt {
    match g.rng.weighted(&[25, 30, 20, 25]) {
        0 => int_int(g),
        1 => float_int(g),
        2 => int_float(g),
        _ => float_float(g),
    }
}

/// Register class holding an integer type (8-bit types in 16- or 32-bit registers).
fn int_class(g: &mut Gen, ty: &str) -> Class {
    match &ty[1..] {
        "8" => {
            if g.rng.chance(50) {
                Class::B16
            } else {
                Class::B32
            }
        }
        "16" => Class::B16,
        "32" => Class::B32,
        _ => Class::B64,
    }
}

/// A register source of an integer type (immediates are not allowed for 8-bit types).
fn int_src(g: &mut Gen, ty: &str) -> Src {
    let c = int_class(g, ty);
    let imm = ImmTy::of(ty);
    match imm {
        Some(t) => g.src(c, t),
        None => g.src_reg(c, None),
    }
}

fn float_class(ty: &str) -> (Class, Option<ImmTy>) {
    match ty {
        "f16" => (Class::B16, None),
        "f32" => (Class::F32, Some(ImmTy::F32)),
        _ => (Class::F64, Some(ImmTy::F64)),
    }
}

fn float_src(g: &mut Gen, ty: &str) -> Src {
    match float_class(ty) {
        (c, Some(t)) => g.src(c, t),
        (c, None) => g.src_reg(c, None),
    }
}

/// The range of an integer type.
fn range(ty: &str) -> (i128, i128) {
    let bits: u32 = ty[1..].parse().unwrap_or(32);
    if ty.starts_with('s') {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// True when a conversion from `st` to `dt` can overflow (ptxas only takes `.sat` then).
fn can_overflow(dt: &str, st: &str) -> bool {
    let ((dl, dh), (sl, sh)) = (range(dt), range(st));
    sl < dl || sh > dh
}

fn int_int(g: &mut Gen) -> Stmt {
    let (dt, st) = (g.rng.pick(INTS), g.rng.pick(INTS));
    let sat = if can_overflow(dt, st) && g.rng.chance(40) {
        ".sat"
    } else {
        ""
    };
    let d = int_class(g, dt);
    let d = g.reg(d);
    let s = int_src(g, st);
    g.inst(format!("cvt{sat}.{dt}.{st}"), d, vec![s])
}

fn float_int(g: &mut Gen) -> Stmt {
    let (dt, st) = (g.rng.pick(INTS), g.rng.pick(&["f32", "f32", "f64", "f16"]));
    let rnd = g.rng.pick(INT_ROUND);
    let ftz = if st == "f32" && g.rng.chance(25) { ".ftz" } else { "" };
    let sat = if g.rng.chance(15) { ".sat" } else { "" };
    let d = int_class(g, dt);
    let d = g.reg(d);
    let s = float_src(g, st);
    g.inst(format!("cvt.{rnd}{ftz}{sat}.{dt}.{st}"), d, vec![s])
}

fn int_float(g: &mut Gen) -> Stmt {
    let (dt, st) = (g.rng.pick(&["f32", "f32", "f64", "f16"]), g.rng.pick(INTS));
    let rnd = g.rng.pick(ROUND);
    let sat = if g.rng.chance(10) { ".sat" } else { "" };
    let d = g.reg(float_class(dt).0);
    let s = int_src(g, st);
    g.inst(format!("cvt.{rnd}{sat}.{dt}.{st}"), d, vec![s])
}

fn float_float(g: &mut Gen) -> Stmt {
    let (dt, st) = g.rng.pick(&[
        ("f32", "f64"),
        ("f64", "f32"),
        ("f32", "f32"),
        ("f64", "f64"),
        ("f16", "f32"),
        ("f32", "f16"),
        ("f16", "f64"),
        ("f64", "f16"),
    ]);
    let narrowing = matches!((dt, st), ("f32", "f64") | ("f16", _));
    let rnd = if narrowing {
        format!(".{}", g.rng.pick(ROUND))
    } else if dt == st {
        if g.rng.chance(80) {
            format!(".{}", g.rng.pick(INT_ROUND))
        } else {
            String::new()
        }
    } else {
        String::new()
    };
    let ftz = if (st == "f32" || dt == "f32") && dt != "f16" && g.rng.chance(25) {
        ".ftz"
    } else {
        ""
    };
    let sat = if g.rng.chance(20) || (dt == st && rnd.is_empty()) {
        ".sat"
    } else {
        ""
    };
    let d = g.reg(float_class(dt).0);
    let s = float_src(g, st);
    g.inst(format!("cvt{rnd}{ftz}{sat}.{dt}.{st}"), d, vec![s])
}
