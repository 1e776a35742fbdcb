//! The address and predicate forms ptxc selects as ptxas does, on `tests/ops/address_forms.ptx`
//! (whose results `tests/sim_ops.rs` checks three ways): shift-and-add as `LEA` (and
//! `LEA.HI.X` for 64 bits), neighbouring shared loads merged where their alignment is
//! provable (`LDS.128`, `LDS.64`) and kept apart where it is not, compares chained through
//! their predicate input (`.OR`, `.AND`, `.XOR` on ISETP, FSETP and DSETP), zeroing in pairs
//! (`CS2R`), sign-extended indices added with `LEA.HI.X.SX32`, and no addition of a shared
//! array's zero offset.

mod common;

use common::*;
use std::path::Path;

/// ptxc's listing of the op test on `arch`.
fn listing(arch: &str) -> String {
    listing_of("tests/ops/address_forms.ptx", arch)
}

/// ptxc's listing of the PTX file `path` (from the repository root) on `arch`.
fn listing_of(path: &str, arch: &str) -> String {
    let stem = Path::new(path).file_stem().unwrap().to_string_lossy().into_owned();
    let dir = scratch(&format!("address_forms_{stem}_{arch}"));
    let cubin = dir.join("address_forms.cubin");
    let ptx = root().join(path);
    let o = ptxc(&[
        "compile",
        ptx.to_str().unwrap(),
        "--arch",
        arch,
        "-o",
        cubin.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = ptxc(&["disasm", cubin.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    text(&o.stdout)
}

/// The instructions of the listing (mnemonic and operands, without addresses).
fn instructions(listing: &str) -> Vec<String> {
    listing
        .lines()
        .filter_map(|l| l.trim().strip_prefix("/*").and_then(|r| r.split_once("*/")))
        .map(|(_, i)| i.trim().trim_end_matches(';').trim().to_string())
        .collect()
}

/// How many of `insts` start with `prefix`.
fn starting_with(insts: &[String], prefix: &str) -> usize {
    insts.iter().filter(|i| i.starts_with(prefix)).count()
}

#[test]
fn address_arithmetic_and_compares_take_ptxas_forms() {
    let insts = instructions(&listing("sm_75"));
    let count = |prefix: &str| starting_with(&insts, prefix);
    let report = insts.join("\n");
    // The input row's address: in + t * 16 in two instructions; in + sext(n), twice.
    assert_eq!(count("LEA.HI.X "), 1, "{report}");
    assert_eq!(count("LEA.HI.X.SX32 "), 2, "{report}");
    // Row l^1 in one 128-bit load, the first two words of row l^2 in one 64-bit load; row
    // l^3's words 1 and 2 (4-byte aligned) and the tail word stay 32-bit.
    assert_eq!(
        (count("LDS.128 "), count("LDS.64 "), count("LDS ")),
        (1, 1, 3),
        "{report}"
    );
    for chained in ["ISETP.GT.OR ", "FSETP.LT.AND ", "DSETP.GE.XOR "] {
        assert_eq!(count(chained), 1, "{chained}\n{report}");
    }
    assert_eq!(count("PLOP3"), 0, "{report}");
    assert!(count("CS2R ") >= 1, "{report}");
    let adds_zero = insts
        .iter()
        .filter(|i| i.starts_with("IADD3 ") && i.split(", ").nth(2) == Some("0x0"))
        .count();
    assert_eq!(adds_zero, 0, "{report}");
}

/// Hopper's shared addresses carry the CTA's rank in bits 24..31 (`%cluster_ctarank << 24`
/// added to every shared variable's address); the rank's shift keeps the alignment the
/// variable gives, so the same loads merge as on Turing (ptxas 13.5 merges `matmul_tiled`'s
/// row reads into `LDS.128` on sm_90 as on sm_75).
#[test]
fn hopper_shared_loads_merge_through_the_rank_tag() {
    let insts = instructions(&listing("sm_90"));
    let lds = [
        starting_with(&insts, "LDS.128 "),
        starting_with(&insts, "LDS.64 "),
        starting_with(&insts, "LDS "),
    ];
    assert_eq!(lds, [1, 1, 3], "{}", insts.join("\n"));
}

/// Two neighbouring 64-bit shared loads from a 16-byte aligned address merge into one
/// 128-bit load: `dgemm_small` reads its A tile's row of doubles (`[r]`, `[r+8]`, ...,
/// `[r+120]`, the row 128 bytes) in eight `LDS.128`, as ptxas does on sm_75, sm_80 and
/// sm_90; the B tile's column (`[r+128k]`) stays 64-bit.
#[test]
fn neighbouring_doubles_merge_into_128_bit_loads() {
    for arch in ["sm_75", "sm_80", "sm_90"] {
        let insts = instructions(&listing_of("tests/kernels/dgemm_small.ptx", arch));
        let lds = [starting_with(&insts, "LDS.128 "), starting_with(&insts, "LDS.64 ")];
        assert_eq!(lds, [8, 16], "{arch}\n{}", insts.join("\n"));
    }
}
