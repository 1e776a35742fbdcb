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
//! * `HMMA.1684.D.TF32` (PTX `mma.m16n8k4` of tf32): bit 78 set, 75 clear (both set print
//!   `INVALID3`); otherwise HMMA.1688's fields. A is a pair, B one register, C and D quads.
//! * `IMMA.<shape>.A.B{.SAT} Rd, Ra.ROW, Rb.COL, Rc` (0x237): the shape is one field read
//!   from bits 75, 85 and 86 (as bits 0..2: 0 `8816`, 2 `8832`, 4 `16816`, 5 `16832`, 6
//!   `16864`; 1, 3 and 7 print `INVALIDn`), printed whatever the element size
//!   (`IMMA.16816.S4.S4` decodes; described are the shapes ptxas emits: 8816 and 16816 of
//!   8-bit, 8832 and 16864 of 4-bit, 16832 of both). Element types: bits 76 (A signed) and
//!   78 (B signed) with 4-bit sizes in 83 (A) and 84 (B); bits 77 and 79 print `INVALIDn`
//!   and are fixed clear, `.SAT` bit 82, bit 72 the sparse `IMMA.SP`. Registers: the m8n8
//!   shapes read one A and one B register and a C pair; 16816 and 4-bit 16832 an A pair and
//!   one B register, 8-bit 16832 and 16864 an A quad and a B pair; their C and D are quads.
//! * `BMMA.<shape>.{XOR|AND}.POPC Rd, Ra.ROW, Rb.COL, Rc` (0x23d): the shape is bits 75..76
//!   (0 `88128`, 1 `168128`, 2 `168256`, 3 `INVALID3`), the bit operation bits 77..78 (0
//!   `.XOR`, 2 `.AND`, 1 `INVALID1`), `.POPC` bit 80 (clear prints `???0`); bits 72 and 79
//!   are ignored by nvdisasm (left clear, as ptxas leaves them). Registers as IMMA's 8-bit
//!   8816, 16816 and 16832.
//! * `DMMA.884{.RM|.RP} Rd, Ra, Rb, Rc` (0x23f, also on SM86 and SM89; SM75 has no
//!   opcode 0x23f): A and B are register pairs (one f64 each), C and D quads (two f64).
//!   `-` and `|x|` of A are bits 72 and 73, of B 63 and 62, of C 75 and 74; the rounding is
//!   bits 78..79 (1 `.RM`, 2 `.RP`; 3 prints nothing and is not described), bit 76 the
//!   shape (set prints `???1`, fixed clear). Bits 77 and 80..90 print nothing (left clear,
//!   as ptxas leaves them). A and B have reuse flags (slots 0 and 1; slot 2 is an invalid
//!   `opex` value under DMMA).
//!
//! Timing: NVIDIA's sm_80 categories (`timing.rs`): fixed latency without a scoreboard,
//! single-pass (`MMA_1x_collect`: HMMA.1688 of f16 and bf16, HMMA.1684, IMMA.16816, 4-bit
//! IMMA.16832, BMMA.168128, and the m8n8 shapes IMMA.8816, .8832 and BMMA.88128, after
//! which ptxas 13.5 waits 12 cycles before a store) or double-pass (`MMA_2x_collect`:
//! HMMA.16816, HMMA.1688.TF32, 8-bit IMMA.16832, IMMA.16864, BMMA.168256; ptxas waits 23
//! cycles before storing their results where it waits 15 after the single-pass m16n8
//! ones; `tests/ampere/mma_more.ptx`). DMMA has a write
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
/// The 4-bit IMMA element types (the size bits 83 and 84 set).
const INT4_TYPES: &[(u16, &str)] = &[(2, ".U4"), (3, ".S4")];

/// HMMA's shape bits: (bit 75, bit 78).
const K16: (u64, u64) = (1, 0);
const K8: (u64, u64) = (0, 0);
const K4: (u64, u64) = (0, 1);

/// IMMA's shape field, bits 75, 85 and 86 read as bits 0..2 (1, 3 and 7 print `INVALIDn`;
/// the shape prints independently of the element size: `IMMA.16816.S4.S4` decodes).
const I8816: u64 = 0;
const I8832: u64 = 2;
const I16816: u64 = 4;
const I16832: u64 = 5;
const I16864: u64 = 6;

/// BMMA's bit operation (bits 77..78: 0 `.XOR`, 2 `.AND`, 1 `INVALID1`), `.POPC` bit 80.
const BMMA_OPS: &[(u16, &str)] = &[(0, ".XOR.POPC"), (2, ".AND.POPC")];

