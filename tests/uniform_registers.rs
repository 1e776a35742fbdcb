//! The uniform datapath (`backend/src/uniform/`): warp-uniform values live in uniform
//! registers only where the warp runs converged. `tests/data/uniform/uniform_divergent.ptx`
//! computes uniform address parts before a divergent branch (read on one side only), on
//! both sides of it, in a loop that threads leave in different iterations and after both;
//! ptxc's cubin must keep every uniform instruction and uniform address out of the
//! divergent regions, use them after the regions, and give the MIR interpreter's results
//! (and ptxas's, on sm_75, sm_80 and sm_90). `tests/data/uniform/param_pointers.ptx`:
//! on sm_75 a parameter pointer that only addresses memory in converged code is a uniform
//! pair (`ULDC.64`, `[UR+off]`, as ptxas addresses it), one read under a divergent branch
//! or also used as a value stays in general registers, with the interpreter's results.

mod common;

use common::*;

const PTX: &str = "tests/data/uniform/uniform_divergent.ptx";
const SPEC: &str = "tests/data/uniform/uniform_divergent.toml";

/// True for a listing line that names a uniform register or is a uniform instruction.
fn is_uniform(line: &str) -> bool {
    let body = line.split(';').next().unwrap_or("");
    let mnemonic = body
        .split_whitespace()
        .find(|w| !w.starts_with("/*") && !w.starts_with('@'));
    body.contains("UR") || mnemonic.is_some_and(|m| m.starts_with('U'))
}

/// The listing lines between each `BSSY` and the `BSYNC` of its barrier register.
fn inside_regions(listing: &str) -> Vec<String> {
    let mut open: Vec<String> = Vec::new();
    let mut inside = Vec::new();
    for line in listing.lines() {
        if line.contains("BSSY") {
            open.push(
                line.split("BSSY")
                    .nth(1)
                    .unwrap()
                    .split(',')
                    .next()
                    .unwrap()
                    .trim()
                    .to_string(),
            );
        } else if line.contains("BSYNC") {
            let b = line
                .split("BSYNC")
                .nth(1)
                .unwrap()
                .trim()
                .trim_end_matches(';')
                .trim()
                .to_string();
            open.retain(|o| *o != b);
        } else if !open.is_empty() {
            inside.push(line.to_string());
        }
    }
    inside
}

#[test]
fn uniform_values_stay_out_of_divergent_regions() {
    let dir = scratch("uniform_registers_regions");
    for arch in ["sm_75", "sm_80", "sm_90"] {
        let cubin = dir.join(format!("{arch}.cubin"));
        let o = ptxc_compile(arch, &root().join(PTX), &cubin);
        assert!(o.status.success(), "{arch}: {}", text(&o.stderr));
        let listing = text(&ptxc(&["disasm", cubin.to_str().unwrap()]).stdout);
        assert!(
            listing.contains("BSSY"),
            "{arch}: the branch needs a barrier:\n{listing}"
        );
        let uniform_inside: Vec<_> = inside_regions(&listing).into_iter().filter(|l| is_uniform(l)).collect();
        assert!(uniform_inside.is_empty(), "{arch}: {uniform_inside:?}\n{listing}");
        // After the regions, the parameter's address part is a uniform register.
        assert!(
            listing.lines().any(|l| l.contains("LDS") && l.contains("+UR")),
            "{arch}:\n{listing}"
        );
    }
}

#[test]
fn uniform_values_around_divergent_code_compute_what_the_interpreter_does() {
    let dir = scratch("uniform_registers_results");
    let spec = std::fs::read_to_string(root().join(SPEC)).unwrap();
    let ptx = root().join(PTX);
    let reference = run_words(&dir, &ptx, &spec, "mir", &["out"]);
    for arch in ["sm_75", "sm_80", "sm_90"] {
        let arch_dir = dir.join(arch);
        std::fs::create_dir_all(&arch_dir).unwrap();
        let (theirs, ours) = both_cubins(arch, &ptx, &arch_dir);
        for (who, cubin) in [("ptxc", ours), ("ptxas", theirs)] {
            let got = run_words(&arch_dir, &cubin, &spec, "timed", &["out"]);
            assert_eq!(got, reference, "{arch}: {who}'s cubin");
        }
    }
}

const POINTERS_PTX: &str = "tests/data/uniform/param_pointers.ptx";
const POINTERS_SPEC: &str = "tests/data/uniform/param_pointers.toml";

#[test]
fn parameter_pointers_are_uniform_pairs_only_where_the_warp_is_converged() {
    let dir = scratch("uniform_registers_pointers");
    let cubin = dir.join("sm_75.cubin");
    let o = ptxc_compile("sm_75", &root().join(POINTERS_PTX), &cubin);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let listing = text(&ptxc(&["disasm", cubin.to_str().unwrap()]).stdout);
    let uniform_loads = listing
        .lines()
        .filter(|l| l.contains("LDG") && l.contains("[UR"))
        .count();
    assert_eq!(uniform_loads, 4, "`in`'s four loads read a uniform pair:\n{listing}");
    assert!(listing.contains("ULDC.64"), "{listing}");
    // (The warp-aggregated atomic's own VOTEU there is local to it.)
    let pointer_inside: Vec<_> = inside_regions(&listing)
        .into_iter()
        .filter(|l| l.contains("ULDC") || l.contains("[UR"))
        .collect();
    assert!(
        pointer_inside.is_empty(),
        "`flag` is used on both sides of a divergent branch: {pointer_inside:?}\n{listing}"
    );
    let stores_through_uniform = listing
        .lines()
        .filter(|l| l.contains("STG") && l.contains("[UR"))
        .count();
    assert_eq!(stores_through_uniform, 0, "`out` is also a value:\n{listing}");
}

#[test]
fn parameter_pointers_compute_what_the_interpreter_does() {
    let dir = scratch("uniform_registers_pointer_results");
    let spec = std::fs::read_to_string(root().join(POINTERS_SPEC)).unwrap();
    let ptx = root().join(POINTERS_PTX);
    let reference = run_words(&dir, &ptx, &spec, "mir", &["flag", "out"]);
    for arch in ["sm_75", "sm_80", "sm_90"] {
        let arch_dir = dir.join(arch);
        std::fs::create_dir_all(&arch_dir).unwrap();
        let (theirs, ours) = both_cubins(arch, &ptx, &arch_dir);
        for (who, cubin) in [("ptxc", ours), ("ptxas", theirs)] {
            let got = run_words(&arch_dir, &cubin, &spec, "timed", &["flag", "out"]);
            assert_eq!(got, reference, "{arch}: {who}'s cubin");
        }
    }
}
