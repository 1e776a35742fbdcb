//! The driver-provided device functions on the simulator, with ptxas's and ptxc's cubins of
//! the CUDA C kernels in `tests/driver/`: `printf` of every conversion prints what the host's `printf`
//! prints for the same calls (`printf_host.c`, compiled with the host's `cc`), on both
//! engines; a failed `assert` ends the launch with CUDA's message, block and thread;
//! `malloc`/`free` use a heap sized by the launch spec, report exhaustion and fault on a
//! double free; `ptxc run --printf-out` writes the output to a file. Constant data is reached
//! through generic addresses as the driver lays it out: `cvta.const` adds the address of the
//! constant bank's copy in global memory, which the driver puts at `c[0x0][0x50]` (ptxas's
//! code reads it there), on both compilers' cubins and the MIR interpreter.

mod common;

use common::*;
use ptxc::launch::LaunchSpec;
use ptxc::run::{RunOptions, RunOutput, run};
use ptxc_sim::Engine;
use std::path::{Path, PathBuf};
use std::process::Command;

fn driver_dir() -> PathBuf {
    root().join("tests/driver")
}

/// The compilers whose cubins the tests run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Compiler {
    Ptxas,
    Ptxc,
}

const COMPILERS: [Compiler; 2] = [Compiler::Ptxas, Compiler::Ptxc];

/// `by`'s cubin of `tests/driver/<name>.ptx`, in `dir`.
fn cubin(name: &str, dir: &Path, by: Compiler) -> Vec<u8> {
    let ptx = driver_dir().join(format!("{name}.ptx"));
    let out = dir.join(format!("{name}.{by:?}.cubin"));
    match by {
        Compiler::Ptxas => ptxas(&ptx, &out),
        Compiler::Ptxc => {
            let o = ptxc(&["compile", ptx.to_str().unwrap(), "-o", out.to_str().unwrap()]);
            assert!(o.status.success(), "ptxc compile {name}: {}", text(&o.stderr));
        }
    }
    std::fs::read(out).unwrap()
}

fn spec(name: &str, dir: &Path) -> LaunchSpec {
    let text = std::fs::read_to_string(driver_dir().join(format!("{name}.toml"))).unwrap();
    ptxc::launch::parse(&text, dir).unwrap()
}

fn launch(cubin: &[u8], spec: &LaunchSpec, engine: Engine) -> Result<RunOutput, String> {
    let opts = RunOptions {
        engine,
        ..RunOptions::default()
    };
    run(cubin, spec, &opts)
}

