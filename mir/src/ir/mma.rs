//! The `Aux::Imm` flags of the f16-family and m16n8 integer matrix multiply-accumulate
//! opcodes ([`crate::ir::Opcode::MmaF16`], [`crate::ir::Opcode::MmaIntM16n8`]) and of the
//! warpgroup one ([`crate::ir::Opcode::Wgmma`]), typed, and how many argument registers each
//! fragment has.

/// The element type of A and B of an [`crate::ir::Opcode::MmaF16`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmaInput {
    /// f16 (two per register).
    F16 = 0,
    /// bfloat16 (two per register).
    Bf16 = 1,
    /// TensorFloat-32 (one per register, the low 13 fraction bits ignored).
    Tf32 = 2,
}

/// The flags of an [`crate::ir::Opcode::MmaF16`]: bit 0 f32 accumulator, bits 2..1 the
/// multiplicand type, bit 3 k = 16 (else 8), bit 4 Ampere's numerics (sm_80 on), bit 5
/// k = 4 (tf32 only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmaF16Flags {
    /// C and D are f32 (four registers), not f16 pairs (two).
    pub f32: bool,
    /// The element type of A and B.
    pub input: MmaInput,
    /// m16n8k16 (else m16n8k8).
    pub k16: bool,
    /// The target's tensor cores are Ampere's (blocks of eight f16/bf16 products).
    pub ampere: bool,
    /// m16n8k4 (tf32; overrides `k16`).
    pub k4: bool,
}

impl MmaF16Flags {
    /// The immediate.
    pub fn bits(self) -> u64 {
        self.f32 as u64
            | (self.input as u64) << 1
            | (self.k16 as u64) << 3
            | (self.ampere as u64) << 4
            | (self.k4 as u64) << 5
    }

    /// The flags of an immediate (an unknown multiplicand code reads as f16).
    pub fn from_bits(b: u64) -> MmaF16Flags {
        MmaF16Flags {
            f32: b & 1 == 1,
            input: match b >> 1 & 3 {
                1 => MmaInput::Bf16,
                2 => MmaInput::Tf32,
                _ => MmaInput::F16,
            },
            k16: b >> 3 & 1 == 1,
            ampere: b >> 4 & 1 == 1,
            k4: b >> 5 & 1 == 1,
        }
    }

    /// Registers of A, B and C (and D): `(a, b, c)`.
    pub fn regs(self) -> (usize, usize, usize) {
        let a = if !self.k4 && (self.k16 || self.input == MmaInput::Tf32) {
            4
        } else {
            2
        };
        (a, a / 2, if self.f32 { 4 } else { 2 })
    }
}

/// The flags of an [`crate::ir::Opcode::MmaIntM16n8`]: bit 8 A signed, bit 9 B signed,
/// bit 10 `.satfinite`, bit 11 the longer shape of the element size, bits 12..13 the
/// element size (0 8-bit, 1 4-bit, 2 single bits), bit 14 `.and.popc` (else `.xor.popc`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmaIntFlags {
    /// A's elements are signed.
    pub a_signed: bool,
    /// B's elements are signed.
    pub b_signed: bool,
    /// Sums clamp to the s32 range.
    pub sat: bool,
    /// The longer of the element size's two shapes: m16n8k32 of 8-bit (else m16n8k16),
    /// m16n8k64 of 4-bit (else m16n8k32), m16n8k256 of single bits (else m16n8k128).
    pub long_k: bool,
    /// Bits per element: 8, 4 or 1.
    pub bits: u32,
    /// Single bits combine by AND (else XOR) before the population count.
    pub and: bool,
}

impl MmaIntFlags {
    /// The immediate.
    pub fn bits(self) -> u64 {
        let size = match self.bits {
            4 => 1,
            1 => 2,
            _ => 0,
        };
        (self.a_signed as u64) << 8
            | (self.b_signed as u64) << 9
            | (self.sat as u64) << 10
            | (self.long_k as u64) << 11
            | size << 12
            | (self.and as u64) << 14
    }

    /// The flags of an immediate.
    pub fn from_bits(b: u64) -> MmaIntFlags {
        MmaIntFlags {
            a_signed: b >> 8 & 1 == 1,
            b_signed: b >> 9 & 1 == 1,
            sat: b >> 10 & 1 == 1,
            long_k: b >> 11 & 1 == 1,
            bits: [8, 4, 1, 8][(b >> 12 & 3) as usize],
            and: b >> 14 & 1 == 1,
        }
    }

    /// Elements to a 32-bit register.
    pub fn per_reg(self) -> u32 {
        32 / self.bits
    }

    /// The depth K of the product.
    pub fn k(self) -> u32 {
        4 * self.per_reg() * if self.long_k { 2 } else { 1 }
    }

