//! `ptxc disasm`: a listing of every kernel of a cubin in nvdisasm's instruction syntax,
//! with control codes and labels at branch targets. The listing is the back end's
//! ([`ptxc_backend::disasm`]), which its golden tests also use.

pub use ptxc_backend::disasm::{disassemble, disassemble_kernel};
