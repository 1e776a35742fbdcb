//! Line information (`-lineinfo`): from the PTX position each SASS instruction carries to
//! the three sections ptxas writes — `.debug_line` (the `.loc` lines), `.nv_debug_line_sass`
//! (the PTX lines) and `.nv_debug_ptx_txt` (the PTX text those lines count in).
//!
//! Instructions without a position (moves and spills from register allocation, scheduling
//! NOPs, code the back end adds) take the position of the instruction before them; the ones
//! before the first positioned instruction (the prologue) take the first position.

use ptxc_mir::ir::SrcLoc;
use ptxc_sass::cubin::{LineFile, LineRow, LineSequence, RawSection, line_section};
use rustc_hash::FxHashMap as HashMap;

/// Where one PTX instruction is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// Its line in the PTX (from 1).
    pub ptx_line: u32,
    /// The `.loc` in force: (number in [`LineMap::files`] from 1, line).
    pub source: Option<(u32, u32)>,
}

/// The PTX position of each instruction, by the byte offset of its text.
pub type PositionMap = HashMap<u32, Position>;

/// What the front end knows about the PTX's lines, keyed by instruction byte offset.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineMap {
    /// The `.file` table.
    pub files: Vec<LineFile>,
    /// Every PTX instruction's position, by the byte offset where it starts.
    pub positions: PositionMap,
    /// The contents of `.nv_debug_ptx_txt`: the PTX lines, each ended by a NUL.
    pub ptx_text: Vec<u8>,
}

/// One kernel's code as the line tables see it.
pub struct KernelLines<'a> {
    /// Its symbol.
    pub name: &'a str,
    /// The PTX position of each instruction, in address order (16 bytes each).
    pub srclocs: &'a [SrcLoc],
    /// Size of its code with padding.
    pub code_size: u64,
}

/// The three line sections for `kernels`.
pub fn line_sections(map: &LineMap, kernels: &[KernelLines]) -> Vec<RawSection> {
    let mut source = Vec::new();
    let mut ptx = Vec::new();
    for k in kernels {
        let positions: Vec<Option<Position>> = k
            .srclocs
            .iter()
            .map(|s| s.offset().and_then(|o| map.positions.get(&o).copied()))
            .collect();
        let lines = |f: &dyn Fn(&Position) -> Option<(u32, u32)>| {
            let values: Vec<Option<(u32, u32)>> = positions.iter().map(|p| p.as_ref().and_then(f)).collect();
            sequence(k, &values)
        };
        source.extend(lines(&|p| p.source));
        ptx.extend(lines(&|p| Some((0, p.ptx_line))));
    }
    vec![
        line_section(".debug_line", &map.files, &source),
        line_section(".nv_debug_line_sass", &[], &ptx),
        RawSection::progbits(".nv_debug_ptx_txt", map.ptx_text.clone()),
    ]
}

/// A row wherever the (file, line) of the instructions changes, gaps filled as the module
/// documentation says; `None` when no instruction has a line.
fn sequence(k: &KernelLines, values: &[Option<(u32, u32)>]) -> Option<LineSequence> {
    let mut current = values.iter().flatten().next().copied()?;
    let mut rows: Vec<LineRow> = Vec::new();
    for (i, v) in values.iter().enumerate() {
        current = v.unwrap_or(current);
        let (file, line) = current;
        if rows.last().is_none_or(|r| (r.file, r.line) != current) {
            rows.push(LineRow {
                addr: 16 * i as u64,
                file,
                line,
            });
        }
    }
    Some(LineSequence {
        symbol: k.name.to_string(),
        end: k.code_size,
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_change_with_the_line_and_fill_gaps() {
        let srclocs = [
            SrcLoc::NONE,
            SrcLoc::at(10),
            SrcLoc::NONE,
            SrcLoc::at(20),
            SrcLoc::at(30),
        ];
        let k = KernelLines {
            name: "k",
            srclocs: &srclocs,
            code_size: 0x80,
        };
        let mut map = LineMap::default();
        map.positions.insert(
            10,
            Position {
                ptx_line: 4,
                source: None,
            },
        );
        map.positions.insert(
            20,
            Position {
                ptx_line: 5,
                source: Some((1, 7)),
            },
        );
        map.positions.insert(
            30,
            Position {
                ptx_line: 5,
                source: Some((1, 8)),
            },
        );
        let values: Vec<_> = srclocs
            .iter()
            .map(|s| s.offset().and_then(|o| map.positions.get(&o)).map(|p| (0, p.ptx_line)))
            .collect();
        let rows = sequence(&k, &values).unwrap().rows;
        let lines: Vec<(u64, u32)> = rows.iter().map(|r| (r.addr, r.line)).collect();
        assert_eq!(lines, [(0, 4), (0x30, 5)]);
        let values: Vec<_> = srclocs
            .iter()
            .map(|s| s.offset().and_then(|o| map.positions.get(&o)).and_then(|p| p.source))
            .collect();
        let rows = sequence(&k, &values).unwrap().rows;
        let lines: Vec<(u64, u32)> = rows.iter().map(|r| (r.addr, r.line)).collect();
        assert_eq!(lines, [(0, 7), (0x40, 8)]);
        assert_eq!(line_sections(&map, &[k]).len(), 3);
    }
}
