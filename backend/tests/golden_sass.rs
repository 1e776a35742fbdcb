//! Golden tests of the back end, in the style of Cranelift's filetests: every
//! `tests/golden/<case>.ptx` is compiled in-process (front end, MIR lowering, back end, cubin)
//! and each kernel of the cubin is listed with control codes, in `ptxc disasm --controls`'
//! format, after a line of the resources the cubin records. The text must equal the checked-in
//! `tests/golden/<case>.sass`.
//!
//! `PTXC_BLESS=1 cargo test -p ptxc-backend --test golden_sass` rewrites the expected files;
//! `PTXC_GOLDEN=<substring>` runs only the cases whose name contains it. Options for a case
//! come from `// ptxc: ...` lines of its PTX (see `tests/golden/README.md`).

use ptxc_backend::compile::{Compiled, Options, compile_module};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

const BLESS_COMMAND: &str = "PTXC_BLESS=1 cargo test -p ptxc-backend --test golden_sass";

/// Lines of context around each change in a diff, and the most changed lines shown.
const DIFF_CONTEXT: usize = 3;
const DIFF_MAX_LINES: usize = 60;

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// The options of one case, from its `// ptxc:` lines.
#[derive(Debug)]
struct CaseOptions {
    backend: Options,
    /// The case documents a refusal: compiling must fail and the golden file holds the error.
    expect_error: bool,
    /// The options as written, for the golden file's header.
    text: Vec<String>,
}

fn parse_options(src: &str) -> Result<CaseOptions, String> {
    let mut opts = CaseOptions {
        backend: Options::default(),
        expect_error: false,
        text: Vec::new(),
    };
    let words: Vec<&str> = src
        .lines()
        .filter_map(|l| l.trim().strip_prefix("// ptxc:"))
        .flat_map(str::split_whitespace)
        .collect();
    let mut it = words.into_iter();
    while let Some(word) = it.next() {
        let (flag, inline) = match word.split_once('=') {
            Some((f, v)) => (f, Some(v.to_string())),
            None => (word, None),
        };
        let value = |it: &mut std::vec::IntoIter<&str>| {
            inline
                .clone()
                .or_else(|| it.next().map(str::to_string))
                .ok_or_else(|| format!("option `{flag}` needs a value"))
        };
        match flag {
            "--max-registers" => {
                let v = value(&mut it)?;
                let n = v
                    .parse()
                    .map_err(|_| format!("--max-registers: `{v}` is not a number"))?;
                opts.backend.max_registers = Some(n);
                opts.text.push(format!("--max-registers {n}"));
            }
            "--sched" => {
                let v = value(&mut it)?;
                opts.backend.post_sched = (v != "none").then(|| v.clone());
                opts.text.push(format!("--sched {v}"));
            }
            "--pre-sched" => {
                let v = value(&mut it)?;
                opts.text.push(format!("--pre-sched {v}"));
                opts.backend.pre_sched = v;
            }
            "--fmad" => {
                let v = value(&mut it)?;
                opts.backend.fmad = match v.as_str() {
                    "true" => true,
                    "false" => false,
                    _ => return Err(format!("--fmad: `{v}` is neither true nor false")),
                };
                opts.text.push(format!("--fmad={v}"));
            }
            "--expect-error" if inline.is_none() => {
                opts.expect_error = true;
                opts.text.push("--expect-error".into());
            }
            _ => return Err(format!("unknown option `{word}` in a `// ptxc:` line")),
        }
    }
    Ok(opts)
}

/// PTX to cubin through the crates' library APIs, as `ptxc compile` does.
fn compile(src: &str, file_name: &str, opts: &Options) -> Result<Compiled, String> {
    let render = |d: &[ptxc_frontend::Diagnostic]| ptxc_frontend::render_diagnostics(file_name, src, d);
    let checked = ptxc_frontend::parse_and_check(src).map_err(|d| render(&d))?;
    let module = ptxc_mir::lower::lower_module(&checked).map_err(|errs| {
        let diags: Vec<_> = errs
            .iter()
            .map(|e| ptxc_frontend::Diagnostic::error(e.message.clone(), e.span))
            .collect();
        render(&diags)
    })?;
    for f in &module.functions {
        ptxc_mir::ir::verify(f).map_err(|e| format!("{file_name}: internal error: {e}"))?;
    }
    compile_module(module, opts, &|_| false, &mut |_, _, _| {}).map_err(|e| format!("{file_name}: error: {e}"))
}

