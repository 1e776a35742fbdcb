//! No input makes the front end panic or hang: random bytes, random token soup, truncated and
//! mutated real files, pathological nesting and sizes. Also: one run reports several errors.

mod common;

use common::*;

/// A small deterministic PRNG (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn run(src: &str) {
    let result = std::panic::catch_unwind(|| {
        if let Ok(module) = ptxc_frontend::parse(src) {
            let printed = ptxc_frontend::print::module(&module);
            let again = ptxc_frontend::parse(&printed).expect("printed text parses");
            assert_eq!(
                without_spans(&module),
                without_spans(&again),
                "round trip changed the tree"
            );
        }
        if let Err(diags) = ptxc_frontend::parse_and_check(src) {
            assert!(!diags.is_empty(), "an error without a diagnostic");
            let text = ptxc_frontend::render_diagnostics("fuzz.ptx", src, &diags);
            assert!(!text.is_empty());
            for d in &diags {
                let _ = d.line_col(src);
            }
        }
    });
    if result.is_err() {
        let shown: String = src.chars().take(400).collect();
        panic!("panicked on input:\n{shown}");
    }
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..3000 {
        let len = rng.below(300);
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        run(&String::from_utf8_lossy(&bytes));
    }
}

const SOUP: &[&str] = &[
    ".version 7.8\n",
    ".target sm_75\n",
    ".address_size 64\n",
    ".visible",
    ".entry",
    ".func",
    "k",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ",",
    ";",
    ":",
    "@",
    "!",
    "%p1",
    "%r1",
    "%rd1",
    "%f1",
    ".reg",
    ".param",
    ".global",
    ".shared",
    ".local",
    ".const",
    ".u32",
    ".b64",
    ".f32",
    ".pred",
    ".v2",
    ".align",
    "8",
    "0x10",
    "-1",
    "0f3F800000",
    "1.5",
    "ld",
    "st",
    "add",
    "mov",
    "setp",
    ".lt",
    "bra",
    "L1",
    "call",
    "ret",
    "=",
    "+",
    "-",
    "*",
    "<",
    ">",
    "|",
    "_",
    ".loc",
    ".pragma",
    "\"s\"",
    ".section",
    ".b8",
    "generic",
    "%tid",
    ".x",
    "WARP_SZ",
    ".maxntid",
    ".callprototype",
    "cvt",
    ".rn",
    ".s32",
    "atom",
    ".add",
    "shfl",
    ".sync",
    ".idx",
    "%r<4>",
    "x[4]",
    "/*",
    "*/",
];

#[test]
fn random_token_soup_never_panics() {
    let mut rng = Rng(42);
    for _ in 0..3000 {
        let mut src = String::new();
        if rng.below(2) == 0 {
            src.push_str(".version 7.8\n.target sm_75\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n");
        }
        for _ in 0..rng.below(80) {
            src.push_str(SOUP[rng.below(SOUP.len())]);
            src.push(' ');
        }
        run(&src);
    }
}

