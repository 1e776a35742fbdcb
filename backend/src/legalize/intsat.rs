//! Saturating integer conversions with a 64-bit side (`cvt.sat.s32.s64`, `cvt.sat.u64.s32`,
//! ...): the value is clamped in its own type to the part of the destination's range the
//! source can hold, then converted without saturation. (Conversions between 32-bit and
//! narrower types are selected directly with IMNMX.)

use super::builder::Builder;
use ptxc_mir::ir::{Aux, ConvertInfo, InstData, Opcode, Value};

/// The range of a `bits`-bit integer.
fn range(bits: u32, signed: bool) -> (i128, i128) {
    if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// Expands a saturating integer conversion from or to 64 bits.
pub fn expand(b: &mut Builder, d: &InstData) -> Option<Value> {
    let Aux::Convert(info) = d.aux else { return None };
    let (from, to) = (info.from, d.ty);
    if d.op != Opcode::Convert || !info.sat || !from.is_int() || !to.is_int() {
        return None;
    }
    if from.bits() < 64 && to.bits() < 64 {
        return None;
    }
    let (slo, shi) = range(from.bits(), info.from_signed);
    let (dlo, dhi) = range(to.bits(), info.to_signed);
    let mut x = d.args[0];
    let (min, max) = if info.from_signed {
        (Opcode::MinS, Opcode::MaxS)
    } else {
        (Opcode::MinU, Opcode::MaxU)
    };
    if dlo > slo {
        let k = b.k(from, dlo as u64);
        x = b.bin(max, from, x, k);
    }
    if dhi < shi {
        let k = b.k(from, dhi as u64);
        x = b.bin(min, from, x, k);
    }
    let plain = ConvertInfo { sat: false, ..info };
    Some(b.convert(to, x, plain))
}