/// One kernel of a cubin: its resources line and its listing.
struct KernelListing {
    resources: String,
    listing: String,
}

/// Everything the runner takes from the machine layer (`ptxc-sass`). Reads the cubin, checks
/// that every instruction decodes and re-encodes to the same 128 bits, and lists each kernel
/// with control codes.
fn list_kernels(cubin_bytes: &[u8]) -> Result<Vec<KernelListing>, String> {
    use ptxc_sass::{cubin, disasm, isa};
    let module = cubin::read(cubin_bytes).map_err(|e| format!("the cubin does not read back: {e}"))?;
    let arch = module.arch().ok_or("the cubin names an unknown architecture")?;
    let mut out = Vec::new();
    for k in &module.kernels {
        for (i, chunk) in k.code.chunks_exact(16).enumerate() {
            let offset = 16 * i as u64;
            let word = u128::from_le_bytes(chunk.try_into().expect("16 bytes"));
            let inst = isa::decode(arch, word, offset).map_err(|e| format!("kernel `{}`: {e}", k.name))?;
            let again = isa::encode(&inst).map_err(|e| format!("kernel `{}` at {offset:#06x}: {e}", k.name))?;
            if again != word {
                return Err(format!(
                    "kernel `{}` at {offset:#06x}: {word:#034x} decodes and re-encodes as {again:#034x}",
                    k.name
                ));
            }
        }
        let mut resources = format!(
            "registers: {}, frame: {}, min stack: {}",
            k.reg_count,
            k.frame_size,
            k.min_stack_size.unwrap_or(0)
        );
        if let Some(n) = k.max_stack_size {
            let _ = write!(resources, ", max stack: {n}");
        }
        if let Some(n) = k.crs_stack_size {
            let _ = write!(resources, ", crs stack: {n}");
        }
        let _ = write!(
            resources,
            ", barriers: {}, shared: {}, params: {}, exits: {}",
            k.num_barriers,
            k.shared_size,
            k.param_size,
            k.exit_offsets.len()
        );
        if let Some(n) = k.max_reg_count {
            let _ = write!(resources, ", max registers: {n}");
        }
        out.push(KernelListing {
            resources,
            listing: disasm::disassemble_kernel(
                arch,
                &k.name,
                &k.code,
                &k.functions
                    .iter()
                    .map(|f| (f.offset, f.name.clone()))
                    .collect::<Vec<_>>(),
                true,
            )?,
        });
    }
    Ok(out)
}

/// The golden text of one case.
fn render_case(name: &str, src: &str) -> Result<String, String> {
    let opts = parse_options(src)?;
    let file_name = format!("{name}.ptx");
    let mut out = format!("// ptxc golden output of {file_name}; regenerate with {BLESS_COMMAND}\n");
    if !opts.text.is_empty() {
        let _ = writeln!(out, "// options: {}", opts.text.join(" "));
    }
    let compiled = match compile(src, &file_name, &opts.backend) {
        Ok(_) if opts.expect_error => return Err("compiled, but the case expects an error (--expect-error)".into()),
        Ok(c) => c,
        Err(e) if opts.expect_error => {
            out.push_str("\n// error:\n");
            for line in e.lines() {
                let _ = writeln!(out, "// {line}");
            }
            return Ok(out.lines().map(str::trim_end).collect::<Vec<_>>().join("\n") + "\n");
        }
        Err(e) => return Err(format!("does not compile:\n{e}")),
    };
    for w in &compiled.warnings {
        let _ = writeln!(out, "// warning: {w}");
    }
    let kernels = list_kernels(&compiled.cubin)?;
    if kernels.len() != compiled.resources.len() {
        return Err(format!(
            "{} kernels in the cubin, {} compiled",
            kernels.len(),
            compiled.resources.len()
        ));
    }
    for (k, r) in kernels.iter().zip(&compiled.resources) {
        let _ = writeln!(
            out,
            "\n// kernel {}: {}, spill stores: {}, spill loads: {}",
            r.name, k.resources, r.spill_stores, r.spill_loads
        );
        out.push_str(k.listing.trim_start_matches('\n'));
    }
    Ok(out)
}

