//! Analyses over MIR functions.

pub mod calls;
pub mod divergence;
pub mod dom;
pub mod loops;
pub mod postdom;
pub mod spin_loops;
