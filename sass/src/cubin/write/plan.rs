//! The writer's plan: which sections and symbols a module needs, before indices are known.

use crate::cubin::reloc::Reloc;

/// How a planned section's `sh_link` is computed.
#[derive(Debug, Clone, PartialEq)]
pub enum Link {
    /// A fixed value.
    Raw(u32),
    /// The index of `.symtab`.
    Symtab,
    /// The index of `.strtab`.
    Strtab,
    /// The index of the named section.
    Section(String),
}

/// How a planned section's `sh_info` is computed.
#[derive(Debug, Clone, PartialEq)]
pub enum Info {
    /// A fixed value.
    Raw(u32),
    /// The index of the named section.
    Section(String),
    /// `.text`: register count in bits 24–31, the kernel's symbol index below.
    Text {
        /// Register count.
        reg_count: u32,
        /// Kernel symbol name.
        kernel: String,
    },
    /// `.symtab`: index of the first non-local symbol.
    FirstGlobal,
}

/// What a planned section contains.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// Fixed bytes.
    Bytes(Vec<u8>),
    /// `SHT_NOBITS` of this size.
    NoBits(u64),
    /// `.symtab`, built from the ordered symbols.
    Symtab,
    /// `.strtab`.
    Strtab,
    /// `.shstrtab`.
    Shstrtab,
    /// `.nv.info`.
    ModuleInfo,
    /// `.nv.info.<kernel>` of kernel number `usize`.
    KernelInfo(usize),
    /// `.nv.callgraph`.
    Callgraph,
    /// `.nv.compat`.
    Compat,
    /// `Elf64_Rel` (false) or `Elf64_Rela` (true) entries.
    Relocs(Vec<Reloc>, bool),
}

/// One section to write.
#[derive(Debug, Clone, PartialEq)]
pub struct SectionPlan {
    /// Name.
    pub name: String,
    /// `sh_type`.
    pub sh_type: u32,
    /// `sh_flags`.
    pub flags: u64,
    /// `sh_addralign`.
    pub align: u64,
    /// `sh_entsize`.
    pub entsize: u64,
    /// `sh_link`.
    pub link: Link,
    /// `sh_info`.
    pub info: Info,
    /// Contents.
    pub body: Body,
}

impl SectionPlan {
    /// A section with no link, info or entry size.
    pub fn new(name: impl Into<String>, sh_type: u32, flags: u64, align: u64, body: Body) -> Self {
        SectionPlan {
            name: name.into(),
            sh_type,
            flags,
            align,
            entsize: 0,
            link: Link::Raw(0),
            info: Info::Raw(0),
            body,
        }
    }

    /// Whether the section has no bytes (fixed-content sections only).
    pub fn is_empty(&self) -> bool {
        matches!(&self.body, Body::Bytes(b) if b.is_empty())
    }

    /// Sets `sh_link`.
    pub fn link(mut self, link: Link) -> Self {
        self.link = link;
        self
    }

    /// Sets `sh_info`.
    pub fn info(mut self, info: Info) -> Self {
        self.info = info;
        self
    }

    /// Sets `sh_entsize`.
    pub fn entsize(mut self, entsize: u64) -> Self {
        self.entsize = entsize;
        self
    }
}

/// One symbol to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolPlan {
    /// Name (the section name for section symbols).
    pub name: String,
    /// `st_info`: binding << 4 | type.
    pub info: u8,
    /// `st_other`.
    pub other: u8,
    /// Defining section, `None` for undefined symbols.
    pub section: Option<String>,
    /// `st_value`.
    pub value: u64,
    /// `st_size`.
    pub size: u64,
    /// `st_name` is 0 although `name` is listed in `.strtab` (sm_90's dropped
    /// `.nv.reservedSmem.cap`).
    pub nameless: bool,
}

impl SymbolPlan {
    /// Whether the symbol is `STB_LOCAL`.
    pub fn is_local(&self) -> bool {
        self.info >> 4 == 0
    }

    /// Whether this is a section symbol.
    pub fn is_section(&self) -> bool {
        self.info & 0xf == STT_SECTION
    }
}

/// `STT_OBJECT`.
pub const STT_OBJECT: u8 = 1;
/// `STT_FUNC`.
pub const STT_FUNC: u8 = 2;
/// `STT_SECTION`.
pub const STT_SECTION: u8 = 3;
