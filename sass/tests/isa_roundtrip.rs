//! Every instruction ptxas emits for the test PTX (zluda conformance kernels, the corpus, the
//! project's CUDA kernel set, the op tests), compiled for each described architecture, must
//! decode, re-encode to the same 128 bits (control code included) and print exactly
//! nvdisasm's text (modulo whitespace and label names).

mod isa_support;

use isa_support::*;
use ptxc_sass::cubin;
use ptxc_sass::isa::Arch;
use ptxc_sass::isa::table::DESCRIBED;
use ptxc_sass::isa::{FormId, decode, encode, isa, matching_forms, text};
use std::collections::{BTreeMap, BTreeSet};

/// What one compiled input contributed.
#[derive(Default)]
struct Tally {
    kernels: usize,
    insts: usize,
    forms: BTreeSet<FormId>,
    combos: BTreeSet<String>,
    failures: Vec<(String, String)>,
}

impl Tally {
    fn merge(&mut self, other: Tally) {
        self.kernels += other.kernels;
        self.insts += other.insts;
        self.forms.extend(other.forms);
        self.combos.extend(other.combos);
        self.failures.extend(other.failures);
    }
}

/// The mnemonic with its modifiers, as printed (`IMAD.WIDE.U32`), without the guard.
fn combo(text: &str) -> String {
    let t = text.trim_start();
    let t = if t.starts_with('@') {
        t.split_once(' ').map_or(t, |(_, r)| r)
    } else {
        t
    };
    t.split([' ', ';']).next().unwrap_or("").to_string()
}

fn check_section(arch: Arch, name: &str, code: &[u8], oracle: &OracleSection, tally: &mut Tally) {
    let mut fail = |key: String, msg: String| tally.failures.push((key, format!("{name}: {msg}")));
    if code.len() != oracle.insts.len() * 16 {
        fail(
            "size".into(),
            format!(
                "{} code bytes, nvdisasm lists {} instructions",
                code.len(),
                oracle.insts.len()
            ),
        );
        return;
    }
    for (chunk, o) in code.chunks_exact(16).zip(&oracle.insts) {
        let word = u128::from_le_bytes(chunk.try_into().unwrap());
        let key = format!("{:03x} {}", word & 0xfff, combo(&o.text));
        if word != (o.words.0 as u128 | (o.words.1 as u128) << 64) {
            fail(key, format!("{:#x}: cubin and nvdisasm words differ", o.addr));
            continue;
        }
        tally.insts += 1;
        tally.combos.insert(combo(&o.text));
        let inst = match decode(arch, word, o.addr) {
            Ok(i) => i,
            Err(e) => {
                fail(key, format!("`{}`: {e}", o.text));
                continue;
            }
        };
        tally.forms.insert(inst.form);
        if matching_forms(arch, word).unwrap().len() != 1 {
            fail(key.clone(), format!("`{}` fits several forms", o.text));
        }
        match encode(&inst) {
            Ok(w) if w == word => {}
            Ok(w) => fail(
                key.clone(),
                format!("`{}`: re-encoded {w:#034x}, want {word:#034x}", o.text),
            ),
            Err(e) => fail(key.clone(), format!("`{}`: {e}", o.text)),
        }
        let ours = normalise_ours(&text::inst_text(&inst, o.addr, &AtAddress));
        let theirs = normalise_oracle(&o.text, &oracle.labels);
        if ours != theirs {
            fail(key, format!("{:#x}: want `{theirs}` got `{ours}`", o.addr));
        }
    }
}

fn check_compiled(arch: Arch, c: &Compiled) -> Tally {
    let mut tally = Tally::default();
    let module = match cubin::read(&c.cubin) {
        Ok(m) => m,
        Err(e) => {
            tally.failures.push(("cubin".into(), format!("{}: {e}", c.name)));
            return tally;
        }
    };
    let sections = parse_nvdisasm(&c.sass);
    for k in &module.kernels {
        let section = format!(".text.{}", k.name);
        let Some(oracle) = sections.iter().find(|s| s.name == section) else {
            tally
                .failures
                .push(("section".into(), format!("{}: nvdisasm has no {section}", c.name)));
            continue;
        };
        tally.kernels += 1;
        check_section(arch, &format!("{}:{}", c.name, k.name), &k.code, oracle, &mut tally);
    }
    tally
}

/// The sm of a PTX file's `.target` (a file for sm_86 is not compiled for sm_80).
fn target_sm(ptx: &std::path::Path) -> u32 {
    let text = std::fs::read_to_string(ptx).unwrap_or_default();
    text.lines()
        .find_map(|l| l.trim().strip_prefix(".target sm_"))
        .and_then(|t| {
            t.chars()
                .take_while(|c| c.is_ascii_digit())
                .collect::<String>()
                .parse()
                .ok()
        })
        .unwrap_or(0)
}

