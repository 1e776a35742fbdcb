//! The uniform datapath: one value per warp in uniform registers UR0..UR62 (URZ = 63) and
//! uniform predicates UP0..UP6 (UPT). UMOV, UIADD3, UIMAD, ULEA, ULOP3, USHF, USEL, UISETP,
//! UPOPC, UBREV, UFLO, UPRMT, UBMSK, USGXT, UPLOP3, and the transfers S2UR (special register) and R2UR (from a vector register,
//! variable latency). ULDC is with the constant loads. All but UMOV's immediate form set bit
//! 91; all but R2UR and VOTEU have a uniform guard.

use super::common::*;
use crate::flag;
use crate::isa::build::*;
use crate::isa::desc::{ImmStyle, LatCat as L, Pipe, Role, Show, *};

/// Operand placement of a uniform three-source instruction.
#[derive(Clone, Copy, PartialEq, Eq)]
enum U3 {
    /// UR, UR, UR (0x2xx)
    Rrr,
    /// UR, UR(in C), imm (0x4xx)
    Rri,
    /// UR, imm, UR (0x8xx)
    Rir,
}

/// Builds the forms of a uniform three-source instruction.
fn u3_family(
    base: u16,
    places: &[U3],
    style: ImmStyle,
    make: impl Fn(u16, OperandDesc, OperandDesc) -> FormBuilder,
) -> Vec<Form> {
    places
        .iter()
        .map(|&p| {
            let (fb, b, c) = match p {
                U3::Rrr => (1, ureg(Role::B, RB), ureg(Role::C, RC)),
                U3::Rri => (2, ureg(Role::B, RC), imm32(Role::C, style)),
                U3::Rir => (4, imm32(Role::B, style), ureg(Role::C, RC)),
            };
            uniform(make(base | fb << 9, b, c)).build()
        })
        .collect()
}

/// Uniform guard, uniform pipe, bit 91 set.
fn uniform(f: FormBuilder) -> FormBuilder {
    f.uniform_guard().timing(L::Alu, Pipe::Uniform).fixed(UNIFORM_BIT, 1, 1)
}

/// Source A.
fn ua() -> OperandDesc {
    ureg(Role::A, RA)
}

/// Negation (bit 63) of a uniform register in bits 32..38.
fn uneg63(o: OperandDesc) -> OperandDesc {
    neg63(o)
}

/// All uniform-datapath forms.
pub fn forms() -> Vec<Form> {
    let mut v = Vec::new();
    v.extend(moves());
    v.extend(arithmetic());
    v.extend(logic_and_shifts());
    v.extend(compares());
    v.extend(bit_fields());
    v.extend(uplop3());
    v
}

/// UFLO (find leading one, 0x2bd/0x8bd), UBMSK (0x29b/0x89b) and USGXT (0x29a/0x89a): the
/// uniform twins of FLO, BMSK and SGXT, with B a uniform register or an immediate.
fn bit_fields() -> Vec<Form> {
    let b_of = |fb: u16| match fb {
        1 => ureg(Role::B, RB),
        _ => imm32(Role::B, ImmStyle::Hex),
    };
    let mut v = Vec::new();
    for fb in [1, 4] {
        let b = b_of(fb);
        let not_b = if fb == 1 { b.not(63) } else { b };
        v.push(
            uniform(
                form("UFLO", Op::Uflo, 0x0bd | fb << 9)
                    .ops([urd(), opt_upd(Role::PredDst0, 81), not_b])
                    .mods([SIGNED, flag!(Mod::ShiftAmount, 74, ".SH")]),
            )
            .build(),
        );
        v.push(
            uniform(
                form("UBMSK", Op::Ubmsk, 0x09b | fb << 9)
                    .ops([urd(), ua(), b])
                    .mods([flag!(Mod::Wrap, 75, ".W")]),
            )
            .build(),
        );
        v.push(
            uniform(
                form("USGXT", Op::Usgxt, 0x09a | fb << 9)
                    .ops([urd(), ua(), b])
                    .mods([flag!(Mod::Wrap, 75, ".W"), SIGNED]),
            )
            .build(),
        );
    }
    v
}

