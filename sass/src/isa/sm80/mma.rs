//! Ampere's tensor-core forms (sm_80, sm_86, sm_89), each field found by flipping the bits of
//! ptxas 13.5's words under `nvdisasm -b SM80` (the same on SM86 and SM89):
//! * `HMMA.16816.D{.BF16} Rd, Ra, Rb, Rc` and `HMMA.1688.D{.BF16|.TF32}` (0x23c): bit 75
//!   selects the shape (set: 16816), bit 76 the result and accumulator type (`.F32`; clear
//!   `.F16`), bits 82..83 the multiplicand type (0 f16, 1 `.BF16`, 2 `.TF32`; 3 prints
//!   `INVALID3`). Bit 73 is the sparse `HMMA.SP` (another operand list), bit 78 an invalid
//!   shape; both are fixed clear. `-R` negates A (bit 72) or B (bit 63). A and B have reuse
//!   flags (slots 0 and 1; nvdisasm rejects C's). Turing's `.SATFINITE` bit (77) is ignored.
//!   Registers: A is a quad for k16 and for tf32, a pair for k8 f16/bf16; B half of A; C and
//!   D quads (f32) or pairs (f16), as for Turing's HMMA.1688.
//! * `IMMA.16816.A.B{.SAT} Rd, Ra.ROW, Rb.COL, Rc` and `IMMA.16832` (0x237): the shape is
//!   bits 75, 85 and 86 (86 set, 85 clear: 16816, with 75 16832; 86 clear gives Turing's
//!   8816 and 8832 shapes, not described here), element types in bits 76 (A signed) and 78
//!   (B signed) with 4-bit sizes in 83 and 84 (fixed clear: 8-bit only), bits 77 and 79
//!   print `INVALID3` and are fixed clear, `.SAT` bit 82, bit 72 the sparse `IMMA.SP`.
//!   Registers: k16 reads an A pair and one B register, k32 an A quad and a B pair; C and D
//!   are quads of s32.
//! * `DMMA.884{.RM|.RP} Rd, Ra, Rb, Rc` (0x23f, also on SM86 and SM89; SM75 has no
//!   opcode 0x23f): A and B are register pairs (one f64 each), C and D quads (two f64).
//!   `-` and `|x|` of A are bits 72 and 73, of B 63 and 62, of C 75 and 74; the rounding is
//!   bits 78..79 (1 `.RM`, 2 `.RP`; 3 prints nothing and is not described), bit 76 the
//!   shape (set prints `???1`, fixed clear). Bits 77 and 80..90 print nothing (left clear,
//!   as ptxas leaves them). A and B have reuse flags (slots 0 and 1; slot 2 is an invalid
//!   `opex` value under DMMA).
//!
//! Timing: NVIDIA's sm_80 categories (`timing.rs`): fixed latency without a scoreboard,
//! single-pass (`MMA_1x_collect`: HMMA.1688 of f16 and bf16, IMMA.16816) or double-pass
//! (`MMA_2x_collect`: HMMA.16816, HMMA.1688.TF32, IMMA.16832; ptxas waits 23 cycles before
//! storing their results where it waits 15 after the single-pass ones). DMMA has a write
//! scoreboard as FP64 has (ptxas 13.5 waits on it before storing D: `tests/ampere/mma_f64.ptx`)
//! and no read scoreboard.

use crate::flag;
use crate::isa::build::*;
use crate::isa::desc::{LatCat as L, Pipe, Role, *};

/// The fixed layouts of IMMA (A row-major, B column-major: bits 73 = 0, 74 = 1).
const ROW: SuffixDesc = suffix(0, 0, &[(0, ".ROW")]);
const COL: SuffixDesc = suffix(0, 0, &[(0, ".COL")]);

/// The 16- and 19-bit multiplicand types of HMMA (bits 82..83).
const HALF_TYPES: &[(u16, &str)] = &[(0, ""), (1, ".BF16")];
const TF32_TYPE: &[(u16, &str)] = &[(2, ".TF32")];

/// The 8-bit IMMA element types.
const INT8_TYPES: &[(u16, &str)] = &[(0, ".U8"), (1, ".S8")];

