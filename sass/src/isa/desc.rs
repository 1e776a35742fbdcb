//! The description language for instruction forms. One [`Form`] says everything about one
//! encoding of one SASS operation: its opcode bits, its operands and where they live, its
//! modifiers with their spellings, the bits that are fixed, and what later stages need to
//! know (latency class, scoreboard use). Encoder, decoder, disassembler, scheduler and
//! simulator all read these tables; no bit position is written anywhere else.

use super::arch::Archs;
use super::bits::BitField;
pub use super::modifier::{Mod, ModSet, ModValue};
pub use super::timing::LatCat;

/// Semantic operation shared by all forms (reg/imm/const...) of one SASS instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// `MOV Rd, B`: copy (lane mask operand, 0xf = all bytes).
    Mov,
    /// `IADD3 Rd, Pd0, Pd1, A, B, C`: A + B + C with carry-outs; `.X` adds the carry-ins Ps0, Ps1.
    Iadd3,
    /// `VIADD Rd, A, B` (sm_90): A + B (B negated where its bit 63 says).
    Viadd,
    /// `IMAD Rd, A, B, C`: low word of A * B + C.
    Imad,
    /// `IMAD.WIDE Rd:Rd+1, A, B, C:C+1`: 64-bit A * B + C.
    ImadWide,
    /// `IMAD.HI Rd, A, B, C:C+1`: high word of A * B + {C+1:C}; Pd = carry out.
    ImadHi,
    /// `LEA Rd, A, B, s`: (A << s) + B; `.HI` shifts {C:A} and takes the high word.
    Lea,
    /// LEA.HI (the simulator treats it with [`Op::Lea`]; the table uses `Lea` with `hi`).
    LeaHi,
    /// `LOP3.LUT Rd, A, B, C, lut`: any bitwise function of three inputs.
    Lop3,
    /// `SHF.L/R Rd, A, s, C`: funnel shift of {C:A}; `.W` wraps the amount, else clamps.
    Shf,
    /// `ISETP.cmp.bop Pd0, Pd1, A, B, Ps`: integer compare combined with Ps.
    Isetp,
    /// `SEL Rd, A, B, Ps`: Ps ? A : B.
    Sel,
    /// `IMNMX Rd, A, B, Ps`: minimum (Ps = PT) or maximum (Ps = !PT).
    Imnmx,
    /// `VIADDMNMX Rd, A, B, C, Ps` (Hopper's DPX): the minimum (Ps = PT) or maximum (Ps = !PT)
    /// of the wrapping sum `A + B` and C.
    Viaddmnmx,
    /// `IABS Rd, B`: absolute value.
    Iabs,
    /// `PRMT Rd, A, sel, C`: byte permute of {C:A}.
    Prmt,
    /// `SGXT Rd, A, B`: sign (or zero, `.U32`) extend from bit B.
    Sgxt,
    /// `POPC Rd, B`: population count.
    Popc,
    /// `FLO Rd, B`: position of the leading one (`.SH`: as a shift amount).
    Flo,
    /// `BREV Rd, B`: bit reverse.
    Brev,
    /// `PLOP3.LUT Pd0, Pd1, Ps0, Ps1, Ps2, lut`: any function of three predicates.
    Plop3,
    /// `FADD Rd, A, B`.
    Fadd,
    /// `FMUL Rd, A, B` (scale `.D2`..`.M8`).
    Fmul,
    /// `FFMA Rd, A, B, C`.
    Ffma,
    /// `FSETP.cmp.bop Pd0, Pd1, A, B, Ps`.
    Fsetp,
    /// `FMNMX Rd, A, B, Ps`: minimum (Ps = PT) or maximum.
    Fmnmx,
    /// `FSEL Rd, A, B, Ps`.
    Fsel,
    /// `MUFU.func Rd, B`: special function unit (RCP, RSQ, SIN, EX2 ...).
    Mufu,
    /// `DADD`: f64 add (register pairs).
    Dadd,
    /// `DMUL`: f64 multiply.
    Dmul,
    /// `DFMA`: f64 fused multiply-add.
    Dfma,
    /// `DSETP`: f64 compare.
    Dsetp,
    /// `HADD2`: f16x2 add.
    Hadd2,
    /// `HFMA2`: f16x2 fused multiply-add.
    Hfma2,
    /// `HMUL2`: f16x2 multiply.
    Hmul2,
    /// `HMNMX2 Rd, A, B, Ps`: f16x2 or bf16x2 minimum (Ps = PT) or maximum (sm_80 on).
    Hmnmx2,
    /// `I2F`: integer to float.
    I2f,
    /// `F2I`: float to integer.
    F2i,
    /// `F2F`: float to float.
    F2f,
    /// `FCHK Pd, A, B`: does A / B need the slow path.
    Fchk,
    /// `S2R Rd, SR`: read a special register (variable latency).
    S2r,
    /// `CS2R Rd, SR`: read a clock or zero register (fixed latency).
    Cs2r,
    /// `S2UR URd, SR`: special register to a uniform register.
    S2ur,
    /// `LDG`: global load.
    Ldg,
    /// `STG`: global store.
    Stg,
    /// `LDS`: shared load.
    Lds,
    /// `STS`: shared store.
    Sts,
    /// `LDL`: local load.
    Ldl,
    /// `STL`: local store.
    Stl,
    /// `LDC Rd, c[bank][Ra+offset]`: constant load with a register index.
    Ldc,
    /// `ULDC URd, c[bank][offset]`: constant to a uniform register.
    Uldc,
    /// `ATOMG.op`: global atomic returning the old value.
    Atomg,
    /// `ATOMG.CAS`: global compare-and-swap.
    AtomgCas,
    /// `ATOMS.op`: shared-memory atomic.
    Atoms,
    /// `ATOMS.CAS`: shared-memory compare-and-swap.
    AtomsCas,
    /// `RED.op`: global reduction without a result.
    Red,
    /// `MEMBAR`: memory barrier.
    Membar,
    /// `ERRBAR`: error barrier.
    Errbar,
    /// `CGAERRBAR`: error barrier of the CTA's cluster (Hopper; ptxas puts it after
    /// `MEMBAR.SC.SYS` and `ERRBAR`).
    Cgaerrbar,
    /// `ELECT`: elects one active thread of the warp (sm_90, PTX `elect.sync`).
    Elect,
    /// `CCTL`: cache control.
    Cctl,
    /// `CCTLL`: cache control of local memory by address (`CCTLL.PF1 [R1+0x4]`).
    Cctll,
    /// `BAR`: CTA barrier (SYNC, ARV, RED, SCAN, SYNCALL).
    Bar,
    /// `SHFL.mode Pd, Rd, A, lane, clamp`: warp shuffle.
    Shfl,
    /// `VOTE.mode Rd, Pd, Ps`: warp vote (Rd = ballot).
    Vote,
    /// `VOTEU.mode URd, UPd, Ps`: warp vote into uniform registers.
    Voteu,
    /// `UIADD3`: uniform IADD3.
    Uiadd3,
    /// `UIADD3.64 URd, URa, B, URc` (sm_90): the 64-bit sum of uniform register pairs (B an
    /// immediate is sign-extended).
    Uiadd3Wide,
    /// `ULOP3.LUT`: uniform LOP3.
    Ulop3,
    /// `BRA`: branch.
    Bra,
    /// `EXIT`.
    Exit,
    /// `BSSY Bn, target`: set up a convergence barrier.
    Bssy,
    /// `BSYNC Bn`: wait at a convergence barrier.
    Bsync,
    /// `BMOV`: move a convergence barrier register.
    Bmov,
    /// `WARPSYNC mask`.
    Warpsync,
    /// `CALL.REL` / `CALL.ABS`.
    Call,
    /// `RET.REL` / `RET.ABS`: return to the address in a register pair.
    Ret,
    /// `NOP`.
    Nop,
    /// `DEPBAR.LE SBn, count`: wait for a scoreboard to drop to a count.
    Depbar,
    /// `BMSK Rd, A, B`: mask of B ones from bit A.
    Bmsk,
    /// `IDP.2A/4A`: packed integer dot product plus C.
    Idp,
    /// `P2R Rd, PR, A, mask`: predicates into a byte of Rd.
    P2r,
    /// `R2P PR, A, mask`: a byte of A into predicates.
    R2p,
    /// `FRND`: round to an integral float.
    Frnd,
    /// `I2IP`: pack saturated integers.
    I2ip,
    /// `HSET2`: f16x2 compare to a mask/boolean.
    Hset2,
    /// `HSETP2`: f16x2 compare to predicates.
    Hsetp2,
    /// `LD`: generic load.
    Ld,
    /// `ST`: generic store.
    St,
    /// `LDSM`: shared-memory matrix load.
    Ldsm,
    /// `ATOM.op`: generic atomic returning the old value.
    Atom,
    /// `ATOM.CAS`: generic compare-and-swap.
    AtomCas,
    /// `QSPC.space Pd, Rd, [A]`: is the address in a space.
    Qspc,
    /// `MATCH.ANY/ALL`: lanes holding the same value.
    Match,
    /// `R2UR URd, A`: vector to uniform register (variable latency).
    R2ur,
    /// `UMOV`: uniform move.
    Umov,
    /// `USEL`: uniform select.
    Usel,
    /// `UISETP`: uniform integer compare.
    Uisetp,
    /// `ULEA`: uniform LEA.
    Ulea,
    /// `USHF`: uniform funnel shift.
    Ushf,
    /// `UIMAD`: uniform multiply-add.
    Uimad,
    /// `UIMAD.WIDE`: uniform 64-bit multiply-add.
    UimadWide,
    /// `UPOPC`: uniform population count.
    Upopc,
    /// `UBREV`: uniform bit reverse.
    Ubrev,
    /// `UPRMT`: uniform byte permute.
    Uprmt,
    /// `BREAK Bn`: leave a convergence region.
    Break,
    /// `YIELD`: scheduling hint.
    Yield,
    /// `NANOSLEEP`.
    Nanosleep,
    /// `BPT.mode`: breakpoint / trap.
    Bpt,
    /// `PMTRIG`: performance-monitor trigger.
    Pmtrig,
    /// `LEPC Rd`: the current program counter.
    Lepc,
    /// `B2R.RESULT Rd, Pd`: result of a barrier reduction.
    B2r,
    /// `VABSDIFF Rd, Pd, A, B, C`: |A - B| + C (PTX `sad`; `.U32` unsigned).
    Vabsdiff,
    /// `FSET.BF.cmp.bop Rd, A, B, Ps`: float compare into 1.0 / 0.0.
    Fset,
    /// `I2I.T.S32.SAT Rd, B`: a 32-bit signed integer saturated to a narrow type.
    I2i,
    /// `UFLO URd, UPd, B`: uniform find leading one.
    Uflo,
    /// `UBMSK URd, A, B`: uniform bit mask.
    Ubmsk,
    /// `USGXT URd, A, B`: uniform sign (or zero) extension.
    Usgxt,
    /// `UPLOP3.LUT UPd0, UPd1, s0, s1, s2, lut`: any function of three uniform predicates or
    /// uniform-register sign bits.
    Uplop3,
    /// `F2FP.PACK_AB Rd, A, B` (sm_80): two f32 rounded to f16 (or bf16) and packed, A in
    /// the high half, B in the low.
    F2fp,
    /// `F2IP.U8.F32 Rd, A, B, C` (sm_86): f32 to packed saturated 8-bit integers; ptxas
    /// emits it with A and C zero (B converted into the low byte).
    F2ip,
    /// `REDUX.op URd, A` (sm_80): a reduction of A over the active lanes into a uniform
    /// register.
    Redux,
    /// `ATOMS.POPC.INC.32 Rd, [A+URb]` (sm_80): each active lane adds one to the shared word.
    AtomsPopcInc,
    /// `ATOMS.ARRIVE.64 Rd, [A+URb]` (sm_80, PTX `mbarrier.arrive`): one arrival on the
    /// 64-bit shared-memory barrier at the address; the old barrier to the register pair Rd.
    AtomsArrive,
    /// `ATOM.E.ARRIVE.64 Pd, Rd, [A+URc]` (sm_80, ptxas's `mbarrier.arrive` on a generic
    /// address): [`Op::AtomsArrive`] through a generic address.
    AtomArrive,
    /// `ATOM.E.POPC.INC.32 Pd, Rd, [A+URc]` (sm_80, ptxas's `mbarrier.arrive_drop` on a
    /// generic address): [`Op::AtomsPopcInc`] through a generic address.
    AtomPopcInc,
    /// `LDGSTS [shared], [global], Pc` (sm_80, PTX `cp.async`): an asynchronous copy of 4, 8
    /// or 16 bytes from global to shared memory, completed by the next LDGDEPBAR's group.
    Ldgsts,
    /// `LDGDEPBAR` (sm_80, PTX `cp.async.commit_group`): closes the group of the LDGSTS
    /// issued since the last one; its write scoreboard is released when they have landed
    /// (`DEPBAR.LE SBn, k` waits for all but the last k groups).
    Ldgdepbar,
    /// `ARRIVES.LDGSTSBAR.64 [A+URb+imm]` (sm_80, PTX `cp.async.mbarrier.arrive`): each
    /// active lane's arrival on the 64-bit shared-memory barrier at the address, made when
    /// the lane's earlier LDGSTS have landed.
    ArrivesLdgstsbar,
    /// `HMMA.884.D.C.STEPn Rd, A, B, C`: one step of the quad-pair f16 matrix multiply (PTX
    /// `mma.m8n8k4`): each step writes one register pair of D (see `sm75/mma.rs`).
    Hmma884,
    /// `HMMA.1688.D Rd, A, B, C`: the warp's 16x8x8 f16 matrix multiply-accumulate.
    Hmma1688,
    /// `IMMA.8816/.8832.A.B Rd, A, B, C`: 8x8x16 (8-bit) or 8x8x32 (4-bit) integer MMA.
    Imma,
    /// `HMMA.16816.D.A Rd, A, B, C` (sm_80): the warp's 16x8x16 f16 or bf16 matrix
    /// multiply-accumulate (see `sm80/mma.rs`).
    Hmma16816,
    /// `IMMA.16816.A.B Rd, A, B, C` (sm_80): 16x8x16 8-bit integer MMA.
    Imma16816,
    /// `IMMA.16832.A.B Rd, A, B, C` (sm_80): 16x8x32 8-bit or 4-bit integer MMA.
    Imma16832,
    /// `IMMA.16864.A.B Rd, A, B, C` (sm_80): 16x8x64 4-bit integer MMA.
    Imma16864,
    /// `HMMA.1684.D.TF32 Rd, A, B, C` (sm_80): the warp's 16x8x4 tf32 matrix
    /// multiply-accumulate.
    Hmma1684,
    /// `BMMA.168128.{XOR|AND}.POPC Rd, A, B, C` (sm_80): 16x8x128 single-bit MMA.
    Bmma168128,
    /// `BMMA.168256.{XOR|AND}.POPC Rd, A, B, C` (sm_80): 16x8x256 single-bit MMA.
    Bmma168256,
    /// `DMMA.884{.RM|.RP} Rd, A, B, C` (sm_80): the warp's 8x8x4 f64 matrix
    /// multiply-accumulate (PTX `mma.m8n8k4` of f64; see `sm80/mma.rs`).
    Dmma,
    /// `BMMA.88128.XOR.POPC Rd, A, B, C`: 8x8x128 single-bit MMA, C + popc(A ^ B) (from
    /// sm_80 also `.AND.POPC`, C + popc(A & B)).
    Bmma,
    /// `MOVM.16.MT88 Rd, A`: transpose of an 8x8 matrix of 16-bit elements across the warp.
    Movm,
    /// `STSM.16.MT88.4 [Ra], Rb` (sm_90, PTX `stmatrix`): stores 8x8 matrices of 16-bit
    /// elements to shared memory, the inverse of LDSM.
    Stsm,
    /// `HGMMA.64xNx16.D Rd, [Ra,] gdesc[URn], Rc, UPp, gsb0` (sm_90a, PTX
    /// `wgmma.mma_async`): the warpgroup's asynchronous 64xNx16 matrix multiply-accumulate,
    /// A and B from shared memory through matrix descriptors (or A from registers); see
    /// `sm90/gmma.rs`.
    Hgmma,
    /// `WARPGROUP.ARRIVE` (sm_90a, PTX `wgmma.fence`): orders the warp's earlier register and
    /// shared-memory accesses before the HGMMAs that follow.
    WarpgroupArrive,
    /// `WARPGROUP.DEPBAR.LE gsb0, n` (sm_90a, PTX `wgmma.wait_group n`): waits until at most
    /// `n` committed HGMMA groups are in flight.
    WarpgroupDepbar,
    /// `FENCE.VIEW.ASYNC.S` (sm_90, PTX `fence.proxy.async.shared::cta`): makes the warp's
    /// generic-proxy writes to shared memory visible to the async proxy (HGMMA's reads).
    FenceViewAsync,
    /// `SYNCS.ARRIVE.TRANS64.<kind> Rd, [Ra+URc+off], Rb` (sm_90, PTX `mbarrier.arrive*`):
    /// an arrival on a Hopper mbarrier (`sm90/syncs.rs`), returning the barrier as it was.
    SyncsArrive,
    /// `SYNCS.PHASECHK.TRANS64 Pd, [Ra+URc+off], Rb` (sm_90, PTX `mbarrier.test_wait` /
    /// `try_wait`): whether the barrier's phase differs from the one in bit 31 of Rb.
    SyncsPhasechk,
    /// `SYNCS.EXCH.64 URd, [URa+off], URb` (sm_90, PTX `mbarrier.init`): swaps a 64-bit
    /// shared-memory word with a uniform register pair.
    SyncsExch,
    /// `SYNCS.CCTL.IV [Ra+URc+off]` (sm_90, PTX `mbarrier.inval`).
    SyncsCctl,
    /// `ENDCOLLECTIVE` (sm_90): closes the region a `WARPSYNC.COLLECTIVE` opened.
    EndCollective,
    /// `UTMALDG.<n>D [URa], [URb]` (sm_90, PTX `cp.async.bulk.tensor` global to shared): a
    /// TMA tensor load. URa: the shared destination, URa+1 the mbarrier, URa+2.. the n
    /// coordinates; URb:URb+1 the tensor map's address (`sm90/tma.rs`).
    Utmaldg,
    /// `UTMASTG.<n>D [URa], [URb]` (sm_90, PTX `cp.async.bulk.tensor` shared to global): a
    /// TMA tensor store. URa: the shared source, URa+1.. the coordinates.
    Utmastg,
    /// `UTMAREDG.<n>D.<op> [URa], [URb]` (sm_90, PTX `cp.reduce.async.bulk.tensor`): a TMA
    /// tensor reduction into global memory, operands as [`Op::Utmastg`].
    Utmaredg,
    /// `UTMAPF.L2.<n>D [URa], [URb]` (sm_90, PTX `cp.async.bulk.prefetch.tensor`): a TMA
    /// prefetch into L2; URa.. the coordinates.
    Utmapf,
    /// `UTMACCTL.{PF|IV} [URb]` (sm_90, PTX `prefetch.tensormap`): cache control of the tensor
    /// map at URb:URb+1.
    Utmacctl,
    /// `UTMACMDFLUSH` (sm_90, PTX `cp.async.bulk.commit_group`): closes the bulk-copy group;
    /// `DEPBAR.LE SB0, n` waits for all but n groups.
    Utmacmdflush,
    /// `UBLKCP.<dst>.<src> [URa], [URb], URc` (sm_90, PTX `cp.async.bulk`): a bulk copy of
    /// URc's low 16 bits times 16 bytes (`sm90/bulk.rs`).
    Ublkcp,
    /// `UBLKRED.<dst>.S.<op> [URa], [URb], URc` (sm_90, PTX `cp.reduce.async.bulk`): a bulk
    /// reduction, operands as [`Op::Ublkcp`].
    Ublkred,
    /// `UBLKPF.L2 [URb], URc` (sm_90, PTX `cp.async.bulk.prefetch.L2`): a bulk prefetch of
    /// global memory into L2.
    Ublkpf,
    /// `UCGABAR_ARV` (sm_90, PTX `barrier.cluster.arrive`): arrives at the cluster barrier.
    UcgabarArv,
    /// `UCGABAR_WAIT` (sm_90, PTX `barrier.cluster.wait`): waits for the cluster barrier.
    UcgabarWait,
    /// `USETMAXREG.{DEALLOC|TRY_ALLOC}.CTAPOOL [UPd,] n` (sm_90a, PTX `setmaxnreg`): releases
    /// registers to, or tries to take them from, the CTA's pool, leaving the warp n per thread.
    Usetmaxreg,
    /// `STAS [Ra.64+URc+off], Rb` (sm_90, PTX `st.async.shared::cluster`): an asynchronous
    /// store into a cluster's shared memory that completes transaction bytes on an mbarrier
    /// (`sm90/async_store.rs`).
    Stas,
    /// `REDAS.<op> [Ra.64+URc+off], Rb` (sm_90, PTX `red.async.shared::cluster`): the
    /// reduction counterpart of [`Op::Stas`].
    Redas,
}

