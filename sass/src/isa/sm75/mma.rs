//! Tensor cores: HMMA.884 (the steps of PTX `mma.m8n8k4`), HMMA.1688, IMMA.8816/.8832,
//! BMMA.88128 and the register transpose MOVM. Every field was found by flipping bits of
//! ptxas 13.5's words under `nvdisasm -b SM75`; ptxas emits each form for the kernels of
//! `tests/tensor` (CUDA C WMMA tiles, inline-PTX `mma.sync`, `ldmatrix`, `movmatrix`), which
//! the ISA round trip (`sass/tests/isa_roundtrip.rs`) checks bit for bit against nvdisasm.
//!
//! Register operands are tuples: HMMA.884 reads and writes register pairs (A and B hold four
//! f16 values, C and D one pair per step); HMMA.1688 reads A as a pair and B as one
//! register, and C and D are pairs (f16) or quads (f32); IMMA and BMMA read one register of
//! A and of B and a pair of C, and write a pair. What each register of each lane holds is in
//! `runtime-sim/src/exec/semantics/mma.rs`. `-R` (bits 72 and 63) negates the f16 elements
//! of A or B; ptxas never sets them. HMMA.1688 with bit 75 is nvdisasm's `HMMA.16816`, with
//! bit 78 `HMMA.1684` (sm_80 shapes; the bits are fixed here).
//!
//! Timing: NVIDIA's categories `RedirectedHMMA_884_F16`, `_884_F32`, `_1688` and `IMMA`
//! (fixed distances and a write scoreboard); MOVM, like LDSM, is a variable-latency MIO
//! instruction.

use crate::flag;
use crate::isa::build::*;
use crate::isa::desc::{LatCat as L, Pipe, Role, *};

/// `.ROW` / `.COL` of A (bit 73) and B (bit 74) in HMMA.884.
const LAYOUT_A: SuffixDesc = suffix(73, 1, &[(0, ".ROW"), (1, ".COL")]);
const LAYOUT_B: SuffixDesc = suffix(74, 1, &[(0, ".ROW"), (1, ".COL")]);
/// The fixed layouts of IMMA and BMMA (A row-major, B column-major: bits 73 = 0, 74 = 1).
const ROW: SuffixDesc = suffix(0, 0, &[(0, ".ROW")]);
const COL: SuffixDesc = suffix(0, 0, &[(0, ".COL")]);

/// `.SATFINITE` of HMMA (bit 77).
const SATFINITE: ModDesc = flag!(Mod::SatFinite, 77, ".SATFINITE");

/// All tensor-core forms.
pub fn forms() -> Vec<Form> {
    vec![
        hmma884(
            L::Hmma884F16,
            &[(0, ".F16")],
            0,
            &[(0, ".F16")],
            0,
            &[(0, ".STEP0"), (1, ".STEP1")],
        ),
        hmma884(
            L::Hmma884F32,
            &[(1, ".F32")],
            1,
            &[(0, ".F16"), (1, ".F32")],
            1,
            &[(0, ".STEP0"), (1, ".STEP1"), (2, ".STEP2"), (3, ".STEP3")],
        ),
        hmma1688(),
        imma(0, &[(0, ".U8"), (1, ".S8")]),
        imma(1, &[(2, ".U4"), (3, ".S4")]),
        bmma(),
        movm(),
    ]
}

fn tensor(f: FormBuilder, cat: L) -> FormBuilder {
    f.timing(cat, Pipe::Tensor)
}

