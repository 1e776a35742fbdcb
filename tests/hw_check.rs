//! `ptxc hw-check` without a GPU: the statistics, the buffer comparison, the case sets, the
//! whole check on a device double backed by the simulator (one that agrees, one that corrupts
//! a buffer, one that fails a launch, one whose clock runs at half speed), the report, and
//! the command line (arguments, and the exit code when there is no driver).

mod common;

use common::*;
use ptxc::hwcheck::cases::{Set, cases};
use ptxc::hwcheck::check::{CheckOptions, check};
use ptxc::hwcheck::compare::compare;
use ptxc::hwcheck::gpu::{Gpu, GpuInfo, GpuRun};
use ptxc::hwcheck::report::{Outcome, Report};
use ptxc::hwcheck::stats::{agreement, ranks, ratio, spearman};
use ptxc::launch::{LaunchSpec, Scalar};
use ptxc::npy::Array;
use ptxc::run::{RunOptions, run};
use ptxc_sass::isa::Arch;
use std::collections::BTreeMap;

// ---------------------------------------------------------------------------------------
// Statistics.

#[test]
fn ranks_share_the_mean_rank_of_ties() {
    assert_eq!(ranks(&[3.0, 1.0, 3.0, 2.0]), vec![3.5, 1.0, 3.5, 2.0]);
    assert_eq!(ranks(&[5.0, 5.0, 5.0]), vec![2.0, 2.0, 2.0]);
    assert_eq!(ranks(&[]), Vec::<f64>::new());
}

#[test]
fn spearman_with_ties_matches_the_textbook_value() {
    // scipy.stats.spearmanr([1, 2, 2, 3], [1, 2, 3, 4]) = 0.9486832980505138.
    let r = spearman(&[1.0, 2.0, 2.0, 3.0], &[1.0, 2.0, 3.0, 4.0]).unwrap();
    assert!((r - 0.9486832980505138).abs() < 1e-12, "{r}");
    assert_eq!(spearman(&[1.0, 5.0, 9.0], &[10.0, 200.0, 3000.0]), Some(1.0));
    assert_eq!(spearman(&[1.0, 5.0, 9.0], &[3.0, 2.0, 1.0]), Some(-1.0));
    assert_eq!(spearman(&[1.0, 1.0], &[1.0, 2.0]), None, "no variance");
    assert_eq!(spearman(&[1.0], &[1.0]), None, "one value");
    assert_eq!(spearman(&[1.0, 2.0], &[1.0]), None, "lengths differ");
}

#[test]
fn agreement_gives_geomean_ratio_and_mean_absolute_error() {
    let a = agreement(&[(2.0, 1.0), (8.0, 4.0), (5.0, 10.0)]);
    assert_eq!(a.kernels, 3);
    // (2 * 2 * 0.5)^(1/3)
    assert!((a.ratio_geomean.unwrap() - 2f64.powf(1.0 / 3.0)).abs() < 1e-12);
    assert!((a.mean_abs_error.unwrap() - (1.0 + 4.0 + 5.0) / 3.0).abs() < 1e-12);
    assert_eq!(a.spearman, Some(0.5));
    assert_eq!(ratio(3.0, 0.0), None);
    assert_eq!(ratio(-1.0, 2.0), None);
    let empty = agreement(&[]);
    assert_eq!(
        (empty.ratio_geomean, empty.mean_abs_error, empty.spearman),
        (None, None, None)
    );
    // A kernel with zero simulated cycles counts in the error, not in the ratio.
    let z = agreement(&[(4.0, 2.0), (3.0, 0.0)]);
    assert_eq!(z.ratio_geomean, Some(2.0));
    assert_eq!(z.mean_abs_error, Some(2.5));
}

// ---------------------------------------------------------------------------------------
// Buffer comparison.

fn f32s(v: &[f32]) -> Array {
    Array::new(Scalar::F32, v.iter().flat_map(|x| x.to_le_bytes()).collect())
}

