//! Integer and logic instructions: MOV, IADD3, IMAD family, LEA, LOP3, SHF, ISETP, SEL,
//! IMNMX, PRMT, SGXT, IABS, and the bit-counting ops.

use crate::flag;
use crate::isa::build::*;
use crate::isa::desc::{AliasCond::*, ImmStyle, LatCat as L, Op, Pipe, Role, Show, *};

const SIGNED: ModDesc = modifier("signed", 73, 1, &[(0, ".U32"), (1, "")], 1);
const X: ModDesc = flag!("x", 74, ".X");
const CMP: ModDesc = modifier(
    "cmp",
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
const BOP: ModDesc = modifier("bop", 74, 2, &[(0, ".AND"), (1, ".OR"), (2, ".XOR")], 0);

/// A predicate destination printed only when it is not PT.
fn opt_pd(role: Role, lo: u8) -> OperandDesc {
    pred(role, lo, None, false).show(Show::IfNotDefault)
}

/// Carry-in predicate (bits 87..91) printed when `.X` (modifier `x_index`) is set.
fn carry_in(x_index: u8) -> OperandDesc {
    pred(Role::PredSrc0, 87, Some(90), true).show(Show::IfMod(x_index))
}

/// Negation (or `~` under `.X`) of a register or constant B operand.
fn neg_b(b: OperandDesc) -> OperandDesc {
    match b.kind {
        OpKind::Imm { .. } | OpKind::Ugpr { .. } => b,
        _ => b.neg(63),
    }
}

/// All integer forms.
pub fn forms() -> Vec<Form> {
    let mut v = Vec::new();
    v.extend(mov());
    v.extend(iadd3());
    v.extend(imad());
    v.extend(lea());
    v.extend(lop3());
    v.extend(shf());
    v.extend(isetp());
    v.extend(sel_imnmx());
    v.push(plop3());
    v
}

/// `PLOP3.LUT Pd0, Pd1, Ps0, Ps1, Ps2, lut, lut2`: any function of three predicates.
fn plop3() -> Form {
    form("PLOP3.LUT", Op::Plop3, 0x81c)
        .ops([
            pred(Role::PredDst0, 81, None, false),
            pred(Role::PredDst1, 84, None, false),
            pred(Role::PredSrc0, 87, Some(90), false),
            pred(Role::PredSrc1, 77, Some(80), false),
            pred(Role::PredSrc2, 68, Some(71), false),
            OperandDesc {
                kind: OpKind::ImmSplit {
                    lo: bits(64, 3),
                    hi: bits(72, 5),
                    style: ImmStyle::Hex,
                },
                ..reg(Role::Other, 0)
            },
            imm(Role::Aux, bits(16, 8), ImmStyle::Hex),
        ])
        .fixed(67, 1, 0)
        .build()
}

fn mov() -> Vec<Form> {
    src2_family(
        0x002,
        &[Src2::Reg(1), Src2::Imm(4), Src2::Const(5)],
        ImmStyle::Hex,
        |opc, b| form("MOV", Op::Mov, opc).ops([rd(), b]).fixed(72, 4, 0xf),
    )
}

fn iadd3() -> Vec<Form> {
    let places = [Src3::Rrr, Src3::Rir, Src3::Rcr, Src3::Rur];
    src3_family(0x010, &places, ImmStyle::SignedHex, |opc, _, b, c| {
        form("IADD3", Op::Iadd3, opc)
            .ops([
                rd(),
                opt_pd(Role::PredDst0, 81),
                opt_pd(Role::PredDst1, 84),
                reg(Role::A, RA).neg(72).reuse(0),
                neg_b(b),
                c.neg(75),
                carry_in(0),
                pred(Role::PredSrc1, 77, Some(80), true).show(Show::IfMod(0)),
            ])
            .mods([X])
    })
}

/// IMAD, IMAD.WIDE and IMAD.HI share operands and modifiers.
fn imad() -> Vec<Form> {
    let all = [
        Src3::Rrr,
        Src3::Rri,
        Src3::Rrc,
        Src3::Rir,
        Src3::Rcr,
        Src3::Rur,
        Src3::Rru,
    ];
    let mut v = Vec::new();
    for (mn, op, base, wide_c) in [
        ("IMAD", Op::Imad, 0x024, 1),
        ("IMAD.WIDE", Op::ImadWide, 0x025, 2),
        ("IMAD.HI", Op::ImadHi, 0x027, 2),
    ] {
        v.extend(src3_family(base, &all, ImmStyle::SignedHex, |opc, _, b, c| {
            let dst_width = if op == Op::ImadWide { 2 } else { 1 };
            // Bit 75 negates C only where C sits in the Rc field.
            let c = if matches!(c.kind, OpKind::Gpr { .. }) {
                c.width(wide_c).neg(75)
            } else {
                c
            };
            let f = form(mn, op, opc)
                .ops([
                    rd().width(dst_width),
                    opt_pd(Role::PredDst0, 81),
                    reg(Role::A, RA).reuse(0),
                    b,
                    c,
                    carry_in(1),
                ])
                .mods([SIGNED, X])
                .timing(
                    if op == Op::ImadWide {
                        L::ImadWideUpper
                    } else {
                        L::ImadLo
                    },
                    Pipe::Fma,
                );
            imad_aliases(f, op, opc >> 9)
        }));
    }
    v
}

/// nvdisasm's IMAD aliases (not with `.X`, modifier 1): `.MOV` (A = B = RZ), `.SHL`
/// (B = 2^k, C = RZ), `.IADD` (B = 1).
fn imad_aliases(f: FormBuilder, op: Op, form_bits: u16) -> FormBuilder {
    if op != Op::Imad {
        return f;
    }
    match form_bits {
        1..=3 => f.alias(".MOV", &[(2, IsRz), (3, IsRz), (1, ModIs(0))]),
        4 => f
            .alias(".SHL", &[(3, ImmPow2), (4, IsRz), (1, ModIs(0))])
            .alias(".IADD", &[(3, ImmEq(1)), (1, ModIs(0))]),
        _ => f,
    }
}

fn lea() -> Vec<Form> {
    let places = [Src3::Rrr, Src3::Rir, Src3::Rcr, Src3::Rur];
    src3_family(0x011, &places, ImmStyle::Hex, |opc, _, b, c| {
        form("LEA", Op::Lea, opc)
            .ops([
                rd(),
                opt_pd(Role::PredDst0, 81),
                reg(Role::A, RA).neg(72).reuse(0),
                b,
                c.show(Show::IfMod(0)).default(255),
                imm(Role::Other, bits(75, 5), ImmStyle::Hex),
                carry_in(1),
            ])
            .mods([flag!("hi", 80, ".HI"), X, flag!("sx32", 73, ".SX32")])
    })
}

fn lop3() -> Vec<Form> {
    let places = [Src3::Rrr, Src3::Rir, Src3::Rcr, Src3::Rur];
    src3_family(0x012, &places, ImmStyle::Hex, |opc, _, b, c| {
        form("LOP3.LUT", Op::Lop3, opc)
            .ops([
                opt_pd(Role::PredDst0, 81),
                rd(),
                reg(Role::A, RA).reuse(0),
                b,
                c,
                imm(Role::Other, bits(72, 8), ImmStyle::Hex),
                pred(Role::PredSrc0, 87, Some(90), true),
            ])
            .mods([flag!("pand", 80, ".PAND")])
    })
}

fn shf() -> Vec<Form> {
    let places = [Src3::Rrr, Src3::Rri, Src3::Rrc, Src3::Rir, Src3::Rcr];
    src3_family(0x019, &places, ImmStyle::Hex, |opc, _, b, c| {
        form("SHF", Op::Shf, opc)
            .ops([rd(), reg(Role::A, RA).reuse(0), b, c])
            .mods([
                modifier("right", 76, 1, &[(0, ".L"), (1, ".R")], 0),
                flag!("w", 75, ".W"),
                modifier("type", 73, 2, &[(0, ".S64"), (1, ".U64"), (2, ".S32"), (3, ".U32")], 3),
                flag!("hi", 80, ".HI"),
            ])
    })
}

fn isetp() -> Vec<Form> {
    let places = [Src2::Reg(1), Src2::Imm(4), Src2::Const(5), Src2::Ureg(6)];
    src2_family(0x00c, &places, ImmStyle::SignedHex, |opc, b| {
        form("ISETP", Op::Isetp, opc)
            .ops([
                pred(Role::PredDst0, 81, None, false),
                pred(Role::PredDst1, 84, None, false),
                reg(Role::A, RA).reuse(0),
                b,
                pred(Role::PredSrc0, 87, Some(90), false),
                pred(Role::PredSrc1, 68, Some(71), false).show(Show::IfMod(3)),
            ])
            .mods([CMP, SIGNED, BOP, flag!("ex", 72, ".EX")])
    })
}

fn sel_imnmx() -> Vec<Form> {
    let places = [Src2::Reg(1), Src2::Imm(4), Src2::Const(5)];
    let mut v = src2_family(0x007, &places, ImmStyle::SignedHex, |opc, b| {
        form("SEL", Op::Sel, opc).ops([
            rd(),
            reg(Role::A, RA).reuse(0),
            b,
            pred(Role::PredSrc0, 87, Some(90), false),
        ])
    });
    v.extend(src2_family(0x017, &places, ImmStyle::SignedHex, |opc, b| {
        form("IMNMX", Op::Imnmx, opc)
            .ops([
                rd(),
                reg(Role::A, RA).reuse(0),
                b,
                pred(Role::PredSrc0, 87, Some(90), false),
            ])
            .mods([SIGNED])
    }));
    v
}