/// Which execution pipe an instruction issues to (throughput model).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pipe {
    /// Integer and logic ALU.
    Alu,
    /// FP32 multiply-add and IMAD.
    Fma,
    /// Double precision.
    Fp64,
    /// Half precision.
    Fp16,
    /// Special functions and bit counts (XU).
    Mufu,
    /// Conversions.
    Conv,
    /// Memory, shuffles and fences.
    Lsu,
    /// Control flow and barriers.
    Branch,
    /// Uniform datapath.
    Uniform,
    /// Special registers, NOP, DEPBAR.
    Misc,
    /// Tensor cores (HMMA, IMMA, BMMA).
    Tensor,
}

/// Per-form facts for the scheduler and the simulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Meta {
    /// Latency category (NVIDIA's classification, see [`super::timing`]).
    pub cat: LatCat,
    /// Execution pipe.
    pub pipe: Pipe,
    /// Reads its register sources after issue (needs a read scoreboard to protect WAR).
    pub reads_late: bool,
    /// Ends the basic block (branch, exit, return).
    pub terminator: bool,
}

/// How an immediate is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImmStyle {
    /// Unsigned hexadecimal (`0xc0800000`).
    Hex,
    /// Hexadecimal, two's complement over the field width (`-0xd`).
    SignedHex,
    /// An f32 bit pattern printed as a float (`0.5`, `+INF `).
    F32,
    /// The upper 32 bits of an f64 (the lower 32 are zero).
    F64Hi,
    /// The upper 32 bits of a 64-bit unsigned integer (the lower 32 are zero), printed as
    /// [`ImmStyle::Hex`] (`I2F.U64 R0, 0x5` converts 5 << 32).
    HexHi,
    /// The upper 32 bits of a 64-bit signed integer, printed as [`ImmStyle::SignedHex`].
    SignedHexHi,
    /// Two f16 values, high half first (`0.5, 1`).
    F16x2,
    /// One f16 value.
    F16,
    /// Two bf16 values, high half first.
    Bf16x2,
    /// One bf16 value (the low 16 bits).
    Bf16,
    /// A signed count of 4-byte units printed as a byte address (`CALL.ABS` targets).
    SignedHexX4,
    /// A scoreboard index (`SB3`).
    Scoreboard,
    /// A set of scoreboards, highest first (`{5,1,0}`).
    ScoreboardSet,
    /// A warpgroup group scoreboard (`gsb0`, Hopper's HGMMA and WARPGROUP.DEPBAR).
    GroupScoreboard,
}

