//! The multiply-add family on the FMA pipe: IMAD, IMAD.WIDE, IMAD.HI and the dot products
//! IDP.2A / IDP.4A.

use super::common::*;
use crate::isa::build::*;
use crate::isa::desc::{AliasCond::*, ImmStyle, LatCat as L, OpKind, Pipe, Role, Show, *};

/// Every placement but R, R, imm.
const NO_RRI: [Src3; 6] = [Src3::Rrr, Src3::Rrc, Src3::Rir, Src3::Rcr, Src3::Rur, Src3::Rru];

/// All multiply-add forms.
pub fn forms() -> Vec<Form> {
    let mut v = Vec::new();
    for (mn, op, base) in [
        ("IMAD", Op::Imad, 0x024),
        ("IMAD.WIDE", Op::ImadWide, 0x025),
        ("IMAD.HI", Op::ImadHi, 0x027),
    ] {
        // IMAD.WIDE and IMAD.HI have no R, R, imm form (0x4xx).
        let places: &[Src3] = if op == Op::Imad { &ALL_SRC3 } else { &NO_RRI };
        v.extend(src3_family(base, places, ImmStyle::SignedHex, |opc, p, b, c| {
            imad_form(mn, op, opc, p, b, c)
        }));
    }
    v.extend(idp());
    v
}

/// One IMAD form. C is a register pair for IMAD.WIDE and IMAD.HI: IMAD.HI returns the high
/// word of `A * B + C` with a 64-bit C = {Rc+1:Rc} (ptxas adds a 32-bit value to a high word
/// that way, `IMAD.HI.U32 R4, P3, R2, R7, R4` with R5 live), so the carry out of the low word
/// reaches the result and Pd. C is negated by bit 75 in the Rc field and by bit 63 as a
/// constant or uniform register. The carry-out predicate (bits 81..84) is printed by
/// nvdisasm for IMAD.WIDE and IMAD.HI only.
fn imad_form(mn: &'static str, op: Op, opc: u16, p: Src3, b: OperandDesc, c: OperandDesc) -> FormBuilder {
    let wide = op == Op::ImadWide;
    let c_pair = op != Op::Imad;
    let c = match c.kind {
        OpKind::Gpr { .. } => c.width(if c_pair { 2 } else { 1 }).neg(75),
        OpKind::CBank { .. } | OpKind::Ugpr { .. } => c.neg(63),
        _ => c,
    };
    let pd_show = if op == Op::Imad {
        Show::Never
    } else {
        Show::IfNotDefault
    };
    let f = form(mn, op, opc)
        .ops([
            rd().width(if wide { 2 } else { 1 }),
            pred(Role::PredDst0, 81, None, false).show(pd_show),
            reg(Role::A, RA).reuse(0),
            b,
            c,
            carry_in(1),
        ])
        .mods([SIGNED, X])
        .not_under_x()
        .timing(if wide { L::ImadWideUpper } else { L::ImadLo }, Pipe::Fma);
    imad_aliases(f, op, p)
}

/// nvdisasm's IMAD aliases (not with `.X`, modifier 1): `.MOV` (A = B = RZ, B in a register,
/// or an immediate B of 0), `.SHL` (B = 2^k, C = RZ) and `.IADD` (B = 1), both with an
/// immediate B.
fn imad_aliases(f: FormBuilder, op: Op, p: Src3) -> FormBuilder {
    if op != Op::Imad {
        return f;
    }
    match p {
        Src3::Rrr | Src3::Rri | Src3::Rrc => f.alias(".MOV", &[(2, IsRz), (3, IsRz), (1, ModIs(0))]),
        Src3::Rir => f
            .alias(".MOV", &[(3, ImmEq(0)), (1, ModIs(0))])
            .alias(".SHL", &[(3, ImmPow2), (4, IsRz), (1, ModIs(0))])
            .alias(".IADD", &[(3, ImmEq(1)), (1, ModIs(0))]),
        _ => f,
    }
}

/// `IDP.4A.S8.U8` / `IDP.2A.LO.S16.S8 Rd, Ra, B, C`: dot products of packed bytes.
fn idp() -> Vec<Form> {
    const A_TYPE4: ModDesc = modifier(Mod::ASigned, 73, 1, &[(0, ".U8"), (1, ".S8")], 1);
    const A_TYPE2: ModDesc = modifier(Mod::ASigned, 73, 1, &[(0, ".U16"), (1, ".S16")], 1);
    const B_TYPE: ModDesc = modifier(Mod::BSigned, 74, 1, &[(0, ".U8"), (1, ".S8")], 1);
    let mut v = Vec::new();
    for two in [false, true] {
        let places = [Src3::Rrr, Src3::Rcr, Src3::Rur];
        v.extend(src3_family(0x026, &places, ImmStyle::Hex, |opc, _, b, c| {
            let kind = if two {
                modifier(Mod::IdpKind, 76, 2, &[(1, ".2A.LO"), (3, ".2A.HI")], 1)
            } else {
                modifier(Mod::IdpKind, 76, 2, &[(0, ".4A")], 0)
            };
            form("IDP", Op::Idp, opc)
                .ops([rd(), reg(Role::A, RA).reuse(0), b, c.neg(75)])
                .mods([kind, if two { A_TYPE2 } else { A_TYPE4 }, B_TYPE])
                .timing(L::ImadLo, Pipe::Fma)
        }));
    }
    v
}
