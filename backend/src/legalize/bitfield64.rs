//! 64-bit bit-field extract and insert, on 64-bit shifts (which give zero, or the sign, for
//! amounts of 64 and more): `bfe` shifts the field down and back up by `64 - len` to clear
//! or sign-fill the bits above it; `bfi` merges under the mask `((1 << len) - 1) << pos`.
//! Positions and lengths use their low byte, as PTX says. A constant `bfi` of a whole
//! 32-bit word (the idiom that reassembles a 64-bit value from two halves, e.g. after two
//! `shfl.sync`) is that word put in place: no shifts and masks.

use super::builder::Builder;
use ptxc_mir::ir::{InstData, Opcode, Type, Value};

/// Expands `bfe`/`bfi` on 64-bit values.
pub fn expand(b: &mut Builder, d: &InstData) -> Option<Value> {
    if d.ty != Type::I64 || !matches!(d.op, Opcode::BfeS | Opcode::BfeU | Opcode::Bfi) {
        return None;
    }
    let byte = |b: &mut Builder, v: Value| {
        let k = b.i32(0xff);
        b.bin(Opcode::And, Type::I32, v, k)
    };
    if d.op == Opcode::Bfi {
        let (a, base) = (d.args[0], d.args[1]);
        if let Some(v) = insert_whole_word(b, d) {
            return Some(v);
        }
        let (pos, len) = (byte(b, d.args[2]), byte(b, d.args[3]));
        let one = b.k(Type::I64, 1);
        let field = b.bin(Opcode::Shl, Type::I64, one, len);
        let field = b.bin(Opcode::Isub, Type::I64, field, one);
        let mask = b.bin(Opcode::Shl, Type::I64, field, pos);
        let moved = b.bin(Opcode::Shl, Type::I64, a, pos);
        let inserted = b.bin(Opcode::And, Type::I64, moved, mask);
        let keep = b.op(Opcode::Not, Type::I64, &[mask], ptxc_mir::ir::Aux::None);
        let kept = b.bin(Opcode::And, Type::I64, base, keep);
        return Some(b.bin(Opcode::Or, Type::I64, kept, inserted));
    }
    let signed = d.op == Opcode::BfeS;
    let down = if signed { Opcode::ShrS } else { Opcode::ShrU };
    let (pos, len) = (byte(b, d.args[1]), byte(b, d.args[2]));
    let t = b.bin(down, Type::I64, d.args[0], pos);
    let sixty_four = b.i32(64);
    let k = b.bin(Opcode::Isub, Type::I32, sixty_four, len);
    let zero = b.i32(0);
    let k = b.bin(Opcode::MaxS, Type::I32, k, zero);
    let up = b.bin(Opcode::Shl, Type::I64, t, k);
    Some(b.bin(down, Type::I64, up, k))
}

/// `bfi` with a constant position and length that covers nothing, the whole value, or
/// exactly one 32-bit half of it.
fn insert_whole_word(b: &mut Builder, d: &InstData) -> Option<Value> {
    let (a, base) = (d.args[0], d.args[1]);
    let pos = b.func.const_value(d.args[2])? & 0xff;
    let len = b.func.const_value(d.args[3])? & 0xff;
    match (pos, len) {
        (_, 0) | (64.., _) => Some(base),
        (0, 64..) => Some(a),
        (0, 32) => {
            let (hi, lo) = (b.hi(base), b.lo(a));
            Some(b.pack(Type::I64, hi, lo))
        }
        (32, 32..) => {
            let (hi, lo) = (b.lo(a), b.lo(base));
            Some(b.pack(Type::I64, hi, lo))
        }
        _ => None,
    }
}
