//! f64 operations without a direct SASS form, on compares and selects: `min`/`max` (a NaN
//! operand yields the other, -0 below +0; ptxas uses DSETP.MIN/MAX, whose semantics the
//! simulator does not model), `testp` on the bits as 64-bit integer compares (zero counts as
//! normal, as in ptxas's sequence), and saturation of f64 results (`cvt.sat.f64.*` from
//! floats and integers: the plain conversion, then NaN and values up to +0 give +0, values
//! from 1 give 1).

use super::builder::Builder;
use ptxc_mir::ir::{Aux, Cond, ConvertInfo, InstData, Opcode, Type, Value};

/// Expands f64 `fmin`/`fmax`, `ftestp` and saturating conversions to f64.
pub fn expand(b: &mut Builder, d: &InstData) -> Option<Value> {
    match (d.op, &d.aux) {
        (Opcode::Fmin | Opcode::Fmax, _) if d.ty == Type::F64 => {
            Some(min_max(b, d.op == Opcode::Fmax, d.args[0], d.args[1]))
        }
        (Opcode::Ftestp, Aux::Imm(class)) if d.ty == Type::F64 => Some(testp(b, *class, d.args[0])),
        (Opcode::Convert, Aux::Convert(info)) if d.ty == Type::F64 && info.sat => {
            let plain = ConvertInfo { sat: false, ..*info };
            let v = if info.from == Type::F64 {
                d.args[0]
            } else {
                b.convert(Type::F64, d.args[0], plain)
            };
            Some(saturate(b, v))
        }
        _ => None,
    }
}

/// PTX min/max on f64.
fn min_max(b: &mut Builder, max: bool, x: Value, y: Value) -> Value {
    let before = b.fcmp(if max { Cond::Gt } else { Cond::Lt }, Type::F64, x, y);
    let y_nan = b.fcmp(Cond::Nan, Type::F64, y, y);
    let equal = b.fcmp(Cond::Eq, Type::F64, x, y);
    let hi = b.hi(x);
    let zero = b.i32(0);
    let sign_wanted = b.icmp(if max { Cond::Ge } else { Cond::Lt }, Type::I32, hi, zero);
    let tie = b.pred(Opcode::And, equal, sign_wanted);
    let pick_x = b.pred(Opcode::Or, before, y_nan);
    let pick_x = b.pred(Opcode::Or, pick_x, tie);
    b.select(Type::F64, pick_x, x, y)
}

/// `testp` of an f64 on `m = bits & !sign` (unsigned): finite `m < inf`, infinite
/// `m == inf`, number `m <= inf`, NaN `m > inf`, normal `m - min < inf - min` or zero,
/// subnormal `m - 1 < min - 1`.
fn testp(b: &mut Builder, class: u64, x: Value) -> Value {
    const INF: u64 = 0x7ff0_0000_0000_0000;
    const MIN: u64 = 0x0010_0000_0000_0000;
    let bits = b.bitcast(Type::I64, x);
    let mask = b.k(Type::I64, !(1u64 << 63));
    let m = b.bin(Opcode::And, Type::I64, bits, mask);
    let cmp = |b: &mut Builder, cond: Cond, v: Value, k: u64| {
        let k = b.k(Type::I64, k);
        b.icmp(cond, Type::I64, v, k)
    };
    let shifted = |b: &mut Builder, by: u64| {
        let k = b.k(Type::I64, by.wrapping_neg());
        b.bin(Opcode::Iadd, Type::I64, m, k)
    };
    match class {
        0 => cmp(b, Cond::Ult, m, INF),
        1 => cmp(b, Cond::Eq, m, INF),
        2 => cmp(b, Cond::Ule, m, INF),
        3 => cmp(b, Cond::Ugt, m, INF),
        4 => {
            let t = shifted(b, MIN);
            let normal = cmp(b, Cond::Ult, t, INF - MIN);
            let zero = cmp(b, Cond::Eq, m, 0);
            b.pred(Opcode::Or, normal, zero)
        }
        _ => {
            let t = shifted(b, 1);
            cmp(b, Cond::Ult, t, MIN - 1)
        }
    }
}

/// `x` clamped to [0, 1], NaN to +0.
fn saturate(b: &mut Builder, x: Value) -> Value {
    let (zero, one) = (b.f64(0.0), b.f64(1.0));
    let above_zero = b.fcmp(Cond::Gt, Type::F64, x, zero);
    let below_one = b.fcmp(Cond::Lt, Type::F64, x, one);
    let v = b.select(Type::F64, below_one, x, one);
    b.select(Type::F64, above_zero, v, zero)
}