fn i32s(out: &RunOutput, name: &str) -> Vec<i32> {
    out.buffers[name]
        .bytes
        .chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// What `printf_host.c` prints for `n` threads.
fn host_printf(dir: &Path, n: u32) -> String {
    let exe = dir.join("printf_host");
    let d = driver_dir();
    let cc = Command::new("cc")
        .args(["-O0", "-I", d.to_str().unwrap(), "-o", exe.to_str().unwrap()])
        .arg(d.join("printf_host.c"))
        .output()
        .expect("run the host's cc");
    assert!(cc.status.success(), "cc: {}", text(&cc.stderr));
    let o = Command::new(&exe).arg(n.to_string()).output().unwrap();
    assert!(o.status.success());
    text(&o.stdout)
}

#[test]
fn printf_prints_what_the_host_printf_prints() {
    let dir = scratch("sim_driver_printf");
    let spec = spec("printf_all", &dir);
    let want = host_printf(&dir, spec.block[0]);
    assert_eq!(want.lines().count(), 12 * 4);
    for by in COMPILERS {
        let cubin = cubin("printf_all", &dir, by);
        for engine in [Engine::Functional, Engine::Timed] {
            let out = launch(&cubin, &spec, engine).unwrap();
            assert_eq!(out.printf, want, "{by:?} {engine:?}");
            // The last call parses 18 arguments.
            assert_eq!(i32s(&out, "out"), vec![18; 4], "{by:?} {engine:?}");
            assert!(out.driver_reports.is_empty());
        }
    }
}

#[test]
fn a_full_printf_buffer_keeps_the_newest_records() {
    let dir = scratch("sim_driver_printf_fifo");
    let mut spec = spec("printf_all", &dir);
    // The last call's records (16 ints and 2 doubles: 80 bytes of arguments) are
    // 8 + 8 + 80 = 96 bytes each: a 384-byte buffer holds exactly the last four.
    spec.limits.printf_fifo_size = 384;
    let want = host_printf(&dir, 4);
    let tail: Vec<&str> = want.lines().skip(44).collect();
    for by in COMPILERS {
        let out = launch(&cubin("printf_all", &dir, by), &spec, Engine::Functional).unwrap();
        assert_eq!(out.printf.lines().collect::<Vec<_>>(), tail, "{by:?}");
        assert!(
            out.driver_reports
                .iter()
                .any(|r| r.contains("44 printf record(s) overwritten")),
            "{by:?}: {:?}",
            out.driver_reports
        );
    }
}

#[test]
fn a_failed_assert_ends_the_launch_with_cudas_message() {
    let dir = scratch("sim_driver_assert");
    let mut input = vec![0u8; 64];
    for t in [5usize, 9] {
        input[4 * t] = 1;
    }
    ptxc::npy::write(
        &dir.join("assert_in.npy"),
        &ptxc::npy::Array::new(ptxc::launch::Scalar::I32, input),
    )
    .unwrap();
    let spec = spec("assert_fail", &dir);
    for (by, engine) in COMPILERS
        .into_iter()
        .flat_map(|by| [Engine::Functional, Engine::Timed].map(|e| (by, e)))
    {
        let err = launch(&cubin("assert_fail", &dir, by), &spec, engine).unwrap_err();
        for t in [5, 9] {
            let line = format!(
                "assert_fail.cu:6: void assert_fail(const int *, int *): block: [0,0,0], thread: [{t},0,0] \
                 Assertion `in[t] == 0` failed."
            );
            assert!(err.contains(&line), "{by:?} {engine:?}: `{line}` not in `{err}`");
        }
        assert!(
            err.contains("kernel `assert_fail`, block (0, 0, 0), thread (5, 0, 0)")
                && err.contains("device-side assert triggered"),
            "{by:?} {engine:?}: {err}"
        );
    }
}

#[test]
fn malloc_and_free_use_the_heap_of_the_launch_spec() {
    for by in COMPILERS {
        malloc_and_free_with(by);
    }
}

fn malloc_and_free_with(by: Compiler) {
    let dir = scratch(&format!("sim_driver_malloc_{by:?}"));
    let cubin = cubin("malloc_free", &dir, by);
    let mut spec = spec("malloc_free", &dir);
    for engine in [Engine::Functional, Engine::Timed] {
        let out = launch(&cubin, &spec, engine).unwrap();
        let want: Vec<i32> = (0..32).map(|t| if t < 10 { 4950 + 100 * t } else { -1 }).collect();
        assert_eq!(i32s(&out, "out"), want, "{by:?} {engine:?}");
        assert_eq!(out.driver_reports.len(), 22, "{by:?} {engine:?}");
        assert!(out.driver_reports[0].contains("malloc of 400 bytes returned NULL: the heap of 4096 bytes"));
    }
    // CUDA's default heap (8 MiB) holds every block.
    spec.limits = Default::default();
    let out = launch(&cubin, &spec, Engine::Functional).unwrap();
    assert_eq!(
        i32s(&out, "out"),
        (0..32).map(|t| 4950 + 100 * t).collect::<Vec<_>>(),
        "{by:?}"
    );
    assert!(out.driver_reports.is_empty());
    // Thread 0 frees its block twice.
    spec.params[2] = ptxc::launch::ParamSpec::Scalar {
        kind: ptxc::launch::Scalar::I32,
        bytes: 1i32.to_le_bytes().to_vec(),
    };
    let err = launch(&cubin, &spec, Engine::Functional).unwrap_err();
    assert!(
        err.contains("kernel `malloc_free`, block (0, 0, 0), thread (0, 0, 0)") && err.contains("double free"),
        "{by:?}: {err}"
    );
}

#[test]
fn ptxc_run_writes_printf_output_to_a_file() {
    let dir = scratch("sim_driver_cli");
    let cubin = dir.join("printf_all.cubin");
    ptxas(&driver_dir().join("printf_all.ptx"), &cubin);
    let file = dir.join("printf.txt");
    let spec = driver_dir().join("printf_all.toml");
    let o = ptxc(&[
        "run",
        cubin.to_str().unwrap(),
        "--launch",
        spec.to_str().unwrap(),
        "--printf-out",
        file.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), host_printf(&dir, 4));
    assert!(!text(&o.stdout).contains("no arguments"));
    // Without the option the output goes to standard output, before the buffers.
    let o = ptxc(&["run", cubin.to_str().unwrap(), "--launch", spec.to_str().unwrap()]);
    assert!(
        text(&o.stdout).starts_with(&host_printf(&dir, 4)),
        "{}",
        text(&o.stdout)
    );
}

#[test]
fn constant_data_through_generic_addresses() {
    let dir = scratch("sim_driver_const_generic");
    let spec = spec("const_generic", &dir);
    let table = [11, 22, 33, 44];
    let want: Vec<i32> = (0..32).map(|t| table[t % 4] + 100 * table[(t + 1) % 4]).collect();
    for by in COMPILERS {
        let cubin = cubin("const_generic", &dir, by);
        for engine in [Engine::Functional, Engine::Timed] {
            let out = launch(&cubin, &spec, engine).unwrap();
            assert_eq!(i32s(&out, "out"), want, "{by:?} {engine:?}");
        }
    }
    let src = std::fs::read_to_string(driver_dir().join("const_generic.ptx")).unwrap();
    let mir = ptxc::pipeline::lower_ptx(&src, "const_generic").unwrap();
    let out = ptxc::run::run_mir(&mir, &spec, RunOptions::default().config).unwrap();
    assert_eq!(i32s(&out, "out"), want, "MIR interpreter");
}
