//! Single-precision float instructions: FADD, FMUL, FFMA, FSETP, FMNMX, FSEL, FCHK, MUFU.

use super::common::*;
use crate::isa::build::*;
use crate::isa::desc::{ImmStyle, LatCat as L, OpKind, Pipe, Role, *};

/// FADD's placements (B always in bits 32..64; the uniform form is 0xexx).
const FADD_PLACES: [Src2; 4] = [Src2::Reg(1), Src2::Imm(2), Src2::Const(3), Src2::Ureg(7)];

/// FMUL scale factors (bits 84..87; 4 = none).
const SCALE: ModDesc = modifier(
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
);

/// All single-precision forms.
pub fn forms() -> Vec<Form> {
    let mut v = Vec::new();
    let fma = |f: FormBuilder| f.timing(L::Fma, Pipe::Fma);
    v.extend(src2_family(0x021, &FADD_PLACES, ImmStyle::F32, |opc, b| {
        fma(form("FADD", Op::Fadd, opc)
            .ops([rd(), fa(), cslot(fneg_abs_b(b))])
            .mods([FTZ, RND, SAT]))
    }));
    v.extend(src2_family(0x020, &SRC2_RICU, ImmStyle::F32, |opc, b| {
        fma(form("FMUL", Op::Fmul, opc)
            .ops([rd(), fa(), fneg_abs_b(b)])
            .mods([FTZ, FMZ, RND, SAT, SCALE]))
    }));
    v.extend(src3_family(0x023, &ALL_SRC3, ImmStyle::F32, |opc, _, b, c| {
        let (b, c) = float_slot_mods(b, c);
        fma(form("FFMA", Op::Ffma, opc)
            .ops([rd(), fa(), uniform_mods(b), uniform_mods(c)])
            .mods([FTZ, FMZ, RND, SAT]))
    }));
    v.extend(src2_family(0x00b, &SRC2_RICU, ImmStyle::F32, |opc, b| {
        form("FSETP", Op::Fsetp, opc)
            .ops([
                pred(Role::PredDst0, 81, None, false),
                pred(Role::PredDst1, 84, None, false),
                fa(),
                fneg_abs_b(b),
                ps87(),
            ])
            .mods([FCMP, FTZ, BOP])
    }));
    v.extend(src2_family(0x009, &SRC2_RICU, ImmStyle::F32, |opc, b| {
        form("FMNMX", Op::Fmnmx, opc)
            .ops([rd(), fa(), fneg_abs_b(b), ps87()])
            .mods([FTZ])
    }));
    v.extend(src2_family(0x008, &SRC2_RICU, ImmStyle::F32, |opc, b| {
        form("FSEL", Op::Fsel, opc)
            .ops([rd(), fa(), fneg_abs_b(b), ps87()])
            .mods([FTZ])
    }));
    v.extend(src2_family(0x102, &SRC2_RICU, ImmStyle::F32, |opc, b| {
        form("FCHK", Op::Fchk, opc)
            .ops([pred(Role::PredDst0, 81, None, false), fa(), fneg_abs_b(b)])
            .timing(L::Decoupled, Pipe::Mufu)
    }));
    v.extend(mufu());
    v
}

/// A uniform register in the B or C slot of FFMA takes negation 63 and absolute value 62.
fn uniform_mods(o: OperandDesc) -> OperandDesc {
    match o.kind {
        OpKind::Ugpr { .. } => o.neg(63).abs(62),
        _ => o,
    }
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
/// Half-precision results (bit 73), not with the 64H functions.
const MUFU_F16: ModDesc = crate::flag!("f16", 73, ".F16");

fn mufu() -> Vec<Form> {
    let mut v = Vec::new();
    for (func, style) in [(MUFU_F32, ImmStyle::F32), (MUFU_F64H, ImmStyle::F64Hi)] {
        v.extend(src2_family(0x108, &SRC2_RICU, style, |opc, b| {
            let f16 = if func.default == 6 {
                modifier("f16", 73, 1, &[(0, "")], 0)
            } else {
                MUFU_F16
            };
            form("MUFU", Op::Mufu, opc)
                .ops([rd(), fneg_abs_b(b)])
                .mods([func, f16])
                .timing(L::Decoupled, Pipe::Mufu)
        }));
    }
    v
}
