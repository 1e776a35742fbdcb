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
}

impl LatCat {
    fn index(self) -> usize {
        self as usize
    }

    /// True if results must be waited for through a write scoreboard.
    pub fn needs_write_scoreboard(self) -> bool {
        matches!(self, LatCat::Decoupled | LatCat::Fp64)
    }

    /// True if the instruction has a fixed latency that the stall counts must cover.
    pub fn is_coupled(self) -> bool {
        !matches!(self, LatCat::Decoupled | LatCat::DecoupledOther)
    }
}

// Columns (writers) and rows (readers) follow the order of `LatCat`:
// Disp64 Disp Alu Fma ImadLo WideAB WideLower WideUpper Fp64 Fp16 Decoupled DecOther BMov
// A writer that is not a fixed-latency producer (WideAB, DecOther) never appears: 1.

/// Register read-after-write: `RAW[reader][writer]`.
const RAW: [[u8; 13]; 13] = [
    [6, 4, 4, 5, 5, 1, 3, 5, 9, 8, 1, 1, 1], // Disp64
    [6, 4, 4, 5, 5, 1, 3, 5, 9, 8, 1, 1, 1], // Disp
    [6, 4, 4, 5, 5, 1, 3, 5, 9, 8, 1, 1, 1], // Alu
    [6, 5, 5, 4, 4, 1, 2, 4, 9, 8, 1, 1, 1], // Fma
    [6, 5, 5, 4, 4, 1, 2, 4, 9, 8, 1, 1, 1], // ImadLo
    [6, 5, 5, 4, 4, 1, 4, 6, 9, 8, 1, 1, 1], // ImadWideAB
    [6, 5, 5, 4, 4, 1, 2, 2, 9, 8, 1, 1, 1], // ImadWideLower
    [4, 3, 3, 2, 2, 1, 2, 2, 7, 6, 1, 1, 1], // ImadWideUpper
    [6, 6, 6, 6, 6, 1, 6, 6, 8, 8, 1, 1, 1], // Fp64
    [6, 6, 6, 6, 6, 1, 6, 6, 9, 6, 1, 1, 1], // Fp16
    [6, 6, 6, 6, 6, 1, 6, 6, 9, 8, 1, 1, 1], // Decoupled
    [8, 8, 8, 8, 8, 1, 8, 8, 9, 8, 1, 1, 1], // DecoupledOther
    [6, 6, 6, 6, 6, 1, 6, 6, 9, 8, 1, 1, 1], // BMov (reads like Decoupled)
];

/// Register write-after-write: `WAW[second writer][first writer]` as (cycles, extra cycles
/// when the first writer is predicated).
const WAW: [[(u8, u8); 13]; 13] = [
    after((1, 0), (1, 0), (1, 0), (1, 0), (1, 0), (4, 0), (3, 0)), // Disp64
    after((2, 0), (1, 0), (1, 0), (1, 0), (1, 0), (1, 4), (1, 3)), // Disp
    after((2, 0), (1, 0), (1, 0), (1, 0), (1, 0), (1, 4), (1, 3)), // Alu
    after((2, 0), (1, 0), (1, 0), (1, 0), (1, 1), (1, 4), (1, 3)), // Fma
    after((2, 0), (1, 0), (1, 0), (1, 0), (1, 1), (1, 4), (1, 3)), // ImadLo
    [(1, 0); 13],                                                  // ImadWideAB
    after((2, 2), (1, 2), (1, 1), (1, 0), (1, 0), (3, 4), (3, 3)), // ImadWideLower
    after((1, 1), (1, 0), (1, 0), (1, 0), (1, 0), (1, 4), (1, 3)), // ImadWideUpper
    after((2, 0), (2, 0), (2, 0), (2, 0), (2, 0), (1, 0), (2, 0)), // Fp64
    after((2, 0), (2, 0), (2, 0), (2, 0), (2, 0), (1, 1), (1, 0)), // Fp16
    after((6, 0), (6, 0), (6, 0), (6, 0), (6, 0), (6, 0), (6, 0)), // Decoupled
    [(1, 0); 13],                                                  // DecoupledOther
    after((9, 0), (9, 0), (9, 0), (9, 0), (9, 0), (9, 0), (9, 0)), // BMov
];

/// One WAW row: the distances after each kind of first writer (Disp/Alu share a value, as do
/// Fma/ImadLo); scoreboarded first writers need 1.
#[allow(clippy::too_many_arguments)]
const fn after(
    disp64: (u8, u8),
    alu: (u8, u8),
    fma: (u8, u8),
    lower: (u8, u8),
    upper: (u8, u8),
    fp64: (u8, u8),
    fp16: (u8, u8),
) -> [(u8, u8); 13] {
    let one = (1, 0);
    [disp64, alu, alu, fma, fma, one, lower, upper, fp64, fp16, one, one, one]
}

