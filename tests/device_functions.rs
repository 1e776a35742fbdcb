//! Device functions kept as calls, as ptxas keeps them (`mir/src/lower/device.rs`,
//! `backend/src/link.rs`): each `.func` a kernel calls is compiled once, placed after the
//! kernel's code as `$kernel$function`, and called with `CALL.REL.NOINC` (its return
//! `RET.REL.NODEC`). `tests/data/calls/device_calls.ptx` passes a `.param` struct and
//! registers, returns a `.param` word, calls a function from a function, reads the
//! kernel's shared memory in the callee and calls from divergent code; ptxc's cubin must give
//! the MIR interpreter's results (which inlines the calls) and ptxas's, on sm_75, sm_80 and
//! sm_90, with callees' convergence barriers after those their callers hold. A recursive
//! function is refused with its location.

mod common;

use common::*;

const PTX: &str = "tests/data/calls/device_calls.ptx";
const SPEC: &str = "tests/data/calls/device_calls.toml";

#[test]
fn called_functions_compute_what_the_interpreter_and_ptxas_do() {
    let dir = scratch("device_functions_results");
    let spec = std::fs::read_to_string(root().join(SPEC)).unwrap();
    let ptx = root().join(PTX);
    let reference = run_words(&dir, &ptx, &spec, "mir", &["out"]);
    // Both calls ran: every thread has the second call's result, the odd ones the first's.
    assert!(reference[0].chunks(3).all(|t| t[1] != 0), "{:?}", reference[0]);
    assert!(
        reference[0]
            .chunks(3)
            .enumerate()
            .all(|(i, t)| (t[0] != 0) == (i % 2 == 1)),
        "{:?}",
        reference[0]
    );
    for arch in ["sm_75", "sm_80", "sm_90"] {
        let arch_dir = dir.join(arch);
        std::fs::create_dir_all(&arch_dir).unwrap();
        let (theirs, ours) = both_cubins(arch, &ptx, &arch_dir);
        for (who, cubin) in [("ptxc", ours), ("ptxas", theirs)] {
            for engine in ["functional", "timed"] {
                let got = run_words(&arch_dir, &cubin, &spec, engine, &["out"]);
                assert_eq!(got, reference, "{arch}: {who}'s cubin, {engine}");
            }
        }
    }
}

#[test]
fn each_function_is_placed_once_after_the_kernel_and_called() {
    let dir = scratch("device_functions_layout");
    for arch in ["sm_75", "sm_80", "sm_90"] {
        let cubin = dir.join(format!("{arch}.cubin"));
        let o = ptxc_compile(arch, &root().join(PTX), &cubin);
        assert!(o.status.success(), "{arch}: {}", text(&o.stderr));
        let module = ptxc_sass::cubin::read(&std::fs::read(&cubin).unwrap()).unwrap();
        let k = &module.kernels[0];
        let names: Vec<&str> = k.functions.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["$device_calls$f", "$device_calls$g"], "{arch}");
        for f in &k.functions {
            assert!(
                f.offset > 0 && f.offset + f.size <= k.code.len() as u64,
                "{arch}: {f:?}"
            );
        }
        assert!(k.crs_stack_size.is_some(), "{arch}: calls need EIATTR_CRS_STACK_SIZE");
        let listing = disasm(&cubin);
        // Two calls of f and one of g; each function returns once.
        assert_eq!(listing.matches("CALL.REL.NOINC").count(), 3, "{arch}:\n{listing}");
        assert_eq!(listing.matches("RET.REL.NODEC").count(), 2, "{arch}:\n{listing}");
        // The kernel calls f inside its barrier B0: g's loop takes another.
        assert!(listing.contains("BSSY B0"), "{arch}:\n{listing}");
        assert!(listing.contains("BSSY B1"), "{arch}:\n{listing}");
    }
}

#[test]
fn recursion_is_refused_with_its_location() {
    let dir = scratch("device_functions_recursion");
    let ptx = dir.join("recursive.ptx");
    std::fs::write(
        &ptx,
        ".version 7.0\n.target sm_75\n.address_size 64\n\
         .func (.reg .u32 r) down(.reg .u32 x)\n{\n    .reg .pred p;\n    .reg .u32 y;\n    \
         setp.eq.u32 p, x, 0;\n    mov.u32 r, 0;\n    @p bra DONE;\n    sub.u32 y, x, 1;\n    \
         call (r), down, (y);\nDONE:\n    ret;\n}\n\
         .visible .entry k(.param .u32 n)\n{\n    .reg .u32 a, b;\n    ld.param.u32 a, [n];\n    \
         call (b), down, (a);\n    ret;\n}\n",
    )
    .unwrap();
    let o = ptxc_compile("sm_75", &ptx, &dir.join("out.cubin"));
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(err.contains("`down` is recursive") && err.contains(":4:"), "{err}");
    assert!(!dir.join("out.cubin").exists());
}
