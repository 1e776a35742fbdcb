//! Shared memory: LDS, STS and the matrix load LDSM. Addresses are 32-bit; a register
//! address can be scaled (`[R4.X4]`).

use super::mem::{BY_SIZE, SIZE7, UrAt, address, uniform_bit};
use crate::flag;
use crate::isa::build::*;
use crate::isa::desc::{LatCat as L, Pipe, Role, Show, *};

fn lsu(f: FormBuilder) -> FormBuilder {
    f.timing(L::Decoupled, Pipe::Lsu)
}

/// All shared-memory forms.
pub fn forms() -> Vec<Form> {
    let off = bits(40, 24);
    let mut v = Vec::new();
    for ur in [UrAt::None, UrAt::B] {
        v.push(
            uniform_bit(lsu(form("LDS", Op::Lds, 0x984)), ur)
                .ops([
                    pred(Role::PredDst0, 81, None, false).show(Show::IfMod(2)).default(0),
                    rd().width(BY_SIZE),
                    address(ur, off, false, true),
                ])
                .mods([flag!(Mod::UniformAddr, 76, ".U"), SIZE7, flag!(Mod::ZeroDst, 87, ".ZD")])
                .build(),
        );
    }
    for (opc, ur) in [(0x388, UrAt::None), (0x988, UrAt::C)] {
        v.push(
            uniform_bit(lsu(form("STS", Op::Sts, opc)), ur)
                .ops([address(ur, off, false, true), reg(Role::Data, RB).width(BY_SIZE)])
                .mods([SIZE7])
                .reads_late()
                .build(),
        );
    }
    for ur in [UrAt::None, UrAt::B] {
        v.push(
            uniform_bit(lsu(form("LDSM.16", Op::Ldsm, 0x83b)), ur)
                .ops([rd().width(BY_SIZE), address(ur, off, false, false)])
                .mods([
                    modifier(
                        Mod::LdsmShape,
                        78,
                        2,
                        &[(0, ".M88"), (1, ".MT88"), (2, ".M816"), (3, ".M832")],
                        0,
                    ),
                    modifier(Mod::LdsmCount, 72, 2, &[(0, ""), (1, ".2"), (2, ".4")], 0),
                ])
                .build(),
        );
    }
    v
}
