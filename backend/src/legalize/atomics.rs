//! Atomics that shared memory has no instruction for: float additions (f32 and f64) and
//! signed 64-bit min/max (ATOMS has no .S64 form) become a compare-and-swap loop on the
//! value's bits, as ptxas builds them: read the word, combine, swap if it is still what was
//! read, else retry with what was there.

use super::builder::Builder;
use ptxc_mir::ir::{AtomInfo, AtomOp, Aux, Cond, FloatMode, InstData, MemInfo, Opcode, Space, Type, Value};

/// The operation combining the old value with the operand, for the atomics expanded here.
fn combine(op: AtomOp, ty: Type) -> Option<Opcode> {
    match (op, ty.bits()) {
        (AtomOp::Fadd, _) => Some(Opcode::Fadd),
        (AtomOp::MinS, 64) => Some(Opcode::MinS),
        (AtomOp::MaxS, 64) => Some(Opcode::MaxS),
        _ => None,
    }
}

/// Expands `atom.shared.add` on floats and `atom.shared.{min,max}.s64`.
pub fn expand(b: &mut Builder, d: &InstData) -> Option<Value> {
    let Aux::Atom(info) = d.aux else { return None };
    if d.op != Opcode::Atom || info.space != Space::Shared {
        return None;
    }
    let op = combine(info.op, d.ty)?;
    let (fty, addr, v) = (d.ty, d.args[0], d.args[1]);
    let ity = if fty.bits() == 64 { Type::I64 } else { Type::I32 };
    let load = MemInfo {
        space: Space::Shared,
        offset: info.offset,
        vector: 1,
        non_coherent: false,
        volatile: true,
        hint: Default::default(),
    };
    let first = b.op(Opcode::Load, ity, &[addr], Aux::Mem(load));
    let (again, done) = (b.new_block(false), b.new_block(false));
    b.jump(again, &[first]);
    b.switch_to(again);
    let old = b.param(again, ity);
    let old_f = b.bitcast(fty, old);
    let sum = if op == Opcode::Fadd {
        b.fop(op, fty, &[old_f, v], FloatMode::default())
    } else {
        b.bin(op, fty, old_f, v)
    };
    let sum_bits = b.bitcast(ity, sum);
    let cas = AtomInfo {
        op: AtomOp::Cas,
        space: Space::Shared,
        offset: info.offset,
        red: false,
    };
    let seen = b.op(Opcode::Atom, ity, &[addr, old, sum_bits], Aux::Atom(cas));
    let lost = b.icmp(Cond::Ne, ity, seen, old);
    b.brif(lost, (again, &[seen]), (done, &[]));
    b.switch_to(done);
    Some(b.bitcast(fty, old))
}
