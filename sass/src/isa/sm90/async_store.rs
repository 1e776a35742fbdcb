//! Hopper's asynchronous stores and reductions into a cluster's shared memory (sm_90), ptxas
//! 13.5's lowering of PTX `st.async` and `red.async` on `shared::cluster` addresses with an
//! mbarrier's `complete_tx` (`tests/hopper_isa/async_store.ptx`). Fields found by flipping
//! ptxas's sm_90a words under `nvdisasm -b SM90`; bit 91 set (clear: "Unrecognized
//! operation").
//!
//! * `STAS{.64|.128} [Ra.64+URc+off], Rb` (0xdbd): the address as a uniform-address store's
//!   (Ra 24..31, a signed 24-bit offset 40..63, URc 64..69, printed unless URZ), its width
//!   suffix in bit 90 (`.64`; clear `.U32`, then nvdisasm prints `+URZ`), the size 73..75
//!   (4 for 32 bits, 5 `.64`, 6 `.128`; others print `INVALIDn`), the data from bit 32.
//!   ptxas passes the mbarrier in the address's high word (a 64-bit generic-looking pair).
//! * `REDAS.<op>{.S32|.64} [Ra.64+URc+off], Rb` (0xdbe): STAS's address with its width
//!   suffix in bit 72, the type 73..75 (0 unsigned 32-bit, 1 `.S32`, 2 `.64`), the
//!   reduction 87..90 (0 `.ADD` .. 7 `.XOR`, as UBLKRED's; 8..15 print `INVALIDn`).
//!
//! Bits 77..80 (a memory order and scope, printed `???n` and `.PRIVATE`) are left clear, as
//! ptxas leaves them. Timing as STS: ptxas gives both a read scoreboard and no write
//! scoreboard (variable latency, registers read after issue).

use super::tma::RED_OPS;
use crate::isa::build::*;
use crate::isa::desc::{Form, LatCat as L, Op, OperandDesc, Pipe, Role};
use crate::isa::sm75::mem::{BY_SIZE, UrAt, address_with_width_bit};

/// The STAS and REDAS forms.
pub fn forms() -> Vec<Form> {
    vec![stas(), redas()]
}

/// The address `[Ra+URc+off24]` with its width suffix at `width_bit`.
fn address(width_bit: u8) -> OperandDesc {
    address_with_width_bit(UrAt::C, bits(40, 24), Some(width_bit), false)
}

fn stas() -> Form {
    form("STAS", Op::Stas, 0xdbd)
        .since(Arch::Sm90)
        .ops([address(90), reg(Role::Data, RB).width(BY_SIZE)])
        .mods([modifier(Mod::Size, 73, 3, &[(4, ""), (5, ".64"), (6, ".128")], 4)])
        .fixed(UNIFORM_BIT, 1, 1)
        .timing(L::Decoupled, Pipe::Lsu)
        .reads_late()
        .build()
}

fn redas() -> Form {
    form("REDAS", Op::Redas, 0xdbe)
        .since(Arch::Sm90)
        .ops([address(72), reg(Role::Data, RB).width(BY_SIZE)])
        .mods([
            modifier(Mod::BulkRedOp, 87, 4, RED_OPS, 0),
            modifier(Mod::BulkRedType, 73, 3, &[(0, ""), (1, ".S32"), (2, ".64")], 0),
        ])
        .fixed(UNIFORM_BIT, 1, 1)
        .timing(L::Decoupled, Pipe::Lsu)
        .reads_late()
        .build()
}
