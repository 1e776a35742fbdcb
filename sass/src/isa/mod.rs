//! The sm_75 instruction-set description and everything driven by it: the bit-field
//! language ([`desc`], [`build`]), the table itself ([`sm75`]), and the [`encode`](mod@encode)r,
//! [`decode`](mod@decode)r and disassembly [`text`] that read it. Control codes live in [`control`].
#![warn(missing_docs)]

pub mod access;
pub mod arch;
pub mod bits;
pub mod build;
pub mod control;
pub mod decode;
pub mod desc;
pub mod encode;
pub mod floatfmt;
pub mod inst;
pub mod make;
pub mod modifier;
pub mod sm75;
pub mod sm80;
pub mod sm90;
pub mod table;
pub mod text;
pub mod timing;
pub mod uniform_timing;
pub mod values;

pub use arch::Arch;
pub use control::Control;
pub use decode::{DecodeError, decode, decode_all, matching_forms};
pub use desc::{Form, Op, Role};
pub use encode::{EncodeError, encode};
pub use inst::{FormId, Inst, Operand, PT, RZ, URZ, Value};
pub use modifier::{Mod, ModSet, ModValue};
pub use table::{NotDescribed, arch_view, isa};
