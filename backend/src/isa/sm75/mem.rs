//! Memory instructions: global loads and stores (LDG, STG).

use crate::flag;
use crate::isa::build::*;
use crate::isa::desc::{LatCat as L, Op, Pipe, Role, *};

/// `.E`: 64-bit address.
pub const E: ModDesc = flag!("e", 72, ".E");
/// Access size; the register width of the data operand follows it.
pub const SIZE: ModDesc = modifier(
    "size",
    73,
    3,
    &[
        (0, ".U8"),
        (1, ".S8"),
        (2, ".U16"),
        (3, ".S16"),
        (4, ""),
        (5, ".64"),
        (6, ".128"),
    ],
    4,
);
const SEMANTIC: ModDesc = modifier(
    "sem",
    79,
    2,
    &[(0, ".CONSTANT"), (1, ""), (2, ".STRONG"), (3, ".MMIO")],
    1,
);
const SCOPE: ModDesc = modifier("scope", 77, 2, &[(0, ".CTA"), (1, ".SM"), (2, ".GPU"), (3, ".SYS")], 3);
const PRIVATE: ModDesc = flag!("private", 76, ".PRIVATE");
const CACHE: ModDesc = modifier(
    "cache",
    84,
    3,
    &[(0, ".EF"), (1, ""), (2, ".EL"), (3, ".LU"), (4, ".EU"), (5, ".NA")],
    1,
);

/// Register width 0 means "from the size modifier".
const BY_SIZE: u8 = 0;

/// All memory forms.
pub fn forms() -> Vec<Form> {
    let lsu = |f: FormBuilder| f.timing(L::Decoupled, Pipe::Lsu);
    vec![
        lsu(form("LDG", Op::Ldg, 0x381)
            .ops([rd().width(BY_SIZE), mem(RA)])
            .mods([E, SIZE, PRIVATE, SEMANTIC, SCOPE, CACHE])
            .fixed(81, 3, 7))
        .build(),
        lsu(form("STG", Op::Stg, 0x386)
            .ops([mem(RA), reg(Role::Data, RB).width(BY_SIZE)])
            .mods([E, SIZE, PRIVATE, SEMANTIC, SCOPE, CACHE]))
        .reads_late()
        .timing(L::Decoupled, Pipe::Lsu)
        .build(),
    ]
}
