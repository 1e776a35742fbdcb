//! Differential testing of ptxc. [`generator`] writes random valid, terminating PTX kernels with
//! their inputs; [`engines`] runs each on the MIR interpreter, on ptxc's cubin and on ptxas's
//! cubin (both on the timed simulator); [`compare`] classifies the disagreements by which
//! pair differs; [`shrink`] reduces a failing kernel while the same disagreement persists and
//! [`case`] writes it as a regression case (PTX, launch spec, input).

pub mod campaign;
pub mod case;
pub mod check;
pub mod compare;
pub mod engines;
pub mod generator;
pub mod inputs;
pub mod known;
pub mod program;
pub mod rng;
pub mod shrink;
