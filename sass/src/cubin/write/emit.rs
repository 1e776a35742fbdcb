//! File layout and bytes: ELF header, section data in header order (each at its alignment),
//! the section header table (8-aligned), then the program headers, as ptxas lays them out.
//!
//! The bytes are produced with the `object` crate's ELF record types (`FileHeader64`,
//! `SectionHeader64`, `ProgramHeader64`, `Sym64`, `Rel64`, `Rela64`). Its
//! `write::elf::Writer` is not used: its string tables sort and merge strings, which cannot
//! reproduce ptxas' tables, and it cannot place program headers after the section headers.

use object::elf::{
    self, FileHeader64, Ident, ProgramHeader64, Rel64, Rela64, SectionHeader64, Sym64, SymbolInfo, SymbolOther,
    SymbolSection,
};
use object::endian::{I64, LittleEndian as LE, U16, U32, U64};
use object::pod::bytes_of;

use super::plan::SymbolPlan;
use super::resolve::Resolver;
use crate::cubin::error::CubinError;
use crate::cubin::model::ElfFlavour;
use crate::cubin::reloc::Reloc;

const SHT_NOBITS: u32 = 8;
const SHF_WRITE: u64 = 0x1;
const SHF_ALLOC: u64 = 0x2;
const SHF_EXECINSTR: u64 = 0x4;
const PT_LOAD: u32 = 1;
const PT_PHDR: u32 = 6;
const PF_X: u32 = 0x1;
const PF_W: u32 = 0x2;
const PF_R: u32 = 0x4;
const PF_RX: u32 = PF_R | PF_X;
const PF_RW: u32 = PF_R | PF_W;
const EHDR_SIZE: u64 = 64;
const SHDR_SIZE: u64 = 64;
const PHDR_SIZE: u64 = 56;

/// A section with its final contents and header fields.
#[derive(Debug, Clone)]
pub struct FinalSection {
    /// `sh_name` offset.
    pub name: u32,
    /// `sh_type`.
    pub sh_type: u32,
    /// `sh_flags`.
    pub flags: u64,
    /// `sh_addralign`.
    pub align: u64,
    /// `sh_entsize`.
    pub entsize: u64,
    /// `sh_link`.
    pub link: u32,
    /// `sh_info`.
    pub info: u32,
    /// Contents (empty for NOBITS).
    pub data: Vec<u8>,
    /// `sh_size` of NOBITS sections.
    pub nobits_size: u64,
}

impl FinalSection {
    fn size(&self) -> u64 {
        if self.sh_type == SHT_NOBITS {
            self.nobits_size
        } else {
            self.data.len() as u64
        }
    }
}

/// ELF header values that are not derived from the sections.
#[derive(Debug, Clone, Copy)]
pub struct Header {
    /// V7 or V8 identification.
    pub flavour: ElfFlavour,
    /// `EI_ABIVERSION` if not the flavour's usual one.
    pub abi_version: Option<u8>,
    /// `e_type`.
    pub e_type: u16,
    /// `e_version`.
    pub version: u32,
    /// `e_flags`.
    pub flags: u32,
    /// `e_shstrndx`.
    pub shstrndx: u16,
    /// sm_90's program headers: one LOAD per run of allocated sections with equal
    /// permissions (see [`run_program_headers`]).
    pub segments_by_run: bool,
    /// Alignment of the section header table.
    pub header_table_align: u64,
}

