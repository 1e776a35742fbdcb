//! Cache-hint qualifiers of `ld`/`st` on sm_80, sm_86, sm_89 and sm_90 (`tests/ampere/cache_hints.ptx`):
//! every L1 eviction priority (`.L1::evict_first|last|normal|unchanged`, `.L1::no_allocate`)
//! and L2 prefetch size (`.L2::64B|128B|256B`) on weak, non-coherent and volatile global
//! loads, generic loads and a vector load, and the priorities on stores. Each kernel runs
//! five ways per target (both compilers' cubins on both engines, ptxc's MIR on the
//! interpreter): zero hazards, the same buffers, equal to a host reference (the hints change
//! no value). ptxc's cubin must carry the hint modifiers ptxas's carries (`.EF`, `.EL`, `.EU`,
//! `.NA`, `.LTC64B`, `.LTC128B`, `.LTC256B`), access by access, so a hint dropped or
//! misplaced fails even though the results cannot show it.
//!
//! `.L2::cache_hint` (`tests/ampere/cache_policy_hint.ptx`, `cache_policy_computed.ptx`): both
//! compilers' cubins name the policy pair as the access's descriptor (`desc[UR4]`) on the same
//! accesses, and all five ways equal the host reference.
//!
//! Needs ptxas (`CUDA_ORACLE_BIN`, or installed by `scripts/cuda-oracle`).

mod common;

use common::five_ways::Cubins;
use common::*;
use ptxc::launch::{LaunchSpec, ParamSpec, Scalar};
use ptxc_sass::isa::Arch;
use std::path::Path;

/// Loads in the `cache_hints` kernel (each 64 threads wide).
const LOADS: usize = 12;

fn ptx() -> std::path::PathBuf {
    root().join("tests/ampere/cache_hints.ptx")
}

/// Pseudo-random input words.
fn input(n: usize) -> Vec<u32> {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u32
        })
        .collect()
}

/// The launch of `kernel` (64 threads) on input `a` and a zeroed `d` of `d_len` words.
fn spec(arch: Arch, kernel: &str, a: &[u32], d_len: usize) -> LaunchSpec {
    let dir = scratch(&format!("sim_cache_hints_{kernel}_{}", arch.name()));
    let buffers = in_out_buffers(&dir, ("a", a), ("d", d_len));
    one_block_spec(kernel, 64, buffers, &["a", "d"])
}

/// Host reference of `cache_hints`: `d[k * 64 + t] = a[k * 64 + t] + k + 1`.
fn reference(a: &[u32]) -> Vec<u32> {
    (0..LOADS * 64).map(|i| a[i].wrapping_add(i as u32 / 64 + 1)).collect()
}

/// Host reference of `cache_hints_generic`: `d[2t] = a[2t] + a[128 + 2t]`,
/// `d[2t + 1] = a[128 + 2t + 1] + 7`.
fn reference_generic(a: &[u32]) -> Vec<u32> {
    (0..64)
        .flat_map(|t| [a[2 * t].wrapping_add(a[128 + 2 * t]), a[129 + 2 * t].wrapping_add(7)])
        .collect()
}

/// The cache-hint modifiers of every global or generic access in `cubin`'s listing, sorted
/// (the schedules differ): `LDG.E.EL.LTC128B.CONSTANT` gives `LDG:EL.LTC128B`. Generic
/// accesses read as global ones: ptxc selects LDG/STG for generic accesses no generic pointer
/// of the kernel can leave global memory for, where ptxas keeps LD/ST. With `strength`, each
/// also says `wide` for `.STRONG.GPU` and `.STRONG.SYS` (ordered for other CTAs; ptxc's
/// strong accesses are all system-scope where ptxas writes `.GPU` for `.cg`), else `local`
/// (weak, or ptxas's `.STRONG.CTA`/`.STRONG.SM` of `.ca` and `.wb`, which order nothing for
/// other CTAs).
fn accesses(cubin: &Path, strength: bool) -> Vec<String> {
    let out = oracle("nvdisasm", &["-c", cubin.to_str().unwrap()]);
    assert!(out.status.success(), "nvdisasm: {}", text(&out.stderr));
    let is_hint = |m: &&str| matches!(*m, "EF" | "EL" | "EU" | "NA" | "LU") || m.starts_with("LTC");
    let mut v: Vec<String> = listing_by_section(&text(&out.stdout))
        .values()
        .filter_map(|inst| {
            let opcode = inst.split_whitespace().find(|w| !w.starts_with('@'))?;
            let mut parts = opcode.split('.');
            let name = match parts.next()? {
                "LDG" | "LD" => "LDG",
                "STG" | "ST" => "STG",
                _ => return None,
            };
            let hints = parts.filter(is_hint).collect::<Vec<_>>().join(".");
            if !strength {
                return Some(format!("{name}:{hints}"));
            }
            let wide = opcode.contains(".STRONG.GPU") || opcode.contains(".STRONG.SYS");
            Some(format!("{name}:{hints}:{}", if wide { "wide" } else { "local" }))
        })
        .collect();
    v.sort();
    v
}

