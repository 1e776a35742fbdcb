//! parse → print → parse gives an equal syntax tree (spans aside) for every real-world file,
//! and printing is a fixed point after one round.

mod common;

use common::*;

#[test]
fn print_then_parse_gives_the_same_tree() {
    let mut failures = Vec::new();
    for path in all_ptx_files() {
        let src = read(&path);
        let first = ptxc_frontend::parse(&src).unwrap_or_else(|_| panic!("{} does not parse", name(&path)));
        let printed = ptxc_frontend::print::module(&first);
        match ptxc_frontend::parse(&printed) {
            Err(diags) => failures.push(format!(
                "{}: printed text does not parse:\n{}",
                name(&path),
                ptxc_frontend::render_diagnostics("printed", &printed, &diags[..diags.len().min(2)])
            )),
            Ok(second) => {
                if without_spans(&first) != without_spans(&second) {
                    failures.push(format!("{}: tree changed", name(&path)));
                } else if ptxc_frontend::print::module(&second) != printed {
                    failures.push(format!("{}: printing is not a fixed point", name(&path)));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} files failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn printed_files_still_check() {
    for path in all_ptx_files() {
        let src = read(&path);
        let printed = ptxc_frontend::print::module(&ptxc_frontend::parse(&src).expect("parses"));
        if let Err(diags) = ptxc_frontend::parse_and_check(&printed) {
            panic!(
                "{}:\n{}",
                name(&path),
                ptxc_frontend::render_diagnostics("printed", &printed, &diags)
            );
        }
    }
}

/// NVIDIA's ptxas (`CUDA_ORACLE_BIN`, or installed by `scripts/cuda-oracle`) accepts the printed
/// text of every file.
#[test]
fn printed_text_is_accepted_by_ptxas() {
    let ptxas = ptxc_testkit::oracle_tool("ptxas");
    let dir = std::env::temp_dir().join(format!("ptxc-frontend-print-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for path in all_ptx_files() {
        if std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0) > 200_000 {
            continue;
        }
        let src = read(&path);
        let printed = ptxc_frontend::print::module(&ptxc_frontend::parse(&src).expect("parses"));
        let file = dir.join(name(&path));
        std::fs::write(&file, printed).expect("write printed text");
        let out = std::process::Command::new(&ptxas)
            .args(["-arch=sm_75"])
            .arg(&file)
            .arg("-o")
            .arg(dir.join("out.cubin"))
            .output()
            .expect("run ptxas");
        assert!(
            out.status.success(),
            "{}: {}",
            name(&path),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