/// Serialises the file.
pub fn emit(header: Header, sections: &[FinalSection]) -> Vec<u8> {
    let offsets = section_offsets(sections);
    let end = sections
        .iter()
        .zip(&offsets)
        .map(|(s, &o)| if s.sh_type == SHT_NOBITS { o } else { o + s.size() })
        .fold(EHDR_SIZE, u64::max);
    let shoff = end.next_multiple_of(header.header_table_align);
    let phoff = shoff + SHDR_SIZE * (sections.len() as u64 + 1);
    let phdrs = match (header.e_type == elf::ET_EXEC.0, header.segments_by_run) {
        (false, _) => Vec::new(),
        (true, false) => program_headers(header.flavour, sections, &offsets, phoff),
        (true, true) => run_program_headers(sections, &offsets, phoff),
    };
    let mut out = Vec::with_capacity((phoff + PHDR_SIZE * phdrs.len() as u64) as usize);
    out.extend_from_slice(bytes_of(&file_header(header, sections.len(), shoff, &phdrs, phoff)));
    for (s, &offset) in sections.iter().zip(&offsets) {
        if s.sh_type != SHT_NOBITS {
            out.resize(offset as usize, 0);
            out.extend_from_slice(&s.data);
        }
    }
    out.resize(shoff as usize, 0);
    out.extend_from_slice(bytes_of(&section_header(None, 0)));
    for (s, &offset) in sections.iter().zip(&offsets) {
        out.extend_from_slice(bytes_of(&section_header(Some(s), offset)));
    }
    for p in &phdrs {
        out.extend_from_slice(bytes_of(p));
    }
    out
}

/// File offset of every section: each aligned, NOBITS taking no space.
fn section_offsets(sections: &[FinalSection]) -> Vec<u64> {
    let mut pos = EHDR_SIZE;
    sections
        .iter()
        .map(|s| {
            pos = pos.next_multiple_of(s.align.max(1));
            let offset = pos;
            if s.sh_type != SHT_NOBITS {
                pos += s.size();
            }
            offset
        })
        .collect()
}

fn file_header(h: Header, nsections: usize, shoff: u64, phdrs: &[ProgramHeader64<LE>], phoff: u64) -> FileHeader64<LE> {
    let (os_abi, usual_abi_version) = match h.flavour {
        ElfFlavour::V7 => (0x33, 7),
        ElfFlavour::V8 => (0x41, 8),
    };
    let abi_version = h.abi_version.unwrap_or(usual_abi_version);
    FileHeader64 {
        e_ident: Ident {
            magic: elf::ELFMAG,
            class: elf::ELFCLASS64,
            data: elf::ELFDATA2LSB,
            version: elf::EV_CURRENT,
            os_abi: elf::OsAbi(os_abi),
            abi_version,
            padding: [0; 7],
        },
        e_type: U16::new(LE, elf::FileType(h.e_type)),
        e_machine: U16::new(LE, elf::EM_CUDA),
        e_version: U32::new(LE, h.version),
        e_entry: U64::new(LE, 0),
        e_phoff: U64::new(LE, if phdrs.is_empty() { 0 } else { phoff }),
        e_shoff: U64::new(LE, shoff),
        e_flags: U32::new(LE, elf::FileFlags(h.flags)),
        e_ehsize: U16::new(LE, EHDR_SIZE as u16),
        e_phentsize: U16::new(LE, PHDR_SIZE as u16),
        e_phnum: U16::new(LE, phdrs.len() as u16),
        e_shentsize: U16::new(LE, SHDR_SIZE as u16),
        e_shnum: U16::new(LE, nsections as u16 + 1),
        e_shstrndx: U16::new(LE, SymbolSection(h.shstrndx)),
    }
}

fn section_header(s: Option<&FinalSection>, offset: u64) -> SectionHeader64<LE> {
    let field = |f: fn(&FinalSection) -> u64| s.map_or(0, f);
    SectionHeader64 {
        sh_name: U32::new(LE, s.map_or(0, |s| s.name)),
        sh_type: U32::new(LE, elf::SectionType(s.map_or(0, |s| s.sh_type))),
        sh_flags: U64::new(LE, elf::SectionFlags(field(|s| s.flags))),
        sh_addr: U64::new(LE, 0),
        sh_offset: U64::new(LE, offset),
        sh_size: U64::new(LE, field(FinalSection::size)),
        sh_link: U32::new(LE, s.map_or(0, |s| s.link)),
        sh_info: U32::new(LE, s.map_or(0, |s| s.info)),
        sh_addralign: U64::new(LE, field(|s| s.align)),
        sh_entsize: U64::new(LE, field(|s| s.entsize)),
    }
}

