//! Hopper's shared-memory matrix descriptors (PTX ISA, "Asynchronous Warpgroup Level Matrix
//! Shared Memory Layout", "Matrix Descriptor Format"): where element (mn, k) of an HGMMA
//! operand lives in shared memory. A 64-bit descriptor holds, each in units of 16 bytes, the
//! start address (bits 0..13), the leading dimension byte offset LBO (16..29) and the stride
//! dimension byte offset SBO (32..45); the matrix base offset (49..51) and the swizzle mode
//! (62..63: none, 128B, 64B, 32B).
//!
//! The operand is made of core matrices of 8 rows of 16 bytes (8 two-byte elements). With
//! `W` the swizzle width in 16-byte chunks (1 without swizzling, 2, 4, 8 for 32B, 64B,
//! 128B), the canonical layouts (CUTLASS's `make_gmma_desc`, in 16-byte units) are:
//!
//! * K-major (A and B not transposed): rows `mn % 8` of a core matrix are `W` chunks apart,
//!   groups of 8 rows SBO apart; along K the two chunks of k16 are LBO apart without
//!   swizzling, adjacent otherwise.
//! * MN-major (`.tnspA`, `.tnspB`): 8 elements along MN per chunk, `W` chunks along MN side
//!   by side; without swizzling the next 8 MN elements are SBO away and the next 8 K rows
//!   LBO; swizzled, the next `8 W` MN elements are LBO away, K rows `W` chunks apart and the
//!   next 8 K rows SBO away.
//!
//! Swizzling permutes the 16-byte chunks of each `16 W`-byte row by the address: bits 4..
//! of the byte address are XORed with the bits from 7 on (`Swizzle<log2 W, 4, 3>`, on the
//! shared address itself). The base offset, which the PTX ISA asks for when a swizzled
//! matrix does not start on its pattern's boundary, is not modelled: such descriptors
//! (a base offset, or a start whose bits 7.. within the pattern are not zero) are reported
//! as unsupported, as are set reserved bits.

/// A swizzle mode and its width in 16-byte chunks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Swizzle {
    /// Interleaved core matrices, no swizzling.
    None,
    /// 32-byte rows.
    B32,
    /// 64-byte rows.
    B64,
    /// 128-byte rows.
    B128,
}

impl Swizzle {
    /// The mode of descriptor bits 62..63.
    fn of_code(code: u64) -> Swizzle {
        match code & 3 {
            0 => Swizzle::None,
            1 => Swizzle::B128,
            2 => Swizzle::B64,
            _ => Swizzle::B32,
        }
    }

    /// 16-byte chunks per swizzled row (1 without swizzling).
    pub fn width(self) -> u32 {
        match self {
            Swizzle::None => 1,
            Swizzle::B32 => 2,
            Swizzle::B64 => 4,
            Swizzle::B128 => 8,
        }
    }

    /// The physical address of logical byte address `addr`: chunk bits 4.. XOR row bits 7...
    pub fn apply(self, addr: u32) -> u32 {
        let mask = self.width() - 1;
        addr ^ ((addr >> 7) & mask) << 4
    }
}

/// The descriptor's fields: `(lowest bit, bits)`.
const START: (u32, u32) = (0, 14);
const LBO: (u32, u32) = (16, 14);
const SBO: (u32, u32) = (32, 14);
const BASE_OFFSET: (u32, u32) = (49, 3);
const SWIZZLE: (u32, u32) = (62, 2);

/// Bits no field uses (14..15, 30..31, 46..48, 52..61).
const RESERVED: u64 = 0x3ff0_0000_0000_0000 | 0x7 << 46 | 0x3 << 30 | 0x3 << 14;

/// The value of a field.
fn field(raw: u64, (lo, len): (u32, u32)) -> u64 {
    raw >> lo & ((1 << len) - 1)
}

/// A decoded matrix descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatrixDesc {
    /// Start address (bytes in the shared window).
    pub start: u32,
    /// Leading dimension byte offset.
    pub lbo: u32,
    /// Stride dimension byte offset.
    pub sbo: u32,
    /// Swizzle mode.
    pub swizzle: Swizzle,
}

/// Bytes of a row of a core matrix, and elements (of two bytes) in it.
const CHUNK: u32 = 16;
const PER_CHUNK: u32 = 8;

impl MatrixDesc {
    /// Decodes `raw`; what the simulator does not model is an error naming the field.
    pub fn decode(raw: u64) -> Result<MatrixDesc, String> {
        if raw & RESERVED != 0 {
            return Err(format!("reserved bits {:#x} set", raw & RESERVED));
        }
        let base = field(raw, BASE_OFFSET);
        if base != 0 {
            return Err(format!("base offset {base} (not modelled)"));
        }
        let d = MatrixDesc {
            start: (field(raw, START) as u32) << 4,
            lbo: (field(raw, LBO) as u32) << 4,
            sbo: (field(raw, SBO) as u32) << 4,
            swizzle: Swizzle::of_code(field(raw, SWIZZLE)),
        };
        let w = d.swizzle.width();
        if !(d.start >> 7).is_multiple_of(w) {
            return Err(format!(
                "start address {:#x} inside a {}-byte swizzle pattern (needs a base offset: not modelled)",
                d.start,
                128 * w
            ));
        }
        Ok(d)
    }

