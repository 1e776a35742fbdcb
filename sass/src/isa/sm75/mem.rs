//! Global, generic, local and constant memory: LDG, STG, LD, ST, LDL, STL, LDC, ULDC.
//! Every access exists in a register-address form and in a form with a uniform register
//! added (bit 91); in the latter the address register of global and generic accesses
//! carries its width (`.64` / `.U32`, bit 90).

use crate::flag;
use crate::isa::build::*;
use crate::isa::desc::{LatCat as L, Pipe, Role, Show, *};

/// `.E`: 64-bit address.
pub const E: ModDesc = flag!(Mod::E, 72, ".E");
/// Access size; the register width of the data operand follows it (`.U.128`: 7).
pub const SIZE_VALUES: &[(u16, &str)] = &[
    (0, ".U8"),
    (1, ".S8"),
    (2, ".U16"),
    (3, ".S16"),
    (4, ""),
    (5, ".64"),
    (6, ".128"),
    (7, ".U.128"),
];
/// Access size of the global and generic accesses.
pub const SIZE: ModDesc = modifier(Mod::Size, 73, 3, SIZE_VALUES, 4);
/// Access size of local and shared accesses (no `.U.128`).
pub const SIZE7: ModDesc = modifier(Mod::Size, 73, 3, &SIZE_VALUES_7, 4);
const SIZE_VALUES_7: [(u16, &str); 7] = [
    (0, ".U8"),
    (1, ".S8"),
    (2, ".U16"),
    (3, ".S16"),
    (4, ""),
    (5, ".64"),
    (6, ".128"),
];
/// Memory-model semantics of loads (bits 79..81).
const LOAD_SEM: ModDesc = modifier(
    Mod::Sem,
    79,
    2,
    &[(0, ".CONSTANT"), (1, ""), (2, ".STRONG"), (3, ".MMIO")],
    1,
);
/// Memory-model semantics of stores (no `.CONSTANT`).
const STORE_SEM: ModDesc = modifier(Mod::Sem, 79, 2, &[(1, ""), (2, ".STRONG"), (3, ".MMIO")], 1);
/// Scope (bits 77..79).
pub const SCOPE: ModDesc = modifier(
    Mod::Scope,
    77,
    2,
    &[(0, ".CTA"), (1, ".SM"), (2, ".GPU"), (3, ".SYS")],
    3,
);
/// `.PRIVATE` (bit 76).
pub const PRIVATE: ModDesc = flag!(Mod::Private, 76, ".PRIVATE");
/// Cache eviction policy (bits 84..87).
pub const CACHE: ModDesc = modifier(
    Mod::Cache,
    84,
    3,
    &[(0, ".EF"), (1, ""), (2, ".EL"), (3, ".LU"), (4, ".EU"), (5, ".NA")],
    1,
);
/// L2 prefetch size hint (bits 68..70).
const LTC: ModDesc = modifier(Mod::Prefetch, 68, 2, &[(0, ""), (1, ".LTC64B"), (2, ".LTC128B")], 0);
/// `.ZD` (bit 87): zero the destination when the access is not done; prints the predicate.
const ZD: ModDesc = flag!(Mod::ZeroDst, 87, ".ZD");

/// Register width 0 means "from the size modifier".
pub const BY_SIZE: u8 = 0;

/// Width of the address register in the uniform forms (bit 90; bit 70 in ATOM and ATOMG,
/// whose bit 90 belongs to the operation).
const ADDR_WIDTH: SuffixDesc = suffix(90, 1, &[(0, ".U32"), (1, ".64")]);
/// A 64-bit address register needs `.E` (nvdisasm: `???0`); harmless in the register forms.
pub const WIDE_WITHOUT_E: &[(u8, bool)] = &[(72, false), (90, true)];

/// Where the uniform register of a uniform-address form is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum UrAt {
    /// No uniform register (bit 91 clear).
    None,
    /// Bits 32..38 (loads).
    B,
    /// Bits 64..70 (stores and atomics, whose bits 32..40 hold data).
    C,
}

/// A memory operand `[Ra(+URb)+offset]` with the offset in `offset`; `wide_suffix` adds
/// the address width suffix of global/generic uniform forms; `scale` the shared-memory scale.
pub fn address(ur: UrAt, offset: BitField, wide_suffix: bool, scale: bool) -> OperandDesc {
    address_with_width_bit(ur, offset, wide_suffix.then_some(90), scale)
}

/// [`address`] with the address-width suffix at `width_bit`.
pub fn address_with_width_bit(ur: UrAt, offset: BitField, width_bit: Option<u8>, scale: bool) -> OperandDesc {
    let uniform = match ur {
        UrAt::None => None,
        UrAt::B => Some(bits(RB, 6)),
        UrAt::C => Some(bits(RC, 6)),
    };
    let m = mem_with(bits(RA, 8), offset, uniform, scale.then(|| bits(78, 2)));
    match width_bit {
        Some(bit) if ur != UrAt::None => m.suffix(SuffixDesc {
            field: bits(bit, 1),
            ..ADDR_WIDTH
        }),
        _ => m,
    }
}