/// Predicate read-after-write: `PRED_RAW[reader][writer]`; the guard predicate of any
/// instruction reads with the `Decoupled` row.
const PRED_RAW: [[u8; 13]; 13] = [
    [12, 12, 12, 12, 12, 1, 12, 12, 15, 14, 1, 1, 1], // Disp64
    [12, 12, 12, 12, 12, 1, 12, 12, 15, 14, 1, 1, 1], // Disp
    [4, 4, 4, 5, 5, 1, 5, 5, 9, 8, 1, 1, 1],          // Alu
    [5, 5, 5, 4, 4, 1, 4, 4, 9, 8, 1, 1, 1],          // Fma
    [5, 5, 5, 4, 4, 1, 4, 4, 9, 8, 1, 1, 1],          // ImadLo
    [5, 5, 5, 4, 4, 1, 2, 2, 9, 8, 1, 1, 1],          // ImadWideAB
    [5, 5, 5, 4, 4, 1, 2, 2, 9, 8, 1, 1, 1],          // ImadWideLower
    [5, 5, 5, 4, 4, 1, 2, 2, 9, 8, 1, 1, 1],          // ImadWideUpper
    [12, 12, 12, 12, 12, 1, 12, 12, 8, 14, 1, 1, 1],  // Fp64
    [12, 12, 12, 12, 12, 1, 12, 12, 15, 6, 1, 1, 1],  // Fp16
    [12, 12, 12, 12, 12, 1, 12, 12, 15, 14, 1, 1, 1], // Decoupled (and guards)
    [12, 12, 12, 12, 12, 1, 12, 12, 15, 14, 1, 1, 1], // DecoupledOther
    [12, 12, 12, 12, 12, 1, 12, 12, 15, 14, 1, 1, 1], // BMov
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
/// reader: ptxas's sm_86 code reads a LOP3 result with MATCH 4 cycles later).
pub fn address_unit(op: Op, pipe: Pipe) -> bool {
    pipe == Pipe::Lsu && op != Op::Match
}

/// Whether `arch` uses the Ampere/Ada tables.
fn ampere(arch: Arch) -> bool {
    arch >= Arch::Sm80
}

/// Minimum cycles between a writer and a later reader of the same register (sm_75).
pub fn raw(writer: LatCat, reader: LatCat) -> u32 {
    RAW[reader.index()][writer.index()] as u32
}

/// [`raw`] on `arch`; `address_unit`: the reader issues to the memory pipe (on Ampere and
/// Ada its variable-latency row is a cycle longer than the other variable-latency readers').
pub fn raw_on(arch: Arch, writer: LatCat, reader: LatCat, address_unit: bool) -> u32 {
    if !ampere(arch) {
        return raw(writer, reader);
    }
    let row = match reader {
        LatCat::Decoupled if !address_unit => LatCat::BMov,
        r => r,
    };
    RAW_SM80[row.index()][writer.index()] as u32
}

/// [`pred_raw`] on `arch`.
pub fn pred_raw_on(arch: Arch, writer: LatCat, reader: LatCat, guard: bool) -> u32 {
    let row = if guard { LatCat::Decoupled } else { reader };
    let table = if ampere(arch) { &PRED_RAW_SM80 } else { &PRED_RAW };
    table[row.index()][writer.index()] as u32
}

/// Minimum cycles between two writers of the same register (`predicated`: the first
/// writer has a guard).
pub fn waw(first: LatCat, second: LatCat, predicated: bool) -> u32 {
    let (base, extra) = WAW[second.index()][first.index()];
    (base + if predicated { extra } else { 0 }) as u32
}

/// Minimum cycles between a reader and a later writer of the same register.
pub fn war(reader: LatCat, writer: LatCat) -> u32 {
    use LatCat::*;
    let same_or_decoupled = |c: LatCat| reader == c || reader == Decoupled;
    match writer {
        Fp64 if !same_or_decoupled(Fp64) => 2,
        Fp16 if !same_or_decoupled(Fp16) => 2,
        Decoupled if reader != Decoupled => 2,
        BMov if reader != Decoupled => 9,
        _ => 1,
    }
}

/// [`war`] on `arch`.
pub fn war_on(arch: Arch, reader: LatCat, writer: LatCat) -> u32 {
    use LatCat::*;
    if !ampere(arch) {
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
    let row = if guard { LatCat::Decoupled } else { reader };
    PRED_RAW[row.index()][writer.index()] as u32
}

/// Minimum cycles between two writers of the same predicate.
pub fn pred_waw(first: LatCat, second: LatCat, predicated: bool) -> u32 {
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
    use LatCat::*;
    let coupled_reader = matches!(reader, Alu | Fma | ImadLo | ImadWideLower | ImadWideUpper);
    match writer {
        Fp16 if coupled_reader || reader == Fp64 => 2,
        _ => 1,
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
        // ptxas's sm_80 mandelbrot overwrites a register with HFMA2.MMA 1 cycle after a read.
        assert_eq!(war_on(Arch::Sm80, Alu, Fp16), 1);
        assert_eq!(war_on(Arch::Sm75, Alu, Fp16), 2);
    }
}
