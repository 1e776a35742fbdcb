//! Atomics and reductions: ATOMG / ATOM (global / generic, returning the old value), their
//! compare-and-swap forms, RED (no result), ATOMS (shared memory) and QSPC (address-space
//! query). Data are read late (a read scoreboard protects them).

use super::mem::{CACHE, E, PRIVATE, SCOPE, UrAt, WIDE_WITHOUT_E, address, address_with_width_bit, uniform_bit};
use crate::isa::build::*;
use crate::isa::desc::{LatCat as L, Pipe, Role, *};

/// The operation (bits 87..91).
pub(crate) const OPS: &[(u16, &str)] = &[
    (0, ".ADD"),
    (1, ".MIN"),
    (2, ".MAX"),
    (3, ".INC"),
    (4, ".DEC"),
    (5, ".AND"),
    (6, ".OR"),
    (7, ".XOR"),
    (8, ".EXCH"),
    (9, ".SAFEADD"),
];
/// Operand type (bits 73..76); the data registers are pairs for the 64-bit types.
const TYPES: &[(u16, &str)] = &[
    (0, ""),
    (1, ".S32"),
    (2, ".64"),
    (3, ".F32.FTZ.RN"),
    (4, ".F16x2.RN"),
    (5, ".S64"),
    (6, ".F64.RN"),
];
/// Atomics are `.STRONG` or weak.
const SEM: ModDesc = modifier(Mod::Sem, 79, 2, &[(1, ""), (2, ".STRONG")], 2);
/// Compare-and-swap flavours (bits 87..89).
const CAS: &[(u16, &str)] = &[(0, ".CAS"), (1, ".CAST"), (3, ".CAST.SPIN")];

fn lsu(f: FormBuilder) -> FormBuilder {
    f.timing(L::Decoupled, Pipe::Lsu).reads_late()
}

/// Data register in bits 32..40 (width from the type).
fn data(role: Role) -> OperandDesc {
    reg(role, RB).width(0)
}

/// All atomic forms.
pub fn forms() -> Vec<Form> {
    let mut v = Vec::new();
    v.extend(global());
    v.extend(shared());
    v.extend(qspc());
    v
}