/// `HMMA.884.D.C.STEPn Rd, Ra.L, Rb.L, Rc`: D pair, A, B and C pairs. An f16 result takes
/// two steps and an f16 accumulator; an f32 result four steps and either accumulator.
fn hmma884(
    cat: L,
    dtypes: &'static [(u16, &'static str)],
    dtype: u16,
    ctypes: &'static [(u16, &'static str)],
    ctype: u16,
    steps: &'static [(u16, &'static str)],
) -> Form {
    tensor(form("HMMA.884", Op::Hmma884, 0x236), cat)
        .ops([
            rd().width(2),
            reg(Role::A, RA).width(2).neg(72).suffix(LAYOUT_A).reuse(0),
            reg(Role::B, RB).width(2).neg(63).suffix(LAYOUT_B).reuse(1),
            reg(Role::C, RC).width(2).reuse(2),
        ])
        .mods([
            modifier(Mod::HmmaDType, 76, 1, dtypes, dtype),
            modifier(Mod::HmmaCType, 78, 1, ctypes, ctype),
            modifier(Mod::HmmaStep, 79, 2, steps, 0),
            SATFINITE,
        ])
        .fixed(75, 1, 0)
        .build()
}

/// `HMMA.1688.D Rd, Ra, Rb, Rc`: A a pair, B one register, C and D pairs (f16) or quads
/// (f32); the accumulator has the result's type. Only B has a reuse flag: nvdisasm rejects
/// HMMA.1688 with the reuse bit of A or C (`undefined value for table 'TABLES_opex_2'`).
fn hmma1688() -> Form {
    tensor(form("HMMA.1688", Op::Hmma1688, 0x23c), L::Hmma1688)
        .ops([
            rd().width(0),
            reg(Role::A, RA).width(2).neg(72),
            reg(Role::B, RB).neg(63).reuse(1),
            reg(Role::C, RC).width(0),
        ])
        .mods([
            modifier(Mod::HmmaDType, 76, 1, &[(0, ".F16"), (1, ".F32")], 0),
            SATFINITE,
        ])
        .fixed(75, 1, 0)
        .fixed(78, 1, 0)
        .build()
}

/// `IMMA.8816.A.B[.SAT] Rd, Ra.ROW, Rb.COL, Rc` (8-bit elements, `shape` 0) and
/// `IMMA.8832` (4-bit, `shape` 1, bit 85). The element types are split fields: signedness
/// in bits 76 (A) and 78 (B), the 4-bit size in bits 83 and 84.
fn imma(shape: u64, types: &'static [(u16, &'static str)]) -> Form {
    let mnemonic = if shape == 0 { "IMMA.8816" } else { "IMMA.8832" };
    let default = types[0].0;
    tensor(form(mnemonic, Op::Imma, 0x237), L::Imma)
        .ops([
            rd().width(2),
            reg(Role::A, RA).suffix(ROW).reuse(0),
            reg(Role::B, RB).suffix(COL).reuse(1),
            reg(Role::C, RC).width(2).reuse(2),
        ])
        .mods([
            split_modifier(Mod::ImmaAType, bits(76, 1), bits(83, 1), types, default),
            split_modifier(Mod::ImmaBType, bits(78, 1), bits(84, 1), types, default),
            flag!(Mod::SatFinite, 82, ".SAT"),
        ])
        .fixed(73, 1, 0)
        .fixed(74, 1, 1)
        .fixed(75, 1, 0)
        .fixed(85, 1, shape)
        .build()
}

/// `BMMA.88128.XOR.POPC Rd, Ra.ROW, Rb.COL, Rc`.
fn bmma() -> Form {
    tensor(form("BMMA.88128.XOR.POPC", Op::Bmma, 0x23d), L::Imma)
        .ops([
            rd().width(2),
            reg(Role::A, RA).suffix(ROW).reuse(0),
            reg(Role::B, RB).suffix(COL).reuse(1),
            reg(Role::C, RC).width(2).reuse(2),
        ])
        .fixed(73, 1, 0)
        .fixed(74, 1, 1)
        .fixed(75, 2, 0)
        .fixed(77, 1, 0)
        .fixed(80, 1, 1)
        .build()
}

/// `MOVM.16.MT88 Rd, Ra` (bits 78..80 select `.M832`/`.M864` on later GPUs; fixed here).
fn movm() -> Form {
    form("MOVM.16.MT88", Op::Movm, 0x23a)
        .timing(L::Decoupled, Pipe::Lsu)
        .ops([rd(), reg(Role::A, RA)])
        .fixed(78, 2, 0)
        .build()
}
