//! Conversions: I2F, F2I, F2F, FRND (variable latency, in the B slot), and I2I and I2IP
//! (integer narrowing with saturation, ALU pipe). The 0x3xx opcodes handle 32-bit types and f16; the
//! 0x31x opcodes are the forms with a 64-bit side (f64 or 64-bit integers).

use super::common::*;
use crate::flag;
use crate::isa::build::*;
use crate::isa::desc::{ImmStyle, LatCat as L, OpKind, Pipe, Role, *};

/// Integer type: signedness in bit `lo`, width (8, 16, 32, 64) in the two bits at `hi`;
/// value = signed | width << 1. S32 prints nothing.
const INT_TYPES: &[(u16, &str)] = &[
    (0, ".U8"),
    (1, ".S8"),
    (2, ".U16"),
    (3, ".S16"),
    (4, ".U32"),
    (5, ""),
    (6, ".U64"),
    (7, ".S64"),
];
/// Float type field values: 1 F16, 2 F32, 3 F64.
const F16: u16 = 1;
const F32: u16 = 2;
const F64: u16 = 3;

/// Width classes of an integer operand (values of [`INT_TYPES`]).
const NARROW8: [u16; 2] = [0, 1];
const NARROW16: [u16; 2] = [2, 3];
const WORD: [u16; 2] = [4, 5];
const WIDE: [u16; 2] = [6, 7];

/// F2I/I2F/F2F/FRND rounding.
const F2I_RND: ModDesc = modifier(
    Mod::Rnd,
    78,
    2,
    &[(0, ""), (1, ".FLOOR"), (2, ".CEIL"), (3, ".TRUNC")],
    0,
);

/// The values of `table` whose key is in `keep`, leaked into a static slice (tables are built
/// once).
fn pick(table: &'static [(u16, &'static str)], keep: &[u16]) -> &'static [(u16, &'static str)] {
    let v: Vec<(u16, &'static str)> = table.iter().copied().filter(|(k, _)| keep.contains(k)).collect();
    Vec::leak(v)
}

/// A float type modifier at `lo` (2 bits) restricted to `keep`, spelled as in `spell`; F32 is
/// the default where allowed.
fn ftype(lo: u8, keep: &[u16], spell: &'static [(u16, &'static str)]) -> ModDesc {
    let values = pick(spell, keep);
    let default = if keep.contains(&F32) { F32 } else { values[0].0 };
    modifier(Mod::FloatType, lo, 2, values, default)
}

const FTYPE_NAMES: &[(u16, &str)] = &[(1, ".F16"), (2, ".F32"), (3, ".F64")];
/// F32 prints nothing where it is the default side (F2I source, I2F destination).
const FTYPE_F32_SILENT: &[(u16, &str)] = &[(1, ".F16"), (2, ""), (3, ".F64")];

/// An integer type split over a sign bit and a width field, restricted to `keep`.
fn itype(sign: u8, width: u8, keep: &[u16]) -> ModDesc {
    let values = pick(INT_TYPES, keep);
    split_modifier(
        Mod::IntType,
        bits(sign, 1),
        bits(width, 2),
        values,
        values[values.len() - 1].0,
    )
}

/// Registers of a 64-bit value are pairs.
fn width_of(o: OperandDesc, wide: bool) -> OperandDesc {
    if wide { o.width(2) } else { o }
}

/// All conversion forms.
pub fn forms() -> Vec<Form> {
    let mut v = Vec::new();
    v.extend(i2f());
    v.extend(f2i());
    v.extend(f2f());
    v.extend(frnd());
    v.extend(i2ip());
    v.extend(i2i());
    v
}

/// Sub-word selection of an 8- or 16-bit integer source (bits 60..62), only where the
/// source is a register, constant or uniform register.
fn subword(b: OperandDesc, width: &[u16]) -> OperandDesc {
    const BYTES: &[(u16, &str)] = &[(0, ""), (1, ".B1"), (2, ".B2"), (3, ".B3")];
    const HALVES: &[(u16, &str)] = &[(0, ""), (1, ".H1")];
    if matches!(b.kind, OpKind::Imm { .. }) {
        return b;
    }
    if width == NARROW8 {
        b.suffix(suffix(60, 2, BYTES))
    } else if width == NARROW16 {
        b.suffix(suffix(60, 2, HALVES))
    } else {
        b
    }
}

