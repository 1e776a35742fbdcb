//! The MIR proper: entities, types, instructions, functions, text form and verifier.

pub mod driver;
pub mod entities;
pub mod function;
pub mod inst;
pub mod mma;
pub mod opcode;
pub mod parse;
pub mod print;
pub mod redux;
pub mod srcloc;
pub mod types;
pub mod typing;
pub mod verify;

pub use driver::{DRIVER_FNS, DriverFn, DriverSig};
pub use entities::{Block, Inst, Value};
pub use function::{BlockData, Function, KernelParam, Linkage, MemVar, Module, ValueData, ValueDef};
pub use inst::*;
pub use srcloc::SrcLoc;
pub use types::Type;
pub use verify::{VerifyError, verify};
