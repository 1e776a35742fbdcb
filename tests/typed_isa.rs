//! Instruction selection, legalization, emission and the simulator name operations and
//! modifiers through the ISA description's types (`Op`, `Mod` and the value enums), never
//! through text: no string literal in them spells a mnemonic or a modifier, and none reads a
//! form's mnemonic. (The disassembler prints the spellings; it is not scanned.)

use ptxc_sass::isa::isa;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The folders whose code must stay typed.
const TYPED: &[&str] = &[
    "backend/src/isel",
    "backend/src/legalize",
    "backend/src/emit",
    "backend/src/regalloc",
    "backend/src/sched",
    "runtime-sim/src",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The string literals of a line of code (comments dropped).
fn literals(line: &str) -> Vec<String> {
    let code = line.split("//").next().unwrap_or("");
    code.split('"').skip(1).step_by(2).map(str::to_string).collect()
}

/// Every mnemonic (and its parts) and every modifier spelling of the description.
fn names() -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (_, f) in isa().forms() {
        names.insert(f.mnemonic.to_string());
        names.extend(f.mnemonic.split('.').filter(|p| p.len() > 1).map(str::to_string));
        for m in &f.mods {
            for (_, spelling) in m.values {
                if spelling.len() > 2 {
                    names.insert(spelling.to_string());
                    names.extend(spelling.split('.').filter(|p| p.len() > 1).map(str::to_string));
                }
            }
        }
    }
    names
}

#[test]
fn compiler_and_simulator_name_no_mnemonic_or_modifier_in_text() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let names = names();
    let mut files = Vec::new();
    for d in TYPED {
        rust_files(&root.join(d), &mut files);
    }
    assert!(files.len() > 50, "the typed folders hold {} files", files.len());
    let mut found = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            let at = || format!("{}:{}: {}", f.strip_prefix(root).unwrap().display(), n + 1, line.trim());
            if line.split("//").next().unwrap_or("").contains(".mnemonic") {
                found.push(at());
            }
            if literals(line).iter().any(|l| names.contains(l.as_str())) {
                found.push(at());
            }
        }
    }
    assert!(
        found.is_empty(),
        "mnemonics or modifiers named by text:\n{}",
        found.join("\n")
    );
}
