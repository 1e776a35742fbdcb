//! `.nv.info` attribute records: the EIATTR table and the record byte format.
//!
//! A record is `u8 format, u8 attribute, u16 value-or-size`, followed for format 4 (`SVAL`) by
//! `size` payload bytes. Records are packed back to back.

use super::error::CubinError;
use super::model::NvInfoAttr;
use Format::{Bval, Hval, Nval, Sval};

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
    pub const BINDLESS_TEXTURE_BANK: u8 = 0x15;
    pub const BINDLESS_SURFACE_BANK: u8 = 0x16;
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
    pub const WMMA_USED: u8 = 0x2b;
    pub const INDIRECT_BRANCH_TARGETS: u8 = 0x34;
    pub const SW_WAR: u8 = 0x36;
    pub const CUDA_API_VERSION: u8 = 0x37;
    pub const NUM_MBARRIERS: u8 = 0x38;
    pub const MBARRIER_INSTR_OFFSETS: u8 = 0x39;
    pub const CTA_PER_CLUSTER: u8 = 0x3d;
    pub const EXPLICIT_CLUSTER: u8 = 0x3e;
    pub const MAX_CLUSTER_RANK: u8 = 0x3f;
    pub const SYSCALL_OFFSETS: u8 = 0x46;
    pub const UNUSED_LOAD_BYTE_OFFSET: u8 = 0x44;
    pub const NUM_BARRIERS: u8 = 0x4c;
    pub const SPARSE_MMA_MASK: u8 = 0x50;
    /// Unnamed by cuobjdump 13.5 ("unknown Attribute"); ptxas 13.5 writes it as HVAL in
    /// every V8 kernel, and in `.nv.info` of modules without kernels: 0 for sm_75..sm_89,
    /// 0x101 for sm_90.
    pub const UNNAMED_5F: u8 = 0x5f;
    pub const LANGUAGE: u8 = 0x66;
    pub const NVSAL_SW_WAR: u8 = 0x6b;
    pub const PREEXIT_USED: u8 = 0x6d;
}

