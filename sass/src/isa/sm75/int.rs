//! Integer ALU instructions: MOV, IADD3, LEA, LOP3, SHF, ISETP, SEL, IMNMX, IABS, PRMT,
//! SGXT, BMSK, PLOP3, P2R, R2P, VABSDIFF.

use super::common::*;
use crate::flag;
use crate::isa::build::*;
use crate::isa::desc::{ImmStyle, OpKind, Role, Show, *};

const REG_IMM_CONST: [Src2; 3] = [Src2::Reg(1), Src2::Imm(4), Src2::Const(5)];
const SRC3_RICU: [Src3; 4] = [Src3::Rrr, Src3::Rir, Src3::Rcr, Src3::Rur];

/// All integer ALU forms.
pub fn forms() -> Vec<Form> {
    let mut v = Vec::new();
    v.extend(mov());
    v.extend(iadd3());
    v.extend(lea());
    v.extend(lop3());
    v.extend(shf());
    v.extend(isetp());
    v.extend(sel_imnmx());
    v.extend(unary_and_bitfield());
    v.extend(plop3());
    v.extend(p2r_r2p());
    v.extend(vabsdiff());
    v
}

/// `VABSDIFF Rd, Pd, A, B, C`: |A - B| + C (ptxas's `sad`); `.U32` (bit 73 clear) compares
/// unsigned. Every placement of B and C.
fn vabsdiff() -> Vec<Form> {
    src3_family(0x014, &ALL_SRC3, ImmStyle::Hex, |opc, _, b, c| {
        form("VABSDIFF", Op::Vabsdiff, opc)
            .ops([rd(), opt_pd(Role::PredDst0, 81), reg(Role::A, RA).reuse(0), b, c])
            .mods([SIGNED])
    })
}

fn mov() -> Vec<Form> {
    // The lane mask (bits 72..76) is printed only when it is not 0xf.
    src2_family(0x002, &SRC2_RICU, ImmStyle::Hex, |opc, b| {
        form("MOV", Op::Mov, opc).ops([
            rd(),
            b,
            imm(Role::Other, bits(72, 4), ImmStyle::Hex)
                .show(Show::IfNotDefault)
                .default(0xf),
        ])
    })
}

fn iadd3() -> Vec<Form> {
    src3_family(0x010, &SRC3_RICU, ImmStyle::SignedHex, |opc, _, b, c| {
        form("IADD3", Op::Iadd3, opc)
            .ops([
                rd(),
                opt_pd(Role::PredDst0, 81),
                opt_pd(Role::PredDst1, 84),
                reg(Role::A, RA).neg(72).reuse(0),
                neg63(b),
                c.neg(75),
                carry_in(0),
                pred(Role::PredSrc1, 77, Some(80), true).show(Show::IfMod(0)),
            ])
            .mods([X])
            .not_under_x()
    })
}

fn lea() -> Vec<Form> {
    // With .SX32 (only legal with .HI) the high-word register is not an operand. The high
    // word may also be an immediate, then only with .HI (0x411: ptxas's `LEA.HI R7, R3, R0,
    // 0x1, 0x1f`, difftest seed 2105668; nvdisasm rejects 0x411 without .HI, and 0x611 and
    // 0xe11 at all).
    let variants: [(bool, &[Src3]); 3] = [(false, &SRC3_RICU), (false, &[Src3::Rri]), (true, &SRC3_RICU)];
    let mut v = Vec::new();
    for (sx32, places) in variants {
        let hi_only = sx32 || places == [Src3::Rri];
        v.extend(src3_family(0x011, places, ImmStyle::Hex, |opc, _, b, c| {
            let hi = if hi_only {
                modifier(Mod::Hi, 80, 1, &[(1, ".HI")], 1)
            } else {
                flag!(Mod::Hi, 80, ".HI")
            };
            let c = (!sx32).then(|| c.show(Show::IfMod(0)).default(255));
            let sx = modifier(
                Mod::Sx32,
                73,
                1,
                if sx32 { &[(1, ".SX32")] } else { &[(0, "")] },
                sx32 as u16,
            );
            let f = form("LEA", Op::Lea, opc)
                .ops([
                    rd(),
                    opt_pd(Role::PredDst0, 81),
                    reg(Role::A, RA).neg(72).reuse(0),
                    // Bit 63 belongs to the immediate high word in 0x411: B has no `-` there.
                    if hi_only && !sx32 { b } else { neg63(b) },
                ])
                .ops(c)
                .ops([imm(Role::Other, bits(75, 5), ImmStyle::Hex), carry_in(1)])
                .mods([hi, X, sx])
                .not_under_x();
            if sx32 { f.fixed(RC, 8, 0xff) } else { f }
        }));
    }
    v
}

