//! The decoder: 128 bits to an [`Inst`], driven by the form table. It never panics: an
//! encoding that no form explains exactly is an error carrying the raw words.

use super::arch::Arch;
use super::bits::{bits, to_words};
use super::build::{GUARD, GUARD_NEG, OPCODE};
use super::control::Control;
use super::desc::{Form, OpKind, OperandDesc};
use super::inst::{FormId, Inst, Operand, RZ, Value};
use super::table::{NotDescribed, arch_view};
use smallvec::SmallVec;

/// Why a word does not decode.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// No form has this opcode.
    #[error("unknown opcode {opcode:#05x} at offset {offset:#x} (words {w0:#018x} {w1:#018x})")]
    UnknownOpcode {
        /// Bits 0..12 of the word.
        opcode: u16,
        /// Byte offset of the instruction.
        offset: u64,
        /// First instruction word.
        w0: u64,
        /// Second instruction word.
        w1: u64,
    },
    /// The opcode is known but some bits match none of its forms.
    #[error("unsupported encoding of {mnemonic} at offset {offset:#x} (words {w0:#018x} {w1:#018x}): {why}")]
    Illegal {
        /// The form's mnemonic.
        mnemonic: &'static str,
        /// Byte offset of the instruction.
        offset: u64,
        /// First instruction word.
        w0: u64,
        /// Second instruction word.
        w1: u64,
        /// Why no form fits.
        why: String,
    },
    /// The code size is not a multiple of 16 bytes.
    #[error("code size {0} is not a multiple of 16 bytes")]
    Truncated(usize),
    /// The architecture's instruction set is not described.
    #[error(transparent)]
    NotDescribed(#[from] NotDescribed),
}

/// Decodes one instruction of `arch` found at byte `offset` (used in error messages).
pub fn decode(arch: Arch, word: u128, offset: u64) -> Result<Inst, DecodeError> {
    let (w0, w1) = to_words(word);
    let opcode = OPCODE.get(word) as u16;
    let candidates = arch_view(arch)?.by_opcode(opcode);
    let mut last_why = String::new();
    for &id in candidates {
        match decode_form(id, id.form(), word) {
            Ok(inst) => return Ok(inst),
            Err(why) => last_why = why,
        }
    }
    match candidates.first() {
        None => Err(DecodeError::UnknownOpcode { opcode, offset, w0, w1 }),
        Some(&id) => Err(DecodeError::Illegal {
            mnemonic: id.form().mnemonic,
            offset,
            w0,
            w1,
            why: last_why,
        }),
    }
}

/// Every form of `arch` that explains `word` exactly. The table keeps forms disjoint, so this
/// is at most one; the tests check that.
pub fn matching_forms(arch: Arch, word: u128) -> Result<Vec<FormId>, NotDescribed> {
    let opcode = OPCODE.get(word) as u16;
    Ok(arch_view(arch)?
        .by_opcode(opcode)
        .iter()
        .copied()
        .filter(|&id| decode_form(id, id.form(), word).is_ok())
        .collect())
}

/// Decodes a whole code section of `arch` (a multiple of 16 bytes).
pub fn decode_all(arch: Arch, code: &[u8]) -> Result<Vec<Inst>, DecodeError> {
    if !code.len().is_multiple_of(16) {
        return Err(DecodeError::Truncated(code.len()));
    }
    code.chunks_exact(16)
        .enumerate()
        .map(|(i, c)| {
            decode(
                arch,
                u128::from_le_bytes(c.try_into().expect("16-byte chunk")),
                i as u64 * 16,
            )
        })
        .collect()
}

