//! `STSM.16.{M88|MT88}{.2|.4} [Ra(+URc)+offset], Rb` (0x844, sm_90, PTX `stmatrix`): stores
//! one, two or four 8x8 matrices of 16-bit elements to shared memory, the inverse of LDSM.
//! Fields found by flipping ptxas 13.5's sm_90a words (Triton's matmul epilogue) under
//! nvdisasm: the address register and 24-bit offset as STS's (bits 24..31, 40..63), the data
//! registers from bit 32, the matrix count bits 72..73 (0 one, 1 `.2`, 2 `.4`; 3 prints
//! `INVALID3`), bit 78 the transpose (`.MT88`; bit 79 is ignored by nvdisasm, left clear),
//! bit 75 an element size other than 16 bits (prints `???1`, fixed clear); with bit 91 set
//! a uniform register in bits 64..69 is added to the address, as in STS. Timing as STS:
//! variable latency, sources read after issue.

use crate::isa::build::*;
use crate::isa::desc::{Form, LatCat as L, Op, Pipe, Role};
use crate::isa::sm75::mem::{BY_SIZE, UrAt, address, uniform_bit};

/// STSM without and with a uniform register in the address.
pub fn forms() -> Vec<Form> {
    [UrAt::None, UrAt::C]
        .into_iter()
        .map(|ur| {
            uniform_bit(form("STSM.16", Op::Stsm, 0x844), ur)
                .since(Arch::Sm90)
                .ops([
                    address(ur, bits(40, 24), false, false),
                    reg(Role::Data, RB).width(BY_SIZE),
                ])
                .mods([
                    modifier(Mod::LdsmShape, 78, 1, &[(0, ".M88"), (1, ".MT88")], 0),
                    modifier(Mod::LdsmCount, 72, 2, &[(0, ""), (1, ".2"), (2, ".4")], 0),
                ])
                .fixed(75, 1, 0)
                .timing(L::Decoupled, Pipe::Lsu)
                .reads_late()
                .build()
        })
        .collect()
}
