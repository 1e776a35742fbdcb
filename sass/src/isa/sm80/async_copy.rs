//! Asynchronous copies from global to shared memory (sm_80 on, PTX `cp.async`), each field
//! found by flipping the bits of ptxas's words under `nvdisasm -b SM80`:
//! * `LDGSTS.E{.BYPASS}{.cache}{.LTC64B|.LTC128B|.LTC256B}{.64|.128}{.ZFILL} [Rd+off20], [Ra.64+off12], Pc`
//!   (0xfae): the shared address is the register in bits 16..23 with a signed 20-bit offset
//!   in 44..63; the global address is Ra (24..31) with a signed 12-bit offset in 32..43, a
//!   uniform register in 64..69 that is a memory descriptor while bit 76 is set (nvdisasm
//!   then prints none) and its width suffix in bit 70. Prefetch 71..72 (64, 128 or 256 bytes: PTX `.L2::64B` ...), size 73..75 (4, 8,
//!   16 bytes), the cache-policy flag 101 (PTX `.L2::cache_hint`: the descriptor holds the
//!   policy, printed `desc[UR4][R2.64]`; ignored by nvdisasm while bit 76 is clear),
//!   semantics-and-scope 77..80 (ptxas leaves it weak), `.BYPASS` when bit 81 is
//!   clear (the `.cg` copy), `.ZFILL` 82, cache policy 84..86, predicate Pc 87..89 with its
//!   negation in 90 (printed when not PT), bit 91 set.
//! * `LDGDEPBAR` (0x9af): no operands; ptxas gives it write scoreboard SB0.
//! * `ARRIVES.LDGSTSBAR.64 [Ra+URb+off24]` (0x9b0, PTX `cp.async.mbarrier.arrive`): Ra in
//!   24..31, a signed 24-bit offset in 40..63, the uniform register in 64..69 (nvdisasm
//!   prints `[URZ+0x8]`, `[UR4]`, `[R2+UR4+0x8]`); the operation in bit 72 (0:
//!   `.LDGSTSBAR`, 1 prints `???1`), the size in 73..75 (only 5, `.64`; others print `???n`),
//!   bit 91 set (clear: "Unrecognized operation"); bits 78, 79 (ATOMS's scale) change
//!   nothing. ptxas 13.5 always gives it a uniform address (Ra = RZ): `[URZ+imm]` for a
//!   constant address, otherwise a loop of `R2UR` over the warp's distinct addresses.

use super::memory::{DESC76, POLICY101};
use crate::flag;
use crate::isa::arch::Arch;
use crate::isa::build::*;
use crate::isa::desc::{Form, LatCat as L, Op, OperandDesc, Pipe, Role, Show};
use crate::isa::sm75::mem::{CACHE, UrAt, address, address_with_width_bit};

/// LDGSTS's copy sizes (4, 8 and 16 bytes).
const SIZES: &[(u16, &str)] = &[(4, ""), (5, ".64"), (6, ".128")];

/// The LDGSTS and LDGDEPBAR forms.
pub fn forms() -> Vec<Form> {
    vec![ldgsts(), ldgdepbar(), arrives()]
}

fn ldgsts() -> Form {
    let shared = mem_with(bits(RD, 8), bits(44, 20), None, None);
    let global = OperandDesc {
        role: Role::SrcAddr,
        ..address_with_width_bit(UrAt::C, bits(32, 12), Some(70), false)
    };
    let pc = pred(Role::PredSrc0, 87, Some(90), false).show(Show::IfNotDefault);
    form("LDGSTS.E", Op::Ldgsts, 0xfae)
        .since(Arch::Sm80)
        .ops([shared, global, pc])
        .mods([
            modifier(Mod::L1Allocate, 81, 1, &[(0, ".BYPASS"), (1, "")], 1),
            CACHE,
            modifier(
                Mod::Prefetch,
                71,
                2,
                &[(0, ""), (1, ".LTC64B"), (2, ".LTC128B"), (3, ".LTC256B")],
                0,
            ),
            modifier(Mod::Size, 73, 3, SIZES, 4),
            flag!(Mod::Zfill, 82, ".ZFILL"),
            DESC76,
            POLICY101,
        ])
        .fixed(77, 4, 0)
        .fixed(UNIFORM_BIT, 1, 1)
        .invalid_when(&[(76, true), (70, false)])
        .invalid_when(&[(76, false), (101, true)])
        // ptxas gives LDGSTS neither a write nor a read scoreboard: its registers are read
        // at issue, and its completion is tracked by the group's LDGDEPBAR.
        .timing(L::Disp, Pipe::Lsu)
        .build()
}

fn ldgdepbar() -> Form {
    form("LDGDEPBAR", Op::Ldgdepbar, 0x9af)
        .since(Arch::Sm80)
        .timing(L::Decoupled, Pipe::Lsu)
        .build()
}

fn arrives() -> Form {
    form("ARRIVES.LDGSTSBAR", Op::ArrivesLdgstsbar, 0x9b0)
        .since(Arch::Sm80)
        .ops([address(UrAt::C, bits(40, 24), false, false)])
        .mods([modifier(Mod::Size, 73, 3, &[(5, ".64")], 5)])
        .fixed(72, 1, 0)
        .fixed(UNIFORM_BIT, 1, 1)
        // ptxas gives it no scoreboard: the arrival is made by the memory system.
        .timing(L::Disp, Pipe::Lsu)
        .build()
}
