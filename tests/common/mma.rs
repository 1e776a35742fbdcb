//! Shared pieces of the `mma.sync` tests (`sim_ampere_mma`, `sim_ampere_mma_more`): the C/D
//! fragment layout of the PTX ISA, the packing of matrix elements into lane-major fragment
//! words, and the launch of a kernel `(a, b, c, d)`.

use ptxc::launch::{BufferInit, LaunchSpec};
use std::collections::BTreeMap;
use std::path::Path;

/// C's and D's element `i` of lane `l` (group `g = l / 4`, `t = l % 4`): c0, c1 at row g,
/// (m16n8) c2, c3 at row g+8, columns 2t, 2t+1.
pub fn c_at(l: usize, i: usize) -> (usize, usize) {
    (l / 4 + 8 * (i / 2), 2 * (l % 4) + i % 2)
}

/// The fragment words (lane-major) of matrix `m` of `bits`-bit elements, `count` elements
/// per lane laid out by `at` (lane, element) -> (row, column); elements are packed into
/// 32-bit registers low first, `32 / bits` per register.
pub fn pack(m: &[Vec<u32>], bits: usize, count: usize, at: impl Fn(usize, usize) -> (usize, usize)) -> Vec<u32> {
    let per = 32 / bits;
    let mask = if bits == 32 { u32::MAX } else { (1 << bits) - 1 };
    let regs = count.div_ceil(per);
    let mut words = vec![0u32; 32 * regs];
    for l in 0..32 {
        for i in 0..count {
            let (r, c) = at(l, i);
            words[l * regs + i / per] |= (m[r][c] & mask) << (bits * (i % per));
        }
    }
    words
}

/// The one-warp launch of `kernel` with input buffers `a`, `b`, `c` (written to `dir`) and a
/// zeroed output `d` of `d_words`.
pub fn spec(dir: &Path, kernel: &str, inputs: [&[u32]; 3], d_words: usize) -> LaunchSpec {
    let mut buffers: BTreeMap<String, BufferInit> = ["a", "b", "c"]
        .iter()
        .zip(inputs)
        .map(|(name, words)| {
            (
                name.to_string(),
                super::u32_file(dir.join(format!("{kernel}_{name}.npy")), words),
            )
        })
        .collect();
    buffers.insert("d".to_string(), super::u32_zeros(d_words));
    super::one_block_spec(kernel, 32, buffers, &["a", "b", "c", "d"])
}