    /// The shared address of two-byte element (`mn`, `k`) of a 16-deep (k16) operand,
    /// `mn_major` for a transposed one. A K-major swizzled operand must not run past its row.
    pub fn address(&self, mn: u32, k: u32, mn_major: bool) -> Result<u32, String> {
        let w = self.swizzle.width();
        let offset = match (mn_major, self.swizzle) {
            (false, Swizzle::None) => {
                (mn % 8) * CHUNK + (mn / 8) * self.sbo + (k % PER_CHUNK) * 2 + (k / PER_CHUNK) * self.lbo
            }
            (false, _) => {
                let chunk = (self.start / CHUNK) % w + k / PER_CHUNK;
                if chunk >= w {
                    return Err(format!(
                        "16 elements in K-major rows of {} bytes from start {:#x} (past the row)",
                        CHUNK * w,
                        self.start
                    ));
                }
                (mn % 8) * CHUNK * w + (mn / 8) * self.sbo + k * 2
            }
            (true, Swizzle::None) => {
                (mn % PER_CHUNK) * 2 + (mn / PER_CHUNK) * self.sbo + (k % 8) * CHUNK + (k / 8) * self.lbo
            }
            (true, _) => {
                let row = PER_CHUNK * w;
                (mn % row) * 2 + (mn / row) * self.lbo + (k % 8) * CHUNK * w + (k / 8) * self.sbo
            }
        };
        Ok(self.swizzle.apply(self.start.wrapping_add(offset)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A descriptor of `start`, LBO, SBO (bytes) and swizzle code.
    fn raw(start: u32, lbo: u32, sbo: u32, swizzle: u64) -> u64 {
        (start >> 4) as u64 | ((lbo >> 4) as u64) << 16 | ((sbo >> 4) as u64) << 32 | swizzle << 62
    }

    #[test]
    fn ptxas_triton_descriptors_decode() {
        // Triton's matmul (tests/hopper/triton_matmul_fp16.ptx): A K-major with 64-byte
        // swizzling (`UMOV UR9, 0x80000020`: SBO 512), B MN-major with 128-byte swizzling
        // (`UMOV UR11, 0x40000040`: SBO 1024).
        let a = MatrixDesc::decode(0x8000_0020_0000_0040).unwrap();
        assert_eq!((a.start, a.sbo, a.swizzle), (0x400, 512, Swizzle::B64));
        let b = MatrixDesc::decode(0x4000_0040_0000_0140).unwrap();
        assert_eq!((b.start, b.sbo, b.swizzle), (0x1400, 1024, Swizzle::B128));
    }

    #[test]
    fn swizzling_permutes_chunks_within_rows() {
        // 128B: row 3's chunk 1 moves to chunk 2; 32B: odd 128-byte blocks swap chunks.
        assert_eq!(Swizzle::B128.apply(3 * 128 + 16), 3 * 128 + 2 * 16);
        assert_eq!(Swizzle::B32.apply(128 + 16), 128);
        assert_eq!(Swizzle::None.apply(0x1234), 0x1234);
        let d = MatrixDesc::decode(raw(0, 0, 1024, 1)).unwrap();
        // K-major, 128-byte rows: (row 1, k 8) is byte 128 + 16, chunk 1 XOR 1 = 0.
        assert_eq!(d.address(1, 8, false), Ok(128));
        // MN-major: (mn 8, k 1) is row 1, chunk 1, again chunk 0.
        assert_eq!(d.address(8, 1, true), Ok(128));
    }

    #[test]
    fn interleaved_layouts_use_both_offsets() {
        let d = MatrixDesc::decode(raw(0x400, 256, 1024, 0)).unwrap();
        assert_eq!(d.address(9, 9, false), Ok(0x400 + 16 + 1024 + 2 + 256));
        assert_eq!(d.address(9, 9, true), Ok(0x400 + 2 + 1024 + 16 + 256));
    }

    #[test]
    fn unmodelled_fields_are_errors() {
        assert!(
            MatrixDesc::decode(raw(0, 0, 0, 0) | 1 << 49)
                .unwrap_err()
                .contains("base offset")
        );
        assert!(MatrixDesc::decode(1 << 14).unwrap_err().contains("reserved"));
        assert!(
            MatrixDesc::decode(raw(0x80, 0, 0, 1))
                .unwrap_err()
                .contains("swizzle pattern")
        );
        let d = MatrixDesc::decode(raw(0x10, 0, 0, 3)).unwrap();
        assert!(d.address(0, 8, false).is_err());
    }
}
