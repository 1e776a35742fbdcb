//! Single-precision float instructions: FADD, FMUL, FFMA, FSETP, FSET, FMNMX, FSEL, FCHK, MUFU.

use super::common::*;
use crate::isa::build::*;
use crate::isa::desc::{ImmStyle, LatCat as L, OpKind, Pipe, Role, *};

/// FADD's placements (B always in bits 32..64; the uniform form is 0xexx).
const FADD_PLACES: [Src2; 4] = [Src2::Reg(1), Src2::Imm(2), Src2::Const(3), Src2::Ureg(7)];

/// FMUL scale factors (bits 84..87; 4 = none, 0 is illegal).
const SCALE: ModDesc = modifier(
    Mod::FmulScale,
    84,
    3,
    &[
        (1, ".D8"),
        (2, ".D4"),
        (3, ".D2"),
        (4, ""),
        (5, ".M2"),
        (6, ".M4"),
        (7, ".M8"),
    ],
    4,
);

/// `.FTZ` and `.FMZ` exclude each other (nvdisasm: `INVALID3`).
const FTZ_WITH_FMZ: &[(u8, bool)] = &[(76, true), (80, true)];

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
            .mods([FTZ, FMZ, SCALE, RND, SAT])
            .invalid_when(FTZ_WITH_FMZ))
    }));
    v.extend(src3_family(0x023, &ALL_SRC3, ImmStyle::F32, |opc, _, b, c| {
        let (b, c) = float_slot_mods(b, c);
        fma(form("FFMA", Op::Ffma, opc)
            .ops([rd(), fa(), uniform_mods(b), uniform_mods(c)])
            .mods([FTZ, FMZ, RND, SAT])
            .invalid_when(FTZ_WITH_FMZ))
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
    // FSET always writes 1.0 or 0.0 on sm_75 (no bit selects `.BF`).
    v.extend(src2_family(0x00a, &SRC2_RICU, ImmStyle::F32, |opc, b| {
        form("FSET", Op::Fset, opc)
            .ops([rd(), fa(), fneg_abs_b(b), ps87()])
            .mods([modifier(Mod::BoolFloat, 0, 0, &[(1, ".BF")], 1), FCMP, FTZ, BOP])
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
            .ops([
                pred(Role::PredDst0, 81, None, false),
                no_reuse(fa()),
                no_reuse(fneg_abs_b(b)),
            ])
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

/// MUFU functions (bits 74..78); 6 and 7 take the upper half of an f64 and have no
/// half-precision variant.
const MUFU_FUNCS: &[(u16, &str)] = &[
    (0, ".COS"),
    (1, ".SIN"),
    (2, ".EX2"),
    (3, ".LG2"),
    (4, ".RCP"),
    (5, ".RSQ"),
    (6, ".RCP64H"),
    (7, ".RSQ64H"),
    (8, ".SQRT"),
    (9, ".TANH"),
];

/// MUFU in three families: f32 functions (an immediate is an f32), the 64H functions (an
/// immediate is the upper half of an f64) and `.F16` (a half-precision source).
fn mufu() -> Vec<Form> {
    const F32_FUNCS: &[(u16, &str)] = &[
        MUFU_FUNCS[0],
        MUFU_FUNCS[1],
        MUFU_FUNCS[2],
        MUFU_FUNCS[3],
        MUFU_FUNCS[4],
        MUFU_FUNCS[5],
        MUFU_FUNCS[8],
        MUFU_FUNCS[9],
    ];
    let f32_funcs = modifier(Mod::MufuFunc, 74, 4, F32_FUNCS, 4);
    let f64h_funcs = modifier(Mod::MufuFunc, 74, 4, &MUFU_FUNCS[6..8], 6);
    let f32 = modifier(Mod::MufuF16, 73, 1, &[(0, "")], 0);
    let f16 = modifier(Mod::MufuF16, 73, 1, &[(1, ".F16")], 1);
    let mut v = Vec::new();
    for (func, prec, style) in [
        (f32_funcs, f32, ImmStyle::F32),
        (f64h_funcs, f32, ImmStyle::F64Hi),
        (f32_funcs, f16, ImmStyle::F32),
    ] {
        v.extend(src2_family(0x108, &SRC2_RICU, style, |opc, b| {
            let src = no_reuse(fneg_abs_b(b));
            let src = if prec.default == 1 { f16_source(src) } else { src };
            form("MUFU", Op::Mufu, opc)
                .ops([rd(), src])
                .mods([func, prec])
                .timing(L::Decoupled, Pipe::Mufu)
        }));
    }
    v
}
