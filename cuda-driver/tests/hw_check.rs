//! `ptxc hw-check` end to end with no GPU: the check opens this crate's libcuda.so.1 as if it
//! were NVIDIA's driver (the library runs every kernel on the simulator, and its events tell
//! simulated time at the model's clock), so every output must agree with the check's own
//! simulator run and the measured cycles must match the simulated ones.

use ptxc::hwcheck::cases::Set;
use ptxc::hwcheck::check::{CheckOptions, check};
use ptxc::hwcheck::cuda::CudaGpu;
use ptxc::hwcheck::gpu::Gpu;
use ptxc::hwcheck::report::{Outcome, Report};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The library is one simulated device per process, and its events read one device clock:
/// a kernel launched by another test thread between a check's two events would count as
/// the checked kernel's time. The checks take turns.
static DEVICE: Mutex<()> = Mutex::new(());

/// `libcuda.so.1` as `cargo test` leaves it: in the profile's `deps` folder, else the
/// profile's folder (see `clients.rs`).
fn libcuda() -> PathBuf {
    let dir = Path::new(env!("CARGO_BIN_EXE_ptxc-ptxas")).parent().expect("a folder");
    [dir.join("deps"), dir.to_path_buf()]
        .into_iter()
        .map(|d| d.join("libcuda.so.1"))
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("no libcuda.so.1 in {} or its deps folder", dir.display()))
}

/// Runs the check on the library's simulated T4.
fn check_on_library(tag: &str, sets: Vec<Set>, filter: Option<&str>) -> Report {
    let _turn = DEVICE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut gpu = CudaGpu::open(libcuda().to_str().unwrap(), 0).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(gpu.info().sm, 75, "{:?}", gpu.info());
    assert!(gpu.info().clock_khz > 0);
    let opts = CheckOptions {
        root: ptxc_testkit::repo_root(),
        work: Path::new(env!("CARGO_TARGET_TMPDIR")).join("cuda-driver").join(tag),
        sets,
        ptxas: None,
        kernel_inputs: None,
        repeat: 2,
        model: Some("t4".into()),
        filter: filter.map(String::from),
    };
    let report = check(&mut gpu, &opts, &mut |_| {}).unwrap();
    print!("{}", report.summary());
    for r in report.rows.iter().filter(|r| r.outcome != Outcome::Agree) {
        println!("  {}", r.line());
    }
    report
}

/// No output differs, and the cycles measured through the driver's events are the
/// simulated ones (within the f32 milliseconds the events report).
fn assert_agrees(report: &Report, at_least: usize) {
    assert!(!report.disagrees(), "{}", report.to_markdown());
    let agree = report.rows.iter().filter(|r| r.outcome == Outcome::Agree).count();
    assert!(agree >= at_least, "only {agree} kernels agree");
    for r in report.rows.iter().filter(|r| r.outcome == Outcome::Agree) {
        let (g, s) = (r.gpu_cycles.unwrap(), r.sim_cycles.unwrap());
        assert!(
            (g - s).abs() <= 1e-3 * s + 2.0,
            "{}: measured {g}, simulated {s}",
            r.kernel
        );
    }
    let a = &report.cycles[0].agreement;
    assert!((a.ratio_geomean.unwrap() - 1.0).abs() < 1e-2, "{a:?}");
    assert!(a.spearman.unwrap() > 0.99, "{a:?}");
}

#[test]
fn hw_check_on_the_simulated_driver_agrees_on_the_conformance_set() {
    let report = check_on_library("hw_check_conformance", vec![Set::Conformance], None);
    assert_eq!(report.rows.len(), 158);
    assert_agrees(&report, 140);
}

#[test]
fn hw_check_on_the_simulated_driver_agrees_on_suite_kernels() {
    let report = check_on_library("hw_check_suite", vec![Set::Suite], Some("s"));
    assert_agrees(&report, 5);
}
