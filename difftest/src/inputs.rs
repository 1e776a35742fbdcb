//! Input buffers: each thread's row holds one word per pool register (edge values and random
//! values of the register's class); the words past the rows are random and only reached by
//! data-dependent loads.

use crate::generator::values;
use crate::program::{Class, Program};
use crate::rng::Rng;

/// Edge values of f16 (bit patterns), used for 16-bit registers.
pub const EDGE_F16: &[u64] = &[
    0x0000, 0x8000, 0x3c00, 0xbc00, 0x3800, 0x3e00, 0x4100, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0x7fff, 0x0001, 0x03ff,
    0x0400, 0x7bff, 0xfbff, 0x3555,
];

/// The input of `p`.
pub fn generate(p: &Program, rng: &mut Rng) -> Vec<u64> {
    let mut words: Vec<u64> = (0..p.input_words).map(|_| rng.next_u64()).collect();
    let regs = p.registers();
    for t in 0..p.threads() as usize {
        for (k, r) in regs.iter().enumerate() {
            words[t * regs.len() + k] = value(rng, r.class);
        }
    }
    words
}

/// A random value for a register of class `c` (the bits above the class width are random).
pub fn value(rng: &mut Rng, c: Class) -> u64 {
    let high = rng.next_u64();
    match c {
        Class::B32 => (high << 32) | values::int(rng, 32),
        Class::B64 => values::int(rng, 64),
        Class::B16 => {
            let v = if rng.chance(40) {
                rng.pick(EDGE_F16)
            } else {
                values::int(rng, 16)
            };
            (high << 16) | v
        }
        Class::F32 => (high << 32) | values::f32(rng),
        Class::F64 => values::f64(rng),
        Class::Pred => high,
    }
}
