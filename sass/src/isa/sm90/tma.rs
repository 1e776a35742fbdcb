//! Hopper's tensor-memory-accelerator (TMA) instructions (sm_90), ptxas 13.5's lowering of PTX
//! `cp.async.bulk.tensor`, `cp.reduce.async.bulk.tensor`, `cp.async.bulk.prefetch.tensor`,
//! `prefetch.tensormap` and `cp.async.bulk.commit_group` (`tests/hopper_isa/tma_*.ptx`,
//! `bulk_copy.ptx`). Fields found by flipping the bits of ptxas's sm_90a words under
//! `nvdisasm -b SM90`; every one is a uniform-datapath instruction (guard `@UPn`; bit 91 set,
//! clear: "Unrecognized operation for functional unit 'uC'", except UTMACMDFLUSH's, which
//! must be clear). Bits not named here change nothing that nvdisasm prints and are left clear.
//!
//! * `UTMALDG.<n>D [URa], [URb]{, desc[URd]}` (0x5b4) and `UTMALDG.<n>D{.IM2COL}{.MULTICAST}
//!   [URa], [URb], URc{, desc[URd]}` (0x3b4): URa 32..37, URb 24..29, URc 64..69, URd 40..45
//!   printed while bit 76 is set (PTX `.L2::cache_hint`: the 64-bit policy), the dimension
//!   count 79..81 (0 `.1D` .. 4 `.5D`; 5..7 print `INVALIDn`), `.MULTICAST` 75, `.IM2COL` 82
//!   (nvdisasm ignores 75 and 82 in 0x5b4). Varying the PTX's coordinates (`%ctaid.x`, `.y`,
//!   `.z`, `%tid.x`) shows the blocks: URa the shared destination, URa+1 the mbarrier, URa+2..
//!   the n coordinates in order; URb:URb+1 the tensor map's generic address (the kernel
//!   parameter's address, `c[0x0][0x198]` plus its offset); URc the im2col offsets in its low
//!   16 bits (one 16-bit offset for 3D, two bytes for 4D, three 5-bit fields for 5D) and the
//!   multicast CTA mask in its high 16.
//! * `UTMASTG.<n>D{.IM2COL} [URa], [URb]{, desc[URd]}` (0x3b5, PTX `cp.async.bulk.tensor`
//!   shared::cta to global; `.im2col_no_offs` is `.IM2COL`): as UTMALDG's 0x5b4, URa the
//!   shared source and URa+1.. the coordinates.
//! * `UTMAREDG.<n>D{.IM2COL}.<op> [URa], [URb]{, desc[URd]}` (0x3b6): UTMASTG's fields and
//!   the reduction in 87..89 ([`BulkRedOp`](crate::isa::values::BulkRedOp)).
//! * `UTMAPF.L2.<n>D [URa], [URb]{, desc[URd]}` (0x5b8) and `UTMAPF.L2.<n>D.IM2COL [URa],
//!   [URb], URc{, desc[URd]}` (0x3b8; bit 82 must be set, clear prints `???0`): URa.. the
//!   coordinates, URc the im2col offsets; dimension codes 5 and 6 print `INVALIDn`.
//! * `UTMACCTL.{IV|PF} [URb]` (0x9b9, PTX `prefetch.tensormap` in any space): the tensor
//!   map's address pair in 24..29, bit 82 `.PF` (clear `.IV`).
//! * `UTMACMDFLUSH` (0x9b7): no fields besides the guard.
//!
//! Timing: ptxas sets no write scoreboard on any of them; it gives UTMALDG, UTMASTG,
//! UTMAREDG, UTMAPF and UTMACCTL a read scoreboard (their uniform registers are read after
//! issue) and reads them 9 cycles after a uniform-datapath writer (UIADD3.X to UTMASTG), 2
//! after UMOV and 13 after R2UR: the uniform reads of a decoupled vector instruction
//! (`uniform_timing`: LSU pipe, [`L::Decoupled`]). UTMACMDFLUSH increments read scoreboard
//! SB0, which `DEPBAR.LE SB0, n` (PTX `cp.async.bulk.wait_group{.read} n`) waits on.

use crate::flag;
use crate::isa::build::*;
use crate::isa::desc::{Form, LatCat as L, ModDesc, Op, OpKind, OperandDesc, Pipe, Role};

/// The TMA forms.
pub fn forms() -> Vec<Form> {
    vec![
        utmaldg(false),
        utmaldg(true),
        utmastg(Op::Utmastg),
        utmastg(Op::Utmaredg),
        utmapf(false),
        utmapf(true),
        utmacctl(),
        uniform_tma(form("UTMACMDFLUSH", Op::Utmacmdflush, 0x9b7)).build(),
    ]
}

