//! Analyses over MIR functions.

pub mod dom;
