//! `ptxc-softfloat`: exact IEEE 754 binary arithmetic on raw bit patterns, the single
//! implementation behind ptxc's MIR interpreter (the reference of differential testing) and
//! its SM simulator.
//!
//! Values are bit patterns in the low bits of a `u64`, interpreted in a [`Format`] (f16,
//! bf16, tf32, f32, f64, or any other binary format up to 64 bits given by its exponent and
//! fraction widths). Every operation forms its exact result (or the result with a sticky bit
//! far below the rounding position) as an integer significand and exponent and rounds it once
//! with a [`Rounding`] mode, so results are correctly rounded in every mode:
//!
//! - [`arith`]: add, sub, mul, fma, div, rcp, sqrt;
//! - [`convert`]: between formats, to and from integers, round to integral, to/from `f64`;
//! - [`nvidia`]: NVIDIA's rules on top of IEEE: flush-to-zero (`.ftz`), the `.ftz` division
//!   rule, min/max, saturation, the integer a NaN converts to;
//! - [`tensor`]: the f16 tensor-core dot product of Turing (HMMA), which is not IEEE
//!   arithmetic: blocks of four exact products aligned without guard bits.
//!
//! NaN results are the format's canonical NaN (all bits below the sign set, e.g.
//! `0x7fffffff` for f32), as NVIDIA hardware produces: IEEE leaves the payload of a NaN
//! result open, and the GPU never propagates an operand's payload.

#![warn(missing_docs)]

pub mod arith;
mod class;
pub mod convert;
pub mod format;
pub mod nvidia;
pub mod round;
pub mod tensor;

pub use arith::{add, div, fma, mul, rcp, sqrt, sub};
pub use convert::{IntType, convert, from_f64, from_int, round_to_integral, to_f64, to_int};
pub use format::{BF16, F16, F32, F64, Format, TF32};
pub use nvidia::{MinMaxMode, canonicalize, convert_ftz, div_ftz, flush, flush_if, max, min, min_max_with, saturate};
pub use round::Rounding;
