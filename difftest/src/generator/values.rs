//! Values for immediates and inputs: edge values of every type (0, ±1, INT_MIN, INT_MAX,
//! shift amounts around the width, NaNs, infinities, denormals, rounding ties, the limits of
//! conversions) mixed with random ones.

use crate::rng::Rng;

/// Edge values of 16-bit integers.
pub const EDGE16: &[u64] = &[
    0, 1, 2, 0xffff, 0x8000, 0x7fff, 0x8001, 15, 16, 17, 0xff, 0x80, 0x7f, 31, 32, 33,
];

/// Edge values of 32-bit integers.
pub const EDGE32: &[u64] = &[
    0,
    1,
    2,
    0xffff_ffff,
    0x8000_0000,
    0x7fff_ffff,
    0x8000_0001,
    0x7fff_fffe,
    7,
    8,
    15,
    16,
    31,
    32,
    33,
    63,
    64,
    65,
    0x7f,
    0x80,
    0xff,
    0x100,
    0x7fff,
    0x8000,
    0xffff,
    0x1_0000,
    0xffff_fffe,
    0xffff_ff80,
    0xffff_8000,
    0x0102_0304,
    0x1f1f,
    0x3210,
    0x7654_3210,
    0x89ab_cdef,
];

/// Edge values of 64-bit integers.
pub const EDGE64: &[u64] = &[
    0,
    1,
    2,
    u64::MAX,
    1 << 63,
    i64::MAX as u64,
    (1 << 63) + 1,
    0xffff_ffff,
    0x1_0000_0000,
    0x8000_0000,
    0x7fff_ffff,
    0xffff_ffff_8000_0000,
    0xffff_ffff_0000_0000,
    0x0000_0001_ffff_ffff,
    31,
    32,
    33,
    63,
    64,
    65,
    127,
    128,
    0x0123_4567_89ab_cdef,
];

/// Edge values of f32 (bit patterns).
pub const EDGE_F32: &[u64] = &[
    0x0000_0000, // +0
    0x8000_0000, // -0
    0x3f80_0000, // 1
    0xbf80_0000, // -1
    0x3f00_0000, // 0.5
    0x3fc0_0000, // 1.5
    0x4020_0000, // 2.5
    0xc020_0000, // -2.5
    0x3f7f_ffff, // 1 - ulp
    0x3f80_0001, // 1 + ulp
    0x7f80_0000, // inf
    0xff80_0000, // -inf
    0x7fc0_0000, // qNaN
    0xffc0_0000, // -qNaN
    0x7fa0_0001, // sNaN with payload
    0x7fff_ffff, // NaN, all payload bits
    0x0000_0001, // smallest denormal
    0x007f_ffff, // largest denormal
    0x8000_0001, // -smallest denormal
    0x0040_0000, // denormal 2^-127
    0x0080_0000, // FLT_MIN
    0x7f7f_ffff, // FLT_MAX
    0xff7f_ffff, // -FLT_MAX
    0x4f00_0000, // 2^31
    0xcf00_0000, // -2^31
    0x4f80_0000, // 2^32
    0x4eff_ffff, // just below 2^31
    0x4f7f_ffff, // just below 2^32
    0x5f00_0000, // 2^63
    0xdf00_0000, // -2^63
    0x5f80_0000, // 2^64
    0x4b00_0000, // 2^23
    0x4b80_0000, // 2^24
    0x3eaa_aaab, // 1/3
    0x477f_e000, // f16 max
    0x477f_f000, // rounds to f16 inf
    0x3880_0000, // f16 min normal
    0x3380_0000, // f16 min denormal
    0x3300_0000, // half the f16 min denormal
    0x437f_0000, // 255
    0x4380_0000, // 256
    0xc300_0000, // -128
    0x4700_0000, // 32768
];