/// The dimension count (bits 79..81).
const DIMS: ModDesc = modifier(
    Mod::TmaDim,
    79,
    3,
    &[(0, ".1D"), (1, ".2D"), (2, ".3D"), (3, ".4D"), (4, ".5D")],
    0,
);

/// The cache-policy flag (bit 76): it adds [`policy`], printing nothing itself.
pub const POLICY76: ModDesc = modifier(Mod::PolicyDesc, 76, 1, &[(0, ""), (1, "")], 0);

/// `.IM2COL` (bit 82).
const IM2COL: ModDesc = flag!(Mod::Im2col, 82, ".IM2COL");

/// The reductions of UTMAREDG, UBLKRED and REDAS (their operation field): ATOM's first eight
/// spellings.
pub const RED_OPS: &[(u16, &str)] = crate::isa::sm75::atomic::OPS.split_at(8).0;

/// `.MULTICAST` (bit 75).
pub const MULTICAST75: ModDesc = flag!(Mod::Multicast, 75, ".MULTICAST");

/// A block of uniform registers `[URn]` at `lo` (`width` 0: from the modifiers).
pub fn block(role: Role, lo: u8, width: u8) -> OperandDesc {
    OperandDesc {
        kind: OpKind::UregBlock {
            field: bits(lo, 6),
            prefix: "",
            width,
        },
        ..reg(role, lo)
    }
}

/// The L2 cache-policy descriptor `desc[URd]` (bits 40..45, a pair), printed while bit 76 is
/// set.
pub fn policy() -> OperandDesc {
    OperandDesc {
        kind: OpKind::UregBlock {
            field: bits(40, 6),
            prefix: "desc",
            width: 2,
        },
        ..reg(Role::C, 40)
    }
}

/// A TMA or bulk-copy form: sm_90, a uniform guard, bit 91 as given, timed as a decoupled
/// memory instruction that reads its uniform registers after issue.
pub fn uniform_tma(b: FormBuilder) -> FormBuilder {
    b.since(Arch::Sm90)
        .uniform_guard()
        .timing(L::Decoupled, Pipe::Lsu)
        .reads_late()
}

/// `[URa], [URb]`: the block of operands and the tensor map.
fn operands() -> [OperandDesc; 2] {
    [block(Role::Addr, 32, 0), block(Role::SrcAddr, 24, 2)]
}

fn utmaldg(extra: bool) -> Form {
    let b = form("UTMALDG", Op::Utmaldg, if extra { 0x3b4 } else { 0x5b4 }).ops(operands());
    let b = if extra {
        b.ops([ureg(Role::B, RC)]).mods([DIMS, IM2COL, MULTICAST75, POLICY76])
    } else {
        b.mods([DIMS, POLICY76])
    };
    uniform_tma(b)
        .op_under_always(Mod::PolicyDesc, policy())
        .fixed(UNIFORM_BIT, 1, 1)
        .build()
}

fn utmastg(op: Op) -> Form {
    let b = if op == Op::Utmastg {
        form("UTMASTG", op, 0x3b5).mods([DIMS, IM2COL, POLICY76])
    } else {
        form("UTMAREDG", op, 0x3b6).mods([DIMS, IM2COL, modifier(Mod::BulkRedOp, 87, 3, RED_OPS, 0), POLICY76])
    };
    uniform_tma(b.ops(operands()))
        .op_under_always(Mod::PolicyDesc, policy())
        .fixed(UNIFORM_BIT, 1, 1)
        .build()
}

fn utmapf(im2col: bool) -> Form {
    let b = form("UTMAPF.L2", Op::Utmapf, if im2col { 0x3b8 } else { 0x5b8 }).ops(operands());
    let b = if im2col {
        b.ops([ureg(Role::B, RC)])
            .mods([DIMS, modifier(Mod::Im2col, 82, 1, &[(1, ".IM2COL")], 1), POLICY76])
    } else {
        b.mods([DIMS, POLICY76])
    };
    uniform_tma(b)
        .op_under_always(Mod::PolicyDesc, policy())
        .fixed(UNIFORM_BIT, 1, 1)
        .build()
}

fn utmacctl() -> Form {
    uniform_tma(form("UTMACCTL", Op::Utmacctl, 0x9b9))
        .ops([block(Role::Addr, 24, 2)])
        .mods([modifier(Mod::TensorMapCctl, 82, 1, &[(0, ".IV"), (1, ".PF")], 1)])
        .fixed(UNIFORM_BIT, 1, 1)
        .build()
}
