//! Measurement helpers of `bench-report`: [`process`] measures a compiler as a whole process,
//! [`module_gen`] builds large modules from real kernels, and [`compare_compilers`] runs ptxc
//! and ptxas alternately on one input.

pub mod module_gen;
pub mod process;

use process::ProcessCost;
use std::ffi::OsStr;
use std::path::Path;

/// Median costs of compiling `ptx` with ptxc and with ptxas (`-arch=sm_75 -O3`), each run
/// `runs` times as a process, alternating between the two so that both see the same machine
/// load. Returns `[ptxc, ptxas]`.
pub fn compare_compilers(
    ptxc: &Path,
    ptxas: &Path,
    ptx: &Path,
    out: &Path,
    runs: usize,
) -> Result<[ProcessCost; 2], String> {
    let ours: [&OsStr; 4] = [
        OsStr::new("compile"),
        ptx.as_os_str(),
        OsStr::new("-o"),
        out.as_os_str(),
    ];
    let theirs: [&OsStr; 5] = [
        OsStr::new("-arch=sm_75"),
        OsStr::new("-O3"),
        ptx.as_os_str(),
        OsStr::new("-o"),
        out.as_os_str(),
    ];
    let (mut a, mut b) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
    for _ in 0..runs.max(1) {
        a.push(process::measure(ptxc, &ours)?);
        b.push(process::measure(ptxas, &theirs)?);
    }
    Ok([ProcessCost::median(&a), ProcessCost::median(&b)])
}
