//! Double-precision instructions: DADD, DMUL, DFMA, DSETP. Every source and the result are
//! register pairs; an immediate is the upper half of an f64. On Turing they are variable
//! latency (a write scoreboard) on the FP64 pipe.

use super::common::*;
use crate::isa::build::*;
use crate::isa::desc::{ImmStyle, LatCat as L, OpKind, Pipe, Role, *};

/// All double-precision forms.
pub fn forms() -> Vec<Form> {
    let fp64 = |f: FormBuilder| f.timing(L::Fp64, Pipe::Fp64);
    let mut v = Vec::new();
    // DADD keeps a register B in the Rc field (abs 74, neg 75).
    let dadd_places = [Src2::RegInC(1), Src2::Imm(2), Src2::Const(3), Src2::Ureg(7)];
    v.extend(src2_family(0x029, &dadd_places, ImmStyle::F64Hi, |opc, b| {
        let b = match b.kind {
            OpKind::Gpr { .. } => b.abs(74).neg(75),
            _ => fneg_abs_b(b),
        };
        fp64(
            form("DADD", Op::Dadd, opc)
                .ops([rd().width(2), pair(fa()), pair(cslot(b))])
                .mods([RND]),
        )
    }));
    v.extend(src2_family(0x028, &SRC2_RICU, ImmStyle::F64Hi, |opc, b| {
        fp64(
            form("DMUL", Op::Dmul, opc)
                .ops([rd().width(2), pair(fa()), pair(fneg_abs_b(b))])
                .mods([RND]),
        )
    }));
    v.extend(src3_family(0x02b, &ALL_SRC3, ImmStyle::F64Hi, |opc, _, b, c| {
        let (b, c) = float_slot_mods(b, c);
        let uniform = |o: OperandDesc| match o.kind {
            OpKind::Ugpr { .. } => o.neg(63).abs(62),
            _ => o,
        };
        fp64(
            form("DFMA", Op::Dfma, opc)
                .ops([rd().width(2), pair(fa()), pair(uniform(b)), pair(uniform(c))])
                .mods([RND]),
        )
    }));
    let dsetp_places = [Src2::Reg(1), Src2::Imm(2), Src2::Const(3), Src2::Ureg(7)];
    v.extend(src2_family(0x02a, &dsetp_places, ImmStyle::F64Hi, |opc, b| {
        fp64(
            form("DSETP", Op::Dsetp, opc)
                .ops([
                    pred(Role::PredDst0, 81, None, false),
                    pred(Role::PredDst1, 84, None, false),
                    pair(fa()),
                    pair(cslot(fneg_abs_b(b))),
                    ps87(),
                ])
                .mods([DCMP, BOP]),
        )
    }));
    v
}

/// DSETP comparisons: as FSETP's, with MIN and MAX in place of F and T.
const DCMP: ModDesc = modifier(
    Mod::DoubleCmp,
    76,
    4,
    &[
        (0, ".MIN"),
        (1, ".LT"),
        (2, ".EQ"),
        (3, ".LE"),
        (4, ".GT"),
        (5, ".NE"),
        (6, ".GE"),
        (7, ".NUM"),
        (8, ".NAN"),
        (9, ".LTU"),
        (10, ".EQU"),
        (11, ".LEU"),
        (12, ".GTU"),
        (13, ".NEU"),
        (14, ".GEU"),
        (15, ".MAX"),
    ],
    0,
);

/// Register operands of FP64 instructions are pairs.
fn pair(o: OperandDesc) -> OperandDesc {
    o.width(2)
}