#[test]
fn comparison_names_the_buffer_the_count_and_the_first_element() {
    let sim = BTreeMap::from([
        ("a".to_string(), f32s(&[1.0, 2.0, 3.0, 4.0])),
        ("b".to_string(), f32s(&[0.0])),
    ]);
    assert!(compare(&sim, &sim).is_empty());
    let mut gpu = sim.clone();
    gpu.insert("a".into(), f32s(&[1.0, 2.5, 3.0, -4.0]));
    let d = compare(&gpu, &sim);
    assert_eq!(d.len(), 1);
    assert_eq!(
        (d[0].buffer.as_str(), d[0].elements, d[0].len, d[0].first),
        ("a", 2, 4, 1)
    );
    assert_eq!(d[0].gpu, "2.5 (0x40200000)");
    assert_eq!(d[0].sim, "2 (0x40000000)");
    // A last-bit difference is a difference.
    gpu.insert("a".into(), f32s(&[1.0, 2.0, 3.0, f32::from_bits(4f32.to_bits() + 1)]));
    assert_eq!(compare(&gpu, &sim)[0].first, 3);
    // A missing buffer and a different length are differences.
    gpu.remove("b");
    gpu.insert("a".into(), f32s(&[1.0]));
    let d = compare(&gpu, &sim);
    assert_eq!(d.len(), 2);
    assert_eq!((d[1].buffer.as_str(), d[1].gpu.as_str()), ("b", "missing"));
    assert_eq!(d[0].gpu, "f32 x 1");
}

// ---------------------------------------------------------------------------------------
// The case sets.

#[test]
fn the_conformance_set_has_158_launchable_kernels() {
    let work = scratch("hw_check_cases");
    let c = cases(Set::Conformance, &root(), &work, None).unwrap();
    assert_eq!(c.len(), 158);
    for case in &c {
        let spec = case.spec.as_ref().unwrap_or_else(|e| panic!("{}: {e}", case.name));
        assert_eq!(spec.kernel, case.name);
        assert!(case.ptx.is_file(), "{}", case.ptx.display());
        assert_eq!(spec.dynamic_shared_bytes, 1024);
    }
    let suite = cases(Set::Suite, &root(), &work, None).unwrap();
    assert_eq!(suite.len(), 18, "16 scalar kernels and the two tensor-core GEMMs");
    assert!(suite.iter().all(|c| c.spec.is_ok() && c.ptx.is_file()));
}

#[test]
fn kernel_set_inputs_come_from_the_kernel_inputs_folder() {
    let work = scratch("hw_check_kernel_inputs");
    let without = cases(Set::Kernels, &root(), &work, None).unwrap();
    assert_eq!(without.len(), 30);
    let bit_ops = without.iter().find(|c| c.name == "bit_ops").unwrap();
    let why = bit_ops.spec.as_ref().unwrap_err();
    assert!(why.contains("x.npy") && why.contains("tests/sim_kernels.rs"), "{why}");
    let inputs = work.join("inputs");
    std::fs::create_dir_all(inputs.join("bit_ops")).unwrap();
    for b in ["x", "y"] {
        ptxc::npy::write(
            &inputs.join(format!("bit_ops/{b}.npy")),
            &Array::new(Scalar::U32, vec![0; 4096]),
        )
        .unwrap();
    }
    let with = cases(Set::Kernels, &root(), &work, Some(&inputs)).unwrap();
    let bit_ops = with.iter().find(|c| c.name == "bit_ops").unwrap();
    let spec = bit_ops.spec.as_ref().unwrap();
    assert_eq!(spec.kernel, "bit_ops");
    assert!(bit_ops.ptx.ends_with("tests/kernels/bit_ops.ptx"));
}

// ---------------------------------------------------------------------------------------
// The check on device doubles.

/// A GPU double backed by the simulator: runs the cubin on `model`, then perhaps corrupts a
/// buffer, fails, or scales its cycles.
struct SimGpu {
    info: GpuInfo,
    model: ptxc_sim::Config,
    /// Cycles reported per simulated cycle.
    scale: f64,
    /// Flip the last byte of this buffer of this kernel.
    corrupt: Option<(&'static str, &'static str)>,
    /// Fail this kernel's launch.
    fail: Option<&'static str>,
    launches: usize,
}

impl SimGpu {
    fn new() -> SimGpu {
        SimGpu {
            info: GpuInfo {
                name: "simulated double".into(),
                sm: 75,
                sms: 40,
                clock_khz: 1_590_000,
                via: "test double".into(),
            },
            model: ptxc_sim::Config::for_arch(Arch::Sm75).unwrap(),
            scale: 1.0,
            corrupt: None,
            fail: None,
            launches: 0,
        }
    }
}

impl Gpu for SimGpu {
    fn info(&self) -> &GpuInfo {
        &self.info
    }

