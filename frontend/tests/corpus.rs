//! Every real-world PTX file parses (and checks, and round-trips through the printer).

mod common;

use common::*;

#[test]
fn every_file_parses() {
    let mut failures = Vec::new();
    for path in all_ptx_files() {
        let src = read(&path);
        if let Err(diags) = ptxc_frontend::parse(&src) {
            failures.push(ptxc_frontend::render_diagnostics(
                &name(&path),
                &src,
                &diags[..diags.len().min(3)],
            ));
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
fn every_file_checks() {
    let mut failures = Vec::new();
    for path in all_ptx_files() {
        let src = read(&path);
        if let Err(diags) = ptxc_frontend::parse_and_check(&src) {
            failures.push(ptxc_frontend::render_diagnostics(
                &name(&path),
                &src,
                &diags[..diags.len().min(3)],
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} files failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
