//! Where the elements of a `wmma` fragment lie, register by register, as ptxas arranges them
//! for sm_75: every fragment is a set of 8x8 blocks in the operand layouts of the hardware's
//! instructions (HMMA.1688 for f16, IMMA.8816 for 8-bit, IMMA.8832 for 4-bit,
//! BMMA.88128 for b1), so that `wmma.mma` is a sequence of those instructions on the
//! fragment registers as they are. Lane `l` has `g = l / 4` and `t = l % 4`; a 32-bit
//! register holds `32 / bits` consecutive elements along K (A and B) or two consecutive
//! columns (f16 C and D) of row `g` of its block, or one element at column `2t` or `2t + 1`
//! (32-bit C and D).
//!
//! `m8n32k16` with f16 is computed transposed, as ptxas does (the SASS of its cubins reads A
//! as HMMA's B and B as HMMA's A): `D^T = B^T A^T + C^T` is an `m32n8k16`, so its C and D
//! blocks are the transposed ones.

use ptxc_frontend::tensor::{Fragment, MmaShape, MmaType};

/// One fragment register: the block it belongs to and how its elements run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Word {
    /// Row of the block's origin in the matrix.
    pub row: u32,
    /// Column of the block's origin.
    pub col: u32,
    /// The elements run along the matrix's columns at row `row + g` (else along its rows at
    /// column `col + g`).
    pub along_cols: bool,
    /// A 32-bit element: which of the lane's two consecutive elements (`2t + j`); `None` for
    /// a register packing `32 / bits` elements starting at `(32 / bits) * t`.
    pub single: Option<u32>,
}

impl Word {
    fn packed(row: u32, col: u32, along_cols: bool) -> Word {
        Word {
            row,
            col,
            along_cols,
            single: None,
        }
    }

    fn transposed(self) -> Word {
        Word {
            row: self.col,
            col: self.row,
            along_cols: !self.along_cols,
            single: self.single,
        }
    }
}

/// The f16 shapes computed transposed (`m8n32k16`).
pub fn transposed(shape: MmaShape) -> bool {
    shape == MmaShape::M8n32k16
}

/// The hardware's `(m, n)` of an f16 shape (`m8n32k16` is computed as `m32n8k16`).
fn hw_dims(shape: MmaShape) -> (u32, u32) {
    let (m, n, _) = shape.dims();
    if transposed(shape) { (n, m) } else { (m, n) }
}

/// HMMA.1688 A blocks of an `m x 16` matrix: pair `kb * (m / 16) + mb` holds rows
/// `16 mb + 8 h + g` (register `h`) at K `8 kb + 2t`.
fn hmma_a(m: u32) -> Vec<Word> {
    let mut w = Vec::new();
    for kb in 0..2 {
        for mb in 0..m / 16 {
            for h in 0..2 {
                w.push(Word::packed(16 * mb + 8 * h, 8 * kb, true));
            }
        }
    }
    w
}

/// HMMA.1688 B blocks of a `16 x n` matrix: register `2 nb + kb` holds column `8 nb + g` at
/// K `8 kb + 2t`.
fn hmma_b(n: u32) -> Vec<Word> {
    let mut w = Vec::new();
    for nb in 0..n / 8 {
        for kb in 0..2 {
            w.push(Word::packed(8 * kb, 8 * nb, false));
        }
    }
    w
}

/// HMMA.1688 C blocks of an `m x n` accumulator: tile `mb * (n / 8) + nb` is a quad (f32:
/// rows `g`, `g + 8`, columns `2t`, `2t + 1`) or a pair (f16: rows `g`, `g + 8`).
fn hmma_c(m: u32, n: u32, f32: bool) -> Vec<Word> {
    let mut w = Vec::new();
    for mb in 0..m / 16 {
        for nb in 0..n / 8 {
            if f32 {
                for q in 0..4 {
                    w.push(Word {
                        single: Some(q & 1),
                        ..Word::packed(16 * mb + 8 * (q >> 1), 8 * nb, true)
                    });
                }
            } else {
                for h in 0..2 {
                    w.push(Word::packed(16 * mb + 8 * h, 8 * nb, true));
                }
            }
        }
    }
    w
}

