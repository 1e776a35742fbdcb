//! Attribute parity with ptxas, on sm_75, sm_80, sm_86, sm_89 and sm_90 (each target
//! compiled by both compilers for that target): for every kernel of the conformance set, the
//! CUDA C kernel set (`tests/kernels`) and the corpus that both compilers accept, the attributes of
//! `.nv.info` and of each `.nv.info.<kernel>` (as `cuobjdump -elf` names them) are the same
//! set in ptxc's cubin as in ptxas's, `EIATTR_CRS_STACK_SIZE` and
//! `EIATTR_INT_WARP_WIDE_INSTR_OFFSETS` included, except for the differences listed in
//! [`KNOWN`], which must match exactly (a fixed gap fails the test until it is removed from
//! the list). Both of those attributes are also checked against their rules on each
//! compiler's code, and where both compilers list inserted warp-wide instructions, the lists
//! name the same kinds as many times, except in [`KNOWN_KINDS`]. The offsets of ptxc's `EIATTR_COOP_GROUP_INSTR_OFFSETS` must name its
//! SHFL, VOTE and MATCH instructions, with one mask record each.

mod common;

use common::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A known difference: on the architectures `archs`, in `count` sections of `file` whose
/// names contain `section` (the corpus's mangled names are long), the attributes only
/// ptxas writes and those only ptxc writes; a file ptxc cannot compile is listed with
/// section `(compile)` and its error. Each entry must match exactly `count` differences on
/// each of its architectures, so a fixed gap fails the test until it is removed. Calls of
/// driver functions (`vprintf`, `__assertfail`, ...) get `EXTERNS` and `SYSCALL_OFFSETS` as
/// ptxas writes them.
struct Known {
    archs: &'static [&'static str],
    file: &'static str,
    section: &'static str,
    count: usize,
    ptxas_only: &'static [&'static str],
    ptxc_only: &'static [&'static str],
}

/// Every architecture the test compiles for.
const ALL: &[&str] = &["sm_75", "sm_80", "sm_86", "sm_89", "sm_90"];

/// `EIATTR_CRS_STACK_SIZE`, where only ptxas writes it.
const PTXAS_CRS: &[&str] = &["EIATTR_CRS_STACK_SIZE"];

/// A kernel where only ptxas writes `EIATTR_CRS_STACK_SIZE` on every architecture.
const fn ptxas_crs(file: &'static str, kernel: &'static str) -> Known {
    Known {
        archs: ALL,
        file,
        section: kernel,
        count: 1,
        ptxas_only: PTXAS_CRS,
        ptxc_only: &[],
    }
}

/// The known differences (`docs/CUBIN.md`, section 4, says why each is there).
/// `EIATTR_CRS_STACK_SIZE` only in ptxas's cubin: ptxas keeps a `BSSY` around a diamond ptxc
/// if-converts (`warp_vote`).
const KNOWN: &[Known] = &[ptxas_crs("warp_vote", ".nv.info.warp_vote")];

/// Sections where both compilers list inserted warp-wide instructions but of other kinds or
/// counts: on `arch`, exactly `count` sections whose names contain `section` (a fixed gap
/// fails the test until it is removed).
struct KnownKinds {
    arch: &'static str,
    section: &'static str,
    count: usize,
}

/// The kernels of HelmholtzOperator<3> (`docs/CUBIN.md`, section 4): ptxas calls the
/// operator (a `.func` with spin loops) from the kernel's loop and gives that loop no
/// forward-progress latch, though it gives one to the same loop of the HelmholtzOperator<2>
/// kernels and to every probed loop around a call of a function with a spin loop; ptxc calls
/// the operator too and latches the loop (one `VOTE` and one `VOTEU` more; 30 latches in
/// the kernel's text against ptxas's 29).
const KNOWN_KINDS: &[KnownKinds] = &[KnownKinds {
    arch: "sm_75",
    section: "ApplyKernelILi3Ed17HelmholtzOperator",
    count: 3,
}];

/// `EIATTR_CRS_STACK_SIZE`, also checked by its rule on each compiler's own code.
const CRS: &str = "EIATTR_CRS_STACK_SIZE";

/// `EIATTR_INT_WARP_WIDE_INSTR_OFFSETS`, whose listed instructions are also checked.
const WARP_WIDE: &str = "EIATTR_INT_WARP_WIDE_INSTR_OFFSETS";

