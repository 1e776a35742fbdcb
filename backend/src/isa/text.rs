//! Disassembly text in nvdisasm's syntax, driven by the form table.

use super::desc::{AliasCond, Form, ImmStyle, Op, OpKind, OperandDesc, Show};
use super::floatfmt::{f32_text, f64_text};
use super::inst::{Inst, Operand, PT, RZ, URZ, Value};
use super::sm75::isa;
use std::fmt::Write;

/// Resolves the absolute byte address of a branch target to a label name.
pub trait LabelNamer {
    /// The label for `target`, e.g. `.L_x_3`.
    fn label(&self, target: u64) -> String;
}

/// Names every target `.L_x_<address in hex>`.
pub struct AddressLabels;

impl LabelNamer for AddressLabels {
    fn label(&self, target: u64) -> String {
        format!(".L_x_{target:x}")
    }
}

/// The instruction text as nvdisasm prints it (without the trailing ` ;`). `addr` is the
/// instruction's byte offset, used to resolve branch targets.
pub fn inst_text(inst: &Inst, addr: u64, labels: &dyn LabelNamer) -> String {
    let form = isa().form(inst.form);
    let mut s = String::new();
    if inst.guard != PT || inst.guard_neg {
        let _ = write!(
            s,
            "@{}{} ",
            if inst.guard_neg { "!" } else { "" },
            pred_name(inst.guard)
        );
    }
    s.push_str(form.mnemonic);
    if let Some(alias) = form.aliases.iter().find(|a| alias_applies(a.when, inst)) {
        s.push_str(alias.infix);
    }
    for (m, &v) in form.mods.iter().zip(&inst.mods) {
        if let Some((_, spelling)) = m.values.iter().find(|(k, _)| *k == v) {
            s.push_str(spelling);
        }
    }
    let mut first = true;
    for (d, op) in form.operands.iter().zip(&inst.operands) {
        if !shown(form, d, op, inst) {
            continue;
        }
        let text = operand_text(form, inst, d, op, addr, labels);
        s.push_str(if first { " " } else { ", " });
        s.push_str(&text);
        first = false;
    }
    s
}

fn shown(form: &Form, d: &OperandDesc, op: &Operand, inst: &Inst) -> bool {
    match d.show {
        Show::Always => true,
        Show::Never => false,
        Show::IfMod(m) => inst.mods.get(m as usize).is_some_and(|&v| v != 0) || form.mods.is_empty(),
        Show::IfNotDefault => raw_value(op) != d.default,
    }
}

/// The raw field value of an operand, for default comparisons.
fn raw_value(op: &Operand) -> u64 {
    match op.value {
        Value::Reg(r) | Value::UReg(r) | Value::SReg(r) | Value::Barrier(r) => r as u64,
        Value::Pred { idx, neg } => idx as u64 | u64::from(neg) << 3,
        Value::Imm(v) => v,
        _ => u64::MAX,
    }
}

fn alias_applies(when: &[(u8, AliasCond)], inst: &Inst) -> bool {
    when.iter().all(|&(i, cond)| {
        if let AliasCond::ModIs(v) = cond {
            return inst.mods.get(i as usize) == Some(&v);
        }
        let Some(op) = inst.operands.get(i as usize) else {
            return false;
        };
        match (cond, op.value) {
            (AliasCond::IsRz, Value::Reg(r)) => r == RZ && !op.neg,
            (AliasCond::ImmEq(k), Value::Imm(v)) => v == k as u64,
            (AliasCond::ImmPow2, Value::Imm(v)) => v.is_power_of_two(),
            _ => false,
        }
    })
}

