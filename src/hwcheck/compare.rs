//! Output comparison: the buffers the GPU left against the simulator's, byte for byte, with
//! the elements that differ described in the buffer's own type.

use crate::launch::Scalar;
use crate::npy::Array;
use serde::Serialize;
use std::collections::BTreeMap;

/// How one buffer differs.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct BufferDiff {
    /// The buffer's name in the launch spec.
    pub buffer: String,
    /// Elements that differ (or, when the lengths differ, the larger length).
    pub elements: usize,
    /// Elements in the buffer.
    pub len: usize,
    /// The first element that differs.
    pub first: usize,
    /// Its value on the GPU.
    pub gpu: String,
    /// Its value on the simulator.
    pub sim: String,
}

/// Every buffer that differs between `gpu` and `sim`; a buffer only one side has is a
/// difference too.
pub fn compare(gpu: &BTreeMap<String, Array>, sim: &BTreeMap<String, Array>) -> Vec<BufferDiff> {
    let names: std::collections::BTreeSet<&String> = gpu.keys().chain(sim.keys()).collect();
    names
        .into_iter()
        .filter_map(|name| match (gpu.get(name), sim.get(name)) {
            (Some(g), Some(s)) => diff(name, g, s),
            (g, s) => Some(BufferDiff {
                buffer: name.clone(),
                elements: g.or(s).map_or(0, Array::len),
                len: g.or(s).map_or(0, Array::len),
                first: 0,
                gpu: if g.is_some() { "present" } else { "missing" }.into(),
                sim: if s.is_some() { "present" } else { "missing" }.into(),
            }),
        })
        .collect()
}

/// How `g` differs from `s`, if it does.
fn diff(name: &str, g: &Array, s: &Array) -> Option<BufferDiff> {
    if g.bytes == s.bytes && g.dtype == s.dtype {
        return None;
    }
    if g.bytes.len() != s.bytes.len() || g.dtype != s.dtype {
        return Some(BufferDiff {
            buffer: name.into(),
            elements: g.len().max(s.len()),
            len: s.len(),
            first: 0,
            gpu: format!("{} x {}", g.dtype.name(), g.len()),
            sim: format!("{} x {}", s.dtype.name(), s.len()),
        });
    }
    let size = s.dtype.size();
    let differing: Vec<usize> = (0..s.len())
        .filter(|&i| g.bytes[i * size..(i + 1) * size] != s.bytes[i * size..(i + 1) * size])
        .collect();
    let first = *differing.first()?;
    Some(BufferDiff {
        buffer: name.into(),
        elements: differing.len(),
        len: s.len(),
        first,
        gpu: element(g, first),
        sim: element(s, first),
    })
}

/// Element `i` of `a` as text, with its bits for floats (`1.5 (0x3fc00000)`).
pub fn element(a: &Array, i: usize) -> String {
    let size = a.dtype.size();
    let Some(bytes) = a.bytes.get(i * size..(i + 1) * size) else {
        return "out of range".into();
    };
    let mut b = [0u8; 8];
    b[..size].copy_from_slice(bytes);
    let u = u64::from_le_bytes(b);
    match a.dtype {
        Scalar::U8 | Scalar::U16 | Scalar::U32 | Scalar::U64 => u.to_string(),
        Scalar::I8 => (u as i8).to_string(),
        Scalar::I16 => (u as i16).to_string(),
        Scalar::I32 => (u as i32).to_string(),
        Scalar::I64 => (u as i64).to_string(),
        Scalar::F16 => format!("{} ({u:#06x})", half::f16::from_bits(u as u16)),
        Scalar::F32 => format!("{} ({u:#010x})", f32::from_bits(u as u32)),
        Scalar::F64 => format!("{} ({u:#018x})", f64::from_bits(u)),
    }
}