/// A float source of type `t`: negation and absolute value, a register pair for F64, the
/// half select for F16.
fn float_source(b: OperandDesc, t: u16) -> OperandDesc {
    let b = no_reuse(fneg_abs_b(b));
    match t {
        F16 => f16_source(b),
        F64 => b.width(2),
        _ => b,
    }
}

/// The immediate style of a float source type.
fn imm_style(t: u16) -> ImmStyle {
    match t {
        F64 => ImmStyle::F64Hi,
        _ => ImmStyle::F32,
    }
}

/// Register, constant and uniform placements (no immediate).
const NO_IMM: [Src2; 3] = [Src2::Reg(1), Src2::Const(5), Src2::Ureg(6)];

/// I2F: 0x306 for 32-bit and narrower sources to F16/F32; 0x312 when a side is 64-bit. An
/// immediate source exists for 32-bit integers only.
fn i2f() -> Vec<Form> {
    let mut v = Vec::new();
    let variants: [(u16, &[u16], &[u16]); 8] = [
        (0x106, &[F16, F32], &NARROW8),
        (0x106, &[F16, F32], &NARROW16),
        (0x106, &[F16, F32], &WORD),
        (0x112, &[F64], &NARROW8),
        (0x112, &[F64], &NARROW16),
        (0x112, &[F64], &WORD),
        (0x112, &[F64], &WIDE),
        (0x112, &[F16, F32], &WIDE),
    ];
    for (base, dst, src) in variants {
        let places: &[Src2] = if src == WORD { &SRC1_RICU } else { &NO_IMM };
        v.extend(src2_family(base, places, ImmStyle::Hex, |opc, b| {
            let b = width_of(subword(no_reuse(b), src), src == WIDE);
            let f = form("I2F", Op::I2f, opc)
                .ops([width_of(rd(), dst == [F64]), b])
                .mods([ftype(75, dst, FTYPE_F32_SILENT), itype(74, 84, src), RND])
                .timing(L::Decoupled, Pipe::Conv);
            if b.swizzle.is_none() && !matches!(b.kind, OpKind::Imm { .. }) {
                f.fixed(60, 2, 0)
            } else {
                f
            }
        }));
    }
    v.extend(i2f_wide_imm());
    v
}

/// I2F from a 64-bit integer immediate (0x912): the 32-bit field is the upper word of the
/// value, the lower word is zero (ptxas's `I2F.U64.RP R0, 0x5` for a divisor of 5 << 32),
/// printed unsigned for `.U64` and signed for `.S64`.
fn i2f_wide_imm() -> Vec<Form> {
    let mut v = Vec::new();
    for dst in [&[F16, F32][..], &[F64]] {
        for (src, style) in [(6, ImmStyle::HexHi), (7, ImmStyle::SignedHexHi)] {
            v.push(
                form("I2F", Op::I2f, 0x912)
                    .ops([width_of(rd(), dst == [F64]), imm32(Role::B, style)])
                    .mods([ftype(75, dst, FTYPE_F32_SILENT), itype(74, 84, &[src]), RND])
                    .timing(L::Decoupled, Pipe::Conv)
                    .build(),
            );
        }
    }
    v
}

/// F2I: 0x305 from F16/F32 to 32-bit and narrower integers; 0x311 from F64, or to 64-bit.
fn f2i() -> Vec<Form> {
    let mut v = Vec::new();
    let narrow = [0, 1, 2, 3, 4, 5];
    let variants: [(u16, u16, &[u16]); 6] = [
        (0x105, F32, &narrow),
        (0x105, F16, &narrow),
        (0x111, F64, &narrow),
        (0x111, F64, &WIDE),
        (0x111, F32, &WIDE),
        (0x111, F16, &WIDE),
    ];
    for (base, src, dst) in variants {
        v.extend(src2_family(base, &SRC1_RICU, imm_style(src), |opc, b| {
            form("F2I", Op::F2i, opc)
                .ops([width_of(rd(), dst == WIDE), float_source(b, src)])
                .mods([
                    FTZ,
                    itype(72, 75, dst),
                    ftype(84, &[src], FTYPE_F32_SILENT),
                    F2I_RND,
                    flag!(Mod::Ntz, 77, ".NTZ"),
                ])
                .timing(L::Decoupled, Pipe::Conv)
        }));
    }
    v
}