fn operand_text(form: &Form, inst: &Inst, d: &OperandDesc, op: &Operand, addr: u64, labels: &dyn LabelNamer) -> String {
    let core = match op.value {
        Value::Reg(r) => reg_name(r),
        Value::UReg(r) => ureg_name(r),
        Value::Pred { idx, neg } => format!("{}{}", if neg { "!" } else { "" }, pred_name(idx)),
        Value::Imm(v) => imm_text(d, v),
        Value::CBank { bank, offset, reg } => cbank_text(bank, offset, reg),
        Value::Mem {
            base,
            uniform,
            offset,
            scale,
        } => mem_text(base, uniform, offset, scale),
        Value::Rel(off) => {
            let target = (addr as i64 + 16 + off) as u64;
            format!("`({})", labels.label(target))
        }
        Value::SReg(n) => isa()
            .special_reg_name(n)
            .map_or_else(|| format!("SR{n}"), str::to_string),
        Value::Barrier(b) => format!("B{b}"),
    };
    let mut s = String::new();
    if op.neg {
        s.push(if negation_is_not(form, inst) { '~' } else { '-' });
    }
    if op.not {
        s.push('~');
    }
    if op.abs {
        let _ = write!(s, "|{core}|");
    } else {
        s.push_str(&core);
    }
    if let Some(slot) = d.reuse
        && inst.ctrl.reuse_shown(slot)
        && matches!(op.value, Value::Reg(_))
    {
        s.push_str(".reuse");
    }
    s
}

/// In `.X` forms of IADD3 and LEA the negation bits mean bitwise NOT.
fn negation_is_not(form: &Form, inst: &Inst) -> bool {
    matches!(form.op, Op::Iadd3 | Op::Lea)
        && form
            .mod_index("x")
            .is_some_and(|i| inst.mods.get(i).is_some_and(|&v| v != 0))
}

fn imm_text(d: &OperandDesc, v: u64) -> String {
    let (OpKind::Imm { style, .. } | OpKind::ImmSplit { style, .. }) = d.kind else {
        return format!("{v:#x}");
    };
    match style {
        ImmStyle::Hex => format!("{v:#x}"),
        ImmStyle::SignedHex => {
            let s = v as u32 as i32;
            if s < 0 {
                format!("-{:#x}", (s as i64).unsigned_abs())
            } else {
                format!("{s:#x}")
            }
        }
        ImmStyle::F32 => f32_text(v as u32),
        ImmStyle::F64Hi => {
            let x = f64::from_bits(v << 32);
            f64_text(x, x.is_sign_negative())
        }
    }
}

fn cbank_text(bank: u8, offset: i32, reg: Option<u8>) -> String {
    match reg {
        None => format!("c[{bank:#x}][{offset:#x}]"),
        Some(r) if offset == 0 => format!("c[{bank:#x}][{}]", reg_name(r)),
        Some(r) => format!("c[{bank:#x}][{}+{}]", reg_name(r), signed_hex(offset as i64)),
    }
}

fn mem_text(base: u8, uniform: Option<u8>, offset: i32, scale: u8) -> String {
    let scale = ["", ".X4", ".X8", ".X16"][scale as usize & 3];
    let mut parts = Vec::new();
    if base != RZ {
        parts.push(format!("{}{scale}", reg_name(base)));
    }
    if let Some(u) = uniform.filter(|&u| u != URZ) {
        parts.push(ureg_name(u));
    }
    if offset != 0 || parts.is_empty() && base != RZ {
        parts.push(signed_hex(offset as i64));
    }
    if parts.is_empty() {
        return "[RZ]".into();
    }
    format!("[{}]", parts.join("+"))
}

fn signed_hex(v: i64) -> String {
    if v < 0 {
        format!("-{:#x}", v.unsigned_abs())
    } else {
        format!("{v:#x}")
    }
}

/// `R7`, or `RZ` for 255.
pub fn reg_name(r: u8) -> String {
    if r == RZ { "RZ".into() } else { format!("R{r}") }
}

/// `UR4`, or `URZ` for 63.
pub fn ureg_name(r: u8) -> String {
    if r == URZ { "URZ".into() } else { format!("UR{r}") }
}

/// `P3`, or `PT` for 7.
pub fn pred_name(p: u8) -> String {
    if p == PT { "PT".into() } else { format!("P{p}") }
}
