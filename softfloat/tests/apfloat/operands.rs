//! Operand generators: a fixed-seed PRNG, the edge values of a format, random bit patterns,
//! random "interesting" values (exponents near the edges, significands with long runs of
//! zeros or ones) and values at or next to rounding ties.

use ptxc_softfloat::Format;

/// SplitMix64: a tiny PRNG with a fixed seed, so every run compares the same operands.
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }

    /// A random boolean.
    pub fn bit(&mut self) -> bool {
        self.next() & 1 == 1
    }
}

/// The bits of `2^k` in `f` (a normal power of two).
pub fn pow2(f: Format, k: i32) -> u64 {
    ((f.bias() + k) as u64) << f.man_bits()
}

/// The value with biased exponent field `e` and fraction `m`.
pub fn compose(f: Format, neg: bool, e: u64, m: u64) -> u64 {
    f.zero(neg) | (e << f.man_bits()) | (m & f.man_mask())
}

/// The edge values of `f`, both signs: zeros, subnormals (smallest, largest, a few others),
/// normals at the binade boundaries of the smallest normal, 1, 2 and the largest finite
/// value, integers and half-integers near the precision limit, infinities and NaNs.
pub fn edges(f: Format) -> Vec<u64> {
    let p = f.man_bits() as i32;
    let (man, emax_field) = (f.man_mask(), (1u64 << f.exp_bits()) - 2);
    let mut mags = vec![
        0,
        1,
        2,
        3,
        man >> 1,
        man - 1,
        man,
        f.min_normal(false),
        f.min_normal(false) + 1,
        f.min_normal(false) | man,
        compose(f, false, 2, 0),
        compose(f, false, emax_field, 0),
        f.max_finite(false) - 1,
        f.max_finite(false),
        f.inf(false),
        f.one(),
        f.one() + 1,
        f.one() - 1,
        f.one() | 1 << (p - 1),
        pow2(f, 1),
        pow2(f, 1) | 1 << (p - 1),
        pow2(f, -1),
        pow2(f, -1) | 1 << (p - 2).max(0),
        pow2(f, p),
        pow2(f, p) + 1,
        pow2(f, p) - 1,
        pow2(f, p - 1) | 1,
        pow2(f, p + 1),
        pow2(f, -(p + 1)),
    ];
    // The square roots of the extremes, where products and quotients over- and underflow.
    let half_top = f.bias() / 2;
    mags.extend([
        pow2(f, half_top),
        pow2(f, half_top) | man,
        pow2(f, -half_top),
        pow2(f, -half_top) | man,
    ]);
    mags.sort_unstable();
    mags.dedup();
    let mut v: Vec<u64> = mags.iter().flat_map(|&m| [m, m | f.sign_bit()]).collect();
    // NaNs: the canonical one, a signalling pattern, a quiet one with a payload, negative.
    let inf = f.inf(false);
    v.extend([
        f.canonical_nan(),
        inf | 1,
        inf | 1 << (p - 1) | 5 & man,
        f.sign_bit() | inf | 1 << (p - 1),
    ]);
    v
}

/// A smaller set of edge values for three-operand operations.
pub fn few_edges(f: Format) -> Vec<u64> {
    let p = f.man_bits() as i32;
    let mags = [
        0,
        1,
        f.man_mask(),
        f.min_normal(false),
        f.max_finite(false),
        f.inf(false),
        f.one(),
        f.one() + 1,
        f.one() - 1,
        pow2(f, 1) | 1 << (p - 1),
        pow2(f, p + 1),
        pow2(f, -(p + 1)),
        pow2(f, f.bias() / 2),
        pow2(f, -f.bias() / 2) | f.man_mask(),
    ];
    let mut v: Vec<u64> = mags.iter().flat_map(|&m| [m, m | f.sign_bit()]).collect();
    v.push(f.inf(false) | 1);
    v
}

/// A fraction field with a random pattern: all zeros or ones, one bit, runs of zeros and
/// ones of random lengths, only low or high bits, or uniform.
pub fn pattern(rng: &mut Rng, bits: u32) -> u64 {
    let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let v = match rng.below(8) {
        0 => 0,
        1 => mask,
        2 => 1 << rng.below(bits as u64),
        3 => mask ^ (1 << rng.below(bits as u64)),
        4 | 5 => {
            let (mut v, mut at, mut one) = (0u64, 0u32, rng.bit());
            while at < bits {
                let len = 1 + rng.below(bits as u64 / 2 + 1) as u32;
                if one {
                    let run = if len >= 64 { u64::MAX } else { (1u64 << len) - 1 };
                    v |= run << at;
                }
                at += len;
                one = !one;
            }
            v
        }
        6 => rng.next() >> rng.below(64),
        _ => rng.next(),
    };
    v & mask
}

/// A random value with its exponent near an edge (subnormal, smallest normals, largest
/// finite, infinity/NaN, around 1 and the precision limit) or uniform, and a patterned
/// fraction.
pub fn interesting(rng: &mut Rng, f: Format) -> u64 {
    let top = (1i64 << f.exp_bits()) - 1;
    let bias = f.bias() as i64;
    let p = f.man_bits() as i64;
    let e = match rng.below(10) {
        0 | 1 => 0,
        2 => rng.range(1, 3),
        3 => rng.range(top - 3, top - 1),
        4 => top,
        5 | 6 => (bias + rng.range(-3, 3)).clamp(0, top),
        7 => (bias + p + rng.range(-3, 3)).clamp(0, top),
        _ => rng.range(0, top),
    };
    compose(f, rng.bit(), e as u64, pattern(rng, f.man_bits()))
}

/// A uniformly random bit pattern of `f`.
pub fn random_bits(rng: &mut Rng, f: Format) -> u64 {
    rng.next() & f.mask()
}

/// A random value of either kind.
pub fn any(rng: &mut Rng, f: Format) -> u64 {
    if rng.bit() {
        interesting(rng, f)
    } else {
        random_bits(rng, f)
    }
}

/// `x` with its low `k` bits replaced by a pattern at or next to the half of `2^k`: `10..0`
/// (a tie when rounding at bit `k`), `10..01`, `01..1` or `0..01`.
pub fn near_tie(rng: &mut Rng, x: u64, k: u32) -> u64 {
    if k == 0 {
        return x;
    }
    let half = 1u64 << (k - 1);
    let low = match rng.below(4) {
        0 => half,
        1 => half | 1,
        2 => half - 1,
        _ => 1,
    };
    (x & !((half << 1) - 1)) | low
}

/// The biased exponent field of `x`.
pub fn exp_field(f: Format, x: u64) -> i64 {
    ((x & f.exp_mask()) >> f.man_bits()) as i64
}
