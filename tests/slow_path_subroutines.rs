//! Slow paths as subroutines (`backend/src/isel/subroutine.rs`), as ptxas calls its own: a
//! division's slow path is entered by `CALL.REL.NOINC` after its return address is set and
//! left by `RET.REL.NODEC` relative to the kernel's start, which makes the kernel's
//! `EIATTR_CRS_STACK_SIZE` (0) as in ptxas's cubin; directed roundings are called always.
//! Under a register limit the return addresses do not fit, the slow paths are selected in
//! line and the limit holds. The results on the simulator are the same either way.

mod common;

use common::*;

/// Every thread divides, takes square roots and a reciprocal rounded towards zero of its
/// inputs (the slow paths run for the zeros, infinities and subnormals among them).
const KERNEL: &str = r#"
.version 7.0
.target sm_75
.address_size 64
.visible .entry slow(.param .u64 x, .param .u64 y, .param .u64 out)
{
    .reg .u32 %r<4>;
    .reg .u64 %rd<12>;
    .reg .f32 %f<12>;
    .reg .f64 %fd<4>;
    ld.param.u64 %rd1, [x];
    ld.param.u64 %rd2, [y];
    ld.param.u64 %rd3, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd4, %r1, 4;
    add.s64 %rd5, %rd1, %rd4;
    add.s64 %rd6, %rd2, %rd4;
    ld.global.f32 %f1, [%rd5];
    ld.global.f32 %f2, [%rd6];
    div.rn.f32 %f3, %f1, %f2;
    sqrt.rn.f32 %f4, %f1;
    rcp.rz.f32 %f5, %f2;
    cvt.f64.f32 %fd1, %f1;
    cvt.f64.f32 %fd2, %f2;
    div.rn.f64 %fd3, %fd1, %fd2;
    cvt.rn.f32.f64 %f6, %fd3;
    mul.wide.u32 %rd7, %r1, 16;
    add.s64 %rd8, %rd3, %rd7;
    st.global.v4.f32 [%rd8], {%f3, %f4, %f5, %f6};
    ret;
}
"#;

const SPEC: &str = "kernel = \"slow\"\ngrid = [1]\nblock = [128]\n\
    params = [ { ptr = \"x\" }, { ptr = \"y\" }, { ptr = \"out\" } ]\n\
    [buffers.x]\ndtype = \"f32\"\nlen = 128\nrandom = { seed = 5, min = -1e30, max = 1e30 }\n\
    [buffers.y]\ndtype = \"f32\"\nlen = 128\nrandom = { seed = 6, min = -1e-30, max = 1e30 }\n\
    [buffers.out]\ndtype = \"f32\"\nlen = 512\n";

/// Compiles `ptx` with `extra` options; its listing and register count.
fn compile(
    ptx: &std::path::Path,
    dir: &std::path::Path,
    extra: &[&str],
    name: &str,
) -> (std::path::PathBuf, String, u32) {
    let cubin = dir.join(name);
    let mut args = vec!["compile", ptx.to_str().unwrap(), "-o", cubin.to_str().unwrap(), "-v"];
    args.extend(extra);
    let o = ptxc(&args);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let used = text(&o.stderr)
        .split("Used ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no register count in {}", text(&o.stderr)));
    let listing = disasm(&cubin);
    (cubin, listing, used)
}

#[test]
fn slow_paths_are_called_and_inlined_under_a_register_limit() {
    let dir = scratch("slow_path_subroutines");
    let ptx = dir.join("slow.ptx");
    std::fs::write(&ptx, KERNEL).unwrap();
    let (called, listing, _) = compile(&ptx, &dir, &[], "called.cubin");
    let calls = listing.lines().filter(|l| l.contains("CALL.REL.NOINC")).count();
    let returns = listing.lines().filter(|l| l.contains("RET.REL.NODEC")).count();
    assert_eq!((calls, returns), (4, 4), "{listing}");
    let m = ptxc_sass::cubin::read(&std::fs::read(&called).unwrap()).unwrap();
    assert_eq!(m.kernels[0].crs_stack_size, Some(0));
    assert!(m.kernels[0].syscall_offsets.is_empty(), "a slow path is no driver call");
    // Under a limit of 24 registers (29 without one) the limit holds.
    let (limited, _, used) = compile(&ptx, &dir, &["--max-registers", "24"], "limited.cubin");
    assert!(used <= 24, "{used} registers");
    let want = &run_words(&dir, &limited, SPEC, "timed", &["out"])[0];
    for engine in ["functional", "timed"] {
        let got = &run_words(&dir, &called, SPEC, engine, &["out"])[0];
        assert_eq!(got, want, "{engine}");
    }
    // The kernel set's div_sqrt_f64 under 16 registers: its slow paths' return addresses
    // do not fit, and the slow paths go in line.
    let ptx = root().join("tests/kernels/div_sqrt_f64.ptx");
    let (_, listing, used) = compile(&ptx, &dir, &["--max-registers", "16"], "div_sqrt_f64.cubin");
    assert!(used <= 16, "{used} registers");
    assert!(!listing.contains("CALL.REL"), "{listing}");
}
