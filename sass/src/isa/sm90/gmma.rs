//! Hopper's warpgroup tensor-core instructions (sm_90a), each field found by flipping the bits
//! of ptxas 13.5's sm_90a words inside the cubin and reading them back with nvdisasm 13.5
//! (`nvdisasm -b SM90` on loose words does not decode these units):
//!
//! * `HGMMA.64xNx16.D{.BF16} Rd, gdesc[URn]{.negA}{.negB}{.tnspA}{.tnspB}, Rc{, UPp}{, gsb0}`
//!   (0x9f0, A and B from shared memory) and `HGMMA.64xNx16.D{.BF16} Rd, {-}Ra,
//!   gdesc[URn]{.negB}{.tnspB}, Rc{, UPp}{, gsb0}` (0xdf0: bit 10 set, A from registers
//!   Ra..Ra+3). Rd and Rc are bits 16..23 and 64..71, N/8 - 1 is bits 53..57 (`64x8x16` to
//!   `64x256x16`; bits 58..59 select another K: 1 prints `64xNx8`, 2 `INVALID`; fixed 0). In
//!   the shared form the uniform register is bits 24..29 and names four: URn, URn+1 hold A's
//!   64-bit matrix descriptor, URn+2, URn+3 B's; in the register form Ra is bits 24..31 and the
//!   uniform register (bits 32..37) names B's descriptor at URn+2 (ptxas keeps other values in
//!   URn, URn+1 across such an HGMMA). Flags: bit 61 `.tnspA` (A MN-major, PTX imm-trans-a
//!   1; ignored in the register form), 62 `.tnspB`, 63 `.negB` (imm-scale-b -1), 72 `.negA`
//!   (the register form prints it as `-Ra`). Bit 75 is the accumulator type (set `.F32`,
//!   clear `.F16`), bits 76..77 the multiplicand type (0 f16, 1 `.BF16`, 2 `.TF32` with K 8:
//!   not described). The scale-d predicate is a uniform predicate stored as its index XOR 7
//!   in bits 87..89 (zero bits: UPT) with its negation in bit 90; nvdisasm prints it unless it
//!   is UPT (ptxas writes `!UPT` when C is known zero, with Rc = RZ). Bits 84..86 are the
//!   group scoreboard the HGMMA arrives on: 0 prints `gsb0` (the last HGMMA before a
//!   `wgmma.commit_group`), 7 nothing, others `INVALIDn`. Bit 73 is the sparse `HGMMA.SP`
//!   (another operand list, fixed clear), bit 91 is set in every HGMMA (clear is illegal).
//!   Bits nvdisasm ignores (30..52 of the shared form, 38..52 of the register form, 60, 74,
//!   78..83, 92..104) are left clear, as ptxas leaves them.
//! * `WARPGROUP.ARRIVE` (0x9c5, PTX `wgmma.fence`): bits 79..80 are the operation (0
//!   `ARRIVE`, 1 `WAIT`, 2 `DEPBAR`; 3 is illegal).
//! * `WARPGROUP.DEPBAR.LE gsb0, n` (0x9c5, operation 2, PTX `wgmma.wait_group n`): bit 47 is
//!   `.LE` (clear prints `???0`), the count bits 72..74, the group scoreboard bits 84..86 (only
//!   0 is legal: others print `???n`).
//! * `FENCE.VIEW.ASYNC.S` (0x3c6, PTX `fence.proxy.async.shared::cta`, after a `MEMBAR.ALL.CTA`;
//!   without a state space after a `MEMBAR.ALL.GPU`): bit 72 selects `.G` (global, PTX
//!   `fence.proxy.async.global`, alone).
//!
//! Timing: HGMMA has no write scoreboard (ptxas sets none); its results come back through
//! the group scoreboard that `WARPGROUP.DEPBAR` waits on, which the simulator models (see
//! `runtime-sim/src/exec/timer.rs`). The category of its register reads is Ampere's
//! double-pass tensor-core one (`LatCat::Mma2x`), a modelling choice: no latency table of
//! sm_90 is published. FENCE.VIEW.ASYNC sets a write scoreboard that the next barrier waits
//! on (variable latency, as MEMBAR); WARPGROUP.ARRIVE and DEPBAR have none.

