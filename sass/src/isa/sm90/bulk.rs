//! Hopper's bulk copies (sm_90), ptxas 13.5's lowering of PTX `cp.async.bulk`,
//! `cp.reduce.async.bulk` and `cp.async.bulk.prefetch.L2` (`tests/hopper_isa/bulk_copy.ptx`).
//! Fields found by flipping the bits of ptxas's sm_90a words under `nvdisasm -b SM90`; the
//! operands are uniform-register blocks as in `tma.rs` (uniform guard, bit 91 set).
//!
//! * `UBLKCP.<dst>.<src>{.MULTICAST}{.LTC64B|.LTC128B|.LTC256B}{.SEQUENCED} [URa], [URb],
//!   URc{, desc[URd]}` (0x3ba): URa 32..37, URb 24..29, URc 64..69, URd 40..45 under bit 76
//!   (PTX `.L2::cache_hint`); the memories 73..74
//!   ([`BulkDirection`](crate::isa::values::BulkDirection): bit 73 a shared destination,
//!   bit 74 a shared source), `.MULTICAST` 75, the L2 prefetch size 81..82, `.SEQUENCED` 83;
//!   any of bits 77..80 set is illegal. Varying the PTX: for a shared destination URa is its
//!   address and URa+1 the mbarrier's; a global address is a pair; URc holds the size in
//!   16-byte units in its low half and the multicast CTA mask in its high half (`%r9 >> 4`,
//!   `PRMT` of the mask over it).
//! * `UBLKRED.<dst>.S.<op>{.<type>} [URa], [URb], URc{, desc[URd]}` (0x3bb): UBLKCP's operands
//!   and memories (the source is shared: codes 0 and 1 print `???0`), the reduction 87..89,
//!   the element type 81..84 ([`BulkRedType`](crate::isa::values::BulkRedType); 9..15 print
//!   `INVALIDn`). PTX's `.b32`/`.b64` of `.and`/`.or`/`.xor` are `.U32`/`.U64`, `.noftz` f16
//!   and bf16 additions `.F16.RN`/`.BF16.RN`.
//! * `UBLKPF.L2 [URb], URc{, desc[URd]}` (0x3bc): the global address pair and the size, as
//!   UBLKCP's.
//!
//! Timing as the TMA instructions (`tma.rs`): no write scoreboard, a read scoreboard, the
//! uniform reads of a decoupled instruction (ptxas reads UMOV's result 2 cycles later).

use super::tma::{MULTICAST75, POLICY76, RED_OPS, block, policy, uniform_tma};
use crate::flag;
use crate::isa::build::*;
use crate::isa::desc::{Form, Op, Role};

/// The bulk-copy forms.
pub fn forms() -> Vec<Form> {
    vec![ublkcp(), ublkred(), ublkpf()]
}

/// The memories of a copy (bits 73..74).
const DIRECTIONS: &[(u16, &str)] = &[(0, ".G.G"), (1, ".S.G"), (2, ".G.S"), (3, ".S.S")];

fn ublkcp() -> Form {
    uniform_tma(form("UBLKCP", Op::Ublkcp, 0x3ba))
        .ops([block(Role::Addr, 32, 0), block(Role::SrcAddr, 24, 0), ureg(Role::B, RC)])
        .mods([
            modifier(Mod::BulkDirection, 73, 2, DIRECTIONS, 1),
            MULTICAST75,
            modifier(
                Mod::Prefetch,
                81,
                2,
                &[(0, ""), (1, ".LTC64B"), (2, ".LTC128B"), (3, ".LTC256B")],
                0,
            ),
            flag!(Mod::Sequenced, 83, ".SEQUENCED"),
            POLICY76,
        ])
        .op_under_always(Mod::PolicyDesc, policy())
        .fixed(UNIFORM_BIT, 1, 1)
        .build()
}

fn ublkred() -> Form {
    const TYPES: &[(u16, &str)] = &[
        (0, ""),
        (1, ".S32"),
        (2, ".U64"),
        (3, ".S64"),
        (4, ".F16.RN"),
        (5, ".F32.RN"),
        (6, ".F32.FTZ.RN"),
        (7, ".F64.RN"),
        (8, ".BF16.RN"),
    ];
    uniform_tma(form("UBLKRED", Op::Ublkred, 0x3bb))
        .ops([block(Role::Addr, 32, 0), block(Role::SrcAddr, 24, 0), ureg(Role::B, RC)])
        .mods([
            modifier(Mod::BulkDirection, 73, 2, &DIRECTIONS[2..], 2),
            modifier(Mod::BulkRedOp, 87, 3, RED_OPS, 0),
            modifier(Mod::BulkRedType, 81, 4, TYPES, 0),
            POLICY76,
        ])
        .op_under_always(Mod::PolicyDesc, policy())
        .fixed(UNIFORM_BIT, 1, 1)
        .build()
}

fn ublkpf() -> Form {
    uniform_tma(form("UBLKPF.L2", Op::Ublkpf, 0x3bc))
        .ops([block(Role::SrcAddr, 24, 2), ureg(Role::B, RC)])
        .mods([POLICY76])
        .op_under_always(Mod::PolicyDesc, policy())
        .fixed(UNIFORM_BIT, 1, 1)
        .build()
}
