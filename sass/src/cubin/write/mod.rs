//! The cubin writer: model → plan (sections, symbols) → order (canonical or recorded) →
//! contents that refer to indices → bytes.
//!
//! Sections, in ptxas 13.5's header order, and when they are written:
//!
//! | section | when |
//! |---|---|
//! | `.shstrtab`, `.strtab`, `.symtab` | always |
//! | `.debug_frame` | always (empty without kernels; generated when the module has none) |
//! | extra sections (line tables, ...) | as given |
//! | `.note.nv.tkinfo`, `.note.nv.cuinfo` | V8 |
//! | `.nv.info`, `.nv.info.<k>` | always (records: see `nvinfo.rs`) |
//! | `.nv.callgraph` | V8 |
//! | `.nv.rel.action` | always |
//! | `.rel`/`.rela` + target | for every target with relocations |
//! | `.nv.constant4`, `.nv.constant3` | when the bank is not empty |
//! | `.nv.constant2.<k>` | when the kernel's bank 2 is not empty |
//! | `.nv.constant0.<k>` | every entry (`0x160 + param_size` zero bytes) |
//! | `.text.<k>` | every kernel |
//! | `.nv.global.init` | initialised `.global` variables |
//! | `.nv.shared.<first k>`, `.nv.global`, `.nv.shared.<k>` | static or dynamic shared memory; zero-initialised `.global` variables |
//!
//! V7 differs: no notes or call graph, flags without `SHF_INFO_LINK`, the barrier count in
//! the `.text` flags, `e_version` = toolkit version, 3 program headers instead of 4.
//!
//! sm_90 differs as `family.rs` lists: `.nv.compat` after `.nv.info`, no `.nv.rel.action`,
//! only `.rela` relocation sections (some kept empty), `.nv.shared.reserved.0` after the
//! first kernel's shared memory, the `.nv.constant0.<k>` sections last, string tables in
//! final order, one LOAD segment per run of allocated sections.

mod data;
mod debug_frame;
mod emit;
mod nvinfo;
mod order;
mod plan;
mod resolve;
mod sections;
mod strings;
mod symbols;

use emit::{FinalSection, Header};
use plan::{Body, Info, Link, SectionPlan, SymbolPlan};
use resolve::Resolver;
use strings::{StringTable, Table, canonical_strings, final_order_strings};

use super::error::CubinError;
use super::family::family;
use super::model::{CubinModule, ElfFlavour, ObjectKind};
use super::names::{SHSTRTAB, STRTAB, SYMTAB};

/// `e_type` of loadable cubins.
const ET_EXEC: u16 = 2;
/// V8 `e_flags` bits besides the SM (byte 1): byte 0 = 0x04, byte 3 = 0x06.
const V8_FLAGS: u32 = 0x0600_0004;
/// V8 `e_flags` bits besides the SM when line information (`.debug_line`,
/// `.nv_debug_line_sass`) is present: byte 3 = 0x09, as ptxas writes with `-lineinfo`.
const V8_FLAGS_LINE_INFO: u32 = 0x0900_0004;
/// V7 `e_flags`: `EF_CUDA_TEXMODE_UNIFIED | EF_CUDA_64BIT_ADDRESS` besides SM and virtual SM.
const V7_FLAGS: u32 = 0x500;

/// Writes `m` as a cubin, or says why it cannot.
pub fn try_write(m: &CubinModule) -> Result<Vec<u8>, CubinError> {
    if m.kind != ObjectKind::Executable {
        return Err(CubinError::Write("only ET_EXEC cubins can be written".into()));
    }
    let fam = family(m.sm);
    let mut sections = sections::plan_sections(m);
    check_alignments(&sections)?;
    let mut symbols = symbols::plan_symbols(m, &sections);
    if let Some(hints) = &m.layout {
        order::order_sections(&mut sections, hints);
        order::order_symbols(&mut symbols, hints, fam.locals_first);
    }
    let r = Resolver::new(&sections, &symbols);
    let (strtab, symbol_names) = symbol_strings(m, &sections, &symbols);
    let mut shstrtab = string_table(m, &sections, &symbols, Table::Section);
    let names: Vec<u32> = sections.iter().map(|s| shstrtab.offset_of(&s.name)).collect();
    let symtab = emit::symtab(&symbols, &symbol_names, &r)?;
    let mut tables = Tables {
        shstrtab: Some(shstrtab.into_bytes()),
        strtab: Some(strtab),
        symtab: Some(symtab),
    };
    let finals = sections
        .iter()
        .zip(names)
        .map(|(s, name)| finish_section(m, s, name, &symbols, &r, &mut tables))
        .collect::<Result<Vec<_>, _>>()?;
    let header = Header {
        flavour: m.flavour,
        abi_version: m.abi_version,
        e_type: ET_EXEC,
        version: match m.flavour {
            ElfFlavour::V7 => m.toolkit_version,
            ElfFlavour::V8 => 1,
        },
        flags: elf_flags(m),
        shstrndx: r.section(SHSTRTAB)? as u16,
        segments_by_run: fam.segments_by_run,
        header_table_align: fam.header_table_align,
    };
    Ok(emit::emit(header, &finals))
}