use crate::isa::build::*;
use crate::isa::desc::{Form, ImmStyle, LatCat as L, OpKind, OperandDesc, Pipe, Role, Show, *};
use crate::isa::inst::Inst;

/// The HGMMA opcodes: A and B from shared memory, or A from registers (bit 10).
const HGMMA_SS: u16 = 0x9f0;
const HGMMA_RS: u16 = 0xdf0;

/// The step (and smallest value) and the largest N of `HGMMA.64xNx16`.
const N_STEP: u32 = 8;
const N_MAX: u32 = 256;

/// The descriptor flags of the shared form in nvdisasm's order: (bit, spelling).
pub const SS_FLAGS: &[(u8, &str)] = &[(72, ".negA"), (63, ".negB"), (61, ".tnspA"), (62, ".tnspB")];
/// The descriptor flags of the register form (A's negation is the register's `-`).
pub const RS_FLAGS: &[(u8, &str)] = &[(63, ".negB"), (62, ".tnspB")];

/// An accumulator type: its spelling (bit 75) and the multiplicand types it allows (bits
/// 76..77).
struct Acc {
    f32: bool,
    dtype: &'static [(u16, &'static str)],
    atypes: &'static [(u16, &'static str)],
}

/// f32 accumulators, with f16 or bf16 multiplicands.
const F32_ACC: Acc = Acc {
    f32: true,
    dtype: &[(1, ".F32")],
    atypes: &[(0, ""), (1, ".BF16")],
};
/// f16 accumulators (f16 multiplicands only).
const F16_ACC: Acc = Acc {
    f32: false,
    dtype: &[(0, ".F16")],
    atypes: &[(0, "")],
};

/// A group-scoreboard operand: `gsb0` in `field` (7: none, printed only when not 7).
fn gsb(field: BitField) -> OperandDesc {
    imm(Role::Other, field, ImmStyle::GroupScoreboard)
        .default(7)
        .show(Show::IfNotDefault)
}

/// HGMMA's scale-d predicate: a uniform predicate stored inverted in bits 87..89, negated by
/// bit 90, printed unless it is UPT.
fn scale_d() -> OperandDesc {
    OperandDesc {
        kind: OpKind::UpredInverted {
            field: bits(87, 3),
            neg: Some(90),
        },
        ..upred(Role::PredSrc0, 87, Some(90), false)
    }
    .show(Show::IfNotDefault)
}

/// The `gdesc[URn]` operand at `field` (with A's descriptor when `a`).
fn gdesc(field: BitField, a: bool, flags: &'static [(u8, &'static str)]) -> OperandDesc {
    OperandDesc {
        kind: OpKind::Gdesc { ureg: field, a, flags },
        ..ureg(Role::B, field.lo)
    }
}

/// `HGMMA.64x<n>x16`: the mnemonic of one N (built once, with the table).
fn hgmma_mnemonic(n: u32) -> &'static str {
    format!("HGMMA.64x{n}x16").leak()
}

/// Registers of an accumulator of N columns: per thread N/2 f32 values or N/4 f16 pairs.
pub fn accumulator_registers(n: u32, f32_acc: bool) -> u8 {
    (if f32_acc { n / 2 } else { n / 4 }) as u8
}

/// The code of N in bits 53..57 (fixed per form, and a modifier of its one value).
pub fn n_code(n: u32) -> u16 {
    (n / N_STEP - 1) as u16
}

