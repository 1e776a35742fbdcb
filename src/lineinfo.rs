//! The PTX side of `-lineinfo`: every instruction's PTX line and the `.loc` in force there,
//! the `.file` table, and the PTX text as ptxas stores it in `.nv_debug_ptx_txt` (one entry
//! per source line, indentation and comments dropped, `.loc` and `.file` lines left empty).

use ptxc_backend::lines::{LineMap, Position};
use ptxc_frontend::checked::{CheckedModule, CheckedStmt, SourceFile};
use ptxc_sass::cubin::LineFile;
use std::collections::HashMap;

/// The line map of `src`, whose checked form is `m`.
pub fn line_map(src: &str, m: &CheckedModule) -> LineMap {
    let starts = line_starts(src);
    let line_of = |offset: u32| starts.partition_point(|&s| s <= offset as usize) as u32;
    let numbers: HashMap<u32, u32> = m
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.index, i as u32 + 1))
        .collect();
    let mut positions = ptxc_backend::lines::PositionMap::default();
    for f in &m.functions {
        let mut source = None;
        for stmt in &f.body {
            match stmt {
                CheckedStmt::Loc { file, line, .. } => source = numbers.get(file).map(|&n| (n, *line)),
                CheckedStmt::Inst(i) => {
                    let ptx_line = line_of(i.span.start);
                    positions.insert(i.span.start, Position { ptx_line, source });
                }
                CheckedStmt::Label(_) => {}
            }
        }
    }
    LineMap {
        files: m.files.iter().map(|f| line_file(src, f)).collect(),
        positions,
        ptx_text: ptx_text(src),
    }
}

/// Byte offsets where the lines of `src` start.
fn line_starts(src: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(src.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}

/// A `.file` entry with the timestamp and size written after its name, if any.
fn line_file(src: &str, f: &SourceFile) -> LineFile {
    let text = src.get(f.span.start as usize..f.span.end as usize).unwrap_or("");
    let after_name = text.rsplit_once('"').map_or("", |(_, rest)| rest);
    let mut numbers = after_name
        .split(',')
        .filter_map(|n| ptxc_frontend::literal::parse_int(n.trim()).ok())
        .map(|(v, _)| v);
    LineFile {
        path: f.name.clone(),
        mtime: numbers.next().unwrap_or(0),
        size: numbers.next().unwrap_or(0),
    }
}

/// `.nv_debug_ptx_txt`: each line of `src` ended by a NUL, trailing empty lines dropped.
fn ptx_text(src: &str) -> Vec<u8> {
    let lines: Vec<&str> = src
        .lines()
        .map(|l| {
            let l = l.split("//").next().unwrap_or("").trim();
            if l.starts_with(".loc") || l.starts_with(".file") {
                ""
            } else {
                l
            }
        })
        .collect();
    let used = lines.iter().rposition(|l| !l.is_empty()).map_or(0, |i| i + 1);
    lines[..used]
        .iter()
        .flat_map(|l| l.bytes().chain(std::iter::once(0)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = ".version 7.0
.target sm_75
.address_size 64

.visible .entry k(.param .u64 p)
{
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];  // first
  .loc 2 10 1
  st.global.u64 [%rd1], %rd1;
  .loc 1 3 0
  ret;
}
.file 1 \"/tmp/a.py\"
.file 2 \"b.py\", 1700000000, 1234
";

    #[test]
    fn positions_files_and_text() {
        let m = ptxc_frontend::parse_and_check(SRC).expect("checks");
        let map = line_map(SRC, &m);
        let mut got: Vec<Position> = map.positions.values().copied().collect();
        got.sort_by_key(|p| p.ptx_line);
        let want = [(8, None), (10, Some((2, 10))), (12, Some((1, 3)))];
        let want: Vec<Position> = want
            .iter()
            .map(|&(ptx_line, source)| Position { ptx_line, source })
            .collect();
        assert_eq!(got, want);
        assert_eq!(map.files[1].path, "b.py");
        assert_eq!((map.files[1].mtime, map.files[1].size), (1700000000, 1234));
        assert_eq!((map.files[0].mtime, map.files[0].size), (0, 0));
        let text = String::from_utf8(map.ptx_text).unwrap();
        let lines: Vec<&str> = text.split('\0').collect();
        assert_eq!(lines[7], "ld.param.u64 %rd1, [p];");
        assert_eq!(lines[8], "");
        assert_eq!(lines[12], "}");
        assert_eq!(lines.len(), 14, "13 lines, each NUL-ended: {lines:?}");
    }
}
