//! ptxas mode (`ptxc ptxas ARGS`, or the executable named `ptxas`) against NVIDIA's ptxas:
//! the same options are accepted, the same mistakes give the same message and exit code,
//! `--version` is parseable, `-v` prints ptxas's lines, `--fmad=false` keeps multiplies and
//! adds apart, and `-lineinfo` writes line tables nvdisasm reads.

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A small kernel with a multiply and an add that ptxas contracts.
const MAD_PTX: &str = ".version 7.0
.target sm_75
.address_size 64

.visible .entry k(.param .u64 p, .param .f32 a)
{
  .reg .f32 %f<4>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [p];
  ld.param.f32 %f1, [a];
  cvta.to.global.u64 %rd2, %rd1;
  ld.global.f32 %f2, [%rd2];
  mul.f32 %f3, %f2, %f1;
  add.f32 %f3, %f3, %f1;
  st.global.f32 [%rd2], %f3;
  ret;
}
";

/// Module-scope variables in every space ptxas counts in its first `-v` line, two kernels.
const GLOBALS_PTX: &str = ".version 7.0
.target sm_75
.address_size 64
.global .align 4 .b8 gbuf[100];
.global .align 4 .u32 gx = 5;
.const .align 4 .f32 cf[3] = {1.0, 2.0, 3.0};
.shared .align 4 .b8 sh[64];

.visible .entry k(.param .u64 p)
{
  .reg .f32 %f<2>;
  .reg .b64 %rd<3>;
  .reg .b32 %r<3>;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  ld.const.f32 %f1, [cf+4];
  ld.global.u32 %r1, [gx];
  st.shared.u32 [sh], %r1;
  bar.sync 0;
  ld.shared.u32 %r2, [sh+4];
  st.global.u32 [gbuf], %r2;
  st.global.f32 [%rd2], %f1;
  ret;
}
.visible .entry k2()
{
  ret;
}
";

