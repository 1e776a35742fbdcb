//! The address and predicate forms ptxc selects as ptxas does, on `tests/ops/address_forms.ptx`
//! (whose results `tests/sim_ops.rs` checks three ways): shift-and-add as `LEA` (and
//! `LEA.HI.X` for 64 bits), neighbouring shared loads merged where their alignment is
//! provable (`LDS.128`, `LDS.64`) and kept apart where it is not, compares chained through
//! their predicate input (`.OR`, `.AND`, `.XOR` on ISETP, FSETP and DSETP), zeroing in pairs
//! (`CS2R`), sign-extended indices added with `LEA.HI.X.SX32`, and no addition of a shared
//! array's zero offset.

mod common;

use common::*;

/// ptxc's listing of the op test on sm_75.
fn listing() -> String {
    let dir = scratch("address_forms");
    let cubin = dir.join("address_forms.cubin");
    let ptx = root().join("tests/ops/address_forms.ptx");
    let o = ptxc(&["compile", ptx.to_str().unwrap(), "-o", cubin.to_str().unwrap()]);
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

#[test]
fn address_arithmetic_and_compares_take_ptxas_forms() {
    let insts = instructions(&listing());
    let count = |prefix: &str| insts.iter().filter(|i| i.starts_with(prefix)).count();
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
