//! Ampere's and Ada's half-precision and NaN-aware minimum and maximum (each checked bit by
//! bit with nvdisasm 13.5 `-b SM80|SM86|SM89`):
//! * `HMNMX2` (sm_80 on; 0x240 register, 0x840 immediate, 0xa40 constant, no uniform form):
//!   the lane-wise minimum (predicate PT) or maximum (!PT) of two f16 pairs, sources with
//!   HADD2's swizzles, `.BF16_V2` 85 (an immediate then holds two bf16), `.FTZ` 80, `.NAN` 81,
//!   `.XORSIGN` 82 from sm_86 on (bit 78 prints `.F32`, which ptxas does not emit: not
//!   described).
//! * FMNMX gains `.NAN` (bit 81) on sm_80 and `.XORSIGN` (bit 82) on sm_86.

use super::changed;
use crate::flag;
use crate::isa::arch::Arch;
use crate::isa::build::*;
use crate::isa::desc::{Form, ImmStyle, LatCat as L, ModDesc, Op, OpKind, OperandDesc, Pipe};
use crate::isa::sm75::common::{FTZ, ps87};
use crate::isa::sm75::fp16::{ha, slot};

/// `.NAN` (bit 81).
const NAN: ModDesc = flag!(Mod::Nan, 81, ".NAN");
/// `.XORSIGN` (bit 82, sm_86 on).
const XORSIGN: ModDesc = flag!(Mod::XorSign, 82, ".XORSIGN");
/// `.BF16_V2` (bit 85).
const BF16: ModDesc = flag!(Mod::Bf16, 85, ".BF16_V2");
/// `.BF16_V2` always (the bf16 immediate form).
const BF16_ONLY: ModDesc = modifier(Mod::Bf16, 85, 1, &[(1, ".BF16_V2")], 1);

/// The HMNMX2 forms (sm_80 on).
pub fn forms() -> Vec<Form> {
    let placements = [Src2::Reg(1), Src2::Imm(4), Src2::Const(5)];
    let mut v = src2_family(0x040, &placements, ImmStyle::F16x2, |opc, b| {
        let bf16 = if matches!(b.kind, OpKind::Imm { .. }) {
            modifier(Mod::Bf16, 85, 1, &[(0, "")], 0)
        } else {
            BF16
        };
        hmnmx2(opc, b).mods([bf16, FTZ, NAN])
    });
    v.extend(src2_family(0x040, &[Src2::Imm(4)], ImmStyle::Bf16x2, |opc, b| {
        hmnmx2(opc, b).mods([BF16_ONLY, FTZ, NAN])
    }));
    v
}

fn hmnmx2(opc: u16, b: OperandDesc) -> FormBuilder {
    form("HMNMX2", Op::Hmnmx2, opc)
        .since(Arch::Sm80)
        .ops([rd(), ha(), slot(b), ps87()])
        .timing(L::Fp16, Pipe::Fp16)
}

/// Adds `.XORSIGN` to HMNMX2 (sm_86) and `.NAN` / `.XORSIGN` to FMNMX (sm_80 / sm_86).
pub fn apply(forms: &mut Vec<Form>) {
    changed(forms, Arch::Sm80, |f| f.op == Op::Fmnmx, |_, b| b.mods([NAN]));
    changed(
        forms,
        Arch::Sm86,
        |f| matches!(f.op, Op::Fmnmx | Op::Hmnmx2),
        |_, b| b.mods([XORSIGN]),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::desc::Role;

    #[test]
    fn hmnmx2_has_three_placements_and_a_bf16_immediate() {
        let f = forms();
        assert_eq!(f.len(), 4);
        assert!(
            f.iter()
                .all(|f| f.op == Op::Hmnmx2 && f.operand_index(Role::B).is_some())
        );
    }
}
