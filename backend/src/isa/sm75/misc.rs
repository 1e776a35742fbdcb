//! Special registers and barriers: S2R, CS2R, BAR.

use crate::isa::build::*;
use crate::isa::desc::{LatCat as L, Op, Pipe, Role, Show, *};

/// Special-register operand in bits 72..80.
fn sreg() -> OperandDesc {
    OperandDesc {
        kind: OpKind::SReg { field: bits(72, 8) },
        ..reg(Role::A, 72)
    }
}

/// All special-register and barrier forms.
pub fn forms() -> Vec<Form> {
    vec![
        form("S2R", Op::S2r, 0x919)
            .ops([rd(), sreg()])
            .timing(L::Decoupled, Pipe::Misc)
            .build(),
        form("CS2R", Op::Cs2r, 0x805)
            .ops([rd().width(2), sreg()])
            .mods([modifier("wide", 80, 1, &[(0, ".32"), (1, "")], 1)])
            .timing(L::Disp64, Pipe::Alu)
            .build(),
        form("BAR", Op::Bar, 0xb1d)
            .ops([
                imm(Role::A, bits(54, 4), ImmStyle::Hex),
                imm(Role::B, bits(42, 12), ImmStyle::Hex).show(Show::IfNotDefault),
            ])
            .mods([modifier(
                "mode",
                77,
                2,
                &[(0, ".SYNC"), (1, ".ARV"), (2, ".RED.POPC")],
                0,
            )])
            .timing(L::Decoupled, Pipe::Branch)
            .build(),
    ]
}

/// Names of special registers as nvdisasm prints them.
pub const SPECIAL_REGS: &[(u8, &str)] = &[
    (0x00, "SR_LANEID"),
    (0x03, "SR_VIRTID"),
    (0x21, "SR_TID.X"),
    (0x22, "SR_TID.Y"),
    (0x23, "SR_TID.Z"),
    (0x25, "SR_CTAID.X"),
    (0x26, "SR_CTAID.Y"),
    (0x27, "SR_CTAID.Z"),
    (0x32, "SR_SMEMSZ"),
    (0x38, "SR_EQMASK"),
    (0x39, "SR_LTMASK"),
    (0x3a, "SR_LEMASK"),
    (0x3b, "SR_GTMASK"),
    (0x3c, "SR_GEMASK"),
    (0x50, "SR_CLOCKLO"),
    (0x51, "SR_CLOCKHI"),
    (0x52, "SR_GLOBALTIMERLO"),
    (0x53, "SR_GLOBALTIMERHI"),
    (0xff, "SRZ"),
];
