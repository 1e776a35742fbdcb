//! The command-line contract: exit codes, no output left behind on errors, clear messages for
//! bad PTX, bad cubins and bad launch specs.

mod common;

use common::*;

#[test]
fn compile_error_exits_1_with_location_and_leaves_no_file() {
    let dir = scratch("compile_error");
    let ptx = dir.join("bad.ptx");
    std::fs::write(
        &ptx,
        ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n  frobnicate.u32 %r1;\n  ret;\n}\n",
    )
    .unwrap();
    let out = dir.join("bad.cubin");
    let o = ptxc(&["compile", ptx.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(err.contains("bad.ptx:6:"), "no location in: {err}");
    assert!(!out.exists(), "a failed compile left {}", out.display());
    assert!(
        std::fs::read_dir(&dir).unwrap().count() == 1,
        "temporary files left behind"
    );
}

#[test]
fn unsupported_architecture_is_refused() {
    let dir = scratch("bad_arch");
    let out = dir.join("x.cubin");
    let o = ptxc(&[
        "compile",
        example("saxpy.ptx").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--arch",
        "sm_100",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("sm_100"));
    assert!(!out.exists());
}

#[test]
fn disasm_of_a_non_cubin_is_an_error() {
    let dir = scratch("bad_cubin");
    let f = dir.join("junk.cubin");
    std::fs::write(&f, b"\x7fELF this is not a cubin").unwrap();
    let o = ptxc(&["disasm", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("bad cubin"), "{}", text(&o.stderr));
}

fn run_with_spec(name: &str, spec: &str) -> (Option<i32>, String) {
    let dir = scratch(name);
    let path = dir.join("spec.toml");
    std::fs::write(&path, spec).unwrap();
    for f in ["saxpy_x.npy", "saxpy_y.npy"] {
        std::fs::copy(example(f), dir.join(f)).unwrap();
    }
    let o = ptxc(&[
        "run",
        example("saxpy.ptx").to_str().unwrap(),
        "--launch",
        path.to_str().unwrap(),
    ]);
    (o.status.code(), text(&o.stderr))
}

#[test]
fn bad_launch_specs_are_clear_errors() {
    let base = "grid = [4, 1, 1]\nblock = [256, 1, 1]\n[buffers.x]\nfile = \"saxpy_x.npy\"\n[buffers.y]\nfile = \"saxpy_y.npy\"\n";
    let cases = [
        (
            "unknown_kernel",
            "kernel = \"nope\"\nparams = []\n",
            "no kernel named `nope`",
        ),
        (
            "too_few_params",
            "kernel = \"saxpy\"\nparams = [ { i32 = 1000 } ]\n",
            "takes 4 parameter(s), the launch spec gives 1",
        ),
        (
            "wrong_size",
            "kernel = \"saxpy\"\nparams = [ { i64 = 1000 }, { f32 = 2.0 }, { ptr = \"x\" }, { ptr = \"y\" } ]\n",
            "params[0]: kernel `saxpy` expects a 4-byte parameter",
        ),
        (
            "missing_buffer",
            "kernel = \"saxpy\"\nparams = [ { ptr = \"q\" } ]\n",
            "no buffer named `q`",
        ),
        ("bad_toml", "kernel = \n", "invalid TOML"),
    ];
    for (name, head, want) in cases {
        let (code, err) = run_with_spec(name, &format!("{head}{base}"));
        assert_eq!(code, Some(1), "{name}: {err}");
        assert!(err.contains(want), "{name}: want `{want}` in `{err}`");
    }
}

#[test]
fn out_of_bounds_access_is_a_fault_naming_kernel_thread_and_address() {
    // n = 2000 but the buffers hold 1000 elements: thread 1000 reads past the end.
    let spec = "kernel = \"saxpy\"\ngrid = [8, 1, 1]\nblock = [256, 1, 1]\nparams = [ { i32 = 2000 }, { f32 = 2.0 }, { ptr = \"x\" }, { ptr = \"y\" } ]\n[buffers.x]\nfile = \"saxpy_x.npy\"\n[buffers.y]\nfile = \"saxpy_y.npy\"\n";
    let (code, err) = run_with_spec("oob", spec);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("kernel `saxpy`")
            && err.contains("out-of-bounds")
            && err.contains("thread (")
            && err.contains("instruction /*"),
        "{err}"
    );
}

/// A kernel with `extra` on the line of its entry (line 4).
fn entry_line_kernel(extra: &[u8]) -> Vec<u8> {
    let mut v = b".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry k() ".to_vec();
    v.extend_from_slice(extra);
    v.extend_from_slice(b"\n{\n  ret;\n}\n");
    v
}

#[test]
fn non_ascii_bytes_in_code_are_located_errors_and_allowed_in_comments() {
    let dir = scratch("non_ascii");
    let out = dir.join("k.cubin");
    // 0xE9 is not UTF-8 on its own (Latin-1 `é`); C3 A9 is UTF-8 `é`.
    for (name, extra) in [("latin1.ptx", &b"\xe9"[..]), ("utf8.ptx", &b"\xc3\xa9"[..])] {
        let ptx = dir.join(name);
        std::fs::write(&ptx, entry_line_kernel(extra)).unwrap();
        let o = ptxc(&["compile", ptx.to_str().unwrap(), "-o", out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1), "{name}");
        let err = text(&o.stderr);
        assert!(err.contains(&format!("{name}:4:21")), "{name}: no location in: {err}");
        assert!(err.contains("non-ASCII"), "{name}: {err}");
        assert!(!out.exists());
    }
    // As ptxas does, any byte is accepted inside a comment.
    let ptx = dir.join("comment.ptx");
    std::fs::write(&ptx, entry_line_kernel(b"// caf\xe9 \xc3\xa9")).unwrap();
    let o = ptxc(&["compile", ptx.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

#[test]
fn run_writes_each_buffer_with_the_shape_it_was_loaded_with() {
    let dir = scratch("npy_shape");
    let ptx = dir.join("k.ptx");
    std::fs::write(
        &ptx,
        ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n\
         .reg .u64 %p;\n.reg .f32 %f;\nld.param.u64 %p, [p];\nld.global.f32 %f, [%p];\n\
         add.f32 %f, %f, 0f3F800000;\nst.global.f32 [%p], %f;\nret;\n}\n",
    )
    .unwrap();
    let values: Vec<u8> = (0..24).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let input = ptxc::npy::Array {
        shape: vec![4, 6],
        ..ptxc::npy::Array::new(ptxc::launch::Scalar::F32, values)
    };
    ptxc::npy::write(&dir.join("x.npy"), &input).unwrap();
    let spec = dir.join("k.toml");
    std::fs::write(
        &spec,
        "kernel = \"k\"\ngrid = [1, 1, 1]\nblock = [1, 1, 1]\nparams = [ { ptr = \"x\" } ]\n\
         [buffers.x]\nfile = \"x.npy\"\n[buffers.y]\ndtype = \"u32\"\nlen = 5\n",
    )
    .unwrap();
    let out = dir.join("out");
    let o = ptxc(&[
        "run",
        ptx.to_str().unwrap(),
        "--launch",
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let x = ptxc::npy::read(&out.join("x.npy")).unwrap();
    assert_eq!(x.shape, vec![4, 6]);
    assert_eq!(&x.bytes[..4], &1.0f32.to_le_bytes());
    assert_eq!(&x.bytes[4..], &input.bytes[4..]);
    assert_eq!(ptxc::npy::read(&out.join("y.npy")).unwrap().shape, vec![5]);
}

#[test]
fn narrow_parameters_at_unaligned_offsets_compile_and_run() {
    // The golden case's kernel: .u16 at offset 10 and .s8 at 13 (LDC.U16 / LDC.U8).
    let ptx = root().join("backend/tests/golden/param_subword.ptx");
    let dir = scratch("param_subword");
    let spec = dir.join("k.toml");
    std::fs::write(
        &spec,
        "kernel = \"param_subword\"\ngrid = [1, 1, 1]\nblock = [1, 1, 1]\n\
         params = [ { ptr = \"out\" }, { u8 = 200 }, { u16 = 60000 }, { u8 = 7 }, { i8 = -5 }, { u32 = 123456 } ]\n\
         [buffers.out]\ndtype = \"i32\"\nlen = 5\n",
    )
    .unwrap();
    for engine in ["sim", "mir"] {
        let out = dir.join(engine);
        let o = ptxc(&[
            "run",
            ptx.to_str().unwrap(),
            "--launch",
            spec.to_str().unwrap(),
            "--engine",
            engine,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{engine}: {}", text(&o.stderr));
        let got = ptxc::npy::read(&out.join("out.npy")).unwrap().bytes;
        let want: Vec<u8> = [200i32, 60000, 7, -5, 123456]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        assert_eq!(got, want, "{engine}");
    }
}

/// A reader that closes the pipe before ptxc has printed everything (`ptxc disasm x | head
/// -1`) ends ptxc quietly, as it ends other Unix tools, not with a panic.
#[test]
fn a_closed_output_pipe_is_no_panic() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let dir = scratch("cli_closed_pipe");
    // About 250 KB of text: more than a pipe buffers, so ptxc writes after the reader left.
    let cubin = dir.join("matmul.cubin");
    let ptx = root().join("tests/hopper/triton_matmul_fp16_64x128x64.ptx");
    let o = ptxc_compile("sm_90a", &ptx, &cubin);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptxc"))
        .args(["disasm", cubin.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 1];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // The read end is dropped here: later writes fail.
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    let _ = child.wait().unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
}
