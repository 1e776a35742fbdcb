//! Cubin (CUDA ELF) reading and writing for sm_75 to sm_90.
//!
//! [`read()`] turns a cubin written by ptxas (either ELF flavour, `ET_EXEC` or `ET_REL`) or by
//! [`write()`] into a [`CubinModule`]; [`write()`] turns a module into a loadable (`ET_EXEC`)
//! cubin with the sections, flags, alignments, symbols, program headers and `.nv.info`
//! attributes ptxas 13.5 writes for the same kernels. A module read from a file keeps the
//! file's section, symbol and string order ([`LayoutHints`]), so writing it back in the same
//! flavour reproduces the file. What differs between architectures (sm_90's parameter base,
//! reserved shared memory, `.nv.compat`, record order, RELA relocations, ...) is data in
//! `family.rs`.
//!
//! Format facts: `docs/CUBIN.md`.
#![warn(missing_docs)]

mod compat;
mod eiattr;
mod error;
mod family;
mod lines;
mod model;
mod names;
mod notes;
mod read;
mod reloc;
mod text;
mod write;

pub use eiattr::{EIATTRS, EiAttr, Format, eiattr, eiattr_name};
pub use error::CubinError;
pub use lines::{LineFile, LineRow, LineSequence, line_section};
pub use model::{
    Binding, CompatInfo, CubinModule, DEFAULT_TOOLKIT_VERSION, DeviceFunction, ElfFlavour, ExternSymbol, GlobalSpace,
    GlobalVar, KernelImage, KernelParam, LayoutHints, NvInfoAttr, ObjectKind, PARAM_BASE, PTXAS_RELOC_ACTIONS,
    RawSection, SymbolKind, ToolInfo, param_base, reserved_shared,
};
pub use reloc::{CodeReloc, Reloc, RelocKind};
pub use text::{
    BRA_SELF, BRA_SELF_SM90, EXTRA_REGISTERS, MIN_REGISTER_COUNT, NOP, TEXT_ALIGN, bra_self, pad_text, pad_text_for,
    register_count,
};
pub use write::try_write;

/// Reads a cubin. Malformed or truncated input gives a [`CubinError`] naming the problem and
/// where it is; no input makes it panic.
pub fn read(bytes: &[u8]) -> Result<CubinModule, CubinError> {
    read::read(bytes)
}

/// Writes `m` as an `ET_EXEC` cubin in `m.flavour`.
///
/// # Panics
///
/// If the module is inconsistent (a relocation, extern or attribute names a symbol the module
/// does not define, or `m.kind` is `Relocatable`); [`try_write`] reports these as errors.
pub fn write(m: &CubinModule) -> Vec<u8> {
    match try_write(m) {
        Ok(bytes) => bytes,
        Err(e) => panic!("{e}"),
    }
}
