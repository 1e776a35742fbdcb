//! Control flow: BRA, EXIT, BSSY/BSYNC/BMOV, WARPSYNC, NOP.

use crate::flag;
use crate::isa::build::*;
use crate::isa::desc::{LatCat as L, Op, Pipe, Role, Show, *};

/// The condition predicate of control-flow instructions, printed when not PT.
fn cond() -> OperandDesc {
    pred(Role::PredSrc0, 87, Some(90), false).show(Show::IfNotDefault)
}

/// A convergence barrier register at `lo`.
fn barrier(lo: u8) -> OperandDesc {
    OperandDesc {
        kind: OpKind::Barrier { field: bits(lo, 4) },
        ..reg(Role::Other, lo)
    }
}

/// All control-flow forms.
pub fn forms() -> Vec<Form> {
    let br = |f: FormBuilder| f.timing(L::Decoupled, Pipe::Branch);
    vec![
        br(form("BRA", Op::Bra, 0x947)
            .ops([cond(), rel(bits(32, 50))])
            .mods([flag!("inc", 85, ".INC"), flag!("dec", 86, ".DEC")]))
        .terminator()
        .build(),
        br(form("EXIT", Op::Exit, 0x94d).ops([cond()]).mods([
            flag!("keeprefcount", 84, ".KEEPREFCOUNT"),
            flag!("preempted", 85, ".PREEMPTED"),
            flag!("no_atexit", 86, ".NO_ATEXIT"),
        ]))
        .terminator()
        .build(),
        br(form("BSSY", Op::Bssy, 0x945).ops([cond(), barrier(16), rel(bits(32, 32))])).build(),
        br(form("BSYNC", Op::Bsync, 0x941).ops([cond(), barrier(16)])).build(),
        form("BMOV.32", Op::Bmov, 0x355)
            .ops([rd(), barrier(24)])
            .mods([flag!("clear", 84, ".CLEAR")])
            .timing(L::BMov, Pipe::Branch)
            .build(),
        br(form("WARPSYNC", Op::Warpsync, 0x348).ops([cond(), reg(Role::B, RB)])).build(),
        br(form("WARPSYNC", Op::Warpsync, 0x948).ops([cond(), imm32(Role::B, ImmStyle::Hex)])).build(),
        form("NOP", Op::Nop, 0x918).timing(L::Disp, Pipe::Misc).build(),
    ]
}