/// Where and how an operand is encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    /// A general register (8 bits, 255 = RZ); `width` consecutive registers (1, 2 or 4; 0 =
    /// from the `size` modifier).
    Gpr {
        /// Where it is.
        field: BitField,
        /// Number of consecutive registers.
        width: u8,
    },
    /// A uniform register (6 bits, 63 = URZ).
    Ugpr {
        /// Where it is.
        field: BitField,
        /// Number of consecutive registers.
        width: u8,
    },
    /// A predicate (3 bits, 7 = PT) with an optional negation bit.
    Pred {
        /// Where it is.
        field: BitField,
        /// Negation bit, if any.
        neg: Option<u8>,
    },
    /// A uniform predicate (3 bits, 7 = UPT) with an optional negation bit.
    Upred {
        /// Where it is.
        field: BitField,
        /// Negation bit, if any.
        neg: Option<u8>,
    },
    /// A uniform predicate whose 3-bit field holds the index XOR 7 (zero bits are UPT), with
    /// an optional negation bit: HGMMA's scale-d input (sm_90a).
    UpredInverted {
        /// Where it is.
        field: BitField,
        /// Negation bit, if any.
        neg: Option<u8>,
    },
    /// HGMMA's warpgroup matrix descriptors `gdesc[URn]` (sm_90a): uniform registers
    /// URn, URn+1 hold A's 64-bit shared-memory descriptor (read only when `a` is set; else A
    /// comes from registers) and URn+2, URn+3 B's. `flags` are one-bit fields printed after
    /// the bracket, in their order, when set (`.negA.negB.tnspA.tnspB`); bit `i` of the
    /// operand's suffix value ([`super::inst::Operand::swizzle`]) holds flag `i`.
    Gdesc {
        /// The first uniform register.
        ureg: BitField,
        /// A's descriptor is read too.
        a: bool,
        /// `(bit, spelling)` of each flag.
        flags: &'static [(u8, &'static str)],
    },
    /// A block of uniform registers named by its first, printed in brackets after `prefix`:
    /// `[UR8]` (the operand blocks of the TMA and bulk-copy instructions) or `desc[UR4]`
    /// (their L2 cache-policy descriptor). `width` consecutive registers are read; 0: as many
    /// as the instruction's operation and modifiers say ([`super::inst::Inst::reg_width`]).
    UregBlock {
        /// Where the first register is.
        field: BitField,
        /// The text before the bracket.
        prefix: &'static str,
        /// Number of consecutive registers (0: from the modifiers).
        width: u8,
    },
    /// An immediate in `field`.
    Imm {
        /// Where it is.
        field: BitField,
        /// How it is printed.
        style: ImmStyle,
    },
    /// An immediate split over two fields: `lo` holds the low bits, `hi` the rest.
    ImmSplit {
        /// The low bits.
        lo: BitField,
        /// The high bits.
        hi: BitField,
        /// How it is printed.
        style: ImmStyle,
    },
    /// A constant-bank operand `c[bank][offset]`: the signed `offset` field counts units of
    /// `1 << shift` bytes (ALU operands address words: shift 2).
    CBank {
        /// Constant bank.
        bank: BitField,
        /// Offset field (signed).
        offset: BitField,
        /// log2 of the unit of the offset, in bytes.
        shift: u8,
    },
    /// `c[bank][Rn+offset]` (LDC): register index with a signed byte offset.
    CBankIndexed {
        /// Constant bank.
        bank: BitField,
        /// Offset field (signed).
        offset: BitField,
        /// Index register.
        reg: BitField,
    },
    /// A memory address `[Ra+URb+offset]` (signed offset; an address without registers
    /// prints the raw field as an unsigned address). `uniform` is present in the forms with a
    /// uniform register, `scale` is the `.X4/.X8/.X16` field of shared-memory accesses. The
    /// operand's suffix field (`.64`/`.U32` of the register in uniform forms) prints inside
    /// the brackets.
    Mem {
        /// Address register (255 = RZ).
        base: BitField,
        /// Offset field (signed).
        offset: BitField,
        /// Uniform register, in the uniform-address forms.
        uniform: Option<BitField>,
        /// Scale (`.X4`, `.X8`, `.X16`) of shared-memory addresses.
        scale: Option<BitField>,
    },
    /// A code target: signed offset relative to the next instruction, in units of
    /// `1 << shift` bytes (the bits below are modifiers or zero).
    Rel {
        /// Where it is (its high bits, when `low` holds the low ones).
        field: BitField,
        /// log2 of the unit of the offset, in bytes.
        shift: u8,
        /// Where the offset's low bits are when it is split (sm_90's branches and calls:
        /// the low 8 bits of the unit count in bits 16..23, the rest in `field`).
        low: Option<BitField>,
    },
    /// A special register number (`SR_TID.X`).
    SReg {
        /// Where it is.
        field: BitField,
        /// The names nvdisasm prints for the numbers.
        names: &'static SRegNames,
    },
    /// A convergence barrier register `B0..B15`.
    Barrier {
        /// Where it is.
        field: BitField,
    },
    /// Fixed text without bits (`PR` of P2R/R2P).
    Literal(&'static str),
}

