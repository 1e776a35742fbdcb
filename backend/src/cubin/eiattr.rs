//! `.nv.info` attribute records: the EIATTR table and the record byte format.
//!
//! A record is `u8 format, u8 attribute, u16 value-or-size`, followed for format 4 (`SVAL`) by
//! `size` payload bytes. Records are packed back to back.

use super::error::CubinError;
use super::model::NvInfoAttr;

/// Record formats (`EIFMT_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `EIFMT_NVAL` (1): no value.
    Nval = 1,
    /// `EIFMT_BVAL` (2): an 8-bit value in the 16-bit field.
    Bval = 2,
    /// `EIFMT_HVAL` (3): a 16-bit value.
    Hval = 3,
    /// `EIFMT_SVAL` (4): a payload of the given size.
    Sval = 4,
}

/// One row of the attribute table.
#[derive(Debug, Clone, Copy)]
pub struct EiAttr {
    /// Attribute id.
    pub id: u8,
    /// Name as printed by `cuobjdump -elf` 13.5.
    pub name: &'static str,
    /// Format ptxas uses, where known.
    pub format: Option<Format>,
}

/// The attribute ids this crate reads and writes.
pub mod id {
    #![allow(missing_docs)]
    pub const CTAIDZ_USED: u8 = 0x04;
    pub const MAX_THREADS: u8 = 0x05;
    pub const PARAM_CBANK: u8 = 0x0a;
    pub const EXTERNS: u8 = 0x0f;
    pub const REQNTID: u8 = 0x10;
    pub const FRAME_SIZE: u8 = 0x11;
    pub const MIN_STACK_SIZE: u8 = 0x12;
    pub const KPARAM_INFO: u8 = 0x17;
    pub const CBANK_PARAM_SIZE: u8 = 0x19;
    pub const MAXREG_COUNT: u8 = 0x1b;
    pub const EXIT_INSTR_OFFSETS: u8 = 0x1c;
    pub const CRS_STACK_SIZE: u8 = 0x1e;
    pub const MAX_STACK_SIZE: u8 = 0x23;
    pub const COOP_GROUP_INSTR_OFFSETS: u8 = 0x28;
    pub const COOP_GROUP_MASK_REGIDS: u8 = 0x29;
    pub const REGCOUNT: u8 = 0x2f;
    pub const INT_WARP_WIDE_INSTR_OFFSETS: u8 = 0x31;
    pub const SW_WAR: u8 = 0x36;
    pub const CUDA_API_VERSION: u8 = 0x37;
    pub const SYSCALL_OFFSETS: u8 = 0x46;
    pub const NUM_BARRIERS: u8 = 0x4c;
    /// Unnamed by cuobjdump 13.5 ("unknown Attribute"); ptxas 13.5 writes it as HVAL 0 in
    /// every V8 kernel, and in `.nv.info` of modules without kernels.
    pub const UNNAMED_5F: u8 = 0x5f;
    pub const LANGUAGE: u8 = 0x66;
}

