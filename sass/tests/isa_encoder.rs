//! The encoder against nvdisasm: every form of the table is encoded with representative
//! operands, once per legal value of each modifier and suffix, with source modifiers and a
//! guard, and with all modifiers away from their defaults at once. This is done for every
//! described architecture with the forms valid on it: all words go through one
//! `nvdisasm -b SMxx` run; each must be legal, print exactly our text, and decode back to the
//! same bits.

mod isa_support;

use isa_support::*;
use ptxc_sass::isa::Arch;
use ptxc_sass::isa::control::Control;
use ptxc_sass::isa::desc::{Form, ImmStyle, OpKind, OperandDesc, Show};
use ptxc_sass::isa::table::DESCRIBED;
use ptxc_sass::isa::{EncodeError, FormId, Inst, Operand, Value, decode, encode, isa, text};
use std::collections::BTreeMap;

/// A representative value for operand `index` of `d`.
fn sample_value(index: usize, d: &OperandDesc) -> Value {
    let step = 4 * (index as u8 + 1);
    match d.kind {
        OpKind::Gpr { .. } => Value::Reg(step),
        OpKind::Ugpr { .. } | OpKind::Gdesc { .. } | OpKind::UregBlock { .. } => Value::UReg(step),
        OpKind::Pred { .. } | OpKind::Upred { .. } | OpKind::UpredInverted { .. } => Value::Pred {
            idx: (index as u8 % 6) + 1,
            neg: false,
        },
        OpKind::Imm { field, style } => Value::Imm(sample_imm(style, field.max())),
        OpKind::ImmSplit { .. } => Value::Imm(0x96),
        OpKind::CBank { .. } => Value::CBank {
            bank: 3,
            offset: 0x104,
            reg: None,
        },
        OpKind::CBankIndexed { .. } => Value::CBank {
            bank: 3,
            offset: 0x10,
            reg: Some(20),
        },
        OpKind::Mem { base, uniform, .. } => Value::Mem {
            // A form without a base register field addresses with its uniform register.
            base: if base.len == 0 { 255 } else { 24 },
            uniform: uniform.map(|_| 8),
            offset: 0x40,
            scale: 0,
        },
        OpKind::Rel { .. } => Value::Rel(0x100),
        OpKind::SReg { .. } => Value::SReg(0x21),
        OpKind::Barrier { .. } => Value::Barrier(3),
        OpKind::Literal(_) => Value::Fixed,
    }
}

fn sample_imm(style: ImmStyle, max: u64) -> u64 {
    match style {
        ImmStyle::F32 => 0x3fc0_0000,
        ImmStyle::F64Hi => 0x3ff8_0000,
        ImmStyle::F16x2 => 0x3c00_3e00,
        ImmStyle::Bf16x2 => 0x3f80_bfc0,
        ImmStyle::F16 | ImmStyle::Bf16 => 0x3e00,
        ImmStyle::Scoreboard => 3,
        ImmStyle::GroupScoreboard => 0,
        ImmStyle::ScoreboardSet => 0b10_0101,
        ImmStyle::SignedHexX4 => 0x40,
        ImmStyle::Hex | ImmStyle::SignedHex | ImmStyle::HexHi | ImmStyle::SignedHexHi => 0x1234_5675 & max,
    }
}

/// The form's instruction with representative operands and default modifiers.
fn base_inst(id: FormId, f: &Form) -> Inst {
    let mut inst = Inst::with_defaults(id);
    for (i, d) in f.operands.iter().enumerate() {
        inst.operands[i] = Operand::new(sample_value(i, d));
    }
    inst.ctrl = Control::stall(2);
    inst
}

/// True if the encoder accepts the instruction's field combination.
fn legal(inst: &Inst) -> bool {
    !matches!(encode(inst), Err(EncodeError::Combination { .. }))
}

/// Every modifier at its last legal value, chosen from the last modifier backwards (a
/// second ordering check: it picks other members of exclusive pairs such as FTZ/FMZ).
fn all_last_values(base: &Inst, f: &Form) -> Inst {
    let mut all = base.clone();
    for (m, desc) in f.mods.iter().enumerate().rev() {
        if let Some(&(v, _)) = desc.values.iter().rev().find(|(v, _)| *v != desc.default) {
            all.mods[m] = v;
            if !legal(&all) {
                all.mods[m] = desc.default;
            }
        }
    }
    all
}

