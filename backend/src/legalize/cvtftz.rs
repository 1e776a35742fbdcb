//! `cvt.RND.ftz.f32.f64` (with or without `.sat`): a signed zero (`+0` with `.sat`) when the
//! result is tiny after rounding with an unbounded exponent, the conversion without `.ftz`
//! otherwise (`ptxc_softfloat::convert_ftz` states the rule and its evidence). Tininess is a
//! compare of `|x|` with one threshold per rounding direction, as ptxas 13.5 writes it: to
//! nearest 2^-126 - 2^-151 (a tie rounds up to 2^-126); toward zero 2^-126; away from zero
//! the f64 just above 2^-126 - 2^-150 (which has 24 bits and stays tiny). A NaN is never tiny.

use super::builder::Builder;
use ptxc_mir::ir::{Aux, Cond, ConvertInfo, InstData, Opcode, Rounding, Type, Value};

/// 2^-126 as f64 bits.
const MIN_NORMAL: u64 = 0x3810_0000_0000_0000;
/// 2^-126 - 2^-151: the midpoint below 2^-126 of 24-bit values.
const NEAREST: u64 = 0x380f_ffff_f000_0000;
/// The f64 just above 2^-126 - 2^-150, the 24-bit value below 2^-126.
const AWAY: u64 = 0x380f_ffff_e000_0001;

/// Expands a flushing conversion of f64 to f32.
pub fn expand(b: &mut Builder, d: &InstData) -> Option<Value> {
    let Aux::Convert(info) = d.aux else { return None };
    if d.op != Opcode::Convert || !info.ftz || info.from != Type::F64 || d.ty != Type::F32 {
        return None;
    }
    let x = d.args[0];
    let r = b.convert(Type::F32, x, ConvertInfo { ftz: false, ..info });
    let threshold = threshold(b, x, info.rnd.unwrap_or(Rounding::Rn));
    let mag = b.abs(Type::F64, x);
    let tiny = b.fcmp(Cond::Lt, Type::F64, mag, threshold);
    let zero = if info.sat {
        b.f32(0.0)
    } else {
        let bits = b.bitcast(Type::I32, r);
        let sign = b.i32(i64::from(i32::MIN));
        let z = b.bin(Opcode::And, Type::I32, bits, sign);
        b.bitcast(Type::F32, z)
    };
    Some(b.select(Type::F32, tiny, zero, r))
}

/// The threshold below which `|x|` rounded with `rnd` is tiny.
fn threshold(b: &mut Builder, x: Value, rnd: Rounding) -> Value {
    match rnd {
        Rounding::Rn => b.k(Type::F64, NEAREST),
        Rounding::Rz => b.k(Type::F64, MIN_NORMAL),
        Rounding::Rp | Rounding::Rm => {
            let zero = b.f64(0.0);
            let negative = b.fcmp(Cond::Lt, Type::F64, x, zero);
            let away = if rnd == Rounding::Rm {
                negative
            } else {
                let t = b.k(Type::Pred, 1);
                b.pred(Opcode::Xor, negative, t)
            };
            let (up, down) = (b.k(Type::F64, AWAY), b.k(Type::F64, MIN_NORMAL));
            b.select(Type::F64, away, up, down)
        }
    }
}
