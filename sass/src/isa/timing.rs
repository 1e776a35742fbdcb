//! Register-dependency latencies of Turing, as NVIDIA publishes them for the Mesa NAK
//! compiler (see `docs/TIMING-SM75.md`): every form has a latency category, and the tables below
//! give the minimum issue distance in cycles between a writer and a later reader (RAW),
//! writer (WAW) or, for writes after reads, between a reader and a later writer (WAR).
//! The scheduler uses them to set stall counts; the simulator uses the same tables to
//! report an instruction that issues too early as a hazard.
//!
//! Ampere and Ada (sm_80, sm_86, sm_89) have their own register and predicate RAW tables
//! (NVIDIA's table for these targets as NAK's `sm80_instr_latencies.rs` has it, mapped onto
//! these categories: a variable-latency reader on the memory pipe (address unit: loads,
//! stores, atomics, SHFL) waits 5 cycles after a fixed-latency writer, other variable-latency
//! readers (branches, conversions) 4; HFMA2.MMA is counted as FP16). A register may be
//! overwritten 1 cycle after it was read except by a variable-latency writer after a
//! fixed-latency reader (2). WAW distances are taken as sm_75's.

use super::arch::Arch;
use super::desc::{Op, Pipe};

/// Latency category of an instruction (NVIDIA's classification); ordered as declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LatCat {
    /// Fixed latency, dispatched as 64 bits (CS2R of a pair).
    Disp64,
    /// Fixed latency, dispatch-only (NOP, VOTE).
    Disp,
    /// Fixed latency, ALU pipe (IADD3, LOP3, ISETP, MOV, SEL, FSETP, FMNMX, PRMT ...).
    Alu,
    /// Fixed latency, FMA pipe (FFMA, FADD, FMUL).
    Fma,
    /// IMAD and IMAD.HI.
    ImadLo,
    /// The A and B sources of IMAD.WIDE (readers only).
    ImadWideAB,
    /// The low half of IMAD.WIDE's C source or result.
    ImadWideLower,
    /// The high half of IMAD.WIDE's C source or result (also the result as a whole).
    ImadWideUpper,
    /// Double precision (fixed latency and a scoreboard).
    Fp64,
    /// Half precision.
    Fp16,
    /// Variable latency: results come back through a write scoreboard.
    Decoupled,
    /// Variable-latency readers with a longer read window (CCTL; readers only).
    DecoupledOther,
    /// BMOV to a general register.
    BMov,
    /// HMMA.884 with an f16 result (NAK's `RedirectedHMMA_884_F16`: fixed distances and a
    /// scoreboard).
    Hmma884F16,
    /// HMMA.884 with an f32 result (`RedirectedHMMA_884_F32`).
    Hmma884F32,
    /// HMMA.1688 (`RedirectedHMMA_1688`).
    Hmma1688,
    /// IMMA and BMMA (NAK's `IMMA`).
    Imma,
    /// Ampere's single-pass tensor-core instructions (NVIDIA's `MMA_1x_collect` and
    /// `IMMA_88` on sm_80/86/89: HMMA.1688 of f16 or bf16, IMMA.16816): fixed latency, no
    /// scoreboard. Not in the Turing tables ([`ampere_mma_raw`] and friends).
    Mma1x,
    /// Ampere's double-pass tensor-core instructions (`MMA_2x_collect`: HMMA.16816,
    /// HMMA.1688.TF32, IMMA.16832; ptxas waits 23 cycles before a store of their result
    /// where it waits 15 after the single-pass ones).
    Mma2x,
    /// Hopper's double precision: fixed latency without a scoreboard. ptxas 13.5 sets no
    /// write scoreboard on sm_90's DFMA, DMUL, DADD and DSETP and covers their results with
    /// stall counts alone. Timed with the Ampere table's [`LatCat::Fp64`] row and column,
    /// except that another FP64 instruction reads the result 8 cycles later, not 6: the least
    /// distance in ptxas's sm_90 code (109 DFMA/DMUL pairs of the conformance, kernel and op
    /// sets, none closer; the SASS alone, no hardware measurement).
    Fp64Coupled,
    /// A uniform-register or uniform-predicate read by a vector instruction with a fixed
    /// latency (the uniform categories follow: [`super::uniform_timing`]; they have no row in
    /// the vector tables).
    UCoupled,
    /// A uniform-register or uniform-predicate read by a vector instruction with a variable
    /// latency (loads and stores with `[R+UR]`, conversions, FP64).
    UDecoupled,
    /// A uniform register or predicate read by a branch (`BRA.DIV UR4`).
    UBranch,
    /// An instruction of the uniform datapath (UIADD3, ULOP3, UISETP, USEL, ...).
    Udp,
    /// ULDC.
    Uldc,
    /// UMOV.
    Umov,
    /// VOTEU.
    VoteU,
    /// R2UR's uniform result.
    ToUr,
    /// A uniform result that comes back through a write scoreboard (S2UR, REDUX).
    UScoreboarded,
    /// The uniform predicate guarding a uniform-datapath instruction.
    UGuard,
}

