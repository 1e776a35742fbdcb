//! The encoder: an [`Inst`] to 128 bits, driven by the form table.

use super::bits::bits;
use super::build::{GUARD, GUARD_NEG};
use super::control::ControlError;
use super::desc::{Form, OpKind, OperandDesc};
use super::inst::{Inst, Operand, RZ, Value};

/// Why an instruction cannot be encoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// Wrong number of operands or modifiers for the form.
    #[error("{mnemonic}: expected {expected} {what}, got {got}")]
    Arity {
        /// The form's mnemonic.
        mnemonic: &'static str,
        /// What was counted (operands or modifiers).
        what: &'static str,
        /// How many the form has.
        expected: usize,
        /// How many were given.
        got: usize,
    },
    /// An operand value of the wrong kind for its slot.
    #[error("{mnemonic}: operand {index} ({value:?}) does not fit the form's {kind}")]
    Kind {
        /// The form's mnemonic.
        mnemonic: &'static str,
        /// Operand index.
        index: usize,
        /// The value given.
        value: Value,
        /// The kind of operand the slot takes.
        kind: &'static str,
    },
    /// A value too large for its field.
    #[error("{mnemonic}: operand {index} value {value} does not fit its field")]
    Range {
        /// The form's mnemonic.
        mnemonic: &'static str,
        /// Operand index.
        index: usize,
        /// The value given.
        value: i64,
    },
    /// A modifier value the form does not list.
    #[error("{mnemonic}: modifier {modifier:?} has no value {value}")]
    Modifier {
        /// The form's mnemonic.
        mnemonic: &'static str,
        /// The modifier.
        modifier: crate::isa::Mod,
        /// The value given.
        value: u16,
    },
    /// An operand modifier (neg/abs/not) the slot does not have.
    #[error("{mnemonic}: operand {index} cannot be {what}")]
    OperandModifier {
        /// The form's mnemonic.
        mnemonic: &'static str,
        /// Operand index.
        index: usize,
        /// What was counted (operands or modifiers).
        what: &'static str,
    },
    /// Fields whose values are legal one by one but not together.
    #[error("{mnemonic}: illegal combination of the fields at bits {mask:#x}")]
    Combination {
        /// The form's mnemonic.
        mnemonic: &'static str,
        /// The bits involved.
        mask: u128,
    },
    /// An illegal control code.
    #[error("{0}")]
    Control(#[from] ControlError),
}

/// Encodes `inst` into its 128-bit word.
pub fn encode(inst: &Inst) -> Result<u128, EncodeError> {
    let form = inst.form.form();
    let mut word = form.template;
    GUARD.set(&mut word, inst.guard as u64);
    GUARD_NEG.set(&mut word, u64::from(inst.guard_neg));
    check_arity(form, inst)?;
    for (index, (desc, op)) in form.operands.iter().zip(&inst.operands).enumerate() {
        encode_operand(form, index, desc, op, &mut word)?;
    }
    for (m, &value) in form.mods.iter().zip(&inst.mods) {
        if m.spelling(value).is_none() {
            return Err(EncodeError::Modifier {
                mnemonic: form.mnemonic,
                modifier: m.id,
                value,
            });
        }
        m.set(&mut word, value);
    }
    inst.ctrl.encode_into(&mut word)?;
    // Checked with the control bits: some combinations involve reuse flags.
    if let Some(mask) = form.invalid_combination(word) {
        return Err(EncodeError::Combination {
            mnemonic: form.mnemonic,
            mask,
        });
    }
    Ok(word)
}

fn check_arity(form: &Form, inst: &Inst) -> Result<(), EncodeError> {
    let arity = |what, expected, got| {
        if expected == got {
            Ok(())
        } else {
            Err(EncodeError::Arity {
                mnemonic: form.mnemonic,
                what,
                expected,
                got,
            })
        }
    };
    arity("operands", form.operands.len(), inst.operands.len())?;
    arity("modifiers", form.mods.len(), inst.mods.len())
}

