//! Changes of the core's ALU, control and synchronisation forms: ISETP's `.EX` predicate,
//! MEMBAR without `.MMIO`, BPT's modes, BRA without `.U` and with a uniform-register mask,
//! CCTL's sm_80 operations (`.PML2`, `.DML2`, `.RML2`), BAR.SYNCALL gone on sm_89, HADD2.F32's immediate on sm_86, HFMA2's `.BF16_V2` and `.RELU`
//! (bit 79; not with `.SAT`), WARPSYNC's `.EXCLUSIVE` (bit 86).

use super::{changed, ended};
use crate::flag;
use crate::isa::arch::Arch;
use crate::isa::build::*;
use crate::isa::desc::{Form, ImmStyle, ModDesc, Op, OpKind, OperandDesc, Role, Show};
use crate::isa::values::BarMode;

/// Adds the ALU, control and synchronisation deltas.
pub fn apply(forms: &mut Vec<Form>) {
    let sm80 = Arch::Sm80;
    // The `.EX` input predicate prints only under `.EX` (sm_75: also when not PT).
    changed(
        forms,
        sm80,
        |f| f.op == Op::Isetp,
        |f, b| {
            let ex = f.mod_index(Mod::Ex).expect("ISETP has .EX") as u8;
            b.map_operand(Role::PredSrc1, |o| o.show(Show::IfMod(ex)))
        },
    );
    changed(
        forms,
        sm80,
        |f| f.op == Op::Membar,
        |_, b| b.replace_mod(Mod::Mmio, &[]),
    );
    changed(
        forms,
        sm80,
        |f| f.op == Op::Bpt,
        |_, b| {
            b.map_mod(Mod::BptMode, |m| ModDesc {
                values: &[(3, ".TRAP"), (4, ".INT")],
                ..m
            })
        },
    );
    bra(forms);
    // CCTL by address gains `.PML2`, `.DML2` and `.RML2` (codes 9..11; nvdisasm 13.5 -b SM75
    // rejects them, -b SM80 prints them; ptxas emits `.PML2` for
    // `prefetch.global.L2::evict_last`).
    changed(
        forms,
        sm80,
        |f| f.op == Op::Cctl && f.operands.iter().any(|o| o.role == Role::Addr),
        |_, b| {
            b.map_mod(Mod::CctlOp, |m| ModDesc {
                values: &[
                    (0, ".PF1"),
                    (1, ".PF2"),
                    (2, ".WB"),
                    (3, ".IV"),
                    (5, ".RS"),
                    (9, ".PML2"),
                    (10, ".DML2"),
                    (11, ".RML2"),
                ],
                ..m
            })
        },
    );
    // BAR.SYNCALL: nvdisasm -b SM89 prints nothing for it.
    ended(forms, Arch::Sm89, |f| {
        f.op == Op::Bar
            && f.mods
                .iter()
                .any(|m| m.id == Mod::BarMode && m.default == BarMode::SyncAll.code())
    });
    hadd2_f32_immediate(forms);
    hfma2_bf16(forms);
    // WARPSYNC's register form gains `.EXCLUSIVE` (bit 86; nvdisasm -b SM75 ignores the bit,
    // -b SM80/86/89 print it; the immediate and constant forms ignore it).
    changed(
        forms,
        sm80,
        |f| f.op == Op::Warpsync && f.opcode == 0x348,
        |_, b| b.mods([flag!(Mod::Exclusive, 86, ".EXCLUSIVE")]),
    );
}

