//! Disassembly text in nvdisasm's syntax, driven by the form table.

use super::desc::{AliasCond, Form, ImmStyle, Op, OpKind, OperandDesc, Sep, Show};
use super::floatfmt::{f16_text, f32_text, f64_text};
use super::inst::{Inst, Operand, PT, RZ, URZ, Value};
use super::modifier::Mod;
use std::fmt::Write;

/// Resolves the absolute byte address of a branch target to its text.
pub trait LabelNamer {
    /// The label for `target`, e.g. `.L_x_3`.
    fn label(&self, target: u64) -> String;

    /// The whole target operand: nvdisasm prints `` `(label) `` when disassembling a cubin.
    fn target_text(&self, target: u64) -> String {
        format!("`({})", self.label(target))
    }
}

/// Names every target `.L_x_<address in hex>`.
pub struct AddressLabels;

impl LabelNamer for AddressLabels {
    fn label(&self, target: u64) -> String {
        format!(".L_x_{target:x}")
    }
}

/// Prints targets as bare addresses (`0x1a0`), as `nvdisasm -b SM75` does for raw code.
pub struct RawAddresses;

impl LabelNamer for RawAddresses {
    fn label(&self, target: u64) -> String {
        format!("{:#x}", target as i64)
    }

    fn target_text(&self, target: u64) -> String {
        signed_hex(target as i64)
    }
}

/// The instruction text as nvdisasm prints it (without the trailing ` ;`). `addr` is the
/// instruction's byte offset, used to resolve branch targets.
pub fn inst_text(inst: &Inst, addr: u64, labels: &dyn LabelNamer) -> String {
    let form = inst.form.form();
    let mut s = String::new();
    if inst.guard != PT || inst.guard_neg {
        let p = if form.uniform_guard {
            upred_name(inst.guard)
        } else {
            pred_name(inst.guard)
        };
        let _ = write!(s, "@{}{p} ", if inst.guard_neg { "!" } else { "" });
    }
    s.push_str(form.mnemonic);
    if let Some(alias) = form.aliases.iter().find(|a| alias_applies(a.when, inst)) {
        s.push_str(alias.infix);
    }
    for (m, &v) in form.mods.iter().zip(&inst.mods) {
        s.push_str(m.spelling(v).unwrap_or(".INVALID"));
    }
    let mut first = true;
    for (d, op) in form.operands.iter().zip(&inst.operands) {
        if !shown(d, op, inst) {
            continue;
        }
        let text = operand_text(form, inst, d, op, addr, labels);
        s.push_str(match (first, d.sep) {
            (true, _) | (false, Sep::Space) => " ",
            (false, Sep::Comma) => ", ",
        });
        s.push_str(&text);
        first = false;
    }
    s
}

fn shown(d: &OperandDesc, op: &Operand, inst: &Inst) -> bool {
    let mod_set = |m: u8| inst.mods.get(m as usize).is_some_and(|&v| v != 0);
    match d.show {
        Show::Always => true,
        Show::Never => false,
        Show::IfMod(m) => mod_set(m),
        Show::IfNotDefault => raw_value(op) != d.default,
        Show::IfModOrNotDefault(m) => mod_set(m) || raw_value(op) != d.default,
        Show::IfModAndNotDefault(m) => mod_set(m) && raw_value(op) != d.default,
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
            // nvdisasm 13.5 prints `IMAD.U32 Rd, Ra, 0x10000, RZ` (ptxas's bf16-to-f32
            // widening, sm_80/86/89) without `.SHL`, while 0x8, 0x1000 and 0x100000 take it;
            // and `IMAD.U32 R8, R8, -0x80000000, RZ` (ptxas's `test_wait.parity` with a
            // register parity, `tests/ampere/cp_async_mbarrier.ptx`).
            (AliasCond::ImmPow2, Value::Imm(v)) => v.is_power_of_two() && !matches!(v, 0x10000 | 0x8000_0000),
            _ => false,
        }
    })
}