fn encode_operand(
    form: &Form,
    index: usize,
    desc: &OperandDesc,
    op: &Operand,
    word: &mut u128,
) -> Result<(), EncodeError> {
    let mnemonic = form.mnemonic;
    let kind_err = |kind| EncodeError::Kind {
        mnemonic,
        index,
        value: op.value,
        kind,
    };
    let range_err = |value: i64| EncodeError::Range { mnemonic, index, value };
    match (desc.kind, op.value) {
        (OpKind::Gpr { field, .. }, Value::Reg(r))
        | (OpKind::Ugpr { field, .. } | OpKind::UregBlock { field, .. }, Value::UReg(r))
        | (OpKind::SReg { field, .. }, Value::SReg(r))
        | (OpKind::Barrier { field }, Value::Barrier(r)) => {
            if !field.fits_unsigned(r as u64) {
                return Err(range_err(r as i64));
            }
            field.set(word, r as u64);
        }
        (OpKind::Pred { field, neg }, Value::Pred { idx, neg: n })
        | (OpKind::Upred { field, neg }, Value::Pred { idx, neg: n }) => {
            if idx > 7 {
                return Err(range_err(idx as i64));
            }
            field.set(word, idx as u64);
            match neg {
                Some(bit) => bits(bit, 1).set(word, u64::from(n)),
                None if n => return Err(kind_err("non-negatable predicate")),
                None => {}
            }
        }
        (OpKind::UpredInverted { field, neg }, Value::Pred { idx, neg: n }) => {
            if idx > 7 {
                return Err(range_err(idx as i64));
            }
            field.set(word, idx as u64 ^ 7);
            match neg {
                Some(bit) => bits(bit, 1).set(word, u64::from(n)),
                None if n => return Err(kind_err("non-negatable predicate")),
                None => {}
            }
        }
        (OpKind::Gdesc { ureg, flags, .. }, Value::UReg(r)) => {
            if !ureg.fits_unsigned(r as u64) {
                return Err(range_err(r as i64));
            }
            if op.swizzle >> flags.len() != 0 {
                return Err(flag_err(mnemonic, index, "given these flags"));
            }
            ureg.set(word, r as u64);
            for (i, &(b, _)) in flags.iter().enumerate() {
                bits(b, 1).set(word, u64::from(op.swizzle >> i & 1));
            }
        }
        (OpKind::Imm { field, .. }, Value::Imm(v)) => {
            if !field.fits_unsigned(v) {
                return Err(range_err(v as i64));
            }
            field.set(word, v);
        }
        (OpKind::ImmSplit { lo, hi, .. }, Value::Imm(v)) => {
            if v >> (lo.len + hi.len) != 0 {
                return Err(range_err(v as i64));
            }
            lo.set(word, v);
            hi.set(word, v >> lo.len);
        }
        (
            OpKind::CBank { bank, offset, shift },
            Value::CBank {
                bank: b,
                offset: o,
                reg: None,
            },
        ) => {
            let units = o >> shift;
            if !bank.fits_unsigned(b as u64) || units << shift != o || !offset.fits_signed(units as i64) {
                return Err(range_err(o as i64));
            }
            bank.set(word, b as u64);
            offset.set(word, units as u64);
        }
        (
            OpKind::CBankIndexed { bank, offset, reg },
            Value::CBank {
                bank: b,
                offset: o,
                reg: Some(r),
            },
        ) => {
            if !bank.fits_unsigned(b as u64) || !offset.fits_signed(o as i64) {
                return Err(range_err(o as i64));
            }
            bank.set(word, b as u64);
            offset.set(word, o as u64);
            reg.set(word, r as u64);
        }
        (
            OpKind::Mem {
                base,
                offset,
                uniform,
                scale,
            },
            Value::Mem {
                base: b,
                uniform: u,
                offset: o,
                scale: s,
            },
        ) => {
            if !offset.fits_signed(o as i64) {
                return Err(range_err(o as i64));
            }
            if base.len == 0 && b != RZ {
                return Err(kind_err("address with a register where only a uniform one is encoded"));
            }
            base.set(word, b as u64);
            offset.set(word, o as u64);
            match (uniform, u) {
                (Some(f), Some(u)) => f.set(word, u as u64),
                // No uniform register: URZ.
                (Some(f), None) => f.set(word, super::inst::URZ as u64),
                (None, None) => {}
                (None, Some(_)) => return Err(kind_err("address without uniform register")),
            }
            match (scale, s) {
                (Some(f), s) => f.set(word, s as u64),
                (None, 0) => {}
                (None, _) => return Err(kind_err("address without scale")),
            }
        }
        (OpKind::Literal(_), Value::Fixed) => {}
        (OpKind::Rel { field, shift, low }, Value::Rel(off)) => {
            let units = off >> shift;
            let high = low.map_or(units, |l| units >> l.len);
            if units << shift != off || !field.fits_signed(high) {
                return Err(range_err(off));
            }
            if let Some(l) = low {
                l.set(word, units as u64);
            }
            field.set(word, high as u64);
        }
        (kind, _) => return Err(kind_err(kind_name(kind))),
    }
    encode_flag(desc.neg, op.neg, word).map_err(|_| flag_err(mnemonic, index, "negated"))?;
    encode_flag(desc.abs, op.abs, word).map_err(|_| flag_err(mnemonic, index, "absolute"))?;
    encode_flag(desc.not, op.not, word).map_err(|_| flag_err(mnemonic, index, "complemented"))?;
    match desc.swizzle {
        // HGMMA's descriptor flags are the suffix value (set above).
        None if matches!(desc.kind, OpKind::Gdesc { .. }) => {}
        Some(s) if s.values.iter().any(|(v, _)| *v == op.swizzle as u16) => s.field.set(word, op.swizzle as u64),
        Some(_) => return Err(flag_err(mnemonic, index, "given this suffix")),
        None if op.swizzle != 0 => return Err(flag_err(mnemonic, index, "given a suffix")),
        None => {}
    }
    Ok(())
}

fn flag_err(mnemonic: &'static str, index: usize, what: &'static str) -> EncodeError {
    EncodeError::OperandModifier { mnemonic, index, what }
}

fn encode_flag(bit: Option<u8>, set: bool, word: &mut u128) -> Result<(), ()> {
    match bit {
        Some(b) => {
            // A shared neg/not bit may already be set by the other flag.
            if set {
                bits(b, 1).set(word, 1);
            }
            Ok(())
        }
        None if set => Err(()),
        None => Ok(()),
    }
}

/// A short name of an operand kind for messages.
pub fn kind_name(kind: OpKind) -> &'static str {
    match kind {
        OpKind::Gpr { .. } => "register",
        OpKind::Ugpr { .. } => "uniform register",
        OpKind::UregBlock { .. } => "uniform register block",
        OpKind::Pred { .. } => "predicate",
        OpKind::Upred { .. } | OpKind::UpredInverted { .. } => "uniform predicate",
        OpKind::Gdesc { .. } => "warpgroup matrix descriptors",
        OpKind::Imm { .. } | OpKind::ImmSplit { .. } => "immediate",
        OpKind::CBank { .. } => "constant operand",
        OpKind::CBankIndexed { .. } => "indexed constant operand",
        OpKind::Mem { .. } => "memory address",
        OpKind::Rel { .. } => "branch target",
        OpKind::SReg { .. } => "special register",
        OpKind::Barrier { .. } => "convergence barrier",
        OpKind::Literal(_) => "fixed text",
    }
}
