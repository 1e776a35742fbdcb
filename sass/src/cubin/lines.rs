//! DWARF line tables as ptxas writes them for `-lineinfo`: a version 3 line program with
//! ptxas's header constants (line base -5, line range 14, opcode base 13), one sequence per
//! kernel that starts at the kernel's symbol (a `R_CUDA_64` relocation on the
//! `DW_LNE_set_address` operand) and ends at the end of its code. `.debug_line` maps SASS
//! addresses to the lines of the `.file` sources, `.nv_debug_line_sass` to the lines of the
//! PTX (file 0, the text in `.nv_debug_ptx_txt`).

use super::model::RawSection;
use super::reloc::{Reloc, RelocKind};

/// A file of the line program's file table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineFile {
    /// The path as the `.file` directive wrote it.
    pub path: String,
    /// Modification time (0 if unknown).
    pub mtime: u64,
    /// Size in bytes (0 if unknown).
    pub size: u64,
}

/// One row: from `addr` on, the code belongs to `line` of `file` (1-based in the file table;
/// 0 for the PTX itself).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineRow {
    /// Byte offset in the kernel's code.
    pub addr: u64,
    /// File number.
    pub file: u32,
    /// Line number (from 1).
    pub line: u32,
}

/// The rows of one kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineSequence {
    /// The kernel's symbol.
    pub symbol: String,
    /// Size of the kernel's code (the sequence ends there).
    pub end: u64,
    /// Rows in address order.
    pub rows: Vec<LineRow>,
}

const VERSION: u16 = 3;
const LINE_BASE: i8 = -5;
const LINE_RANGE: u8 = 14;
const OPCODE_BASE: u8 = 13;
const STANDARD_OPCODE_LENGTHS: [u8; 12] = [0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1];
const DW_LNS_COPY: u8 = 1;
const DW_LNS_ADVANCE_PC: u8 = 2;
const DW_LNS_ADVANCE_LINE: u8 = 3;
const DW_LNS_SET_FILE: u8 = 4;
const DW_LNS_SET_PROLOGUE_END: u8 = 10;
const DW_LNE_END_SEQUENCE: u8 = 1;
const DW_LNE_SET_ADDRESS: u8 = 2;

/// A line-table section `name` for `files` and `sequences`.
pub fn line_section(name: &str, files: &[LineFile], sequences: &[LineSequence]) -> RawSection {
    let header = header(files);
    let mut program = Vec::new();
    let mut relocs = Vec::new();
    // Offset of the program in the section: unit length (4), version (2), header length (4).
    let base = 10 + header.len() as u64;
    for s in sequences {
        relocs.push(Reloc::new(
            base + program.len() as u64 + 3,
            RelocKind::R_CUDA_64,
            s.symbol.clone(),
        ));
        sequence(&mut program, s);
    }
    let mut data = Vec::new();
    let unit_length = 2 + 4 + header.len() + program.len();
    data.extend_from_slice(&(unit_length as u32).to_le_bytes());
    data.extend_from_slice(&VERSION.to_le_bytes());
    data.extend_from_slice(&(header.len() as u32).to_le_bytes());
    data.extend_from_slice(&header);
    data.extend_from_slice(&program);
    let mut section = RawSection::progbits(name, data);
    section.relocs = relocs;
    section
}

/// The header after its length field: parameters, directories, files.
fn header(files: &[LineFile]) -> Vec<u8> {
    let mut h = vec![1, 1, LINE_BASE as u8, LINE_RANGE, OPCODE_BASE];
    h.extend_from_slice(&STANDARD_OPCODE_LENGTHS);
    let mut dirs: Vec<&str> = Vec::new();
    let mut entries = Vec::new();
    for f in files {
        let (dir, name) = match f.path.rsplit_once('/') {
            Some((d, n)) => (Some(if d.is_empty() { "/" } else { d }), n),
            None => (None, f.path.as_str()),
        };
        let index = match dir {
            None => 0,
            Some(d) => match dirs.iter().position(|x| *x == d) {
                Some(i) => i + 1,
                None => {
                    dirs.push(d);
                    dirs.len()
                }
            },
        };
        entries.push((name, index as u64, f.mtime, f.size));
    }
    for d in dirs {
        h.extend_from_slice(d.as_bytes());
        h.push(0);
    }
    h.push(0);
    for (name, dir, mtime, size) in entries {
        h.extend_from_slice(name.as_bytes());
        h.push(0);
        for v in [dir, mtime, size] {
            uleb(&mut h, v);
        }
    }
    h.push(0);
    h
}

