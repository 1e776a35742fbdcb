//! Module images as programs hand them to the driver: a pointer with no length, to a cubin
//! (ELF), a fat binary (possibly behind nvcc's `__fatBinC_Wrapper_t`) or NUL-terminated PTX
//! text. This module finds each image's extent and, for fat binaries, picks the entry the
//! simulated device runs: SASS of its architecture, else the newest PTX it can compile.
//!
//! Fat binary layout (as public reverse-engineering notes of cuobjdump describe it, and as
//! NVIDIA's `fatbinary` 13.5 writes it: `tests/fatbin.rs` loads its output): a 16-byte header
//! (magic `0xBA55ED50`, version, header size, size of the entries), then entries, each a header
//! (kind at 0: 1 PTX, 2 ELF; header size at 4: 64, or 80 for PTX; stored size at 8; compressed
//! size at 16; architecture at 28; flags at 40, where `0x8000` marks a payload compressed with
//! Zstandard; uncompressed size at 56) followed by its stored payload.

use crate::state::CuResult;
use crate::types::CUresult;
use std::ffi::{CStr, c_void};

/// ELF magic.
const ELF_MAGIC: [u8; 4] = *b"\x7fELF";
/// Fat binary magic.
pub const FATBIN_MAGIC: u32 = 0xBA55_ED50;
/// `__fatBinC_Wrapper_t` magic.
const WRAPPER_MAGIC: u32 = 0x4662_43B1;
/// The entry flag that marks a Zstandard-compressed payload.
const COMPRESSED: u64 = 0x8000;

/// What an image holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Image {
    /// A cubin.
    Cubin(Vec<u8>),
    /// A fat binary.
    Fatbin(Vec<u8>),
    /// PTX text.
    Ptx(String),
}

/// Reads `n` bytes at `p`.
///
/// # Safety
/// `p` is valid for `n` bytes.
unsafe fn bytes<'a>(p: *const u8, n: usize) -> &'a [u8] {
    // SAFETY: by the caller's contract.
    unsafe { std::slice::from_raw_parts(p, n) }
}

fn u16_at(b: &[u8], o: usize) -> u64 {
    u16::from_le_bytes([b[o], b[o + 1]]) as u64
}

fn u32_at(b: &[u8], o: usize) -> u64 {
    u32::from_le_bytes(b[o..o + 4].try_into().expect("4 bytes")) as u64
}

fn u64_at(b: &[u8], o: usize) -> u64 {
    u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"))
}

/// The extent of the 64-bit ELF file at `p`: the furthest of its header tables, sections
/// and segments.
///
/// # Safety
/// `p` points to a complete ELF file.
unsafe fn elf_size(p: *const u8) -> usize {
    let h = unsafe { bytes(p, 64) };
    let (phoff, shoff) = (u64_at(h, 32), u64_at(h, 40));
    let (phentsize, phnum) = (u16_at(h, 54), u16_at(h, 56));
    let (shentsize, shnum) = (u16_at(h, 58), u16_at(h, 60));
    let mut end = 64.max(phoff + phentsize * phnum).max(shoff + shentsize * shnum);
    for i in 0..shnum {
        let s = unsafe { bytes(p.add((shoff + i * shentsize) as usize), 64) };
        const SHT_NOBITS: u64 = 8;
        if u32_at(s, 4) != SHT_NOBITS {
            end = end.max(u64_at(s, 24) + u64_at(s, 32));
        }
    }
    for i in 0..phnum {
        let s = unsafe { bytes(p.add((phoff + i * phentsize) as usize), 56) };
        end = end.max(u64_at(s, 8) + u64_at(s, 32));
    }
    end as usize
}