/// Writes `text` as `name` in `dir`.
fn file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Runs `exe` with `args` in `cwd`, standard input from `stdin`.
fn run_in(exe: &Path, args: &[&str], cwd: &Path, stdin: Option<&str>) -> Output {
    let mut c = Command::new(exe);
    c.args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap_or_else(|e| panic!("{}: {e}", exe.display()));
    let input = stdin.unwrap_or("").to_string();
    let mut pipe = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let _ = pipe.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// A symlink named `ptxas` to the `ptxc` under test, in its own folder.
fn ptxas_link(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let link = bin.join("ptxas");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_ptxc"), &link).unwrap();
    link
}

/// NVIDIA's ptxas.
fn real_ptxas() -> PathBuf {
    oracle_bin().join("ptxas")
}

#[test]
fn the_accepted_spellings_compile_as_with_ptxas() {
    let dir = scratch("ptxas_matrix");
    let ours = ptxas_link(&dir);
    let ptx = file(&dir, "k.ptx", MAD_PTX);
    let cases: &[&[&str]] = &[
        &["-arch=sm_75"],
        &["-arch", "sm_75"],
        &["--gpu-name=sm_75"],
        &["--gpu-name", "sm_75"],
        &["-v"],
        &["--verbose"],
        &["-O0"],
        &["-O1"],
        &["-O2"],
        &["-O3"],
        &["-O"],
        &["--opt-level", "2"],
        &["--opt-level=1"],
        &["-lineinfo"],
        &["--generate-line-info"],
        &["-g"],
        &["--device-debug"],
        &["-lineinfo", "-suppress-debug-info"],
        &["-suppress-debug-info"],
        &["--fmad=true"],
        &["--fmad=false"],
        &["--fmad", "false"],
        &["-fmad=false"],
        &["-maxrregcount", "32"],
        &["--maxrregcount", "32"],
        &["-maxrregcount=32"],
        &["-maxrregcount=archmax"],
        &["--regAllocOptLevel=2"],
        &["-c"],
        &["--compile-only"],
        &["--warn-on-spills"],
        &["-warn-spills"],
        &["-m64"],
        &["-e", "k"],
        &["-w"],
        &["-Ofc", "max"],
        &["-lineinfo", "-v", "--regAllocOptLevel=2", "--gpu-name=sm_75"],
    ];
    for extra in cases {
        for (who, exe) in [("ptxc", ours.as_path()), ("ptxas", real_ptxas().as_path())] {
            let out = dir.join(format!("{who}.cubin"));
            let _ = std::fs::remove_file(&out);
            let mut args = extra.to_vec();
            args.extend([ptx.to_str().unwrap(), "-o", out.to_str().unwrap()]);
            let o = run_in(exe, &args, &dir, None);
            assert_eq!(o.status.code(), Some(0), "{who} {args:?}: {}", text(&o.stderr));
            assert!(out.exists(), "{who} {args:?} wrote no cubin");
        }
        let listing = ptxc(&["disasm", dir.join("ptxc.cubin").to_str().unwrap()]);
        assert!(listing.status.success(), "{extra:?}: {}", text(&listing.stderr));
    }
}

#[test]
fn mistakes_give_ptxas_message_and_exit_code() {
    let dir = scratch("ptxas_mistakes");
    let ours = ptxas_link(&dir);
    let ptx = file(&dir, "k.ptx", MAD_PTX);
    let newer = file(&dir, "v99.ptx", &MAD_PTX.replace(".version 7.0", ".version 9.9"));
    let k = ptx.to_str().unwrap();
    let cases: &[&[&str]] = &[
        &["--foo", k],
        &["--foo=1", k],
        &["-foo", k],
        &["-x", k],
        &["-oout.o", k],
        &["-gpu-name=sm_75", k],
        &["--arch=sm_75", k],
        &["--lineinfo", k],
        &["-v=1", k],
        &["--verbose=true", k],
        &["--fmad=maybe", k],
        &["--fmad=FALSE", k],
        &["--fmad", k],
        &["-arch=sm_70", k],
        &["-arch=bogus", k],
        &["-arch=", k],
        &["-Ox", k],
        &["-O3=4", k],
        &["--opt-level=x", k],
        &["-maxrregcount=abc", k],
        &["--regAllocOptLevel=x", k],
        &["-Ofc=bad", k],
        &["-m", "32", k],
        &[k, "-o"],
        &["missing.ptx"],
        &[newer.to_str().unwrap()],
        &["-optf", "missing.txt", k],
        &["-e", "nothere", k],
    ];
    for args in cases {
        let a = run_in(&ours, args, &dir, None);
        let b = run_in(&real_ptxas(), args, &dir, None);
        assert_eq!(a.status.code(), Some(255), "ptxc {args:?}");
        assert_eq!(b.status.code(), Some(255), "ptxas {args:?}");
        assert_eq!(text(&a.stderr), text(&b.stderr), "{args:?}");
        assert!(!dir.join("elf.o").exists(), "{args:?} left elf.o");
    }
}

#[test]
fn other_targets_and_refused_options_are_clear_errors() {
    let dir = scratch("ptxas_refusals");
    let ptx = file(&dir, "k.ptx", MAD_PTX);
    let k = ptx.to_str().unwrap();
    for (args, expected) in [
        (
            vec!["-arch=sm_100", k],
            "ptxas fatal   : ptxc generates code for sm_75, sm_80, sm_86, sm_89, sm_90, sm_90a; 'sm_100' is not supported\n",
        ),
        (
            vec!["--sanitize", "memcheck", k],
            "ptxas fatal   : option '--sanitize' is not supported by ptxc\n",
        ),
    ] {
        let mut full = vec!["ptxas"];
        full.extend(args.iter().copied());
        let o = ptxc(&full);
        assert_eq!(o.status.code(), Some(255), "{args:?}");
        assert_eq!(text(&o.stderr), expected);
    }
}

#[test]
fn compile_errors_abort_like_ptxas_and_leave_no_file() {
    let dir = scratch("ptxas_bad_ptx");
    let ours = ptxas_link(&dir);
    let bad = file(&dir, "bad.ptx", &MAD_PTX.replace("ret;", "frobnicate.u32 %f1;\n  ret;"));
    let o = run_in(&ours, &[bad.to_str().unwrap()], &dir, None);
    assert_eq!(o.status.code(), Some(255));
    let err = text(&o.stderr);
    assert!(err.contains("bad.ptx:16:"), "{err}");
    assert!(
        err.ends_with("ptxas fatal   : Ptx assembly aborted due to errors\n"),
        "{err}"
    );
    assert!(!dir.join("elf.o").exists());
}

#[test]
fn version_banner_is_parseable() {
    for flag in ["--version", "-V"] {
        let o = ptxc(&["ptxas", flag]);
        assert_eq!(o.status.code(), Some(0));
        let out = text(&o.stdout);
        let line = out
            .lines()
            .find(|l| l.starts_with("Cuda compilation tools, release "))
            .unwrap_or_else(|| panic!("no release line in {out}"));
        // The form tools parse: `release X.Y, VX.Y.Z`, X.Y the CUDA release of PTX ISA 9.5.
        assert_eq!(line, "Cuda compilation tools, release 13.5, V13.5.0");
        let real = text(&oracle("ptxas", &[flag]).stdout);
        assert!(
            real.lines()
                .any(|l| l.starts_with("Cuda compilation tools, release 13.5, V13.5."))
        );
    }
}

#[test]
fn help_and_no_input_print_usage() {
    for args in [&["ptxas", "--help"][..], &["ptxas", "-h"], &["ptxas"], &["ptxas", "-v"]] {
        let o = ptxc(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        let out = text(&o.stdout);
        assert!(out.starts_with("\nUsage  : ptxas [options] <ptx file>,...\n"), "{out}");
        assert!(out.contains("--fmad <true|false>"), "{out}");
    }
}

/// Lines of a `-v` log without ptxas's timings.
fn info_lines(stderr: &[u8]) -> Vec<String> {
    text(stderr)
        .lines()
        .filter(|l| !l.contains("Compile time"))
        .map(String::from)
        .collect()
}

#[test]
fn verbose_prints_ptxas_lines() {
    let dir = scratch("ptxas_verbose");
    let ours = ptxas_link(&dir);
    let ptx = file(&dir, "g.ptx", GLOBALS_PTX);
    let args = ["-v", "-arch=sm_75", ptx.to_str().unwrap(), "-o", "out.cubin"];
    let a = info_lines(&run_in(&ours, &args, &dir, None).stderr);
    let b = info_lines(&run_in(&real_ptxas(), &args, &dir, None).stderr);
    assert_eq!(
        a[0],
        "ptxas info    : 104 bytes gmem, 12 bytes cmem[3], 16 bytes cmem[4]"
    );
    assert_eq!(a.len(), b.len(), "ours:\n{}\nptxas:\n{}", a.join("\n"), b.join("\n"));
    for (x, y) in a.iter().zip(&b) {
        // Same lines in the same order; register counts may differ.
        let shape = |s: &str| {
            s.split(", ")
                .next()
                .unwrap()
                .split(" registers")
                .next()
                .unwrap()
                .to_string()
        };
        if x.contains("Used ") {
            assert!(x.ends_with(y.split("barriers").nth(1).unwrap()), "{x} vs {y}");
        } else {
            assert_eq!(shape(x), shape(y));
        }
    }
}

#[test]
fn warn_on_spills_warns_like_ptxas() {
    let dir = scratch("ptxas_spills");
    let ours = ptxas_link(&dir);
    let ptx = root().join("tests/kernels/spill_pressure.ptx");
    let args = ["--warn-on-spills", "-maxrregcount=24", ptx.to_str().unwrap()];
    for exe in [ours.as_path(), real_ptxas().as_path()] {
        let o = run_in(exe, &args, &dir, None);
        assert_eq!(o.status.code(), Some(0));
        let err = text(&o.stderr);
        assert!(
            err.starts_with("ptxas warning : Registers are spilled to local memory in function 'spill_pressure', "),
            "{}: {err}",
            exe.display()
        );
        assert!(err.trim_end().ends_with("bytes spill loads"), "{err}");
    }
    let o = run_in(&ours, &args[1..], &dir, None);
    assert_eq!(text(&o.stderr), "", "no warning without --warn-on-spills");
}

/// SASS mnemonics of a cubin, as `ptxc disasm` lists them.
fn mnemonics(cubin: &Path) -> Vec<String> {
    let o = ptxc(&["disasm", cubin.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    listing(&text(&o.stdout))
        .into_values()
        .map(|t| t.split_whitespace().next().unwrap_or("").to_string())
        .collect()
}

#[test]
fn fmad_false_keeps_multiply_and_add_apart() {
    let dir = scratch("ptxas_fmad");
    let ptx = file(&dir, "k.ptx", MAD_PTX);
    let fused = dir.join("fused.cubin");
    let apart = dir.join("apart.cubin");
    for (flag, out) in [("--fmad=true", &fused), ("--fmad=false", &apart)] {
        let o = ptxc(&["ptxas", flag, ptx.to_str().unwrap(), "-o", out.to_str().unwrap()]);
        assert!(o.status.success(), "{}", text(&o.stderr));
    }
    let fused = mnemonics(&fused);
    let apart = mnemonics(&apart);
    assert!(fused.iter().any(|m| m == "FFMA"), "{fused:?}");
    assert!(!apart.iter().any(|m| m == "FFMA"), "{apart:?}");
    assert!(
        apart.iter().any(|m| m == "FMUL") && apart.iter().any(|m| m == "FADD"),
        "{apart:?}"
    );
}

#[test]
fn symlink_named_ptxas_writes_elf_o_and_reads_stdin() {
    let dir = scratch("ptxas_symlink");
    let ours = ptxas_link(&dir);
    let ptx = file(&dir, "k.ptx", MAD_PTX);
    let o = run_in(&ours, &["-arch=sm_75", ptx.to_str().unwrap()], &dir, None);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "");
    assert_eq!(text(&o.stderr), "");
    assert!(!mnemonics(&dir.join("elf.o")).is_empty());
    std::fs::remove_file(dir.join("elf.o")).unwrap();
    let o = run_in(&ours, &["-", "-o", "in.cubin"], &dir, Some(MAD_PTX));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(mnemonics(&dir.join("in.cubin")).iter().any(|m| m == "FFMA"));
    let o = run_in(&ours, &["-arch=compute_75", ptx.to_str().unwrap()], &dir, None);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(!dir.join("elf.o").exists(), "a virtual target writes nothing");
}

/// `MAD_PTX` with `.loc` lines in two files.
const LOC_PTX: &str = ".version 7.0
.target sm_75
.address_size 64

.visible .entry k(.param .u64 p, .param .f32 a)
{
  .reg .f32 %f<4>;
  .reg .b64 %rd<3>;
  .loc 1 3 0
  ld.param.u64 %rd1, [p];
  ld.param.f32 %f1, [a];
  .loc 1 4 5
  cvta.to.global.u64 %rd2, %rd1;
  ld.global.f32 %f2, [%rd2];
  .loc 1 5 5
  mul.f32 %f3, %f2, %f1;
  add.f32 %f3, %f3, %f1;
  .loc 2 10 1
  st.global.f32 [%rd2], %f3;
  .loc 1 7 1
  ret;
}
.file 1 \"/tmp/src/kern.py\"
.file 2 \"/tmp/src/other.py\", 1700000000, 1234
";

/// `(mnemonic, the "//## File ..., line N" annotation before it)` of an nvdisasm listing
/// with line information.
fn annotated(listing: &str) -> Vec<(String, String)> {
    let mut at = String::new();
    let mut out = Vec::new();
    for l in listing.lines().map(str::trim) {
        if let Some(a) = l.strip_prefix("//## ") {
            at = a.to_string();
        } else if l.starts_with("/*")
            && let Some(m) = l.split("*/").nth(1).and_then(|t| t.split_whitespace().next())
            && m.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        {
            out.push((m.to_string(), at.clone()));
        }
    }
    out
}

#[test]
fn lineinfo_maps_sass_to_loc_and_ptx_lines_as_ptxas_does() {
    let dir = scratch("ptxas_lineinfo");
    let ours = ptxas_link(&dir);
    let ptx = file(&dir, "loc.ptx", LOC_PTX);
    let mut listings = Vec::new();
    for (who, exe) in [("ptxc", ours.as_path()), ("ptxas", real_ptxas().as_path())] {
        let out = dir.join(format!("{who}.cubin"));
        let o = run_in(
            exe,
            &["-lineinfo", ptx.to_str().unwrap(), "-o", out.to_str().unwrap()],
            &dir,
            None,
        );
        assert_eq!(o.status.code(), Some(0), "{who}: {}", text(&o.stderr));
        let mut both = Vec::new();
        for flag in ["--print-line-info", "--print-line-info-ptx"] {
            let l = oracle("nvdisasm", &[flag, out.to_str().unwrap()]);
            assert!(
                l.status.success(),
                "nvdisasm {flag} on {who}'s cubin: {}",
                text(&l.stderr)
            );
            assert_eq!(text(&l.stderr), "", "nvdisasm {flag} on {who}'s cubin");
            both.push(annotated(&text(&l.stdout)));
        }
        listings.push(both);
    }
    let (ours, theirs) = (&listings[0], &listings[1]);
    // The instructions both compilers make from one PTX instruction carry the same lines.
    for mnemonic in ["LDG.E.SYS", "FFMA", "STG.E.SYS", "EXIT"] {
        for (table, (a, b)) in ours.iter().zip(theirs).enumerate() {
            let find = |v: &[(String, String)]| v.iter().find(|(m, _)| m == mnemonic).map(|(_, at)| at.clone());
            assert_eq!(
                find(a),
                find(b),
                "{mnemonic} in listing {table}:\nptxc {a:?}\nptxas {b:?}"
            );
            assert!(find(a).is_some(), "{mnemonic} has no line: {a:?}");
        }
    }
    let store = ours[0].iter().find(|(m, _)| m == "STG.E.SYS").unwrap();
    assert_eq!(store.1, "File \"/tmp/src/other.py\", line 10");
    let add = ours[1].iter().find(|(m, _)| m == "FFMA").unwrap();
    assert_eq!(add.1, "File \".nv_debug_ptx_txt\", line 17");
}

#[test]
fn suppress_debug_info_drops_the_line_tables() {
    let dir = scratch("ptxas_suppress");
    let ptx = file(&dir, "loc.ptx", LOC_PTX);
    for (args, expected) in [
        (&["-lineinfo"][..], true),
        (&["-lineinfo", "-suppress-debug-info"], false),
        (&[], false),
    ] {
        let out = dir.join("out.cubin");
        let mut full = vec!["ptxas"];
        full.extend(args);
        full.extend([ptx.to_str().unwrap(), "-o", out.to_str().unwrap()]);
        let o = ptxc(&full);
        assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
        let elf = text(&oracle("cuobjdump", &["-elf", out.to_str().unwrap()]).stdout);
        for section in [".debug_line", ".nv_debug_line_sass", ".nv_debug_ptx_txt"] {
            assert_eq!(elf.contains(section), expected, "{args:?}: {section}");
        }
    }
}

#[test]
fn readme_table_lists_every_option() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    for o in ptxc::ptxas::options::OPTIONS {
        let row = format!("| `--{}` | `-{}` | {} |", o.long, o.short, o.note.replace('|', "\\|"));
        assert!(readme.contains(&row), "README.md has no row `{row}`");
    }
}