/// The sorted hints of both compilers' cubins for `arch`: (ptxas's, ptxc's).
fn both_hints(arch: Arch) -> (Vec<String>, Vec<String>) {
    let dir = scratch(&format!("sim_cache_hints_listing_{}", arch.name()));
    let (theirs, ours) = both_cubins(arch.name(), &ptx(), &dir);
    (accesses(&theirs, false), accesses(&ours, false))
}

fn every_way_on(arch: Arch) {
    let cubins = Cubins::new(arch, &ptx(), "cache_hints");
    let a = input(LOADS * 64);
    let d = cubins.agree(&spec(arch, "cache_hints", &a, LOADS * 64), "d");
    assert_eq!(words(&d), reference(&a), "{} cache_hints", arch.name());
    let a = input(256);
    let d = cubins.agree(&spec(arch, "cache_hints_generic", &a, 128), "d");
    assert_eq!(words(&d), reference_generic(&a), "{} cache_hints_generic", arch.name());
    let (theirs, ours) = both_hints(arch);
    assert_eq!(
        ours,
        theirs,
        "{}: ptxc's hint modifiers differ from ptxas's",
        arch.name()
    );
    assert!(
        theirs.iter().any(|h| h.contains("LTC256B")) && theirs.iter().filter(|h| h.contains("EL")).count() >= 3,
        "{}: ptxas's listing lost its hints: {theirs:?}",
        arch.name()
    );
}

#[test]
fn cache_hints_on_sm80_agree_five_ways_and_match_ptxas() {
    every_way_on(Arch::Sm80);
}

#[test]
fn cache_hints_on_sm86_agree_five_ways_and_match_ptxas() {
    every_way_on(Arch::Sm86);
}

#[test]
fn cache_hints_on_sm89_agree_five_ways_and_match_ptxas() {
    every_way_on(Arch::Sm89);
}

#[test]
fn cache_hints_on_sm90_agree_five_ways_and_match_ptxas() {
    every_way_on(Arch::Sm90);
}

