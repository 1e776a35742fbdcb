//! `ptxc hw-check`: runs the conformance set, the kernel set and the benchmark suite on a real
//! GPU through the CUDA driver API and on the simulator, with ptxc's cubins (and ptxas's when
//! a ptxas is given), compares every output buffer and the measured with the simulated cycles.
//!
//! The passes, one per file: [`gpu`] is the device behind a trait, [`cuda`] its
//! implementation over `libcuda` opened at run time, [`cases`] gathers the kernels and their
//! launch specs, [`check`] compiles and runs them, [`compare`] compares buffers, [`stats`]
//! computes ratio, mean absolute error and Spearman's rank correlation, and [`report`] renders
//! the result as Markdown or JSON.

pub mod cases;
pub mod check;
pub mod compare;
pub mod cuda;
pub mod gpu;
pub mod report;
pub mod stats;

/// Exit code: every output buffer agreed.
pub const EXIT_AGREE: u8 = 0;
/// Exit code: the check could not run (bad input, I/O, a driver failure after start-up).
pub const EXIT_ERROR: u8 = 1;
/// Exit code: the check ran and at least one output buffer differed, or a kernel ran on the
/// simulator but failed on the GPU.
pub const EXIT_DISAGREE: u8 = 3;
/// Exit code: no GPU to check on (no driver library, `cuInit` failed, or no device); the
/// value is sysexits' `EX_UNAVAILABLE`.
pub const EXIT_NO_GPU: u8 = 69;
