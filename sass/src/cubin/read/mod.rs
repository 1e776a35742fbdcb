//! The cubin reader: ELF view → kernels → module data → relocations → sm_90's resolved
//! relocations → layout hints.

mod data;
mod elf;
mod kernel;
mod nvinfo;
mod relocs;
mod resolved;

use elf::ElfView;

use super::compat;
use super::error::CubinError;
use super::family::family;
use super::model::{CubinModule, ElfFlavour, LayoutHints};
use super::names::*;
use super::notes;

/// Reads a cubin of either flavour, `ET_EXEC` or `ET_REL`.
pub fn read(bytes: &[u8]) -> Result<CubinModule, CubinError> {
    let elf = ElfView::parse(bytes)?;
    let mut m = CubinModule::new(sm_of(&elf));
    m.flavour = elf.flavour;
    m.kind = elf.kind;
    m.abi_version = elf.abi_version;
    m.reloc_actions.clear();
    read_notes(&elf, &mut m)?;
    for text in elf.sections.iter().filter(|s| s.name.starts_with(TEXT_PREFIX)) {
        m.kernels.push(kernel::read_kernel(&elf, text, m.sm)?);
    }
    if let Some(info) = elf.section_named(NV_INFO) {
        nvinfo::apply_module_info(&elf, info, &mut m)?;
    }
    data::read_module_data(&elf, &mut m)?;
    relocs::read_relocations(&elf, &mut m)?;
    if family(m.sm).reserved_smem {
        resolved::read_resolved(&elf, &mut m);
    }
    m.layout = Some(layout_hints(&elf));
    Ok(m)
}

/// The SM from `e_flags`: byte 1 in V8, byte 0 in V7.
fn sm_of(elf: &ElfView<'_>) -> u32 {
    match elf.flavour {
        ElfFlavour::V8 => (elf.flags >> 8) & 0xff,
        ElfFlavour::V7 => elf.flags & 0xff,
    }
}

fn read_notes(elf: &ElfView<'_>, m: &mut CubinModule) -> Result<(), CubinError> {
    if elf.flavour == ElfFlavour::V7 {
        m.toolkit_version = elf.version;
        m.virtual_sm = (elf.flags >> 16) & 0xff;
    }
    if let Some(s) = elf.section_named(notes::TKINFO) {
        m.tool = notes::decode_tkinfo(s.data)?;
    }
    if let Some(s) = elf.section_named(notes::CUINFO) {
        (m.virtual_sm, m.toolkit_version) = notes::decode_cuinfo(s.data)?;
    }
    if let Some(s) = elf.section_named(REL_ACTION) {
        m.reloc_actions = s.data.to_vec();
    }
    if let Some(s) = elf.section_named(compat::COMPAT) {
        compat::decode(s.data, m)?;
    }
    Ok(())
}

fn layout_hints(elf: &ElfView<'_>) -> LayoutHints {
    let strings = |name: &str| {
        elf.section_named(name).map_or_else(Vec::new, |s| {
            let mut list: Vec<String> = s
                .data
                .split(|&b| b == 0)
                .map(|b| String::from_utf8_lossy(b).into_owned())
                .collect();
            if s.data.last() == Some(&0) {
                list.pop();
            }
            list
        })
    };
    LayoutHints {
        section_order: elf.sections.iter().skip(1).map(|s| s.name.clone()).collect(),
        symbol_order: elf.symbols.iter().skip(1).map(|s| s.name.clone()).collect(),
        shstrtab: strings(SHSTRTAB),
        strtab: strings(STRTAB),
    }
}
