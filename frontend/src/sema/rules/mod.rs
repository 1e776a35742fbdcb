//! Per-opcode checks that the table's columns cannot express: which modifiers go with which
//! types (`.rn` with floats, `.lo` with integers), mandatory rounding of `cvt`, atomic
//! operation/type pairs, and features of later GPUs written on otherwise valid opcodes. One
//! file per family of opcodes; this module holds the shared helpers.

mod arith;
mod async_copy;
mod convert;
mod memory;
mod policy;
mod sync;

pub use arith::*;
pub use async_copy::*;
pub use convert::*;
pub use memory::*;
pub use policy::*;
pub use sync::*;

use crate::ast::{ScalarType, StateSpace};
use crate::checked::*;

/// An extra check on an instruction's modifiers, for a module whose `.target` is sm_`sm`.
pub type Rule = fn(&Mods, u32) -> Result<(), RuleError>;

/// Why a rule refuses an instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuleError {
    /// Invalid PTX: the message.
    Invalid(String),
    /// Valid PTX of a later GPU than ptxc implements it for: what, and the first sm that
    /// has it.
    NeedsSm(String, u32),
}

impl From<String> for RuleError {
    fn from(message: String) -> Self {
        RuleError::Invalid(message)
    }
}

impl RuleError {
    /// The message for a module whose `.target` is `sm_{target}`.
    pub fn message(self, target: u32) -> String {
        match self {
            RuleError::Invalid(m) => m,
            RuleError::NeedsSm(what, sm) => super::features::needs_sm(&what, sm, target),
        }
    }
}

fn ty(m: &Mods) -> ScalarType {
    m.ty().unwrap_or(ScalarType::B32)
}

fn needs_sm(what: &str, sm: u32) -> RuleError {
    RuleError::NeedsSm(what.to_string(), sm)
}

fn is_int(t: ScalarType) -> bool {
    !t.is_float() && t != ScalarType::Pred
}

fn float_only(m: &Mods, name: &str) -> Result<(), RuleError> {
    let t = ty(m);
    if t == ScalarType::F64 && (m.ftz || m.sat) {
        let which = if m.ftz { "ftz" } else { "sat" };
        return Err(format!("`.{which}` is not allowed with `{name}.f64`").into());
    }
    if !t.is_float() {
        if m.rounding.is_some() {
            return Err(format!("`{name}.{}` takes no rounding modifier", t.name()).into());
        }
        if m.ftz {
            return Err(format!("`.ftz` needs a floating-point type, not `.{}`", t.name()).into());
        }
    }
    Ok(())
}

fn no_float_int_rounding(m: &Mods) -> Result<(), RuleError> {
    match m.rounding {
        Some(Rounding::Rni | Rounding::Rzi | Rounding::Rmi | Rounding::Rpi) => {
            Err("integer rounding (`.rni`, `.rzi`, ...) is only for `cvt`"
                .to_string()
                .into())
        }
        _ => Ok(()),
    }
}

fn is_half(t: ScalarType) -> bool {
    matches!(
        t,
        ScalarType::F16 | ScalarType::F16x2 | ScalarType::Bf16 | ScalarType::Bf16x2
    )
}

fn is_bf16(t: ScalarType) -> bool {
    matches!(t, ScalarType::Bf16 | ScalarType::Bf16x2)
}

/// Refuses `what` (first in sm_`first`) in a module for sm_`sm` before it.
fn since(sm: u32, what: &str, first: u32) -> Result<(), RuleError> {
    if sm < first {
        return Err(needs_sm(what, first));
    }
    Ok(())
}

/// Half-precision arithmetic rounds only with `.rn`.
fn half_rounding(m: &Mods, name: &str) -> Result<(), RuleError> {
    let t = ty(m);
    if is_half(t) && m.rounding.is_some_and(|r| r != Rounding::Rn) {
        return Err(format!("`{name}.{}` rounds only with `.rn`", t.name()).into());
    }
    Ok(())
}

/// Half-precision arithmetic: the only rounding is `.rn`; the `.bf16` forms of `add`, `sub`,
/// `mul` and `setp` are sm_90.
fn half_min_sm(m: &Mods, name: &str) -> Result<(), RuleError> {
    half_rounding(m, name)?;
    let t = ty(m);
    if is_bf16(t) {
        return Err(needs_sm(&format!("{name}.{}", t.name()), 90));
    }
    Ok(())
}
