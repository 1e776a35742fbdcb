//! `ptxc run --engine mir`: the MIR interpreter gives the simulator's buffers on the bundled
//! examples, with the same `--stats` fields (`engine` = "mir", `cycles` = 0); and
//! `ptxc compile --dump-mir=PASS` prints the MIR after that pass.

mod common;

use common::*;

fn run(engine: &str, name: &str, out: &std::path::Path) -> serde_json::Value {
    let stats = out.join("stats.json");
    let o = ptxc(&[
        "run",
        example(&format!("{name}.ptx")).to_str().unwrap(),
        "--launch",
        example(&format!("{name}.toml")).to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--stats",
        stats.to_str().unwrap(),
        "--engine",
        engine,
    ]);
    assert!(o.status.success(), "ptxc run --engine {engine}: {}", text(&o.stderr));
    serde_json::from_str(&std::fs::read_to_string(stats).unwrap()).unwrap()
}

#[test]
fn mir_engine_matches_the_simulator_on_the_examples() {
    for (name, buffer) in [("vector_add", "c"), ("saxpy", "y")] {
        let (sim_dir, mir_dir) = (
            scratch(&format!("mir_engine_sim_{name}")),
            scratch(&format!("mir_engine_mir_{name}")),
        );
        run("sim", name, &sim_dir);
        let stats = run("mir", name, &mir_dir);
        let file = format!("{buffer}.npy");
        assert_eq!(
            std::fs::read(sim_dir.join(&file)).unwrap(),
            std::fs::read(mir_dir.join(&file)).unwrap(),
            "{name}: buffer `{buffer}`"
        );
        assert_eq!(stats["engine"], "mir");
        assert_eq!(stats["cycles"], 0);
        assert!(stats["warp_instructions"].as_u64().unwrap() > 0);
    }
}

#[test]
fn dump_mir_prints_the_ir_after_a_pass() {
    let dir = scratch("dump_mir");
    let out = dir.join("saxpy.cubin");
    let ptx = example("saxpy.ptx");
    let o = ptxc(&[
        "compile",
        ptx.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--dump-mir=gvn",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("// saxpy after gvn"), "{}", text(&o.stderr));
    let o = ptxc(&[
        "compile",
        ptx.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--dump-mir=nope",
    ]);
    assert!(!o.status.success());
}