/// The table of attribute ids and names known to `cuobjdump` 13.5 (ids it calls
/// "unknown Attribute" are missing). Formats are filled in for the attributes ptxas writes
/// for sm_75.
pub const EIATTRS: &[EiAttr] = &[
    EiAttr {
        id: 0x00,
        name: "EIATTR_ERROR",
        format: None,
    },
    EiAttr {
        id: 0x01,
        name: "EIATTR_PAD",
        format: None,
    },
    EiAttr {
        id: 0x02,
        name: "EIATTR_IMAGE_SLOT",
        format: None,
    },
    EiAttr {
        id: 0x03,
        name: "EIATTR_JUMPTABLE_RELOCS",
        format: None,
    },
    EiAttr {
        id: 0x04,
        name: "EIATTR_CTAIDZ_USED",
        format: Some(Format::Nval),
    },
    EiAttr {
        id: 0x05,
        name: "EIATTR_MAX_THREADS",
        format: Some(Format::Sval),
    },
    EiAttr {
        id: 0x06,
        name: "EIATTR_IMAGE_OFFSET",
        format: None,
    },
    EiAttr {
        id: 0x07,
        name: "EIATTR_IMAGE_SIZE",
        format: None,
    },
    EiAttr {
        id: 0x08,
        name: "EIATTR_TEXTURE_NORMALIZED",
        format: None,
    },
    EiAttr {
        id: 0x09,
        name: "EIATTR_SAMPLER_INIT",
        format: None,
    },
    EiAttr {
        id: 0x0a,
        name: "EIATTR_PARAM_CBANK",
        format: Some(Format::Sval),
    },
    EiAttr {
        id: 0x0b,
        name: "EIATTR_SMEM_PARAM_OFFSETS",
        format: None,
    },
    EiAttr {
        id: 0x0c,
        name: "EIATTR_CBANK_PARAM_OFFSETS",
        format: None,
    },
    EiAttr {
        id: 0x0d,
        name: "EIATTR_SYNC_STACK",
        format: None,
    },
    EiAttr {
        id: 0x0e,
        name: "EIATTR_TEXID_SAMPID_MAP",
        format: None,
    },
    EiAttr {
        id: 0x0f,
        name: "EIATTR_EXTERNS",
        format: Some(Format::Sval),
    },
    EiAttr {
        id: 0x10,
        name: "EIATTR_REQNTID",
        format: Some(Format::Sval),
    },
    EiAttr {
        id: 0x11,
        name: "EIATTR_FRAME_SIZE",
        format: Some(Format::Sval),
    },
    EiAttr {
        id: 0x12,
        name: "EIATTR_MIN_STACK_SIZE",
        format: Some(Format::Sval),
    },
    EiAttr {
        id: 0x13,
        name: "EIATTR_SAMPLER_FORCE_UNNORMALIZED",
        format: None,
    },
    EiAttr {
        id: 0x14,
        name: "EIATTR_BINDLESS_IMAGE_OFFSETS",
        format: None,
    },
    EiAttr {
        id: 0x15,
        name: "EIATTR_BINDLESS_TEXTURE_BANK",
        format: Some(Format::Bval),
    },
    EiAttr {
        id: 0x16,
        name: "EIATTR_BINDLESS_SURFACE_BANK",
        format: Some(Format::Bval),
    },
    EiAttr {
        id: 0x17,
        name: "EIATTR_KPARAM_INFO",
        format: Some(Format::Sval),
    },
    EiAttr {
        id: 0x18,
        name: "EIATTR_SMEM_PARAM_SIZE",
        format: None,
    },
    EiAttr {
        id: 0x19,
        name: "EIATTR_CBANK_PARAM_SIZE",
        format: Some(Format::Hval),
    },
    EiAttr {
        id: 0x1a,
        name: "EIATTR_QUERY_NUMATTRIB",
        format: None,
    },
    EiAttr {
        id: 0x1b,
        name: "EIATTR_MAXREG_COUNT",
        format: Some(Format::Hval),
    },
    EiAttr {
        id: 0x1c,
        name: "EIATTR_EXIT_INSTR_OFFSETS",
        format: Some(Format::Sval),
    },
    EiAttr {
        id: 0x1d,
        name: "EIATTR_S2RCTAID_INSTR_OFFSETS",
        format: None,
    },
    EiAttr {
        id: 0x1e,
        name: "EIATTR_CRS_STACK_SIZE",
        format: Some(Format::Sval),
    },
    EiAttr {
        id: 0x1f,
        name: "EIATTR_NEED_CNP_WRAPPER",
        format: None,
    },
    EiAttr {
        id: 0x20,
        name: "EIATTR_NEED_CNP_PATCH",
        format: None,
    },
    EiAttr {
        id: 0x21,
        name: "EIATTR_EXPLICIT_CACHING",
        format: None,
    },
    EiAttr {
        id: 0x22,
        name: "EIATTR_ISTYPEP_USED",
        format: None,
    },
    EiAttr {
        id: 0x23,
        name: "EIATTR_MAX_STACK_SIZE",
        format: Some(Format::Sval),
    },
    EiAttr {
        id: 0x24,
        name: "EIATTR_SUQ_USED",
        format: None,
    },
    EiAttr {
        id: 0x25,
        name: "EIATTR_LD_CACHEMOD_INSTR_OFFSETS",
        format: None,
    },
    EiAttr {
        id: 0x26,
        name: "EIATTR_LOAD_CACHE_REQUEST",
        format: None,
    },
    EiAttr {
        id: 0x27,
        name: "EIATTR_ATOM_SYS_INSTR_OFFSETS",
        format: None,
    },
    EiAttr {
        id: 0x28,
        name: "EIATTR_COOP_GROUP_INSTR_OFFSETS",
        format: Some(Format::Sval),
    },
    EiAttr {
        id: 0x29,
        name: "EIATTR_COOP_GROUP_MASK_REGIDS",
        format: Some(Format::Sval),
    },
    EiAttr {
        id: 0x2b,
        name: "EIATTR_WMMA_USED",
        format: None,
    },
    EiAttr {
        id: 0x2c,
        name: "EIATTR_HAS_PRE_V10_OBJECT",
        format: None,
    },
    EiAttr {
        id: 0x2d,
        name: "EIATTR_ATOMF16_EMUL_INSTR_OFFSETS",
        format: None,
    },
    EiAttr {
        id: 0x2e,
        name: "EIATTR_ATOM16_EMUL_INSTR_REG_MAP",
        format: None,
    },
    EiAttr {
        id: 0x2f,
        name: "EIATTR_REGCOUNT",
        format: Some(Format::Sval),
    },
    EiAttr {
        id: 0x31,
        name: "EIATTR_INT_WARP_WIDE_INSTR_OFFSETS",
        format: Some(Format::Sval),
    },
    EiAttr {
        id: 0x32,
        name: "EIATTR_SHARED_SCRATCH",
        format: None,
    },
    EiAttr {
        id: 0x33,
        name: "EIATTR_STATISTICS",
        format: None,
    },
    EiAttr {
        id: 0x34,
        name: "EIATTR_INDIRECT_BRANCH_TARGETS",
        format: None,
    },
    EiAttr {
        id: 0x36,
        name: "EIATTR_SW_WAR",
        format: Some(Format::Sval),
    },
    EiAttr {
        id: 0x37,
        name: "EIATTR_CUDA_API_VERSION",
        format: Some(Format::Sval),
    },
    EiAttr {
        id: 0x38,
        name: "EIATTR_NUM_MBARRIERS",
        format: None,
    },
    EiAttr {
        id: 0x39,
        name: "EIATTR_MBARRIER_INSTR_OFFSETS",
        format: None,
    },
    EiAttr {
        id: 0x3a,
        name: "EIATTR_COROUTINE_RESUME_ID_OFFSETS",
        format: None,
    },
    EiAttr {
        id: 0x3b,
        name: "EIATTR_SAM_REGION_STACK_SIZE",
        format: None,
    },
    EiAttr {
        id: 0x3c,
        name: "EIATTR_PER_REG_TARGET_PERF_STATS",
        format: None,
    },
    EiAttr {
        id: 0x3d,
        name: "EIATTR_CTA_PER_CLUSTER",
        format: None,
    },
    EiAttr {
        id: 0x3e,
        name: "EIATTR_EXPLICIT_CLUSTER",
        format: None,
    },
    EiAttr {
        id: 0x3f,
        name: "EIATTR_MAX_CLUSTER_RANK",
        format: None,
    },
    EiAttr {
        id: 0x40,
        name: "EIATTR_INSTR_REG_MAP",
        format: None,
    },
    EiAttr {
        id: 0x41,
        name: "EIATTR_RESERVED_SMEM_USED",
        format: None,
    },
    EiAttr {
        id: 0x42,
        name: "EIATTR_RESERVED_SMEM_0_SIZE",
        format: None,
    },
    EiAttr {
        id: 0x43,
        name: "EIATTR_UCODE_SECTION_DATA",
        format: None,
    },
    EiAttr {
        id: 0x44,
        name: "EIATTR_UNUSED_LOAD_BYTE_OFFSET",
        format: None,
    },
    EiAttr {
        id: 0x45,
        name: "EIATTR_KPARAM_INFO_V2",
        format: None,
    },
    EiAttr {
        id: 0x46,
        name: "EIATTR_SYSCALL_OFFSETS",
        format: Some(Format::Sval),
    },
    EiAttr {
        id: 0x48,
        name: "EIATTR_GRAPHICS_GLOBAL_CBANK",
        format: None,
    },
    EiAttr {
        id: 0x49,
        name: "EIATTR_SHADER_TYPE",
        format: None,
    },
    EiAttr {
        id: 0x4a,
        name: "EIATTR_VRC_CTA_INIT_COUNT",
        format: None,
    },
    EiAttr {
        id: 0x4b,
        name: "EIATTR_TOOLS_PATCH_FUNC",
        format: None,
    },
    EiAttr {
        id: 0x4c,
        name: "EIATTR_NUM_BARRIERS",
        format: Some(Format::Bval),
    },
    EiAttr {
        id: 0x4d,
        name: "EIATTR_TEXMODE_INDEPENDENT",
        format: None,
    },
    EiAttr {
        id: 0x4e,
        name: "EIATTR_PERF_STATISTICS",
        format: None,
    },
    EiAttr {
        id: 0x4f,
        name: "EIATTR_AT_ENTRY_FRAGMENTS",
        format: None,
    },
    EiAttr {
        id: 0x50,
        name: "EIATTR_SPARSE_MMA_MASK",
        format: None,
    },
    EiAttr {
        id: 0x51,
        name: "EIATTR_TCGEN05_1CTA_USED",
        format: None,
    },
    EiAttr {
        id: 0x52,
        name: "EIATTR_TCGEN05_2CTA_USED",
        format: None,
    },
    EiAttr {
        id: 0x53,
        name: "EIATTR_GEN_ERRBAR_AT_EXIT",
        format: None,
    },
    EiAttr {
        id: 0x54,
        name: "EIATTR_REG_RECONFIG",
        format: None,
    },
    EiAttr {
        id: 0x55,
        name: "EIATTR_ANNOTATIONS",
        format: None,
    },
    EiAttr {
        id: 0x57,
        name: "EIATTR_STACK_CANARY_TRAP_OFFSETS",
        format: None,
    },
    EiAttr {
        id: 0x58,
        name: "EIATTR_STUB_FUNCTION_KIND",
        format: None,
    },
    EiAttr {
        id: 0x59,
        name: "EIATTR_LOCAL_CTA_ASYNC_STORE_OFFSETS",
        format: None,
    },
    EiAttr {
        id: 0x5b,
        name: "EIATTR_BLOCKS_ARE_CLUSTERS",
        format: None,
    },
    EiAttr {
        id: 0x5c,
        name: "EIATTR_SANITIZE",
        format: None,
    },
    EiAttr {
        id: 0x5d,
        name: "EIATTR_SYSCALLS_FALLBACK",
        format: None,
    },
    EiAttr {
        id: 0x5e,
        name: "EIATTR_CUDA_REQ",
        format: None,
    },
    EiAttr {
        id: 0x61,
        name: "EIATTR_RTCORE_ENTRY",
        format: None,
    },
    EiAttr {
        id: 0x62,
        name: "EIATTR_CLUSTER_LAUNCH_CONTROL_USED",
        format: None,
    },
    EiAttr {
        id: 0x64,
        name: "EIATTR_MIN_PER_CTA_MEMORY_SIZE",
        format: None,
    },
    EiAttr {
        id: 0x65,
        name: "EIATTR_IGNOREOOB_CP_ASYNC_BULK_INSTR_OFFSETS",
        format: None,
    },
    EiAttr {
        id: 0x66,
        name: "EIATTR_LANGUAGE",
        format: Some(Format::Sval),
    },
    EiAttr {
        id: 0x68,
        name: "EIATTR_GRID_ATTRIBUTES",
        format: None,
    },
    EiAttr {
        id: 0x69,
        name: "EIATTR_STACK_OFFSET",
        format: None,
    },
    EiAttr {
        id: 0x6a,
        name: "EIATTR_RT_LIVESTATE_SASS_MAP",
        format: None,
    },
    EiAttr {
        id: 0x6b,
        name: "EIATTR_NVSAL_SW_WAR",
        format: None,
    },
    EiAttr {
        id: 0x6c,
        name: "EIATTR_INSTR_OFFSETS",
        format: None,
    },
    EiAttr {
        id: 0x6d,
        name: "EIATTR_PREEXIT_USED",
        format: None,
    },
];

