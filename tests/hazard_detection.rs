//! The simulator turns scheduling mistakes into reported hazards: shortening one stall count
//! of a correct cubin must be detected (and the unmodified cubin must have none), for the
//! uniform registers as for the others.

mod common;

use common::*;
use ptxc_sass::cubin;
use ptxc_sass::isa::Arch;
use ptxc_sass::isa::{Op, decode, encode};

/// Rewrites the kernel's code with `edit` applied to the decoded instructions.
fn patch(bytes: &[u8], edit: impl Fn(&mut [ptxc_sass::isa::Inst])) -> Vec<u8> {
    let mut m = cubin::read(bytes).unwrap();
    let k = &mut m.kernels[0];
    let mut insts = decode::decode_all(Arch::Sm75, &k.code).unwrap();
    edit(&mut insts);
    k.code = insts.iter().flat_map(|i| encode(i).unwrap().to_le_bytes()).collect();
    cubin::write(&m)
}

/// Hazard count and console output of a run of vector_add; a run that faults must blame the
/// hazards.
fn hazards(cubin: &std::path::Path, mode: &str) -> (u64, String) {
    hazards_of(cubin, &example("vector_add.toml"), mode)
}

/// Hazard count and console output of a run with `launch`.
fn hazards_of(cubin: &std::path::Path, launch: &std::path::Path, mode: &str) -> (u64, String) {
    let dir = cubin.parent().unwrap();
    let stats = dir.join(format!("stats_{mode}.json"));
    let o = ptxc(&[
        "run",
        cubin.to_str().unwrap(),
        "--launch",
        launch.to_str().unwrap(),
        "--stats",
        stats.to_str().unwrap(),
        "--mode",
        mode,
    ]);
    if !o.status.success() {
        let err = text(&o.stderr);
        assert!(
            err.contains("hazard(s) in the control codes"),
            "fault without hazards: {err}"
        );
        let n = err
            .split("after ")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap();
        return (n, err);
    }
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    (v["hazards"].as_u64().unwrap(), text(&o.stdout))
}

