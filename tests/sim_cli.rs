//! `ptxc run` on the simulator: faults (misaligned access, barrier deadlock, instruction
//! limit) exit 1 naming kernel, thread, instruction and, for memory, the address, on both
//! engines; `--trace` writes a Chrome trace-event timeline. (Out-of-bounds accesses are in
//! `cli_contract.rs`.)

mod common;

use common::*;
use std::path::Path;

/// Writes `ptx` and a launch spec of `block` threads with one u32 buffer `p` of 64 words to
/// `dir`; runs `ptxc run` with `extra` arguments; (exit code, stdout, stderr).
fn run_kernel(dir: &Path, ptx: &str, block: u32, extra: &[&str]) -> (Option<i32>, String, String) {
    let src = dir.join("k.ptx");
    std::fs::write(&src, ptx).unwrap();
    let spec = dir.join("k.toml");
    let toml = format!(
        "kernel = \"k\"\ngrid = [1, 1, 1]\nblock = [{block}, 1, 1]\nparams = [ {{ ptr = \"p\" }} ]\n\
         [buffers.p]\ndtype = \"u32\"\nlen = 64\n"
    );
    std::fs::write(&spec, toml).unwrap();
    let mut args = vec!["run", src.to_str().unwrap(), "--launch", spec.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = ptxc(&args);
    (o.status.code(), text(&o.stdout), text(&o.stderr))
}

fn kernel(body: &str) -> String {
    format!(
        ".version 7.0\n.target sm_75\n.address_size 64\n\
         .visible .entry k(.param .u64 p)\n{{\n\
         .reg .u64 %p;\n.reg .u32 %t, %x;\n.reg .pred %q;\n\
         ld.param.u64 %p, [p];\nmov.u32 %t, %tid.x;\n{body}\nret;\n}}\n"
    )
}

/// Runs `ptx` on both engines and checks the fault message contains every part of `want`.
fn faults(name: &str, ptx: &str, block: u32, extra: &[&str], want: &[&str]) {
    for mode in ["timed", "functional"] {
        let dir = scratch(&format!("sim_cli_{name}_{mode}"));
        let mut args = vec!["--mode", mode];
        args.extend_from_slice(extra);
        let (code, _, err) = run_kernel(&dir, ptx, block, &args);
        assert_eq!(code, Some(1), "{name} ({mode}): {err}");
        for w in ["kernel `k`", "block (0, 0, 0)", "thread (", "instruction /*"]
            .iter()
            .chain(want)
        {
            assert!(err.contains(w), "{name} ({mode}): want `{w}` in `{err}`");
        }
    }
}

#[test]
fn misaligned_accesses_fault_with_the_address() {
    let ptx = kernel("add.u64 %p, %p, 2;\nld.global.u32 %x, [%p];\nst.global.u32 [%p+2], %x;");
    faults(
        "misaligned",
        &ptx,
        32,
        &[],
        &["misaligned global access of 4 bytes at address 0x"],
    );
}

#[test]
fn barriers_that_never_complete_are_a_deadlock() {
    // Warp 0 waits at barrier 1, warp 1 at barrier 2: neither completes.
    let ptx = kernel("setp.lt.u32 %q, %t, 32;\n@%q bra FIRST;\nbar.sync 2;\nbra.uni DONE;\nFIRST:\nbar.sync 1;\nDONE:");
    faults(
        "deadlock",
        &ptx,
        64,
        &[],
        &["barrier deadlock", "barrier 1: 32 of 64 threads arrived"],
    );
}

#[test]
fn the_instruction_limit_stops_endless_loops() {
    // Counts up from 1 until the counter wraps to 0: 2^32 iterations.
    let ptx = kernel(
        "mov.u32 %x, 1;\nLOOP:\nadd.u32 %x, %x, %t;\nadd.u32 %x, %x, 1;\nsetp.ne.u32 %q, %x, 0;\n@%q bra LOOP;\nst.global.u32 [%p], %x;",
    );
    faults(
        "limit",
        &ptx,
        32,
        &["--max-instructions", "10000"],
        &["instruction limit of 10000 warp instructions"],
    );
}

#[test]
fn trace_writes_a_chrome_timeline_with_a_track_per_warp() {
    let dir = scratch("sim_cli_trace");
    let trace = dir.join("trace.json");
    let ptx = kernel(
        "mul.wide.u32 %p, %t, 4;\nld.param.u64 %p, [p];\nshl.b32 %x, %t, 2;\ncvt.u64.u32 %p, %x;\n\
         ld.param.u64 %p, [p];\nmul.lo.u32 %x, %t, %t;",
    );
    let (code, _, err) = run_kernel(&dir, &ptx, 64, &["--trace", trace.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    let events = v["traceEvents"].as_array().expect("traceEvents");
    assert!(!events.is_empty());
    let mut last: std::collections::BTreeMap<u64, i64> = Default::default();
    for e in events {
        assert_eq!(e["ph"], "X");
        assert!(e["name"].as_str().is_some_and(|n| !n.is_empty()));
        let (tid, ts) = (e["tid"].as_u64().unwrap(), e["ts"].as_i64().unwrap());
        assert!(e["dur"].as_i64().unwrap() >= 1);
        // Each warp's instructions issue in order, at most one per cycle.
        if let Some(&prev) = last.get(&tid) {
            assert!(ts > prev, "warp {tid}: {ts} after {prev}");
        }
        last.insert(tid, ts);
    }
    assert_eq!(last.len(), 2, "one track per warp");
    let (code, _, err) = run_kernel(
        &dir,
        &ptx,
        64,
        &["--trace", trace.to_str().unwrap(), "--mode", "functional"],
    );
    assert_eq!(code, Some(1), "--trace needs the timed engine: {err}");
}

#[test]
fn run_compiles_a_ptx_module_for_its_target() {
    // `cp.async` needs sm_80: `ptxc run` compiles for the module's `.target sm_80`.
    let ptx = kernel(
        "cvt.u64.u32 %p, %t;\nshl.b64 %p, %p, 2;\nld.param.u64 %s, [p];\nadd.u64 %p, %p, %s;\n\
         mov.u32 %x, buf;\nshl.b32 %y, %t, 2;\nadd.u32 %x, %x, %y;\n\
         cp.async.ca.shared.global [%x], [%p], 4;\ncp.async.wait_all;\n\
         ld.shared.u32 %y, [%x];\nadd.u32 %y, %y, 1;\nst.global.u32 [%p], %y;",
    )
    .replace(".target sm_75", ".target sm_80")
    .replace(
        ".reg .pred %q;",
        ".reg .pred %q;\n.reg .u64 %s;\n.reg .u32 %y;\n.shared .align 4 .b32 buf[32];",
    );
    let dir = scratch("sim_cli_target");
    let (code, _, err) = run_kernel(&dir, &ptx, 32, &[]);
    assert_eq!(code, Some(0), "{err}");
    let (code, _, err) = run_kernel(&dir, &ptx, 32, &["--arch", "sm_75"]);
    assert_eq!(code, Some(1), "compiled for sm_75: {err}");
}