/// The image of `kernel` in `cubin` and its decoded code.
fn kernel_image(cubin: &Path, kernel: &str) -> (ptxc_sass::cubin::KernelImage, Vec<ptxc_sass::isa::Inst>) {
    let bytes = std::fs::read(cubin).unwrap();
    let arch = ptxc_sim::module::cubin_arch(&bytes).unwrap_or_else(|e| panic!("{cubin:?}: {e}"));
    let m = ptxc_sass::cubin::read(&std::fs::read(cubin).unwrap()).unwrap();
    let k = m
        .kernels
        .into_iter()
        .find(|k| k.name == kernel)
        .unwrap_or_else(|| panic!("{kernel} in {cubin:?}"));
    let code = ptxc_sass::isa::decode::decode_all(arch, &k.code).unwrap();
    (k, code)
}

/// The decoded code of `kernel` in `cubin`.
fn kernel_code(cubin: &Path, kernel: &str) -> Vec<ptxc_sass::isa::Inst> {
    kernel_image(cubin, kernel).1
}

/// `EIATTR_CRS_STACK_SIZE` follows the code (`ptxc_backend::attrs::crs_stack_size`): each
/// compiler writes it for every kernel whose code has `BSSY`, `WARPSYNC` or `CALL.REL`, and
/// beyond those only for kernels with a divergent loop, which branches or exits
/// conditionally (ptxc knows it from its divergence analysis; uniform loops get none).
fn check_crs_rule(theirs: &Path, ours: &Path, kernel: &str, ptxas_crs: bool, ptxc_crs: bool) {
    use ptxc_backend::attrs::{converges, loops_conditionally};
    use ptxc_sass::isa::Op;
    let code = kernel_code(ours, kernel);
    let branches_conditionally = code
        .iter()
        .any(|i| matches!(i.desc().op, Op::Bra | Op::Exit) && !i.unguarded());
    assert!(!converges(&code) || ptxc_crs, "ptxc: {kernel} converges without {CRS}");
    assert!(
        !ptxc_crs || converges(&code) || branches_conditionally,
        "ptxc: {kernel} has {CRS} without a cause"
    );
    let code = kernel_code(theirs, kernel);
    assert!(
        !converges(&code) || ptxas_crs,
        "ptxas: {kernel} converges without {CRS}"
    );
    assert!(
        !ptxas_crs || converges(&code) || loops_conditionally(&code),
        "ptxas: {kernel} has {CRS} without a cause"
    );
}

/// `EIATTR_INT_WARP_WIDE_INSTR_OFFSETS` lists the warp-wide instructions a compiler inserts
/// itself (`docs/CUBIN.md`, section 4): every offset in either compiler's list names a
/// `VOTE`, `VOTEU`, `SHFL` or (sm_80 on, warp-aggregated atomics) `REDUX` that implements no
/// PTX warp operation (is not in `COOP_GROUP_INSTR_OFFSETS`). Every other `VOTE`, `VOTEU`,
/// `SHFL` and `MATCH` of ptxc's implements a PTX warp operation (is in its
/// `COOP_GROUP_INSTR_OFFSETS`) or is the `VOTE.ANY R, PT, PT` of `activemask`. Where both
/// compilers list some, the lists name the same kinds of instruction as many times, except in
/// [`KNOWN_KINDS`]: true where they do not.
fn check_warp_wide_rule(theirs: &Path, ours: &Path, kernel: &str) -> bool {
    use ptxc_sass::isa::{Op, Role, Value};
    let warp_wide = |op: Op| matches!(op, Op::Vote | Op::Voteu | Op::Shfl | Op::Match);
    let listed = |cubin: &Path, who: &str| {
        let (k, code) = kernel_image(cubin, kernel);
        let mut kinds = Vec::new();
        for off in &k.int_warp_wide_offsets {
            let op = code[*off as usize / 16].desc().op;
            assert!(
                matches!(op, Op::Vote | Op::Voteu | Op::Shfl | Op::Redux) && !k.coop_group_offsets.contains(off),
                "{who}: {kernel}: {WARP_WIDE} names {op:?} at {off:#x}"
            );
            kinds.push(format!("{op:?}"));
        }
        kinds.sort();
        (k, code, kinds)
    };
    let (_, _, theirs_kinds) = listed(theirs, "ptxas");
    let (k, code, ours_kinds) = listed(ours, "ptxc");
    let kinds_differ = !theirs_kinds.is_empty() && !ours_kinds.is_empty() && ours_kinds != theirs_kinds;
    for (n, i) in code.iter().enumerate() {
        let off = 16 * n as u32;
        let of_activemask = i.desc().op == Op::Vote
            && i.desc()
                .operand_index(Role::PredSrc0)
                .is_some_and(|p| i.operands[p].value == Value::Pred { idx: 7, neg: false });
        assert!(
            !warp_wide(i.desc().op)
                || of_activemask
                || k.coop_group_offsets.contains(&off)
                || k.int_warp_wide_offsets.contains(&off),
            "ptxc: {kernel}: {:?} at {off:#x} implements no PTX warp operation and is not listed",
            i.desc().op,
        );
    }
    kinds_differ
}

