//! Relocations: what is patched where, against which symbol.

use std::fmt;

/// A CUDA relocation type (`R_CUDA_*`, the low 32 bits of `r_info`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RelocKind(pub u32);

impl RelocKind {
    /// `R_CUDA_32`: a 32-bit address.
    pub const R_CUDA_32: RelocKind = RelocKind(1);
    /// `R_CUDA_64`: a 64-bit address (`.nv.constant4` slots, `.debug_frame` FDEs).
    pub const R_CUDA_64: RelocKind = RelocKind(2);
    /// `R_CUDA_G32`: a 32-bit generic address.
    pub const R_CUDA_G32: RelocKind = RelocKind(3);
    /// `R_CUDA_G64`: a 64-bit generic address (in `.const`/`.global` initialisers).
    pub const R_CUDA_G64: RelocKind = RelocKind(4);
    /// `R_CUDA_ABS32_LO_32`: low 32 bits of an address in an instruction's immediate.
    pub const R_CUDA_ABS32_LO_32: RelocKind = RelocKind(56);
    /// `R_CUDA_ABS32_HI_32`: high 32 bits of an address in an instruction's immediate.
    pub const R_CUDA_ABS32_HI_32: RelocKind = RelocKind(57);
    /// `R_CUDA_ABS47_34`: absolute call target (`CALL.ABS`).
    pub const R_CUDA_ABS47_34: RelocKind = RelocKind(58);

    /// The name `cuobjdump` prints for this type.
    pub fn name(self) -> &'static str {
        RELOC_NAMES.get(self.0 as usize).copied().unwrap_or("R_CUDA_UNKNOWN")
    }
}

impl fmt::Display for RelocKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One relocation. Written to `.rel<section>` when `addend` is `None`, to `.rela<section>`
/// otherwise; from sm_90 on always to `.rela<section>` (see [`Reloc::explicit_addend`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Reloc {
    /// Byte offset in the relocated section.
    pub offset: u64,
    /// Relocation type.
    pub kind: RelocKind,
    /// Name of the target symbol (a section name for section symbols); empty for symbol
    /// index 0 (no symbol, as in some `R_CUDA_UNUSED_CLEAR*` entries of relocatable files).
    pub symbol: String,
    /// Explicit addend (`Elf64_Rela`), or `None` for `Elf64_Rel`.
    pub addend: Option<i64>,
}

impl Reloc {
    /// An `Elf64_Rel` relocation.
    pub fn new(offset: u64, kind: RelocKind, symbol: impl Into<String>) -> Self {
        Reloc {
            offset,
            kind,
            symbol: symbol.into(),
            addend: None,
        }
    }
}

impl Reloc {
    /// The addend as an `Elf64_Rela` holds it: the explicit one, else the value stored at
    /// the relocated place for the data relocations (`R_CUDA_32`, `R_CUDA_G32`, `R_CUDA_64`,
    /// `R_CUDA_G64`) in `section` (the relocated section's bytes), else 0.
    pub fn explicit_addend(&self, section: &[u8]) -> i64 {
        if let Some(addend) = self.addend {
            return addend;
        }
        let width = match self.kind {
            RelocKind::R_CUDA_32 | RelocKind::R_CUDA_G32 => 4,
            RelocKind::R_CUDA_64 | RelocKind::R_CUDA_G64 => 8,
            _ => return 0,
        };
        let start = usize::try_from(self.offset).unwrap_or(usize::MAX);
        let Some(bytes) = section.get(start..start.saturating_add(width)) else {
            return 0;
        };
        let mut word = [0u8; 8];
        word[..width].copy_from_slice(bytes);
        if width == 4 {
            i64::from(u32::from_le_bytes([word[0], word[1], word[2], word[3]]))
        } else {
            i64::from_le_bytes(word)
        }
    }
}

/// The brief's name for relocations against code.
pub type CodeReloc = Reloc;

