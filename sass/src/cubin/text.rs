//! Kernel code conventions: the padding after the last instruction and the register count.

/// Code sections are aligned to, and padded to a multiple of, 128 bytes.
pub const TEXT_ALIGN: usize = 128;

/// `BRA` to itself (`0xfffffff000007947 / 0x000fc0000383ffff`), the first padding instruction.
pub const BRA_SELF: [u8; 16] = words_to_bytes(0xffff_fff0_0000_7947, 0x000f_c000_0383_ffff);

/// `NOP` (`0x0000000000007918 / 0x000fc00000000000`), the rest of the padding.
pub const NOP: [u8; 16] = words_to_bytes(0x0000_0000_0000_7918, 0x000f_c000_0000_0000);

/// Registers ptxas reserves beyond the highest one used ("2 extra GPRs" on Turing).
pub const EXTRA_REGISTERS: u32 = 2;

/// Smallest count ptxas writes. Every kernel it emits, even a bare `ret;`, starts with
/// `MOV R1, c[0x0][0x28]` (stack pointer), so the highest GPR is at least R1 and the count at
/// least 1 + 1 + 2 = 4.
pub const MIN_REGISTER_COUNT: u32 = 4;

const fn words_to_bytes(word0: u64, word1: u64) -> [u8; 16] {
    let (lo, hi) = (word0.to_le_bytes(), word1.to_le_bytes());
    let mut out = [0; 16];
    let mut i = 0;
    while i < 8 {
        out[i] = lo[i];
        out[i + 8] = hi[i];
        i += 1;
    }
    out
}

/// Appends ptxas' end-of-code padding: one `BRA` to itself, then `NOP`s up to the next
/// multiple of 128 bytes (none if the `BRA` ends on one). `code` should end with the kernel's
/// last instruction (normally `EXIT`) and be a whole number of 16-byte instructions.
pub fn pad_text(code: &mut Vec<u8>) {
    code.extend_from_slice(&BRA_SELF);
    while !code.len().is_multiple_of(TEXT_ALIGN) {
        code.extend_from_slice(&NOP);
    }
}

/// The register count stored for a kernel whose highest general register (counting every
/// register of vector tuples) is `R<highest_gpr>`: highest + 1 + 2, as ptxas does for sm_75.
/// `None` (no general register at all, which ptxas never produces) gives
/// [`MIN_REGISTER_COUNT`], ptxas' smallest count.
pub fn register_count(highest_gpr: Option<u32>) -> u32 {
    match highest_gpr {
        Some(highest) => highest.saturating_add(1 + EXTRA_REGISTERS),
        None => MIN_REGISTER_COUNT,
    }
}
