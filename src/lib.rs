//! ptxc as a library: the stages behind the `ptxc` command. [`pipeline`] compiles PTX to a
//! cubin, [`disasm`] lists a cubin's SASS, [`run`] executes a [`launch`] spec on the
//! simulator, [`lineinfo`] gathers the PTX lines for line tables, [`sched_report`] compares
//! scheduling heuristics on it, [`hwcheck`] checks compiler and simulator against a real GPU,
//! [`npy`] reads and writes the buffers, [`memory`] gives freed memory back to the system,
//! [`ptxas`] is the ptxas-compatible command line, and [`bench`] measures compilers as whole
//! processes for `bench-report`.
//!
//! Programs built on this library use the system allocator. mimalloc was measured against
//! it on the compile path: about 10% less CPU time on the 1 MB corpus file, but 85-100 MiB
//! of peak resident memory there instead of 61 MiB (it keeps freed pages of one size class
//! from the others; purging them sooner costs more CPU than it saves), and on small kernels
//! more page faults (440 against 290 for `saxpy_f32`) and no less CPU time.

pub mod bench;
pub mod disasm;
pub mod hwcheck;
pub mod launch;
pub mod lineinfo;
pub mod memory;
pub mod npy;
pub mod pipeline;
pub mod ptxas;
pub mod run;
pub mod sched_report;
