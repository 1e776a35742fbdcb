//! The sm_75 forward-progress latch of spin loops (`mir/src/analysis/spin_loops.rs`,
//! `backend/src/isel/progress.rs`): on loop shapes and memory operations probed against
//! ptxas 13.5, ptxc's sm_75 kernels have a latch (`VOTE.ANY R, PT, PT; YIELD; VOTEU.ANY;
//! LOP3.LUT P, RZ, R, UR, RZ, 0xc; BRA.U`) exactly as often as ptxas's, listed in
//! `EIATTR_INT_WARP_WIDE_INSTR_OFFSETS`; no other target gets one; and a lock every thread
//! takes in turn runs to completion on the simulator with either compiler's code. Loops
//! around calls of device functions (`tests/data/calls/spin_calls.ptx`) are latched as ptxas
//! latches them.

mod common;

use common::*;

/// One probe: a loop kernel `name` whose counter starts at `init` (`%tid.x` makes the loop
/// divergent), under `guard` (PTX run before the loop, may branch to `L2`, after it), with
/// `body` inside and `bound` as the counter's limit.
struct Probe {
    name: &'static str,
    init: &'static str,
    guard: &'static str,
    body: &'static str,
}

/// A divergent trip count (the counter starts at the thread's index).
const TID: &str = "%tid.x";
/// A uniform trip count.
const ZERO: &str = "0";
/// Threads above 4 skip the loop (a divergent guard around it).
const DIVERGENT_GUARD: &str = "mov.u32 %r8, %tid.x; setp.gt.u32 %p2, %r8, 4; @%p2 bra L2;";

/// An atomic whose result is used.
const ATOM: &str = "atom.global.add.u32 %r4, [%rd1], %r2; add.u32 %r3, %r3, %r4;";

/// The probes: which accesses make a loop a spin loop, and which loops are run split.
const PROBES: &[Probe] = &[
    Probe {
        name: "atom_global",
        init: TID,
        guard: "",
        body: ATOM,
    },
    Probe {
        name: "atom_generic",
        init: TID,
        guard: "",
        body: "atom.add.u32 %r4, [%rd1], %r2; add.u32 %r3, %r3, %r4;",
    },
    Probe {
        name: "atom_shared_cas",
        init: TID,
        guard: "",
        body: "atom.shared.cas.b32 %r4, [sh], %r2, 1; add.u32 %r3, %r3, %r4;",
    },
    Probe {
        name: "atom_exch_relaxed",
        init: TID,
        guard: "",
        body: "atom.relaxed.gpu.global.exch.b32 %r4, [%rd1], %r2; add.u32 %r3, %r3, %r4;",
    },
    Probe {
        name: "red_generic",
        init: TID,
        guard: "",
        body: "red.add.u32 [%rd1], %r2;",
    },
    Probe {
        name: "red_shared",
        init: TID,
        guard: "",
        body: "red.shared.add.u32 [sh], %r2;",
    },
    Probe {
        name: "red_global",
        init: TID,
        guard: "",
        body: "red.global.add.u32 [%rd1], %r2;",
    },
    Probe {
        name: "red_global_release",
        init: TID,
        guard: "",
        body: "red.release.gpu.global.add.u32 [%rd1], %r2;",
    },
    Probe {
        name: "ld_volatile_global",
        init: TID,
        guard: "",
        body: "ld.volatile.global.u32 %r4, [%rd1]; add.u32 %r3, %r3, %r4;",
    },
    Probe {
        name: "ld_volatile_shared",
        init: TID,
        guard: "",
        body: "ld.volatile.shared.u32 %r4, [sh]; add.u32 %r3, %r3, %r4;",
    },
    Probe {
        name: "ld_volatile_generic",
        init: TID,
        guard: "",
        body: "ld.volatile.u32 %r4, [%rd1]; add.u32 %r3, %r3, %r4;",
    },
    Probe {
        name: "st_volatile_shared",
        init: TID,
        guard: "",
        body: "st.volatile.shared.u32 [sh], %r2;",
    },
    Probe {
        name: "st_volatile_global",
        init: TID,
        guard: "",
        body: "st.volatile.global.u32 [%rd1], %r2;",
    },
    Probe {
        name: "ld_acquire",
        init: TID,
        guard: "",
        body: "ld.acquire.gpu.global.u32 %r4, [%rd1]; add.u32 %r3, %r3, %r4;",
    },
    Probe {
        name: "st_release",
        init: TID,
        guard: "",
        body: "st.release.gpu.global.u32 [%rd1], %r2;",
    },
    Probe {
        name: "ld_relaxed_cta_shared",
        init: TID,
        guard: "",
        body: "ld.relaxed.cta.shared.u32 %r4, [sh]; add.u32 %r3, %r3, %r4;",
    },
    Probe {
        name: "ld_plain",
        init: TID,
        guard: "",
        body: "ld.global.u32 %r4, [%rd1]; add.u32 %r3, %r3, %r4;",
    },
    Probe {
        name: "ld_nc",
        init: TID,
        guard: "",
        body: "ld.global.nc.u32 %r4, [%rd1]; add.u32 %r3, %r3, %r4;",
    },
    Probe {
        name: "membar_ld",
        init: TID,
        guard: "",
        body: "membar.gl; ld.global.u32 %r4, [%rd1]; add.u32 %r3, %r3, %r4;",
    },
    Probe {
        name: "fence",
        init: TID,
        guard: "",
        body: "fence.acq_rel.gpu; add.u32 %r3, %r3, 1;",
    },
    Probe {
        name: "uniform_loop",
        init: ZERO,
        guard: "",
        body: ATOM,
    },
    Probe {
        name: "uniform_loop_divergent_guard",
        init: ZERO,
        guard: DIVERGENT_GUARD,
        body: ATOM,
    },
    Probe {
        name: "uniform_loop_divergent_break",
        init: ZERO,
        guard: "",
        body: "atom.global.add.u32 %r4, [%rd1], %r2; add.u32 %r3, %r3, %r4; mov.u32 %r8, %tid.x; setp.eq.u32 %p2, %r8, %r4; @%p2 bra L2;",
    },
    Probe {
        name: "uniform_loop_divergent_if",
        init: ZERO,
        guard: "",
        body: "mov.u32 %r8, %tid.x; setp.gt.u32 %p2, %r8, %r2; @%p2 bra SKIP; atom.global.add.u32 %r4, [%rd1], %r8; add.u32 %r3, %r3, %r4; SKIP:",
    },
    Probe {
        name: "uniform_loop_around_spin_lock",
        init: ZERO,
        guard: "",
        body: "IN: atom.global.cas.b32 %r4, [%rd1], 0, 1; setp.ne.u32 %p2, %r4, 0; @%p2 bra IN; add.u32 %r3, %r3, %r4;",
    },
    Probe {
        name: "uniform_loop_around_divergent_loop",
        init: ZERO,
        guard: "",
        body: "mov.u32 %r8, %tid.x; IN: ld.global.u32 %r4, [%rd1]; add.u32 %r8, %r8, %r4; setp.lt.u32 %p2, %r8, 100; @%p2 bra IN; atom.global.add.u32 %r4, [%rd1], %r8; add.u32 %r3, %r3, %r4;",
    },
    Probe {
        name: "nested_divergent_loops",
        init: TID,
        guard: "",
        body: "mov.u32 %r5, %tid.x; IN: atom.global.exch.b32 %r4, [%rd1], %r2; add.u32 %r3, %r3, %r4; add.u32 %r5, %r5, 1; setp.lt.u32 %p3, %r5, %r1; @%p3 bra IN;",
    },
];