fn char_boundary(s: &str, mut at: usize) -> usize {
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[test]
fn truncated_and_mutated_real_files_never_panic() {
    let mut rng = Rng(7);
    for path in all_ptx_files() {
        let src = read(&path);
        let cuts = if src.len() > 200_000 { 4 } else { 25 };
        for _ in 0..cuts {
            let at = char_boundary(&src, rng.below(src.len()));
            run(&src[..at]);
        }
        if src.len() > 200_000 {
            continue;
        }
        let lines: Vec<&str> = src.lines().collect();
        for _ in 0..10 {
            let mut mutated: Vec<&str> = lines.clone();
            let i = rng.below(mutated.len());
            match rng.below(3) {
                0 => {
                    mutated.remove(i);
                }
                1 => mutated.insert(i, lines[rng.below(lines.len())]),
                _ => mutated.swap(i, rng.below(lines.len())),
            }
            run(&mutated.join("\n"));
        }
    }
}

#[test]
fn pathological_inputs_finish_with_an_error() {
    let head = ".version 7.8\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r1;\n";
    let cases = [
        "{".repeat(200_000),
        format!("{head}mov.b32 %r1, {}1;\n}}", "(".repeat(200_000)),
        format!("{head}mov.b32 %r1, {}1;\n}}", "-".repeat(200_000)),
        format!("{head}mov.b32 %r1, 1{};\n}}", "+1".repeat(200_000)),
        format!("{head}.reg .b32 %q<4000000000>;\n}}"),
        format!("{head}.reg .b32 %q<99999999999999999999>;\n}}"),
        format!("{head}{}\n}}", "bad;\n".repeat(100_000)),
        ".version 7.8\n.target sm_75\n.global .b8 big[4000000000000];\n".to_string(),
        format!("{head}{}", "\u{0}\u{1F600}".repeat(1000)),
        String::new(),
        "\n\n\n".to_string(),
    ];
    for src in &cases {
        let start = std::time::Instant::now();
        assert!(ptxc_frontend::parse_and_check(src).is_err());
        assert!(start.elapsed().as_secs() < 20, "too slow on a pathological input");
    }
}

#[test]
fn one_run_reports_several_errors() {
    let src = ".version 7.8\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<3>;\nadd.s32 %r1 %r2, 1;\nmov.u32 %r1, ;\nret;\n}\n";
    let diags = ptxc_frontend::parse(src).expect_err("two syntax errors");
    let places: Vec<(u32, u32)> = diags.iter().map(|d| d.line_col(src)).collect();
    assert_eq!(places, vec![(7, 13), (8, 14)], "{diags:?}");

    let src = ".version 7.8\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\nmov.b64 {%r1, %r2 %r0}, %rd1;\nmov.u32 %r1, ;\nret;\n}\n";
    let diags = ptxc_frontend::parse(src).expect_err("an error inside braces, then another");
    let places: Vec<(u32, u32)> = diags.iter().map(|d| d.line_col(src)).collect();
    assert_eq!(places, vec![(6, 19), (7, 14)], "{diags:?}");

    let src = ".version 7.8\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<3>;\nfrob %r1;\nadd.s32 %r1, %r9, 1;\nmul.s32 %r1, %r2, %r2;\nret;\n}\n";
    let diags = ptxc_frontend::parse_and_check(src).expect_err("three semantic errors");
    let lines: Vec<u32> = diags.iter().map(|d| d.line_col(src).0).collect();
    assert_eq!(lines, vec![7, 8, 9], "{diags:?}");
}

#[test]
fn rendering_shows_file_line_column_and_caret() {
    let src = ".version 7.8\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\nfrob;\n}\n";
    let diags = ptxc_frontend::parse_and_check(src).expect_err("unknown instruction");
    let text = ptxc_frontend::render_diagnostics("k.ptx", src, &diags);
    assert!(text.contains("error: unknown instruction `frob`"), "{text}");
    assert!(text.contains("k.ptx:6:1"), "{text}");
    assert!(text.contains("6 │ frob;"), "{text}");
    assert!(text.contains("^^^^"), "{text}");
    assert!(!text.contains('\u{1b}'), "no colour codes in rendered text");
}

/// A random operand in any syntactic form the instruction syntax knows.
fn random_operand(rng: &mut Rng, depth: u32) -> String {
    const NAMES: &[&str] = &["%r1", "%rd2", "%f3", "%p1", "x", "$L__BB0_1", "_", "arr", "%tid"];
    const ATOMS: &[&str] = &[
        "0",
        "7U",
        "0x1F",
        "017",
        "0b101",
        "0f3F800000",
        "0d4000000000000000",
        "1.5",
        "1e3",
    ];
    let name = NAMES[rng.below(NAMES.len())];
    let atom = ATOMS[rng.below(ATOMS.len())];
    match rng.below(if depth > 1 { 9 } else { 12 }) {
        0 => name.to_string(),
        1 => format!("{name}.x"),
        2 => format!("!{name}"),
        3 => format!("-{atom}"),
        4 => format!("{name} + {atom}"),
        5 => format!("[{name}+{}]", rng.below(64) as i64 - 32),
        6 => format!("[{}]", rng.below(4096)),
        7 => format!("{name}|%p2"),
        8 => format!("{atom} * ({atom} - {atom}) << 2 | ~{atom}"),
        9 => format!(
            "{{{}, {}}}",
            random_operand(rng, depth + 1),
            random_operand(rng, depth + 1)
        ),
        10 => format!("({})", random_operand(rng, depth + 1)),
        _ => format!("generic({name})"),
    }
}

#[test]
fn random_instructions_round_trip() {
    const OPS: &[&str] = &["ld", "st", "add", "mov", "setp", "call", "cvt", "atom", "bra", "frob"];
    const MODS: &[&str] = &[
        ".global",
        ".u32",
        ".lt",
        ".v2",
        ".rn",
        ".ftz",
        ".L2::128B",
        ".2d",
        ".b64",
    ];
    let mut rng = Rng(2024);
    for _ in 0..1500 {
        let mut src = String::from(".version 7.8\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n");
        for _ in 0..rng.below(12) {
            if rng.below(4) == 0 {
                src.push_str(if rng.below(2) == 0 { "@%p1 " } else { "@!%p1 " });
            }
            src.push_str(OPS[rng.below(OPS.len())]);
            for _ in 0..rng.below(4) {
                src.push_str(MODS[rng.below(MODS.len())]);
            }
            for i in 0..rng.below(5) {
                src.push_str(if i == 0 { " " } else { ", " });
                src.push_str(&random_operand(&mut rng, 0));
            }
            src.push_str(";\n");
            if rng.below(5) == 0 {
                src.push_str(".loc 1 2 3\nL1:\n");
            }
        }
        src.push_str("}\n");
        let module = ptxc_frontend::parse(&src).unwrap_or_else(|d| panic!("{src}\n{d:?}"));
        let printed = ptxc_frontend::print::module(&module);
        let again = ptxc_frontend::parse(&printed).unwrap_or_else(|d| panic!("{printed}\n{d:?}"));
        assert_eq!(without_spans(&module), without_spans(&again), "{src}");
        run(&src);
    }
}