/// PHDR; LOAD R+X over the read-only allocated sections (banks, code); LOAD R+W over the
/// writable ones (file part up to the first NOBITS, memory part laying out the NOBITS); and in
/// V8 a final LOAD R+X repeating the PHDR entry.
fn program_headers(
    flavour: ElfFlavour,
    sections: &[FinalSection],
    offsets: &[u64],
    phoff: u64,
) -> Vec<ProgramHeader64<LE>> {
    let count = if flavour == ElfFlavour::V8 { 2 } else { 1 }
        + usize::from(has_alloc(sections, false))
        + usize::from(has_alloc(sections, true));
    let table_size = PHDR_SIZE * count as u64;
    let mut out = vec![phdr(PT_PHDR, PF_RX, phoff, table_size, table_size)];
    if let Some((start, end)) = read_only_extent(sections, offsets) {
        out.push(phdr(PT_LOAD, PF_RX, start, end - start, end - start));
    }
    if let Some((start, filesz, memsz)) = writable_extent(sections, offsets) {
        out.push(phdr(PT_LOAD, PF_RW, start, filesz, memsz));
    }
    if flavour == ElfFlavour::V8 {
        out.push(phdr(PT_LOAD, PF_RX, phoff, table_size, table_size));
    }
    out
}

/// sm_90: PHDR (R); LOAD (R) over the header table; then in section order one LOAD per run of
/// consecutive allocated sections with the same permissions (R for the banks, R+X for the
/// code, R+W for data and shared memory, R for the `.nv.constant0.<k>` sections at the end).
fn run_program_headers(sections: &[FinalSection], offsets: &[u64], phoff: u64) -> Vec<ProgramHeader64<LE>> {
    let runs = permission_runs(sections, offsets);
    let table_size = PHDR_SIZE * (2 + runs.len() as u64);
    let mut out = vec![
        phdr(PT_PHDR, PF_R, phoff, table_size, table_size),
        phdr(PT_LOAD, PF_R, phoff, table_size, table_size),
    ];
    for (flags, run) in runs {
        if let Some((start, filesz, memsz)) = extent(&run, true) {
            out.push(phdr(PT_LOAD, flags, start, filesz, memsz));
        }
    }
    out
}

/// Segment permissions of an allocated section.
fn permissions(s: &FinalSection) -> u32 {
    let write = if s.flags & SHF_WRITE != 0 { PF_W } else { 0 };
    let exec = if s.flags & SHF_EXECINSTR != 0 { PF_X } else { 0 };
    PF_R | write | exec
}

