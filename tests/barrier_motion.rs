//! Work around a CTA barrier (`tests/ops/barrier_motion.ptx`, whose results
//! `tests/sim_ops.rs` checks against the MIR interpreter on every target): register-only work
//! written after `bar.sync` may be computed before it, while the warps wait, as ptxas
//! computes a tile's store addresses before its `BAR.SYNC` (here the read of `%tid.y`); the
//! shared load of a neighbour's store, the clock read and the warp vote written after the
//! barrier stay after it.

mod common;

use common::*;

/// ptxc's instructions (without addresses) of the op test compiled for `arch`.
fn instructions(arch: &str) -> Vec<String> {
    let dir = scratch(&format!("barrier_motion_{arch}"));
    let cubin = dir.join("barrier_motion.cubin");
    let o = ptxc_compile(arch, &root().join("tests/ops/barrier_motion.ptx"), &cubin);
    assert!(o.status.success(), "{}", text(&o.stderr));
    disasm(&cubin)
        .lines()
        .filter_map(|l| l.trim().strip_prefix("/*").and_then(|r| r.split_once("*/")))
        .map(|(_, i)| i.trim().trim_end_matches(';').trim().to_string())
        .collect()
}

/// The positions of the instructions that contain `needle`.
fn positions(insts: &[String], needle: &str) -> Vec<usize> {
    (0..insts.len()).filter(|&i| insts[i].contains(needle)).collect()
}

#[test]
fn register_work_may_move_above_the_barrier_and_memory_clock_and_votes_stay_below() {
    for arch in ["sm_75", "sm_80", "sm_90"] {
        let insts = instructions(arch);
        let report = format!("{arch}:\n{}", insts.join("\n"));
        let bar = positions(&insts, "BAR.SYNC");
        assert_eq!(bar.len(), 1, "{report}");
        let bar = bar[0];
        // The read of %tid.y, needed only after the barrier, is done before it (the list
        // scheduler's priorities decide what moves; %ctaid.y's read may stay below).
        let tid_y = positions(&insts, "SR_TID.Y");
        assert!(!tid_y.is_empty() && tid_y.iter().all(|&i| i < bar), "{report}");
        // The neighbour's value, the second clock read and the vote are after it.
        let after = |needle: &str| {
            let at = positions(&insts, needle);
            assert!(!at.is_empty(), "{needle}: {report}");
            at
        };
        assert!(after("LDS").iter().all(|&i| i > bar), "{report}");
        assert!(after("VOTE").iter().all(|&i| i > bar), "{report}");
        let clocks = after("SR_CLOCKLO");
        assert_eq!(clocks.len(), 2, "{report}");
        assert!(clocks[0] < bar && clocks[1] > bar, "{report}");
    }
}