/// When an operand is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Show {
    /// Always.
    Always,
    /// Only when its value differs from the default.
    IfNotDefault,
    /// Only when modifier `mod_index` of the form is non-zero.
    IfMod(u8),
    /// When modifier `mod_index` is non-zero or the value differs from the default.
    IfModOrNotDefault(u8),
    /// When modifier `mod_index` is non-zero and the value differs from the default
    /// (HFMA2's predicate under `.RELU`).
    IfModAndNotDefault(u8),
    /// Never printed (an encoding detail that still round-trips).
    Never,
}

/// What separates an operand from the one printed before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sep {
    /// `, ` (the usual).
    Comma,
    /// ` ` (the target after the register of `RET.REL.NODEC R2 `(f)`).
    Space,
}

/// The operand's role, for the backend and the simulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// Destination register.
    Dst,
    /// First predicate destination.
    PredDst0,
    /// Second predicate destination.
    PredDst1,
    /// Source A.
    A,
    /// Source B.
    B,
    /// Source C.
    C,
    /// Predicate source (carry-in, select, combine).
    PredSrc0,
    /// Second predicate source (second carry-in, PLOP3's Ps1, the `.EX` input of ISETP).
    PredSrc1,
    /// Third predicate source (PLOP3's Ps2).
    PredSrc2,
    /// Memory address.
    Addr,
    /// Source address of a memory-to-memory copy (LDGSTS's global address; `Addr` is the
    /// shared destination).
    SrcAddr,
    /// A second immediate (PLOP3's second table).
    Aux,
    /// Data stored (stores, atomics).
    Data,
    /// Code target.
    Target,
    /// Other immediates (LUT, shift amount, lane mask, barrier id).
    Other,
}

