//! Bit counting on the variable-latency pipe: FLO (find leading one), POPC (population
//! count), BREV (bit reverse). The source is in the B slot; FLO and POPC can complement it.

use super::common::*;
use crate::flag;
use crate::isa::build::*;
use crate::isa::desc::{ImmStyle, LatCat as L, OpKind, Pipe, Role, *};

/// Bit 63 complements a register, constant or uniform source (`~R4`).
fn not63(b: OperandDesc) -> OperandDesc {
    match b.kind {
        OpKind::Imm { .. } => b,
        _ => b.not(63),
    }
}

/// All bit-counting forms.
pub fn forms() -> Vec<Form> {
    let mio = |f: FormBuilder| f.timing(L::Decoupled, Pipe::Mufu);
    let mut v = src2_family(0x100, &SRC1_RICU, ImmStyle::Hex, |opc, b| {
        mio(form("FLO", Op::Flo, opc)
            .ops([rd(), opt_pd(Role::PredDst0, 81), not63(no_reuse(b))])
            .mods([SIGNED, flag!(Mod::ShiftAmount, 74, ".SH")]))
    });
    v.extend(src2_family(0x109, &SRC1_RICU, ImmStyle::Hex, |opc, b| {
        mio(form("POPC", Op::Popc, opc).ops([rd(), not63(no_reuse(b))]))
    }));
    v.extend(src2_family(0x101, &SRC1_RICU, ImmStyle::Hex, |opc, b| {
        mio(form("BREV", Op::Brev, opc).ops([rd(), no_reuse(b)]))
    }));
    v
}
