//! A checked, index-addressed view of the ELF structure (via the `object` crate): header
//! fields, sections with names and data, symbols with names, relocation entries.

use object::LittleEndian as LE;
use object::elf::{self, FileHeader64, Rel64, Rela64, SectionHeader64};
use object::read::elf::{FileHeader, SectionHeader, Sym};

use crate::cubin::error::CubinError;
use crate::cubin::model::{ElfFlavour, ObjectKind};
use crate::cubin::names::{RESERVED_SMEM_CAP, STV_INTERNAL};

const EM_CUDA: u16 = 190;
const OSABI_V7: u8 = 0x33;
const OSABI_V8: u8 = 0x41;
const SHT_RELA: u32 = 4;
const SHT_REL: u32 = 9;
const STT_SECTION: u8 = 3;
/// `SHT_CUDA_SHARED`: shared memory in relocatable files, which, like `SHT_NOBITS`, has no
/// bytes in the file.
const SHT_CUDA_SHARED: u32 = 0x7000_000a;

/// One section header with its name and contents.
#[derive(Debug, Clone)]
pub struct Section<'a> {
    /// ELF section index.
    pub index: usize,
    /// Name.
    pub name: String,
    /// `sh_type`.
    pub sh_type: u32,
    /// `sh_flags`.
    pub flags: u64,
    /// `sh_link`.
    pub link: u32,
    /// `sh_info`.
    pub info: u32,
    /// `sh_addralign`.
    pub align: u64,
    /// `sh_entsize`.
    pub entsize: u64,
    /// `sh_size` (also for NOBITS).
    pub size: u64,
    /// Contents (empty for NOBITS and `SHT_CUDA_SHARED`).
    pub data: &'a [u8],
}

/// One symbol.
#[derive(Debug, Clone)]
pub struct Symbol {
    /// Name; the section's name for unnamed section symbols.
    pub name: String,
    /// `st_info`.
    pub info: u8,
    /// `st_other`.
    pub other: u8,
    /// `st_shndx`.
    pub shndx: usize,
    /// `st_value`.
    pub value: u64,
    /// `st_size`.
    pub size: u64,
}

impl Symbol {
    /// `st_bind`.
    pub fn bind(&self) -> u8 {
        self.info >> 4
    }

    /// `st_type`.
    pub fn kind(&self) -> u8 {
        self.info & 0xf
    }
}

/// One relocation entry, unresolved.
#[derive(Debug, Clone, Copy)]
pub struct RawReloc {
    /// `r_offset`.
    pub offset: u64,
    /// Relocation type.
    pub kind: u32,
    /// Symbol index.
    pub symbol: usize,
    /// Addend of `Elf64_Rela` entries.
    pub addend: Option<i64>,
}

/// The parsed file.
#[derive(Debug)]
pub struct ElfView<'a> {
    /// Layout, from `EI_OSABI`.
    pub flavour: ElfFlavour,
    /// `ET_EXEC` or `ET_REL`.
    pub kind: ObjectKind,
    /// `EI_ABIVERSION` if not the flavour's usual one.
    pub abi_version: Option<u8>,
    /// `e_version`.
    pub version: u32,
    /// `e_flags`.
    pub flags: u32,
    /// Sections by index (index 0 is the null section).
    pub sections: Vec<Section<'a>>,
    /// Symbols by index (index 0 is the null symbol).
    pub symbols: Vec<Symbol>,
}