/// Adds bit 91 (the uniform-address form) and its fixed value.
pub fn uniform_bit(f: FormBuilder, ur: UrAt) -> FormBuilder {
    f.fixed(UNIFORM_BIT, 1, u64::from(ur != UrAt::None))
}

fn lsu(f: FormBuilder) -> FormBuilder {
    f.timing(L::Decoupled, Pipe::Lsu)
}

/// All global, generic, local and constant memory forms.
pub fn forms() -> Vec<Form> {
    let mut v = Vec::new();
    v.extend(global_generic());
    v.extend(local());
    v.extend(constant());
    v
}

fn global_generic() -> Vec<Form> {
    let off24 = bits(40, 24);
    let off32 = bits(32, 32);
    let mut v = Vec::new();
    // (mnemonic, op, opcode, uniform register, offset field). LDG prints its predicate
    // destination whenever it is not PT; LD only with `.ZD`.
    let loads = [
        ("LDG", Op::Ldg, 0x381, UrAt::None, off24, Show::IfModOrNotDefault(7)),
        ("LDG", Op::Ldg, 0x981, UrAt::B, off24, Show::IfModOrNotDefault(7)),
        ("LD", Op::Ld, 0x980, UrAt::None, off32, Show::IfMod(7)),
        ("LD", Op::Ld, 0x980, UrAt::B, off24, Show::IfMod(7)),
    ];
    for (mn, op, opc, ur, off, pd_show) in loads {
        let pd_default = if pd_show == Show::IfMod(7) { 0 } else { 7 };
        v.push(
            uniform_bit(lsu(form(mn, op, opc)), ur)
                .ops([
                    pred(Role::PredDst0, 81, None, false).show(pd_show).default(pd_default),
                    rd().width(BY_SIZE),
                    address(ur, off, true, false),
                ])
                .mods([E, CACHE, LTC, SIZE, LOAD_SEM, SCOPE, PRIVATE, ZD])
                .fixed(64, 4, 0)
                .invalid_when(WIDE_WITHOUT_E)
                .build(),
        );
    }
    // Stores keep their data in bits 32..40, except ST with a register address (Rc field).
    let stores = [
        ("STG", Op::Stg, 0x386, UrAt::None, off24, RB),
        ("STG", Op::Stg, 0x986, UrAt::C, off24, RB),
        ("ST", Op::St, 0x385, UrAt::None, off32, RC),
        ("ST", Op::St, 0x985, UrAt::C, off24, RB),
    ];
    for (mn, op, opc, ur, off, data) in stores {
        v.push(
            uniform_bit(lsu(form(mn, op, opc)), ur)
                .ops([address(ur, off, true, false), reg(Role::Data, data).width(BY_SIZE)])
                .mods([E, CACHE, SIZE, STORE_SEM, SCOPE, PRIVATE])
                .invalid_when(WIDE_WITHOUT_E)
                .reads_late()
                .build(),
        );
    }
    v
}

fn local() -> Vec<Form> {
    let mut v = Vec::new();
    for ur in [UrAt::None, UrAt::B] {
        v.push(
            uniform_bit(lsu(form("LDL", Op::Ldl, 0x983)), ur)
                .ops([rd().width(BY_SIZE), address(ur, bits(40, 24), false, false)])
                .mods([CACHE, SIZE7])
                .build(),
        );
    }
    for (opc, ur) in [(0x387, UrAt::None), (0x987, UrAt::C)] {
        v.push(
            uniform_bit(lsu(form("STL", Op::Stl, opc)), ur)
                .ops([
                    address(ur, bits(40, 24), false, false),
                    reg(Role::Data, RB).width(BY_SIZE),
                ])
                .mods([CACHE, SIZE7])
                .reads_late()
                .build(),
        );
    }
    v
}

/// `LDC Rd, c[bank][Ra+offset]` (signed 16-bit byte offset) and `ULDC URd, c[bank][offset]`.
fn constant() -> Vec<Form> {
    const LDC_SIZE: ModDesc = modifier(
        Mod::Size,
        73,
        3,
        &[(0, ".U8"), (1, ".S8"), (2, ".U16"), (3, ".S16"), (4, ""), (5, ".64")],
        4,
    );
    let indexed = OperandDesc {
        kind: OpKind::CBankIndexed {
            bank: bits(54, 5),
            offset: bits(38, 16),
            reg: bits(RA, 8),
        },
        ..reg(Role::B, RA)
    };
    let ldc = lsu(form("LDC", Op::Ldc, 0xb82))
        .ops([rd().width(BY_SIZE), indexed])
        .mods([
            LDC_SIZE,
            modifier(Mod::LdcMode, 78, 2, &[(0, ""), (1, ".IL"), (2, ".IS"), (3, ".ISL")], 0),
        ])
        .build();
    let direct = OperandDesc {
        kind: OpKind::CBank {
            bank: bits(54, 5),
            offset: bits(38, 16),
            shift: 0,
        },
        ..reg(Role::B, 0)
    };
    let uldc = form("ULDC", Op::Uldc, 0xab9)
        .ops([urd().width(BY_SIZE), direct])
        .mods([LDC_SIZE])
        .uniform_guard()
        .timing(L::Alu, Pipe::Uniform)
        .build();
    vec![ldc, uldc]
}
