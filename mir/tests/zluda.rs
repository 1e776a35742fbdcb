//! The 158 ZLUDA conformance kernels on the MIR interpreter: every kernel must give the
//! output recorded on NVIDIA hardware (bit-exact; `.approx` functions within the PTX ISA's
//! error bounds), straight from lowering and after every optimisation pass.

mod zluda_support;

use zluda_support::{Case, load_cases, run_case};

fn report(label: &str, cases: &[Case], transform: &dyn Fn(&mut ptxc_mir::ir::Function)) {
    let mut failures = Vec::new();
    for case in cases {
        if let Err(e) = run_case(case, transform) {
            failures.push(format!("{}: {e}", case.name));
        }
    }
    let passed = cases.len() - failures.len();
    println!("zluda {label}: {passed} passed, {} failed", failures.len());
    for f in &failures {
        println!("  FAIL {f}");
    }
    assert!(
        failures.is_empty(),
        "{label}: {} of {} kernels failed",
        failures.len(),
        cases.len()
    );
}

#[test]
fn zluda_kernels_match_hardware_on_the_interpreter() {
    let cases = load_cases();
    assert_eq!(cases.len(), 158, "the manifest lists 158 kernels");
    report("lowered", &cases, &|_| {});
}

#[test]
fn zluda_kernels_match_hardware_after_every_pass() {
    let cases = load_cases();
    for pass in ptxc_mir::opt::PASSES {
        report(pass.name, &cases, &|f| {
            ptxc_mir::opt::run_pass(f, pass);
        });
    }
    report("all passes", &cases, &|f| {
        ptxc_mir::opt::run_until(f, None).expect("known passes");
        ptxc_mir::opt::run_until(f, None).expect("known passes");
    });
}
