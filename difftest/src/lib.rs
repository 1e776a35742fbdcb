//! Differential testing of ptxc (issue 12). [`generator`] writes random, valid, terminating PTX
//! kernels with their inputs ([`program`] is their shape, [`inputs`] the input buffers);
//! [`engines`] runs each on the MIR interpreter, on ptxc's cubin and on ptxas's cubin (both on
//! the timed simulator); [`compare`] classifies the disagreements by which pair differs, and
//! [`known`] lists the accepted semantic differences and the open issues that explain
//! mismatches; [`check`] puts one run together; [`campaign`] checks many programs ([`batch`]: many kernels to a ptxas process); [`shrink`]
//! reduces a failing program while the same mismatch persists and [`case`] writes it as a
//! regression case, which [`regress`] checks; [`results`] keeps a campaign's verdicts on disk and
//! [`recheck`] checks a results file's unexplained programs again with a newer build. [`rng`] is the seeded generator behind it all.

#![warn(missing_docs)]

pub mod batch;
pub mod campaign;
pub mod case;
pub mod check;
pub mod classify;
pub mod compare;
pub mod engines;
pub mod generator;
pub mod inputs;
pub mod known;
pub mod program;
pub mod recheck;
pub mod regress;
pub mod report;
pub mod results;
pub mod rng;
pub mod shrink;
pub mod slice;