/// `Mod::GmmaN` with N's code as its only value: [`crate::isa::make::make`] picks the form of
/// N by it (the field is fixed too, which tells the forms apart when decoding).
fn n_modifier(n: u32) -> ModDesc {
    let values: &'static [(u16, &'static str)] = vec![(n_code(n), "")].leak();
    modifier(Mod::GmmaN, 53, 5, values, n_code(n))
}

/// Makes the values of the 3-bit group-scoreboard field at `lo` other than `legal` illegal
/// combinations (nvdisasm prints them `INVALIDn` or `???n`).
fn invalid_gsb(b: FormBuilder, lo: u8, legal: &[u64]) -> FormBuilder {
    (0..8u64).filter(|v| !legal.contains(v)).fold(b, |b, v| {
        b.invalid_when(&[(lo, v & 1 == 1), (lo + 1, v & 2 == 2), (lo + 2, v & 4 == 4)])
    })
}

/// One HGMMA form: `n` columns, accumulator `acc`, A from shared memory (`rs` false) or from
/// registers.
fn hgmma(n: u32, acc: &Acc, rs: bool) -> Form {
    let width = accumulator_registers(n, acc.f32);
    let mut ops = vec![rd().width(width)];
    if rs {
        ops.push(reg(Role::A, RA).width(4).neg(72));
        ops.push(gdesc(bits(32, 6), false, RS_FLAGS));
    } else {
        ops.push(gdesc(bits(24, 6), true, SS_FLAGS));
    }
    ops.extend([reg(Role::C, RC).width(width), scale_d(), gsb(bits(84, 3))]);
    let b = form(hgmma_mnemonic(n), Op::Hgmma, if rs { HGMMA_RS } else { HGMMA_SS })
        .since(Arch::Sm90a)
        .ops(ops)
        .mods([
            modifier(Mod::HmmaDType, 75, 1, acc.dtype, acc.dtype[0].0),
            modifier(Mod::HmmaAType, 76, 2, acc.atypes, 0),
            n_modifier(n),
        ])
        .fixed(53, 5, u64::from(n / N_STEP - 1))
        .fixed(58, 2, 0)
        .fixed(73, 1, 0)
        .fixed(91, 1, 1)
        .timing(L::Mma2x, Pipe::Tensor);
    invalid_gsb(b, 84, &[0, 7]).build()
}

/// `WARPGROUP.ARRIVE` and `WARPGROUP.DEPBAR.LE gsb0, n`.
fn warpgroup() -> Vec<Form> {
    let arrive = form("WARPGROUP.ARRIVE", Op::WarpgroupArrive, 0x9c5)
        .since(Arch::Sm90a)
        .fixed(79, 2, 0)
        .timing(L::Disp, Pipe::Misc)
        .build();
    let depbar = form("WARPGROUP.DEPBAR", Op::WarpgroupDepbar, 0x9c5)
        .since(Arch::Sm90a)
        .ops([
            imm(Role::A, bits(84, 3), ImmStyle::GroupScoreboard),
            imm(Role::B, bits(72, 3), ImmStyle::Hex),
        ])
        .mods([modifier(Mod::DepbarLe, 47, 1, &[(1, ".LE")], 1)])
        .fixed(79, 2, 2)
        .timing(L::Disp, Pipe::Misc);
    vec![arrive, invalid_gsb(depbar, 84, &[0]).build()]
}

/// `FENCE.VIEW.ASYNC.{S|G}`: the shared-memory (bit 72 clear) or global view.
fn fence_view_async() -> Form {
    form("FENCE.VIEW.ASYNC", Op::FenceViewAsync, 0x3c6)
        .since(Arch::Sm90)
        .mods([modifier(Mod::AsyncView, 72, 1, &[(0, ".S"), (1, ".G")], 0)])
        .timing(L::Decoupled, Pipe::Lsu)
        .build()
}

