//! Packed half-precision instructions (two f16 lanes per register): HADD2, HMUL2, HFMA2,
//! HSET2, HSETP2. Every register source has a lane swizzle (`.H0_H0`, `.H1_H1`, `.F32`); an
//! immediate is two f16 values, high half first.

use super::common::*;
use crate::flag;
use crate::isa::build::*;
use crate::isa::desc::{ImmStyle, LatCat as L, OpKind, Pipe, Role, *};

/// Lane selection of a source: both lanes as they are (nothing printed), an f32 read as
/// both lanes, or one lane broadcast.
const SWIZZLE: &[(u16, &str)] = &[(0, ""), (1, ".F32"), (2, ".H0_H0"), (3, ".H1_H1")];

/// Register A: swizzle 74..76, negation 72, absolute value 73.
pub(crate) fn ha() -> OperandDesc {
    fa().suffix(suffix(74, 2, SWIZZLE))
}

/// An operand's modifiers by its slot: bits 32..64 (swizzle 60, abs 62, neg 63) or the Rc
/// field (swizzle 81, abs 83, neg 84); immediates take none.
pub(crate) fn slot(o: OperandDesc) -> OperandDesc {
    match o.kind {
        OpKind::Imm { .. } => o,
        OpKind::Gpr { field, .. } if field.lo == RC => o.suffix(suffix(81, 2, SWIZZLE)).abs(83).neg(84),
        _ => o.suffix(suffix(60, 2, SWIZZLE)).abs(62).neg(63),
    }
}

/// `.F32` result (bit 78).
const F32: ModDesc = flag!(Mod::HalfF32, 78, ".F32");
/// Flush mode of the multiplying instructions: bits 76 (`.FMZ`) and 80 (`.FTZ`).
const FMZ_FTZ: ModDesc = split_modifier(
    Mod::Fmz,
    bits(76, 1),
    bits(80, 1),
    &[(0, ""), (1, ".FMZ"), (2, ".FTZ")],
    0,
);
/// The C-slot placements (B stays in bits 32..64; uniform form 0xexx).
const CSLOT: [Src2; 4] = [Src2::Reg(1), Src2::Imm(2), Src2::Const(3), Src2::Ureg(7)];

/// All half-precision forms.
pub fn forms() -> Vec<Form> {
    let fp16 = |f: FormBuilder| f.timing(L::Fp16, Pipe::Fp16);
    let mut v = Vec::new();
    v.extend(src2_family(0x030, &CSLOT, ImmStyle::F16x2, |opc, b| {
        fp16(
            form("HADD2", Op::Hadd2, opc)
                .ops([rd(), ha(), cslot(slot(b))])
                .mods([F32, FTZ, SAT]),
        )
    }));
    v.extend(src2_family(0x032, &SRC2_RICU, ImmStyle::F16x2, |opc, b| {
        fp16(
            form("HMUL2", Op::Hmul2, opc)
                .ops([rd(), ha(), slot(b)])
                .mods([F32, FMZ_FTZ, SAT]),
        )
    }));
    v.extend(src3_family(0x031, &ALL_SRC3, ImmStyle::F16x2, |opc, _, b, c| {
        fp16(
            form("HFMA2", Op::Hfma2, opc)
                .ops([rd(), ha(), slot(b), slot(c)])
                .mods([F32, FMZ_FTZ, SAT]),
        )
    }));
    let bop = modifier(Mod::BoolOp, 69, 2, &[(0, ".AND"), (1, ".OR"), (2, ".XOR")], 0);
    v.extend(src2_family(0x033, &CSLOT, ImmStyle::F16x2, |opc, b| {
        fp16(
            form("HSET2", Op::Hset2, opc)
                .ops([rd(), ha(), cslot(slot(b)), ps87()])
                .mods([flag!(Mod::BoolFloat, 71, ".BF"), FCMP, FTZ, bop]),
        )
    }));
    v.extend(src2_family(0x034, &CSLOT, ImmStyle::F16x2, |opc, b| {
        fp16(
            form("HSETP2", Op::Hsetp2, opc)
                .ops([
                    pred(Role::PredDst0, 81, None, false),
                    pred(Role::PredDst1, 84, None, false),
                    ha(),
                    cslot(slot(b)),
                    ps87(),
                ])
                .mods([FCMP, flag!(Mod::HalfAnd, 71, ".H_AND"), FTZ, bop]),
        )
    }));
    v
}
