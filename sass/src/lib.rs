//! The SASS machine layer shared by ptxc's compiler and simulator: one typed description of
//! each architecture's instruction set ([`isa`]) driving the encoder, the decoder, the
//! disassembler, the register-access and timing metadata and the control codes; and the
//! cubin (CUDA ELF) reader and writer ([`cubin`]). It knows nothing of PTX or of compilation.
#![warn(missing_docs)]

pub mod cubin;
pub mod isa;