fn lop3() -> Vec<Form> {
    src3_family(0x012, &SRC3_RICU, ImmStyle::Hex, |opc, _, b, c| {
        form("LOP3.LUT", Op::Lop3, opc)
            .ops([
                opt_pd(Role::PredDst0, 81),
                rd(),
                reg(Role::A, RA).reuse(0),
                b,
                c,
                lut(72),
                pred(Role::PredSrc0, 87, Some(90), true),
            ])
            .mods([flag!(Mod::Pand, 80, ".PAND")])
    })
}

fn shf() -> Vec<Form> {
    // 0xe19 (C a uniform register): ptxas's `SHF.L.U32.HI R39, R12, R15, UR4`.
    src3_family(0x019, &ALL_SRC3, ImmStyle::Hex, |opc, _, b, c| {
        form("SHF", Op::Shf, opc)
            .ops([rd(), reg(Role::A, RA).reuse(0), b, c])
            .mods([
                modifier(Mod::Right, 76, 1, &[(0, ".L"), (1, ".R")], 0),
                flag!(Mod::Wrap, 75, ".W"),
                modifier(
                    Mod::ShfType,
                    73,
                    2,
                    &[(0, ".S64"), (1, ".U64"), (2, ".S32"), (3, ".U32")],
                    3,
                ),
                flag!(Mod::Hi, 80, ".HI"),
            ])
    })
}

fn isetp() -> Vec<Form> {
    src2_family(0x00c, &SRC2_RICU, ImmStyle::SignedHex, |opc, b| {
        form("ISETP", Op::Isetp, opc)
            .ops([
                pred(Role::PredDst0, 81, None, false),
                pred(Role::PredDst1, 84, None, false),
                reg(Role::A, RA).reuse(0),
                b,
                ps87(),
                pred(Role::PredSrc1, 68, Some(71), false).show(Show::IfModOrNotDefault(3)),
            ])
            .mods([ICMP, SIGNED, BOP, flag!(Mod::Ex, 72, ".EX")])
    })
}

fn sel_imnmx() -> Vec<Form> {
    let mut v = src2_family(0x007, &SRC2_RICU, ImmStyle::Hex, |opc, b| {
        form("SEL", Op::Sel, opc).ops([rd(), reg(Role::A, RA).reuse(0), b, ps87()])
    });
    v.extend(src2_family(0x017, &SRC2_RICU, ImmStyle::SignedHex, |opc, b| {
        form("IMNMX", Op::Imnmx, opc)
            .ops([rd(), reg(Role::A, RA).reuse(0), b, ps87()])
            .mods([SIGNED])
    }));
    v
}

/// IABS (one source in the B slot), SGXT and BMSK (A and B), PRMT (three sources).
fn unary_and_bitfield() -> Vec<Form> {
    let mut v = src2_family(0x013, &SRC2_RICU, ImmStyle::Hex, |opc, b| {
        form("IABS", Op::Iabs, opc).ops([rd(), b])
    });
    v.extend(src2_family(0x01a, &SRC2_RICU, ImmStyle::Hex, |opc, b| {
        form("SGXT", Op::Sgxt, opc)
            .ops([rd(), reg(Role::A, RA).reuse(0), b])
            .mods([flag!(Mod::Wrap, 75, ".W"), SIGNED])
    }));
    v.extend(src2_family(0x01b, &SRC2_RICU, ImmStyle::Hex, |opc, b| {
        form("BMSK", Op::Bmsk, opc)
            .ops([rd(), reg(Role::A, RA).reuse(0), b])
            .mods([flag!(Mod::Wrap, 75, ".W")])
    }));
    let places = [Src3::Rrr, Src3::Rri, Src3::Rrc, Src3::Rir, Src3::Rcr, Src3::Rur];
    v.extend(src3_family(0x016, &places, ImmStyle::Hex, |opc, _, b, c| {
        form("PRMT", Op::Prmt, opc)
            .ops([rd(), reg(Role::A, RA).reuse(0), b, c])
            .mods([modifier(
                Mod::PrmtMode,
                72,
                3,
                &[
                    (0, ""),
                    (1, ".F4E"),
                    (2, ".B4E"),
                    (3, ".RC8"),
                    (4, ".ECL"),
                    (5, ".ECR"),
                    (6, ".RC16"),
                ],
                0,
            )])
    }));
    v
}