/// Variants that exercise every modifier value, suffix value, source modifier and a guard.
/// A variant whose fields do not go together on the base instruction is tried on top of the
/// "all modifiers" variant instead (for example `.64` addresses need `.E`).
fn variants(id: FormId, f: &Form) -> Vec<(String, Inst)> {
    let base = base_inst(id, f);
    let mut out = vec![("base".to_string(), base.clone())];
    let mut all = base.clone();
    let mut deferred = Vec::new();
    for (m, desc) in f.mods.iter().enumerate() {
        for &(v, _) in desc.values {
            if v != desc.default {
                let mut i = base.clone();
                i.mods[m] = v;
                if legal(&i) {
                    out.push((format!("{:?}={v}", desc.id), i));
                } else {
                    deferred.push((m, v));
                }
                if all.mods[m] == desc.default {
                    let previous = all.mods[m];
                    all.mods[m] = v;
                    if !legal(&all) {
                        all.mods[m] = previous;
                    }
                }
            }
        }
    }
    out.push(("all modifiers".into(), all.clone()));
    out.push(("all modifiers, last values".into(), all_last_values(&base, f)));
    // A value that needs other fields (the descriptor flag needs a 64-bit address) goes on
    // top of "all modifiers", with every operand suffix at its last value if need be.
    let mut suffixed = all.clone();
    for (k, d) in f.operands.iter().enumerate() {
        if let Some(&(v, _)) = d.swizzle.and_then(|s| s.values.last()) {
            suffixed.operands[k].swizzle = v as u8;
        }
    }
    // A value that needs another deferred one (the cache-policy flag needs the descriptor
    // flag) goes on top of every deferred value that is legal there.
    let mut stacked = suffixed.clone();
    for &(m, v) in &deferred {
        let previous = stacked.mods[m];
        stacked.mods[m] = v;
        if !legal(&stacked) {
            stacked.mods[m] = previous;
        }
    }
    for (m, v) in deferred {
        let with = |b: &Inst| {
            let mut i = b.clone();
            i.mods[m] = v;
            i
        };
        let pick = [&all, &suffixed, &stacked]
            .into_iter()
            .map(with)
            .find(legal)
            .unwrap_or_else(|| with(&base));
        out.push((format!("{:?}={v}", f.mods[m].id), pick));
    }
    let mut push_legal = |name: String, i: Inst, apply: &dyn Fn(&mut Inst)| {
        if legal(&i) {
            out.push((name, i));
        } else {
            let mut on_all = all.clone();
            apply(&mut on_all);
            out.push((name, on_all));
        }
    };
    for (k, d) in f.operands.iter().enumerate() {
        let set_flags = |i: &mut Inst| {
            let o = &mut i.operands[k];
            o.neg = d.neg.is_some();
            o.abs = d.abs.is_some();
            o.not = d.not.is_some();
            if let (
                Value::Pred { idx, .. },
                OpKind::Pred { neg: Some(_), .. }
                | OpKind::Upred { neg: Some(_), .. }
                | OpKind::UpredInverted { neg: Some(_), .. },
            ) = (o.value, d.kind)
            {
                o.value = Value::Pred { idx, neg: true };
            }
        };
        let mut flags = base.clone();
        set_flags(&mut flags);
        if flags != base {
            push_legal(format!("operand {k} modifiers"), flags, &set_flags);
        }
        if let Some(sfx) = d.swizzle {
            for &(v, _) in sfx.values {
                let set = |i: &mut Inst| i.operands[k].swizzle = v as u8;
                let mut i = base.clone();
                set(&mut i);
                push_legal(format!("operand {k} suffix {v}"), i, &set);
            }
        }
        if let OpKind::Gdesc { flags, .. } = d.kind {
            // Every descriptor flag at once (`.negA.negB.tnspA.tnspB`).
            let set = |i: &mut Inst| i.operands[k].swizzle = (1u8 << flags.len()) - 1;
            let mut i = base.clone();
            set(&mut i);
            push_legal(format!("operand {k} flags"), i, &set);
        }
        if let OpKind::Mem { scale: Some(_), .. } = d.kind {
            for sc in 1..4 {
                let mut i = base.clone();
                if let Value::Mem { scale, .. } = &mut i.operands[k].value {
                    *scale = sc;
                }
                push_legal(format!("operand {k} scale {sc}"), i, &|_| {});
            }
        }
    }
    let mut guarded = base.clone();
    guarded.guard = 2;
    guarded.guard_neg = true;
    out.push(("guard".into(), guarded));
    // Reuse flags only for register operands that are always printed.
    let slots: u8 = f
        .operands
        .iter()
        .filter(|d| d.show == Show::Always && matches!(d.kind, OpKind::Gpr { .. }))
        .filter_map(|d| d.reuse)
        .fold(0, |m, s| m | 1 << s);
    if slots != 0 {
        let mut reused = base;
        reused.ctrl.reuse = slots;
        out.push(("reuse".into(), reused));
    }
    out
}

/// Encodes every variant of every form valid on `arch` and compares with nvdisasm.
fn encoder_matches_nvdisasm(arch: Arch) {
    encoder_matches_nvdisasm_for(arch, |_| true);
}

