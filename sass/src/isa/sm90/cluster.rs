//! Hopper's cluster barrier and register reconfiguration (sm_90), ptxas 13.5's lowering of PTX
//! `barrier.cluster.arrive` / `.wait` (every `.relaxed`, `.release`, `.acquire`, `.aligned`
//! variant) and `setmaxnreg` (`tests/hopper_isa/cluster_barrier.ptx`, `setmaxnreg.ptx`). Fields
//! found by flipping the bits of ptxas's sm_90a words under `nvdisasm -b SM90`; all have a
//! uniform guard and bit 91 set (clear: "Unrecognized operation for functional unit 'uC'").
//!
//! * `UCGABAR_ARV` (0x9c7) and `UCGABAR_WAIT` (0xdc7): no fields (bit 72 of UCGABAR_ARV makes
//!   nvdisasm print nothing at all; left clear). ptxas puts `MEMBAR.ALL.GPU; ERRBAR;
//!   CGAERRBAR` before the arrive unless it is `.relaxed`, and `CCTL.IVALL` after every wait,
//!   and branches around both to a `BAR.SYNC 0x0` when `c[0x0][0x140]` (the launch's cluster
//!   flag) is not 1. They have no scoreboards and are followed by a stall of 1: timed as
//!   dispatch-only branch-unit instructions.
//! * `USETMAXREG.{DEALLOC|TRY_ALLOC}.CTAPOOL [UPd,] n` (0x9c8, sm_90a's `setmaxnreg.dec` and
//!   `.inc` in a kernel whose register count ptxas knows, `.maxnreg`): the operation 72..73
//!   ([`MaxRegMode`](crate::isa::values::MaxRegMode); 0 and 3 are illegal), `.CTAPOOL` bit 74
//!   (clear prints `???0`), the register count n in 32..41; UPd 81..83 is printed for
//!   `.TRY_ALLOC` only (ptxas leaves it UPT under `.DEALLOC`, and loops on UPd after
//!   `.TRY_ALLOC`). ptxas puts `WARPSYNC.ALL` before it and gives it write scoreboard SB0,
//!   which the next instruction waits on even after `.DEALLOC` (no result): timed as a
//!   decoupled instruction.

use crate::isa::build::*;
use crate::isa::desc::{Form, ImmStyle, LatCat as L, ModDesc, Op, Pipe, Role};

/// The cluster-barrier and USETMAXREG forms.
pub fn forms() -> Vec<Form> {
    vec![
        cgabar("UCGABAR_ARV", Op::UcgabarArv, 0x9c7),
        cgabar("UCGABAR_WAIT", Op::UcgabarWait, 0xdc7),
        usetmaxreg(false),
        usetmaxreg(true),
    ]
}

fn cgabar(mnemonic: &'static str, op: Op, opcode: u16) -> Form {
    form(mnemonic, op, opcode)
        .since(Arch::Sm90)
        .uniform_guard()
        .fixed(UNIFORM_BIT, 1, 1)
        .timing(L::Disp, Pipe::Branch)
        .build()
}

/// `.CTAPOOL` (bit 74, always set).
const CTAPOOL: ModDesc = modifier(Mod::CtaPool, 74, 1, &[(1, ".CTAPOOL")], 1);

/// USETMAXREG: `.DEALLOC` without an output, `.TRY_ALLOC` with its uniform predicate.
fn usetmaxreg(alloc: bool) -> Form {
    let count = imm(Role::A, bits(32, 10), ImmStyle::Hex);
    let b = form("USETMAXREG", Op::Usetmaxreg, 0x9c8).since(Arch::Sm90);
    let b = if alloc {
        b.ops([upred(Role::PredDst0, 81, None, false), count])
            .mods([modifier(Mod::MaxRegMode, 72, 2, &[(2, ".TRY_ALLOC")], 2), CTAPOOL])
    } else {
        b.ops([count])
            .mods([modifier(Mod::MaxRegMode, 72, 2, &[(1, ".DEALLOC")], 1), CTAPOOL])
            .fixed(81, 3, 7)
    };
    b.uniform_guard()
        .fixed(UNIFORM_BIT, 1, 1)
        .timing(L::Decoupled, Pipe::Misc)
        .build()
}
