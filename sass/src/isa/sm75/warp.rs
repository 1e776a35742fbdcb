//! Warp-level instructions: SHFL (variable latency), VOTE / VOTEU (fixed latency) and MATCH.

use super::common::*;
use crate::isa::build::*;
use crate::isa::desc::{ImmStyle, LatCat as L, Pipe, Role, *};

/// VOTE and VOTEU modes (bits 72..74).
const VOTE_MODE: ModDesc = modifier(Mod::VoteMode, 72, 2, &[(0, ".ALL"), (1, ".ANY"), (2, ".EQ")], 1);

/// All warp-level forms.
pub fn forms() -> Vec<Form> {
    let mut v = shfl();
    v.push(
        form("VOTE", Op::Vote, 0x806)
            // nvdisasm leaves out a destination of RZ (`VOTE.ANY P0, P1`).
            .ops([
                rd().default(255).show(Show::IfNotDefault),
                pred(Role::PredDst0, 81, None, false),
                ps87(),
            ])
            .mods([VOTE_MODE])
            .timing(L::Disp, Pipe::Alu)
            .build(),
    );
    v.push(
        form("VOTEU", Op::Voteu, 0x886)
            // nvdisasm leaves out a destination of URZ (`VOTEU.ALL UP0, P0`, on every
            // architecture from sm_75 to sm_90).
            .ops([
                urd().default(63).show(Show::IfNotDefault),
                upred(Role::PredDst0, 81, None, false),
                ps87(),
            ])
            .mods([VOTE_MODE])
            .timing(L::Disp, Pipe::Uniform)
            .build(),
    );
    v.extend(matches());
    v
}

/// `SHFL.mode Pd, Rd, Ra, lane, clamp` with the lane and the clamp each in a register or
/// an immediate (opcodes 0x389, 0x589, 0x989, 0xf89).
fn shfl() -> Vec<Form> {
    let lane_r = reg(Role::B, RB);
    let lane_i = imm(Role::B, bits(53, 5), ImmStyle::Hex);
    let clamp_r = reg(Role::C, RC);
    let clamp_i = imm(Role::C, bits(40, 13), ImmStyle::Hex);
    [
        (0x389, lane_r, clamp_r),
        (0x589, lane_r, clamp_i),
        (0x989, lane_i, clamp_r),
        (0xf89, lane_i, clamp_i),
    ]
    .into_iter()
    .map(|(opc, lane, clamp)| {
        form("SHFL", Op::Shfl, opc)
            .ops([
                pred(Role::PredDst0, 81, None, false),
                rd(),
                reg(Role::A, RA),
                lane,
                clamp,
            ])
            .mods([modifier(
                Mod::ShflMode,
                58,
                2,
                &[(0, ".IDX"), (1, ".UP"), (2, ".DOWN"), (3, ".BFLY")],
                0,
            )])
            .timing(L::Decoupled, Pipe::Lsu)
            .build()
    })
    .collect()
}

/// `MATCH.ANY Rd, Ra` and `MATCH.ALL Pd, Rd, Ra` (`.U64`: Ra is a pair).
fn matches() -> Vec<Form> {
    const ANY: ModDesc = modifier(Mod::MatchMode, 79, 1, &[(1, ".ANY")], 1);
    const ALL: ModDesc = modifier(Mod::MatchMode, 79, 1, &[(0, ".ALL")], 0);
    const U32: ModDesc = modifier(Mod::Match64, 73, 1, &[(0, "")], 0);
    const U64: ModDesc = modifier(Mod::Match64, 73, 1, &[(1, ".U64")], 1);
    let mut v = Vec::new();
    for (mode, pd) in [(ANY, None), (ALL, Some(pred(Role::PredDst0, 81, None, false)))] {
        for (width, ty) in [(1, U32), (2, U64)] {
            let f = form("MATCH", Op::Match, 0x3a1)
                .ops(pd)
                .ops([rd(), reg(Role::A, RA).width(width)])
                .mods([mode, ty])
                .timing(L::Decoupled, Pipe::Lsu);
            v.push(if pd.is_none() { f.fixed(81, 3, 7) } else { f }.build());
        }
    }
    v
}
