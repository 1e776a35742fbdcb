//! Hopper (sm_90) as a delta of Ada: the forms whose encoding or printing changes end at
//! sm_89 and a changed copy takes over. Checked against nvdisasm 13.5 (`nvdisasm -b SM90` on
//! flipped bits) and against every instruction ptxas emits for the test PTX on sm_90
//! (`sass/tests/isa_roundtrip.rs`).
//!
//! What changes:
//! * Branch and call targets are split: the low 8 bits of the offset (in 4-byte units) move
//!   to bits 16..23, the rest stays from bit 34 on (BRA, CALL, RET; BSSY keeps its field).
//! * nvdisasm prints the memory descriptor of global and generic accesses whenever their
//!   descriptor flag is set (`LDG.E R2, desc[UR4][R2.64]`), not only with a cache policy.
//! * Global reductions print as `REDG`.
//! * R2UR has a fixed latency (13 cycles, no scoreboard: `uniform_timing::uraw`).
//! * R2UR moves from opcode 0x3c2 (illegal on sm_90) to 0x2ca, with a reuse flag on its
//!   register and `.OR` (bit 84) for its predicate output.
//! * New: `VIADD Rd, Ra, B` (0x?36), a 32-bit add (`.16x2`, bit 73, not described).
//! * `WARPSYNC.ALL` (0x948) has no mask (bits 32..63 print nothing); the register form
//!   (0x348) takes its mask from Ra (bits 24..31) instead of Rb.
//! * Special registers 0x41, 0x86..0x89 and 0x8b get names (`SR_CgaCtaId`, ...), and 0x18
//!   is `SR_SW_SCRATCH` (Turing's `SR_MACHINE_ID_0`; `S2R` of every number under
//!   `nvdisasm -b SM90`).
//! * WARPSYNC's `.EXCLUSIVE` moves from bit 86 to bit 85; bit 86 is `.COLLECTIVE`, with a
//!   target, closed by `ENDCOLLECTIVE` ([`collective`]).
//! * New: `LEPC Rd, target` (0x94e): the address of a code label (a byte offset in bits
//!   24..81 from the next instruction), where sm_75's LEPC gives the program counter.
//! * HFMA2.MMA gains `.BF16_V2` (bit 85).
//! * DMMA.884 prints as `DMMA.8x8x4`.
//! * Atomics: integer type codes move, float types get forms of their own (`atomics.rs`).
//! * BRA has `.U` again and `.U.ANY` (bit 84): the group branches when any lane takes it.
//! * QSPC's `.D` (code 3) asks for the cluster's shared memory; RED prints as REDG always.
//! * New: `VIADDMNMX` (0x?46), min/max of a sum (Hopper's DPX).
//! * New: `CGAERRBAR` (0x5ab), the cluster's error barrier (a no-op in the simulator, as
//!   `ERRBAR`: the simulator reports no asynchronous memory errors).
//! * ATOMS.ARRIVE and ATOMS.POPC.INC move to operations 10 and 11 (bits 87..90).
//! * I2IP's `.SAT` is bit 74, set (nvdisasm SM90 prints no `.SAT` when it is clear).
//! * DADD, DMUL, DFMA and DSETP have a fixed latency without a write scoreboard
//!   (`LatCat::Fp64Coupled`).
//! * New: the warpgroup tensor-core instructions of sm_90a (HGMMA, WARPGROUP.ARRIVE,
//!   WARPGROUP.DEPBAR) and `FENCE.VIEW.ASYNC.S` ([`gmma`]); `UIADD3.64`, the 64-bit uniform
//!   add (`uniform`); `STSM`, the matrix store (`stsm`).
//! * New: the TMA instructions (UTMALDG, UTMASTG, UTMAREDG, UTMAPF, UTMACCTL, UTMACMDFLUSH:
//!   [`tma`]), the bulk copies (UBLKCP, UBLKRED, UBLKPF: [`bulk`]), the cluster barrier
//!   (UCGABAR_ARV, UCGABAR_WAIT) and USETMAXREG ([`cluster`]); the asynchronous stores and
//!   reductions into a cluster's shared memory (STAS, REDAS: [`async_store`]).
//! * New: `VIMNMX Rd, Ra, B, Ps` (0x?48), IMNMX's successor: the type in bits 72..73
//!   (`.U32`, signed, `.U16x2`, `.S16x2`), `.RELU` bit 76; its two predicate outputs (which
//!   ptxas leaves PT) are not described.

