//! `ptxc disasm`: a listing of every kernel of a cubin in nvdisasm's instruction syntax,
//! with control codes and labels at branch targets. The listing is the machine layer's
//! ([`ptxc_sass::disasm`]), which the back end's golden tests also use.

pub use ptxc_sass::disasm::{disassemble, disassemble_kernel};