/// Reads the image at `p`.
///
/// # Safety
/// `p` points to a complete cubin, fat binary, fat binary wrapper or NUL-terminated PTX.
pub unsafe fn read(p: *const c_void) -> CuResult<Image> {
    if p.is_null() {
        return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
    }
    let p = p.cast::<u8>();
    let head = unsafe { bytes(p, 4) };
    if head == ELF_MAGIC {
        let n = unsafe { elf_size(p) };
        return Ok(Image::Cubin(unsafe { bytes(p, n) }.to_vec()));
    }
    let magic = u32_at(head, 0) as u32;
    if magic == WRAPPER_MAGIC {
        let w = unsafe { bytes(p, 16) };
        return unsafe { read(u64_at(w, 8) as *const c_void) };
    }
    if magic == FATBIN_MAGIC {
        let h = unsafe { bytes(p, 16) };
        let n = (u16_at(h, 6) + u64_at(h, 8)) as usize;
        return Ok(Image::Fatbin(unsafe { bytes(p, n) }.to_vec()));
    }
    let text = unsafe { CStr::from_ptr(p.cast()) };
    let text = text.to_str().map_err(|_| CUresult::CUDA_ERROR_INVALID_IMAGE)?;
    if text.contains(".version") || text.contains(".target") || text.contains(".entry") {
        Ok(Image::Ptx(text.to_string()))
    } else {
        Err(CUresult::CUDA_ERROR_INVALID_IMAGE)
    }
}

/// Classifies an image given with its length (a file, or a link input).
pub fn classify(data: &[u8]) -> CuResult<Image> {
    if data.starts_with(&ELF_MAGIC) {
        return Ok(Image::Cubin(data.to_vec()));
    }
    if data.len() >= 16 && u32_at(data, 0) as u32 == FATBIN_MAGIC {
        return Ok(Image::Fatbin(data.to_vec()));
    }
    let end = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let text = std::str::from_utf8(&data[..end]).map_err(|_| CUresult::CUDA_ERROR_INVALID_IMAGE)?;
    Ok(Image::Ptx(text.to_string()))
}

/// One entry of a fat binary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// 1 PTX, 2 ELF.
    pub kind: u16,
    /// Architecture (75 for sm_75 or compute_75).
    pub arch: u32,
    /// The payload (decompressed), or why it could not be read.
    pub payload: Result<Vec<u8>, String>,
}

/// Decompresses a Zstandard payload.
fn decompress(data: &[u8]) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let mut src = data;
    let mut dec = ruzstd::decoding::StreamingDecoder::new(&mut src).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    dec.read_to_end(&mut out).map_err(|e| e.to_string())?;
    Ok(out)
}

/// The entries of fat binary `fb`.
pub fn entries(fb: &[u8]) -> CuResult<Vec<Entry>> {
    let bad = || CUresult::CUDA_ERROR_INVALID_IMAGE;
    if fb.len() < 16 || u32_at(fb, 0) as u32 != FATBIN_MAGIC {
        return Err(bad());
    }
    let end = ((u16_at(fb, 6) + u64_at(fb, 8)) as usize).min(fb.len());
    let mut at = u16_at(fb, 6) as usize;
    let mut out = Vec::new();
    while at + 64 <= end {
        let e = &fb[at..at + 64];
        let header = u32_at(e, 4) as usize;
        let stored = u64_at(e, 8) as usize;
        if header < 64 {
            break;
        }
        let start = at + header;
        let stored_bytes = fb.get(start..start + stored).ok_or_else(bad)?;
        let payload = if u64_at(e, 40) & COMPRESSED != 0 {
            let len = (u32_at(e, 16) as usize).min(stored);
            decompress(&stored_bytes[..len]).map_err(|m| format!("cannot decompress: {m}"))
        } else {
            Ok(stored_bytes.to_vec())
        };
        out.push(Entry {
            kind: u16_at(e, 0) as u16,
            arch: u32_at(e, 28) as u32,
            payload,
        });
        at = start + stored;
    }
    Ok(out)
}

