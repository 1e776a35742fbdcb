//! The f32 approximate functions without `.ftz`, around one MUFU instruction (which flushes
//! subnormal inputs and results), as ptxas emits them:
//! - `rcp.approx`: inputs below 2^-126 in magnitude are scaled by 2^24 and inputs above
//!   2^126 by 1/4; the reciprocal is multiplied by the same factor;
//! - `sqrt.approx` / `rsqrt.approx`: subnormal inputs are scaled by 2^24, the result by
//!   2^-12 / 2^12;
//! - `ex2.approx`: below -126 the input is halved and the result squared;
//! - `lg2.approx`: subnormal inputs are scaled by 2^24 and 24 subtracted;
//! - `div.approx` = `a' * rcp(b')` with both scaled by 2^24 when `|b|` is subnormal
//!   (`.ftz`: `a * rcp(b)`);
//! - `div.full` additionally scales both by 1/4 when `|b| > 2^126`.
//!
//! The `.ftz` forms of the functions are one MUFU each and are selected directly (so are
//! sin, cos and tanh, whose MUFU forms need no scaling of subnormals).

use super::builder::Builder;
use ptxc_mir::ir::{Aux, Cond, FloatMode, InstData, Opcode, Rounding, Type, Value};

/// 2^-126, the smallest normal f32.
const MIN_NORMAL: f32 = f32::MIN_POSITIVE;
/// 2^126.
const HUGE: f32 = 8.507_059e37;
/// 2^24.
const TWO_24: f32 = 16_777_216.0;

/// Expands an f32 approximation without `.ftz`, or `div.approx` / `div.full`.
pub fn expand(b: &mut Builder, d: &InstData) -> Option<Value> {
    let Aux::Float(m) = d.aux else { return None };
    if d.ty != Type::F32 {
        return None;
    }
    let a = d.args[0];
    match d.op {
        Opcode::FdivApprox | Opcode::FdivFull => Some(divide(b, d.op == Opcode::FdivFull, m, a, d.args[1])),
        _ if m.ftz => None,
        Opcode::FrcpApprox => Some(rcp(b, a)),
        Opcode::FsqrtApprox => Some(scaled_root(b, Opcode::FsqrtApprox, a, 1.0 / 4096.0)),
        Opcode::FrsqrtApprox => Some(scaled_root(b, Opcode::FrsqrtApprox, a, 4096.0)),
        Opcode::Fex2Approx => Some(ex2(b, a)),
        Opcode::Flg2Approx => Some(lg2(b, a)),
        _ => None,
    }
}

/// `x * y` rounded to nearest, never contracted.
fn mul(b: &mut Builder, x: Value, y: Value) -> Value {
    b.mul(Type::F32, x, y, Rounding::Rn)
}

/// True if `|x| < 2^-126` (false for NaN, which stays NaN with or without scaling).
fn is_tiny(b: &mut Builder, x: Value) -> Value {
    let ax = b.abs(Type::F32, x);
    let k = b.f32(MIN_NORMAL);
    b.fcmp(Cond::Lt, Type::F32, ax, k)
}

/// `p ? x : y` for f32 constants.
fn pick(b: &mut Builder, p: Value, x: f32, y: f32) -> Value {
    let (x, y) = (b.f32(x), b.f32(y));
    b.select(Type::F32, p, x, y)
}

fn rcp(b: &mut Builder, a: Value) -> Value {
    let tiny = is_tiny(b, a);
    let ax = b.abs(Type::F32, a);
    let k = b.f32(HUGE);
    let huge = b.fcmp(Cond::Gt, Type::F32, ax, k);
    let s = pick(b, tiny, TWO_24, 1.0);
    let quarter = b.f32(0.25);
    let s = b.select(Type::F32, huge, quarter, s);
    let x = mul(b, a, s);
    let r = b.mufu(Opcode::FrcpApprox, Type::F32, x);
    mul(b, s, r)
}

/// `tiny ? x * k : x`, as ptxas scales: a multiply under the guard (`@P FMUL`) where the
/// selector guards it (`isel/guarded_select.rs`).
fn scale_if(b: &mut Builder, tiny: Value, x: Value, k: f32) -> Value {
    let k = b.f32(k);
    let scaled = mul(b, x, k);
    b.select(Type::F32, tiny, scaled, x)
}

fn scaled_root(b: &mut Builder, op: Opcode, a: Value, fix: f32) -> Value {
    let tiny = is_tiny(b, a);
    let x = scale_if(b, tiny, a, TWO_24);
    let r = b.mufu(op, Type::F32, x);
    scale_if(b, tiny, r, fix)
}

fn ex2(b: &mut Builder, a: Value) -> Value {
    let k = b.f32(-126.0);
    let low = b.fcmp(Cond::Lt, Type::F32, a, k);
    let x = scale_if(b, low, a, 0.5);
    let e = b.mufu(Opcode::Fex2Approx, Type::F32, x);
    let sq = mul(b, e, e);
    b.select(Type::F32, low, sq, e)
}

fn lg2(b: &mut Builder, a: Value) -> Value {
    let tiny = is_tiny(b, a);
    let x = scale_if(b, tiny, a, TWO_24);
    let l = b.mufu(Opcode::Flg2Approx, Type::F32, x);
    let k = b.f32(-24.0);
    let fixed = b.fop(
        Opcode::Fadd,
        Type::F32,
        &[l, k],
        FloatMode {
            rnd: Some(Rounding::Rn),
            ..FloatMode::default()
        },
    );
    b.select(Type::F32, tiny, fixed, l)
}

/// `div.approx` and `div.full`: `a * rcp(b)` with both operands scaled into the range where
/// the reciprocal is normal.
fn divide(b: &mut Builder, full: bool, m: FloatMode, x: Value, y: Value) -> Value {
    let mut scale: Option<Value> = None;
    if !m.ftz {
        let tiny = is_tiny(b, y);
        scale = Some(pick(b, tiny, TWO_24, 1.0));
    }
    if full {
        let ay = b.abs(Type::F32, y);
        let k = b.f32(HUGE);
        let huge = b.fcmp(Cond::Gt, Type::F32, ay, k);
        let quarter = b.f32(0.25);
        let other = match scale {
            Some(s) => s,
            None => b.f32(1.0),
        };
        scale = Some(b.select(Type::F32, huge, quarter, other));
    }
    let (x, y) = match scale {
        Some(s) => (flushing_mul(b, x, s, m.ftz), flushing_mul(b, y, s, m.ftz)),
        None => (x, y),
    };
    let r = b.mufu(Opcode::FrcpApprox, Type::F32, y);
    flushing_mul(b, r, x, m.ftz)
}

/// `x * y` rounded to nearest, flushing subnormals if `ftz`.
fn flushing_mul(b: &mut Builder, x: Value, y: Value, ftz: bool) -> Value {
    b.fop(
        Opcode::Fmul,
        Type::F32,
        &[x, y],
        FloatMode {
            rnd: Some(Rounding::Rn),
            ftz,
            sat: false,
            nan: false,
            relu: false,
            xorsign: false,
        },
    )
}
