//! Reading module data: constant banks 3 and 4, module variables, undefined symbols,
//! `.debug_frame` and the sections kept verbatim.

use super::elf::{ElfView, Section, Symbol};
use super::kernel::binding;
use crate::cubin::compat::COMPAT;
use crate::cubin::error::CubinError;
use crate::cubin::family::family;
use crate::cubin::model::{CubinModule, ExternSymbol, GlobalSpace, GlobalVar, RawSection, SymbolKind};
use crate::cubin::names::*;
use crate::cubin::notes;

const STT_NOTYPE: u8 = 0;
const STT_OBJECT: u8 = 1;
const STT_FUNC: u8 = 2;
/// Object symbol type of relocatable cubins.
const STT_CUDA_OBJECT: u8 = 13;
const SHT_RELA: u32 = 4;
const SHT_REL: u32 = 9;

/// Fills the module-level fields of `m` (not relocations).
pub fn read_module_data(elf: &ElfView<'_>, m: &mut CubinModule) -> Result<(), CubinError> {
    if let Some(s) = elf.section_named(CONSTANT3) {
        m.const_bank3 = s.data.to_vec();
    }
    if let Some(s) = elf.section_named(CONSTANT4) {
        m.const_bank4 = s.data.to_vec();
    }
    let reserved_smem = family(m.sm).reserved_smem;
    for (index, sym) in elf.symbols.iter().enumerate().skip(1) {
        if sym.shndx == 0 && reserved_smem && is_reserved_symbol(&sym.name) {
            continue;
        }
        if sym.shndx == 0 {
            m.externs.push(extern_symbol(sym));
        } else if matches!(sym.kind(), STT_OBJECT | STT_CUDA_OBJECT)
            && let Some(var) = variable(elf, index, sym)?
        {
            m.globals.push(var);
        }
    }
    if let Some(s) = elf.section_named(DEBUG_FRAME) {
        m.debug_frame = Some(raw_section(s));
    }
    m.extra_sections = elf
        .sections
        .iter()
        .skip(1)
        .filter(|s| !is_modelled(s))
        .map(raw_section)
        .collect();
    Ok(())
}

/// sm_90's undefined reserved shared-memory symbols, which the writer makes itself.
fn is_reserved_symbol(name: &str) -> bool {
    name == RESERVED_SMEM_OFFSET || name == RESERVED_SMEM_CAP
}

fn extern_symbol(sym: &Symbol) -> ExternSymbol {
    ExternSymbol {
        name: sym.name.clone(),
        kind: match sym.kind() {
            STT_NOTYPE => SymbolKind::NoType,
            STT_OBJECT => SymbolKind::Object,
            STT_FUNC => SymbolKind::Function,
            other => SymbolKind::Other(other),
        },
        binding: binding(sym.bind()),
    }
}

/// The variable defined by object symbol `sym`, if it lives in a module data section.
fn variable(elf: &ElfView<'_>, index: usize, sym: &Symbol) -> Result<Option<GlobalVar>, CubinError> {
    let Some(section) = elf.sections.get(sym.shndx) else {
        return Err(CubinError::symbol(
            &sym.name,
            format!("section index {} does not exist", sym.shndx),
        ));
    };
    let space = match section.name.as_str() {
        GLOBAL | GLOBAL_INIT => GlobalSpace::Global,
        CONSTANT3 => GlobalSpace::Const,
        _ => return Ok(None),
    };
    let end = sym.value.checked_add(sym.size);
    if end.is_none_or(|end| end > section.size) {
        return Err(CubinError::symbol(
            format!("{} (#{index})", sym.name),
            format!(
                "[{:#x}, +{:#x}) lies outside {} ({:#x} bytes)",
                sym.value, sym.size, section.name, section.size
            ),
        ));
    }
    let init = (section.name == GLOBAL_INIT).then(|| {
        let (start, end) = (sym.value as usize, (sym.value + sym.size) as usize);
        section.data.get(start..end).unwrap_or_default().to_vec()
    });
    Ok(Some(GlobalVar {
        name: sym.name.clone(),
        space,
        offset: sym.value,
        size: sym.size,
        align: inferred_align(sym.value, section.align),
        init,
        binding: binding(sym.bind()),
    }))
}

/// The largest power of two dividing `offset`, at most `section_align`.
fn inferred_align(offset: u64, section_align: u64) -> u32 {
    let cap = section_align.clamp(1, 1 << 31);
    let natural = if offset == 0 {
        cap
    } else {
        1 << offset.trailing_zeros().min(31)
    };
    natural.min(cap) as u32
}

fn raw_section(s: &Section<'_>) -> RawSection {
    RawSection {
        name: s.name.clone(),
        sh_type: s.sh_type,
        flags: s.flags,
        align: s.align,
        link: s.link,
        info: s.info,
        entsize: s.entsize,
        data: s.data.to_vec(),
        relocs: Vec::new(),
    }
}

/// Whether the model has fields for section `s` (everything else is kept verbatim).
fn is_modelled(s: &Section<'_>) -> bool {
    const NAMES: [&str; 13] = [
        SHSTRTAB,
        STRTAB,
        SYMTAB,
        DEBUG_FRAME,
        notes::TKINFO,
        notes::CUINFO,
        NV_INFO,
        COMPAT,
        CALLGRAPH,
        REL_ACTION,
        CONSTANT3,
        CONSTANT4,
        GLOBAL_INIT,
    ];
    const PREFIXES: [&str; 5] = [
        TEXT_PREFIX,
        INFO_PREFIX,
        CONSTANT0_PREFIX,
        CONSTANT2_PREFIX,
        SHARED_PREFIX,
    ];
    NAMES.contains(&s.name.as_str())
        || s.name == GLOBAL
        || PREFIXES.iter().any(|p| s.name.starts_with(p))
        || s.sh_type == SHT_REL
        || s.sh_type == SHT_RELA
}