/// A unified-style diff of `expected` against `actual`, of the first changes.
fn diff(expected: &str, actual: &str) -> String {
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = actual.lines().collect();
    // Longest common subsequence, by suffix (the files are small).
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    // The edit script: (tag, line in expected, line in actual).
    let mut ops: Vec<(char, usize, usize)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            ops.push((' ', i, j));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            ops.push(('-', i, j));
            i += 1;
        } else {
            ops.push(('+', i, j));
            j += 1;
        }
    }
    let changed: Vec<usize> = (0..ops.len()).filter(|&k| ops[k].0 != ' ').collect();
    let mut out = String::from("--- expected\n+++ actual\n");
    if changed.is_empty() {
        out.push_str("(the lines are equal: the files differ in line endings or the final newline)\n");
    }
    let mut shown = 0;
    let mut k = 0;
    while k < changed.len() {
        // A hunk: changes closer than twice the context merge.
        let start = changed[k].saturating_sub(DIFF_CONTEXT);
        let mut end = changed[k];
        while k < changed.len() && changed[k] <= end + 2 * DIFF_CONTEXT {
            end = changed[k];
            k += 1;
        }
        let end = (end + DIFF_CONTEXT + 1).min(ops.len());
        let (_, ea, eb) = ops[start];
        let count = |tag: char| ops[start..end].iter().filter(|o| o.0 == ' ' || o.0 == tag).count();
        let _ = writeln!(out, "@@ -{},{} +{},{} @@", ea + 1, count('-'), eb + 1, count('+'));
        for &(tag, i, j) in &ops[start..end] {
            let line = if tag == '+' { b[j] } else { a[i] };
            let _ = writeln!(out, "{tag}{line}");
            if tag != ' ' {
                shown += 1;
            }
        }
        if shown >= DIFF_MAX_LINES && k < changed.len() {
            let _ = writeln!(out, "... ({} more changed lines)", changed.len() - shown);
            break;
        }
    }
    out
}

#[test]
fn golden_sass() {
    let bless = std::env::var_os("PTXC_BLESS").is_some_and(|v| !v.is_empty() && v != "0");
    let filter = std::env::var("PTXC_GOLDEN").unwrap_or_default();
    let dir = golden_dir();
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    cases.sort();
    let mut failures: Vec<String> = Vec::new();
    let mut blessed = Vec::new();
    let mut ran = 0;
    for path in &cases {
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("UTF-8 file name")
            .to_string();
        match path.extension().and_then(|e| e.to_str()) {
            Some("ptx") => {}
            Some("sass") => {
                if !path.with_extension("ptx").exists() {
                    failures.push(format!("{name}.sass: no {name}.ptx beside it (a removed case?)"));
                }
                continue;
            }
            _ => continue,
        }
        if !name.contains(&filter) {
            continue;
        }
        ran += 1;
        let src = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let actual = match render_case(&name, &src) {
            Ok(text) => text,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let expected_path = path.with_extension("sass");
        let expected = std::fs::read_to_string(&expected_path).ok();
        if expected.as_deref() == Some(actual.as_str()) {
            continue;
        }
        if bless {
            std::fs::write(&expected_path, &actual).unwrap_or_else(|e| panic!("{}: {e}", expected_path.display()));
            blessed.push(name);
            continue;
        }
        match expected {
            None => failures.push(format!("{name}: no expected output {name}.sass")),
            Some(expected) => failures.push(format!(
                "{name}: the SASS differs from {name}.sass\n{}",
                diff(&expected, &actual)
            )),
        }
    }
    assert!(ran > 0 || !filter.is_empty(), "no cases in {}", dir.display());
    if !blessed.is_empty() {
        // Straight to the standard error, past the test harness' capture.
        let _ = writeln!(
            std::io::stderr(),
            "blessed {} golden files: {}",
            blessed.len(),
            blessed.join(", ")
        );
    }
    if !failures.is_empty() {
        panic!(
            "{} of {ran} golden cases failed:\n\n{}\n\nIf the new output is right, review it and bless it:\n    {BLESS_COMMAND}\n",
            failures.len(),
            failures.join("\n\n")
        );
    }
}

#[test]
fn diff_shows_changed_lines_with_context() {
    let d = diff("a\nb\nc\nd\ne\nf\ng\nh\n", "a\nb\nc\nD\ne\nf\ng\nh\n");
    assert_eq!(
        d,
        "--- expected\n+++ actual\n@@ -1,7 +1,7 @@\n a\n b\n c\n-d\n+D\n e\n f\n g\n"
    );
}