/// Number of latency categories.
const CATS: usize = 17;

/// Cycles after issue until an instruction that reads its register sources late (memory
/// accesses: addresses, store data, atomic operands) has read them and releases its read
/// scoreboard (the simulator's model; `runtime-sim/src/exec/timer.rs`).
pub const LATE_READ: u32 = 4;

/// Cycles after a scoreboard is released until a waiting instruction may issue.
pub const SB_VISIBLE: u32 = 2;

impl LatCat {
    fn index(self) -> usize {
        debug_assert!(
            !self.is_ampere_mma() && !self.is_uniform(),
            "Ampere's tensor-core and the uniform categories have no table row"
        );
        match self {
            LatCat::Fp64Coupled => LatCat::Fp64 as usize,
            c => c as usize,
        }
    }

    /// The category whose table entries this one shares (Hopper's FP64 times as Fp64).
    fn tabled(self) -> LatCat {
        match self {
            LatCat::Fp64Coupled => LatCat::Fp64,
            c => c,
        }
    }

    /// True for the categories of uniform-register and uniform-predicate accesses.
    pub fn is_uniform(self) -> bool {
        self >= LatCat::UCoupled
    }

    /// True for Ampere's tensor-core categories ([`LatCat::Mma1x`], [`LatCat::Mma2x`]).
    pub fn is_ampere_mma(self) -> bool {
        matches!(self, LatCat::Mma1x | LatCat::Mma2x)
    }

    /// Extra cycles of a double-pass Ampere tensor-core instruction.
    fn mma_passes(self) -> u32 {
        if self == LatCat::Mma2x { 4 } else { 0 }
    }

    /// True if results must be waited for through a write scoreboard.
    pub fn needs_write_scoreboard(self) -> bool {
        matches!(
            self,
            LatCat::Decoupled
                | LatCat::Fp64
                | LatCat::Hmma884F16
                | LatCat::Hmma884F32
                | LatCat::Hmma1688
                | LatCat::Imma
        )
    }

    /// True if the instruction has a fixed latency that the stall counts must cover.
    pub fn is_coupled(self) -> bool {
        !matches!(self, LatCat::Decoupled | LatCat::DecoupledOther | LatCat::UScoreboarded)
    }

    /// True for the tensor-core categories.
    pub fn is_tensor(self) -> bool {
        matches!(
            self,
            LatCat::Hmma884F16 | LatCat::Hmma884F32 | LatCat::Hmma1688 | LatCat::Imma
        )
    }
}

// Columns (writers) and rows (readers) follow the order of `LatCat`:
// Disp64 Disp Alu Fma ImadLo WideAB WideLower WideUpper Fp64 Fp16 Decoupled DecOther BMov
// H884F16 H884F32 H1688 Imma
// A writer that is not a fixed-latency producer (WideAB, DecOther) never appears: 1.

/// Register read-after-write: `RAW[reader][writer]`.
const RAW: [[u8; CATS]; CATS] = [
    [6, 4, 4, 5, 5, 1, 3, 5, 9, 8, 1, 1, 1, 13, 10, 14, 10], // Disp64
    [6, 4, 4, 5, 5, 1, 3, 5, 9, 8, 1, 1, 1, 13, 10, 14, 10], // Disp
    [6, 4, 4, 5, 5, 1, 3, 5, 9, 8, 1, 1, 1, 13, 10, 14, 10], // Alu
    [6, 5, 5, 4, 4, 1, 2, 4, 9, 8, 1, 1, 1, 13, 10, 14, 10], // Fma
    [6, 5, 5, 4, 4, 1, 2, 4, 9, 8, 1, 1, 1, 13, 10, 14, 10], // ImadLo
    [6, 5, 5, 4, 4, 1, 4, 6, 9, 8, 1, 1, 1, 13, 10, 14, 10], // ImadWideAB
    [6, 5, 5, 4, 4, 1, 2, 2, 9, 8, 1, 1, 1, 13, 10, 14, 10], // ImadWideLower
    [4, 3, 3, 2, 2, 1, 2, 2, 7, 6, 1, 1, 1, 11, 8, 12, 8],   // ImadWideUpper
    [6, 6, 6, 6, 6, 1, 6, 6, 8, 8, 1, 1, 1, 13, 10, 14, 10], // Fp64
    [6, 6, 6, 6, 6, 1, 6, 6, 9, 6, 1, 1, 1, 13, 10, 14, 10], // Fp16
    [6, 6, 6, 6, 6, 1, 6, 6, 9, 8, 1, 1, 1, 13, 10, 14, 10], // Decoupled
    [8, 8, 8, 8, 8, 1, 8, 8, 9, 8, 1, 1, 1, 13, 10, 14, 10], // DecoupledOther
    [6, 6, 6, 6, 6, 1, 6, 6, 9, 8, 1, 1, 1, 13, 10, 14, 10], // BMov (reads like Decoupled)
    [6, 6, 6, 6, 6, 1, 6, 6, 9, 8, 1, 1, 1, 13, 10, 14, 10], // Hmma884F16
    [6, 6, 6, 6, 6, 1, 6, 6, 9, 8, 1, 1, 1, 13, 10, 14, 10], // Hmma884F32
    [6, 6, 6, 6, 6, 1, 6, 6, 9, 8, 1, 1, 1, 13, 10, 14, 10], // Hmma1688
    [8, 8, 8, 8, 8, 1, 8, 8, 9, 8, 1, 1, 1, 13, 10, 14, 10], // Imma
];