/// What a fat binary offers the device of architecture `sm`: its SASS, else the newest PTX
/// for an architecture at most `sm`; if there is neither, the error lists what there is.
pub fn select(fb: &[u8], sm: u32) -> Result<Image, String> {
    let entries = entries(fb).map_err(|_| "the fat binary is malformed".to_string())?;
    let usable = |e: &&Entry| e.payload.is_ok();
    if let Some(e) = entries.iter().filter(usable).find(|e| e.kind == 2 && e.arch == sm) {
        return Ok(Image::Cubin(e.payload.clone().expect("usable")));
    }
    if let Some(e) = entries
        .iter()
        .filter(usable)
        .filter(|e| e.kind == 1 && e.arch <= sm)
        .max_by_key(|e| e.arch)
    {
        let p = e.payload.as_ref().expect("usable");
        let end = p.iter().position(|&b| b == 0).unwrap_or(p.len());
        return Ok(Image::Ptx(String::from_utf8_lossy(&p[..end]).into_owned()));
    }
    let list: Vec<String> = entries
        .iter()
        .map(|e| {
            let kind = if e.kind == 1 { "PTX compute" } else { "SASS sm" };
            let why = e.payload.as_ref().err().map(|m| format!(" ({m})")).unwrap_or_default();
            format!("{kind}_{}{why}", e.arch)
        })
        .collect();
    Err(format!(
        "the fat binary has no sm_{sm} SASS and no PTX for compute_{sm} or older (it has: {})",
        list.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fat binary with the given (kind, arch, flags, payload) entries.
    fn fatbin(entries: &[(u16, u32, u64, &[u8])]) -> Vec<u8> {
        let mut body = Vec::new();
        for &(kind, arch, flags, payload) in entries {
            let stored = payload.len().next_multiple_of(8);
            let mut e = vec![0u8; 64];
            e[0..2].copy_from_slice(&kind.to_le_bytes());
            e[4..8].copy_from_slice(&64u32.to_le_bytes());
            e[8..16].copy_from_slice(&(stored as u64).to_le_bytes());
            if flags & COMPRESSED != 0 {
                e[16..20].copy_from_slice(&(payload.len() as u32).to_le_bytes());
            }
            e[28..32].copy_from_slice(&arch.to_le_bytes());
            e[40..48].copy_from_slice(&flags.to_le_bytes());
            body.extend(e);
            body.extend(payload);
            body.resize(body.len() + stored - payload.len(), 0);
        }
        let mut fb = FATBIN_MAGIC.to_le_bytes().to_vec();
        fb.extend(1u16.to_le_bytes());
        fb.extend(16u16.to_le_bytes());
        fb.extend((body.len() as u64).to_le_bytes());
        fb.extend(body);
        fb
    }

    #[test]
    fn sass_of_the_device_wins_then_the_newest_older_ptx() {
        let fb = fatbin(&[
            (1, 70, 0, b".version 7.0 // old"),
            (2, 80, 0, b"\x7fELF-sm80"),
            (1, 75, 0, b".version 8.0 // 75"),
            (1, 86, 0, b".version 8.0 // 86"),
        ]);
        assert_eq!(entries(&fb).unwrap().len(), 4);
        assert_eq!(select(&fb, 75).unwrap(), Image::Ptx(".version 8.0 // 75".into()));
        assert!(matches!(select(&fb, 80).unwrap(), Image::Cubin(b) if b.starts_with(b"\x7fELF-sm80")));
        let err = select(&fb, 60).unwrap_err();
        assert!(err.contains("PTX compute_70") && err.contains("SASS sm_80"), "{err}");
    }

    #[test]
    fn undecodable_compressed_entries_are_skipped_and_named() {
        let fb = fatbin(&[(2, 75, 0x8000, b"zz"), (1, 75, 0x8000, b"zz")]);
        let err = select(&fb, 75).unwrap_err();
        assert!(err.contains("SASS sm_75 (cannot decompress"), "{err}");
    }

    #[test]
    fn images_are_told_apart_by_their_first_bytes() {
        let fb = fatbin(&[(1, 75, 0, b".version 8.0\0")]);
        assert_eq!(classify(&fb).unwrap(), Image::Fatbin(fb.clone()));
        // SAFETY: the fat binary is complete.
        assert_eq!(unsafe { read(fb.as_ptr().cast()) }.unwrap(), Image::Fatbin(fb.clone()));
        let ptx = b".version 8.0\n.target sm_75\0";
        assert!(matches!(unsafe { read(ptx.as_ptr().cast()) }.unwrap(), Image::Ptx(_)));
        assert_eq!(
            unsafe { read(c"hello".as_ptr().cast()) }.unwrap_err(),
            CUresult::CUDA_ERROR_INVALID_IMAGE
        );
    }
}