/// Edge values of f64 (bit patterns).
pub const EDGE_F64: &[u64] = &[
    0x0000_0000_0000_0000, // +0
    0x8000_0000_0000_0000, // -0
    0x3ff0_0000_0000_0000, // 1
    0xbff0_0000_0000_0000, // -1
    0x3fe0_0000_0000_0000, // 0.5
    0x3ff8_0000_0000_0000, // 1.5
    0x4004_0000_0000_0000, // 2.5
    0xc004_0000_0000_0000, // -2.5
    0x7ff0_0000_0000_0000, // inf
    0xfff0_0000_0000_0000, // -inf
    0x7ff8_0000_0000_0000, // qNaN
    0xfff8_0000_0000_0000, // -qNaN
    0x7ff0_0000_0000_0001, // sNaN
    0x7fff_ffff_ffff_ffff, // NaN, all payload bits
    0x0000_0000_0000_0001, // smallest denormal
    0x000f_ffff_ffff_ffff, // largest denormal
    0x0010_0000_0000_0000, // DBL_MIN
    0x7fef_ffff_ffff_ffff, // DBL_MAX
    0x41e0_0000_0000_0000, // 2^31
    0xc1e0_0000_0000_0000, // -2^31
    0x41f0_0000_0000_0000, // 2^32
    0x43e0_0000_0000_0000, // 2^63
    0xc3e0_0000_0000_0000, // -2^63
    0x43f0_0000_0000_0000, // 2^64
    0x41df_ffff_ffc0_0000, // 2^31 - 1
    0x47ef_ffff_e000_0000, // FLT_MAX
    0x47ef_ffff_f000_0000, // FLT_MAX + half an ulp (rounds to inf)
    0x3ff0_0000_1000_0000, // 1 + half an f32 ulp (tie)
    0x3ff0_0000_3000_0000, // 1 + 1.5 f32 ulps (tie)
    0x36a0_0000_0000_0000, // 2^-149 (f32 min denormal)
    0x3690_0000_0000_0000, // 2^-150 (ties to 0 in f32)
    0x3810_0000_0000_0000, // 2^-126 (FLT_MIN)
    0x3fd5_5555_5555_5555, // 1/3
    0x4330_0000_0000_0000, // 2^52
    0x4340_0000_0000_0000, // 2^53
];

/// A random f32 of moderate magnitude (so that arithmetic rounds rather than overflows).
pub fn moderate_f32(rng: &mut Rng) -> u64 {
    let sign = rng.below(2) << 31;
    let exp = rng.range(127 - 24, 127 + 24) << 23;
    let mant = if rng.chance(30) { 0 } else { rng.below(1 << 23) };
    sign | exp | mant
}

/// A random f64 of moderate magnitude.
pub fn moderate_f64(rng: &mut Rng) -> u64 {
    let sign = rng.below(2) << 63;
    let exp = rng.range(1023 - 60, 1023 + 60) << 52;
    let mant = if rng.chance(30) { 0 } else { rng.below(1 << 52) };
    sign | exp | mant
}

/// A value for an integer of `bits` bits: an edge value, a small number or random bits.
pub fn int(rng: &mut Rng, bits: u32) -> u64 {
    let edges = match bits {
        16 => EDGE16,
        32 => EDGE32,
        _ => EDGE64,
    };
    let mask = if bits == 64 { u64::MAX } else { (1 << bits) - 1 };
    let v = match rng.weighted(&[40, 20, 40]) {
        0 => rng.pick(edges),
        1 => rng.below(70),
        _ => rng.next_u64(),
    };
    v & mask
}

/// A value for an f32: an edge value, a moderate number or random bits.
pub fn f32(rng: &mut Rng) -> u64 {
    match rng.weighted(&[35, 55, 10]) {
        0 => rng.pick(EDGE_F32),
        1 => moderate_f32(rng),
        _ => rng.next_u64() & 0xffff_ffff,
    }
}

/// A value for an f64: an edge value, a moderate number, an f32 widened, or random bits.
pub fn f64(rng: &mut Rng) -> u64 {
    match rng.weighted(&[35, 45, 10, 10]) {
        0 => rng.pick(EDGE_F64),
        1 => moderate_f64(rng),
        2 => (f32::from_bits(moderate_f32(rng) as u32) as f64).to_bits(),
        _ => rng.next_u64(),
    }
}