/// Register write-after-write: `WAW[second writer][first writer]` as (cycles, extra cycles
/// when the first writer is predicated).
const WAW: [[(u8, u8); CATS]; CATS] = [
    after(
        [(1, 0), (1, 0), (1, 0), (1, 0), (1, 0), (4, 0), (3, 0)],
        [(8, 0), (2, 2), (9, 0), (5, 0)],
    ), // Disp64
    after(
        [(2, 0), (1, 0), (1, 0), (1, 0), (1, 0), (1, 4), (1, 3)],
        [(1, 8), (1, 5), (1, 9), (1, 5)],
    ), // Disp
    after(
        [(2, 0), (1, 0), (1, 0), (1, 0), (1, 0), (1, 4), (1, 3)],
        [(1, 8), (1, 5), (1, 9), (1, 5)],
    ), // Alu
    after(
        [(2, 0), (1, 0), (1, 0), (1, 0), (1, 1), (1, 4), (1, 3)],
        [(1, 8), (1, 5), (1, 9), (1, 5)],
    ), // Fma
    after(
        [(2, 0), (1, 0), (1, 0), (1, 0), (1, 1), (1, 4), (1, 3)],
        [(1, 8), (1, 5), (1, 9), (1, 5)],
    ), // ImadLo
    [(1, 0); CATS], // ImadWideAB
    after(
        [(2, 2), (1, 2), (1, 1), (1, 0), (1, 0), (3, 4), (3, 3)],
        [(3, 8), (3, 5), (3, 9), (3, 5)],
    ), // ImadWideLower
    after(
        [(1, 1), (1, 0), (1, 0), (1, 0), (1, 0), (1, 4), (1, 3)],
        [(1, 8), (1, 5), (1, 9), (1, 5)],
    ), // ImadWideUpper
    after(
        [(2, 0), (2, 0), (2, 0), (2, 0), (2, 0), (1, 0), (2, 0)],
        [(5, 0), (2, 0), (6, 0), (2, 0)],
    ), // Fp64
    after(
        [(2, 0), (2, 0), (2, 0), (2, 0), (2, 0), (1, 1), (1, 0)],
        [(1, 6), (1, 3), (1, 7), (1, 3)],
    ), // Fp16
    after(
        [(6, 0), (6, 0), (6, 0), (6, 0), (6, 0), (6, 0), (6, 0)],
        [(6, 0), (6, 0), (6, 0), (2, 0)],
    ), // Decoupled
    [(1, 0); CATS], // DecoupledOther
    after(
        [(9, 0), (9, 0), (9, 0), (9, 0), (9, 0), (9, 0), (9, 0)],
        [(9, 0), (9, 0), (9, 0), (9, 0)],
    ), // BMov
    after(
        [(2, 0), (2, 0), (2, 0), (2, 0), (2, 0), (2, 3), (2, 2)],
        [(1, 0), (4, 2), (4, 6), (4, 2)],
    ), // Hmma884F16
    after(
        [(2, 0), (2, 0), (2, 0), (2, 0), (2, 0), (2, 3), (2, 2)],
        [(5, 4), (1, 0), (4, 6), (4, 2)],
    ), // Hmma884F32
    after(
        [(2, 0), (2, 0), (2, 0), (2, 0), (2, 0), (2, 0), (2, 0)],
        [(4, 0), (2, 0), (1, 0), (2, 0)],
    ), // Hmma1688
    after(
        [(2, 2), (2, 2), (2, 2), (2, 2), (2, 2), (3, 2), (2, 2)],
        [(7, 2), (4, 2), (4, 6), (1, 0)],
    ), // Imma
];