/// F2F between F16 and F32 (0x304) and to or from F64 (0x310); the types print together,
/// destination first (`.F16.F32` = to F16 from F32). The value is dst | src << 2.
fn f2f() -> Vec<Form> {
    let variants: [(u16, u16, u16); 6] = [
        (0x104, F16, F32),
        (0x104, F32, F16),
        (0x110, F16, F64),
        (0x110, F32, F64),
        (0x110, F64, F16),
        (0x110, F64, F32),
    ];
    let mut v = Vec::new();
    for (base, dst, src) in variants {
        let name = |t: u16| FTYPE_NAMES[t as usize - 1].1;
        let spelling: &'static str = String::leak(format!("{}{}", name(dst), name(src)));
        let values: &'static [(u16, &'static str)] = Vec::leak(vec![(dst | src << 2, spelling)]);
        v.extend(src2_family(base, &SRC1_RICU, imm_style(src), |opc, b| {
            form("F2F", Op::F2f, opc)
                .ops([width_of(rd(), dst == F64), float_source(b, src)])
                .mods([
                    FTZ,
                    split_modifier(Mod::FloatPair, bits(75, 2), bits(84, 2), values, values[0].0),
                    RND,
                ])
                .timing(L::Decoupled, Pipe::Conv)
        }));
    }
    v
}

/// FRND: round to an integral value in the same float type (0x307 F16/F32, 0x313 F64).
fn frnd() -> Vec<Form> {
    let mut v = Vec::new();
    for (base, t, spelling) in [(0x107, F32, ""), (0x107, F16, ".F16"), (0x113, F64, ".F64")] {
        let values: &'static [(u16, &'static str)] = Vec::leak(vec![(t | t << 2, spelling)]);
        v.extend(src2_family(base, &SRC1_RICU, imm_style(t), |opc, b| {
            form("FRND", Op::Frnd, opc)
                .ops([width_of(rd(), t == F64), float_source(b, t)])
                .mods([
                    FTZ,
                    split_modifier(Mod::FloatPair, bits(75, 2), bits(84, 2), values, values[0].0),
                    F2I_RND,
                ])
                .timing(L::Decoupled, Pipe::Conv)
        }));
    }
    v
}

/// `I2I.T.S32.SAT Rd, B`: a signed 32-bit integer saturated to `.U8/.S8/.U16/.S16` (0x238;
/// 0x838 immediate, 0xa38 constant, 0xc38 uniform register). Fixed latency, like I2IP.
fn i2i() -> Vec<Form> {
    const DST: ModDesc = modifier(
        Mod::IntType,
        76,
        2,
        &[(0, ".U8"), (1, ".S8"), (2, ".U16"), (3, ".S16")],
        3,
    );
    src2_family(0x038, &SRC1_RICU, ImmStyle::SignedHex, |opc, b| {
        form("I2I", Op::I2i, opc)
            .ops([rd(), b])
            .mods([DST, modifier(Mod::Sat, 0, 0, &[(1, ".S32.SAT")], 1)])
    })
}

/// `I2IP.S8.S32.SAT Rd, Ra, B, C`: packs two saturated integers into the bytes or halves of
/// C (`.H1` selects the upper half of C).
fn i2ip() -> Vec<Form> {
    const DST: ModDesc = modifier(
        Mod::IntType,
        76,
        2,
        &[(0, ".U8"), (1, ".S8"), (2, ".U16"), (3, ".S16")],
        1,
    );
    const HALF: SuffixDesc = suffix(72, 2, &[(0, ""), (1, ".H1")]);
    let places = [Src3::Rrr, Src3::Rir, Src3::Rcr, Src3::Rur];
    src3_family(0x039, &places, ImmStyle::Hex, |opc, _, b, c| {
        form("I2IP", Op::I2ip, opc)
            .ops([rd(), reg(Role::A, RA).reuse(0), b, c.suffix(HALF)])
            .mods([DST, modifier(Mod::Sat, 0, 0, &[(1, ".S32.SAT")], 1)])
    })
}