impl<'a> ElfView<'a> {
    /// Parses and checks the ELF structure of `bytes`.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, CubinError> {
        let header = FileHeader64::<LE>::parse(bytes)?;
        let ident = header.e_ident();
        let (flavour, usual_abi) = match (ident.os_abi.0, ident.abi_version) {
            (OSABI_V8, _) => (ElfFlavour::V8, 8),
            (OSABI_V7, _) => (ElfFlavour::V7, 7),
            (os_abi, abi) => {
                return Err(CubinError::Unsupported(format!(
                    "OSABI {os_abi:#x} / ABI version {abi} is neither CUDA v7 (0x33) nor v8 (0x41)"
                )));
            }
        };
        let machine = header.e_machine(LE).0;
        if machine != EM_CUDA {
            return Err(CubinError::Unsupported(format!(
                "e_machine {machine} is not EM_CUDA (190)"
            )));
        }
        let kind = match header.e_type(LE) {
            elf::ET_EXEC => ObjectKind::Executable,
            elf::ET_REL => ObjectKind::Relocatable,
            other => {
                return Err(CubinError::Unsupported(format!(
                    "e_type {} is neither ET_EXEC nor ET_REL",
                    other.0
                )));
            }
        };
        // The program headers are derived data, but a file that cannot hold them is broken.
        header.program_headers(LE, bytes)?;
        let table = header.sections(LE, bytes)?;
        let mut sections = Vec::with_capacity(table.len());
        for (index, sh) in table.enumerate() {
            sections.push(section(index.0, sh, table.section_name(LE, sh)?, bytes)?);
        }
        let symtab = table.symbols(LE, bytes, elf::SHT_SYMTAB)?;
        let mut symbols = Vec::with_capacity(symtab.symbols().len());
        for (i, sym) in symtab.symbols().iter().enumerate() {
            let name = sym.name(LE, symtab.strings())?;
            let shndx = usize::from(sym.st_shndx(LE).0);
            let mut name = String::from_utf8_lossy(name).into_owned();
            if name.is_empty() && sym.st_type().0 == STT_SECTION {
                name = sections.get(shndx).map(|s| s.name.clone()).unwrap_or_default();
            }
            if name.is_empty() && i != 0 && is_reserved_cap(sym.st_info().0, sym.st_other().0, shndx) {
                name = RESERVED_SMEM_CAP.into();
            }
            if i == 0 {
                name.clear();
            }
            symbols.push(Symbol {
                name,
                info: sym.st_info().0,
                other: sym.st_other().0,
                shndx,
                value: sym.st_value(LE),
                size: sym.st_size(LE),
            });
        }
        Ok(ElfView {
            flavour,
            kind,
            abi_version: Some(ident.abi_version).filter(|&v| v != usual_abi),
            version: header.e_version(LE),
            flags: header.e_flags(LE).0,
            sections,
            symbols,
        })
    }

    /// The first section called `name`.
    pub fn section_named(&self, name: &str) -> Option<&Section<'a>> {
        self.sections.iter().find(|s| s.name == name)
    }

    /// The symbol with index `index`, or an error naming `context`.
    pub fn symbol(&self, index: usize, context: &str) -> Result<&Symbol, CubinError> {
        self.symbols
            .get(index)
            .filter(|_| index != 0)
            .ok_or_else(|| CubinError::symbol(format!("#{index}"), format!("referenced by {context}, does not exist")))
    }

    /// The relocation sections (`SHT_REL`, `SHT_RELA`) and their entries.
    pub fn relocation_sections(&self) -> Result<Vec<(&Section<'a>, Vec<RawReloc>)>, CubinError> {
        let mut out = Vec::new();
        for s in self
            .sections
            .iter()
            .filter(|s| s.sh_type == SHT_REL || s.sh_type == SHT_RELA)
        {
            out.push((s, relocations(s)?));
        }
        Ok(out)
    }
}

/// Whether a nameless symbol is sm_90's dropped `.nv.reservedSmem.cap`: local, no type,
/// `STV_INTERNAL`, undefined.
fn is_reserved_cap(info: u8, other: u8, shndx: usize) -> bool {
    info == 0 && other == STV_INTERNAL && shndx == 0
}

fn section<'a>(
    index: usize,
    sh: &SectionHeader64<LE>,
    name: &[u8],
    bytes: &'a [u8],
) -> Result<Section<'a>, CubinError> {
    let name = String::from_utf8_lossy(name).into_owned();
    let data = if sh.sh_type(LE).0 == SHT_CUDA_SHARED {
        &[][..]
    } else {
        sh.data(LE, bytes)
            .map_err(|e| CubinError::at(&name, 0, format!("contents: {e}")))?
    };
    Ok(Section {
        index,
        sh_type: sh.sh_type(LE).0,
        flags: sh.sh_flags(LE).0,
        link: sh.sh_link(LE),
        info: sh.sh_info(LE),
        align: sh.sh_addralign(LE),
        entsize: sh.sh_entsize(LE),
        size: sh.sh_size(LE),
        data,
        name,
    })
}

fn relocations(s: &Section<'_>) -> Result<Vec<RawReloc>, CubinError> {
    let entry = if s.sh_type == SHT_RELA { 24 } else { 16 };
    if !s.data.len().is_multiple_of(entry) {
        return Err(CubinError::at(
            &s.name,
            0,
            format!("size {} is not a multiple of the entry size {entry}", s.data.len()),
        ));
    }
    let raw = |info: u64| (info >> 32) as usize;
    let out = if s.sh_type == SHT_RELA {
        let (entries, _) = object::pod::slice_from_bytes::<Rela64<LE>>(s.data, s.data.len() / entry)
            .map_err(|()| CubinError::at(&s.name, 0, "unreadable entries"))?;
        entries
            .iter()
            .map(|e| RawReloc {
                offset: e.r_offset.get(LE),
                kind: e.r_info.get(LE) as u32,
                symbol: raw(e.r_info.get(LE)),
                addend: Some(e.r_addend.get(LE)),
            })
            .collect()
    } else {
        let (entries, _) = object::pod::slice_from_bytes::<Rel64<LE>>(s.data, s.data.len() / entry)
            .map_err(|()| CubinError::at(&s.name, 0, "unreadable entries"))?;
        entries
            .iter()
            .map(|e| RawReloc {
                offset: e.r_offset.get(LE),
                kind: e.r_info.get(LE) as u32,
                symbol: raw(e.r_info.get(LE)),
                addend: None,
            })
            .collect()
    };
    Ok(out)
}