/// Compiles every input for `arch` with ptxas and checks every instruction.
fn round_trip(arch: Arch) {
    oracle_bin();
    assert!(DESCRIBED.contains(&arch), "{arch} is not described");
    // The Turing tensor-core kernels (`tests/tensor`) round-trip on every architecture
    // (ptxas's sm_80 code for them has the Ampere encodings of IMMA.8816, IMMA.8832 and
    // BMMA); Ampere's own shapes (HMMA.16816, IMMA.16864, BMMA.168256, ...) are in
    // `tests/ampere`, whose PTX needs sm_80.
    let in_dir = |i: &Input, dir: &str| i.ptx.parent().is_some_and(|d| d.ends_with(dir));
    let inputs: Vec<_> = round_trip_inputs()
        .into_iter()
        .filter(|i| arch != Arch::Sm75 || !in_dir(i, "ampere"))
        .filter(|i| target_sm(&i.ptx) <= arch.sm())
        .collect();
    check_inputs(arch, &inputs);
}

/// Compiles `inputs` for `arch` and checks every instruction.
fn check_inputs(arch: Arch, inputs: &[Input]) {
    let compiled = par_map(inputs, |i| compile_cached(i, arch));
    let compiled: Vec<Compiled> = compiled
        .into_iter()
        .map(|r| r.unwrap_or_else(|e| panic!("{e}")))
        .collect();
    let tallies = par_map(&compiled, |c| check_compiled(arch, c));
    let mut total = Tally::default();
    for t in tallies {
        total.merge(t);
    }
    println!(
        "round trip {arch}: {} inputs, {} kernels, {} instructions, {} forms of {}, {} mnemonic+modifier combinations",
        inputs.len(),
        total.kernels,
        total.insts,
        total.forms.len(),
        isa().forms().count(),
        total.combos.len()
    );
    let mut by_key: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (k, m) in &total.failures {
        by_key.entry(k).or_default().push(m);
    }
    let report: Vec<String> = by_key
        .iter()
        .map(|(k, ms)| format!("[{k}] x{}: {}", ms.len(), ms[0]))
        .collect();
    assert!(
        by_key.is_empty(),
        "{arch}: {} failures in {} groups:\n{}",
        by_key.values().map(Vec::len).sum::<usize>(),
        by_key.len(),
        report.join("\n")
    );
}

#[test]
fn sm75_every_ptxas_instruction_round_trips_and_prints_like_nvdisasm() {
    round_trip(Arch::Sm75);
}

#[test]
fn sm80_every_ptxas_instruction_round_trips_and_prints_like_nvdisasm() {
    round_trip(Arch::Sm80);
}

#[test]
fn sm86_every_ptxas_instruction_round_trips_and_prints_like_nvdisasm() {
    round_trip(Arch::Sm86);
}

#[test]
fn sm89_every_ptxas_instruction_round_trips_and_prints_like_nvdisasm() {
    round_trip(Arch::Sm89);
}

#[test]
fn sm90_every_ptxas_instruction_round_trips_and_prints_like_nvdisasm() {
    round_trip(Arch::Sm90);
}

/// The kernels that need sm_90a (`tests/hopper`: the wgmma kernels and Triton's matmul):
/// HGMMA, WARPGROUP.ARRIVE and .DEPBAR, and the sm_90 code around them; and the probes of
/// Hopper's cluster, bulk-copy, TMA and register-reconfiguration instructions
/// (`tests/hopper_isa`: UTMALDG, UTMASTG, UTMAREDG, UTMAPF, UTMACCTL, UBLKCP, UBLKRED,
/// UBLKPF, UTMACMDFLUSH, UCGABAR_ARV, UCGABAR_WAIT, USETMAXREG and the code around them).
#[test]
fn sm90a_every_ptxas_instruction_of_the_hopper_kernels_and_probes_round_trips_and_prints_like_nvdisasm() {
    oracle_bin();
    let mut inputs = Vec::new();
    for (dir, at_least) in [("../hopper", 2), ("../hopper_isa", 7)] {
        let dir = kernels_dir().join(dir);
        let found: Vec<Input> = files_with_ext(&dir, "ptx")
            .into_iter()
            .map(|ptx| Input {
                name: ptx.file_stem().unwrap().to_string_lossy().into_owned(),
                ptx,
                flags: Vec::new(),
            })
            .collect();
        assert!(
            found.len() >= at_least,
            "expected at least {at_least} sm_90a inputs in {}",
            dir.display()
        );
        inputs.extend(found);
    }
    check_inputs(Arch::Sm90a, &inputs);
}