    fn launch(&mut self, cubin: &[u8], spec: &LaunchSpec, repeat: u32) -> Result<GpuRun, String> {
        self.launches += 1;
        if self.fail == Some(spec.kernel.as_str()) {
            return Err("CUDA_ERROR_ILLEGAL_ADDRESS (double)".into());
        }
        let opts = RunOptions {
            config: self.model.clone(),
            engine: ptxc_sim::Engine::Timed,
            device_named: true,
            ..RunOptions::default()
        };
        let out = run(cubin, spec, &opts)?;
        let mut buffers = out.buffers;
        if let Some((kernel, buffer)) = self.corrupt
            && kernel == spec.kernel
            && let Some(b) = buffers.get_mut(buffer).and_then(|a| a.bytes.last_mut())
        {
            *b ^= 1;
        }
        Ok(GpuRun {
            buffers,
            cycles: (repeat > 0).then_some(out.stats.cycles as f64 * self.scale),
        })
    }
}

fn options(tag: &str, sets: Vec<Set>, filter: &str, repeat: u32) -> CheckOptions {
    CheckOptions {
        root: root(),
        work: scratch(tag),
        sets,
        ptxas: None,
        kernel_inputs: None,
        repeat,
        model: None,
        filter: Some(filter.into()),
    }
}

fn run_check(gpu: &mut SimGpu, opts: &CheckOptions) -> Report {
    let mut lines = Vec::new();
    let report = check(gpu, opts, &mut |l| lines.push(l.to_string())).unwrap();
    assert_eq!(lines.len(), report.rows.len(), "one progress line per row");
    report
}

#[test]
fn a_device_that_agrees_gives_agreement_everywhere() {
    let mut gpu = SimGpu::new();
    let report = run_check(
        &mut gpu,
        &options("hw_check_agree", vec![Set::Conformance, Set::Suite], "add", 3),
    );
    let names: Vec<&str> = report.rows.iter().map(|r| r.kernel.as_str()).collect();
    assert!(
        names.len() >= 5 && names.contains(&"add") && names.contains(&"add_s32_sat"),
        "{names:?}"
    );
    assert!(names.iter().all(|n| n.contains("add")));
    for r in &report.rows {
        assert_eq!(r.outcome, Outcome::Agree, "{}", r.line());
        assert!(r.sim_cycles.unwrap() > 0.0);
        assert_eq!(r.gpu_cycles, r.sim_cycles);
    }
    assert!(!report.disagrees());
    assert_eq!(report.arch, "sm_75");
    let c = &report.cycles[0];
    assert!(c.net_of_empty_kernel);
    assert_eq!(c.agreement.kernels, report.rows.len());
    assert_eq!(c.agreement.mean_abs_error, Some(0.0));
    assert_eq!(c.agreement.ratio_geomean, Some(1.0));
    // The empty kernel, then one launch per kernel.
    assert_eq!(gpu.launches, report.rows.len() + 1);
}

#[test]
fn a_corrupted_buffer_is_reported_as_a_difference() {
    let mut gpu = SimGpu::new();
    gpu.corrupt = Some(("add_s32_sat", "output"));
    let report = run_check(&mut gpu, &options("hw_check_corrupt", vec![Set::Conformance], "add", 0));
    let differ: Vec<_> = report
        .rows
        .iter()
        .filter(|r| !matches!(r.outcome, Outcome::Agree))
        .collect();
    assert_eq!(differ.len(), 1, "{:?}", report.rows);
    assert_eq!(differ[0].kernel, "add_s32_sat");
    let Outcome::Differ(d) = &differ[0].outcome else {
        panic!("{:?}", differ[0].outcome)
    };
    assert_eq!((d[0].buffer.as_str(), d[0].elements), ("output", 1));
    assert!(report.disagrees());
    let t = &report.tallies[0];
    assert_eq!((t.differ, t.agree + 1), (1, report.rows.len()));
    let md = report.to_markdown();
    assert!(md.contains("| add_s32_sat | ptxc | DIFFER |"), "{md}");
    assert!(report.summary().contains("1 differ"));
    // Without timing there are no cycles.
    assert!(report.cycles.is_empty() && report.baseline.is_empty());
    assert!(report.rows.iter().all(|r| r.gpu_cycles.is_none()));
}

#[test]
fn a_launch_that_fails_on_the_gpu_only_is_a_disagreement() {
    let mut gpu = SimGpu::new();
    gpu.fail = Some("add");
    let report = run_check(&mut gpu, &options("hw_check_fail", vec![Set::Conformance], "add", 0));
    let row = report.rows.iter().find(|r| r.kernel == "add").unwrap();
    assert!(matches!(&row.outcome, Outcome::GpuError(e) if e.contains("ILLEGAL_ADDRESS")));
    assert!(report.disagrees());
    assert_eq!(report.tallies[0].gpu_errors, 1);
}