/// One WAW row: the distances after each kind of first writer, `core` for Disp64,
/// Disp/Alu (one value), Fma/ImadLo (one value), the IMAD.WIDE halves, FP64 and FP16, and
/// `tensor` for HMMA.884 F16, HMMA.884 F32, HMMA.1688 and IMMA; scoreboarded first writers
/// (Decoupled) and the reader-only categories need 1.
const fn after(core: [(u8, u8); 7], tensor: [(u8, u8); 4]) -> [(u8, u8); CATS] {
    let [disp64, alu, fma, lower, upper, fp64, fp16] = core;
    let one = (1, 0);
    [
        disp64, alu, alu, fma, fma, one, lower, upper, fp64, fp16, one, one, one, tensor[0], tensor[1], tensor[2],
        tensor[3],
    ]
}

/// Predicate read-after-write: `PRED_RAW[reader][writer]`; the guard predicate of any
/// instruction reads with the `Decoupled` row. Tensor-core instructions write no predicates.
const PRED_RAW: [[u8; CATS]; CATS] = [
    [12, 12, 12, 12, 12, 1, 12, 12, 15, 14, 1, 1, 1, 1, 1, 1, 1], // Disp64
    [12, 12, 12, 12, 12, 1, 12, 12, 15, 14, 1, 1, 1, 1, 1, 1, 1], // Disp
    [4, 4, 4, 5, 5, 1, 5, 5, 9, 8, 1, 1, 1, 1, 1, 1, 1],          // Alu
    [5, 5, 5, 4, 4, 1, 4, 4, 9, 8, 1, 1, 1, 1, 1, 1, 1],          // Fma
    [5, 5, 5, 4, 4, 1, 4, 4, 9, 8, 1, 1, 1, 1, 1, 1, 1],          // ImadLo
    [5, 5, 5, 4, 4, 1, 2, 2, 9, 8, 1, 1, 1, 1, 1, 1, 1],          // ImadWideAB
    [5, 5, 5, 4, 4, 1, 2, 2, 9, 8, 1, 1, 1, 1, 1, 1, 1],          // ImadWideLower
    [5, 5, 5, 4, 4, 1, 2, 2, 9, 8, 1, 1, 1, 1, 1, 1, 1],          // ImadWideUpper
    [12, 12, 12, 12, 12, 1, 12, 12, 8, 14, 1, 1, 1, 1, 1, 1, 1],  // Fp64
    [12, 12, 12, 12, 12, 1, 12, 12, 15, 6, 1, 1, 1, 1, 1, 1, 1],  // Fp16
    [12, 12, 12, 12, 12, 1, 12, 12, 15, 14, 1, 1, 1, 1, 1, 1, 1], // Decoupled (and guards)
    [12, 12, 12, 12, 12, 1, 12, 12, 15, 14, 1, 1, 1, 1, 1, 1, 1], // DecoupledOther
    [12, 12, 12, 12, 12, 1, 12, 12, 15, 14, 1, 1, 1, 1, 1, 1, 1], // BMov
    [12, 12, 12, 12, 12, 1, 12, 12, 15, 14, 1, 1, 1, 1, 1, 1, 1], // Hmma884F16
    [12, 12, 12, 12, 12, 1, 12, 12, 15, 14, 1, 1, 1, 1, 1, 1, 1], // Hmma884F32
    [12, 12, 12, 12, 12, 1, 12, 12, 15, 14, 1, 1, 1, 1, 1, 1, 1], // Hmma1688
    [12, 12, 12, 12, 12, 1, 12, 12, 15, 14, 1, 1, 1, 1, 1, 1, 1], // Imma
];

/// Register read-after-write on sm_80, sm_86 and sm_89: `RAW_SM80[reader][writer]`.
const RAW_SM80: [[u8; 13]; 13] = [
    [6, 4, 4, 5, 5, 1, 3, 5, 10, 5, 1, 1, 1], // Disp64
    [6, 4, 4, 5, 5, 1, 3, 5, 10, 5, 1, 1, 1], // Disp
    [6, 4, 4, 5, 5, 1, 3, 5, 10, 5, 1, 1, 1], // Alu
    [6, 5, 5, 4, 4, 1, 2, 4, 10, 5, 1, 1, 1], // Fma
    [6, 5, 5, 4, 4, 1, 2, 4, 10, 5, 1, 1, 1], // ImadLo
    [6, 5, 5, 4, 4, 1, 4, 6, 10, 5, 1, 1, 1], // ImadWideAB
    [6, 5, 5, 4, 4, 1, 2, 4, 10, 5, 1, 1, 1], // ImadWideLower
    [4, 3, 3, 2, 2, 1, 2, 2, 8, 3, 1, 1, 1],  // ImadWideUpper
    [6, 6, 6, 6, 6, 1, 6, 6, 6, 6, 1, 1, 1],  // Fp64
    [6, 5, 5, 5, 5, 1, 3, 5, 10, 5, 1, 1, 1], // Fp16
    [5, 5, 5, 5, 5, 1, 5, 5, 7, 5, 1, 1, 1],  // Decoupled
    [5, 5, 5, 5, 5, 1, 5, 5, 7, 5, 1, 1, 1],  // DecoupledOther
    [4, 4, 4, 4, 4, 1, 4, 4, 6, 4, 1, 1, 1],  // BMov
];