fn operand_text(form: &Form, inst: &Inst, d: &OperandDesc, op: &Operand, addr: u64, labels: &dyn LabelNamer) -> String {
    let suffix = d
        .swizzle
        .and_then(|s| s.values.iter().find(|(v, _)| *v == op.swizzle as u16))
        .map_or("", |(_, t)| *t);
    let core = match op.value {
        Value::Reg(r) => reg_name(r),
        Value::UReg(r) => match d.kind {
            OpKind::Gdesc { flags, .. } => gdesc_text(r, flags, op.swizzle),
            OpKind::UregBlock { prefix, .. } => format!("{prefix}[{}]", ureg_name(r)),
            _ => ureg_name(r),
        },
        Value::Pred { idx, neg } => {
            let name = match d.kind {
                OpKind::Upred { .. } | OpKind::UpredInverted { .. } => upred_name(idx),
                _ => pred_name(idx),
            };
            format!("{}{name}", if neg { "!" } else { "" })
        }
        Value::Imm(v) => imm_text(d, v),
        Value::CBank { bank, offset, reg } => cbank_text(bank, offset, reg, d.swizzle.is_some()),
        Value::Mem {
            base,
            uniform,
            offset,
            scale,
        } => {
            let text = mem_text(
                d,
                base,
                uniform.filter(|_| !inst.flag(Mod::Desc)),
                offset,
                scale,
                suffix,
                inst.flag(Mod::Desc) || hides_urz(inst.desc().op, uniform, suffix),
            );
            let desc = inst.flag(Mod::PolicyDesc) || form.desc_printed && inst.flag(Mod::Desc);
            match uniform.filter(|_| desc) {
                Some(u) => format!("desc[{}]{text}", ureg_name(u)),
                None => text,
            }
        }
        Value::Rel(off) => labels.target_text((addr as i64 + 16 + off) as u64),
        Value::SReg(n) => match d.kind {
            OpKind::SReg { names, .. } => names.name(n),
            _ => None,
        }
        .map_or_else(|| format!("SR{n}"), str::to_string),
        Value::Barrier(b) => format!("B{b}"),
        Value::Fixed => match d.kind {
            OpKind::Literal(t) => t.to_string(),
            _ => String::new(),
        },
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
    if !matches!(op.value, Value::Mem { .. }) {
        s.push_str(suffix);
    }
    s
}

/// `gdesc[UR4].tnspB`: HGMMA's descriptors and the flags set in `value` (bit i: flag i).
fn gdesc_text(r: u8, flags: &[(u8, &str)], value: u8) -> String {
    let mut s = format!("gdesc[{}]", ureg_name(r));
    for (i, (_, spelling)) in flags.iter().enumerate() {
        if value >> i & 1 == 1 {
            s.push_str(spelling);
        }
    }
    s
}

/// In `.X` forms of IADD3, LEA and IMAD the negation bits mean bitwise NOT.
fn negation_is_not(form: &Form, inst: &Inst) -> bool {
    form.not_under
        .is_some_and(|i| inst.mods.get(i as usize).is_some_and(|&v| v != 0))
}

fn imm_text(d: &OperandDesc, v: u64) -> String {
    let (style, width) = match d.kind {
        OpKind::Imm { style, field } => (style, field.len as u32),
        OpKind::ImmSplit { lo, hi, style } => (style, (lo.len + hi.len) as u32),
        _ => (ImmStyle::Hex, 64),
    };
    match style {
        ImmStyle::Hex | ImmStyle::HexHi => format!("{v:#x}"),
        ImmStyle::SignedHex | ImmStyle::SignedHexHi => {
            let shift = 64 - width.min(64);
            signed_hex(((v << shift) as i64) >> shift)
        }
        ImmStyle::F32 => f32_text(v as u32),
        ImmStyle::F64Hi => {
            let x = f64::from_bits(v << 32);
            f64_text(x, x.is_sign_negative())
        }
        ImmStyle::F16 => f16_text(v as u16),
        ImmStyle::Bf16 => f32_text((v as u32 & 0xffff) << 16),
        ImmStyle::F16x2 => format!("{}, {}", f16_text((v >> 16) as u16), f16_text(v as u16)),
        ImmStyle::Bf16x2 => format!("{}, {}", f32_text((v as u32) & 0xffff_0000), f32_text((v as u32) << 16)),
        ImmStyle::SignedHexX4 => {
            let shift = 64 - width.min(64);
            signed_hex((((v << shift) as i64) >> shift) * 4)
        }
        ImmStyle::Scoreboard => format!("SB{v}"),
        ImmStyle::GroupScoreboard => format!("gsb{v}"),
        ImmStyle::ScoreboardSet => {
            let members: Vec<String> = (0..6)
                .rev()
                .filter(|k| v >> k & 1 == 1)
                .map(|k| k.to_string())
                .collect();
            format!("{{{}}}", members.join(","))
        }
    }
}

fn cbank_text(bank: u8, offset: i32, reg: Option<u8>, spaced: bool) -> String {
    let gap = if spaced { " " } else { "" };
    match reg.filter(|&r| r != RZ || offset == 0) {
        None => format!("c[{bank:#x}]{gap}[{}]", signed_hex(offset as i64)),
        Some(r) if offset == 0 => format!("c[{bank:#x}]{gap}[{}]", reg_name(r)),
        Some(r) => format!("c[{bank:#x}]{gap}[{}+{}]", reg_name(r), signed_hex(offset as i64)),
    }
}

/// Whether nvdisasm leaves out the uniform register URZ of `op`'s address: LDGSTS's global
/// address without a descriptor prints `[R2.64]` (nvdisasm 13.5, `-b SM80`), where LDG's
/// prints `[R2.64+URZ]`; STAS's and REDAS's print `[R8.64]` but `[R8.U32+URZ]` (`-b SM90`).
fn hides_urz(op: Op, uniform: Option<u8>, suffix: &str) -> bool {
    let urz = uniform.is_none_or(|u| u == URZ);
    match op {
        Op::Ldgsts => urz,
        Op::Stas | Op::Redas => urz && suffix == ".64",
        _ => false,
    }
}

/// `[Ra+URb+offset]`; a uniform register that is a memory descriptor or hidden (`hide_ur`)
/// is not printed.
fn mem_text(
    d: &OperandDesc,
    base: u8,
    uniform: Option<u8>,
    offset: i32,
    scale: u8,
    suffix: &str,
    hide_ur: bool,
) -> String {
    let scale = ["", ".X4", ".X8", ".X16"][scale as usize & 3];
    let uniform_form = matches!(d.kind, OpKind::Mem { uniform: Some(_), .. }) && !hide_ur;
    let mut parts = Vec::new();
    if base != RZ {
        parts.push(format!("{}{suffix}{scale}", reg_name(base)));
    }
    if uniform_form {
        parts.push(ureg_name(uniform.unwrap_or(URZ)));
    }
    if offset != 0 {
        if parts.is_empty() {
            let width = match d.kind {
                OpKind::Mem { offset, .. } => offset.len as u32,
                _ => 32,
            };
            let raw = offset as u32 as u64 & ((1u64 << width) - 1);
            parts.push(format!("{raw:#x}"));
        } else {
            parts.push(signed_hex(offset as i64));
        }
    }
    if parts.is_empty() {
        return "[RZ]".into();
    }
    format!("[{}]", parts.join("+"))
}

/// `0x10`, `-0x10`.
pub fn signed_hex(v: i64) -> String {
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

/// `UP3`, or `UPT` for 7.
pub fn upred_name(p: u8) -> String {
    if p == PT { "UPT".into() } else { format!("UP{p}") }
}