#[test]
fn a_slower_clock_shows_in_ratio_and_error_not_in_rank() {
    let mut gpu = SimGpu::new();
    gpu.scale = 2.0;
    let report = run_check(&mut gpu, &options("hw_check_scale", vec![Set::Conformance], "mul", 2));
    assert!(report.rows.len() >= 4);
    let base = &report.baseline[0];
    assert_eq!(base.gpu_cycles, 2.0 * base.sim_cycles);
    let a = &report.cycles[0].agreement;
    assert!((a.ratio_geomean.unwrap() - 2.0).abs() < 1e-9, "{a:?}");
    let net: Vec<f64> = report
        .rows
        .iter()
        .map(|r| r.sim_cycles.unwrap() - base.sim_cycles)
        .collect();
    let mae = net.iter().map(|n| n.abs()).sum::<f64>() / net.len() as f64;
    assert!((a.mean_abs_error.unwrap() - mae).abs() < 1e-9, "{a:?} vs {mae}");
    if net.iter().any(|&n| n != net[0]) {
        assert!((a.spearman.unwrap() - 1.0).abs() < 1e-12, "{a:?}");
    }
}

#[test]
fn the_report_renders_as_json_and_markdown() {
    let mut gpu = SimGpu::new();
    gpu.corrupt = Some(("mul_lo", "output"));
    let report = run_check(&mut gpu, &options("hw_check_report", vec![Set::Conformance], "mul_", 2));
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    assert_eq!(json["gpu"]["sm"], 75);
    assert_eq!(json["arch"], "sm_75");
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), report.rows.len());
    let bad = rows.iter().find(|r| r["kernel"] == "mul_lo").unwrap();
    assert_eq!(bad["outcome"], "differ");
    assert_eq!(bad["detail"][0]["buffer"], "output");
    assert_eq!(bad["compiler"], "ptxc");
    assert_eq!(bad["set"], "conformance");
    assert!(json["cycles"][0]["spearman"].is_number() || json["cycles"][0]["spearman"].is_null());
    let md = report.to_markdown();
    assert!(md.starts_with("# ptxc hardware check"));
    assert!(md.contains("| conformance | ptxc |"));
    assert!(md.contains("Empty kernel [ptxc]"));
    assert!(md.contains("`output`: 1 of"));
}

// ---------------------------------------------------------------------------------------
// The command line.

fn hw_check(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_ptxc"));
    cmd.arg("hw-check").args(args).env_remove("PTXC_LIBCUDA");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run ptxc")
}

/// Arguments, environment, and the reason hw-check must give for finding no GPU.
type NoDriverCase<'a> = (Vec<&'a str>, Vec<(&'a str, &'a str)>, &'a str);

#[test]
fn without_a_driver_it_says_so_and_exits_69() {
    let dir = scratch("hw_check_no_driver");
    let missing = dir.join("nowhere/libcuda.so.1");
    let junk = dir.join("libcuda.so.1");
    std::fs::write(&junk, "not a shared library").unwrap();
    let root = root();
    let root = root.to_str().unwrap();
    let cases: [NoDriverCase; 4] = [
        (vec!["--libcuda", missing.to_str().unwrap()], vec![], "cannot load"),
        (vec!["--libcuda", junk.to_str().unwrap()], vec![], "cannot load"),
        (vec![], vec![("PTXC_LIBCUDA", missing.to_str().unwrap())], "cannot load"),
        // A library that is there but is not a CUDA driver.
        (vec!["--libcuda", "libc.so.6"], vec![], "is not a CUDA driver"),
    ];
    for (args, env, why) in cases {
        let mut all = vec!["--root", root];
        all.extend(args);
        let o = hw_check(&all, &env);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(69), "{all:?}: {err}");
        assert!(err.contains("no GPU") && err.contains(why), "{all:?}: {err}");
        assert!(o.stdout.is_empty(), "{}", text(&o.stdout));
    }
}

#[test]
fn bad_arguments_are_errors_not_the_no_gpu_code() {
    let o = hw_check(&["--sets", "conformance,bogus"], &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("unknown set `bogus`"), "{}", text(&o.stderr));
    let o = hw_check(&["--repeat", "many"], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let o = hw_check(&["--help"], &[]);
    let help = text(&o.stdout);
    assert!(o.status.success());
    for flag in [
        "--libcuda",
        "--ptxas",
        "--out",
        "--sets",
        "--repeat",
        "--kernel-inputs",
        "69",
    ] {
        assert!(help.contains(flag), "{flag} missing from:\n{help}");
    }
}