/// Predicate read-after-write on sm_80, sm_86 and sm_89 (guards read with the `Decoupled`
/// row).
const PRED_RAW_SM80: [[u8; 13]; 13] = [
    [13, 13, 13, 13, 13, 1, 13, 13, 14, 13, 1, 1, 1], // Disp64
    [13, 13, 13, 13, 13, 1, 13, 13, 14, 13, 1, 1, 1], // Disp
    [4, 4, 4, 5, 5, 1, 5, 5, 6, 5, 1, 1, 1],          // Alu
    [5, 5, 5, 4, 4, 1, 4, 4, 6, 5, 1, 1, 1],          // Fma
    [5, 5, 5, 4, 4, 1, 4, 4, 6, 5, 1, 1, 1],          // ImadLo
    [5, 5, 5, 4, 4, 1, 4, 4, 6, 5, 1, 1, 1],          // ImadWideAB
    [5, 5, 5, 4, 4, 1, 4, 4, 6, 5, 1, 1, 1],          // ImadWideLower
    [5, 5, 5, 4, 4, 1, 4, 4, 6, 5, 1, 1, 1],          // ImadWideUpper
    [13, 13, 13, 13, 13, 1, 13, 13, 6, 13, 1, 1, 1],  // Fp64
    [13, 13, 13, 13, 13, 1, 13, 13, 14, 6, 1, 1, 1],  // Fp16
    [13, 13, 13, 13, 13, 1, 13, 13, 14, 13, 1, 1, 1], // Decoupled (and guards)
    [13, 13, 13, 13, 13, 1, 13, 13, 14, 13, 1, 1, 1], // DecoupledOther
    [13, 13, 13, 13, 13, 1, 13, 13, 14, 13, 1, 1, 1], // BMov
];

/// Whether an instruction of `op` on `pipe` reads through the address unit (NVIDIA's
/// `DecoupledAgu` readers: loads, stores, atomics, SHFL, BAR; MATCH is a plain variable-latency
/// reader: ptxas's sm_86 code reads a LOP3 result with MATCH 4 cycles later, and so are
/// Hopper's SYNCS.ARRIVE and PHASECHK: ptxas's sm_90 code reads an IMAD.MOV result with ARRIVE
/// and a SHF result with PHASECHK 4 cycles later,
/// `tests/ampere/mbarrier.ptx`; and LDC, NVIDIA's `Decoupled` reader in NAK's sm_80 table:
/// ptxas's sm_80, sm_86 and sm_89 code reads a SHF result as LDC's index 4 cycles later,
/// `tests/ops/spaces.ptx`).
pub fn address_unit(op: Op, pipe: Pipe) -> bool {
    pipe == Pipe::Lsu && !matches!(op, Op::Match | Op::SyncsArrive | Op::SyncsPhasechk | Op::Ldc)
}

/// Whether a distance between `a` and `b` on `arch` comes from the Ampere/Ada tables. Those
/// have no tensor-core categories yet: an instruction of one is timed with Turing's distances
/// there (an approximation, not a measured table).
fn ampere_table(arch: Arch, a: LatCat, b: LatCat) -> bool {
    arch >= Arch::Sm80 && !a.is_tensor() && !b.is_tensor()
}

/// Minimum cycles between a writer and a later reader of the same register (sm_75).
pub fn raw(writer: LatCat, reader: LatCat) -> u32 {
    if writer.is_ampere_mma() || reader.is_ampere_mma() {
        return ampere_mma_raw(writer, reader, true);
    }
    RAW[reader.index()][writer.index()] as u32
}

/// Register read-after-write when either side is an Ampere tensor-core instruction
/// (NVIDIA's sm_80 table as NAK's `sm80_instr_latencies.rs` has it): after MMA_1x a
/// fixed-latency reader waits 13 cycles (IMAD.WIDE's upper C half 11), another tensor-core
/// instruction 14, a variable-latency reader 11 (12 on the memory pipe); after MMA_2x each
/// 4 more. A tensor-core reader waits 7 cycles after a fixed-latency writer, 11 after FP64.
pub fn ampere_mma_raw(writer: LatCat, reader: LatCat, address_unit: bool) -> u32 {
    let (writer, reader) = (writer.tabled(), reader.tabled());
    use LatCat::*;
    if writer.is_ampere_mma() {
        let base = match reader {
            Mma1x | Mma2x => 14,
            ImadWideUpper => 11,
            Decoupled if address_unit => 12,
            Decoupled | DecoupledOther | BMov => 11,
            _ => 13,
        };
        return base + writer.mma_passes();
    }
    match writer {
        Decoupled | DecoupledOther | BMov | ImadWideAB => 1,
        Fp64 => 11,
        _ => 7,
    }
}

