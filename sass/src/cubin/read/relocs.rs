//! Reading relocation sections and attaching each entry, with its symbol resolved to a name,
//! to the model field of the section it patches.

use super::elf::{ElfView, RawReloc};
use crate::cubin::error::CubinError;
use crate::cubin::model::CubinModule;
use crate::cubin::names::*;
use crate::cubin::reloc::{Reloc, RelocKind};

/// Attaches every relocation of the file to `m`.
pub fn read_relocations(elf: &ElfView<'_>, m: &mut CubinModule) -> Result<(), CubinError> {
    let texts: Vec<usize> = elf
        .sections
        .iter()
        .filter(|s| s.name.starts_with(TEXT_PREFIX))
        .map(|s| s.index)
        .collect();
    for (section, raw) in elf.relocation_sections()? {
        let target = elf
            .sections
            .get(section.info as usize)
            .filter(|t| t.index != 0)
            .ok_or_else(|| CubinError::at(&section.name, 0, format!("sh_info {} names no section", section.info)))?;
        let relocs = resolve(elf, &section.name, &raw)?;
        let slot = destination(m, &texts, elf, target.index, &target.name).ok_or_else(|| {
            CubinError::at(
                &section.name,
                0,
                format!("relocations against {} are not supported", target.name),
            )
        })?;
        slot.extend(relocs);
    }
    Ok(())
}

fn resolve(elf: &ElfView<'_>, section: &str, raw: &[RawReloc]) -> Result<Vec<Reloc>, CubinError> {
    raw.iter()
        .map(|r| {
            Ok(Reloc {
                offset: r.offset,
                kind: RelocKind(r.kind),
                symbol: match r.symbol {
                    0 => String::new(),
                    index => elf.symbol(index, section)?.name.clone(),
                },
                addend: r.addend,
            })
        })
        .collect()
}

/// The model list that holds relocations against section `target`.
fn destination<'m>(
    m: &'m mut CubinModule,
    texts: &[usize],
    elf: &ElfView<'_>,
    target_index: usize,
    target: &str,
) -> Option<&'m mut Vec<Reloc>> {
    if let Some(k) = texts.iter().position(|&t| t == target_index) {
        return m.kernels.get_mut(k).map(|k| &mut k.relocs);
    }
    let owner = |prefix: &str| {
        let attached = elf.sections.get(target_index).map(|s| s.info as usize)?;
        texts
            .iter()
            .position(|&t| t == attached)
            .filter(|_| target.starts_with(prefix))
    };
    if let Some(k) = owner(CONSTANT0_PREFIX) {
        return m.kernels.get_mut(k).map(|k| &mut k.const_bank0_relocs);
    }
    if let Some(k) = owner(CONSTANT2_PREFIX) {
        return m.kernels.get_mut(k).map(|k| &mut k.const_bank2_relocs);
    }
    match target {
        CONSTANT3 => Some(&mut m.const_bank3_relocs),
        CONSTANT4 => Some(&mut m.const_bank4_relocs),
        GLOBAL_INIT => Some(&mut m.global_init_relocs),
        DEBUG_FRAME => m.debug_frame.as_mut().map(|f| &mut f.relocs),
        _ => m
            .extra_sections
            .iter_mut()
            .find(|s| s.name == target)
            .map(|s| &mut s.relocs),
    }
}
