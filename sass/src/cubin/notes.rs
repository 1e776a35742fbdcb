//! The V8 notes: `.note.nv.tkinfo` (tool information) and `.note.nv.cuinfo` (virtual SM and
//! toolkit version). Both are single ELF notes owned by "NVIDIA Corp".

use super::error::CubinError;
use super::model::ToolInfo;

/// Section name of the tool-information note.
pub const TKINFO: &str = ".note.nv.tkinfo";
/// Section name of the CUDA-information note.
pub const CUINFO: &str = ".note.nv.cuinfo";
const OWNER: &[u8] = b"NVIDIA Corp\0";
const TKINFO_TYPE: u32 = 2000;
const CUINFO_TYPE: u32 = 1000;
const NOTE_VERSION: u32 = 2;

/// The `.note.nv.tkinfo` section contents.
pub fn encode_tkinfo(tool: &ToolInfo) -> Vec<u8> {
    let strings = [
        &tool.object_name,
        &tool.tool_name,
        &tool.tool_version,
        &tool.tool_branch,
        &tool.tool_options,
    ];
    let mut offsets = Vec::new();
    let mut blob = Vec::new();
    for s in strings {
        offsets.push(blob.len() as u32);
        blob.extend_from_slice(s.as_bytes());
        blob.push(0);
    }
    let mut desc: Vec<u8> = std::iter::once(NOTE_VERSION)
        .chain(offsets)
        .flat_map(u32::to_le_bytes)
        .collect();
    desc.extend_from_slice(&blob);
    encode_note(TKINFO_TYPE, &desc)
}

/// The `.note.nv.cuinfo` section contents.
pub fn encode_cuinfo(sm: u32, toolkit_version: u32) -> Vec<u8> {
    let desc: Vec<u8> = [NOTE_VERSION as u16, sm as u16, toolkit_version as u16, 0]
        .into_iter()
        .flat_map(u16::to_le_bytes)
        .collect();
    encode_note(CUINFO_TYPE, &desc)
}

fn encode_note(note_type: u32, desc: &[u8]) -> Vec<u8> {
    let padded = desc.len().next_multiple_of(4);
    let mut out = Vec::new();
    for word in [OWNER.len() as u32, padded as u32, note_type] {
        out.extend_from_slice(&word.to_le_bytes());
    }
    out.extend_from_slice(OWNER);
    out.extend_from_slice(desc);
    out.resize(12 + OWNER.len() + padded, 0);
    out
}

/// Reads a `.note.nv.tkinfo` section.
pub fn decode_tkinfo(bytes: &[u8]) -> Result<ToolInfo, CubinError> {
    let desc = note_desc(TKINFO, bytes, TKINFO_TYPE)?;
    let word = |i: usize| {
        desc.get(4 * i..4 * i + 4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as usize)
            .ok_or_else(|| CubinError::at(TKINFO, 24, "description cut short"))
    };
    let blob = desc.get(24..).unwrap_or_default();
    let string = |i: usize| -> Result<String, CubinError> {
        let start = word(i)?;
        let tail = blob
            .get(start..)
            .ok_or_else(|| CubinError::at(TKINFO, 24 + start as u64, "string offset out of range"))?;
        let end = tail.iter().position(|&b| b == 0).unwrap_or(tail.len());
        Ok(String::from_utf8_lossy(&tail[..end]).into_owned())
    };
    Ok(ToolInfo {
        object_name: string(1)?,
        tool_name: string(2)?,
        tool_version: string(3)?,
        tool_branch: string(4)?,
        tool_options: string(5)?,
    })
}

/// Reads a `.note.nv.cuinfo` section: (virtual SM, toolkit version).
pub fn decode_cuinfo(bytes: &[u8]) -> Result<(u32, u32), CubinError> {
    let desc = note_desc(CUINFO, bytes, CUINFO_TYPE)?;
    let half = |i: usize| {
        desc.get(2 * i..2 * i + 2)
            .map(|h| u32::from(u16::from_le_bytes([h[0], h[1]])))
            .ok_or_else(|| CubinError::at(CUINFO, 24, "description cut short"))
    };
    Ok((half(1)?, half(2)?))
}

fn note_desc<'a>(section: &str, bytes: &'a [u8], expected_type: u32) -> Result<&'a [u8], CubinError> {
    let word = |at: usize| {
        bytes
            .get(at..at + 4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as usize)
            .ok_or_else(|| CubinError::at(section, at as u64, "note header cut short"))
    };
    let (namesz, descsz, note_type) = (word(0)?, word(4)?, word(8)?);
    if note_type as u32 != expected_type {
        return Err(CubinError::at(
            section,
            8,
            format!("note type {note_type}, expected {expected_type}"),
        ));
    }
    let desc_start = 12usize.saturating_add(namesz.next_multiple_of(4));
    bytes
        .get(desc_start..desc_start.saturating_add(descsz))
        .ok_or_else(|| CubinError::at(section, desc_start as u64, "note description cut short"))
}
