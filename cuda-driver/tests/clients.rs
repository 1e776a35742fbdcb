//! Unmodified CUDA programs on ptxc's libcuda.so.1, with no GPU: C programs using the driver
//! API (compiled with the host C compiler against the library; one checks how unsupported
//! entry points and kernel faults are reported), numba-cuda kernels through
//! numba's normal API, and the Triton kernels of `tests/triton.rs` through Triton's own
//! launcher (`scripts/cuda-driver-test.sh` installs numba-cuda and Triton from PyPI once).
//! `PTXC_CUDA_CLIENTS=0` skips the Python clients on a machine without PyPI.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// The folder of the built library.
/// `cargo test` leaves the freshly built library in the profile's `deps` folder (only
/// `cargo build` copies it up), so that folder is looked in first.
fn lib_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_BIN_EXE_ptxc-ptxas"))
        .parent()
        .expect("a folder")
        .to_path_buf();
    let candidates = [dir.join("deps"), dir.clone()];
    let found = candidates.iter().find(|d| d.join("libcuda.so.1").exists());
    found.cloned().unwrap_or_else(|| {
        panic!(
            "neither {} nor its deps folder has libcuda.so.1 (build.rs links it to libcuda.so)",
            dir.display()
        )
    })
}

/// The repository root.
fn root() -> PathBuf {
    ptxc_testkit::repo_root()
}

/// A scratch folder for this test binary.
fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cuda-driver").join(name);
    std::fs::create_dir_all(&d).expect("scratch folder");
    d
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Builds `tests/c/NAME.c` with the host C compiler against the library; the executable.
fn build_c(name: &str) -> PathBuf {
    let lib = lib_dir();
    let exe = scratch("c").join(name);
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/c/{name}.c"));
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let o = Command::new(&cc)
        .args(["-O1", "-Wall", "-Werror", "-o"])
        .arg(&exe)
        .arg(&src)
        .arg(format!("-L{}", lib.display()))
        .arg("-l:libcuda.so.1")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .output()
        .unwrap_or_else(|e| panic!("{cc}: {e}"));
    assert!(o.status.success(), "{cc} failed:\n{}", text(&o.stderr));
    exe
}

#[test]
fn c_program_runs_on_the_driver_library() {
    let exe = build_c("driver_api");
    let o = Command::new(&exe)
        .env("PTXC_CUDA_LOG", "0")
        .output()
        .expect("run driver_api");
    let out = text(&o.stdout);
    assert!(o.status.success(), "driver_api failed:\n{out}{}", text(&o.stderr));
    assert!(out.contains("c: 8 passed, 0 failed"), "{out}");
}

/// The address a line `LABEL 0x...` of `out` gives.
fn address(out: &str, label: &str) -> String {
    out.lines()
        .find_map(|l| l.strip_prefix(label))
        .unwrap_or_else(|| panic!("no `{label}` line in:\n{out}"))
        .trim()
        .to_string()
}

#[test]
fn unsupported_calls_and_kernel_faults_are_reported() {
    let exe = build_c("errors");
    let o = Command::new(&exe)
        .env("PTXC_CUDA_LOG", "1")
        .output()
        .expect("run errors");
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "errors failed:\n{out}{err}");
    assert!(out.contains("errors: 6 passed, 0 failed"), "{out}");
    for name in ["cuGraphCreate", "cuMemAllocManaged"] {
        let line = format!("ptxc libcuda: {name} is not supported (CUDA_ERROR_NOT_SUPPORTED)");
        assert!(err.contains(&line), "no `{line}` on stderr:\n{err}");
    }
    let faults = [
        (
            "oob address",
            "block (1, 0, 0), thread (37, 0, 0)",
            "out-of-bounds global access of 4 bytes",
        ),
        (
            "misaligned address",
            "block (0, 0, 0), thread (5, 0, 0)",
            "misaligned global access of 4 bytes",
        ),
    ];
    for (label, thread, what) in faults {
        let addr = address(&out, label);
        let line = err
            .lines()
            .find(|l| l.contains(what))
            .unwrap_or_else(|| panic!("no `{what}` on stderr:\n{err}"));
        let want = format!("kernel `poke` failed: kernel `poke`, {thread}, instruction /*");
        assert!(line.contains(&want), "`{want}` not in `{line}`");
        assert!(
            line.ends_with(&format!("at address {addr}")),
            "`{addr}` not in `{line}`"
        );
    }
}

/// The Python clients share one virtual environment: one install at a time.
static VENV: Mutex<()> = Mutex::new(());

/// Runs `scripts/cuda-driver-test.sh CLIENT` and returns its output (`None` when skipped).
fn python_client(client: &str) -> Option<String> {
    if std::env::var("PTXC_CUDA_CLIENTS").as_deref() == Ok("0") {
        eprintln!("PTXC_CUDA_CLIENTS=0: the {client} test is skipped");
        return None;
    }
    let _one = VENV.lock().unwrap_or_else(|e| e.into_inner());
    let script = root().join("scripts/cuda-driver-test.sh");
    let o = Command::new("bash")
        .arg(&script)
        .arg(client)
        .env("LIBCUDA_DIR", lib_dir())
        .env("PTXC_PTXAS", env!("CARGO_BIN_EXE_ptxc-ptxas"))
        .env("PTXC_CUDA_WORK", scratch(client))
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", script.display()));
    let out = format!("{}{}", text(&o.stdout), text(&o.stderr));
    assert!(
        o.status.success(),
        "{} {client} failed (PTXC_CUDA_CLIENTS=0 skips it where PyPI cannot be reached):\n{out}",
        script.display()
    );
    Some(out)
}

#[test]
fn numba_cuda_kernels_match_numpy() {
    let Some(out) = python_client("numba") else { return };
    for k in [
        "arrays_1d",
        "arrays_2d",
        "shared_memory",
        "dynamic_shared_memory",
        "atomics",
        "math_functions",
        "device_functions_local_and_constant_memory",
        "streams_events_pinned_memory",
        "print",
    ] {
        assert!(out.contains(&format!("\n{k}: ok\n")), "{k} did not pass:\n{out}");
    }
    assert!(out.contains("numba: 9 passed, 0 failed"), "{out}");
}

#[test]
fn triton_kernels_run_with_tritons_launcher() {
    let Some(out) = python_client("triton") else { return };
    for k in ["vector_add", "softmax", "matmul", "histogram"] {
        assert!(out.contains(&format!("\n{k}: ok\n")), "{k} did not pass:\n{out}");
    }
    assert!(out.contains("triton: 4 passed, 0 failed"), "{out}");
}
