//! Issue intervals of the execution pipes of one sub-partition (cycles between two warp
//! instructions on the same pipe), from the CUDA programming guide's throughput table for
//! compute capability 7.5 (see `docs/TIMING-SM75.md`, section 5).

use ptxc_sass::isa::Op;
use ptxc_sass::isa::desc::Pipe;

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
        // Per instruction: see `tensor_interval`.
        Pipe::Tensor => 4,
    }
}

/// Cycles a tensor-core instruction occupies the tensor pipe of its sub-partition. Turing
/// has two tensor cores per sub-partition, each doing 64 f16 FMAs per cycle (T4: 320 tensor
/// cores on 40 SMs; 65 TFLOPS f16 at 1.59 GHz is 512 FMAs per SM and cycle), 2x that for
/// 8-bit and 4x for 4-bit integers (130 and 260 TOPS). HMMA.1688 is 1024 FMAs: 8 cycles; an
/// HMMA.884 step is a quarter (f16 result: half) of `mma.m8n8k4`'s 1024 FMAs: 2 (4) cycles;
/// IMMA.8816 (1024 8-bit MACs) and IMMA.8832 (2048 4-bit) 4 cycles; BMMA.88128 (8192 bit
/// operations) is given the IMMA.8832 rate per bit pair, 4 cycles.
pub fn tensor_interval(op: Op, f16_result: bool) -> i64 {
    match op {
        Op::Hmma1688 => 8,
        Op::Hmma884 if f16_result => 4,
        Op::Hmma884 => 2,
        _ => 4,
    }
}