/// One sequence: set the address, then a row per change, then the end.
fn sequence(p: &mut Vec<u8>, s: &LineSequence) {
    p.extend_from_slice(&[0, 9, DW_LNE_SET_ADDRESS]);
    p.extend_from_slice(&0u64.to_le_bytes());
    let (mut addr, mut file, mut line) = (0u64, 1u32, 1i64);
    for (i, r) in s.rows.iter().enumerate() {
        if i == 0 || r.file != file {
            p.push(DW_LNS_SET_FILE);
            uleb(p, r.file as u64);
            file = r.file;
        }
        if r.addr > addr {
            p.push(DW_LNS_ADVANCE_PC);
            uleb(p, r.addr - addr);
            addr = r.addr;
        }
        if r.line as i64 != line {
            p.push(DW_LNS_ADVANCE_LINE);
            sleb(p, r.line as i64 - line);
            line = r.line as i64;
        }
        p.push(DW_LNS_COPY);
        if i == 0 {
            p.push(DW_LNS_SET_PROLOGUE_END);
        }
    }
    if s.end > addr {
        p.push(DW_LNS_ADVANCE_PC);
        uleb(p, s.end - addr);
    }
    p.extend_from_slice(&[0, 1, DW_LNE_END_SEQUENCE]);
}

fn uleb(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn sleb(out: &mut Vec<u8>, mut v: i64) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        let done = (v == 0 && byte & 0x40 == 0) || (v == -1 && byte & 0x40 != 0);
        out.push(if done { byte } else { byte | 0x80 });
        if done {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leb128() {
        let enc = |f: fn(&mut Vec<u8>, i64), v| {
            let mut b = Vec::new();
            f(&mut b, v);
            b
        };
        assert_eq!(enc(|b, v| uleb(b, v as u64), 624485), [0xe5, 0x8e, 0x26]);
        assert_eq!(enc(sleb, -123456), [0xc0, 0xbb, 0x78]);
        assert_eq!(enc(sleb, 63), [0x3f]);
        assert_eq!(enc(sleb, 64), [0xc0, 0x00]);
        assert_eq!(enc(sleb, -1), [0x7f]);
    }

    /// ptxas 13.5's `.nv_debug_line_sass` header, whose file table is empty.
    #[test]
    fn empty_file_table_header_is_ptxas_s() {
        let s = line_section(".nv_debug_line_sass", &[], &[]);
        assert_eq!(
            s.data,
            [
                0x19, 0, 0, 0, 3, 0, 0x13, 0, 0, 0, 1, 1, 0xfb, 0x0e, 0x0d, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0
            ]
        );
    }

    #[test]
    fn directories_are_split_off_and_shared() {
        let f = |p: &str| LineFile {
            path: p.into(),
            ..LineFile::default()
        };
        let h = header(&[f("/tmp/src/a.py"), f("b.py"), f("/tmp/src/c.py")]);
        let tail = &h[5 + STANDARD_OPCODE_LENGTHS.len()..];
        assert_eq!(tail, b"/tmp/src\0\0a.py\0\x01\0\0b.py\0\0\0\0c.py\0\x01\0\0\0");
    }

    #[test]
    fn sequence_relocation_points_at_the_address() {
        let seq = LineSequence {
            symbol: "k".into(),
            end: 0x40,
            rows: vec![
                LineRow {
                    addr: 0,
                    file: 1,
                    line: 3,
                },
                LineRow {
                    addr: 0x20,
                    file: 1,
                    line: 2,
                },
            ],
        };
        let s = line_section(".debug_line", &[], &[seq]);
        let at = s.relocs[0].offset as usize;
        assert_eq!(&s.data[at - 3..at], &[0, 9, DW_LNE_SET_ADDRESS]);
        assert_eq!(&s.data[at..at + 8], &[0; 8]);
        let program = &s.data[at + 8..];
        assert_eq!(program, [4, 1, 3, 2, 1, 10, 2, 0x20, 3, 0x7f, 1, 2, 0x20, 0, 1, 1]);
    }
}
