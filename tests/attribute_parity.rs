//! Attribute parity with ptxas, on sm_75 and on sm_80, sm_86 and sm_89 (each target
//! compiled by both compilers for that target): for every kernel of the conformance set, the
//! CUDA C kernel set (`tests/kernels`) and the corpus that both compilers accept, the attributes of
//! `.nv.info` and of each `.nv.info.<kernel>` (as `cuobjdump -elf` names them) are the same
//! set in ptxc's cubin as in ptxas's, except for the differences listed in [`KNOWN`], which
//! must match exactly (a fixed gap fails the test until it is removed from the list). The
//! offsets of ptxc's `EIATTR_COOP_GROUP_INSTR_OFFSETS` must name its SHFL, VOTE and MATCH
//! instructions, with one mask record each.

mod common;

use common::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Known differences: (file stem, section, attributes only ptxas writes, attributes only
/// ptxc writes); a file ptxc cannot compile is listed with section `(compile)` and its
/// error. `EIATTR_CRS_STACK_SIZE` and `EIATTR_INT_WARP_WIDE_INSTR_OFFSETS` are not compared
/// but checked against their rules on each compiler's own code ([`check_crs_rule`],
/// [`check_warp_wide_rule`]). Calls of driver functions (`vprintf`, `__assertfail`, ...)
/// get `EXTERNS` and `SYSCALL_OFFSETS` as ptxas writes them.
const KNOWN: &[(&str, &str, &[&str], &[&str])] = &[];

/// `EIATTR_CRS_STACK_SIZE`, compared with the rule on each compiler's own code instead.
const CRS: &str = "EIATTR_CRS_STACK_SIZE";

/// `EIATTR_INT_WARP_WIDE_INSTR_OFFSETS`, compared with the rule on each compiler's own code.
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
/// beyond those only for kernels with a divergent loop, which branches conditionally (ptxc
/// knows it from its divergence analysis; uniform loops get none).
fn check_crs_rule(theirs: &Path, ours: &Path, kernel: &str, ptxas_crs: bool, ptxc_crs: bool) {
    use ptxc_backend::attrs::{converges, loops_conditionally};
    let code = kernel_code(ours, kernel);
    let branches_conditionally = code
        .iter()
        .any(|i| i.desc().op == ptxc_sass::isa::Op::Bra && !i.unguarded());
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
/// itself (`docs/CUBIN.md`, section 4): every offset in ptxas's names a `VOTE`, `VOTEU`,
/// `SHFL` or (sm_80 on, its warp-aggregated atomics) `REDUX` that implements no PTX warp
/// operation (is not in `COOP_GROUP_INSTR_OFFSETS`).
/// ptxc inserts none: it writes no such list, and each of its `VOTE`, `VOTEU`, `SHFL` and
/// `MATCH` implements a PTX warp operation (is in its `COOP_GROUP_INSTR_OFFSETS`) or is
/// the `VOTE.ANY R, PT, PT` of `activemask`.
fn check_warp_wide_rule(theirs: &Path, ours: &Path, kernel: &str) {
    use ptxc_sass::isa::{Op, Role, Value};
    let warp_wide = |op: Op| matches!(op, Op::Vote | Op::Voteu | Op::Shfl | Op::Match);
    let (k, code) = kernel_image(theirs, kernel);
    for off in &k.int_warp_wide_offsets {
        let op = code[*off as usize / 16].desc().op;
        assert!(
            matches!(op, Op::Vote | Op::Voteu | Op::Shfl | Op::Redux) && !k.coop_group_offsets.contains(off),
            "ptxas: {kernel}: {WARP_WIDE} names {op:?} at {off:#x}"
        );
    }
    let (k, code) = kernel_image(ours, kernel);
    assert!(k.int_warp_wide_offsets.is_empty(), "ptxc: {kernel} writes {WARP_WIDE}");
    for (n, i) in code.iter().enumerate() {
        let of_activemask = i.desc().op == Op::Vote
            && i.desc()
                .operand_index(Role::PredSrc0)
                .is_some_and(|p| i.operands[p].value == Value::Pred { idx: 7, neg: false });
        assert!(
            !warp_wide(i.desc().op) || of_activemask || k.coop_group_offsets.contains(&(16 * n as u32)),
            "ptxc: {kernel}: {:?} at {:#x} implements no PTX warp operation",
            i.desc().op,
            16 * n
        );
    }
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
            let only_a: Vec<String> = sa
                .difference(&sc)
                .filter(|n| *n != CRS && *n != WARP_WIDE)
                .cloned()
                .collect();
            let only_c: Vec<String> = sc
                .difference(&sa)
                .filter(|n| *n != CRS && *n != WARP_WIDE)
                .cloned()
                .collect();
            if let Some(kernel) = section.strip_prefix(".nv.info.") {
                check_crs_rule(&theirs, &ours, kernel, sa.contains(CRS), sc.contains(CRS));
                check_warp_wide_rule(&theirs, &ours, kernel);
            }
            if !only_a.is_empty() || !only_c.is_empty() {
                seen.push((stem.clone(), section.clone(), only_a, only_c));
            }
            if sc.contains("EIATTR_COOP_GROUP_INSTR_OFFSETS") {
                check_coop_offsets(&ours, section);
            }
        }
    }
    let known: Vec<(String, String, Vec<String>, Vec<String>)> = KNOWN
        .iter()
        .map(|(f, s, a, c)| {
            let v = |x: &[&str]| x.iter().map(|s| s.to_string()).collect();
            (f.to_string(), s.to_string(), v(a), v(c))
        })
        .collect();
    let report: Vec<String> = seen.iter().map(|d| format!("{d:?}")).collect();
    assert_eq!(
        seen,
        known,
        "{arch}: {} of {compared} sections differ:\n{}",
        seen.len(),
        report.join("\n")
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