/// On sm_75 ptxas refuses `.L2::256B` ("requires .target sm_80 or higher") and ptxc too, with
/// the location; the priorities and the smaller prefetch sizes are Turing's and compile
/// (ptxas: `LDG.E.EL.SYS`), as do the same modifiers in ptxc's cubin.
#[test]
fn sm75_refuses_l2_256b_and_keeps_the_other_hints() {
    let dir = scratch("sim_cache_hints_sm75");
    let src = std::fs::read_to_string(ptx())
        .unwrap()
        .replace(".target sm_80", ".target sm_75");
    let turing = dir.join("turing.ptx");
    std::fs::write(&turing, &src).unwrap();
    let o = ptxc(&[
        "compile",
        "--arch",
        "sm_75",
        "-o",
        dir.join("x.cubin").to_str().unwrap(),
        turing.to_str().unwrap(),
    ]);
    let err = text(&o.stderr);
    assert!(
        !o.status.success() && err.contains("L2::256B") && err.contains("sm_80") && err.contains(":42:"),
        "{err}"
    );
    let theirs = oracle(
        "ptxas",
        &[
            "-arch=sm_75",
            turing.to_str().unwrap(),
            "-o",
            dir.join("y.cubin").to_str().unwrap(),
        ],
    );
    assert!(!theirs.status.success() && text(&theirs.stderr).contains("'.L2::256B' requires .target sm_80"));
    let kept = src.replace("L2::256B", "L2::128B");
    std::fs::write(&turing, &kept).unwrap();
    let (theirs, ours) = (dir.join("ptxas.cubin"), dir.join("ptxc.cubin"));
    ptxas_for("sm_75", &turing, &theirs);
    let o = ptxc(&[
        "compile",
        "--arch",
        "sm_75",
        "-o",
        ours.to_str().unwrap(),
        turing.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "ptxc: {}", text(&o.stderr));
    assert_eq!(accesses(&ours, false), accesses(&theirs, false));
}

/// Host reference of `cache_policy_hint` (`tests/ampere/cache_policy_hint.ptx`).
fn reference_policy(a: &[u32]) -> Vec<u32> {
    let mut d = vec![0u32; 256];
    for t in 0..64 {
        d[t] = a[t].wrapping_add(a[64 + t]).wrapping_add(a[128 + t]);
        d[64 + t] = a[192 + t].wrapping_add(1);
        d[128 + t] = a[256 + t];
        d[192 + t] = a[t];
    }
    d
}

/// `.L2::cache_hint` on sm_80, sm_86, sm_89 and sm_90: ptxas puts the policy in a uniform register
/// pair (`ULDC.64` from a parameter, `UMOV` pairs for a createpolicy constant) that the
/// access names as its descriptor, `LDG.E R0, desc[UR4][R2.64]`, also on LDG.CONSTANT, STG,
/// LD, ST and LDGSTS. ptxas's cubin runs on both engines with zero hazards (the hazard
/// model reads the descriptor pair) and the host's results, and `ptxc disasm` prints every
/// descriptor as nvdisasm does.
#[test]
fn ptxas_cache_policy_hints_run_on_both_engines() {
    use ptxc::run::{RunOptions, run};
    let ptx = root().join("tests/ampere/cache_policy_hint.ptx");
    let a = input(320);
    for arch in [Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90] {
        let dir = scratch(&format!("sim_cache_policy_hint_{}", arch.name()));
        let cubin = dir.join("ptxas.cubin");
        ptxas_for(arch.name(), &ptx, &cubin);
        let out = oracle("nvdisasm", &["-c", cubin.to_str().unwrap()]);
        let theirs = listing_by_section(&text(&out.stdout));
        let o = ptxc(&["disasm", cubin.to_str().unwrap()]);
        assert!(o.status.success(), "ptxc disasm: {}", text(&o.stderr));
        let ours = listing_by_section(&text(&o.stdout));
        let descs: Vec<&String> = theirs.values().filter(|t| t.contains("desc[UR")).collect();
        assert!(descs.len() >= 9, "{}: ptxas's descriptors: {descs:?}", arch.name());
        for t in descs {
            assert!(
                ours.values().any(|o| o == t),
                "{}: ptxc disasm lacks `{t}`",
                arch.name()
            );
        }
        let mut spec = spec(arch, "cache_policy_hint", &a, 256);
        spec.params.push(ParamSpec::Scalar {
            kind: Scalar::U64,
            bytes: 0x1000_0000_0000_0000u64.to_le_bytes().to_vec(),
        });
        let bytes = std::fs::read(&cubin).unwrap();
        for engine in [ptxc_sim::Engine::Timed, ptxc_sim::Engine::Functional] {
            let opts = RunOptions {
                engine,
                ..RunOptions::default()
            };
            let r = run(&bytes, &spec, &opts).unwrap_or_else(|e| panic!("{} {engine:?}: {e}", arch.name()));
            assert_eq!(
                r.stats.hazards,
                0,
                "{} {engine:?}: {:?}",
                arch.name(),
                r.stats.hazard_reports.first()
            );
            assert_eq!(
                words(&r.buffers["d"].bytes),
                reference_policy(&a),
                "{} {engine:?}",
                arch.name()
            );
        }
    }
}

/// The opcodes of the accesses in `cubin`'s nvdisasm listing that name a cache-policy
/// descriptor (`desc[URx]`), sorted, generic accesses read as global ones (ptxc selects
/// LDG/STG where no generic pointer can leave global memory, ptxas keeps LD/ST):
/// `LDG.E.EL`, `LDGSTS.E.BYPASS.128`, `STG.E.64`.
fn policy_accesses(cubin: &Path) -> Vec<String> {
    let out = oracle("nvdisasm", &["-c", cubin.to_str().unwrap()]);
    assert!(out.status.success(), "nvdisasm: {}", text(&out.stderr));
    let mut v: Vec<String> = listing_by_section(&text(&out.stdout))
        .values()
        .filter(|i| i.contains("desc[UR"))
        .filter_map(|i| i.split_whitespace().next())
        .map(|op| {
            let op = op.to_string();
            match op.split_once('.') {
                Some(("LD", rest)) => format!("LDG.{rest}"),
                Some(("ST", rest)) => format!("STG.{rest}"),
                _ => op,
            }
        })
        .collect();
    v.sort();
    v
}

/// Runs `kernel` of `tests/ampere/{kernel}.ptx` five ways on `arch` (ptxc's cubin too, with
/// zero hazards; `params` after `a` and `d`) and checks that ptxc's cubin names a cache-policy
/// descriptor on the same accesses as ptxas's (at least `min` of them): a dropped hint fails.
fn policy_five_ways(arch: Arch, kernel: &str, a: &[u32], params: Vec<ParamSpec>, min: usize) -> Vec<u32> {
    let ptx = root().join(format!("tests/ampere/{kernel}.ptx"));
    let cubins = Cubins::new(arch, &ptx, kernel);
    let mut spec = spec(arch, kernel, a, 256);
    spec.params.extend(params);
    let d = words(&cubins.agree(&spec, "d"));
    let dir = scratch(&format!("sim_{kernel}_listing_{}", arch.name()));
    let (theirs, ours) = both_cubins(arch.name(), &ptx, &dir);
    let (theirs, ours) = (policy_accesses(&theirs), policy_accesses(&ours));
    assert!(theirs.len() >= min, "{}: ptxas's descriptors: {theirs:?}", arch.name());
    assert_eq!(
        ours,
        theirs,
        "{} {kernel}: ptxc's cache-policy accesses differ from ptxas's",
        arch.name()
    );
    d
}

/// ptxc compiles `.L2::cache_hint` (`tests/ampere/cache_policy_hint.ptx`: the policy from a
/// parameter and from createpolicy.fractional) on sm_80, sm_86, sm_89 and sm_90: five ways equal to
/// the host reference, and `desc[UR4]` on every access ptxas gives a descriptor.
#[test]
fn ptxc_cache_policy_hints_agree_five_ways_and_match_ptxas() {
    let a = input(320);
    let pol = ParamSpec::Scalar {
        kind: Scalar::U64,
        bytes: 0x1000_0000_0000_0000u64.to_le_bytes().to_vec(),
    };
    for arch in [Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90] {
        let d = policy_five_ways(arch, "cache_policy_hint", &a, vec![pol.clone()], 9);
        assert_eq!(d, reference_policy(&a), "{}", arch.name());
    }
}

/// Host reference of `cache_policy_computed` (`tests/ampere/cache_policy_computed.ptx`).
fn reference_computed(a: &[u32]) -> Vec<u32> {
    let mut d = vec![0u32; 256];
    for t in 0..64 {
        d[t] = (0..4).fold(0u32, |s, k| s.wrapping_add(a[4 * t + k]));
        d[64 + t] = a[256 + 2 * t].wrapping_add(5);
        d[128 + 2 * t] = a[256 + 2 * t] ^ a[257 + 2 * t];
        d[129 + 2 * t] = a[257 + 2 * t];
    }
    d
}

/// A policy computed at run time (`tests/ampere/cache_policy_computed.ptx`): ptxc moves it
/// into UR4:UR5 with two R2UR, as ptxas does; cp.async.cg, cp.async.ca with a src-size, a
/// vector load and vector and scalar stores, on sm_80, sm_86, sm_89 and sm_90.
#[test]
fn ptxc_computed_cache_policy_agrees_five_ways_and_matches_ptxas() {
    let a = input(400);
    for arch in [Arch::Sm80, Arch::Sm86, Arch::Sm89] {
        let d = policy_five_ways(arch, "cache_policy_computed", &a, vec![], 6);
        assert_eq!(d, reference_computed(&a), "{}", arch.name());
    }
}

/// The cache operators (`tests/ops/cache_operators.ptx`: `.ca`, `.cg`, `.cs`, `.lu`, `.cv`
/// loads, `.wb`, `.cg`, `.cs`, `.wt` stores, global and generic) on sm_75, sm_80, sm_86 and
/// sm_89: ptxc's accesses carry ptxas's hints (`.EF`, `.LU`) and are strong for other CTAs
/// exactly where ptxas's are. Their values run in `tests/sim_ops.rs`.
#[test]
fn cache_operators_carry_ptxas_hints_and_strength() {
    let ptx = root().join("tests/ops/cache_operators.ptx");
    for arch in [Arch::Sm75, Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90] {
        let dir = scratch(&format!("sim_cache_operators_{}", arch.name()));
        let (theirs, ours) = both_cubins(arch.name(), &ptx, &dir);
        let want = accesses(&theirs, true);
        assert_eq!(accesses(&ours, true), want, "{}", arch.name());
        assert!(
            want.iter().filter(|h| h.ends_with("wide")).count() >= 6 && want.iter().any(|h| h.contains("LU")),
            "{}: {want:?}",
            arch.name()
        );
    }
}