/// ATOMG / ATOM returning the old value: register address (Rc unused, 0xff) or uniform
/// address (UR in bits 64..70, address width in bit 70, which needs `.E` when set).
fn returning(mn: &'static str, op: Op, base: u16, ops: &'static [(u16, &'static str)], ur: UrAt) -> Form {
    let uniform = ur != UrAt::None;
    let opc = base | if uniform { 0x900 } else { 0x300 };
    let f = uniform_bit(lsu(form(mn, op, opc)), ur)
        .ops([
            pred(Role::PredDst0, 81, None, false),
            rd().width(0),
            address_with_width_bit(ur, bits(40, 24), Some(70), false),
            data(Role::Data),
        ])
        .mods([
            E,
            modifier(Mod::AtomOp, 87, 4, ops, 0),
            CACHE,
            modifier(Mod::AtomType, 73, 3, TYPES, 0),
            SEM,
            SCOPE,
            PRIVATE,
        ]);
    if uniform {
        f.fixed(71, 1, 0).invalid_when(&[(72, false), (70, true)]).build()
    } else {
        f.fixed(RC, 8, 0xff).build()
    }
}

/// ATOMG.CAS / ATOM.CAS with a register address: compare value in B, swap value in C.
fn compare_and_swap(mn: &'static str, op: Op, opc: u16, cas: &'static [(u16, &'static str)]) -> Form {
    lsu(form(mn, op, opc))
        .ops([
            pred(Role::PredDst0, 81, None, false),
            rd().width(0),
            address(UrAt::None, bits(40, 24), true, false),
            data(Role::B),
            reg(Role::C, RC).width(0),
        ])
        .mods([
            E,
            modifier(Mod::CasKind, 87, 2, cas, 0),
            CACHE,
            modifier(Mod::AtomType, 73, 3, &TYPES[..3], 0),
            SEM,
            SCOPE,
            PRIVATE,
        ])
        .fixed(UNIFORM_BIT, 1, 0)
        .build()
}

fn global() -> Vec<Form> {
    let off = bits(40, 24);
    let mut v = Vec::new();
    for ur in [UrAt::None, UrAt::C] {
        v.push(returning("ATOMG", Op::Atomg, 0x0a8, OPS, ur));
        v.push(returning("ATOM", Op::Atom, 0x08a, &OPS[..9], ur));
    }
    v.push(compare_and_swap("ATOMG", Op::AtomgCas, 0x3a9, &CAS[..1]));
    v.push(compare_and_swap("ATOM", Op::AtomCas, 0x38b, CAS));
    for ur in [UrAt::None, UrAt::C] {
        v.push(
            uniform_bit(lsu(form("RED", Op::Red, 0x98e)), ur)
                .ops([address(ur, off, true, false), data(Role::Data)])
                .invalid_when(WIDE_WITHOUT_E)
                .mods([
                    E,
                    modifier(Mod::AtomOp, 87, 3, &OPS[..8], 0),
                    CACHE,
                    modifier(Mod::AtomType, 73, 3, TYPES, 0),
                    SEM,
                    SCOPE,
                    PRIVATE,
                ])
                .build(),
        );
    }
    v
}

/// `ATOMS.op Rd, [Ra.X4+offset], Rb` and `ATOMS.CAS Rd, [..], Rb, Rc` on shared memory.
fn shared() -> Vec<Form> {
    let off = bits(40, 24);
    let types = modifier(Mod::AtomType, 73, 2, &TYPES[..3], 0);
    vec![
        lsu(form("ATOMS", Op::Atoms, 0x38c))
            .ops([rd().width(0), address(UrAt::None, off, false, true), data(Role::Data)])
            .mods([modifier(Mod::AtomOp, 87, 4, &OPS[..9], 0), types])
            .fixed(RC, 8, 0xff)
            .fixed(UNIFORM_BIT, 1, 0)
            .build(),
        // The uniform-address form (0x98c, bit 91 set, URb in 64..69): ptxas's warp-aggregated
        // `ATOMS.ADD.S32 RZ, [UR4+0x4], R5` of `cp.async.mbarrier.arrive`; the same text
        // under nvdisasm -b SM75..SM89, described from sm_80 on (checked there).
        lsu(form("ATOMS", Op::Atoms, 0x98c))
            .since(crate::isa::arch::Arch::Sm80)
            .ops([rd().width(0), address(UrAt::C, off, false, true), data(Role::Data)])
            .mods([modifier(Mod::AtomOp, 87, 4, &OPS[..9], 0), types])
            .fixed(UNIFORM_BIT, 1, 1)
            .build(),
        lsu(form("ATOMS", Op::AtomsCas, 0x38d))
            .ops([
                rd().width(0),
                address(UrAt::None, off, false, true),
                data(Role::B),
                reg(Role::C, RC).width(0),
            ])
            .mods([modifier(Mod::CasKind, 87, 2, CAS, 0), types])
            .fixed(UNIFORM_BIT, 1, 0)
            .build(),
    ]
}

/// `QSPC.E.G Pd, Rd, [Ra]`: which address space an address belongs to.
fn qspc() -> Vec<Form> {
    vec![
        form("QSPC", Op::Qspc, 0x3aa)
            .ops([
                pred(Role::PredDst0, 81, None, false),
                rd(),
                address(UrAt::None, bits(40, 24), false, false),
            ])
            .mods([
                E,
                modifier(Mod::QspcSpace, 73, 2, &[(0, ".G"), (1, ".L"), (2, ".S")], 0),
            ])
            .timing(L::Decoupled, Pipe::Lsu)
            .build(),
    ]
}
