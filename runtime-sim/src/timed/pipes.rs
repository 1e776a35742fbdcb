//! The execution pipes of one sub-partition and their issue intervals (cycles between two
//! warp instructions on the same pipe; the table is the ISA description's, which the
//! compiler's scheduler reads too: `ptxc_sass::isa::timing::issue_interval`).

use ptxc_sass::isa::desc::Pipe;
pub use ptxc_sass::isa::timing::{issue_interval as interval, tensor_issue_interval as tensor_interval};

/// Pipes tracked per sub-partition.
pub const PIPES: usize = 10;

/// Index of a pipe.
pub fn index(p: Pipe) -> usize {
    match p {
        Pipe::Alu => 0,
        Pipe::Fma => 1,
        Pipe::Fp64 => 2,
        Pipe::Fp16 => 3,
        // Conversions run on the special-function unit (same throughput, in order with MUFU).
        Pipe::Mufu | Pipe::Conv => 4,
        Pipe::Lsu => 5,
        Pipe::Branch => 6,
        Pipe::Uniform => 7,
        Pipe::Misc => 8,
        Pipe::Tensor => 9,
    }
}
