//! Special registers and the convergence-barrier result: S2R, CS2R, B2R, with the table of
//! special-register names nvdisasm prints.

use crate::isa::build::*;
use crate::isa::desc::{LatCat as L, Pipe, Role, Show, *};

/// Special-register operand in bits 72..80.
pub fn sreg() -> OperandDesc {
    OperandDesc {
        kind: OpKind::SReg {
            field: bits(72, 8),
            names: &TURING_SREGS,
        },
        ..reg(Role::A, 72)
    }
}

/// All special-register forms.
pub fn forms() -> Vec<Form> {
    vec![
        form("S2R", Op::S2r, 0x919)
            .ops([rd(), sreg()])
            .timing(L::Decoupled, Pipe::Misc)
            .build(),
        // CS2R of a pair is dispatched as 64 bits; `.32` reads one register on the ALU pipe.
        form("CS2R", Op::Cs2r, 0x805)
            .ops([rd().width(2), sreg()])
            .mods([modifier(Mod::Wide, 80, 1, &[(1, "")], 1)])
            .timing(L::Disp64, Pipe::Alu)
            .build(),
        form("CS2R", Op::Cs2r, 0x805)
            .ops([rd(), sreg()])
            .mods([modifier(Mod::Wide, 80, 1, &[(0, ".32")], 0)])
            .timing(L::Alu, Pipe::Alu)
            .build(),
        form("B2R.RESULT", Op::B2r, 0x31c)
            .ops([rd(), pred(Role::PredDst0, 81, None, false).show(Show::IfNotDefault)])
            .fixed(78, 1, 1)
            .timing(L::Decoupled, Pipe::Branch)
            .build(),
    ]
}

/// Turing's special-register names.
pub static TURING_SREGS: SRegNames = SRegNames {
    own: SPECIAL_REGS,
    base: None,
};

/// Special registers whose value a thread reads the same wherever it reads them: its lane,
/// thread and CTA indices, the block size and the lane masks (not the clocks, timers,
/// counters or the SM and warp slot, which may change while it runs). A read of one may move
/// across a CTA barrier.
pub const THREAD_CONSTANT_SREGS: &[u8] = &[
    0x00, // SR_LANEID
    0x21, 0x22, 0x23, // SR_TID.X/Y/Z
    0x25, 0x26, 0x27, // SR_CTAID.X/Y/Z
    0x38, 0x39, 0x3a, 0x3b, 0x3c, // SR_EQMASK .. SR_GEMASK
];

/// Whether special register `n` is one of [`THREAD_CONSTANT_SREGS`].
pub fn is_thread_constant_sreg(n: u8) -> bool {
    THREAD_CONSTANT_SREGS.contains(&n)
}

