//! String tables. ptxas fills `.shstrtab` and `.strtab` in its creation order, including names
//! of sections it later dropped (`.symtab_shndx`, `.nv.shared.<k>`, `.rel.nv.constant0.<k>`,
//! `.rela.debug_frame`, `.nv.prototype`); the canonical lists below reproduce that so that
//! simple modules come out byte-identical to ptxas'. For sm_90 ptxas writes the tables anew
//! in final order ([`final_order_strings`]).

use super::plan::{SectionPlan, SymbolPlan};
use crate::cubin::model::{Binding, CubinModule, ElfFlavour};
use crate::cubin::names::*;
use crate::cubin::notes;
use std::collections::HashMap;

/// A string table under construction: strings in order, looked up by content.
#[derive(Debug, Default)]
pub struct StringTable {
    bytes: Vec<u8>,
    /// Offset and length of each entry, in order.
    entries: Vec<(u32, u32)>,
    /// First offset of each entry's text.
    whole: HashMap<Vec<u8>, u32>,
}

impl StringTable {
    /// A table holding `strings` in order (the first should be "").
    pub fn from_strings<'a>(strings: impl IntoIterator<Item = &'a str>) -> Self {
        let mut table = StringTable::default();
        for s in strings {
            table.push(s);
        }
        if table.bytes.is_empty() {
            table.push("");
        }
        table
    }

    fn push(&mut self, s: &str) -> u32 {
        let offset = self.bytes.len() as u32;
        self.bytes.extend_from_slice(s.as_bytes());
        self.bytes.push(0);
        self.entries.push((offset, s.len() as u32));
        self.whole.entry(s.as_bytes().to_vec()).or_insert(offset);
        offset
    }

    /// The offset of `s`: its first whole occurrence, else the first occurrence as a suffix,
    /// else a new entry at the end.
    pub fn offset_of(&mut self, s: &str) -> u32 {
        if s.is_empty() {
            return 0;
        }
        if let Some(&offset) = self.whole.get(s.as_bytes()) {
            return offset;
        }
        // Not whole anywhere: the first entry that ends with it (entries hold no NULs, so
        // a match of `s` and its terminator ends an entry).
        let suffix = self.entries.iter().find_map(|&(offset, len)| {
            let text = &self.bytes[offset as usize..(offset + len) as usize];
            text.ends_with(s.as_bytes()).then(|| offset + len - s.len() as u32)
        });
        match suffix {
            Some(offset) => offset,
            None => self.push(s),
        }
    }

    /// The table contents.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

/// Which of ptxas' two string tables to list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    /// `.shstrtab`: section names.
    Section,
    /// `.strtab`: section names and symbol names.
    Symbol,
}

/// ptxas' string list for `table`, given the symbols in their final order.
pub fn canonical_strings(m: &CubinModule, symbols: &[SymbolPlan], table: Table) -> Vec<String> {
    let with_symbols = table == Table::Symbol;
    let mut out: Vec<String> = ["", SHSTRTAB, STRTAB, SYMTAB, ".symtab_shndx"]
        .map(String::from)
        .to_vec();
    if m.flavour == ElfFlavour::V8 {
        out.extend([notes::TKINFO, notes::CUINFO].map(String::from));
    }
    out.push(NV_INFO.into());
    let has_symbol = |name: &str| symbols.iter().any(|s| s.name == name);
    for (i, k) in m.kernels.iter().enumerate() {
        if with_symbols && k.binding == Binding::Local {
            out.push(k.name.clone());
        }
        for prefix in [TEXT_PREFIX, INFO_PREFIX, SHARED_PREFIX] {
            out.push(kernel_section(prefix, &k.name));
        }
        if i == 0 {
            out.extend(module_data_names(symbols, with_symbols));
        }
        let bank2 = kernel_section(CONSTANT2_PREFIX, &k.name);
        if has_symbol(&bank2) {
            out.push(bank2);
        }
        if with_symbols {
            let locals = k.functions.iter().filter(|f| f.binding == Binding::Local);
            out.extend(locals.map(|f| f.name.clone()));
        }
        if !k.externs.is_empty() || !k.relocs.is_empty() {
            out.push(reloc_section(&kernel_section(TEXT_PREFIX, &k.name), false));
        }
        let bank0 = [
            kernel_section(CONSTANT0_PREFIX, &k.name),
            reloc_section(&kernel_section(CONSTANT0_PREFIX, &k.name), false),
        ];
        if with_symbols {
            out.extend(bank0.into_iter().rev());
        } else {
            out.extend(bank0);
        }
    }
    if m.kernels.is_empty() {
        out.extend(module_data_names(symbols, with_symbols));
    }
    out.push(DEBUG_FRAME.into());
    out.extend(m.extra_sections.iter().map(|s| s.name.clone()));
    for (target, relocs) in [
        (CONSTANT4, &m.const_bank4_relocs),
        (CONSTANT3, &m.const_bank3_relocs),
        (GLOBAL_INIT, &m.global_init_relocs),
    ] {
        if !relocs.is_empty() {
            out.push(reloc_section(target, false));
        }
    }
    if !m.kernels.is_empty() {
        out.push(reloc_section(DEBUG_FRAME, false));
        out.push(reloc_section(DEBUG_FRAME, true));
    }
    if m.flavour == ElfFlavour::V8 {
        out.push(CALLGRAPH.into());
    }
    out.extend([".nv.prototype", REL_ACTION].map(String::from));
    if with_symbols {
        out.extend(symbols.iter().filter(|s| !s.is_local()).map(|s| s.name.clone()));
    }
    out
}

/// Zero bytes after the last section name of sm_90's `.shstrtab`.
const SHSTRTAB_PADDING: usize = 14;

/// sm_90's string list for `table`: the section names in header order followed by 14 empty
/// strings, or the symbol names in symbol order (nameless symbols included).
pub fn final_order_strings(sections: &[SectionPlan], symbols: &[SymbolPlan], table: Table) -> Vec<String> {
    let names: Vec<String> = match table {
        Table::Section => sections.iter().map(|s| s.name.clone()).collect(),
        Table::Symbol => symbols.iter().map(|s| s.name.clone()).collect(),
    };
    let padding = if table == Table::Section { SHSTRTAB_PADDING } else { 0 };
    std::iter::once(String::new())
        .chain(names)
        .chain(std::iter::repeat_n(String::new(), padding))
        .collect()
}

/// Names of the module data section symbols and, for `.strtab`, local variables, in the
/// order the symbol table has them.
fn module_data_names(symbols: &[SymbolPlan], with_symbols: bool) -> Vec<String> {
    let module_sections = [GLOBAL_INIT, GLOBAL, CONSTANT3, CONSTANT4];
    let is_module_local = |s: &&SymbolPlan| {
        s.is_local()
            && s.section.as_deref().is_some_and(|sec| module_sections.contains(&sec))
            && (s.is_section() || with_symbols)
    };
    symbols.iter().filter(is_module_local).map(|s| s.name.clone()).collect()
}
