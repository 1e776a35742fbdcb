//! Kernel code conventions: the padding after the last instruction and the register count.

/// Code sections are aligned to, and padded to a multiple of, 128 bytes.
pub const TEXT_ALIGN: usize = 128;

/// `BRA` to itself (`0xfffffff000007947 / 0x000fc0000383ffff`), the first padding instruction
/// for sm_75..sm_89.
pub const BRA_SELF: [u8; 16] = words_to_bytes(0xffff_fff0_0000_7947, 0x000f_c000_0383_ffff);

/// `BRA` to itself as ptxas 13.5 encodes it for sm_90 (`0xfffffffc00fc7947 /
/// 0x000fc0000383ffff`: the branch offset is split differently).
pub const BRA_SELF_SM90: [u8; 16] = words_to_bytes(0xffff_fffc_00fc_7947, 0x000f_c000_0383_ffff);

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

/// Appends ptxas' end-of-code padding for sm_75..sm_89: one `BRA` to itself, then `NOP`s up
/// to the next multiple of 128 bytes (none if the `BRA` ends on one). `code` should end with
/// the kernel's last instruction (normally `EXIT`) and be a whole number of 16-byte
/// instructions. [`pad_text_for`] pads for any SM.
pub fn pad_text(code: &mut Vec<u8>) {
    pad_with(code, &BRA_SELF);
}

/// [`pad_text`] for code of `sm` (sm_90 uses [`BRA_SELF_SM90`]).
pub fn pad_text_for(code: &mut Vec<u8>, sm: u32) {
    pad_with(code, &bra_self(sm));
}

/// The `BRA`-to-itself padding instruction of `sm`.
pub fn bra_self(sm: u32) -> [u8; 16] {
    super::family::family(sm).bra_self
}

fn pad_with(code: &mut Vec<u8>, bra: &[u8; 16]) {
    code.extend_from_slice(bra);
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
