//! `ELECT Pd, URd, Ps` (0x82f, sm_90, PTX `elect.sync`): elects one active thread whose `Ps`
//! holds; `Pd` is true in that thread, `URd` gets its lane. Fields found by flipping the bits
//! of ptxas 13.5's sm_90 word under nvdisasm: `URd` bits 16..21, `Pd` 81..83, `Ps` 87..89
//! with its negation in bit 90, bit 85 `.IGNOREKILL`; bit 91 replaces `Ps` by a uniform
//! register (a member mask, which ptxas does not emit: it writes `PT` whatever the PTX mask
//! is; not described). Timing: ptxas sets no scoreboard and lets the next instruction read
//! `URd` two cycles later, so it is timed as VOTEU (fixed latency, `uniform_timing.rs`).

use crate::isa::build::*;
use crate::isa::desc::{Form, LatCat as L, Op, Pipe, Role};

/// The ELECT form.
pub fn forms() -> Vec<Form> {
    vec![
        form("ELECT", Op::Elect, 0x82f)
            .since(Arch::Sm90)
            .ops([
                pred(Role::PredDst0, 81, None, false),
                urd(),
                pred(Role::PredSrc0, 87, Some(90), false),
            ])
            .mods([modifier(Mod::IgnoreKill, 85, 1, &[(0, ""), (1, ".IGNOREKILL")], 0)])
            .fixed(91, 1, 0)
            .timing(L::Disp, Pipe::Alu)
            .build(),
    ]
}
