//! Ampere (sm_80, sm_86) and Ada (sm_89) as deltas of the Turing core: the core forms whose
//! encoding or printing changes end at the architecture before, a changed copy takes over
//! (`changed`), and the instructions these architectures add are new forms. Everything here
//! was checked against nvdisasm 13.5 (`nvdisasm -b SM80|SM86|SM89` on flipped bits) and
//! against every instruction ptxas emits for the test PTX on each target
//! (`sass/tests/isa_roundtrip.rs`, `sass/tests/isa_encoder.rs`).
//!
//! What changes from sm_80 on:
//! * Global and generic accesses carry a memory descriptor: the uniform-address forms' UR
//!   field names a descriptor (bit 76 of loads and stores, bit 71 of atomics and RED;
//!   nvdisasm prints no register) that ptxas loads once with `ULDC.64 UR4, c[0x0][0x118]`.
//!   Semantics and scope become one 4-bit code (bits 77..81, [`MemOrder`](super::values::MemOrder));
//!   the atomic type grows to bits 73..77.
//! * LD and LDS lose their `.ZD` predicate, LDS its `.U`, MEMBAR its `.MMIO`, BRA its `.U`;
//!   BRA.DIV/.CONV may test a uniform register (`BRA.DIV UR4`); ISETP prints its `.EX`
//!   predicate only under `.EX`; BPT keeps TRAP and INT.
//! * New instructions: see [`new`], [`async_copy`] (LDGSTS, LDGDEPBAR) and [`mma`] (the
//!   Ampere tensor-core shapes).

mod async_copy;
mod core;
mod memory;
mod minmax;
mod mma;
mod new;

use super::arch::{Arch, Archs};
use super::build::{FormBuilder, derive};
use super::desc::Form;
use super::desc::Op;

/// Adds the Ampere and Ada deltas to the core forms.
pub fn apply(forms: &mut Vec<Form>) {
    // Turing's tensor-core forms end at sm_75: Ampere drops HMMA.884 and re-encodes the
    // shapes (the IMMA shape field grows bit 86, BMMA gains `.AND` and the m16n8 shapes);
    // all of its forms, Turing's shapes included, are in [`mma`].
    ended(forms, Arch::Sm80, |f| {
        matches!(f.op, Op::Hmma884 | Op::Hmma1688 | Op::Imma | Op::Bmma)
    });
    new::add(forms);
    forms.extend(minmax::forms());
    forms.extend(mma::forms());
    forms.extend(async_copy::forms());
    memory::apply(forms);
    core::apply(forms);
    minmax::apply(forms);
    new::ada(forms);
}

/// Ends every form valid on `arch` that `which` selects at the architecture before, and adds
/// `change` of it from `arch` on (up to where the original ended).
pub(crate) fn changed(
    forms: &mut Vec<Form>,
    arch: Arch,
    which: impl Fn(&Form) -> bool,
    change: impl Fn(&Form, FormBuilder) -> FormBuilder,
) {
    let before = arch.previous().expect("a delta follows an architecture");
    let mut added = Vec::new();
    for f in forms.iter_mut().filter(|f| f.archs.contains(arch) && which(f)) {
        let archs = Archs {
            since: arch,
            until: f.archs.until,
        };
        added.push(change(f, derive(f).archs(archs)).build());
        f.archs.until = Some(before);
    }
    assert!(!added.is_empty(), "a delta of {arch} selects no form");
    forms.extend(added);
}

/// Ends every form valid on `arch` that `which` selects at the architecture before.
pub(crate) fn ended(forms: &mut [Form], arch: Arch, which: impl Fn(&Form) -> bool) {
    let before = arch.previous().expect("a delta follows an architecture");
    let mut any = false;
    for f in forms.iter_mut().filter(|f| f.archs.contains(arch) && which(f)) {
        f.archs.until = Some(before);
        any = true;
    }
    assert!(any, "ending forms at {arch} selects none");
}
