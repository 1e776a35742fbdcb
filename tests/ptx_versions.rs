//! The `.version` a feature needs, ptxc against ptxas: for every line of
//! `tests/data/version_probes.txt`, the first PTX ISA version each compiler accepts is the same
//! (ptxc may refuse a probe for another reason; it must not refuse it for its version at or
//! above ptxas's). Also the `.version` each `.target` needs and the newest version read.

mod common;

use common::*;
use std::path::Path;
use std::process::Command;

/// The versions tried, oldest first (the first that sm_75 allows is 6.3).
const VERSIONS: &[(u32, u32)] = &[
    (6, 3),
    (6, 4),
    (6, 5),
    (7, 0),
    (7, 1),
    (7, 2),
    (7, 3),
    (7, 4),
    (7, 5),
    (7, 6),
    (7, 7),
    (7, 8),
    (8, 0),
    (8, 1),
    (8, 2),
    (8, 3),
];

/// A kernel of `.version v` for sm_`sm` with `body` and registers of every kind it may name.
fn module(v: (u32, u32), sm: &str, body: &str) -> String {
    format!(
        ".version {}.{}\n.target sm_{sm}\n.address_size 64\n\
         .visible .entry k(.param .u64 p)\n{{\n\
         .reg .b32 r<8>;\n.reg .b64 rd<8>;\n.reg .pred pp<4>;\n.reg .f32 f<8>;\n\
         .reg .b16 h<8>;\n.reg .f64 fd<8>;\n.shared .align 16 .b8 s[256];\n\
         ld.param.u64 rd1, [p];\nmov.u32 r1, 5;\nmov.u64 rd2, s;\nmov.f32 f1, 0f3F800000;\n\
         {body}\nret;\n}}\n",
        v.0, v.1
    )
}

/// Whether ptxas compiles `ptx` for its own target.
fn ptxas_accepts(dir: &Path, sm: &str, ptx: &str) -> bool {
    let src = dir.join("probe.ptx");
    std::fs::write(&src, ptx).unwrap();
    let status = Command::new(oracle_bin().join("ptxas"))
        .args([&format!("-arch=sm_{sm}"), src.to_str().unwrap(), "-o"])
        .arg(dir.join("probe.cubin"))
        .output()
        .expect("run ptxas");
    status.status.success()
}

/// Whether ptxc's front end refuses `ptx` for its `.version` (another refusal is not counted).
fn ptxc_refuses_version(ptx: &str) -> bool {
    let Err(diags) = ptxc_frontend::parse_and_check(ptx) else {
        return false;
    };
    diags
        .iter()
        .any(|d| d.message.contains("PTX ISA .version") || d.message.contains("does not support .target"))
}

/// The first of [`VERSIONS`] accepted, by `accepts`.
fn first_version(accepts: impl Fn((u32, u32)) -> bool) -> Option<(u32, u32)> {
    VERSIONS.iter().copied().find(|&v| accepts(v))
}

#[test]
fn every_probe_needs_the_version_ptxas_needs() {
    let dir = scratch("ptx_versions");
    let probes = std::fs::read_to_string(root().join("tests/data/version_probes.txt")).unwrap();
    let mut wrong = Vec::new();
    let mut count = 0;
    for line in probes.lines().filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let (sm, body) = line.split_once('|').expect("`sm|instruction`");
        let by_ptxas = first_version(|v| ptxas_accepts(&dir, sm, &module(v, sm, body)));
        let by_ptxc = first_version(|v| !ptxc_refuses_version(&module(v, sm, body)));
        assert!(
            by_ptxas.is_some(),
            "ptxas accepts `{body}` on sm_{sm} at no version tried"
        );
        if by_ptxas != by_ptxc {
            wrong.push(format!(
                "sm_{sm} `{body}`: ptxas from {by_ptxas:?}, ptxc from {by_ptxc:?}"
            ));
        }
        count += 1;
    }
    assert!(count >= 50, "only {count} probes");
    assert!(
        wrong.is_empty(),
        "{} of {count} probes differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn targets_need_the_version_ptxas_needs() {
    let dir = scratch("ptx_versions_targets");
    for sm in ["75", "80", "86", "89"] {
        let by_ptxas = first_version(|v| ptxas_accepts(&dir, sm, &module(v, sm, "")));
        let by_ptxc = first_version(|v| !ptxc_refuses_version(&module(v, sm, "")));
        assert_eq!(by_ptxc, by_ptxas, "sm_{sm}");
    }
}

#[test]
fn a_version_newer_than_ptxas_reads_is_refused_by_both() {
    let dir = scratch("ptx_versions_newest");
    let newest = ptxc_frontend::sema::NEWEST_PTX_VERSION;
    let next = (newest.0, newest.1 + 1);
    assert!(ptxas_accepts(&dir, "75", &module(newest, "75", "")));
    assert!(!ptxas_accepts(&dir, "75", &module(next, "75", "")));
    let diags = ptxc_frontend::parse_and_check(&module(next, "75", "")).unwrap_err();
    assert!(
        diags[0].message.contains("unsupported .version"),
        "{}",
        diags[0].message
    );
    assert!(ptxc_frontend::parse_and_check(&module(newest, "75", "")).is_ok());
}