/// Integer blocks (IMMA and BMMA are m8n8): A block `mb` at rows `8 mb`, B block `nb` at
/// columns `8 nb`, C tile `mb * (n / 8) + nb` a pair of 32-bit elements.
fn int_words(shape: MmaShape, frag: Fragment) -> Vec<Word> {
    let (m, n, _) = shape.dims();
    match frag {
        Fragment::A => (0..m / 8).map(|mb| Word::packed(8 * mb, 0, true)).collect(),
        Fragment::B => (0..n / 8).map(|nb| Word::packed(0, 8 * nb, false)).collect(),
        Fragment::C | Fragment::D => {
            let mut w = Vec::new();
            for mb in 0..m / 8 {
                for nb in 0..n / 8 {
                    for j in 0..2 {
                        w.push(Word {
                            single: Some(j),
                            ..Word::packed(8 * mb, 8 * nb, true)
                        });
                    }
                }
            }
            w
        }
    }
}

/// The registers of a fragment that hold data, in PTX register order (a `wmma` f16
/// multiplicand has 8 PTX registers, of which only these are used on sm_75).
pub fn words(shape: MmaShape, frag: Fragment, ty: MmaType) -> Vec<Word> {
    if !matches!(ty, MmaType::F16 | MmaType::F32) {
        return int_words(shape, frag);
    }
    let (m, n) = hw_dims(shape);
    let t = transposed(shape);
    let flip = |w: Vec<Word>| -> Vec<Word> {
        if t {
            w.into_iter().map(Word::transposed).collect()
        } else {
            w
        }
    };
    match frag {
        Fragment::A if t => flip(hmma_b(n)),
        Fragment::A => hmma_a(m),
        Fragment::B if t => flip(hmma_a(m)),
        Fragment::B => hmma_b(n),
        Fragment::C | Fragment::D => flip(hmma_c(m, n, ty == MmaType::F32)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The elements `(row, col)` a lane's registers hold.
    fn elements(w: &Word, bits: u32, lane: u32) -> Vec<(u32, u32)> {
        let (g, t) = (lane / 4, lane % 4);
        let per = if w.single.is_some() { 1 } else { 32 / bits };
        (0..per)
            .map(|e| {
                let along = match w.single {
                    Some(j) => 2 * t + j,
                    None => per * t + e,
                };
                if w.along_cols {
                    (w.row + g, w.col + along)
                } else {
                    (w.row + along, w.col + g)
                }
            })
            .collect()
    }

    #[test]
    fn every_element_is_held_exactly_once() {
        use Fragment::*;
        use MmaShape::*;
        use MmaType::*;
        let cases = [
            (M16n16k16, F16, F32),
            (M16n16k16, F16, F16),
            (M32n8k16, F16, F32),
            (M8n32k16, F16, F16),
            (M8n32k16, F16, F32),
            (M16n16k16, S8, S32),
            (M32n8k16, U8, S32),
            (M8n32k16, S8, S32),
            (M8n8k32, S4, S32),
            (M8n8k128, B1, S32),
        ];
        for (shape, ab, acc) in cases {
            let (m, n, k) = shape.dims();
            for (frag, ty, rows, cols) in [(A, ab, m, k), (B, ab, k, n), (C, acc, m, n)] {
                let mut seen = BTreeSet::new();
                for lane in 0..32 {
                    for w in words(shape, frag, ty) {
                        for e in elements(&w, ty.bits(), lane) {
                            assert!(e.0 < rows && e.1 < cols, "{shape:?} {frag:?}: {e:?} outside");
                            assert!(seen.insert(e), "{shape:?} {frag:?}: {e:?} twice");
                        }
                    }
                }
                assert_eq!(seen.len() as u32, rows * cols, "{shape:?} {frag:?}");
            }
        }
    }
}