/// The sm_80 tensor-core forms.
pub fn forms() -> Vec<Form> {
    vec![
        hmma("HMMA.16816", Op::Hmma16816, 1, 4, HALF_TYPES, 0, L::Mma2x),
        hmma("HMMA.1688", Op::Hmma1688, 0, 2, HALF_TYPES, 0, L::Mma1x),
        hmma("HMMA.1688", Op::Hmma1688, 0, 4, TF32_TYPE, 2, L::Mma2x),
        imma("IMMA.16816", Op::Imma16816, 0, 2, L::Mma1x),
        imma("IMMA.16832", Op::Imma16832, 1, 4, L::Mma2x),
        dmma(),
    ]
}

/// The DMMA roundings (bits 78..79; the value 3 is not described).
const DMMA_RND: &[(u16, &str)] = &[(0, ""), (1, ".RM"), (2, ".RP")];

/// `DMMA.884{.RM|.RP} Rd, Ra, Rb, Rc`: A and B pairs, C and D quads.
fn dmma() -> Form {
    form("DMMA.884", Op::Dmma, 0x23f)
        .since(Arch::Sm80)
        .timing(L::Fp64, Pipe::Fp64)
        .ops([
            rd().width(4),
            reg(Role::A, RA).width(2).neg(72).abs(73).reuse(0),
            reg(Role::B, RB).width(2).neg(63).abs(62).reuse(1),
            reg(Role::C, RC).width(4).neg(75).abs(74),
        ])
        .mods([modifier(Mod::Rnd, 78, 2, DMMA_RND, 0)])
        .fixed(76, 1, 0)
        .fixed(77, 1, 0)
        .build()
}

/// `HMMA.<shape>.D.A Rd, Ra, Rb, Rc`: bit 75 `k16`, A `a_width` registers, B half that.
fn hmma(
    mnemonic: &'static str,
    op: Op,
    k16: u64,
    a_width: u8,
    types: &'static [(u16, &'static str)],
    default: u16,
    cat: L,
) -> Form {
    form(mnemonic, op, 0x23c)
        .since(Arch::Sm80)
        .timing(cat, Pipe::Tensor)
        .ops([
            rd().width(0),
            reg(Role::A, RA).width(a_width).neg(72).reuse(0),
            reg(Role::B, RB).width(a_width / 2).neg(63).reuse(1),
            reg(Role::C, RC).width(0),
        ])
        .mods([
            modifier(Mod::HmmaDType, 76, 1, &[(0, ".F16"), (1, ".F32")], 0),
            modifier(Mod::HmmaAType, 82, 2, types, default),
        ])
        .fixed(73, 1, 0)
        .fixed(75, 1, k16)
        .fixed(78, 1, 0)
        .build()
}

/// `IMMA.<shape>.A.B{.SAT} Rd, Ra.ROW, Rb.COL, Rc`: bit 75 `k32`, A `a_width` registers,
/// B half that, C and D quads.
fn imma(mnemonic: &'static str, op: Op, k32: u64, a_width: u8, cat: L) -> Form {
    form(mnemonic, op, 0x237)
        .since(Arch::Sm80)
        .timing(cat, Pipe::Tensor)
        .ops([
            rd().width(4),
            reg(Role::A, RA).width(a_width).suffix(ROW).reuse(0),
            reg(Role::B, RB).width(a_width / 2).suffix(COL).reuse(1),
            reg(Role::C, RC).width(4),
        ])
        .mods([
            split_modifier(Mod::ImmaAType, bits(76, 1), bits(83, 1), INT8_TYPES, 0),
            split_modifier(Mod::ImmaBType, bits(78, 1), bits(84, 1), INT8_TYPES, 0),
            flag!(Mod::SatFinite, 82, ".SAT"),
        ])
        .fixed(72, 1, 0)
        .fixed(73, 1, 0)
        .fixed(74, 1, 1)
        .fixed(75, 1, k32)
        .fixed(77, 1, 0)
        .fixed(79, 1, 0)
        .fixed(85, 1, 0)
        .fixed(86, 1, 1)
        .build()
}
