//! Memory accesses from sm_80 on: global and generic loads, stores, atomics and reductions
//! take one semantics-and-scope code (bits 77..81) and, in their uniform-address forms, a
//! memory-descriptor flag; LD and LDS lose their `.ZD` predicate and LDS its `.U`; ATOMS
//! leaves its bits 64..72 clear.

use super::changed;
use crate::flag;
use crate::isa::arch::Arch;
use crate::isa::build::*;
use crate::isa::desc::{Form, ModDesc, Op, OpKind, Role, Show};

/// The semantics-and-scope codes as loads spell them (values of `MemOrder`).
const LOAD_ORDER: &[(u16, &str)] = &[
    (0, ""),
    (1, ".CONSTANT.PRIVATE"),
    (2, ".CONSTANT.CTA"),
    (3, ".CONSTANT.CTA.PRIVATE"),
    (4, ".CONSTANT"),
    (5, ".STRONG.SM"),
    (6, ".STRONG.GPU.PRIVATE"),
    (7, ".STRONG.GPU"),
    (8, ".MMIO.GPU"),
    (9, ".CONSTANT.SM"),
    (10, ".STRONG.SYS"),
    (11, ".CONSTANT.SM.PRIVATE"),
    (12, ".MMIO.SYS"),
    (13, ".CONSTANT.VC"),
    (14, ".CONSTANT.VC.PRIVATE"),
    (15, ".CONSTANT.GPU"),
];

/// The codes as stores, atomics and reductions spell them (code 4 differs).
const STORE_ORDER: &[(u16, &str)] = &[
    (0, ""),
    (1, ".CONSTANT.PRIVATE"),
    (2, ".CONSTANT.CTA"),
    (3, ".CONSTANT.CTA.PRIVATE"),
    (4, ".STRONG.SM.PRIVATE"),
    (5, ".STRONG.SM"),
    (6, ".STRONG.GPU.PRIVATE"),
    (7, ".STRONG.GPU"),
    (8, ".MMIO.GPU"),
    (9, ".CONSTANT.SM"),
    (10, ".STRONG.SYS"),
    (11, ".CONSTANT.SM.PRIVATE"),
    (12, ".MMIO.SYS"),
    (13, ".CONSTANT.VC"),
    (14, ".CONSTANT.VC.PRIVATE"),
    (15, ".CONSTANT.GPU"),
];

/// Access sizes from sm_80 on: `.U.128` (code 7) is gone.
const SIZES: &[(u16, &str)] = &[
    (0, ".U8"),
    (1, ".S8"),
    (2, ".U16"),
    (3, ".S16"),
    (4, ""),
    (5, ".64"),
    (6, ".128"),
];

/// Semantics and scope of loads (default weak).
const LOAD: ModDesc = modifier(Mod::Order, 77, 4, LOAD_ORDER, 0);
/// Semantics and scope of stores (default weak).
const STORE: ModDesc = modifier(Mod::Order, 77, 4, STORE_ORDER, 0);
/// Semantics and scope of atomics and reductions (default `.STRONG.SYS`, as sm_75's).
pub(super) const ATOMIC: ModDesc = modifier(Mod::Order, 77, 4, STORE_ORDER, 10);
/// The descriptor flag of the uniform-address loads and stores.
pub(super) const DESC76: ModDesc = flag!(Mod::Desc, 76, "");
/// The cache-policy flag of the descriptor of loads and stores (bit 101): `desc[URx]`.
/// nvdisasm 13.5 ignores the bit while bit 76 is clear (prints `[R2.64+UR8]`), so that
/// combination is not described.
pub(super) const POLICY101: ModDesc = flag!(Mod::PolicyDesc, 101, "");
/// The descriptor flag of the uniform-address atomics and reductions.
const DESC71: ModDesc = flag!(Mod::Desc, 71, "");

/// Whether the form's address has a uniform register.
fn uniform_address(f: &Form) -> bool {
    f.operands
        .iter()
        .any(|o| matches!(o.kind, OpKind::Mem { uniform: Some(_), .. }))
}

