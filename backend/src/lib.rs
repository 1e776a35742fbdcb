//! ptxc's sm_75 back end: instruction selection, register allocation, scheduling and
//! control codes, encoding through the ISA description, cubin writing, and the SASS listing
//! of a cubin ([`disasm`]).

pub mod compile;
pub mod cubin;
pub mod disasm;
pub mod emit;
pub mod isa;
pub mod isel;
pub mod legalize;
pub mod lines;
pub mod regalloc;
pub mod sched;
pub mod vars;
pub mod vcode;