/// The module of every probe, for `arch`.
fn probes_ptx(arch: &str) -> String {
    let mut s = format!(".version 8.0\n.target {arch}\n.address_size 64\n");
    for p in PROBES {
        s += &format!(
            ".visible .entry {name}(.param .u64 p, .param .u32 n)\n{{\n\
             .reg .pred %p<4>; .reg .b32 %r<10>; .reg .b64 %rd<4>;\n\
             .shared .align 4 .u32 sh[64];\n\
             ld.param.u64 %rd1, [p]; ld.param.u32 %r1, [n];\n\
             cvta.to.global.u64 %rd1, %rd1;\n\
             mov.u32 %r2, {init}; mov.u32 %r3, 0;\n\
             {guard}\n\
             L1:\n{body}\n\
             add.u32 %r2, %r2, 1; setp.lt.u32 %p1, %r2, %r1; @%p1 bra L1;\n\
             L2:\nst.global.u32 [%rd1+4], %r3;\nret;\n}}\n",
            name = p.name,
            init = p.init,
            guard = p.guard,
            body = p.body,
        );
    }
    s
}

/// The latches of each kernel of a listing (`ptxc disasm`): the offsets of their `VOTE.ANY`,
/// each checked to be followed by the rest of the latch.
fn latches(listing: &str) -> std::collections::BTreeMap<String, Vec<u64>> {
    let insts = listing_by_section(listing);
    let mut out = std::collections::BTreeMap::new();
    for ((section, at), inst) in &insts {
        let kernel = section.trim_start_matches(".text.").to_string();
        let found: &mut Vec<u64> = out.entry(kernel.clone()).or_default();
        let next = |k: u64| insts.get(&(section.clone(), at + 16 * k)).cloned().unwrap_or_default();
        if !(inst.starts_with("VOTE.ANY R") && inst.ends_with("PT, PT")) || next(1) != "YIELD" {
            continue; // not a latch (a VOTE of a warp-aggregated atomic, say)
        }
        let (voteu, lop, bra) = (next(2), next(3), next(4));
        assert!(voteu.starts_with("VOTEU.ANY UR"), "{kernel} {at:#x}: {voteu}");
        assert!(
            lop.starts_with("LOP3.LUT P") && lop.ends_with(", 0xc, !PT"),
            "{kernel} {at:#x}: {lop}"
        );
        assert!(bra.contains("BRA.U"), "{kernel} {at:#x}: {bra}");
        found.push(*at);
    }
    out
}