fn decode_form(id: FormId, form: &Form, word: u128) -> Result<Inst, String> {
    let stray = (word ^ form.template) & !form.covered;
    if stray != 0 {
        return Err(format!("bits {:#x} are not understood", stray));
    }
    if let Some(mask) = form.invalid_combination(word) {
        return Err(format!("the fields at bits {mask:#x} do not go together"));
    }
    let operands = form
        .operands
        .iter()
        .map(|d| decode_operand(d, word))
        .collect::<Result<SmallVec<_>, _>>()?;
    let mut mods = SmallVec::new();
    for m in &form.mods {
        let v = m.get(word);
        if m.spelling(v).is_none() {
            return Err(format!("modifier {:?} has unknown value {v}", m.id));
        }
        mods.push(v);
    }
    let ctrl = Control::decode(word);
    ctrl.validate().map_err(|e| e.to_string())?;
    Ok(Inst {
        form: id,
        guard: GUARD.get(word) as u8,
        guard_neg: GUARD_NEG.get(word) == 1,
        operands,
        mods,
        ctrl,
    })
}

fn decode_operand(d: &OperandDesc, word: u128) -> Result<Operand, String> {
    let value = match d.kind {
        OpKind::Gpr { field, .. } => Value::Reg(field.get(word) as u8),
        OpKind::Ugpr { field, .. } | OpKind::UregBlock { field, .. } => Value::UReg(field.get(word) as u8),
        OpKind::Pred { field, neg } | OpKind::Upred { field, neg } => Value::Pred {
            idx: field.get(word) as u8,
            neg: neg.is_some_and(|b| bits(b, 1).get(word) == 1),
        },
        OpKind::UpredInverted { field, neg } => Value::Pred {
            idx: field.get(word) as u8 ^ 7,
            neg: neg.is_some_and(|b| bits(b, 1).get(word) == 1),
        },
        OpKind::Gdesc { ureg, .. } => Value::UReg(ureg.get(word) as u8),
        OpKind::Imm { field, .. } => Value::Imm(field.get(word)),
        OpKind::ImmSplit { lo, hi, .. } => Value::Imm(lo.get(word) | hi.get(word) << lo.len),
        OpKind::CBank { bank, offset, shift } => Value::CBank {
            bank: bank.get(word) as u8,
            offset: (offset.get_signed(word) << shift) as i32,
            reg: None,
        },
        OpKind::CBankIndexed { bank, offset, reg } => Value::CBank {
            bank: bank.get(word) as u8,
            offset: offset.get_signed(word) as i32,
            reg: Some(reg.get(word) as u8),
        },
        OpKind::Mem {
            base,
            offset,
            uniform,
            scale,
        } => Value::Mem {
            // A form without a base register field (SYNCS.EXCH's `[URa]`) has RZ.
            base: if base.len == 0 { RZ } else { base.get(word) as u8 },
            uniform: uniform.map(|f| f.get(word) as u8),
            offset: offset.get_signed(word) as i32,
            scale: scale.map_or(0, |f| f.get(word) as u8),
        },
        OpKind::Rel { field, shift, low } => {
            let units = match low {
                None => field.get_signed(word),
                Some(l) => field.get_signed(word) << l.len | l.get(word) as i64,
            };
            Value::Rel(units << shift)
        }
        OpKind::SReg { field, .. } => Value::SReg(field.get(word) as u8),
        OpKind::Barrier { field } => Value::Barrier(field.get(word) as u8),
        OpKind::Literal(_) => Value::Fixed,
    };
    let swizzle = match (d.swizzle, d.kind) {
        // HGMMA's descriptor flags: bit i is flag i.
        (_, OpKind::Gdesc { flags, .. }) => flags
            .iter()
            .enumerate()
            .fold(0, |v, (i, &(b, _))| v | (bits(b, 1).get(word) as u8) << i),
        (None, _) => 0,
        (Some(s), _) => {
            let v = s.field.get(word) as u16;
            if !s.values.iter().any(|(k, _)| *k == v) {
                return Err(format!("operand suffix has unknown value {v}"));
            }
            v as u8
        }
    };
    let flag = |b: Option<u8>| b.is_some_and(|b| bits(b, 1).get(word) == 1);
    Ok(Operand {
        value,
        neg: flag(d.neg),
        abs: flag(d.abs),
        not: flag(d.not),
        swizzle,
    })
}