/// The table of attribute ids and names known to `cuobjdump` 13.5 (ids it calls
/// "unknown Attribute" are missing). Formats are filled in for the attributes ptxas writes
/// for sm_75 and sm_90 that the writer knows.
pub const EIATTRS: &[EiAttr] = &[
    row(0x00, "EIATTR_ERROR", None),
    row(0x01, "EIATTR_PAD", None),
    row(0x02, "EIATTR_IMAGE_SLOT", None),
    row(0x03, "EIATTR_JUMPTABLE_RELOCS", None),
    row(0x04, "EIATTR_CTAIDZ_USED", Some(Nval)),
    row(0x05, "EIATTR_MAX_THREADS", Some(Sval)),
    row(0x06, "EIATTR_IMAGE_OFFSET", None),
    row(0x07, "EIATTR_IMAGE_SIZE", None),
    row(0x08, "EIATTR_TEXTURE_NORMALIZED", None),
    row(0x09, "EIATTR_SAMPLER_INIT", None),
    row(0x0a, "EIATTR_PARAM_CBANK", Some(Sval)),
    row(0x0b, "EIATTR_SMEM_PARAM_OFFSETS", None),
    row(0x0c, "EIATTR_CBANK_PARAM_OFFSETS", None),
    row(0x0d, "EIATTR_SYNC_STACK", None),
    row(0x0e, "EIATTR_TEXID_SAMPID_MAP", None),
    row(0x0f, "EIATTR_EXTERNS", Some(Sval)),
    row(0x10, "EIATTR_REQNTID", Some(Sval)),
    row(0x11, "EIATTR_FRAME_SIZE", Some(Sval)),
    row(0x12, "EIATTR_MIN_STACK_SIZE", Some(Sval)),
    row(0x13, "EIATTR_SAMPLER_FORCE_UNNORMALIZED", None),
    row(0x14, "EIATTR_BINDLESS_IMAGE_OFFSETS", None),
    row(0x15, "EIATTR_BINDLESS_TEXTURE_BANK", Some(Bval)),
    row(0x16, "EIATTR_BINDLESS_SURFACE_BANK", Some(Bval)),
    row(0x17, "EIATTR_KPARAM_INFO", Some(Sval)),
    row(0x18, "EIATTR_SMEM_PARAM_SIZE", None),
    row(0x19, "EIATTR_CBANK_PARAM_SIZE", Some(Hval)),
    row(0x1a, "EIATTR_QUERY_NUMATTRIB", None),
    row(0x1b, "EIATTR_MAXREG_COUNT", Some(Hval)),
    row(0x1c, "EIATTR_EXIT_INSTR_OFFSETS", Some(Sval)),
    row(0x1d, "EIATTR_S2RCTAID_INSTR_OFFSETS", None),
    row(0x1e, "EIATTR_CRS_STACK_SIZE", Some(Sval)),
    row(0x1f, "EIATTR_NEED_CNP_WRAPPER", None),
    row(0x20, "EIATTR_NEED_CNP_PATCH", None),
    row(0x21, "EIATTR_EXPLICIT_CACHING", None),
    row(0x22, "EIATTR_ISTYPEP_USED", None),
    row(0x23, "EIATTR_MAX_STACK_SIZE", Some(Sval)),
    row(0x24, "EIATTR_SUQ_USED", None),
    row(0x25, "EIATTR_LD_CACHEMOD_INSTR_OFFSETS", None),
    row(0x26, "EIATTR_LOAD_CACHE_REQUEST", None),
    row(0x27, "EIATTR_ATOM_SYS_INSTR_OFFSETS", None),
    row(0x28, "EIATTR_COOP_GROUP_INSTR_OFFSETS", Some(Sval)),
    row(0x29, "EIATTR_COOP_GROUP_MASK_REGIDS", Some(Sval)),
    row(0x2b, "EIATTR_WMMA_USED", Some(Nval)),
    row(0x2c, "EIATTR_HAS_PRE_V10_OBJECT", None),
    row(0x2d, "EIATTR_ATOMF16_EMUL_INSTR_OFFSETS", None),
    row(0x2e, "EIATTR_ATOM16_EMUL_INSTR_REG_MAP", None),
    row(0x2f, "EIATTR_REGCOUNT", Some(Sval)),
    row(0x31, "EIATTR_INT_WARP_WIDE_INSTR_OFFSETS", Some(Sval)),
    row(0x32, "EIATTR_SHARED_SCRATCH", None),
    row(0x33, "EIATTR_STATISTICS", None),
    row(0x34, "EIATTR_INDIRECT_BRANCH_TARGETS", Some(Sval)),
    row(0x36, "EIATTR_SW_WAR", Some(Sval)),
    row(0x37, "EIATTR_CUDA_API_VERSION", Some(Sval)),
    row(0x38, "EIATTR_NUM_MBARRIERS", Some(Hval)),
    row(0x39, "EIATTR_MBARRIER_INSTR_OFFSETS", Some(Sval)),
    row(0x3a, "EIATTR_COROUTINE_RESUME_ID_OFFSETS", None),
    row(0x3b, "EIATTR_SAM_REGION_STACK_SIZE", None),
    row(0x3c, "EIATTR_PER_REG_TARGET_PERF_STATS", None),
    row(0x3d, "EIATTR_CTA_PER_CLUSTER", Some(Sval)),
    row(0x3e, "EIATTR_EXPLICIT_CLUSTER", Some(Nval)),
    row(0x3f, "EIATTR_MAX_CLUSTER_RANK", Some(Sval)),
    row(0x40, "EIATTR_INSTR_REG_MAP", None),
    row(0x41, "EIATTR_RESERVED_SMEM_USED", None),
    row(0x42, "EIATTR_RESERVED_SMEM_0_SIZE", None),
    row(0x43, "EIATTR_UCODE_SECTION_DATA", None),
    row(0x44, "EIATTR_UNUSED_LOAD_BYTE_OFFSET", Some(Sval)),
    row(0x45, "EIATTR_KPARAM_INFO_V2", None),
    row(0x46, "EIATTR_SYSCALL_OFFSETS", Some(Sval)),
    row(0x48, "EIATTR_GRAPHICS_GLOBAL_CBANK", None),
    row(0x49, "EIATTR_SHADER_TYPE", None),
    row(0x4a, "EIATTR_VRC_CTA_INIT_COUNT", None),
    row(0x4b, "EIATTR_TOOLS_PATCH_FUNC", None),
    row(0x4c, "EIATTR_NUM_BARRIERS", Some(Bval)),
    row(0x4d, "EIATTR_TEXMODE_INDEPENDENT", None),
    row(0x4e, "EIATTR_PERF_STATISTICS", None),
    row(0x4f, "EIATTR_AT_ENTRY_FRAGMENTS", None),
    row(0x50, "EIATTR_SPARSE_MMA_MASK", Some(Hval)),
    row(0x51, "EIATTR_TCGEN05_1CTA_USED", None),
    row(0x52, "EIATTR_TCGEN05_2CTA_USED", None),
    row(0x53, "EIATTR_GEN_ERRBAR_AT_EXIT", None),
    row(0x54, "EIATTR_REG_RECONFIG", None),
    row(0x55, "EIATTR_ANNOTATIONS", None),
    row(0x57, "EIATTR_STACK_CANARY_TRAP_OFFSETS", None),
    row(0x58, "EIATTR_STUB_FUNCTION_KIND", None),
    row(0x59, "EIATTR_LOCAL_CTA_ASYNC_STORE_OFFSETS", None),
    row(0x5b, "EIATTR_BLOCKS_ARE_CLUSTERS", None),
    row(0x5c, "EIATTR_SANITIZE", None),
    row(0x5d, "EIATTR_SYSCALLS_FALLBACK", None),
    row(0x5e, "EIATTR_CUDA_REQ", None),
    row(0x61, "EIATTR_RTCORE_ENTRY", None),
    row(0x62, "EIATTR_CLUSTER_LAUNCH_CONTROL_USED", None),
    row(0x64, "EIATTR_MIN_PER_CTA_MEMORY_SIZE", None),
    row(0x65, "EIATTR_IGNOREOOB_CP_ASYNC_BULK_INSTR_OFFSETS", None),
    row(0x66, "EIATTR_LANGUAGE", Some(Sval)),
    row(0x68, "EIATTR_GRID_ATTRIBUTES", None),
    row(0x69, "EIATTR_STACK_OFFSET", None),
    row(0x6a, "EIATTR_RT_LIVESTATE_SASS_MAP", None),
    row(0x6b, "EIATTR_NVSAL_SW_WAR", Some(Hval)),
    row(0x6c, "EIATTR_INSTR_OFFSETS", None),
    row(0x6d, "EIATTR_PREEXIT_USED", Some(Bval)),
];

const fn row(id: u8, name: &'static str, format: Option<Format>) -> EiAttr {
    EiAttr { id, name, format }
}

/// The table row for `id`.
pub fn eiattr(id: u8) -> Option<&'static EiAttr> {
    EIATTRS.iter().find(|a| a.id == id)
}

/// Whether record `r` has the format the table gives for its attribute (`true` when the
/// table has none).
pub fn has_expected_format(r: &NvInfoAttr) -> bool {
    eiattr(r.id).and_then(|a| a.format).is_none_or(|f| f as u8 == r.format)
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
                .ok_or_else(|| bad(format!("{} payload of {value} bytes cut short", eiattr_name(id))))?
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
