//! Synchronisation and memory ordering: BAR, MEMBAR, ERRBAR, CCTL, CCTLL, DEPBAR.

use super::common::*;
use super::mem::E;
use crate::flag;
use crate::isa::build::*;
use crate::isa::desc::{ImmStyle, LatCat as L, Pipe, Role, Show, *};

/// All synchronisation forms.
pub fn forms() -> Vec<Form> {
    let mut v = bar();
    v.push(
        form("MEMBAR", Op::Membar, 0x992)
            .mods([
                modifier(Mod::MembarSem, 79, 2, &[(0, ".SC"), (1, ".ALL"), (2, "")], 0),
                modifier(
                    Mod::Scope,
                    76,
                    3,
                    &[(0, ".CTA"), (1, ".SM"), (2, ".GPU"), (3, ".SYS"), (5, ".VC")],
                    0,
                ),
                flag!(Mod::Mmio, 72, ".MMIO"),
            ])
            .timing(L::Decoupled, Pipe::Lsu)
            .build(),
    );
    v.push(
        form("ERRBAR", Op::Errbar, 0x9ab)
            .timing(L::Decoupled, Pipe::Lsu)
            .build(),
    );
    v.extend(cctl());
    v.push(cctll());
    v.extend(depbar());
    v
}

/// BAR in its immediate-id form (0xb1d): barrier id 54..58, thread count 42..54. The mode
/// (bits 77..80) decides the operands: SYNC id[, count]; ARV id, count; RED.op id[, count],
/// predicate; SCAN id, count, predicate; SYNCALL nothing. Bit 80 is `.DEFER_BLOCKING`.
fn bar() -> Vec<Form> {
    let id = || imm(Role::A, bits(54, 4), ImmStyle::Hex);
    let count = || imm(Role::B, bits(42, 12), ImmStyle::Hex);
    let defer = || flag!(Mod::Defer, 80, ".DEFER_BLOCKING");
    let no_defer = || modifier(Mod::Defer, 80, 1, &[(0, "")], 0);
    let mode = |v: u16, s: &'static str| -> ModDesc {
        let values: &'static [(u16, &'static str)] = Vec::leak(vec![(v, s)]);
        modifier(Mod::BarMode, 77, 3, values, v)
    };
    let redop = modifier(Mod::BarRedOp, 74, 2, &[(0, ".POPC"), (1, ".AND"), (2, ".OR")], 0);
    let shapes = [
        (
            mode(0, ".SYNC"),
            None,
            defer(),
            vec![id(), count().show(Show::IfNotDefault)],
        ),
        (mode(1, ".ARV"), None, no_defer(), vec![id(), count()]),
        (
            mode(2, ".RED"),
            Some(redop),
            defer(),
            vec![id(), count().show(Show::IfNotDefault), ps87()],
        ),
        (mode(3, ".SCAN"), None, no_defer(), vec![id(), count(), ps87()]),
        (mode(4, ".SYNCALL"), None, defer(), vec![]),
    ];
    shapes
        .into_iter()
        .map(|(mode, redop, defer, ops)| {
            let f = form("BAR", Op::Bar, 0xb1d)
                .ops(ops.iter().copied())
                .mods([mode])
                .mods(redop)
                .mods([defer])
                .timing(L::Decoupled, Pipe::Branch);
            if redop.is_none() { f.fixed(74, 2, 0) } else { f }.build()
        })
        .collect()
}

/// CCTL: cache control by address (`CCTL.IV [R4]`) or of everything (`CCTL.IVALL`).
fn cctl() -> Vec<Form> {
    const CACHE: ModDesc = modifier(Mod::CctlCache, 78, 2, &[(0, ""), (1, ".U"), (2, ".C"), (3, ".I")], 0);
    const BY_ADDR: ModDesc = modifier(
        Mod::CctlOp,
        87,
        4,
        &[(0, ".PF1"), (1, ".PF2"), (2, ".WB"), (3, ".IV"), (5, ".RS")],
        3,
    );
    const ALL: ModDesc = modifier(
        Mod::CctlOp,
        87,
        4,
        &[(4, ".IVALL"), (6, ".IVALLP"), (7, ".WBALL"), (8, ".WBALLP")],
        4,
    );
    let addr = mem_with(bits(RA, 8), bits(32, 32), None, None);
    vec![
        form("CCTL", Op::Cctl, 0x98f)
            .ops([addr])
            .mods([E, CACHE, BY_ADDR])
            .timing(L::DecoupledOther, Pipe::Lsu)
            .build(),
        form("CCTL", Op::Cctl, 0x98f)
            .mods([CACHE, ALL])
            .fixed(RA, 8, 0xff)
            .fixed(72, 1, 0)
            .timing(L::DecoupledOther, Pipe::Lsu)
            .build(),
    ]
}

/// CCTLL: cache control of local memory by address (`CCTLL.PF1 [R1+0x4]`, ptxas's
/// `prefetch.local.L1`; `.PF2` for `.L2`): the address register in bits 24..31, a signed
/// 24-bit offset in 40..63, the operation in 87..90 (nvdisasm 13.5 -b SM75 and SM80 print
/// codes 0, 1, 2, 3 and 5 and reject 4 and 6..15).
fn cctll() -> Form {
    const OP: ModDesc = modifier(
        Mod::CctlOp,
        87,
        4,
        &[(0, ".PF1"), (1, ".PF2"), (2, ".WB"), (3, ".IV"), (5, ".RS")],
        0,
    );
    form("CCTLL", Op::Cctll, 0x990)
        .ops([mem(RA)])
        .mods([OP])
        .timing(L::DecoupledOther, Pipe::Lsu)
        .build()
}

/// `DEPBAR.LE SBn, count{, {set}}`: wait until scoreboard n is at most `count` (and the
/// scoreboards of the set are zero); plain `DEPBAR {set}` waits for the set only.
fn depbar() -> Vec<Form> {
    let set = imm(Role::Other, bits(32, 6), ImmStyle::ScoreboardSet).show(Show::IfNotDefault);
    vec![
        form("DEPBAR", Op::Depbar, 0x91a)
            .ops([
                imm(Role::A, bits(44, 3), ImmStyle::Scoreboard),
                imm(Role::B, bits(38, 6), ImmStyle::Hex),
                set,
            ])
            .mods([modifier(Mod::DepbarLe, 47, 1, &[(1, ".LE")], 1)])
            .timing(L::Disp, Pipe::Misc)
            .build(),
        form("DEPBAR", Op::Depbar, 0x91a)
            .ops([set])
            .mods([modifier(Mod::DepbarLe, 47, 1, &[(0, "")], 0)])
            .timing(L::Disp, Pipe::Misc)
            .build(),
    ]
}