/// Semantics, scope and `.PRIVATE` become `order`; a uniform-address form gets the
/// descriptor flag `desc` (which needs a 64-bit address, suffix bit `wide`) and, for loads
/// and stores (`desc` at bit 76), the cache-policy flag (which needs the descriptor).
fn ordered(f: &Form, b: FormBuilder, order: ModDesc, desc: ModDesc, wide: u8) -> FormBuilder {
    let b = b.replace_mod(Mod::Sem, &[order]).replace_mod(Mod::Scope, &[]);
    if uniform_address(f) && desc.field.lo == DESC76.field.lo {
        b.replace_mod(Mod::Private, &[desc, POLICY101])
            .invalid_when(&[(desc.field.lo, true), (wide, false)])
            .invalid_when(&[(desc.field.lo, false), (101, true)])
    } else if uniform_address(f) {
        b.replace_mod(Mod::Private, &[desc])
            .invalid_when(&[(desc.field.lo, true), (wide, false)])
    } else {
        b.replace_mod(Mod::Private, &[])
    }
}

/// Adds the memory deltas of sm_80.
pub fn apply(forms: &mut Vec<Form>) {
    let sm80 = Arch::Sm80;
    changed(
        forms,
        sm80,
        |f| f.op == Op::Ldg,
        |f, b| {
            ordered(f, prefetch_256(sized(b)), LOAD, DESC76, 90)
                .map_operand(Role::PredDst0, |o| o.show(Show::IfNotDefault))
                .replace_mod(Mod::ZeroDst, &[])
        },
    );
    changed(
        forms,
        sm80,
        |f| f.op == Op::Ld,
        |f, b| {
            ordered(f, prefetch_256(sized(b)), LOAD, DESC76, 90)
                .remove_operand(Role::PredDst0)
                .replace_mod(Mod::ZeroDst, &[])
        },
    );
    changed(
        forms,
        sm80,
        |f| matches!(f.op, Op::St | Op::Stg),
        |f, b| ordered(f, sized(b), STORE, DESC76, 90),
    );
    changed(
        forms,
        sm80,
        |f| matches!(f.op, Op::Atomg | Op::Atom),
        |f, b| ordered(f, b.unfix(bits(71, 1)), ATOMIC, DESC71, 70).map_mod(Mod::AtomType, wide_type),
    );
    changed(
        forms,
        sm80,
        |f| f.op == Op::Red,
        |f, b| ordered(f, b, ATOMIC, DESC71, 90).map_mod(Mod::AtomType, wide_type),
    );
    changed(
        forms,
        sm80,
        |f| matches!(f.op, Op::AtomgCas | Op::AtomCas),
        |f, b| ordered(f, b, ATOMIC, DESC71, 70).map_mod(Mod::AtomType, wide_type),
    );
    changed(
        forms,
        sm80,
        |f| f.op == Op::Atoms && f.opcode == 0x38c,
        |_, b| b.unfix(bits(RC, 8)).fixed(RC, 8, 0),
    );
    changed(
        forms,
        sm80,
        |f| f.op == Op::Lds,
        |_, b| {
            b.remove_operand(Role::PredDst0)
                .replace_mod(Mod::UniformAddr, &[])
                .replace_mod(Mod::ZeroDst, &[])
        },
    );
}

/// L2 prefetch sizes of loads from sm_80 on: `.LTC256B` (code 3) is new (nvdisasm 13.5
/// prints code 3 as `INVALID3` for SM75; ptxas emits it for `ld.global.L2::256B`).
const LTC_VALUES: &[(u16, &str)] = &[(0, ""), (1, ".LTC64B"), (2, ".LTC128B"), (3, ".LTC256B")];

/// Loads with `.LTC256B`.
fn prefetch_256(b: FormBuilder) -> FormBuilder {
    b.map_mod(Mod::Prefetch, |m| ModDesc {
        values: LTC_VALUES,
        ..m
    })
}

/// Loads and stores without `.U.128`.
fn sized(b: FormBuilder) -> FormBuilder {
    b.map_mod(Mod::Size, |m| ModDesc { values: SIZES, ..m })
}

/// The atomic type takes bits 73..77 (sm_75: 73..76, bit 76 was `.PRIVATE`).
fn wide_type(m: ModDesc) -> ModDesc {
    ModDesc {
        field: bits(73, 4),
        ..m
    }
}
