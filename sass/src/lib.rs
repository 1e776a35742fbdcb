//! The SASS machine layer shared by ptxc's compiler and simulator: one typed description of
//! each architecture's instruction set ([`isa`]) driving the encoder, the decoder, the
//! disassembler, the register-access and timing metadata and the control codes; the cubin
//! (CUDA ELF) reader and writer ([`cubin`]); and the listing of a cubin's code ([`disasm`]).
//! It knows nothing of PTX or of compilation.
#![warn(missing_docs)]

pub mod cubin;
pub mod disasm;
pub mod isa;