/// A field of an operand printed as a suffix (`.H0_H0`, `.F32`, `.H1`, `.64`); an empty
/// spelling prints nothing. Values not listed are illegal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SuffixDesc {
    /// Where it is (length 0 for a constant suffix such as `.SIGN`).
    pub field: BitField,
    /// `(value, spelling)`.
    pub values: &'static [(u16, &'static str)],
}

/// An operand of a form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperandDesc {
    /// Role for the backend and simulator.
    pub role: Role,
    /// Encoding.
    pub kind: OpKind,
    /// Bit that negates the operand (`-R4`).
    pub neg: Option<u8>,
    /// Bit that takes the absolute value (`|R4|`).
    pub abs: Option<u8>,
    /// Bit that complements the operand (`~R4`).
    pub not: Option<u8>,
    /// Reuse slot (0 = A, 1 = B, 2 = C) for `.reuse`.
    pub reuse: Option<u8>,
    /// Value of the field when the operand is absent (RZ = 255, PT = 7, !PT = 15 incl. neg).
    pub default: u64,
    /// Printing rule.
    pub show: Show,
    /// True for outputs.
    pub is_def: bool,
    /// Suffix field: half-precision swizzle (`.H0_H0`, `.H1_H1`, `.F32`), sub-word select
    /// (`.H1`, `.B2`), or the address width of a memory operand (`.64`, `.U32`).
    pub swizzle: Option<SuffixDesc>,
    /// Separator before the operand.
    pub sep: Sep,
}

