//! The interpreter reports faults as errors naming the kernel, the thread and the
//! instruction: out-of-bounds and misaligned accesses, barrier deadlock, trap.

use ptxc_mir::interp::{LaunchConfig, VecMemory, launch};

fn run(ptx: &str, block: u32) -> Result<(), String> {
    let checked = ptxc_frontend::parse_and_check(ptx).map_err(|d| format!("{d:?}"))?;
    let m = ptxc_mir::lower::lower_module(&checked).map_err(|e| format!("{e:?}"))?;
    let mut mem = VecMemory {
        base: 0x1000,
        bytes: vec![0; 64],
    };
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [block, 1, 1],
        dynamic_shared: 0,
        reserved_shared: 0,
        params: 0x1000u64.to_le_bytes().to_vec(),
        cluster: None,
    };
    launch(&m.functions[0], &cfg, &mut mem)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

const HEAD: &str = ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n.reg .u64 a;\n.reg .u32 t;\n.reg .pred q;\nld.param.u64 a, [p];\nmov.u32 t, %tid.x;\n";

#[test]
fn out_of_bounds_names_kernel_thread_and_instruction() {
    let e = run(&format!("{HEAD}st.global.u32 [a+4096], t;\nret;\n}}"), 2).unwrap_err();
    assert!(
        e.contains("kernel `k`") && e.contains("thread [0, 0, 0]") && e.contains("store.global.i32"),
        "{e}"
    );
}

#[test]
fn misaligned_access_is_an_error() {
    let e = run(&format!("{HEAD}st.global.u32 [a+2], t;\nret;\n}}"), 1).unwrap_err();
    assert!(e.contains("misaligned"), "{e}");
}

#[test]
fn barrier_deadlock_is_an_error() {
    let body = "setp.eq.u32 q, t, 0;\n@q bra A;\nbar.sync 0;\nret;\nA:\nbar.sync 1;\nret;\n}";
    let e = run(&format!("{HEAD}{body}"), 64).unwrap_err();
    assert!(e.contains("barrier deadlock"), "{e}");
}

#[test]
fn trap_is_an_error() {
    let e = run(&format!("{HEAD}trap;\nret;\n}}"), 1).unwrap_err();
    assert!(e.contains("trap"), "{e}");
}
