//! Triton with ptxc as its ptxas: `scripts/triton-test.sh` installs Triton from PyPI (once, into
//! `target/triton-venv`; about 16 s), compiles a vector add, a row softmax, an fp32 matmul and
//! an atomic histogram for sm_75 through ptxc, runs them on the simulator and checks them with
//! numpy. Set `PTXC_TRITON=0` to skip (for a machine without PyPI).

mod common;

use common::*;
use std::process::Command;

#[test]
fn triton_kernels_compile_with_ptxc_and_match_numpy() {
    if std::env::var("PTXC_TRITON").as_deref() == Ok("0") {
        eprintln!("PTXC_TRITON=0: Triton test skipped");
        return;
    }
    let script = root().join("scripts/triton-test.sh");
    let o = Command::new("bash")
        .arg(&script)
        .env("PTXC", env!("CARGO_BIN_EXE_ptxc"))
        .env("PTXC_TRITON_WORK", scratch("triton"))
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", script.display()));
    let out = format!("{}{}", text(&o.stdout), text(&o.stderr));
    assert!(
        o.status.success(),
        "{} failed (PTXC_TRITON=0 skips it where PyPI cannot be reached):\n{out}",
        script.display()
    );
    for k in ["vector_add", "softmax", "matmul", "histogram"] {
        assert!(out.contains(&format!("\n{k}: ok\n")), "{k} did not pass:\n{out}");
    }
}