/// The table row for `id`.
pub fn eiattr(id: u8) -> Option<&'static EiAttr> {
    EIATTRS.iter().find(|a| a.id == id)
}

/// The printable name of attribute `id`.
pub fn eiattr_name(id: u8) -> &'static str {
    eiattr(id).map_or("EIATTR_UNKNOWN", |a| a.name)
}

impl NvInfoAttr {
    /// A record without value.
    pub fn nval(id: u8) -> Self {
        Self::with_value(id, Format::Nval, 0)
    }

    /// A byte-valued record.
    pub fn bval(id: u8, value: u8) -> Self {
        Self::with_value(id, Format::Bval, value.into())
    }

    /// A half-word-valued record.
    pub fn hval(id: u8, value: u16) -> Self {
        Self::with_value(id, Format::Hval, value)
    }

    /// A record whose payload is `words` (little-endian).
    pub fn words(id: u8, words: &[u32]) -> Self {
        let payload: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        NvInfoAttr {
            id,
            format: Format::Sval as u8,
            value: payload.len() as u16,
            payload,
        }
    }

    fn with_value(id: u8, format: Format, value: u16) -> Self {
        NvInfoAttr {
            id,
            format: format as u8,
            value,
            payload: Vec::new(),
        }
    }

    /// The payload as little-endian words (a trailing partial word is ignored).
    pub fn payload_words(&self) -> Vec<u32> {
        self.payload
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }
}

