//! The simulator turns scheduling mistakes into reported hazards: shortening one stall count
//! of a correct cubin must be detected (and the unmodified cubin must have none).

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

/// Hazard count and console output of a run; a run that faults must blame the hazards.
fn hazards(cubin: &std::path::Path, mode: &str) -> (u64, String) {
    let dir = cubin.parent().unwrap();
    let stats = dir.join(format!("stats_{mode}.json"));
    let o = ptxc(&[
        "run",
        cubin.to_str().unwrap(),
        "--launch",
        example("vector_add.toml").to_str().unwrap(),
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