/// The sm_80 tensor-core forms.
pub fn forms() -> Vec<Form> {
    vec![
        hmma("HMMA.16816", Op::Hmma16816, K16, 4, HALF_TYPES, 0, L::Mma2x),
        hmma("HMMA.1688", Op::Hmma1688, K8, 2, HALF_TYPES, 0, L::Mma1x),
        hmma("HMMA.1688", Op::Hmma1688, K8, 4, TF32_TYPE, 2, L::Mma2x),
        hmma("HMMA.1684", Op::Hmma1684, K4, 2, TF32_TYPE, 2, L::Mma1x),
        imma("IMMA.16816", Op::Imma16816, I16816, [2, 1, 4], INT8_TYPES, L::Mma1x),
        imma("IMMA.16832", Op::Imma16832, I16832, [4, 2, 4], INT8_TYPES, L::Mma2x),
        imma("IMMA.16832", Op::Imma16832, I16832, [2, 1, 4], INT4_TYPES, L::Mma1x),
        imma("IMMA.16864", Op::Imma16864, I16864, [4, 2, 4], INT4_TYPES, L::Mma2x),
        imma("IMMA.8816", Op::Imma, I8816, [1, 1, 2], INT8_TYPES, L::Mma1x),
        imma("IMMA.8832", Op::Imma, I8832, [1, 1, 2], INT4_TYPES, L::Mma1x),
        bmma("BMMA.88128", Op::Bmma, 0, [1, 1, 2], L::Mma1x),
        bmma("BMMA.168128", Op::Bmma168128, 1, [2, 1, 4], L::Mma1x),
        bmma("BMMA.168256", Op::Bmma168256, 2, [4, 2, 4], L::Mma2x),
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

/// `HMMA.<shape>.D.A Rd, Ra, Rb, Rc`: `shape` (bits 75 and 78), A `a_width` registers, B
/// half that.
fn hmma(
    mnemonic: &'static str,
    op: Op,
    shape: (u64, u64),
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
        .fixed(75, 1, shape.0)
        .fixed(78, 1, shape.1)
        .build()
}

/// `IMMA.<shape>.A.B{.SAT} Rd, Ra.ROW, Rb.COL, Rc`: `shape` the code of bits 75, 85 and 86,
/// `widths` the registers of A, B and C/D, `types` the element types of A and B.
fn imma(
    mnemonic: &'static str,
    op: Op,
    shape: u64,
    widths: [u8; 3],
    types: &'static [(u16, &'static str)],
    cat: L,
) -> Form {
    let [a, b, cd] = widths;
    let default = types[0].0;
    form(mnemonic, op, 0x237)
        .since(Arch::Sm80)
        .timing(cat, Pipe::Tensor)
        .ops([
            rd().width(cd),
            reg(Role::A, RA).width(a).suffix(ROW).reuse(0),
            reg(Role::B, RB).width(b).suffix(COL).reuse(1),
            reg(Role::C, RC).width(cd),
        ])
        .mods([
            split_modifier(Mod::ImmaAType, bits(76, 1), bits(83, 1), types, default),
            split_modifier(Mod::ImmaBType, bits(78, 1), bits(84, 1), types, default),
            flag!(Mod::SatFinite, 82, ".SAT"),
        ])
        .fixed(72, 1, 0)
        .fixed(73, 1, 0)
        .fixed(74, 1, 1)
        .fixed(75, 1, shape & 1)
        .fixed(77, 1, 0)
        .fixed(79, 1, 0)
        .fixed(85, 1, shape >> 1 & 1)
        .fixed(86, 1, shape >> 2)
        .build()
}

/// `BMMA.<shape>.{XOR|AND}.POPC Rd, Ra.ROW, Rb.COL, Rc`: `shape` bits 75..76 (0 88128, 1
/// 168128, 2 168256; 3 prints `INVALID3`), `widths` the registers of A, B and C/D. Bit 72
/// is ignored (no sparse form), `.POPC` is bit 80 (clear prints `???0`).
fn bmma(mnemonic: &'static str, op: Op, shape: u64, widths: [u8; 3], cat: L) -> Form {
    let [a, b, cd] = widths;
    form(mnemonic, op, 0x23d)
        .since(Arch::Sm80)
        .timing(cat, Pipe::Tensor)
        .ops([
            rd().width(cd),
            reg(Role::A, RA).width(a).suffix(ROW).reuse(0),
            reg(Role::B, RB).width(b).suffix(COL).reuse(1),
            reg(Role::C, RC).width(cd),
        ])
        .mods([modifier(Mod::BmmaOp, 77, 2, BMMA_OPS, 0)])
        .fixed(73, 1, 0)
        .fixed(74, 1, 1)
        .fixed(75, 2, shape)
        .fixed(80, 1, 1)
        .build()
}