/// A modifier: a field whose values print as `.SPELLING` suffixes. A modifier may span two
/// bit ranges: its value is `field | upper << field.len`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModDesc {
    /// What the modifier means (its values are the codes of [`Mod`]'s value type).
    pub id: Mod,
    /// Where it is (the low part).
    pub field: BitField,
    /// `(value, spelling)`; an empty spelling prints nothing. Values not listed are illegal.
    pub values: &'static [(u16, &'static str)],
    /// The value used when the backend does not set it.
    pub default: u16,
    /// The high part of a split modifier.
    pub upper: Option<BitField>,
}

impl ModDesc {
    /// Reads the modifier's value (a modifier without bits always has its default: a meaning
    /// the form always has, such as FSET's `.BF`).
    pub fn get(&self, inst: u128) -> u16 {
        if self.field.len == 0 && self.upper.is_none() {
            return self.default;
        }
        let low = self.field.get(inst);
        let high = self.upper.map_or(0, |u| u.get(inst));
        (low | high << self.field.len) as u16
    }

    /// Writes the modifier's value.
    pub fn set(&self, inst: &mut u128, value: u16) {
        self.field.set(inst, value as u64);
        if let Some(u) = self.upper {
            u.set(inst, (value as u64) >> self.field.len);
        }
    }