/// Names as printed by `cuobjdump -elf` 13.5, indexed by type (checked for 1–115).
const RELOC_NAMES: [&str; 116] = [
    "R_CUDA_NONE",
    "R_CUDA_32",
    "R_CUDA_64",
    "R_CUDA_G32",
    "R_CUDA_G64",
    "R_CUDA_ABS32_26",
    "R_CUDA_TEX_HEADER_INDEX",
    "R_CUDA_SAMP_HEADER_INDEX",
    "R_CUDA_SURF_HW_DESC",
    "R_CUDA_SURF_HW_SW_DESC",
    "R_CUDA_ABS32_LO_26",
    "R_CUDA_ABS32_HI_26",
    "R_CUDA_ABS32_23",
    "R_CUDA_ABS32_LO_23",
    "R_CUDA_ABS32_HI_23",
    "R_CUDA_ABS24_26",
    "R_CUDA_ABS24_23",
    "R_CUDA_ABS16_26",
    "R_CUDA_ABS16_23",
    "R_CUDA_TEX_SLOT",
    "R_CUDA_SAMP_SLOT",
    "R_CUDA_SURF_SLOT",
    "R_CUDA_TEX_BINDLESSOFF13_32",
    "R_CUDA_TEX_BINDLESSOFF13_47",
    "R_CUDA_CONST_FIELD19_28",
    "R_CUDA_CONST_FIELD19_23",
    "R_CUDA_TEX_SLOT9_49",
    "R_CUDA_6_31",
    "R_CUDA_2_47",
    "R_CUDA_TEX_BINDLESSOFF13_41",
    "R_CUDA_TEX_BINDLESSOFF13_45",
    "R_CUDA_FUNC_DESC32_23",
    "R_CUDA_FUNC_DESC32_LO_23",
    "R_CUDA_FUNC_DESC32_HI_23",
    "R_CUDA_FUNC_DESC_32",
    "R_CUDA_FUNC_DESC_64",
    "R_CUDA_CONST_FIELD21_26",
    "R_CUDA_QUERY_DESC21_37",
    "R_CUDA_CONST_FIELD19_26",
    "R_CUDA_CONST_FIELD21_23",
    "R_CUDA_PCREL_IMM24_26",
    "R_CUDA_PCREL_IMM24_23",
    "R_CUDA_ABS32_20",
    "R_CUDA_ABS32_LO_20",
    "R_CUDA_ABS32_HI_20",
    "R_CUDA_ABS24_20",
    "R_CUDA_ABS16_20",
    "R_CUDA_FUNC_DESC32_20",
    "R_CUDA_FUNC_DESC32_LO_20",
    "R_CUDA_FUNC_DESC32_HI_20",
    "R_CUDA_CONST_FIELD19_20",
    "R_CUDA_BINDLESSOFF13_36",
    "R_CUDA_SURF_HEADER_INDEX",
    "R_CUDA_INSTRUCTION64",
    "R_CUDA_CONST_FIELD21_20",
    "R_CUDA_ABS32_32",
    "R_CUDA_ABS32_LO_32",
    "R_CUDA_ABS32_HI_32",
    "R_CUDA_ABS47_34",
    "R_CUDA_ABS16_32",
    "R_CUDA_ABS24_32",
    "R_CUDA_FUNC_DESC32_32",
    "R_CUDA_FUNC_DESC32_LO_32",
    "R_CUDA_FUNC_DESC32_HI_32",
    "R_CUDA_CONST_FIELD19_40",
    "R_CUDA_BINDLESSOFF14_40",
    "R_CUDA_CONST_FIELD21_38",
    "R_CUDA_INSTRUCTION128",
    "R_CUDA_YIELD_OPCODE9_0",
    "R_CUDA_YIELD_CLEAR_PRED4_87",
    "R_CUDA_32_LO",
    "R_CUDA_32_HI",
    "R_CUDA_UNUSED_CLEAR32",
    "R_CUDA_UNUSED_CLEAR64",
    "R_CUDA_ABS24_40",
    "R_CUDA_ABS55_16_34",
    "R_CUDA_8_0",
    "R_CUDA_8_8",
    "R_CUDA_8_16",
    "R_CUDA_8_24",
    "R_CUDA_8_32",
    "R_CUDA_8_40",
    "R_CUDA_8_48",
    "R_CUDA_8_56",
    "R_CUDA_G8_0",
    "R_CUDA_G8_8",
    "R_CUDA_G8_16",
    "R_CUDA_G8_24",
    "R_CUDA_G8_32",
    "R_CUDA_G8_40",
    "R_CUDA_G8_48",
    "R_CUDA_G8_56",
    "R_CUDA_FUNC_DESC_8_0",
    "R_CUDA_FUNC_DESC_8_8",
    "R_CUDA_FUNC_DESC_8_16",
    "R_CUDA_FUNC_DESC_8_24",
    "R_CUDA_FUNC_DESC_8_32",
    "R_CUDA_FUNC_DESC_8_40",
    "R_CUDA_FUNC_DESC_8_48",
    "R_CUDA_FUNC_DESC_8_56",
    "R_CUDA_ABS20_44",
    "R_CUDA_SAMP_HEADER_INDEX_0",
    "R_CUDA_UNIFIED",
    "R_CUDA_UNIFIED_32",
    "R_CUDA_UNIFIED_8_0",
    "R_CUDA_UNIFIED_8_8",
    "R_CUDA_UNIFIED_8_16",
    "R_CUDA_UNIFIED_8_24",
    "R_CUDA_UNIFIED_8_32",
    "R_CUDA_UNIFIED_8_40",
    "R_CUDA_UNIFIED_8_48",
    "R_CUDA_UNIFIED_8_56",
    "R_CUDA_UNIFIED32_LO_32",
    "R_CUDA_UNIFIED32_HI_32",
    "R_CUDA_ABS56_16_34",
    "R_CUDA_CONST_FIELD22_37",
];
