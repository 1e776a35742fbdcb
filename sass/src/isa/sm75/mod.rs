//! The sm_75 (Turing) instruction-set description, the core every later architecture shares:
//! one table per category.
//! Everything here was checked against nvdisasm 13.5 (bit flips, `nvdisasm -b SM75`) and
//! against every instruction ptxas emits for the test PTX (`tests/isa_roundtrip.rs`).
//!
//! Semantics the encodings imply (for the simulator):
//! * `IMAD.HI Rd, A, B, C`: C is a register pair; Rd = high word of A * B + {C+1:C}, Pd =
//!   its carry out (ptxas adds a value to a high word that way). `IMAD.WIDE`: C and Rd pairs.
//! * `IADD3`: Pd0/Pd1 are carry outs; `.X` adds the carry-ins Ps0 (87..91) and Ps1 (77..81),
//!   and the negation bits then mean bitwise NOT (`~R5`), as in LEA.X and IMAD.X.
//! * `SHF`: shifts {C:A}; `.W` wraps the amount (`shf.wrap`), without it the amount clamps
//!   (`shf.clamp`); `.HI` returns the high word; the type gives width and signedness.
//! * `LEA.HI.X.SX32 Rd, A, B, s`: high word of (sign-extended A) << s plus B and the carry.
//! * `RET.REL.NODEC Ra `(f)`: returns to f + Ra (the caller loads Ra with the return offset
//!   relative to f); `CALL.REL.NOINC Ra `(f)` calls f + Ra.
//! * Stores, atomics and reductions read their registers late (read scoreboard).
//! * Modifier values that span two bit ranges (conversion types, `fmz` of HMUL2/HFMA2) are
//!   `low | high << low.len` (see `convert.rs`).

pub(crate) mod atomic;
mod bitcount;
pub(crate) mod common;
mod convert;
mod float;
mod flow;
pub(crate) mod fp16;
mod fp64;
mod imad;
mod int;
pub(crate) mod mem;
mod misc;
mod mma;
mod shared;
mod sync;
mod uniform;
mod warp;

use super::desc::Form;

pub use misc::{SPECIAL_REGS, THREAD_CONSTANT_SREGS, TURING_SREGS, is_thread_constant_sreg};

/// Every sm_75 form: the shared core of all architectures.
pub fn forms() -> Vec<Form> {
    let families: [fn() -> Vec<Form>; 16] = [
        int::forms,
        imad::forms,
        bitcount::forms,
        float::forms,
        fp64::forms,
        fp16::forms,
        convert::forms,
        mem::forms,
        shared::forms,
        atomic::forms,
        warp::forms,
        uniform::forms,
        flow::forms,
        sync::forms,
        misc::forms,
        mma::forms,
    ];
    families.iter().flat_map(|f| f()).collect()
}