/// Encodes records back to back.
pub fn encode_records(records: &[NvInfoAttr], out: &mut Vec<u8>) {
    for r in records {
        out.push(r.format);
        out.push(r.id);
        if r.format == Format::Sval as u8 {
            out.extend_from_slice(&(r.payload.len() as u16).to_le_bytes());
            out.extend_from_slice(&r.payload);
        } else {
            out.extend_from_slice(&r.value.to_le_bytes());
        }
    }
}

/// Decodes the records of section `section`, each with its byte offset.
pub fn decode_records(section: &str, bytes: &[u8]) -> Result<Vec<(u64, NvInfoAttr)>, CubinError> {
    let mut records = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        let bad = |problem: String| CubinError::at(section, pos as u64, problem);
        let header = bytes
            .get(pos..pos + 4)
            .ok_or_else(|| bad("record header cut short".into()))?;
        let (format, id) = (header[0], header[1]);
        let value = u16::from_le_bytes([header[2], header[3]]);
        let payload = match format {
            1..=3 => Vec::new(),
            4 => bytes
                .get(pos + 4..pos + 4 + usize::from(value))
                .ok_or_else(|| {
                    bad(format!(
                        "{} payload of {value} bytes cut short",
                        eiattr_name(id)
                    ))
                })?
                .to_vec(),
            _ => return Err(bad(format!("unknown record format {format}"))),
        };
        let at = pos as u64;
        pos += 4 + payload.len();
        records.push((
            at,
            NvInfoAttr {
                id,
                format,
                value,
                payload,
            },
        ));
    }
    Ok(records)
}