#[test]
fn sm75_latches_where_ptxas_puts_them() {
    let dir = scratch("forward_progress_probes");
    let ptx = dir.join("probes.ptx");
    std::fs::write(&ptx, probes_ptx("sm_75")).unwrap();
    let (theirs, ours) = both_cubins("sm_75", &ptx, &dir);
    let (a, c) = (latches(&disasm(&theirs)), latches(&disasm(&ours)));
    assert_eq!(a.len(), PROBES.len());
    let mut latched = 0;
    for p in PROBES {
        let n = a[p.name].len();
        assert_eq!(c[p.name].len(), n, "{}: latches, ptxas has {n}", p.name);
        latched += usize::from(n > 0);
        // Every latch is listed, and nothing else is that aggregation did not insert.
        let kernel = ptxc_sass::cubin::read(&std::fs::read(&ours).unwrap())
            .unwrap()
            .kernels
            .into_iter()
            .find(|k| k.name == p.name)
            .unwrap();
        for at in &c[p.name] {
            for k in [0, 2] {
                assert!(
                    kernel.int_warp_wide_offsets.contains(&(*at as u32 + 16 * k)),
                    "{}: {at:#x}",
                    p.name
                );
            }
        }
    }
    // The probes cover both answers.
    assert!(
        latched > 5 && latched < PROBES.len() - 5,
        "{latched} of {} latched",
        PROBES.len()
    );
}

#[test]
fn sm75_latches_loops_around_calls_where_ptxas_puts_them() {
    let dir = scratch("forward_progress_calls");
    let ptx = root().join("tests/data/calls/spin_calls.ptx");
    let (theirs, ours) = both_cubins("sm_75", &ptx, &dir);
    let (a, c) = (latches(&disasm(&theirs)), latches(&disasm(&ours)));
    let counts = |m: &std::collections::BTreeMap<String, Vec<u64>>| -> Vec<(String, usize)> {
        m.iter().map(|(k, v)| (k.clone(), v.len())).collect()
    };
    assert_eq!(counts(&c), counts(&a));
    // The probes cover both answers: k1's two loops and k3's, not k2's or k4's.
    assert_eq!(
        counts(&a),
        [("k1", 2), ("k2", 0), ("k3", 1), ("k4", 0)].map(|(k, n)| (k.to_string(), n))
    );
}

#[test]
fn other_targets_get_no_latch() {
    for arch in ["sm_80", "sm_90"] {
        let dir = scratch(&format!("forward_progress_{arch}"));
        let ptx = dir.join("probes.ptx");
        std::fs::write(&ptx, probes_ptx(arch)).unwrap();
        let cubin = dir.join("ptxc.cubin");
        let o = ptxc_compile(arch, &ptx, &cubin);
        assert!(o.status.success(), "{}", text(&o.stderr));
        let listing = disasm(&cubin);
        assert!(!listing.contains("YIELD"), "{arch}");
    }
}

/// Every thread takes a global lock in turn (compare-and-swap, in a loop the warp runs
/// split), adds one to a counter behind it with volatile accesses and releases it.
const SPIN_LOCK: &str = r#"
.version 7.0
.target sm_75
.address_size 64
.visible .entry spin_lock(.param .u64 out)
{
    .reg .pred %p<4>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, 0;
LOOP:
    atom.global.cas.b32 %r2, [%rd1], 0, 1;
    setp.ne.u32 %p1, %r2, 0;
    @%p1 bra NEXT;
    ld.volatile.global.u32 %r3, [%rd1+4];
    add.u32 %r3, %r3, 1;
    st.volatile.global.u32 [%rd1+4], %r3;
    membar.gl;
    atom.global.exch.b32 %r4, [%rd1], 0;
    mov.u32 %r1, 1;
NEXT:
    setp.eq.u32 %p2, %r1, 0;
    @%p2 bra LOOP;
    ret;
}
"#;

#[test]
fn a_spin_lock_runs_to_completion_with_either_compiler() {
    let dir = scratch("forward_progress_lock");
    let ptx = dir.join("spin_lock.ptx");
    std::fs::write(&ptx, SPIN_LOCK).unwrap();
    let (theirs, ours) = both_cubins("sm_75", &ptx, &dir);
    let listing = disasm(&ours);
    assert_eq!(latches(&listing)["spin_lock"].len(), 1, "{listing}");
    let spec = "kernel = \"spin_lock\"\ngrid = [3]\nblock = [80]\n\
                params = [ { ptr = \"out\" } ]\n[buffers.out]\ndtype = \"u32\"\nlen = 2\n";
    for (who, cubin) in [("ptxas", &theirs), ("ptxc", &ours)] {
        for engine in ["functional", "timed"] {
            let got = &run_words(&dir, cubin, spec, engine, &["out"])[0];
            assert_eq!(got, &[0, 240], "{who}, {engine}: the lock word and the count");
        }
    }
}