mod async_store;
mod atomics;
mod bulk;
mod cluster;
mod collective;
mod dropped;
mod elect;
pub mod gmma;
mod stsm;
mod syncs;
mod tma;
mod uniform;

use super::sm80::changed;
use crate::flag;
use crate::isa::arch::Arch;
use crate::isa::build::*;
use crate::isa::desc::{Form, ImmStyle, LatCat as L, ModDesc, Op, OpKind, OperandDesc, Pipe, Role, SRegNames};
use crate::isa::sm75::TURING_SREGS;
use crate::isa::sm75::common::{neg63, ps87};

/// Adds the Hopper deltas.
pub fn apply(forms: &mut Vec<Form>) {
    changed(forms, Arch::Sm90, has_far_target, |f, b| {
        let b = b.map_operand(Role::Target, split_target);
        if f.op == Op::Bra { any_branch(f, b) } else { b }
    });
    // RED prints as REDG, with or without a descriptor. (Each `changed` moves the forms it
    // selects to the end of the table, and the encoder takes the first form that fits: the
    // register-address RED must stay before the uniform-address one, so all are renamed at
    // once, before the descriptor delta moves the uniform ones.)
    changed(forms, Arch::Sm90, |f| f.op == Op::Red, |_, b| b.mnemonic("REDG"));
    changed(
        forms,
        Arch::Sm90,
        |f| f.mod_index(Mod::Desc).is_some(),
        |_, b| b.desc_printed(),
    );
    changed(
        forms,
        Arch::Sm90,
        |f| f.op == Op::R2ur,
        |f, b| {
            // Fixed latency without a scoreboard (`uniform_timing::uraw`).
            b.opcode(0x2ca)
                .map_operand(Role::A, |o| o.reuse(0))
                .mods([flag!(Mod::OrPred, 84, ".OR")])
                .timing(L::Alu, f.meta.pipe)
        },
    );
    // HADD2.F32 takes no reuse flag on A or B: nvdisasm 13.5 rejects bits 122 and 123 with
    // `.F32` (bit 78) set ("undefined value 0x31 / 0x51 for table 'TABLES_opex_8'", opclass
    // `hadd2_F32__RR`; probed by flipping the bits of ptxc's `HADD2.F32 R14, R8.reuse.H0_H0,
    // -RZ.H0_H0`), and prints bit 124 as B's reuse flag.
    changed(
        forms,
        Arch::Sm90,
        |f| f.op == Op::Hadd2,
        |_, b| {
            b.invalid_when(&[(78, true), (122, true)])
                .invalid_when(&[(78, true), (123, true)])
        },
    );
    dropped::apply(forms);
    forms.extend(viadd());
    forms.extend(viaddmnmx());
    forms.extend(gmma::forms());
    forms.extend(stsm::forms());
    forms.extend(elect::forms());
    forms.extend(syncs::forms());
    forms.extend(collective::forms());
    forms.extend(tma::forms());
    forms.extend(bulk::forms());
    forms.extend(cluster::forms());
    forms.extend(async_store::forms());
    syncs::arrives(forms);
    syncs::nanosleep(forms);
    uniform::apply(forms);
    atomics::apply(forms);
    // HFMA2.MMA gains `.BF16_V2` (bit 85, printed first): ptxas's bf16 `fma` on sm_90. Not
    // on the immediate forms, whose immediates then hold two bf16 (not described).
    changed(
        forms,
        Arch::Sm90,
        |f| f.op == Op::Hfma2 && f.mnemonic == "HFMA2.MMA" && !matches!(f.opcode, 0x435 | 0x835),
        |f, b| b.replace_mod(f.mods[0].id, &[flag!(Mod::Bf16, 85, ".BF16_V2"), f.mods[0]]),
    );
    // DMMA.884 is printed DMMA.8x8x4 (same encoding).
    changed(forms, Arch::Sm90, |f| f.op == Op::Dmma, |_, b| b.mnemonic("DMMA.8x8x4"));
    // QSPC gains `.D` (code 3): the shared memory of the CTA's cluster.
    changed(
        forms,
        Arch::Sm90,
        |f| f.op == Op::Qspc,
        |_, b| {
            b.map_mod(Mod::QspcSpace, |m| ModDesc {
                values: QSPC_SPACES,
                ..m
            })
        },
    );
    // ATOMS.ARRIVE and ATOMS.POPC.INC: operations 10 and 11 in bits 87..90 (9 and 10 on
    // Ampere), found by patching ptxas's sm_90 ATOMS.POPC.INC under nvdisasm.
    changed(
        forms,
        Arch::Sm90,
        |f| matches!(f.op, Op::AtomsArrive | Op::AtomsPopcInc),
        |f, b| {
            let op = if f.op == Op::AtomsArrive { 10 } else { 11 };
            b.unfix(bits(87, 4)).fixed(87, 4, op)
        },
    );
    // CGAERRBAR: only a guard; nvdisasm SM90 prints the same text whatever bits 16..90 hold.
    forms.push(
        form("CGAERRBAR", Op::Cgaerrbar, 0x5ab)
            .since(Arch::Sm90)
            .timing(L::Decoupled, Pipe::Lsu)
            .build(),
    );
    // I2IP's saturation is a bit: set for `.SAT`, which is all that ptxas and ptxc emit
    // (sm_86 and sm_89 print `.SAT` when bit 74 is clear; sm_90 when it is set).
    changed(
        forms,
        Arch::Sm90,
        |f| f.op == Op::I2ip,
        |_, b| b.replace_mod(Mod::Sat, &[modifier(Mod::Sat, 74, 1, &[(1, ".S32.SAT")], 1)]),
    );
    // Double precision is fixed-latency without a scoreboard (`LatCat::Fp64Coupled`).
    changed(
        forms,
        Arch::Sm90,
        |f| matches!(f.op, Op::Dadd | Op::Dmul | Op::Dfma | Op::Dsetp),
        |f, b| b.timing(L::Fp64Coupled, f.meta.pipe),
    );
    changed(
        forms,
        Arch::Sm90,
        |f| f.op == Op::Warpsync && f.opcode == 0x948,
        |_, b| b.mnemonic("WARPSYNC.ALL").remove_operand(Role::B),
    );
    changed(
        forms,
        Arch::Sm90,
        |f| f.op == Op::Warpsync && f.opcode == 0x348,
        |_, b| {
            let b = b
                .map_operand(Role::B, |_| reg(Role::B, RA))
                .replace_mod(Mod::Exclusive, &[flag!(Mod::Exclusive, 85, ".EXCLUSIVE")]);
            collective::warpsync(b)
        },
    );
    forms.push(lepc());
    forms.extend(vimnmx());
    changed(forms, Arch::Sm90, has_sreg, |_, b| b.map_operand(Role::A, hopper_sregs));
}

