//! Hopper's atomics and reductions (RED, ATOMG and ATOM; read by nvdisasm SM90 on ptxas
//! 13.5's code and on flipped bits of it):
//!
//! * The integer forms keep their opcodes, but their type field shrinks to bits 73..75 with
//!   new codes ([`HopperAtomType`]: `.S64` is 3; bit 76 prints nothing and is left clear).
//! * The floating-point types move to forms of their own: RED 0x9a6, ATOMG 0x9a3 and ATOM
//!   0x9a2 (the same high opcode bits as the integer forms for register and uniform
//!   addresses). Their type is bits 73..76 with bit 87 clear ([`FloatAtomType`]), their
//!   operation bits 88..89 (`.ADD` 0; `.MIN` 1 and `.MAX` 2 are not described). ATOMG's and
//!   ATOM's bit 90, part of the integer forms' operation field, is clear; RED's bit 90 stays
//!   its 64-bit address flag.

use super::super::sm80::changed;
use crate::isa::arch::Arch;
use crate::isa::build::*;
use crate::isa::desc::{Form, ModDesc, Op};
use crate::isa::modifier::Mod;

/// The integer types (bits 73..75).
const INT_TYPE: ModDesc = modifier(
    Mod::HopperAtomType,
    73,
    3,
    &[(0, ""), (1, ".S32"), (2, ".64"), (3, ".S64")],
    0,
);

/// The floating-point types (bits 73..76).
const FLOAT_TYPE: ModDesc = modifier(
    Mod::FloatAtomType,
    73,
    4,
    &[(0, ".F16x2.RN"), (9, ".F32.FTZ.RN"), (15, ".F64.RN")],
    9,
);

/// The floating-point operations (bits 88..89).
const FLOAT_OP: ModDesc = modifier(Mod::AtomOp, 88, 2, &[(0, ".ADD")], 0);

/// Adds Hopper's atomic deltas.
pub fn apply(forms: &mut Vec<Form>) {
    changed(
        forms,
        Arch::Sm90,
        |f| typed(f, Mod::AtomType),
        |_, b| b.replace_mod(Mod::AtomType, &[INT_TYPE]).fixed(76, 1, 0),
    );
    let floats: Vec<Form> = forms
        .iter()
        .filter(|f| f.archs.contains(Arch::Sm90) && typed(f, Mod::HopperAtomType))
        .map(float_form)
        .collect();
    forms.extend(floats);
}

/// RED, ATOMG and ATOM (not their compare-and-swap forms) with a type modifier `id`.
fn typed(f: &Form, id: Mod) -> bool {
    matches!(f.op, Op::Red | Op::Atomg | Op::Atom) && f.mod_index(id).is_some()
}

/// The floating-point form of an integer form.
fn float_form(f: &Form) -> Form {
    let low = match f.op {
        Op::Red => 0xa6,
        Op::Atomg => 0xa3,
        _ => 0xa2,
    };
    let b = derive(f)
        .opcode((f.opcode & 0xf00) | low)
        .unfix(bits(76, 1))
        .replace_mod(Mod::HopperAtomType, &[FLOAT_TYPE])
        .replace_mod(Mod::AtomOp, &[FLOAT_OP])
        .fixed(87, 1, 0);
    if f.op == Op::Red {
        b.build()
    } else {
        b.fixed(90, 1, 0).build()
    }
}
