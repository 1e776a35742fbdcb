//! The foundation's acceptance tests on the bundled examples: ptxc's cubins are accepted by
//! NVIDIA's tools without warnings, `ptxc disasm` prints nvdisasm's instruction texts, the
//! simulator gives correct results, and ptxas's cubin of the same PTX gives identical ones.

mod common;

use common::*;
use std::path::Path;

const EXAMPLES: [&str; 2] = ["vector_add", "saxpy"];

fn compile(name: &str, dir: &Path) -> std::path::PathBuf {
    let out = dir.join(format!("{name}.cubin"));
    let ptx = example(&format!("{name}.ptx"));
    let o = ptxc(&["compile", ptx.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "ptxc compile {name}: {}", text(&o.stderr));
    out
}

#[test]
fn nvidia_tools_accept_our_cubins_without_warnings() {
    let dir = scratch("tools_accept");
    for name in EXAMPLES {
        let cubin = compile(name, &dir);
        let c = cubin.to_str().unwrap();
        for (tool, args) in [
            ("nvdisasm", vec!["-c", c]),
            ("cuobjdump", vec!["-elf", c]),
            ("cuobjdump", vec!["-sass", c]),
        ] {
            let o = oracle(tool, &args);
            assert!(o.status.success(), "{tool} rejected {name}: {}", text(&o.stderr));
            let all = format!("{}{}", text(&o.stdout), text(&o.stderr)).to_lowercase();
            assert!(
                !all.contains("warning") && !all.contains("error"),
                "{tool} on {name}:\n{all}"
            );
        }
    }
}

#[test]
fn disasm_matches_nvdisasm_on_ours_and_ptxas_cubins() {
    let dir = scratch("disasm_matches");
    for name in EXAMPLES {
        let ours = compile(name, &dir);
        let theirs = dir.join(format!("{name}_ptxas.cubin"));
        ptxas(&example(&format!("{name}.ptx")), &theirs);
        for cubin in [&ours, &theirs] {
            let c = cubin.to_str().unwrap();
            let want = listing(&text(&oracle("nvdisasm", &["-c", c]).stdout));
            for flags in [vec!["disasm", c], vec!["disasm", "--controls", c]] {
                let o = ptxc(&flags);
                assert!(o.status.success(), "ptxc disasm {c}: {}", text(&o.stderr));
                let got = listing(&text(&o.stdout));
                assert!(!want.is_empty());
                assert_eq!(got, want, "ptxc {flags:?} differs from nvdisasm");
            }
        }
    }
}

/// Reads a little-endian f32 .npy written by `ptxc run`.
fn read_f32(path: &Path) -> Vec<f32> {
    let bytes = std::fs::read(path).unwrap();
    let file = npyz::NpyFile::new(&bytes[..]).unwrap();
    file.into_vec::<f32>().unwrap()
}

fn run(module: &Path, spec: &str, out: &Path, stats: &Path, mode: &str) -> String {
    let o = ptxc(&[
        "run",
        module.to_str().unwrap(),
        "--launch",
        example(spec).to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--stats",
        stats.to_str().unwrap(),
        "--mode",
        mode,
    ]);
    assert!(o.status.success(), "ptxc run {}: {}", module.display(), text(&o.stderr));
    text(&o.stdout)
}

fn stats_field(path: &Path, key: &str) -> u64 {
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v[key].as_u64().unwrap_or_else(|| panic!("stats has no `{key}`: {v}"))
}

#[test]
fn examples_compute_correct_results_on_ours_and_ptxas_cubins() {
    let dir = scratch("examples_run");
    let a = read_f32(&example("vector_add_a.npy"));
    let b = read_f32(&example("vector_add_b.npy"));
    let x = read_f32(&example("saxpy_x.npy"));
    let y = read_f32(&example("saxpy_y.npy"));
    let want_c: Vec<f32> = a.iter().zip(&b).map(|(a, b)| a + b).collect();
    let want_y: Vec<f32> = x.iter().zip(&y).map(|(x, y)| 2.0f32.mul_add(*x, *y)).collect();
    assert!(want_c.len() == 1000 && want_y.len() == 1000);
    for (name, spec, buf, want) in [
        ("vector_add", "vector_add.toml", "c", &want_c),
        ("saxpy", "saxpy.toml", "y", &want_y),
    ] {
        let theirs = dir.join(format!("{name}_ptxas.cubin"));
        ptxas(&example(&format!("{name}.ptx")), &theirs);
        let ours_ptx = example(&format!("{name}.ptx"));
        let mut results = Vec::new();
        for (tag, module, mode) in [
            ("ours", ours_ptx.as_path(), "timed"),
            ("ours_functional", ours_ptx.as_path(), "functional"),
            ("ptxas", theirs.as_path(), "timed"),
            ("ptxas_functional", theirs.as_path(), "functional"),
        ] {
            let out = dir.join(format!("{name}_{tag}"));
            let stats = dir.join(format!("{name}_{tag}.json"));
            let console = run(module, spec, &out, &stats, mode);
            assert!(console.contains("hazards 0"), "{name} ({tag}): {console}");
            let got = read_f32(&out.join(format!("{buf}.npy")));
            assert_eq!(got.len(), want.len());
            for (i, (g, w)) in got.iter().zip(want.iter()).enumerate() {
                assert_eq!(g.to_bits(), w.to_bits(), "{name} ({tag}) element {i}: {g} != {w}");
            }
            assert_eq!(stats_field(&stats, "hazards"), 0);
            assert!(stats_field(&stats, "warp_instructions") > 0);
            assert!(stats_field(&stats, "cycles") > 0);
            results.push(std::fs::read(out.join(format!("{buf}.npy"))).unwrap());
        }
        for r in &results[1..] {
            assert_eq!(&results[0], r, "{name}: runs disagree (ours/ptxas, timed/functional)");
        }
    }
}

/// The README's main command, `cargo run --release -- run examples/saxpy.ptx --launch ...`,
/// needs cargo to pick the `ptxc` binary among the package's binaries (`bench-report`).
#[test]
fn cargo_run_picks_the_ptxc_binary() {
    let o = std::process::Command::new(env!("CARGO"))
        .args(["metadata", "--no-deps", "--format-version", "1", "--offline"])
        .current_dir(root())
        .output()
        .expect("cargo metadata");
    assert!(o.status.success(), "cargo metadata: {}", text(&o.stderr));
    let meta: serde_json::Value = serde_json::from_slice(&o.stdout).expect("cargo metadata JSON");
    let packages = meta["packages"].as_array().expect("packages");
    let ptxc = packages.iter().find(|p| p["name"] == "ptxc").expect("the ptxc package");
    assert_eq!(
        ptxc["default_run"], "ptxc",
        "the ptxc package needs `default-run = \"ptxc\"`"
    );
}
