//! Hopper's mbarrier instructions (sm_90), ptxas 13.5's lowering of PTX `mbarrier.*` and
//! `cp.async.mbarrier.arrive`. Fields found by flipping the bits of ptxas's sm_90 words
//! (`tests/ampere/mbarrier*.ptx`, `cp_async_mbarrier*.ptx`) under nvdisasm 13.5; bit 91 is
//! set in all of them (clear: "Unrecognized operation", or CCTL's `.IVALL` without an
//! address, not described).
//!
//! * `SYNCS.ARRIVE.TRANS64{.TMASK}{.RED}{.OPTOUT}.<kind> Rd, [Ra+URc+off], Rb` (0x9a7): Rd a
//!   register pair (the barrier before the arrival; RZ under `.RED`) 16..23, Ra 24..31, the
//!   count Rb 32..39, a signed 24-bit offset 40..63, URc 64..69; the operation 70..71 (0
//!   `.ARRIVE`; 1 and 2 print `???n`), `.TMASK` 73, `.RED` 74 (both print `INVALID3`), `.OPTOUT` 75, the kind
//!   84..86 ([`ArrivalKind`](crate::isa::values::ArrivalKind); 0 prints nothing: ptxas's
//!   `mbarrier.arrive.expect_tx`, and `.A0TR` and `.A0TX` are its `mbarrier.expect_tx` and
//!   `mbarrier.complete_tx`, both with `.RED`).
//! * `SYNCS.PHASECHK.TRANS64{.TRYWAIT} Pd, [Ra+URc+off], Rb` (0x5a7): Pd 81..83, Rb 32..39
//!   (a phase in bit 31), the address as ARRIVE's; the operation 70..71 (1; 0 and 3 print
//!   `???n`), `.TRYWAIT` 72.
//! * `SYNCS.EXCH.64 URd, [URa+off], URb` (0x5b2, a uniform guard): URd 16..21, the address a
//!   uniform register alone (24..29) with a signed 24-bit offset 40..63, URb 32..37; the
//!   operation 72..73 (1; 0 and 3 print `???n`). URd and URb are pairs.
//! * `SYNCS.CCTL.{IV|WB} [Ra+URc+off]` (0x9b1): the operation bit 72 (0 `.IV`, 1 `.WB`),
//!   bit 73 clear (set prints `???1`).
//!
//! Timing: as ATOMS (decoupled, registers read after issue): ptxas waits on a write
//! scoreboard for ARRIVE's and PHASECHK's results and lets ARRIVE read a register written
//! 4 cycles before (`tests/ampere/mbarrier.ptx`).

use super::super::sm80::changed;
use crate::flag;
use crate::isa::build::*;
use crate::isa::desc::{Form, LatCat as L, Op, OperandDesc, Pipe, Role};
use crate::isa::sm75::mem::{UrAt, address};

/// The SYNCS forms.
pub fn forms() -> Vec<Form> {
    vec![arrive(), phasechk(), exch(), cctl()]
}

/// Hopper's `ARRIVES.LDGSTSBAR.64` says what it counts in bits 70..71 (1 `.ARVCNT`, 2
/// `.TRANSCNT`; 0 and 3 print nothing and `INVALID3`, not described).
pub fn arrives(forms: &mut Vec<Form>) {
    const COUNTS: &[(u16, &str)] = &[(1, ".ARVCNT"), (2, ".TRANSCNT")];
    changed(
        forms,
        Arch::Sm90,
        |f| f.op == Op::ArrivesLdgstsbar,
        |_, b| b.mods([modifier(Mod::ArrivesCount, 70, 2, COUNTS, 1)]),
    );
}

/// NANOSLEEP gains `.SYNCS` (bit 84, printed last): ptxas's back-off between the two
/// PHASECHKs of an `mbarrier.try_wait` with a time limit (`tests/hopper_isa/mbarrier_tx.ptx`).
pub fn nanosleep(forms: &mut Vec<Form>) {
    changed(
        forms,
        Arch::Sm90,
        |f| f.op == Op::Nanosleep,
        |_, b| b.mods([flag!(Mod::SleepSyncs, 84, ".SYNCS")]),
    );
}

/// A SYNCS form: sm_90, bit 91 set, timed as ATOMS (decoupled, registers read after issue).
fn syncs(mnemonic: &'static str, op: Op, opcode: u16) -> FormBuilder {
    form(mnemonic, op, opcode)
        .since(Arch::Sm90)
        .fixed(UNIFORM_BIT, 1, 1)
        .timing(L::Decoupled, Pipe::Lsu)
        .reads_late()
}

/// The address `[Ra+URc+off24]` of ARRIVE, PHASECHK and CCTL.
fn barrier_address() -> OperandDesc {
    address(UrAt::C, bits(40, 24), false, false)
}

fn arrive() -> Form {
    const KINDS: &[(u16, &str)] = &[
        (0, ""),
        (1, ".A1T0"),
        (2, ".A0T1"),
        (3, ".A0TR"),
        (4, ".A0TX"),
        (5, ".ART0"),
    ];
    syncs("SYNCS.ARRIVE.TRANS64", Op::SyncsArrive, 0x9a7)
        .ops([rd().width(2), barrier_address(), reg(Role::B, RB)])
        .mods([
            flag!(Mod::TxMask, 73, ".TMASK"),
            flag!(Mod::NoResult, 74, ".RED"),
            flag!(Mod::OptOut, 75, ".OPTOUT"),
            modifier(Mod::ArrivalKind, 84, 3, KINDS, 0),
        ])
        .invalid_when(&[(73, true), (74, true)])
        .fixed(70, 2, 0)
        .build()
}

fn phasechk() -> Form {
    syncs("SYNCS.PHASECHK.TRANS64", Op::SyncsPhasechk, 0x5a7)
        .ops([
            pred(Role::PredDst0, 81, None, false),
            barrier_address(),
            reg(Role::B, RB),
        ])
        .mods([flag!(Mod::TryWait, 72, ".TRYWAIT")])
        .fixed(70, 2, 1)
        .build()
}

fn exch() -> Form {
    let at = mem_with(bits(0, 0), bits(40, 24), Some(bits(RA, 6)), None);
    syncs("SYNCS.EXCH.64", Op::SyncsExch, 0x5b2)
        .ops([urd().width(2), at, ureg(Role::B, RB).width(2)])
        .fixed(72, 2, 1)
        .uniform_guard()
        .build()
}

fn cctl() -> Form {
    syncs("SYNCS.CCTL", Op::SyncsCctl, 0x9b1)
        .ops([barrier_address()])
        .mods([modifier(Mod::SyncsCctlOp, 72, 1, &[(0, ".IV"), (1, ".WB")], 0)])
        .fixed(73, 1, 0)
        .build()
}