/// [`raw`] on `arch`; `address_unit`: the reader issues to the memory pipe (on Ampere and
/// Ada its variable-latency row is a cycle longer than the other variable-latency readers').
pub fn raw_on(arch: Arch, writer: LatCat, reader: LatCat, address_unit: bool) -> u32 {
    if writer.is_ampere_mma() || reader.is_ampere_mma() {
        return ampere_mma_raw(writer, reader, address_unit);
    }
    if !ampere_table(arch, writer, reader) {
        return raw(writer, reader);
    }
    let row = match reader {
        LatCat::Decoupled if !address_unit => LatCat::BMov,
        r => r,
    };
    if writer == LatCat::Fp64Coupled && reader == LatCat::Fp64Coupled {
        return HOPPER_FP64_RAW;
    }
    RAW_SM80[row.index()][writer.index()] as u32
}

/// Hopper: cycles before one FP64 instruction reads another's result ([`LatCat::Fp64Coupled`]).
const HOPPER_FP64_RAW: u32 = 8;

/// [`pred_raw`] on `arch`.
pub fn pred_raw_on(arch: Arch, writer: LatCat, reader: LatCat, guard: bool) -> u32 {
    // Tensor-core instructions read predicates only as guards.
    let row = if guard || reader.is_ampere_mma() {
        LatCat::Decoupled
    } else {
        reader
    };
    if !ampere_table(arch, writer, row) {
        return PRED_RAW[row.index()][writer.index()] as u32;
    }
    PRED_RAW_SM80[row.index()][writer.index()] as u32
}

/// Minimum cycles between two writers of the same register (`predicated`: the first
/// writer has a guard).
pub fn waw(first: LatCat, second: LatCat, predicated: bool) -> u32 {
    let (first, second) = (first.tabled(), second.tabled());
    if first.is_ampere_mma() || second.is_ampere_mma() {
        return ampere_mma_waw(first, second, predicated);
    }
    let (base, extra) = WAW[second.index()][first.index()];
    (base + if predicated { extra } else { 0 }) as u32
}

/// Register write-after-write when either writer is an Ampere tensor-core instruction
/// (NVIDIA's sm_80 table): after MMA_1x, another tensor-core write waits 4 cycles, a
/// fixed-latency one 8 (FP64 7; IMAD.WIDE's lower half 8, 3 more when the first was
/// predicated, others 1 more), a variable-latency one 7 (6 more when predicated); after
/// MMA_2x each 4 more. A tensor-core write after a fixed-latency one waits 2, after a
/// variable-latency one 1.
pub fn ampere_mma_waw(first: LatCat, second: LatCat, predicated: bool) -> u32 {
    let (first, second) = (first.tabled(), second.tabled());
    use LatCat::*;
    let pick = |base: u32, extra: u32| base + if predicated { extra } else { 0 };
    if !first.is_ampere_mma() {
        return match first {
            Decoupled | DecoupledOther | BMov | ImadWideAB => 1,
            _ => 2,
        };
    }
    let passes = first.mma_passes();
    match second {
        Mma1x | Mma2x => 4 + passes,
        Fp64 => 7 + passes,
        Decoupled | DecoupledOther | BMov => pick(7 + passes, 6),
        ImadWideLower => pick(8 + passes, 3),
        _ => pick(8 + passes, 1),
    }
}

/// Minimum cycles between a reader and a later writer of the same register. HMMA.1688
/// reads its sources over several cycles: a fixed-latency writer waits 5 cycles after it,
/// other writers 6.
pub fn war(reader: LatCat, writer: LatCat) -> u32 {
    let (reader, writer) = (reader.tabled(), writer.tabled());
    use LatCat::*;
    if reader.is_ampere_mma() || writer.is_ampere_mma() {
        return ampere_mma_war(reader, writer);
    }
    let same_or_decoupled = |c: LatCat| reader == c || reader == Decoupled;
    match writer {
        Disp64 | Disp | Alu | Fma | ImadLo | ImadWideLower | ImadWideUpper if reader == Hmma1688 => 5,
        Fp64 | Fp16 | Hmma884F16 | Hmma884F32 | Imma if reader == Hmma1688 => 6,
        Fp64 | Fp16 | Hmma884F16 | Hmma884F32 | Hmma1688 | Imma if !same_or_decoupled(writer) => 2,
        Decoupled if reader != Decoupled => 2,
        BMov if reader != Decoupled => 9,
        _ => 1,
    }
}