/// Names of special registers as nvdisasm prints them; other numbers print as `SR<n>`.
pub const SPECIAL_REGS: &[(u8, &str)] = &[
    (0x00, "SR_LANEID"),
    (0x01, "SR_CLOCK"),
    (0x02, "SR_VIRTCFG"),
    (0x03, "SR_VIRTID"),
    (0x0f, "SR_ORDERING_TICKET"),
    (0x10, "SR_PRIM_TYPE"),
    (0x11, "SR_INVOCATION_ID"),
    (0x12, "SR_Y_DIRECTION"),
    (0x13, "SR_THREAD_KILL"),
    (0x14, "SM_SHADER_TYPE"),
    (0x15, "SR_DIRECTCBEWRITEADDRESSLOW"),
    (0x16, "SR_DIRECTCBEWRITEADDRESSHIGH"),
    (0x17, "SR_DIRECTCBEWRITEENABLED"),
    (0x18, "SR_MACHINE_ID_0"),
    (0x19, "SR_MACHINE_ID_1"),
    (0x1a, "SR_MACHINE_ID_2"),
    (0x1b, "SR_MACHINE_ID_3"),
    (0x1c, "SR_AFFINITY"),
    (0x1d, "SR_INVOCATION_INFO"),
    (0x1e, "SR_WSCALEFACTOR_XY"),
    (0x1f, "SR_WSCALEFACTOR_Z"),
    (0x20, "SR_TID"),
    (0x21, "SR_TID.X"),
    (0x22, "SR_TID.Y"),
    (0x23, "SR_TID.Z"),
    (0x25, "SR_CTAID.X"),
    (0x26, "SR_CTAID.Y"),
    (0x27, "SR_CTAID.Z"),
    (0x28, "SR_NTID"),
    (0x29, "SR_CirQueueIncrMinusOne"),
    (0x2a, "SR_NLATC"),
    (0x2c, "SR_SM_SPA_VERSION"),
    (0x2d, "SR_MULTIPASSSHADERINFO"),
    (0x2e, "SR_LWINHI"),
    (0x2f, "SR_SWINHI"),
    (0x30, "SR_SWINLO"),
    (0x31, "SR_SWINSZ"),
    (0x32, "SR_SMEMSZ"),
    (0x33, "SR_SMEMBANKS"),
    (0x34, "SR_LWINLO"),
    (0x35, "SR_LWINSZ"),
    (0x36, "SR_LMEMLOSZ"),
    (0x37, "SR_LMEMHIOFF"),
    (0x38, "SR_EQMASK"),
    (0x39, "SR_LTMASK"),
    (0x3a, "SR_LEMASK"),
    (0x3b, "SR_GTMASK"),
    (0x3c, "SR_GEMASK"),
    (0x3d, "SR_REGALLOC"),
    (0x3e, "SR_BARRIERALLOC"),
    (0x40, "SR_GLOBALERRORSTATUS"),
    (0x42, "SR_WARPERRORSTATUS"),
    (0x43, "SR_VIRTUALSMID"),
    (0x44, "SR_VIRTUALENGINEID"),
    (0x50, "SR_CLOCKLO"),
    (0x51, "SR_CLOCKHI"),
    (0x52, "SR_GLOBALTIMERLO"),
    (0x53, "SR_GLOBALTIMERHI"),
    (0x54, "SR_ESR_PC"),
    (0x55, "SR_ESR_PC_HI"),
    (0x60, "SR_HWTASKID"),
    (0x61, "SR_CIRCULARQUEUEENTRYINDEX"),
    (0x62, "SR_CIRCULARQUEUEENTRYADDRESSLOW"),
    (0x63, "SR_CIRCULARQUEUEENTRYADDRESSHIGH"),
    (0x64, "SR_PM0"),
    (0x65, "SR_PM_HI0"),
    (0x66, "SR_PM1"),
    (0x67, "SR_PM_HI1"),
    (0x68, "SR_PM2"),
    (0x69, "SR_PM_HI2"),
    (0x6a, "SR_PM3"),
    (0x6b, "SR_PM_HI3"),
    (0x6c, "SR_PM4"),
    (0x6d, "SR_PM_HI4"),
    (0x6e, "SR_PM5"),
    (0x6f, "SR_PM_HI5"),
    (0x70, "SR_PM6"),
    (0x71, "SR_PM_HI6"),
    (0x72, "SR_PM7"),
    (0x73, "SR_PM_HI7"),
    (0x74, "SR_SNAP_PM0"),
    (0x75, "SR_SNAP_PM_HI0"),
    (0x76, "SR_SNAP_PM1"),
    (0x77, "SR_SNAP_PM_HI1"),
    (0x78, "SR_SNAP_PM2"),
    (0x79, "SR_SNAP_PM_HI2"),
    (0x7a, "SR_SNAP_PM3"),
    (0x7b, "SR_SNAP_PM_HI3"),
    (0x7c, "SR_SNAP_PM4"),
    (0x7d, "SR_SNAP_PM_HI4"),
    (0x7e, "SR_SNAP_PM5"),
    (0x7f, "SR_SNAP_PM_HI5"),
    (0x80, "SR_SNAP_PM6"),
    (0x81, "SR_SNAP_PM_HI6"),
    (0x82, "SR_SNAP_PM7"),
    (0x83, "SR_SNAP_PM_HI7"),
    (0x84, "SR_VARIABLE_RATE"),
    (0x85, "__HIR0X000"),
    (0xff, "SRZ"),
];
