//! Modifiers and operand shapes shared by several instruction families.

use crate::flag;
use crate::isa::build::*;
use crate::isa::desc::{ImmStyle, ModDesc, OpKind, OperandDesc, Role, Show};

/// `.U32` when clear (bit 73): IMAD, ISETP, IMNMX, SGXT, FLO.
pub const SIGNED: ModDesc = modifier(Mod::Signed, 73, 1, &[(0, ".U32"), (1, "")], 1);
/// `.X`: use the carry-in predicate.
pub const X: ModDesc = flag!(Mod::X, 74, ".X");
/// `.FTZ` (bit 80).
pub const FTZ: ModDesc = flag!(Mod::Ftz, 80, ".FTZ");
/// `.SAT` (bit 77).
pub const SAT: ModDesc = flag!(Mod::Sat, 77, ".SAT");
/// `.FMZ` (bit 76).
pub const FMZ: ModDesc = flag!(Mod::Fmz, 76, ".FMZ");
/// IEEE rounding of float arithmetic (bits 78..80; RN prints nothing).
pub const RND: ModDesc = modifier(Mod::Rnd, 78, 2, &[(0, ""), (1, ".RM"), (2, ".RP"), (3, ".RZ")], 0);
/// Predicate combination of the compare instructions (bits 74..76).
pub const BOP: ModDesc = modifier(Mod::BoolOp, 74, 2, &[(0, ".AND"), (1, ".OR"), (2, ".XOR")], 0);
/// Integer comparisons (bits 76..79).
pub const ICMP: ModDesc = modifier(
    Mod::IntCmp,
    76,
    3,
    &[
        (0, ".F"),
        (1, ".LT"),
        (2, ".EQ"),
        (3, ".LE"),
        (4, ".GT"),
        (5, ".NE"),
        (6, ".GE"),
        (7, ".T"),
    ],
    0,
);
/// Float comparison spellings (FSETP, HSET2, HSETP2; 4 bits).
pub const FCMP_VALUES: &[(u16, &str)] = &[
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
];
/// Float comparisons at bits 76..80.
pub const FCMP: ModDesc = modifier(Mod::FloatCmp, 76, 4, FCMP_VALUES, 0);

/// A predicate destination printed only when it is not PT.
pub fn opt_pd(role: Role, lo: u8) -> OperandDesc {
    pred(role, lo, None, false).show(Show::IfNotDefault)
}

/// A uniform predicate destination printed only when it is not UPT.
pub fn opt_upd(role: Role, lo: u8) -> OperandDesc {
    upred(role, lo, None, false).show(Show::IfNotDefault)
}

/// Carry-in predicate (bits 87..91, default !PT) printed when `.X` (modifier `x_index`) is set.
pub fn carry_in(x_index: u8) -> OperandDesc {
    pred(Role::PredSrc0, 87, Some(90), true).show(Show::IfMod(x_index))
}

/// The predicate source at bits 87..91 (default PT), always printed.
pub fn ps87() -> OperandDesc {
    pred(Role::PredSrc0, 87, Some(90), false)
}

/// Negation bit 63 of an operand in bits 32..64 (register B, constant or uniform register);
/// immediates take none.
pub fn neg63(o: OperandDesc) -> OperandDesc {
    match o.kind {
        OpKind::Imm { .. } => o,
        _ => o.neg(63),
    }
}

/// Negation and absolute value (bits 63 and 62) of a float operand in bits 32..64
/// (register, constant or uniform register; immediates take none).
pub fn fneg_abs_b(o: OperandDesc) -> OperandDesc {
    match o.kind {
        OpKind::Imm { .. } => o,
        _ => o.neg(63).abs(62),
    }
}

/// Float source A with negation (72) and absolute value (73).
pub fn fa() -> OperandDesc {
    reg(Role::A, RA).neg(72).abs(73).reuse(0)
}

/// The second source of the "C-slot" two-source forms (FADD, DADD, DSETP, HADD2, HSET2,
/// HSETP2) uses the reuse flag of operand C.
pub fn cslot(o: OperandDesc) -> OperandDesc {
    match o.kind {
        OpKind::Gpr { .. } => o.reuse(2),
        _ => o,
    }
}

/// The operand without a reuse slot (the MIO instructions print no `.reuse`).
pub fn no_reuse(mut o: OperandDesc) -> OperandDesc {
    o.reuse = None;
    o
}

/// A half-precision source of a conversion or MUFU: `.H1` (bit 60) selects the upper half;
/// an immediate is one f16 in bits 32..48.
pub fn f16_source(b: OperandDesc) -> OperandDesc {
    const HALF: &[(u16, &str)] = &[(0, ""), (1, ".H1")];
    match b.kind {
        OpKind::Imm { .. } => imm(b.role, bits(32, 16), ImmStyle::F16),
        _ => b.suffix(suffix(60, 1, HALF)),
    }
}

/// An 8-bit hexadecimal immediate (LUTs).
pub fn lut(lo: u8) -> OperandDesc {
    imm(Role::Other, bits(lo, 8), ImmStyle::Hex)
}