/// The warpgroup forms of sm_90a (and FENCE.VIEW.ASYNC of sm_90).
pub fn forms() -> Vec<Form> {
    let mut v = Vec::new();
    for n in (N_STEP..=N_MAX).step_by(N_STEP as usize) {
        for acc in [&F32_ACC, &F16_ACC] {
            v.push(hgmma(n, acc, false));
            v.push(hgmma(n, acc, true));
        }
    }
    v.extend(warpgroup());
    v.push(fence_view_async());
    v
}

/// What an HGMMA's flags ask for: A or B negated (PTX imm-scale -1), A or B MN-major
/// (imm-trans 1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GmmaFlags {
    /// `.negA` (or `-Ra`).
    pub neg_a: bool,
    /// `.negB`.
    pub neg_b: bool,
    /// `.tnspA`: A is MN-major in shared memory.
    pub tnsp_a: bool,
    /// `.tnspB`: B is MN-major in shared memory.
    pub tnsp_b: bool,
}

/// The shape and flags of an HGMMA instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GmmaShape {
    /// N (8..256).
    pub n: u32,
    /// A comes from registers (the 0xdf0 form).
    pub a_in_registers: bool,
    /// The descriptor and register flags.
    pub flags: GmmaFlags,
}

/// The shape and flags of `inst`, if it is an HGMMA.
pub fn shape_of(inst: &Inst) -> Option<GmmaShape> {
    let form = inst.desc();
    if form.op != Op::Hgmma {
        return None;
    }
    let n_field = bits(53, 5);
    let n = form
        .fixed
        .iter()
        .find(|(f, _)| *f == n_field)
        .map(|&(_, v)| (v as u32 + 1) * N_STEP)?;
    let mut flags = GmmaFlags::default();
    for (d, op) in form.operands.iter().zip(&inst.operands) {
        match d.kind {
            OpKind::Gdesc { flags: table, .. } => {
                for (i, &(_, spelling)) in table.iter().enumerate() {
                    let on = op.swizzle >> i & 1 == 1;
                    match spelling {
                        ".negA" => flags.neg_a |= on,
                        ".negB" => flags.neg_b |= on,
                        ".tnspA" => flags.tnsp_a |= on,
                        _ => flags.tnsp_b |= on,
                    }
                }
            }
            OpKind::Gpr { .. } if d.role == Role::A => flags.neg_a |= op.neg,
            _ => {}
        }
    }
    Some(GmmaShape {
        n,
        a_in_registers: form.opcode == HGMMA_RS,
        flags,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ptxas_hgmma_words_give_their_shape_and_flags() {
        use crate::isa::{Arch, decode::decode};
        // ptxas 13.5 (sm_90a): `HGMMA.64x32x16.F32 R24, gdesc[UR4].negA.tnspA.tnspB, R24, UP0`
        // and `HGMMA.64x64x16.F32 R24, R56, gdesc[UR4], RZ, !UPT, gsb0`.
        let word = |lo: u64, hi: u64| (hi as u128) << 64 | lo as u128;
        let ss = decode(Arch::Sm90a, word(0x6060_0000_0418_79f0, 0x000f_e200_0bf0_0918), 0).unwrap();
        let s = shape_of(&ss).unwrap();
        assert_eq!((s.n, s.a_in_registers), (32, false));
        let want = GmmaFlags {
            neg_a: true,
            tnsp_a: true,
            tnsp_b: true,
            ..Default::default()
        };
        assert_eq!(s.flags, want);
        let rs = decode(Arch::Sm90a, word(0x00e0_0004_3818_7df0, 0x000f_e600_0c00_08ff), 0).unwrap();
        let s = shape_of(&rs).unwrap();
        assert_eq!((s.n, s.a_in_registers, s.flags), (64, true, GmmaFlags::default()));
    }

    #[test]
    fn accumulators_hold_n_by_64_values_over_128_threads() {
        assert_eq!(accumulator_registers(64, true), 32);
        assert_eq!(accumulator_registers(256, true), 128);
        assert_eq!(accumulator_registers(8, false), 2);
    }
}