/// `UPLOP3.LUT UPd0, UPd1, s0, s1, s2, lut, lut2` on uniform predicates (0x89c, bit 91
/// clear) and on the sign bits of uniform registers (0x29f: `UR4.SIGN`), like PLOP3's 0x81c
/// and 0x21f.
fn uplop3() -> Vec<Form> {
    const SIGN: SuffixDesc = suffix(0, 0, &[(0, ".SIGN")]);
    let table2 = imm(Role::Aux, bits(16, 8), ImmStyle::Hex);
    let on_preds = form("UPLOP3.LUT", Op::Uplop3, 0x89c).ops([
        upred(Role::PredDst0, 81, None, false),
        upred(Role::PredDst1, 84, None, false),
        upred(Role::PredSrc0, 87, Some(90), false),
        upred(Role::PredSrc1, 77, Some(80), false),
        upred(Role::PredSrc2, 68, Some(71), false),
        OperandDesc {
            kind: OpKind::ImmSplit {
                lo: bits(64, 3),
                hi: bits(72, 5),
                style: ImmStyle::Hex,
            },
            ..imm(Role::Other, bits(64, 3), ImmStyle::Hex)
        },
        table2,
    ]);
    let on_signs = form("UPLOP3.LUT", Op::Uplop3, 0x29f).ops([
        upred(Role::PredDst0, 81, None, false),
        upred(Role::PredDst1, 84, None, false),
        ua().suffix(SIGN),
        ureg(Role::B, RB).suffix(SIGN),
        ureg(Role::C, RC).suffix(SIGN),
        imm(Role::Other, bits(72, 8), ImmStyle::Hex),
        table2,
    ]);
    // The predicate form leaves bit 91 clear (nvdisasm rejects it set), like UMOV's immediate form.
    let on_preds = on_preds
        .uniform_guard()
        .timing(L::Alu, Pipe::Uniform)
        .fixed(UNIFORM_BIT, 1, 0);
    vec![on_preds.build(), uniform(on_signs).build()]
}

fn moves() -> Vec<Form> {
    vec![
        form("UMOV", Op::Umov, 0x882)
            .ops([urd(), imm32(Role::B, ImmStyle::Hex)])
            .uniform_guard()
            .timing(L::Alu, Pipe::Uniform)
            .fixed(UNIFORM_BIT, 1, 0)
            .build(),
        uniform(form("UMOV", Op::Umov, 0xc82).ops([urd(), ureg(Role::B, RB)])).build(),
        form("S2UR", Op::S2ur, 0x9c3)
            .ops([urd(), super::misc::sreg()])
            .uniform_guard()
            .timing(L::Decoupled, Pipe::Misc)
            .build(),
        form("R2UR", Op::R2ur, 0x3c2)
            .ops([opt_pd(Role::PredDst0, 81), urd(), reg(Role::A, RA)])
            .timing(L::Decoupled, Pipe::Uniform)
            .build(),
        uniform(form("UPOPC", Op::Upopc, 0x2bf).ops([urd(), ureg(Role::B, RB).not(63)])).build(),
        uniform(form("UBREV", Op::Ubrev, 0x2be).ops([urd(), ureg(Role::B, RB)])).build(),
    ]
}

