//! Golden (filetest-style) tests: `golden/lower/*.ptx` are lowered, `golden/<pass>/*.mir`
//! are parsed and run through the pass; the printed MIR must equal `<name>.out`.
//! `PTXC_BLESS=1 cargo test -p ptxc-mir --test golden` rewrites the expectations (review
//! the diff). Also checks that the text form parses back to the same text.

use ptxc_mir::ir::{Function, parse::parse_functions, verify};
use std::path::Path;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden");

fn print_all(fs: &[Function]) -> String {
    fs.iter().map(|f| f.to_string()).collect::<Vec<_>>().join("\n")
}

fn lower_text(src: &str) -> Result<String, String> {
    let checked = ptxc_frontend::parse_and_check(src).map_err(|d| format!("{d:?}"))?;
    let m = ptxc_mir::lower::lower_module(&checked).map_err(|e| format!("{e:?}"))?;
    for f in &m.functions {
        verify(f).map_err(|e| e.to_string())?;
    }
    Ok(print_all(&m.functions))
}

fn run_pass_text(pass: &str, src: &str) -> Result<String, String> {
    let mut fs = parse_functions(src).map_err(|e| e.to_string())?;
    for f in &mut fs {
        verify(f).map_err(|e| format!("input: {e}"))?;
        ptxc_mir::opt::run_passes(f, &[pass])?;
        verify(f).map_err(|e| e.to_string())?;
    }
    Ok(print_all(&fs))
}

fn check(path: &Path, actual: &str) -> Result<(), String> {
    let out = path.with_extension("out");
    if std::env::var_os("PTXC_BLESS").is_some() {
        std::fs::write(&out, actual).map_err(|e| e.to_string())?;
        return Ok(());
    }
    let expected = std::fs::read_to_string(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    if expected == actual {
        Ok(())
    } else {
        Err(format!("{}: output differs:\n{actual}", path.display()))
    }
}

#[test]
fn golden_files() {
    let mut failures = Vec::new();
    let mut count = 0;
    for dir in std::fs::read_dir(DIR).expect("golden folder") {
        let dir = dir.expect("entry").path();
        let pass = dir.file_name().expect("name").to_string_lossy().to_string();
        for file in std::fs::read_dir(&dir).expect("pass folder") {
            let path = file.expect("entry").path();
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            if !matches!(ext, "ptx" | "mir") {
                continue;
            }
            count += 1;
            let src = std::fs::read_to_string(&path).expect("readable");
            let actual = if pass == "lower" {
                lower_text(&src)
            } else {
                run_pass_text(&pass, &src)
            };
            if let Err(e) = actual.and_then(|a| check(&path, &a)) {
                failures.push(e);
            }
        }
    }
    println!("golden: {} passed, {} failed", count - failures.len(), failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(count > 0);
}

#[test]
fn text_form_round_trips_on_every_zluda_kernel() {
    let mut n = 0;
    for path in ptxc_testkit::ptx_files(&ptxc_testkit::conformance_dir()) {
        let src = std::fs::read_to_string(&path).expect("readable");
        let text = lower_text(&src).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let parsed = parse_functions(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", path.display()));
        for f in &parsed {
            verify(f).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
        assert_eq!(print_all(&parsed), text, "{}", path.display());
        n += 1;
    }
    assert_eq!(n, 158);
}

/// The cluster kernels (`tests/hopper/cluster_*.ptx`, `tests/hopper_isa/cluster_*.ptx`),
/// lowered as for sm_90 (Hopper's mbarrier, the rank in shared addresses): the text form of
/// `shared_cluster` accesses, `cluster_arrive`, `cluster_wait`, `l1_invalidate` and the
/// cluster special registers parses back to the same text.
#[test]
fn text_form_round_trips_on_the_cluster_kernels() {
    let options = ptxc_mir::lower::LowerOptions {
        hopper_mbarrier: true,
        rank_in_shared_addresses: true,
        ..Default::default()
    };
    let root = ptxc_testkit::repo_root();
    let mut n = 0;
    for dir in ["tests/hopper", "tests/hopper_isa"] {
        for path in ptxc_testkit::ptx_files(&root.join(dir)) {
            if !path
                .file_name()
                .is_some_and(|f| f.to_string_lossy().starts_with("cluster_"))
            {
                continue;
            }
            let src = std::fs::read_to_string(&path).expect("readable");
            let checked = ptxc_frontend::parse_and_check(&src).unwrap_or_else(|d| panic!("{}: {d:?}", path.display()));
            let m = ptxc_mir::lower::lower_module_with(&checked, options)
                .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
            let text = print_all(&m.functions);
            let name = path
                .file_stem()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default();
            let wanted: &[&str] = match name.as_str() {
                "cluster_barrier" => &["cluster_arrive", "cluster_wait", "l1_invalidate"],
                "cluster_memory" => &["shared_cluster", "%cluster_ctarank", "l1_invalidate"],
                "cluster_sregs" => &["%cluster_nctaid.y", "%nclusterid.z", "div_u"],
                _ => &[],
            };
            for op in wanted {
                assert!(text.contains(op), "{}: no `{op}`\n{text}", path.display());
            }
            let parsed = parse_functions(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", path.display()));
            for f in &parsed {
                verify(f).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            }
            assert_eq!(print_all(&parsed), text, "{}", path.display());
            n += 1;
        }
    }
    assert_eq!(n, 6);
}