/// Attribute names per `.nv.info*` section of a cubin, from `cuobjdump -elf`.
fn attributes(cubin: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let o = oracle("cuobjdump", &["-elf", cubin.to_str().unwrap()]);
    assert!(o.status.success(), "cuobjdump: {}", text(&o.stderr));
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut section: Option<String> = None;
    for line in text(&o.stdout).lines() {
        if !line.starts_with(['\t', ' ']) && !line.is_empty() {
            section = line.starts_with(".nv.info").then(|| line.trim().to_string());
            if let Some(s) = &section {
                out.entry(s.clone()).or_default();
            }
            continue;
        }
        if let (Some(s), Some(name)) = (&section, line.trim().strip_prefix("Attribute:")) {
            out.get_mut(s).unwrap().insert(name.trim().to_string());
        }
    }
    out
}

/// A cuobjdump value line of `attr` in `section` as numbers.
fn values(cubin: &Path, section: &str, attr: &str) -> Vec<u64> {
    let o = oracle("cuobjdump", &["-elf", cubin.to_str().unwrap()]);
    let t = text(&o.stdout);
    let mut in_section = false;
    let mut hit = false;
    for line in t.lines() {
        if !line.starts_with(['\t', ' ']) && !line.is_empty() {
            in_section = line.trim() == section;
            continue;
        }
        let l = line.trim();
        if in_section && l.strip_prefix("Attribute:").is_some_and(|a| a.trim() == attr) {
            hit = true;
        } else if hit && let Some(v) = l.strip_prefix("Value:") {
            return v
                .split_whitespace()
                .filter_map(|x| u64::from_str_radix(x.trim_start_matches("0x"), 16).ok())
                .collect();
        }
    }
    Vec::new()
}

fn inputs() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in [
        ptxc_testkit::conformance_dir(),
        root().join("tests/kernels"),
        ptxc_testkit::corpus_dir(),
    ] {
        let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
            .collect();
        v.sort();
        files.extend(v);
    }
    files
}

#[test]
fn attribute_sets_equal_ptxas_on_the_three_kernel_sets() {
    parity_on("sm_75");
}

#[test]
fn attribute_sets_equal_ptxas_on_sm80() {
    parity_on("sm_80");
}

#[test]
fn attribute_sets_equal_ptxas_on_sm86() {
    parity_on("sm_86");
}

#[test]
fn attribute_sets_equal_ptxas_on_sm89() {
    parity_on("sm_89");
}

#[test]
fn attribute_sets_equal_ptxas_on_sm90() {
    parity_on("sm_90");
}

