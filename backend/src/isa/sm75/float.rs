//! Single-precision float instructions: FADD, FMUL, FFMA, FSETP, FMNMX, FSEL, MUFU.

use crate::flag;
use crate::isa::build::*;
use crate::isa::desc::{ImmStyle, LatCat as L, Op, Pipe, Role, *};

const FTZ: ModDesc = flag!("ftz", 80, ".FTZ");
const SAT: ModDesc = flag!("sat", 77, ".SAT");
const RND: ModDesc = modifier("rnd", 78, 2, &[(0, ""), (1, ".RM"), (2, ".RP"), (3, ".RZ")], 0);
const FMZ: ModDesc = flag!("fmz", 76, ".FMZ");
/// FSETP comparisons (bits 76..80).
pub const FCMP: ModDesc = modifier(
    "cmp",
    76,
    4,
    &[
        (0, ".F"),
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
        (15, ".T"),
    ],
    0,
);
const BOP: ModDesc = modifier("bop", 74, 2, &[(0, ".AND"), (1, ".OR"), (2, ".XOR")], 0);

/// Float source A with negation and absolute value.
fn fa() -> OperandDesc {
    reg(Role::A, RA).neg(72).abs(73).reuse(0)
}

/// Float source B with negation/absolute bits unless it is an immediate.
fn fb(b: OperandDesc) -> OperandDesc {
    match b.kind {
        OpKind::Imm { .. } | OpKind::Ugpr { .. } => b,
        _ => b.neg(63).abs(62),
    }
}

/// All single-precision forms.
pub fn forms() -> Vec<Form> {
    let mut v = Vec::new();
    let fma = |f: FormBuilder| f.timing(L::Fma, Pipe::Fma);
    v.extend(src2_family(
        0x021,
        &[Src2::Reg(1), Src2::Imm(2), Src2::Const(3)],
        ImmStyle::F32,
        |opc, b| {
            fma(form("FADD", Op::Fadd, opc)
                .ops([rd(), fa(), fb(b)])
                .mods([FTZ, RND, SAT]))
        },
    ));
    v.extend(src2_family(
        0x020,
        &[Src2::Reg(1), Src2::Imm(4), Src2::Const(5)],
        ImmStyle::F32,
        |opc, b| {
            fma(form("FMUL", Op::Fmul, opc).ops([rd(), fa(), fb(b)]).mods([
                FTZ,
                FMZ,
                RND,
                SAT,
                modifier(
                    "scale",
                    84,
                    3,
                    &[
                        (0, ".D8"),
                        (1, ".D4"),
                        (2, ".D2"),
                        (4, ""),
                        (5, ".M2"),
                        (6, ".M4"),
                        (7, ".M8"),
                    ],
                    4,
                ),
            ]))
        },
    ));
    let places = [Src3::Rrr, Src3::Rri, Src3::Rrc, Src3::Rir, Src3::Rcr];
    v.extend(src3_family(0x023, &places, ImmStyle::F32, |opc, _, b, c| {
        let (b, c) = float_slot_mods(b, c);
        fma(form("FFMA", Op::Ffma, opc)
            .ops([rd(), fa(), b, c])
            .mods([FTZ, FMZ, RND, SAT]))
    }));
    let two = [Src2::Reg(1), Src2::Imm(4), Src2::Const(5)];
    v.extend(src2_family(0x00b, &two, ImmStyle::F32, |opc, b| {
        form("FSETP", Op::Fsetp, opc)
            .ops([
                pred(Role::PredDst0, 81, None, false),
                pred(Role::PredDst1, 84, None, false),
                fa(),
                fb(b),
                pred(Role::PredSrc0, 87, Some(90), false),
            ])
            .mods([FCMP, FTZ, BOP])
    }));
    v.extend(src2_family(0x009, &two, ImmStyle::F32, |opc, b| {
        form("FMNMX", Op::Fmnmx, opc)
            .ops([rd(), fa(), fb(b), pred(Role::PredSrc0, 87, Some(90), false)])
            .mods([FTZ])
    }));
    v.extend(src2_family(0x008, &two, ImmStyle::F32, |opc, b| {
        form("FSEL", Op::Fsel, opc).ops([
            rd(),
            reg(Role::A, RA).reuse(0),
            b,
            pred(Role::PredSrc0, 87, Some(90), false),
        ])
    }));
    v.extend(mufu());
    v
}

/// MUFU functions with a 32-bit operand; an immediate is an f32.
const MUFU_F32: ModDesc = modifier(
    "func",
    74,
    4,
    &[
        (0, ".COS"),
        (1, ".SIN"),
        (2, ".EX2"),
        (3, ".LG2"),
        (4, ".RCP"),
        (5, ".RSQ"),
        (8, ".SQRT"),
        (9, ".TANH"),
    ],
    4,
);
/// MUFU functions on the upper half of an f64; an immediate is that upper half.
const MUFU_F64H: ModDesc = modifier("func", 74, 4, &[(6, ".RCP64H"), (7, ".RSQ64H")], 6);

fn mufu() -> Vec<Form> {
    let places = [Src2::Reg(1), Src2::Imm(4), Src2::Const(5)];
    let mut v = Vec::new();
    for (func, style) in [(MUFU_F32, ImmStyle::F32), (MUFU_F64H, ImmStyle::F64Hi)] {
        v.extend(src2_family(0x108, &places, style, |opc, b| {
            let b = match b.kind {
                OpKind::Imm { .. } => b,
                _ => b.neg(63).abs(62),
            };
            form("MUFU", Op::Mufu, opc)
                .ops([rd(), b])
                .mods([func])
                .timing(L::Decoupled, Pipe::Mufu)
        }));
    }
    v
}