fn arithmetic() -> Vec<Form> {
    let mut v = Vec::new();
    let xmod = X;
    v.extend(u3_family(
        0x090,
        &[U3::Rrr, U3::Rir],
        ImmStyle::SignedHex,
        |opc, b, c| {
            form("UIADD3", Op::Uiadd3, opc)
                .ops([
                    urd(),
                    opt_upd(Role::PredDst0, 81),
                    opt_upd(Role::PredDst1, 84),
                    ua().neg(72),
                    uneg63(b),
                    c.neg(75),
                    upred(Role::PredSrc0, 87, Some(90), true).show(Show::IfMod(0)),
                    upred(Role::PredSrc1, 77, Some(80), true).show(Show::IfMod(0)),
                ])
                .mods([xmod])
                .not_under_x()
        },
    ));
    for (mn, op, base) in [("UIMAD", Op::Uimad, 0x0a4), ("UIMAD.WIDE", Op::UimadWide, 0x0a5)] {
        // UIMAD.WIDE has no UR, UR, imm form (0x4xx).
        let places: &[U3] = if op == Op::Uimad {
            &[U3::Rrr, U3::Rri, U3::Rir]
        } else {
            &[U3::Rrr, U3::Rir]
        };
        v.extend(u3_family(base, places, ImmStyle::SignedHex, |opc, b, c| {
            let wide = op == Op::UimadWide;
            let pd_show = if wide { Show::IfNotDefault } else { Show::Never };
            let c = if matches!(c.kind, OpKind::Ugpr { .. }) {
                c.neg(75)
            } else {
                c
            };
            form(mn, op, opc)
                .ops([
                    urd(),
                    upred(Role::PredDst0, 81, None, false).show(pd_show),
                    ua(),
                    b,
                    c,
                    upred(Role::PredSrc0, 87, Some(90), true).show(Show::IfMod(1)),
                ])
                .mods([SIGNED, X])
                .not_under_x()
        }));
    }
    for sx32 in [false, true] {
        v.extend(u3_family(0x091, &[U3::Rrr, U3::Rir], ImmStyle::Hex, |opc, b, c| {
            let (hi, c) = if sx32 {
                (modifier(Mod::Hi, 80, 1, &[(1, ".HI")], 1), None)
            } else {
                (flag!(Mod::Hi, 80, ".HI"), Some(c.show(Show::IfMod(0)).default(63)))
            };
            let sx = modifier(
                Mod::Sx32,
                73,
                1,
                if sx32 { &[(1, ".SX32")] } else { &[(0, "")] },
                sx32 as u16,
            );
            let f = form("ULEA", Op::Ulea, opc)
                .ops([urd(), opt_upd(Role::PredDst0, 81), ua().neg(72), uneg63(b)])
                .ops(c)
                .ops([
                    imm(Role::Other, bits(75, 5), ImmStyle::Hex),
                    upred(Role::PredSrc0, 87, Some(90), true).show(Show::IfMod(1)),
                ])
                .mods([hi, X, sx])
                .not_under_x();
            if sx32 { f.fixed(RC, 6, 63) } else { f }
        }));
    }
    v
}

fn logic_and_shifts() -> Vec<Form> {
    let mut v = u3_family(0x092, &[U3::Rrr, U3::Rir], ImmStyle::Hex, |opc, b, c| {
        form("ULOP3.LUT", Op::Ulop3, opc)
            .ops([
                opt_upd(Role::PredDst0, 81),
                urd(),
                ua(),
                b,
                c,
                lut(72),
                upred(Role::PredSrc0, 87, Some(90), true),
            ])
            .mods([flag!(Mod::Pand, 80, ".PAND")])
    });
    v.extend(u3_family(
        0x099,
        &[U3::Rrr, U3::Rri, U3::Rir],
        ImmStyle::Hex,
        |opc, b, c| {
            form("USHF", Op::Ushf, opc).ops([urd(), ua(), b, c]).mods([
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
        },
    ));
    v.extend(u3_family(0x096, &[U3::Rrr, U3::Rir], ImmStyle::Hex, |opc, b, c| {
        form("UPRMT", Op::Uprmt, opc).ops([urd(), ua(), b, c])
    }));
    v
}

fn compares() -> Vec<Form> {
    let two = |fb: u16, style: ImmStyle| match fb {
        1 => ureg(Role::B, RB),
        _ => imm32(Role::B, style),
    };
    let mut v = Vec::new();
    for fb in [1, 4] {
        v.push(
            uniform(form("USEL", Op::Usel, 0x087 | fb << 9).ops([
                urd(),
                ua(),
                two(fb, ImmStyle::Hex),
                upred(Role::PredSrc0, 87, Some(90), false),
            ]))
            .build(),
        );
        v.push(
            uniform(
                form("UISETP", Op::Uisetp, 0x08c | fb << 9)
                    .ops([
                        upred(Role::PredDst0, 81, None, false),
                        upred(Role::PredDst1, 84, None, false),
                        ua(),
                        two(fb, ImmStyle::SignedHex),
                        upred(Role::PredSrc0, 87, Some(90), false),
                        upred(Role::PredSrc1, 68, Some(71), false).show(Show::IfMod(3)),
                    ])
                    .mods([ICMP, SIGNED, BOP, flag!(Mod::Ex, 72, ".EX")]),
            )
            .build(),
        );
    }
    v
}
