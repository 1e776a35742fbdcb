//! Checks the ISA description against the real ptxas encodings listed in
//! `tests/data/isa/sm75-opcode-examples.txt` (one example per opcode and mnemonic, with the
//! text nvdisasm printed): every example must decode to the same text and re-encode to the
//! same 128 bits.

use ptxc_sass::isa::Arch;
use ptxc_sass::isa::{bits::from_words, decode, encode, text};

struct Example {
    w0: u64,
    w1: u64,
    text: String,
}

fn examples() -> Vec<Example> {
    let path = ptxc_testkit::opcode_examples();
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    src.lines()
        .filter_map(|line| {
            let w0 = line.split("w0=").nth(1)?.get(..16)?;
            let w1 = line.split("w1=").nth(1)?.get(..16)?;
            let text = line.split("w1&mods=").nth(1)?.get(11..)?.trim().to_string();
            Some(Example {
                w0: u64::from_str_radix(w0, 16).ok()?,
                w1: u64::from_str_radix(w1, 16).ok()?,
                text,
            })
        })
        .collect()
}

fn normalise(s: &str) -> String {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    match s.find("`(") {
        Some(i) => format!("{}`(L)", &s[..i]),
        None => s,
    }
}

#[test]
fn known_opcodes_decode_print_and_reencode_exactly() {
    let all = examples();
    assert!(all.len() > 200, "example file looks truncated");
    let mut covered = 0;
    let mut failures = Vec::new();
    for ex in &all {
        let word = from_words(ex.w0, ex.w1);
        let opcode = (ex.w0 & 0xfff) as u16;
        if ptxc_sass::isa::isa()
            .for_arch(Arch::Sm75)
            .unwrap()
            .by_opcode(opcode)
            .is_empty()
        {
            failures.push(format!("{}: opcode {opcode:#05x} is not in the table", ex.text));
            continue;
        }
        match decode(Arch::Sm75, word, 0) {
            Err(e) => failures.push(format!("{}: {e}", ex.text)),
            Ok(inst) => {
                let got = text::inst_text(&inst, 0, &text::AddressLabels);
                if normalise(&got) != normalise(&ex.text) {
                    failures.push(format!("text: want `{}` got `{got}`", ex.text));
                }
                match encode(&inst) {
                    Ok(w) if w == word => {}
                    Ok(w) => failures.push(format!("{}: re-encoded {w:#034x}, want {word:#034x}", ex.text)),
                    Err(e) => failures.push(format!("{}: {e}", ex.text)),
                }
            }
        }
        covered += 1;
    }
    println!("covered {covered} of {} examples", all.len());
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
