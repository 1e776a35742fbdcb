//! Hopper (sm_90) as a delta of Ada: the forms whose encoding or printing changes end at
//! sm_89 and a changed copy takes over. Checked against nvdisasm 13.5 (`nvdisasm -b SM90` on
//! flipped bits) and against every instruction ptxas emits for the test PTX on sm_90
//! (`sass/tests/isa_roundtrip.rs`).
//!
//! What changes:
//! * Branch and call targets are split: the low 8 bits of the offset (in 4-byte units) move
//!   to bits 16..23, the rest stays from bit 34 on (BRA, CALL, RET; BSSY keeps its field).
//! * nvdisasm prints the memory descriptor of global and generic accesses whenever their
//!   descriptor flag is set (`LDG.E R2, desc[UR4][R2.64]`), not only with a cache policy.
//! * Global reductions print as `REDG`.
//! * R2UR moves from opcode 0x3c2 (illegal on sm_90) to 0x2ca, with a reuse flag on its
//!   register and `.OR` (bit 84) for its predicate output.
//! * New: `VIADD Rd, Ra, B` (0x?36), a 32-bit add (`.16x2`, bit 73, not described).
//! * `WARPSYNC.ALL` (0x948) has no mask (bits 32..63 print nothing); the register form
//!   (0x348) takes its mask from Ra (bits 24..31) instead of Rb.
//! * Special registers 0x41, 0x86..0x89 and 0x8b get names (`SR_CgaCtaId`, ...).
//! * WARPSYNC's `.EXCLUSIVE` moves from bit 86 to bit 85 (bit 86 is `.COLLECTIVE`, with a
//!   target: not described).
//! * New: `LEPC Rd, target` (0x94e): the address of a code label (a byte offset in bits
//!   24..81 from the next instruction), where sm_75's LEPC gives the program counter.
//! * New: `VIMNMX Rd, Ra, B, Ps` (0x?48), IMNMX's successor: signed unless bit 72 is clear
//!   (`.U32`); `.S16x2`/`.U16x2` (bit 73), `.RELU` (bit 76) and its two predicate outputs
//!   (which ptxas leaves PT) are not described.

use super::sm80::changed;
use crate::flag;
use crate::isa::arch::Arch;
use crate::isa::build::*;
use crate::isa::desc::{Form, ImmStyle, LatCat as L, ModDesc, Op, OpKind, OperandDesc, Pipe, Role, SRegNames};
use crate::isa::sm75::TURING_SREGS;
use crate::isa::sm75::common::{neg63, ps87};

/// Adds the Hopper deltas.
pub fn apply(forms: &mut Vec<Form>) {
    changed(forms, Arch::Sm90, has_far_target, |_, b| {
        b.map_operand(Role::Target, split_target)
    });
    changed(
        forms,
        Arch::Sm90,
        |f| f.mod_index(Mod::Desc).is_some(),
        |f, b| {
            let b = b.desc_printed();
            if f.op == Op::Red { b.mnemonic("REDG") } else { b }
        },
    );
    changed(
        forms,
        Arch::Sm90,
        |f| f.op == Op::R2ur,
        |_, b| {
            b.opcode(0x2ca)
                .map_operand(Role::A, |o| o.reuse(0))
                .mods([flag!(Mod::OrPred, 84, ".OR")])
        },
    );
    forms.extend(viadd());
    changed(
        forms,
        Arch::Sm90,
        |f| f.op == Op::Warpsync && f.opcode == 0x948,
        |_, b| b.mnemonic("WARPSYNC.ALL").remove_operand(Role::B),
    );
    changed(
        forms,
        Arch::Sm90,
        |f| f.op == Op::Warpsync && f.opcode == 0x348,
        |_, b| {
            b.map_operand(Role::B, |_| reg(Role::B, RA))
                .replace_mod(Mod::Exclusive, &[flag!(Mod::Exclusive, 85, ".EXCLUSIVE")])
        },
    );
    forms.push(lepc());
    forms.extend(vimnmx());
    changed(forms, Arch::Sm90, has_sreg, |_, b| b.map_operand(Role::A, hopper_sregs));
}

/// LEPC with a code label: Rd = the label's address.
fn lepc() -> Form {
    form("LEPC", Op::Lepc, 0x94e)
        .since(Arch::Sm90)
        .ops([rd(), rel(bits(24, 58))])
        .timing(L::Alu, Pipe::Alu)
        .build()
}

/// VIMNMX with B a register, an immediate, a constant or a uniform register.
fn vimnmx() -> Vec<Form> {
    const SIGNED72: ModDesc = modifier(Mod::Signed, 72, 1, &[(0, ".U32"), (1, "")], 1);
    src2_family(0x048, &SRC2_RICU, ImmStyle::SignedHex, |opc, b| {
        form("VIMNMX", Op::Imnmx, opc)
            .since(Arch::Sm90)
            .ops([rd(), reg(Role::A, RA).reuse(0), b, ps87()])
            .mods([SIGNED72])
            // Two predicate outputs (81..83, 84..86) whose meaning is not established:
            // ptxas leaves them PT.
            .fixed(81, 3, 7)
            .fixed(84, 3, 7)
            .timing(L::Alu, Pipe::Alu)
    })
}

/// VIADD with B a register, an immediate, a constant or a uniform register.
fn viadd() -> Vec<Form> {
    src2_family(0x036, &SRC2_RICU, ImmStyle::Hex, |opc, b| {
        form("VIADD", Op::Viadd, opc)
            .since(Arch::Sm90)
            .ops([rd(), reg(Role::A, RA).reuse(0), neg63(b)])
            .timing(L::Alu, Pipe::Alu)
    })
}

/// Hopper's special-register names beyond Turing's.
pub static HOPPER_SREGS: SRegNames = SRegNames {
    own: &[
        (0x41, "SR_CGAERRORSTATUS"),
        (0x86, "SR_WARPGROUP_INFO"),
        (0x87, "SR_WARPGROUPID"),
        (0x88, "SR_CgaCtaId"),
        (0x89, "SR_GpcLocalCgaId"),
        (0x8b, "SR_CTARegPoolSz"),
    ],
    base: Some(&TURING_SREGS),
};

/// Whether the form reads a special register.
fn has_sreg(f: &Form) -> bool {
    f.operands.iter().any(|o| matches!(o.kind, OpKind::SReg { .. }))
}

/// The special-register operand with Hopper's names.
fn hopper_sregs(o: OperandDesc) -> OperandDesc {
    match o.kind {
        OpKind::SReg { field, .. } => OperandDesc {
            kind: OpKind::SReg {
                field,
                names: &HOPPER_SREGS,
            },
            ..o
        },
        _ => o,
    }
}

/// The low bits of a split target: bits 16..23.
const TARGET_LOW: BitField = bits(16, 8);

/// Whether the form's target is a 48-bit offset or address at bit 34 (BRA, CALL, RET).
fn has_far_target(f: &Form) -> bool {
    f.operands.iter().any(|o| {
        o.role == Role::Target
            && matches!(o.kind, OpKind::Rel { field, low: None, .. } | OpKind::Imm { field, .. } if field == bits(34, 48))
    })
}

/// The target with its low 8 bits in bits 16..23.
fn split_target(o: OperandDesc) -> OperandDesc {
    let kind = match o.kind {
        OpKind::Rel { field, shift, .. } => OpKind::Rel {
            field,
            shift,
            low: Some(TARGET_LOW),
        },
        OpKind::Imm { field, style } => OpKind::ImmSplit {
            lo: TARGET_LOW,
            hi: field,
            style,
        },
        other => other,
    };
    OperandDesc { kind, ..o }
}