/// LEPC with a code label: Rd = the label's address.
fn lepc() -> Form {
    form("LEPC", Op::Lepc, 0x94e)
        .since(Arch::Sm90)
        .ops([rd(), rel(bits(24, 58))])
        .timing(L::Alu, Pipe::Alu)
        .build()
}

/// VIMNMX with B a register, an immediate, a constant or a uniform register: the type in
/// bits 72..73 ([`MinMaxType`](crate::isa::values::MinMaxType)), `.RELU` bit 76, Ps the
/// minimum (PT) or maximum (!PT), as ptxas's `min`/`max` of u32, s32, u16x2 and s16x2 show.
fn vimnmx() -> Vec<Form> {
    const TYPES: &[(u16, &str)] = &[(0, ".U32"), (1, ""), (2, ".U16x2"), (3, ".S16x2")];
    src2_family(0x048, &SRC2_RICU, ImmStyle::SignedHex, |opc, b| {
        form("VIMNMX", Op::Imnmx, opc)
            .since(Arch::Sm90)
            .ops([rd(), reg(Role::A, RA).reuse(0), b, ps87()])
            .mods([
                modifier(Mod::MinMaxType, 72, 2, TYPES, 1),
                flag!(Mod::Relu, 76, ".RELU"),
            ])
            // Two predicate outputs (81..83, 84..86) whose meaning is not established:
            // ptxas leaves them PT.
            .fixed(81, 3, 7)
            .fixed(84, 3, 7)
            .timing(L::Alu, Pipe::Alu)
    })
}

/// `VIADDMNMX Rd, A, B, C, Ps` (0x?46) in every three-source placement: B is negated by bit 63
/// in bits 32..63 and by bit 75 when it sits in the C field (R, R, imm / c[] / UR); bit 72 is
/// signed (clear: `.U32`); `.S16x2` (73) and `.RELU` (76) are not described. It times as an
/// ALU instruction: ptxas 13.5 reads its result with SHF 4 cycles later (`createpolicy_range`).
fn viaddmnmx() -> Vec<Form> {
    const SIGNED72: ModDesc = modifier(Mod::Signed, 72, 1, &[(0, ".U32"), (1, "")], 1);
    src3_family(0x046, &ALL_SRC3, ImmStyle::Hex, |opc, p, b, c| {
        let b = if matches!(p, Src3::Rri | Src3::Rrc | Src3::Rru) {
            b.neg(75)
        } else {
            neg63(b)
        };
        form("VIADDMNMX", Op::Viaddmnmx, opc)
            .since(Arch::Sm90)
            .ops([rd(), reg(Role::A, RA).reuse(0), b, c, ps87()])
            .mods([SIGNED72])
            .timing(L::Alu, Pipe::Alu)
    })
}

