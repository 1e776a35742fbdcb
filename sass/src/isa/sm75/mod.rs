//! The sm_75 (Turing) instruction-set description: every form the encoder, decoder,
//! disassembler, scheduler and simulator know, assembled from one table per category.
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

mod atomic;
mod bitcount;
mod common;
mod convert;
mod float;
mod flow;
mod fp16;
mod fp64;
mod imad;
mod int;
mod mem;
mod misc;
mod shared;
mod sync;
mod uniform;
mod warp;

use super::desc::{Form, Op};
use super::inst::FormId;
use std::collections::HashMap;
use std::sync::OnceLock;

pub use misc::SPECIAL_REGS;

/// The assembled instruction table with lookup indexes.
pub struct Isa {
    forms: Vec<Form>,
    by_opcode: HashMap<u16, Vec<FormId>>,
}

impl Isa {
    fn new() -> Isa {
        let families: [fn() -> Vec<Form>; 15] = [
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
        ];
        let forms: Vec<Form> = families.iter().flat_map(|f| f()).collect();
        let mut by_opcode: HashMap<u16, Vec<FormId>> = HashMap::new();
        for (i, f) in forms.iter().enumerate() {
            by_opcode.entry(f.opcode).or_default().push(FormId(i as u16));
        }
        Isa { forms, by_opcode }
    }

    /// The form with id `id`.
    pub fn form(&self, id: FormId) -> &Form {
        &self.forms[id.0 as usize]
    }

    /// All forms.
    pub fn forms(&self) -> impl Iterator<Item = (FormId, &Form)> {
        self.forms.iter().enumerate().map(|(i, f)| (FormId(i as u16), f))
    }

    /// Candidate forms for the 12-bit opcode.
    pub fn by_opcode(&self, opcode: u16) -> &[FormId] {
        self.by_opcode.get(&opcode).map_or(&[], |v| v.as_slice())
    }

    /// The form of operation `op` whose opcode is `opcode`, if any.
    pub fn find(&self, op: Op, opcode: u16) -> Option<FormId> {
        self.by_opcode(opcode)
            .iter()
            .copied()
            .find(|&id| self.form(id).op == op)
    }

    /// The name nvdisasm prints for special register `n`.
    pub fn special_reg_name(&self, n: u8) -> Option<&'static str> {
        SPECIAL_REGS.iter().find(|(k, _)| *k == n).map(|(_, s)| *s)
    }
}

/// The sm_75 description (built once).
pub fn isa() -> &'static Isa {
    static ISA: OnceLock<Isa> = OnceLock::new();
    ISA.get_or_init(Isa::new)
}
