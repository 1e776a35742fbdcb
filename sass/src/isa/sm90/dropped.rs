//! What Hopper drops or re-encodes among Ada's forms, found by encoding every Ada form for
//! sm_90 and reading it back with nvdisasm 13.5 (`sass/tests/isa_encoder.rs`):
//!
//! * The half-precision instructions lose the `.F32` source swizzle (value 1 prints
//!   `INVALID1`), and HMUL2 its `.F32` result; HADD2 and HFMA2 keep their `.F32` result.
//! * The tensor cores lose the 4-bit IMMA shapes (IMMA.8832, .16832 and .16864 of
//!   `.U4`/`.S4` print `INVALID`) and BMMA's `.XOR` (only `.AND.POPC` remains). ptxas 13.5
//!   emulates both (`__cuda_sm_9x_mma_sub_byte_internal_*`; two BMMA.AND.POPC per XOR product);
//!   ptxc refuses them on sm_90 (`backend/src/isel/tensor.rs`).
//! * Generic `ATOM.E.ARRIVE.64` / `ATOM.E.POPC.INC.32` (0xf8a) and `WARPSYNC c[..]` (0xb48)
//!   are illegal ("Unrecognized operation"): Hopper's mbarriers are SYNCS instructions.
//! * MUFU's precision becomes a 2-bit field at bits 72..73: 0 f32, 1 `.F16`, 2 `.BF16`
//!   (Ada's `.F16` was bit 73, which Hopper prints `.BF16`; 3 is illegal). `.BF16` forms are
//!   new (ptxas's `ex2.approx.ftz.bf16`, `tanh.approx.bf16`).

use super::super::sm80::{changed, ended};
use crate::isa::arch::Arch;
use crate::isa::build::*;
use crate::isa::desc::{Form, ImmStyle, ModDesc, Op, OperandDesc, SuffixDesc};

/// Applies the deltas.
pub fn apply(forms: &mut Vec<Form>) {
    half_without_f32_sources(forms);
    ended(forms, Arch::Sm90, is_int4_imma);
    changed(
        forms,
        Arch::Sm90,
        |f| matches!(f.op, Op::Bmma | Op::Bmma168128 | Op::Bmma168256),
        |_, b| {
            b.map_mod(Mod::BmmaOp, |m| ModDesc {
                values: &[(2, ".AND.POPC")],
                default: 2,
                ..m
            })
        },
    );
    ended(forms, Arch::Sm90, |f| {
        matches!(f.op, Op::AtomArrive | Op::AtomPopcInc) || (f.op == Op::Warpsync && f.opcode == 0xb48)
    });
    changed(
        forms,
        Arch::Sm90,
        |f| f.op == Op::Mufu,
        |_, b| b.map_mod(Mod::MufuF16, mufu_precision),
    );
    let bf16: Vec<Form> = forms
        .iter()
        .filter(|f| f.op == Op::Mufu && f.archs.since == Arch::Sm90 && is_half_mufu(f))
        .map(mufu_bf16)
        .collect();
    forms.extend(bf16);
}

/// Whether the form is a `.F16` MUFU.
fn is_half_mufu(f: &Form) -> bool {
    f.mods.iter().any(|m| m.id == Mod::MufuF16 && m.default == 1)
}

/// The `.BF16` MUFU of a Hopper `.F16` form (precision field value 2: bit 73 set, bit 72
/// clear); an immediate is one bf16 in bits 32..47 (printed as the f32 of its bits shifted
/// up 16).
fn mufu_bf16(f: &Form) -> Form {
    derive(f)
        .replace_mod(Mod::MufuF16, &[modifier(Mod::Bf16, 73, 1, &[(1, ".BF16")], 1)])
        .fixed(72, 1, 0)
        .map_operands(|o| imm_styled(o, ImmStyle::Bf16))
        .build()
}

/// The half-precision swizzles without `.F32`.
const SWIZZLE: &[(u16, &str)] = &[(0, ""), (2, ".H0_H0"), (3, ".H1_H1")];

/// HADD2, HMUL2, HFMA2 (not HFMA2.MMA), HSET2, HSETP2 and HMNMX2 without `.F32` sources, and
/// HMUL2 without its `.F32` result.
fn half_without_f32_sources(forms: &mut Vec<Form>) {
    let has_f32_source = |f: &Form| {
        f.operands
            .iter()
            .any(|o| o.swizzle.is_some_and(|s| s.values.contains(&(1, ".F32"))))
    };
    changed(
        forms,
        Arch::Sm90,
        |f| !f.mnemonic.ends_with(".MMA") && has_f32_source(f),
        |f, b| {
            let b = b.map_operands(without_f32_swizzle);
            if f.op == Op::Hmul2 {
                b.map_mod(Mod::HalfF32, |m| ModDesc {
                    values: &[(0, "")],
                    ..m
                })
            } else {
                b
            }
        },
    );
}

/// The operand without the `.F32` swizzle.
fn without_f32_swizzle(o: OperandDesc) -> OperandDesc {
    match o.swizzle {
        Some(s) if s.values.contains(&(1, ".F32")) => OperandDesc {
            swizzle: Some(SuffixDesc { values: SWIZZLE, ..s }),
            ..o
        },
        _ => o,
    }
}

/// Whether the form is one of the 4-bit IMMA forms (their types include `.U4`).
fn is_int4_imma(f: &Form) -> bool {
    matches!(f.op, Op::Imma | Op::Imma16816 | Op::Imma16832 | Op::Imma16864)
        && f.mods.iter().any(|m| m.id == Mod::ImmaAType && m.spelling(2).is_some())
}

/// MUFU's precision on Hopper: bits 72..73 (the value keeps Ada's meaning: 1 is `.F16`).
fn mufu_precision(m: ModDesc) -> ModDesc {
    let values: &'static [(u16, &'static str)] = if m.default == 1 { &[(1, ".F16")] } else { &[(0, "")] };
    ModDesc {
        field: bits(72, 2),
        values,
        ..m
    }
}
