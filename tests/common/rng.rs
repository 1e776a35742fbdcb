//! The integration tests' deterministic generator (SplitMix64) and the draws they make
//! from it.

/// A deterministic generator (SplitMix64); the state is the seed.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.u64() % n
    }

    /// The high 32 bits of the next draw.
    pub fn u32(&mut self) -> u32 {
        (self.u64() >> 32) as u32
    }

    /// A number in `lo..=hi`.
    pub fn i32_in(&mut self, lo: i32, hi: i32) -> i32 {
        lo + (self.u64() % (hi as i64 - lo as i64 + 1) as u64) as i32
    }

    /// A number in `lo..hi` (24 random bits).
    pub fn f32_in(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.u64() >> 40) as f32 / (1u64 << 24) as f32)
    }

    /// A number in `lo..hi` (53 random bits).
    pub fn f64_in(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.u64() >> 11) as f64 / (1u64 << 53) as f64)
    }
}

/// Marsaglia's xorshift64 (shifts 13, 7, 17) from the golden-ratio seed: the stream of
/// states the op, prefetch and redux tests draw their input words from.
pub fn xorshift64() -> impl Iterator<Item = u64> {
    std::iter::successors(Some(0x9e37_79b9_7f4a_7c15u64), |&x| {
        let mut x = x;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        Some(x)
    })
    .skip(1)
}