/// HFMA2 computes on bf16 pairs under `.BF16_V2` (bit 85; not with `.F32`). An immediate
/// then holds two bf16 values: those forms split into an f16 and a bf16 form.
fn hfma2_bf16(forms: &mut Vec<Form>) {
    let hfma2 = |f: &Form| f.op == Op::Hfma2 && f.opcode & 0xff == 0x31;
    let immediate = |f: &Form| f.operands.iter().any(|o| matches!(o.kind, OpKind::Imm { .. }));
    let bf16_imm: Vec<Form> = forms
        .iter()
        .filter(|f| hfma2(f) && immediate(f))
        .map(|f| {
            derive(f)
                .since(Arch::Sm80)
                .replace_mod(Mod::HalfF32, &[BF16_ONLY])
                .mods([RELU])
                .op_under(Mod::Relu, relu_predicate())
                .invalid_when(SAT_WITH_RELU)
                .map_operands(|o| imm_styled(o, ImmStyle::Bf16x2))
                .build()
        })
        .collect();
    changed(
        forms,
        Arch::Sm80,
        |f| hfma2(f) && !immediate(f),
        |_, b| {
            b.replace_mod(Mod::HalfF32, &[BF16, HALF_F32])
                .invalid_when(&[(78, true), (85, true)])
                .mods([RELU])
                .op_under(Mod::Relu, relu_predicate())
                .invalid_when(SAT_WITH_RELU)
        },
    );
    changed(
        forms,
        Arch::Sm80,
        |f| hfma2(f) && immediate(f) && f.archs.since == Arch::Sm75,
        |_, b| {
            b.mods([RELU])
                .op_under(Mod::Relu, relu_predicate())
                .invalid_when(SAT_WITH_RELU)
        },
    );
    forms.extend(bf16_imm);
}

/// HFMA2's `.RELU` (bit 79, sm_80 on): negative results and NaN become +0.
pub(crate) const RELU: ModDesc = flag!(Mod::Relu, 79, ".RELU");
/// Under `.RELU` nvdisasm prints bits 87..91 as a predicate operand when it is not PT
/// (ptxas writes PT; what another predicate does is not established).
pub(crate) fn relu_predicate() -> OperandDesc {
    crate::isa::sm75::common::ps87()
}

/// `.SAT` and `.RELU` together are no instruction.
pub(crate) const SAT_WITH_RELU: &[(u8, bool)] = &[(77, true), (79, true)];

/// HFMA2's `.F32` (bit 78), as in the core.
const HALF_F32: ModDesc = flag!(Mod::HalfF32, 78, ".F32");
/// HFMA2's `.BF16_V2` (bit 85).
const BF16: ModDesc = flag!(Mod::Bf16, 85, ".BF16_V2");
/// The bf16 immediate forms: `.BF16_V2` always.
const BF16_ONLY: ModDesc = modifier(Mod::Bf16, 85, 1, &[(1, ".BF16_V2")], 1);

/// BRA loses `.U`; `.DIV` and `.CONV` may name a uniform register holding the lanes that must
/// be converged (bit 91, register 24..30, `~` bit 30): `BRA.DIV UR4, target`,
/// `BRA.CONV ~URZ, target`.
fn bra(forms: &mut Vec<Form>) {
    const KINDS: &[(u16, &str)] = &[(0, ""), (2, ".DIV"), (3, ".CONV")];
    let kinds = |m: ModDesc| ModDesc { values: KINDS, ..m };
    let with_mask = {
        let core = forms.iter().find(|f| f.op == Op::Bra).expect("the core has BRA");
        derive(core)
            .since(Arch::Sm80)
            .map_mod(Mod::BranchKind, |m| ModDesc {
                values: &[(2, ".DIV"), (3, ".CONV")],
                default: 2,
                ..m
            })
            .insert_operand(1, ureg(Role::A, RA).not(30))
            .fixed(UNIFORM_BIT, 1, 1)
            .build()
    };
    changed(
        forms,
        Arch::Sm80,
        |f| f.op == Op::Bra,
        |_, b| b.map_mod(Mod::BranchKind, kinds),
    );
    forms.push(with_mask);
}

/// From sm_86 on, HADD2 with an immediate and `.F32` prints one f16 value (the low half);
/// the `.F32` immediate form is described no further (ptxas does not emit it).
fn hadd2_f32_immediate(forms: &mut Vec<Form>) {
    changed(
        forms,
        Arch::Sm86,
        |f| f.op == Op::Hadd2 && f.opcode == 0x430,
        |_, b| {
            b.map_mod(Mod::HalfF32, |m| ModDesc {
                values: &[(0, "")],
                ..m
            })
        },
    );
}