/// [`encoder_matches_nvdisasm`] for the forms valid on `arch` that `which` selects.
fn encoder_matches_nvdisasm_for(arch: Arch, which: impl Fn(&Form) -> bool) {
    oracle_bin();
    assert!(DESCRIBED.contains(&arch), "{arch} is not described");
    let view = isa().for_arch(arch).expect("described");
    let mut words = Vec::new();
    let mut labels = Vec::new();
    let mut failures = Vec::new();
    for (id, f) in view.forms().filter(|(_, f)| which(f)) {
        for (what, inst) in variants(id, f) {
            let name = format!("{} {:#05x} [{}]", f.mnemonic, f.opcode, what);
            match encode(&inst) {
                Ok(w) => {
                    match decode(arch, w, 0).map(|d| encode(&d)) {
                        Ok(Ok(again)) if again == w => {}
                        other => failures.push(format!("{name}: does not decode back: {other:?}")),
                    }
                    words.push(w);
                    labels.push((name, inst));
                }
                Err(e) => failures.push(format!("{name}: {e}")),
            }
        }
    }
    let (texts, illegal) = disassemble_raw(&words, arch);
    for (k, (name, inst)) in labels.iter().enumerate() {
        let addr = 16 * k as u64;
        if let Some(msg) = illegal.get(&k) {
            failures.push(format!("{name}: nvdisasm rejects {:#034x}: {msg}", words[k]));
            continue;
        }
        let ours = normalise_ours(&text::inst_text(inst, addr, &text::RawAddresses));
        let theirs = texts.get(&k).map(|t| normalise_oracle(t, &Default::default()));
        if theirs.as_deref() != Some(ours.as_str()) {
            failures.push(format!("{name}: want `{}` got `{ours}`", theirs.unwrap_or_default()));
        }
    }
    println!(
        "encoder {arch}: {} forms, {} encodings",
        view.forms().filter(|(_, f)| which(f)).count(),
        words.len()
    );
    assert!(
        failures.is_empty(),
        "{arch}: {} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn sm75_every_form_encodes_to_what_nvdisasm_prints() {
    encoder_matches_nvdisasm(Arch::Sm75);
}

#[test]
fn sm80_every_form_encodes_to_what_nvdisasm_prints() {
    encoder_matches_nvdisasm(Arch::Sm80);
}

#[test]
fn sm86_every_form_encodes_to_what_nvdisasm_prints() {
    encoder_matches_nvdisasm(Arch::Sm86);
}

#[test]
fn sm89_every_form_encodes_to_what_nvdisasm_prints() {
    encoder_matches_nvdisasm(Arch::Sm89);
}

/// nvdisasm's text for each word (by index), and the words it rejects with its message. An
/// illegal word stops nvdisasm, so rejected words are replaced by NOPs (keeping every address)
/// and the batch runs again.
fn disassemble_raw(words: &[u128], arch: Arch) -> (BTreeMap<usize, String>, BTreeMap<usize, String>) {
    const NOP: u128 = 0x000fc00000000000_0000000000007918;
    let mut batch = words.to_vec();
    let mut illegal = BTreeMap::new();
    for _ in 0..50 {
        let run = nvdisasm_raw(&batch, "encoder", arch);
        let rejected: Vec<(usize, String)> = run
            .stderr
            .lines()
            .filter_map(|l| {
                let at = l.find("at address 0x")?;
                let hex = l[at + 13..].split(|c: char| !c.is_ascii_hexdigit()).next()?;
                let pos = usize::from_str_radix(hex, 16).ok()? / 16;
                Some((pos, l.trim().to_string()))
            })
            .collect();
        if rejected.is_empty() {
            assert!(run.ok, "nvdisasm failed: {}", run.stderr);
            let section = parse_nvdisasm(&run.stdout).into_iter().next().unwrap_or_default();
            let texts = section
                .insts
                .iter()
                .map(|i| (i.addr as usize / 16, i.text.clone()))
                .filter(|(k, _)| !illegal.contains_key(k))
                .collect();
            return (texts, illegal);
        }
        for (pos, msg) in rejected {
            if pos < batch.len() {
                batch[pos] = NOP;
                illegal.insert(pos, msg);
            }
        }
    }
    panic!("nvdisasm kept rejecting words");
}

#[test]
fn sm90_every_form_encodes_to_what_nvdisasm_prints() {
    encoder_matches_nvdisasm(Arch::Sm90);
}

/// The forms only sm_90a has (HGMMA, WARPGROUP); the rest are sm_90's.
#[test]
fn sm90a_every_form_of_its_own_encodes_to_what_nvdisasm_prints() {
    encoder_matches_nvdisasm_for(Arch::Sm90a, |f| f.archs.since == Arch::Sm90a);
}
