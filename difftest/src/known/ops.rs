//! Instruction predicates the open issues name, shared by their matchers.

use crate::program::opcode::{family, has, parts};
use crate::program::{Inst, Operand};

/// The 8- and 16-bit integer types.
pub const NARROW_INTS: [&str; 4] = ["s8", "u8", "s16", "u16"];

/// Whether the opcode of `i` names an 8- or 16-bit integer type.
pub fn has_narrow_int(i: &Inst) -> bool {
    NARROW_INTS.iter().any(|t| has(i, t))
}

/// Whether `i` is a `cvt`.
pub fn is_cvt(i: &Inst) -> bool {
    family(i) == "cvt"
}

/// Whether `i` is a saturating `cvt`.
pub fn is_sat_cvt(i: &Inst) -> bool {
    is_cvt(i) && has(i, "sat")
}

/// The destination and source types of a `cvt` (`cvt.rzi.s8.f32`: s8, f32).
pub fn cvt_types(i: &Inst) -> Option<(&str, &str)> {
    let t = parts(i);
    (is_cvt(i) && t.len() >= 3).then(|| (t[t.len() - 2], t[t.len() - 1]))
}

/// Whether `i` is a `cvt` from type `src` (any destination).
pub fn cvt_from(i: &Inst, src: &[&str]) -> bool {
    cvt_types(i).is_some_and(|(_, s)| src.contains(&s))
}

/// Whether `i` is a `cvt` to type `dst` (any source).
pub fn cvt_to(i: &Inst, dst: &[&str]) -> bool {
    cvt_types(i).is_some_and(|(d, _)| dst.contains(&d))
}

/// Whether `i` is a 16-bit shift (`shl.b16`, `shr.s16` ...).
pub fn shift16(i: &Inst) -> bool {
    matches!(family(i), "shl" | "shr") && i.op.ends_with("16")
}

/// Whether some source of `i` is an immediate.
pub fn has_imm(i: &Inst) -> bool {
    i.srcs.iter().any(|s| matches!(s.op, Operand::Imm(_)))
}

/// Whether every source of `i` is an immediate.
pub fn all_imm(i: &Inst) -> bool {
    !i.srcs.is_empty() && i.srcs.iter().all(|s| matches!(s.op, Operand::Imm(_)))
}

/// Whether `i` is an `abs` of a signed integer (`abs.s16`, `abs.s32`, `abs.s64`).
pub fn abs_int(i: &Inst) -> bool {
    family(i) == "abs" && parts(i).last().is_some_and(|t| t.starts_with('s'))
}

/// Whether `i` is an `abs` of an f32 (`abs.f32`, `abs.ftz.f32`).
pub fn abs_f32(i: &Inst) -> bool {
    family(i) == "abs" && i.op.ends_with(".f32")
}

/// Whether `i` is saturating f32 arithmetic or conversion (`add.sat.f32`,
/// `fma.rn.ftz.sat.f32`, `cvt.sat.f32.f16` ...): its result is in [0.0, 1.0], -0.0 included.
pub fn sat_f32(i: &Inst) -> bool {
    has(i, "sat") && (i.op.ends_with(".f32") || cvt_to(i, &["f32"]))
}

/// Whether `i` is a `cnot`.
pub fn cnot(i: &Inst) -> bool {
    family(i) == "cnot"
}

/// Whether `i` subtracts with borrow-in (`subc`): its result depends on a borrow flag.
pub fn borrow_in(i: &Inst) -> bool {
    family(i) == "subc"
}

/// Whether `i` is a 64-bit atomic on shared memory (as the slice's sites print it).
pub fn shared_atomic64(i: &Inst) -> bool {
    matches!(family(i), "atom" | "red") && has(i, "shared") && i.op.ends_with("64")
}

/// Whether `i` is an atomic (`atom` or `red`).
pub fn atomic(i: &Inst) -> bool {
    matches!(family(i), "atom" | "red")
}
