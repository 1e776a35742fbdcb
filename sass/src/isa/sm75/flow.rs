//! Control flow: BRA, EXIT, CALL, RET, the convergence barriers (BSSY, BSYNC, BREAK, BMOV),
//! WARPSYNC, YIELD, NANOSLEEP, NOP, LEPC. Targets are 4-byte aligned offsets from the next
//! instruction (bits 34.., the two bits below are modifiers or ignored).

use super::common::*;
use crate::flag;
use crate::isa::build::*;
use crate::isa::desc::{ImmStyle, LatCat as L, Pipe, Role, Show, *};

/// The condition predicate of control-flow instructions, printed when not PT.
fn cond() -> OperandDesc {
    ps87().show(Show::IfNotDefault)
}

/// A convergence barrier register at `lo` (4 bits).
fn barrier(lo: u8) -> OperandDesc {
    OperandDesc {
        kind: OpKind::Barrier { field: bits(lo, 4) },
        ..reg(Role::Other, lo)
    }
}

/// A 48-bit target (bits 34..82).
fn far_target() -> OperandDesc {
    rel_scaled(bits(34, 48), 2)
}

fn branch(f: FormBuilder) -> FormBuilder {
    f.timing(L::Decoupled, Pipe::Branch)
}

/// All control-flow forms.
pub fn forms() -> Vec<Form> {
    let mut v = vec![
        branch(form("BRA", Op::Bra, 0x947))
            .ops([cond(), far_target()])
            .mods([
                flag!(Mod::BranchInc, 85, ".INC"),
                flag!(Mod::BranchDec, 86, ".DEC"),
                modifier(
                    Mod::BranchKind,
                    32,
                    2,
                    &[(0, ""), (1, ".U"), (2, ".DIV"), (3, ".CONV")],
                    0,
                ),
            ])
            .invalid_when(&[(85, true), (86, true)])
            .terminator()
            .build(),
        branch(form("EXIT", Op::Exit, 0x94d))
            .ops([cond()])
            .mods([
                flag!(Mod::KeepRefCount, 84, ".KEEPREFCOUNT"),
                flag!(Mod::Preempted, 85, ".PREEMPTED"),
                flag!(Mod::NoAtExit, 86, ".NO_ATEXIT"),
            ])
            .invalid_when(&[(84, true), (85, true)])
            .terminator()
            .build(),
        branch(form("BSSY", Op::Bssy, 0x945))
            .ops([cond(), barrier(16), rel_scaled(bits(34, 30), 2)])
            .build(),
        branch(form("BSYNC", Op::Bsync, 0x941))
            .ops([cond(), barrier(16)])
            .build(),
        branch(form("BREAK", Op::Break, 0x942))
            .ops([cond(), barrier(16)])
            .build(),
        form("BMOV.32", Op::Bmov, 0x355)
            .ops([rd(), barrier(RA)])
            .mods([flag!(Mod::Clear, 84, ".CLEAR")])
            .timing(L::BMov, Pipe::Branch)
            .build(),
        branch(form("WARPSYNC", Op::Warpsync, 0x348))
            .ops([cond(), reg(Role::B, RB)])
            .build(),
        branch(form("WARPSYNC", Op::Warpsync, 0x948))
            .ops([cond(), imm32(Role::B, ImmStyle::Hex)])
            .build(),
        branch(form("WARPSYNC", Op::Warpsync, 0xb48))
            .ops([cond(), cbank(Role::B)])
            .build(),
        branch(form("YIELD", Op::Yield, 0x946)).ops([cond()]).build(),
        // Reads its register at issue: nvdisasm rejects a read scoreboard on it, and ptxas
        // sets none.
        form("NANOSLEEP", Op::Nanosleep, 0x35d)
            .timing(L::Disp, Pipe::Branch)
            .ops([cond(), reg(Role::B, RB)])
            .mods([
                flag!(Mod::Rand, 86, ".RAND"),
                modifier(Mod::SleepWarp, 85, 1, &[(0, ""), (1, ".WARP")], 1),
            ])
            .build(),
        branch(form("NANOSLEEP", Op::Nanosleep, 0x95d))
            .ops([cond(), imm32(Role::B, ImmStyle::Hex)])
            .mods([
                flag!(Mod::Rand, 86, ".RAND"),
                modifier(Mod::SleepWarp, 85, 1, &[(0, ""), (1, ".WARP")], 1),
            ])
            .build(),
        form("NOP", Op::Nop, 0x918).timing(L::Disp, Pipe::Misc).build(),
        // `BPT.TRAP 0x1` (trap) and the other breakpoint modes; the code prints when not 0.
        branch(form("BPT", Op::Bpt, 0x95c))
            .ops([imm(Role::A, bits(34, 3), ImmStyle::Hex).show(Show::IfNotDefault)])
            .mods([modifier(
                Mod::BptMode,
                84,
                3,
                &[
                    (2, ".PAUSE"),
                    (3, ".TRAP"),
                    (4, ".INT"),
                    (5, ".DRAIN"),
                    (6, ".PAUSE_QUIET"),
                ],
                3,
            )])
            .build(),
        // `PMTRIG 0x2`: performance-monitor trigger (pmevent).
        form("PMTRIG", Op::Pmtrig, 0x801)
            .ops([cond(), imm(Role::A, bits(32, 16), ImmStyle::Hex)])
            .timing(L::Disp, Pipe::Misc)
            .build(),
        form("LEPC", Op::Lepc, 0x34e)
            .ops([rd()])
            .timing(L::Alu, Pipe::Alu)
            .build(),
    ];
    v.extend(calls());
    v
}

/// CALL.REL / CALL.ABS (with an immediate or a register target) and RET.REL / RET.ABS (the
/// return address in a register pair; the printed target is the function's start).
fn calls() -> Vec<Form> {
    let noinc = || flag!(Mod::NoInc, 86, ".NOINC");
    let abs_target = imm(Role::Target, bits(34, 48), ImmStyle::SignedHexX4);
    vec![
        branch(form("CALL.REL", Op::Call, 0x944))
            .ops([cond(), far_target()])
            .mods([noinc()])
            .build(),
        branch(form("CALL.REL", Op::Call, 0x344))
            .ops([cond(), reg(Role::A, RA), far_target().spaced()])
            .mods([noinc()])
            .build(),
        branch(form("CALL.ABS", Op::Call, 0x943))
            .ops([cond(), abs_target])
            .mods([noinc()])
            .build(),
        branch(form("CALL.ABS", Op::Call, 0x343))
            .ops([cond(), reg(Role::A, RA), abs_target.spaced().show(Show::IfNotDefault)])
            .mods([noinc()])
            .build(),
        branch(form("RET.REL", Op::Ret, 0x950))
            .ops([cond(), reg(Role::A, RA).width(2), far_target().spaced()])
            .mods([flag!(Mod::NoDec, 86, ".NODEC")])
            .fixed(85, 1, 0)
            .terminator()
            .build(),
        branch(form("RET.ABS", Op::Ret, 0x950))
            .ops([cond(), reg(Role::A, RA).width(2), abs_target.spaced()])
            .mods([flag!(Mod::NoDec, 86, ".NODEC")])
            .fixed(85, 1, 1)
            .terminator()
            .build(),
    ]
}