/// Register write-after-read when either side is an Ampere tensor-core instruction
/// (NVIDIA's sm_80 table): a tensor-core writer waits 2 cycles after a fixed-latency ALU,
/// FMA or IMAD reader, 1 otherwise; any writer after a tensor-core reader 1.
pub fn ampere_mma_war(reader: LatCat, writer: LatCat) -> u32 {
    use LatCat::*;
    let coupled_reader = matches!(
        reader,
        Disp64 | Disp | Alu | Fma | ImadLo | ImadWideAB | ImadWideLower | ImadWideUpper
    );
    if writer.is_ampere_mma() && coupled_reader { 2 } else { 1 }
}

/// [`war`] on `arch`.
pub fn war_on(arch: Arch, reader: LatCat, writer: LatCat) -> u32 {
    let (reader, writer) = (reader.tabled(), writer.tabled());
    use LatCat::*;
    if reader.is_ampere_mma() || writer.is_ampere_mma() {
        return ampere_mma_war(reader, writer);
    }
    if !ampere_table(arch, reader, writer) {
        return war(reader, writer);
    }
    let coupled_reader = matches!(
        reader,
        Disp64 | Disp | Alu | Fma | ImadLo | ImadWideAB | ImadWideLower | ImadWideUpper
    );
    match writer {
        Decoupled | BMov if coupled_reader => 2,
        _ => 1,
    }
}

/// Minimum cycles between a predicate writer and a later reader; `guard` is true when the
/// predicate is read as the instruction's guard.
pub fn pred_raw(writer: LatCat, reader: LatCat, guard: bool) -> u32 {
    let (writer, reader) = (writer.tabled(), reader.tabled());
    let row = if guard || reader.is_ampere_mma() {
        LatCat::Decoupled
    } else {
        reader
    };
    PRED_RAW[row.index()][writer.index()] as u32
}

/// Minimum cycles between two writers of the same predicate.
pub fn pred_waw(first: LatCat, second: LatCat, predicated: bool) -> u32 {
    let (first, second) = (first.tabled(), second.tabled());
    use LatCat::*;
    let pick = |base: u32, extra: u32| base + if predicated { extra } else { 0 };
    let wide = |c: LatCat| matches!(c, ImadWideLower | ImadWideUpper);
    match (second, first) {
        (_, Decoupled) => 1,
        (Decoupled, _) => 2,
        (Fp64, Fp64) | (Fp16, Fp16) => 1,
        (Fp64, Fp16) => pick(2, 4),
        (Fp64, _) => pick(2, 2),
        (Fp16, Fp64) => pick(2, 7),
        (Fp16, _) => pick(2, 4),
        (s, Fp64) if wide(s) => pick(3, 4),
        (s, Fp16) if wide(s) => pick(3, 3),
        (s, Disp | Alu) if wide(s) => pick(1, 2),
        (s, Fma | ImadLo) if wide(s) => pick(1, 1),
        (_, Fp64) => pick(1, 4),
        (_, Fp16) => pick(1, 3),
        _ => 1,
    }
}

/// Minimum cycles between a predicate reader and a later writer of it. Predicates are read
/// at issue: ptxas overwrites a predicate with an FP64 writer (DSETP) or a variable-latency
/// one (FCHK, SHFL, B2R) one cycle after an ALU, FMA or IMAD instruction read it (hundreds of
/// times in 2000 random difftest programs), where NAK's table asks for 2; only the FP16
/// writers keep the table's 2 (no ptxas code shows otherwise).
pub fn pred_war(reader: LatCat, writer: LatCat) -> u32 {
    let (reader, writer) = (reader.tabled(), writer.tabled());
    use LatCat::*;
    let coupled_reader = matches!(reader, Alu | Fma | ImadLo | ImadWideLower | ImadWideUpper);
    match writer {
        Fp16 if coupled_reader || reader == Fp64 => 2,
        _ => 1,
    }
}

/// Cycles a warp instruction occupies its execution pipe on one sub-partition (the issue
/// interval between two instructions on the same pipe), from the CUDA programming guide's
/// throughput table for compute capability 7.5 (`docs/TIMING-SM75.md`, section 5): 16 lanes
/// per sub-partition for FP32/INT/FP16x2 (2), 0.5 lanes for FP64 on Turing (64; a device's
/// own rate may differ), 4 lanes for MUFU and conversions (8), memory operations about every
/// 4 cycles. Tensor-core instructions: [`tensor_issue_interval`].
pub fn issue_interval(p: Pipe) -> i64 {
    match p {
        Pipe::Alu | Pipe::Fma | Pipe::Fp16 | Pipe::Branch => 2,
        Pipe::Fp64 => 64,
        Pipe::Mufu | Pipe::Conv => 8,
        Pipe::Lsu => 4,
        Pipe::Uniform | Pipe::Misc => 1,
        Pipe::Tensor => 4,
    }
}