/// Compiles the three kernel sets for `arch` with both compilers and compares the attribute
/// sets section by section.
fn parity_on(arch: &str) {
    let dir = scratch(&format!("attribute_parity_{arch}"));
    let mut seen = Vec::new();
    let mut kinds_differ = Vec::new();
    let mut compared = 0;
    for ptx in inputs() {
        let stem = ptx.file_stem().unwrap().to_str().unwrap().to_string();
        let theirs = dir.join(format!("{stem}.ptxas.cubin"));
        let ours = dir.join(format!("{stem}.ptxc.cubin"));
        let o = oracle(
            "ptxas",
            &[
                &format!("-arch={arch}"),
                "-O3",
                ptx.to_str().unwrap(),
                "-o",
                theirs.to_str().unwrap(),
            ],
        );
        if !o.status.success() {
            continue; // ptxas refuses two corpus files (documented in the corpus README).
        }
        let o = ptxc(&[
            "compile",
            "--arch",
            arch,
            ptx.to_str().unwrap(),
            "-o",
            ours.to_str().unwrap(),
        ]);
        if !o.status.success() {
            let first = text(&o.stderr).lines().next().unwrap_or_default().to_string();
            seen.push((stem.clone(), "(compile)".into(), vec![first], Vec::new()));
            continue;
        }
        let (a, c) = (attributes(&theirs), attributes(&ours));
        for section in a.keys().chain(c.keys()).collect::<BTreeSet<_>>() {
            compared += 1;
            let (sa, sc) = (
                a.get(section).cloned().unwrap_or_default(),
                c.get(section).cloned().unwrap_or_default(),
            );
            let only_a: Vec<String> = sa.difference(&sc).cloned().collect();
            let only_c: Vec<String> = sc.difference(&sa).cloned().collect();
            if let Some(kernel) = section.strip_prefix(".nv.info.") {
                check_crs_rule(&theirs, &ours, kernel, sa.contains(CRS), sc.contains(CRS));
                if check_warp_wide_rule(&theirs, &ours, kernel) {
                    kinds_differ.push(kernel.to_string());
                }
            }
            if !only_a.is_empty() || !only_c.is_empty() {
                seen.push((stem.clone(), section.clone(), only_a, only_c));
            }
            if sc.contains("EIATTR_COOP_GROUP_INSTR_OFFSETS") {
                check_coop_offsets(&ours, section);
            }
        }
    }
    let known: Vec<&Known> = KNOWN.iter().filter(|k| k.archs.contains(&arch)).collect();
    let mut matched = vec![0usize; known.len()];
    let mut unexplained = Vec::new();
    for d in &seen {
        let names = |x: &[&str]| x.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let hit = known.iter().position(|k| {
            k.file == d.0 && d.1.contains(k.section) && names(k.ptxas_only) == d.2 && names(k.ptxc_only) == d.3
        });
        match hit {
            Some(n) => matched[n] += 1,
            None => unexplained.push(format!("{d:?}")),
        }
    }
    let miscounted: Vec<String> = known
        .iter()
        .zip(&matched)
        .filter(|(k, m)| k.count != **m)
        .map(|(k, m)| format!("{} {}: {m} sections differ, {} known", k.file, k.section, k.count))
        .collect();
    for k in KNOWN_KINDS.iter().filter(|k| k.arch == arch) {
        let n = kinds_differ.iter().filter(|s| s.contains(k.section)).count();
        assert_eq!(
            n, k.count,
            "{arch}: sections {} whose {WARP_WIDE} kinds differ",
            k.section
        );
    }
    let unexplained_kinds: Vec<&String> = kinds_differ
        .iter()
        .filter(|s| !KNOWN_KINDS.iter().any(|k| k.arch == arch && s.contains(k.section)))
        .collect();
    assert!(
        unexplained_kinds.is_empty(),
        "{arch}: kinds of {WARP_WIDE} differ: {unexplained_kinds:?}"
    );
    assert!(
        unexplained.is_empty() && miscounted.is_empty(),
        "{arch}: {} of {compared} sections differ; unexplained:\n{}\nknown gaps not as listed:\n{}",
        seen.len(),
        unexplained.join("\n"),
        miscounted.join("\n")
    );
}

/// ptxc's COOP_GROUP offsets name SHFL/VOTE/MATCH instructions, one mask record each.
fn check_coop_offsets(cubin: &Path, section: &str) {
    let offsets = values(cubin, section, "EIATTR_COOP_GROUP_INSTR_OFFSETS");
    let masks = values(cubin, section, "EIATTR_COOP_GROUP_MASK_REGIDS");
    assert_eq!(offsets.len(), masks.len(), "{section}");
    let o = ptxc(&["disasm", cubin.to_str().unwrap()]);
    let listing = text(&o.stdout);
    let kernel = section.trim_start_matches(".nv.info.");
    let body = listing
        .split(".text.")
        .find(|s| s.starts_with(kernel) && s[kernel.len()..].starts_with(['\n', ' ', ':', '\r']))
        .unwrap_or_else(|| panic!("{kernel} not in the listing"));
    for off in offsets {
        let tag = format!("/*{off:04x}*/");
        let line = body
            .lines()
            .find(|l| l.contains(&tag))
            .unwrap_or_else(|| panic!("{kernel}: no {tag}"));
        assert!(
            ["SHFL", "VOTE", "MATCH"].iter().any(|op| line.contains(op)),
            "{kernel}: {tag} is `{line}`"
        );
    }
}
