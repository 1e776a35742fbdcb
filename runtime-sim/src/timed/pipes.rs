//! Issue intervals of the execution pipes of one sub-partition (cycles between two warp
//! instructions on the same pipe), from the CUDA programming guide's throughput table for
//! compute capability 7.5 (see `docs/TIMING-SM75.md`, section 5).

use ptxc_sass::isa::desc::Pipe;

/// Pipes tracked per sub-partition.
pub const PIPES: usize = 9;

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
    }
}

/// Cycles a warp instruction occupies its pipe: 16 lanes per SMSP for FP32/INT/FP16x2 (2),
/// 0.5 lanes for FP64 on Turing (64; a device's own rate is `Config::fp64_interval`), 4 lanes for MUFU and conversions (8), memory ops
/// about every 4 cycles.
pub fn interval(p: Pipe) -> i64 {
    match p {
        Pipe::Alu | Pipe::Fma | Pipe::Fp16 | Pipe::Branch => 2,
        Pipe::Fp64 => 64,
        Pipe::Mufu | Pipe::Conv => 8,
        Pipe::Lsu => 4,
        Pipe::Uniform | Pipe::Misc => 1,
    }
}
