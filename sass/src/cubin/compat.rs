//! `.nv.compat` (`SHT_CUDA_COMPAT_INFO`, sm_90 on): `EICOMPAT` records, in the `.nv.info`
//! record format, saying what a driver must support to run the code. ptxas 13.5 writes seven
//! records in this order for every sm_90 module (probed with bulk copies, tensor maps and
//! `-arch=sm_90a`):
//!
//! | id | name (cuobjdump) | format | value |
//! |---|---|---|---|
//! | 9 | `CUDA_ACCELERATOR_TARGET` | byte | 1 for sm_90a, else 0 |
//! | 12 | `CUDA_INTERNAL_TARGET` | byte | 0 |
//! | 2 | `ISA_CLASS` | byte | 2 with `cp.async.bulk*`, else 1 |
//! | 13 | (unknown) | half | 0x101 |
//! | 3 | `INST_TENSORMAP_V1` | byte | 1 with tensor maps, 2 with `tensormap.replace`, else 0 |
//! | 11 | `CAN_FASTPATH_FINALIZE` | 8 bytes | 0 0 |
//! | 14 | `FINALIZER_VERSION` | half | 0x440 (1.1.0) |

use super::eiattr::{decode_records, encode_records};
use super::error::CubinError;
use super::model::{CompatInfo, CubinModule, NvInfoAttr};

/// Section name.
pub const COMPAT: &str = ".nv.compat";
/// `SHT_CUDA_COMPAT_INFO`.
pub const SHT_CUDA_COMPAT_INFO: u32 = 0x7000_0086;

const ACCELERATOR_TARGET: u8 = 9;
const INTERNAL_TARGET: u8 = 12;
const ISA_CLASS: u8 = 2;
const UNNAMED_13: u8 = 13;
const TENSORMAP_V1: u8 = 3;
const CAN_FASTPATH_FINALIZE: u8 = 11;
const FINALIZER_VERSION: u8 = 14;
/// 1.1.0: major in bits 10 and up, minor in bits 6–9, patch in bits 0–5.
const FINALIZER_1_1_0: u16 = 0x440;

/// The records the writer derives for `m`, in ptxas' order.
fn derived(m: &CubinModule) -> Vec<NvInfoAttr> {
    vec![
        NvInfoAttr::bval(ACCELERATOR_TARGET, u8::from(m.arch_specific)),
        NvInfoAttr::bval(INTERNAL_TARGET, 0),
        NvInfoAttr::bval(ISA_CLASS, m.compat.isa_class),
        NvInfoAttr::hval(UNNAMED_13, 0x101),
        NvInfoAttr::bval(TENSORMAP_V1, m.compat.tensormap),
        NvInfoAttr::words(CAN_FASTPATH_FINALIZE, &[0, 0]),
        NvInfoAttr::hval(FINALIZER_VERSION, FINALIZER_1_1_0),
    ]
}

/// `.nv.compat` contents: the derived records, each replaced by a verbatim one with its id,
/// then the other verbatim records.
pub fn encode(m: &CubinModule) -> Vec<u8> {
    let other = &m.compat.other;
    let mut records: Vec<NvInfoAttr> = derived(m)
        .into_iter()
        .map(|d| other.iter().find(|o| o.id == d.id).cloned().unwrap_or(d))
        .collect();
    let derived_ids: Vec<u8> = records.iter().map(|r| r.id).collect();
    records.extend(other.iter().filter(|o| !derived_ids.contains(&o.id)).cloned());
    let mut out = Vec::new();
    encode_records(&records, &mut out);
    out
}

/// Reads `.nv.compat` into `m`: the accelerator target, ISA class and tensor-map level, and
/// verbatim whatever the writer would not derive the same.
pub fn decode(bytes: &[u8], m: &mut CubinModule) -> Result<(), CubinError> {
    let records: Vec<NvInfoAttr> = decode_records(COMPAT, bytes)?.into_iter().map(|(_, r)| r).collect();
    let byte = |id: u8| {
        records
            .iter()
            .find(|r| r.id == id && r.payload.is_empty())
            .and_then(|r| u8::try_from(r.value).ok())
    };
    m.arch_specific = byte(ACCELERATOR_TARGET).is_some_and(|v| v != 0);
    m.compat = CompatInfo {
        isa_class: byte(ISA_CLASS).unwrap_or(1),
        tensormap: byte(TENSORMAP_V1).unwrap_or(0),
        other: Vec::new(),
    };
    if encode(m) != bytes {
        m.compat.other = records;
    }
    Ok(())
}