#[test]
fn a_shortened_stall_count_is_reported_as_a_hazard() {
    let dir = scratch("hazard_stall");
    let good = dir.join("good.cubin");
    let o = ptxc(&[
        "compile",
        example("vector_add.ptx").to_str().unwrap(),
        "-o",
        good.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    for mode in ["timed", "functional"] {
        assert_eq!(
            hazards(&good, mode).0,
            0,
            "the compiled kernel must be hazard-free ({mode})"
        );
    }
    // The ISETP that sets the branch predicate needs 12 cycles before its reader.
    let bad = dir.join("bad.cubin");
    let patched = patch(&std::fs::read(&good).unwrap(), |insts| {
        let i = insts.iter().position(|i| i.desc().op == Op::Isetp).expect("an ISETP");
        insts[i].ctrl.stall = 2;
        insts[i].ctrl.yield_ = false;
    });
    std::fs::write(&bad, patched).unwrap();
    for mode in ["timed", "functional"] {
        let (n, console) = hazards(&bad, mode);
        assert!(n > 0, "{mode}: no hazard reported:\n{console}");
        assert!(console.contains("P"), "the hazard should name the predicate: {console}");
    }
}

/// Compiles vector_add and checks the unmodified cubin is hazard-free.
fn compiled_vector_add(dir: &std::path::Path) -> std::path::PathBuf {
    let good = dir.join("good.cubin");
    let o = ptxc(&[
        "compile",
        example("vector_add.ptx").to_str().unwrap(),
        "-o",
        good.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(hazards(&good, "timed").0, 0, "the compiled kernel must be hazard-free");
    good
}

/// The write scoreboard of the first global load.
fn load_scoreboard(insts: &[ptxc_sass::isa::Inst]) -> (usize, u8) {
    let i = insts.iter().position(|i| i.desc().op == Op::Ldg).expect("an LDG");
    let sb = insts[i].ctrl.write_sb;
    assert!(sb < 6, "the load sets a write scoreboard");
    (i, sb)
}

#[test]
fn a_dropped_wait_mask_is_reported_as_a_hazard() {
    let dir = scratch("hazard_wait");
    let good = compiled_vector_add(&dir);
    // The reader of the load's result stops waiting for its scoreboard.
    let bad = dir.join("bad.cubin");
    let patched = patch(&std::fs::read(&good).unwrap(), |insts| {
        let (i, sb) = load_scoreboard(insts);
        let reader = (i + 1..insts.len())
            .find(|&k| insts[k].ctrl.wait & (1 << sb) != 0)
            .expect("an instruction waits for the load");
        insts[reader].ctrl.wait &= !(1 << sb);
    });
    std::fs::write(&bad, patched).unwrap();
    let (n, console) = hazards(&bad, "timed");
    assert!(n > 0, "no hazard reported:\n{console}");
}

#[test]
fn a_wrong_scoreboard_assignment_is_reported_as_a_hazard() {
    let dir = scratch("hazard_scoreboard");
    let good = compiled_vector_add(&dir);
    // The load signals a scoreboard nobody waits on; its reader waits on the old one.
    let bad = dir.join("bad.cubin");
    let patched = patch(&std::fs::read(&good).unwrap(), |insts| {
        let (i, sb) = load_scoreboard(insts);
        let waited: u8 = insts.iter().fold(0, |m, x| m | x.ctrl.wait);
        let unused = (0..6u8)
            .find(|k| *k != sb && waited & (1 << k) == 0)
            .expect("a scoreboard nobody waits on");
        insts[i].ctrl.write_sb = unused;
    });
    std::fs::write(&bad, patched).unwrap();
    let (n, console) = hazards(&bad, "timed");
    assert!(n > 0, "no hazard reported:\n{console}");
}

/// The uniform register `inst` writes, if it is a ULDC.
fn uldc_target(inst: &ptxc_sass::isa::Inst) -> Option<ptxc_sass::isa::access::Reg> {
    use ptxc_sass::isa::access::accesses;
    (inst.desc().op == Op::Uldc).then(|| accesses(inst).writes[0].reg)
}

#[test]
fn a_uniform_register_read_too_early_is_reported_as_a_hazard() {
    use ptxc_sass::isa::access::accesses;
    let dir = scratch("hazard_uniform");
    let ptx = root().join("tests/kernels/daxpy_f64.ptx");
    let launch = root().join("benches/suite/daxpy_f64.toml");
    let good = dir.join("good.cubin");
    let o = oracle(
        "ptxas",
        &[
            "-arch=sm_75",
            "-O3",
            ptx.to_str().unwrap(),
            "-o",
            good.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        hazards_of(&good, &launch, "timed").0,
        0,
        "ptxas's cubin must be hazard-free"
    );
    // ptxas: `ULDC.64 UR4; ULDC.64 UR6; LDG [R6.64+UR4]; LDG [R6.64+UR6]`. Move the second
    // ULDC after the first load (keeping that load's distance from everything before it),
    // one cycle before the load that reads UR6, where NVIDIA's table asks for two.
    let bad = dir.join("bad.cubin");
    let patched = patch(&std::fs::read(&good).unwrap(), |insts| {
        let w = (0..insts.len() - 2)
            .find(|&i| {
                let (Some(a), Some(b)) = (uldc_target(&insts[i]), uldc_target(&insts[i + 1])) else {
                    return false;
                };
                let reads = |k: usize, r| accesses(&insts[k]).reads.iter().any(|x| x.reg == r);
                reads(i + 2, a) && !reads(i + 2, b) && reads(i + 3, b)
            })
            .expect("two ULDCs before the loads reading them");
        insts[w].ctrl.stall += insts[w + 1].ctrl.stall;
        insts.swap(w + 1, w + 2);
        insts[w + 2].ctrl.stall = 1;
        insts[w + 2].ctrl.yield_ = false;
    });
    std::fs::write(&bad, patched).unwrap();
    let (n, console) = hazards_of(&bad, &launch, "timed");
    assert!(n > 0, "no hazard reported:\n{console}");
    assert!(console.contains("UR6"), "the hazard should name UR6: {console}");
}