/// The PLOP3 table operands: `lut` (bits 64..67 and 72..77) and the unused second table.
fn plop3_tables() -> [OperandDesc; 2] {
    [
        OperandDesc {
            kind: OpKind::ImmSplit {
                lo: bits(64, 3),
                hi: bits(72, 5),
                style: ImmStyle::Hex,
            },
            ..reg(Role::Other, 0)
        },
        imm(Role::Aux, bits(16, 8), ImmStyle::Hex),
    ]
}

/// `PLOP3.LUT Pd0, Pd1, Ps0, Ps1, Ps2, lut, lut2` on predicates (0x81c), and on the sign bits
/// of registers (0x21f: `R0.SIGN`; 0xa1f/0xc1f with a constant or uniform B).
fn plop3() -> Vec<Form> {
    const SIGN: SuffixDesc = suffix(0, 0, &[(0, ".SIGN")]);
    let [table, table2] = plop3_tables();
    // Bit 67 makes the third source a uniform predicate.
    let on_preds = |uniform: bool| {
        let third = if uniform { upred } else { pred };
        form("PLOP3.LUT", Op::Plop3, 0x81c)
            .ops([
                pred(Role::PredDst0, 81, None, false),
                pred(Role::PredDst1, 84, None, false),
                pred(Role::PredSrc0, 87, Some(90), false),
                pred(Role::PredSrc1, 77, Some(80), false),
                third(Role::PredSrc2, 68, Some(71), false),
                table,
                table2,
            ])
            .fixed(67, 1, u64::from(uniform))
            .build()
    };
    // The sign-bit forms take B from a register, a constant or a uniform register (ptxas writes
    // `PLOP3.LUT P6, PT, R4.SIGN, c[0x2][0x0].SIGN, R13.SIGN, 0x2, 0x0`).
    let places = [Src3::Rrr, Src3::Rcr, Src3::Rur];
    let on_signs = src3_family(0x01f, &places, ImmStyle::Hex, |opc, _, b, c| {
        form("PLOP3.LUT", Op::Plop3, opc).ops([
            pred(Role::PredDst0, 81, None, false),
            pred(Role::PredDst1, 84, None, false),
            reg(Role::A, RA).reuse(0).suffix(SIGN),
            b.suffix(SIGN),
            c.suffix(SIGN),
            imm(Role::Other, bits(72, 8), ImmStyle::Hex),
            table2,
        ])
    });
    let mut v = vec![on_preds(false), on_preds(true)];
    v.extend(on_signs);
    v
}

/// `P2R Rd, PR, Ra, mask` packs predicates into a byte of Rd; `R2P PR, Ra, mask` unpacks.
fn p2r_r2p() -> Vec<Form> {
    const BYTE: ModDesc = modifier(Mod::ByteSel, 76, 2, &[(0, ""), (1, ".B1"), (2, ".B2"), (3, ".B3")], 0);
    let mut v = src2_family(0x003, &REG_IMM_CONST, ImmStyle::SignedHex, |opc, b| {
        form("P2R", Op::P2r, opc)
            .ops([rd(), literal("PR"), reg(Role::A, RA).reuse(0), b])
            .mods([BYTE])
    });
    // R2P selects the byte of the source register with a suffix (`R8.B1`).
    const BYTE_SUFFIX: SuffixDesc = suffix(76, 2, &[(0, ""), (1, ".B1"), (2, ".B2"), (3, ".B3")]);
    v.extend(src2_family(0x004, &REG_IMM_CONST, ImmStyle::SignedHex, |opc, b| {
        form("R2P", Op::R2p, opc).ops([literal("PR"), reg(Role::A, RA).reuse(0).suffix(BYTE_SUFFIX), b])
    }));
    v
}
