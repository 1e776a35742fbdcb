//! ptxc's code generator: legalization, instruction selection, register allocation,
//! scheduling and control codes, emitting instructions of the SASS machine layer
//! (`ptxc-sass`), which encodes them and writes the cubin.

pub mod attrs;
pub mod compile;
pub mod emit;
pub mod isel;
pub mod largest_first;
pub mod legalize;
pub mod lines;
pub mod link;
pub mod regalloc;
pub mod sched;
pub mod uniform;
pub mod vars;
pub mod vcode;