    /// Registers of A, B and C (and D): `(a, b, 4)`.
    pub fn regs(self) -> (usize, usize, usize) {
        if self.long_k { (4, 2, 4) } else { (2, 1, 4) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_round_trip() {
        for input in [MmaInput::F16, MmaInput::Bf16, MmaInput::Tf32] {
            for bits in 0..8u64 {
                let f = MmaF16Flags {
                    f32: bits & 1 == 1,
                    input,
                    k16: bits & 2 != 0,
                    ampere: bits & 4 != 0,
                    k4: false,
                };
                assert_eq!(MmaF16Flags::from_bits(f.bits()), f);
            }
        }
        for (bits, and) in [(8, false), (4, false), (1, true), (1, false)] {
            let i = MmaIntFlags {
                a_signed: true,
                b_signed: false,
                sat: bits != 1,
                long_k: true,
                bits,
                and,
            };
            assert_eq!(MmaIntFlags::from_bits(i.bits()), i);
            assert_eq!(i.regs(), (4, 2, 4));
            assert_eq!(i.k(), [256, 64, 32][[1, 4, 8].iter().position(|&b| b == bits).unwrap()]);
        }
        let tf32 = MmaF16Flags {
            f32: true,
            input: MmaInput::Tf32,
            k16: false,
            ampere: true,
            k4: true,
        };
        assert_eq!(MmaF16Flags::from_bits(tf32.bits()), tf32);
        assert_eq!(tf32.regs(), (2, 1, 4));
    }
}

/// The flags of a [`crate::ir::Opcode::Wgmma`] (`wgmma.mma_async.m64nNk16`): bits 5..0
/// N / 8 - 1, bit 6 f32 accumulator (else f16 pairs), bit 7 bf16 multiplicands (else f16),
/// bit 8 A from registers (else a descriptor), bits 9 and 10 A and B negated (imm-scale
/// -1), bits 11 and 12 A and B transposed (imm-trans 1: MN-major in shared memory).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WgmmaFlags {
    /// N (8 to 256, a multiple of 8).
    pub n: u32,
    /// The accumulator holds f32 values (else f16 pairs).
    pub f32: bool,
    /// A and B are bf16 (else f16).
    pub bf16: bool,
    /// A comes from four registers of each thread.
    pub a_regs: bool,
    /// A is negated (imm-scale-a -1).
    pub neg_a: bool,
    /// B is negated (imm-scale-b -1).
    pub neg_b: bool,
    /// A is MN-major (imm-trans-a 1).
    pub trans_a: bool,
    /// B is MN-major (imm-trans-b 1).
    pub trans_b: bool,
}

impl WgmmaFlags {
    /// The immediate.
    pub fn bits(self) -> u64 {
        u64::from((self.n / 8).saturating_sub(1) & 63)
            | (self.f32 as u64) << 6
            | (self.bf16 as u64) << 7
            | (self.a_regs as u64) << 8
            | (self.neg_a as u64) << 9
            | (self.neg_b as u64) << 10
            | (self.trans_a as u64) << 11
            | (self.trans_b as u64) << 12
    }

    /// The flags of an immediate.
    pub fn from_bits(b: u64) -> WgmmaFlags {
        let bit = |i: u32| b >> i & 1 == 1;
        WgmmaFlags {
            n: ((b & 63) as u32 + 1) * 8,
            f32: bit(6),
            bf16: bit(7),
            a_regs: bit(8),
            neg_a: bit(9),
            neg_b: bit(10),
            trans_a: bit(11),
            trans_b: bit(12),
        }
    }

    /// Accumulator registers per thread: N/2 f32 values or N/4 f16 pairs.
    pub fn accumulator_regs(self) -> usize {
        (if self.f32 { self.n / 2 } else { self.n / 4 }) as usize
    }

    /// Arguments before the accumulator: A (a descriptor or four registers), B, scale-d.
    pub fn leading_args(self) -> usize {
        if self.a_regs { 6 } else { 3 }
    }
}

#[cfg(test)]
mod wgmma_tests {
    use super::WgmmaFlags;

    #[test]
    fn wgmma_flags_round_trip() {
        for n in (8..=256).step_by(8) {
            let f = WgmmaFlags {
                n,
                f32: n % 16 == 0,
                bf16: n % 24 == 0,
                a_regs: n % 32 == 0,
                neg_a: n % 40 == 0,
                neg_b: n % 48 == 0,
                trans_a: n % 56 == 0,
                trans_b: n % 64 == 0,
            };
            assert_eq!(WgmmaFlags::from_bits(f.bits()), f);
        }
        let f = WgmmaFlags {
            n: 64,
            f32: true,
            ..Default::default()
        };
        assert_eq!(f.accumulator_regs(), 32);
        assert_eq!(WgmmaFlags { n: 256, ..f }.accumulator_regs(), 128);
        assert_eq!(WgmmaFlags { f32: false, ..f }.accumulator_regs(), 16);
    }
}