/// BRA's kinds on Hopper: `.U` is back (Ampere and Ada print no `.U`), and bit 84 adds `.ANY`
/// to it (nvdisasm prints nothing for bit 84 without `.U`, which is not described).
const BRA_KINDS: ModDesc = split_modifier(
    Mod::BranchKind,
    bits(32, 2),
    bits(84, 1),
    &[(0, ""), (1, ".U"), (2, ".DIV"), (3, ".CONV"), (5, ".U.ANY")],
    0,
);

/// The plain BRA (not the forms with a uniform-register mask) with [`BRA_KINDS`].
fn any_branch(f: &Form, b: FormBuilder) -> FormBuilder {
    if f.operand_index(Role::A).is_some() {
        return b;
    }
    b.replace_mod(Mod::BranchKind, &[BRA_KINDS])
}

/// QSPC's spaces on Hopper.
const QSPC_SPACES: &[(u16, &str)] = &[(0, ".G"), (1, ".L"), (2, ".S"), (3, ".D")];

/// VIADD with B a register, an immediate, a constant or a uniform register. It times as
/// IMAD (FMA pipe), not as IADD3: ptxas 13.5's sm_90 code reads IMAD.WIDE's upper result with
/// VIADD 4 cycles later (`ldmatrix`) and VIADD's result with IMAD 4 cycles later
/// (`div_ftz`), where an ALU pair needs 5 (the SASS of the conformance set).
fn viadd() -> Vec<Form> {
    src2_family(0x036, &SRC2_RICU, ImmStyle::Hex, |opc, b| {
        form("VIADD", Op::Viadd, opc)
            .since(Arch::Sm90)
            .ops([rd(), reg(Role::A, RA).reuse(0), neg63(b)])
            .timing(L::ImadLo, Pipe::Fma)
    })
}

/// Hopper's special-register names beyond Turing's.
pub static HOPPER_SREGS: SRegNames = SRegNames {
    own: &[
        (0x18, "SR_SW_SCRATCH"),
        (0x41, "SR_CGAERRORSTATUS"),
        (0x86, "SR_WARPGROUP_INFO"),
        (0x87, "SR_WARPGROUPID"),
        (0x88, "SR_CgaCtaId"),
        (0x89, "SR_GpcLocalCgaId"),
        (0x8b, "SR_CTARegPoolSz"),
    ],
    base: Some(&TURING_SREGS),
};

/// Whether the form reads a special register.
fn has_sreg(f: &Form) -> bool {
    f.operands.iter().any(|o| matches!(o.kind, OpKind::SReg { .. }))
}

/// The special-register operand with Hopper's names.
fn hopper_sregs(o: OperandDesc) -> OperandDesc {
    match o.kind {
        OpKind::SReg { field, .. } => OperandDesc {
            kind: OpKind::SReg {
                field,
                names: &HOPPER_SREGS,
            },
            ..o
        },
        _ => o,
    }
}

/// The low bits of a split target: bits 16..23.
const TARGET_LOW: BitField = bits(16, 8);

/// Whether the form's target is a 48-bit offset or address at bit 34 (BRA, CALL, RET).
fn has_far_target(f: &Form) -> bool {
    f.operands.iter().any(|o| {
        o.role == Role::Target
            && matches!(o.kind, OpKind::Rel { field, low: None, .. } | OpKind::Imm { field, .. } if field == bits(34, 48))
    })
}

/// The target with its low 8 bits in bits 16..23.
fn split_target(o: OperandDesc) -> OperandDesc {
    let kind = match o.kind {
        OpKind::Rel { field, shift, .. } => OpKind::Rel {
            field,
            shift,
            low: Some(TARGET_LOW),
        },
        OpKind::Imm { field, style } => OpKind::ImmSplit {
            lo: TARGET_LOW,
            hi: field,
            style,
        },
        other => other,
    };
    OperandDesc { kind, ..o }
}
