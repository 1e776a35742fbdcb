//! The warpgroup instructions of sm_90a and their companions: the `wgmma` forms of the Hopper
//! tests (`tests/hopper/*.ptx`, written by Triton and by hand) pass the checker with their
//! shapes and types recorded; `stmatrix`, `elect.sync` and `fence.proxy.async` check on
//! sm_90; and each
//! form ptxc refuses is refused with a message at its location.

use ptxc_frontend::checked::{CheckedStmt, Opcode};
use ptxc_frontend::tensor::{MmaType, TensorOp};
use std::collections::BTreeSet;

fn hopper_ptx(name: &str) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/hopper/");
    std::fs::read_to_string(format!("{path}{name}.ptx")).expect("tests/hopper PTX")
}

/// Every `wgmma` operation of `src` as checked.
fn wgmma_ops(name: &str, src: &str) -> Vec<TensorOp> {
    let m = ptxc_frontend::parse_and_check(src)
        .unwrap_or_else(|d| panic!("{name}: {}", ptxc_frontend::render_diagnostics(name, src, &d)));
    let mut ops = Vec::new();
    for f in &m.functions {
        for s in &f.body {
            if let CheckedStmt::Inst(i) = s
                && i.op == Opcode::Wgmma
            {
                ops.push(i.tensor.expect("a wgmma records its operation"));
            }
        }
    }
    ops
}

#[test]
fn the_wgmma_forms_of_the_hopper_tests_check() {
    let ops = wgmma_ops("wgmma", &hopper_ptx("wgmma"));
    let shapes: BTreeSet<(u32, &str, &str, bool)> = ops
        .iter()
        .filter_map(|o| match o {
            TensorOp::Wgmma(w) => Some((w.n, w.d.name(), w.ab.name(), w.a_regs)),
            _ => None,
        })
        .collect();
    assert!(shapes.contains(&(64, "f32", "f16", false)), "{shapes:?}");
    assert!(shapes.contains(&(64, "f32", "f16", true)), "{shapes:?}");
    assert!(shapes.iter().any(|s| s.1 == "f16"), "an f16 accumulator: {shapes:?}");
    assert!(shapes.iter().any(|s| s.2 == "bf16"), "bf16: {shapes:?}");
    assert!(shapes.iter().any(|s| s.0 == 256), "N 256: {shapes:?}");
    for kind in [TensorOp::WgmmaFence, TensorOp::WgmmaCommit, TensorOp::WgmmaWait] {
        assert!(ops.contains(&kind), "{kind:?}");
    }
    let triton = wgmma_ops("triton", &hopper_ptx("triton_matmul_fp16_64x128x64"));
    assert!(
        triton
            .iter()
            .any(|o| matches!(o, TensorOp::Wgmma(w) if w.n == 128 && w.d == MmaType::F32))
    );
}

/// A kernel of `body` for `target` (`.version` 8.0).
fn kernel(target: &str, body: &str) -> String {
    format!(
        ".version 8.0\n.target {target}\n.address_size 64\n.visible .entry k(.param .u64 p) {{\n\
         .reg .b32 %r<40>;\n.reg .b64 %rd<4>;\n.reg .pred %p<2>;\n{body}\nret;\n}}\n"
    )
}

/// The first error of checking `src`, rendered.
fn error_of(src: &str) -> String {
    match ptxc_frontend::parse_and_check(src) {
        Ok(_) => panic!("accepted:\n{src}"),
        Err(d) => ptxc_frontend::render_diagnostics("k.ptx", src, &d),
    }
}

const ACC16: &str = "{%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r8,%r9,%r10,%r11,%r12,%r13,%r14,%r15}";

#[test]
fn wgmma_needs_sm_90a() {
    let body = "wgmma.fence.sync.aligned;";
    assert!(ptxc_frontend::parse_and_check(&kernel("sm_90a", body)).is_ok());
    let e = error_of(&kernel("sm_90", body));
    assert!(
        e.contains("`wgmma` needs sm_90a (target is sm_90)") && e.contains("k.ptx:8:"),
        "{e}"
    );
    let e = error_of(&kernel("sm_80", body));
    assert!(e.contains("`wgmma` needs sm_90a (target is sm_80)"), "{e}");
    let e = error_of(&kernel("sm_90a", body).replace(".version 8.0", ".version 7.8"));
    assert!(e.contains("needs PTX ISA .version 8.0"), "{e}");
}

#[test]
fn wgmma_forms_ptxc_does_not_compile_are_refused_by_name() {
    let mma = |mods: &str, acc: &str| {
        kernel(
            "sm_90a",
            &format!("wgmma.mma_async.sync.aligned.{mods} {acc}, %rd0, %rd1, %p0, 1, 1, 0, 0;"),
        )
    };
    assert!(ptxc_frontend::parse_and_check(&mma("m64n32k16.f32.f16.f16", ACC16)).is_ok());
    let e = error_of(&mma("m64n32k32.f32.e4m3.e4m3", ACC16));
    assert!(e.contains("`.e4m3` is not supported by ptxc"), "{e}");
    let e = error_of(&mma("m64n32k8.f32.tf32.tf32", ACC16));
    assert!(e.contains("`.tf32.tf32` multiplicands is not supported by ptxc"), "{e}");
    let e = error_of(&mma("m64n12k16.f32.f16.f16", ACC16));
    assert!(e.contains("N is 8 to 256 in steps of 8"), "{e}");
    let e = error_of(&mma("m64n32k16.f16.bf16.bf16", ACC16));
    assert!(e.contains("no `.f16` accumulator for `.bf16`"), "{e}");
    let e = error_of(&mma("m64n64k16.f32.f16.f16", ACC16));
    assert!(
        e.contains("expected a fragment of 32 registers") || e.contains("expects"),
        "{e}"
    );
}

#[test]
fn stmatrix_elect_and_the_async_proxy_fence_check_on_sm_90() {
    let body = "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%r0], {%r1, %r2, %r3, %r4};\n\
                fence.proxy.async.shared::cta;";
    assert!(ptxc_frontend::parse_and_check(&kernel("sm_90", body)).is_ok());
    let old = kernel("sm_80", body).replace(".version 8.0", ".version 7.8");
    let e = error_of(&old);
    assert!(e.contains("needs sm_90"), "{e}");
    let e = error_of(&kernel(
        "sm_90",
        "stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r0], {%r1, %r2};",
    ));
    assert!(e.contains("expects a vector of 4"), "{e}");
    let e = error_of(&kernel("sm_90", "fence.async.shared::cta;"));
    assert!(e.contains("only `fence.proxy.async` takes"), "{e}");
    let elect = "elect.sync %r0|%p0, 0xffffffff;";
    assert!(ptxc_frontend::parse_and_check(&kernel("sm_90", elect)).is_ok());
    let e = error_of(&kernel("sm_80", elect));
    assert!(e.contains("`elect.sync` needs sm_90 (target is sm_80)"), "{e}");
}