/// The allocated sections with their offsets, grouped into runs of equal permissions.
fn permission_runs<'s>(sections: &'s [FinalSection], offsets: &[u64]) -> Vec<(u32, Vec<(&'s FinalSection, u64)>)> {
    let mut runs: Vec<(u32, Vec<(&FinalSection, u64)>)> = Vec::new();
    for (s, &offset) in sections.iter().zip(offsets) {
        if s.flags & SHF_ALLOC == 0 {
            continue;
        }
        let flags = permissions(s);
        match runs.last_mut() {
            Some((last, run)) if *last == flags => run.push((s, offset)),
            _ => runs.push((flags, vec![(s, offset)])),
        }
    }
    runs
}

fn is_alloc(s: &FinalSection, writable: bool) -> bool {
    s.flags & SHF_ALLOC != 0 && (s.flags & SHF_WRITE != 0) == writable
}

fn has_alloc(sections: &[FinalSection], writable: bool) -> bool {
    sections.iter().any(|s| is_alloc(s, writable))
}

fn read_only_extent(sections: &[FinalSection], offsets: &[u64]) -> Option<(u64, u64)> {
    let spans = sections
        .iter()
        .zip(offsets)
        .filter(|(s, _)| is_alloc(s, false))
        .map(|(s, &o)| (o, o + s.size()));
    spans.reduce(|(a, b), (c, d)| (a.min(c), b.max(d)))
}

fn writable_extent(sections: &[FinalSection], offsets: &[u64]) -> Option<(u64, u64, u64)> {
    let writable: Vec<(&FinalSection, u64)> = sections
        .iter()
        .zip(offsets.iter().copied())
        .filter(|(s, _)| is_alloc(s, true))
        .collect();
    extent(&writable, false)
}

/// Start, file size (up to the first NOBITS section, or with `skip_empty` the first
/// non-empty one, as ptxas does for sm_90) and memory size (the NOBITS sections laid out
/// after the file part) of a segment over `sections`.
fn extent(writable: &[(&FinalSection, u64)], skip_empty: bool) -> Option<(u64, u64, u64)> {
    let start = writable.first()?.1;
    let ends_file = |s: &FinalSection| s.sh_type == SHT_NOBITS && !(skip_empty && s.size() == 0);
    let first_nobits = writable.iter().find(|(s, _)| ends_file(s)).map(|&(_, o)| o);
    let progbits_end = writable
        .iter()
        .filter(|(s, _)| s.sh_type != SHT_NOBITS)
        .map(|(s, o)| o + s.size())
        .max()
        .unwrap_or(start);
    let filesz = first_nobits.unwrap_or(progbits_end) - start;
    let memsz = writable
        .iter()
        .filter(|(s, _)| s.sh_type == SHT_NOBITS)
        .fold(filesz, |pos, (s, _)| pos.next_multiple_of(s.align.max(1)) + s.size());
    Some((start, filesz, memsz))
}

fn phdr(p_type: u32, flags: u32, offset: u64, filesz: u64, memsz: u64) -> ProgramHeader64<LE> {
    ProgramHeader64 {
        p_type: U32::new(LE, elf::ProgramType(p_type)),
        p_flags: U32::new(LE, elf::ProgramFlags(flags)),
        p_offset: U64::new(LE, offset),
        p_vaddr: U64::new(LE, 0),
        p_paddr: U64::new(LE, 0),
        p_filesz: U64::new(LE, filesz),
        p_memsz: U64::new(LE, memsz),
        p_align: U64::new(LE, 8),
    }
}

/// `.symtab` contents: the null symbol, then `symbols`.
pub fn symtab(symbols: &[SymbolPlan], names: &[u32], r: &Resolver) -> Result<Vec<u8>, CubinError> {
    let mut out = bytes_of(&Sym64::<LE>::default()).to_vec();
    for (s, &name) in symbols.iter().zip(names) {
        let shndx = match &s.section {
            Some(section) => r.section(section)? as u16,
            None => 0,
        };
        let sym = Sym64 {
            st_name: U32::new(LE, name),
            st_info: SymbolInfo(s.info),
            st_other: SymbolOther(s.other),
            st_shndx: U16::new(LE, SymbolSection(shndx)),
            st_value: U64::new(LE, s.value),
            st_size: U64::new(LE, s.size),
        };
        out.extend_from_slice(bytes_of(&sym));
    }
    Ok(out)
}

/// `.rel*` / `.rela*` contents.
pub fn relocations(relocs: &[Reloc], rela: bool, r: &Resolver) -> Result<Vec<u8>, CubinError> {
    let mut out = Vec::new();
    for reloc in relocs {
        let symbol = if reloc.symbol.is_empty() {
            0
        } else {
            r.symbol(&reloc.symbol)?
        };
        let info = (u64::from(symbol) << 32) | u64::from(reloc.kind.0);
        if rela {
            let entry = Rela64 {
                r_offset: U64::new(LE, reloc.offset),
                r_info: U64::new(LE, info),
                r_addend: I64::new(LE, reloc.addend.unwrap_or(0)),
            };
            out.extend_from_slice(bytes_of(&entry));
        } else {
            let entry = Rel64 {
                r_offset: U64::new(LE, reloc.offset),
                r_info: U64::new(LE, info),
            };
            out.extend_from_slice(bytes_of(&entry));
        }
    }
    Ok(out)
}