    /// Bits the modifier occupies.
    pub fn mask(&self) -> u128 {
        self.field.mask() | self.upper.map_or(0, |u| u.mask())
    }

    /// The spelling of `value`, if the value is legal.
    pub fn spelling(&self, value: u16) -> Option<&'static str> {
        self.values.iter().find(|(v, _)| *v == value).map(|(_, s)| *s)
    }
}

/// A printing alias: when every condition holds, `infix` is printed after the mnemonic
/// (nvdisasm's `IMAD.MOV`, `IMAD.SHL`, `IMAD.IADD`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Alias {
    /// The text inserted after the mnemonic, e.g. `.MOV`.
    pub infix: &'static str,
    /// Conditions: `(operand index, condition)`, or `(modifier index, ModIs(v))`.
    pub when: &'static [(u8, AliasCond)],
}

/// A condition of an [`Alias`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AliasCond {
    /// The register operand is RZ.
    IsRz,
    /// The immediate operand equals the value.
    ImmEq(u32),
    /// The immediate operand is a power of two (nvdisasm excepts 0x10000).
    ImmPow2,
    /// The modifier (the index names a modifier, not an operand) has this value.
    ModIs(u16),
}

/// The names nvdisasm prints for special-register numbers: an architecture's own, then
/// those of the architecture it extends; other numbers print as `SR<n>`.
#[derive(Debug, PartialEq, Eq)]
pub struct SRegNames {
    /// Names this architecture adds or renames.
    pub own: &'static [(u8, &'static str)],
    /// The names it keeps from an older architecture.
    pub base: Option<&'static SRegNames>,
}

