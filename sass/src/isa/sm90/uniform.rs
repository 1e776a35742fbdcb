//! Hopper's new uniform-datapath forms.
//!
//! * `UIADD3.64 URd, URa, B, URc` (0x297 with B a uniform register, 0x897 with a 32-bit
//!   immediate, sign-extended): the 64-bit sum of register pairs, UIADD3's fields otherwise
//!   (found by flipping ptxas 13.5's sm_90 words under nvdisasm: the same operand bits, `-`
//!   bits 72, 63 and 75, predicate outputs 81..83 and 84..86). ptxas uses it to advance
//!   HGMMA's matrix descriptors. The `.X` flag (bit 74) and the carry predicates are not
//!   described: their meaning for 64-bit sums is not established, and ptxas leaves the
//!   outputs UPT.

use crate::isa::build::*;
use crate::isa::desc::{Form, ModDesc, Op, OpKind, OperandDesc, Role};

/// UIADD3's register and immediate forms, as `UIADD3.64` (the opcode's low bits 7).
pub fn apply(forms: &mut Vec<Form>) {
    let uiadd3: Vec<Form> = forms
        .iter()
        .filter(|f| f.op == Op::Uiadd3 && f.archs.contains(Arch::Sm90) && matches!(f.opcode, 0x290 | 0x890))
        .cloned()
        .collect();
    assert_eq!(uiadd3.len(), 2, "UIADD3's register and immediate forms");
    for f in &uiadd3 {
        forms.push(uiadd3_64(f));
    }
}

/// A 64-bit operand: a uniform register becomes a pair.
fn pair(o: OperandDesc) -> OperandDesc {
    match o.kind {
        OpKind::Ugpr { .. } => o.width(2),
        _ => o,
    }
}

/// `UIADD3.64` from the UIADD3 form `f`.
fn uiadd3_64(f: &Form) -> Form {
    let mut b = derive(f)
        .since(Arch::Sm90)
        .opcode(f.opcode | 7)
        .mnemonic("UIADD3.64")
        .replace_mod(
            Mod::X,
            &[ModDesc {
                values: &[(0, "")],
                ..f.mods[f.mod_index(Mod::X).expect("UIADD3 has .X")]
            }],
        );
    for role in [Role::Dst, Role::A, Role::B, Role::C] {
        b = b.map_operand(role, pair);
    }
    let mut form = b.build();
    form.op = Op::Uiadd3Wide;
    form
}