/// Largest section alignment accepted (ptxas uses at most 128).
const MAX_ALIGN: u64 = 1 << 16;

fn check_alignments(sections: &[SectionPlan]) -> Result<(), CubinError> {
    match sections
        .iter()
        .find(|s| s.align > MAX_ALIGN || (s.align != 0 && !s.align.is_power_of_two()))
    {
        Some(s) => Err(CubinError::Write(format!(
            "section {} alignment {} is not a power of two up to {MAX_ALIGN}",
            s.name, s.align
        ))),
        None => Ok(()),
    }
}

fn elf_flags(m: &CubinModule) -> u32 {
    match m.flavour {
        ElfFlavour::V7 => m.sm | V7_FLAGS | (m.virtual_sm << 16),
        ElfFlavour::V8 => {
            let line_info = m
                .extra_sections
                .iter()
                .any(|s| s.name == ".debug_line" || s.name == ".nv_debug_line_sass");
            (if line_info { V8_FLAGS_LINE_INFO } else { V8_FLAGS }) | (m.sm << 8)
        }
    }
}

/// `.strtab` bytes and each symbol's name offset (0 for nameless symbols).
fn symbol_strings(m: &CubinModule, sections: &[SectionPlan], symbols: &[SymbolPlan]) -> (Vec<u8>, Vec<u32>) {
    let mut table = string_table(m, sections, symbols, Table::Symbol);
    let offsets = symbols
        .iter()
        .map(|s| if s.nameless { 0 } else { table.offset_of(&s.name) })
        .collect();
    (table.into_bytes(), offsets)
}

/// The recorded strings of `table`, else the family's canonical ones.
fn string_table(m: &CubinModule, sections: &[SectionPlan], symbols: &[SymbolPlan], table: Table) -> StringTable {
    let recorded = m.layout.as_ref().map(|h| match table {
        Table::Section => h.shstrtab.clone(),
        Table::Symbol => h.strtab.clone(),
    });
    let strings = recorded.unwrap_or_else(|| {
        if family(m.sm).final_order_strings {
            final_order_strings(sections, symbols, table)
        } else {
            canonical_strings(m, symbols, table)
        }
    });
    StringTable::from_strings(strings.iter().map(String::as_str))
}

/// The string and symbol tables, built before the other sections and moved in once.
struct Tables {
    shstrtab: Option<Vec<u8>>,
    strtab: Option<Vec<u8>>,
    symtab: Option<Vec<u8>>,
}

fn finish_section(
    m: &CubinModule,
    s: &SectionPlan,
    name: u32,
    symbols: &[SymbolPlan],
    r: &Resolver,
    tables: &mut Tables,
) -> Result<FinalSection, CubinError> {
    let mut nobits_size = 0;
    let data = match &s.body {
        Body::Bytes(b) => b.clone(),
        Body::NoBits(size) => {
            nobits_size = *size;
            Vec::new()
        }
        Body::Symtab => tables.symtab.take().unwrap_or_default(),
        Body::Strtab => tables.strtab.take().unwrap_or_default(),
        Body::Shstrtab => tables.shstrtab.take().unwrap_or_default(),
        Body::ModuleInfo => nvinfo::module_info(m, r)?,
        Body::KernelInfo(i) => nvinfo::kernel_info(m, &m.kernels[*i], r)?,
        Body::Callgraph => nvinfo::callgraph(m, r)?,
        Body::Compat => crate::cubin::compat::encode(m),
        Body::Relocs(relocs, rela) => emit::relocations(relocs, *rela, r)?,
    };
    Ok(FinalSection {
        name,
        sh_type: s.sh_type,
        flags: s.flags,
        align: s.align,
        entsize: s.entsize,
        link: link_value(&s.link, r)?,
        info: info_value(&s.info, symbols, r, m.flavour == ElfFlavour::V7)?,
        data,
        nobits_size,
    })
}

fn link_value(link: &Link, r: &Resolver) -> Result<u32, CubinError> {
    match link {
        Link::Raw(v) => Ok(*v),
        Link::Symtab => r.section(SYMTAB),
        Link::Strtab => r.section(STRTAB),
        Link::Section(name) => r.section(name),
    }
}

fn info_value(info: &Info, symbols: &[SymbolPlan], r: &Resolver, v7: bool) -> Result<u32, CubinError> {
    match info {
        Info::Raw(v) => Ok(*v),
        Info::Section(name) => r.section(name),
        Info::Text { reg_count, kernel } => Ok((reg_count << 24) | r.symbol(kernel)?),
        Info::FirstGlobal => {
            let last_local = symbols
                .iter()
                .rposition(SymbolPlan::is_local)
                .map_or(0, |i| i as u32 + 1);
            // CUDA 11 (V7) stored the index of the last local symbol, ptxas 13 (V8) that index
            // + 1: the first global one, as the ELF specification says, where locals come
            // first (sm_90 puts local section symbols last).
            Ok(if v7 { last_local } else { last_local + 1 })
        }
    }
}