/// Cycles a tensor-core instruction occupies the tensor pipe of its sub-partition. Turing
/// has two tensor cores per sub-partition, each doing 64 f16 FMAs per cycle (T4: 320 tensor
/// cores on 40 SMs; 65 TFLOPS f16 at 1.59 GHz is 512 FMAs per SM and cycle), 2x that for
/// 8-bit and 4x for 4-bit integers (130 and 260 TOPS). HMMA.1688 is 1024 FMAs: 8 cycles; an
/// HMMA.884 step is a quarter (f16 result: half) of `mma.m8n8k4`'s 1024 FMAs: 2 (4) cycles;
/// IMMA.8816 (1024 8-bit MACs) and IMMA.8832 (2048 4-bit) 4 cycles; BMMA.88128 (8192 bit
/// operations) is given the IMMA.8832 rate per bit pair, 4 cycles. Ampere's shapes are
/// given the same rates (not A100's, which are not measured here): HMMA.16816 (2048 FMAs)
/// 16 cycles, HMMA.1688 8 whatever its types, HMMA.1684 4, IMMA.16816 (2048 MACs) 8,
/// IMMA.16832 16 whatever its element size (4-bit: an upper bound), IMMA.16864 16,
/// BMMA.168128 8 and BMMA.168256 16 (twice and four times BMMA.88128's work at its rate).
pub fn tensor_issue_interval(op: Op, f16_result: bool) -> i64 {
    match op {
        Op::Hmma1688 => 8,
        Op::Hmma16816 => 16,
        Op::Imma16816 => 8,
        Op::Imma16832 => 16,
        Op::Imma16864 => 16,
        Op::Hmma1684 => 4,
        Op::Bmma168128 => 8,
        Op::Bmma168256 => 16,
        Op::Hmma884 if f16_result => 4,
        Op::Hmma884 => 2,
        _ => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::LatCat::*;
    use super::*;

    #[test]
    fn matches_ptxas_observations() {
        // docs/TIMING-SM75.md 6.1: ALU->ALU 4, FMA->FMA 4, ALU<->IMAD 5, predicate->guard 12.
        assert_eq!(raw(Alu, Alu), 4);
        assert_eq!(raw(Fma, Fma), 4);
        assert_eq!(raw(Alu, ImadLo), 5);
        assert_eq!(raw(ImadLo, Alu), 5);
        assert_eq!(pred_raw(Alu, Alu, true), 12);
        assert_eq!(pred_raw(Alu, Alu, false), 4);
        assert_eq!(waw(Fp64, Alu, true), 5);
    }

    #[test]
    fn ampere_tables() {
        // A store reads a VOTE result 5 cycles later in ptxas's sm_80 code (5 on sm_80, 6 on
        // sm_75); a guard waits 13 after an ALU predicate.
        // RET reads an IMAD.MOV result 4 cycles later.
        assert_eq!(raw_on(Arch::Sm80, Disp, Decoupled, true), 5);
        assert_eq!(raw_on(Arch::Sm80, ImadLo, Decoupled, false), 4);
        assert_eq!(raw_on(Arch::Sm75, Disp, Decoupled, true), 6);
        assert_eq!(pred_raw_on(Arch::Sm89, Alu, Alu, true), 13);
        assert_eq!(raw_on(Arch::Sm86, Fp64, Alu, false), 10);
        // Ampere's tensor cores: ptxas's sm_80 code stores an HMMA.1688 result 15 cycles
        // after it, an HMMA.16816 (or HMMA.1688.TF32, IMMA.16832) result 23 cycles after
        // (tests/ampere/mma_m16n8.ptx); NVIDIA's distances are 12 and 16.
        assert_eq!(raw_on(Arch::Sm80, Mma1x, Decoupled, true), 12);
        assert_eq!(raw_on(Arch::Sm80, Mma2x, Decoupled, true), 16);
        assert_eq!(raw_on(Arch::Sm80, Alu, Mma2x, false), 7);
        assert_eq!(waw(Mma2x, Alu, true), 13);
        assert_eq!(war_on(Arch::Sm80, Alu, Mma1x), 2);
        // ptxas's sm_80 mandelbrot overwrites a register with HFMA2.MMA 1 cycle after a read.
        assert_eq!(war_on(Arch::Sm80, Alu, Fp16), 1);
        assert_eq!(war_on(Arch::Sm75, Alu, Fp16), 2);
    }
}