impl SRegNames {
    /// The name of special register `n`, if it has one.
    pub fn name(&self, n: u8) -> Option<&'static str> {
        let own = self.own.iter().find(|(k, _)| *k == n).map(|(_, s)| *s);
        own.or_else(|| self.base.and_then(|b| b.name(n)))
    }
}

/// One encoding of one SASS instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct Form {
    /// Printed mnemonic (`IMAD`, `LDG`).
    pub mnemonic: &'static str,
    /// Semantic operation.
    pub op: Op,
    /// Bits 0..12 (base opcode and operand form).
    pub opcode: u16,
    /// Operands in printed order.
    pub operands: Vec<OperandDesc>,
    /// Modifiers in printed order.
    pub mods: Vec<ModDesc>,
    /// Aliases, tried in order.
    pub aliases: Vec<Alias>,
    /// Fixed bits outside every field: `(field, value)`.
    pub fixed: Vec<(BitField, u64)>,
    /// The guard is a uniform predicate (`@UP0`), as in the uniform-datapath instructions.
    pub uniform_guard: bool,
    /// nvdisasm prints the memory descriptor (`desc[UR4][R2.64]`) whenever the descriptor
    /// flag is set (sm_90 on); before, only with the cache-policy flag.
    pub desc_printed: bool,
    /// Index of the modifier (`.X`) under which negation bits mean bitwise NOT (`~R4`).
    pub not_under: Option<u8>,
    /// Illegal combinations of fields: an encoding with `word & mask == value` is rejected
    /// (nvdisasm prints them as `INVALID`), e.g. `.FTZ` with `.FMZ`.
    pub invalid: Vec<(u128, u128)>,
    /// Scheduler and simulator facts.
    pub meta: Meta,
    /// The architectures the form exists on.
    pub archs: Archs,
    /// Bits owned by an operand or modifier (computed); every other bit must equal the
    /// template.
    pub covered: u128,
    /// Template: fixed values and defaults of every field (computed).
    pub template: u128,
}

impl Form {
    /// The first illegal field combination `word` contains, as a bit mask.
    pub fn invalid_combination(&self, word: u128) -> Option<u128> {
        self.invalid
            .iter()
            .find(|(mask, value)| word & mask == *value)
            .map(|(mask, _)| *mask)
    }

    /// Index of modifier `id`, if the form has it.
    pub fn mod_index(&self, id: Mod) -> Option<usize> {
        self.mods.iter().position(|m| m.id == id)
    }

    /// Index of the first operand with `role`.
    pub fn operand_index(&self, role: Role) -> Option<usize> {
        self.operands.iter().position(|o| o.role == role)
    }
}
