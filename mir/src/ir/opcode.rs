//! The MIR opcodes as one table: each entry gives the text-form name, the effect flags, the
//! argument types and the result types. The verifier, the parser, the builder and the
//! generic passes read the table instead of matching on opcodes.
//!
//! Type codes (arguments and results): `T` the instruction type, `W` the integer type twice
//! as wide, `p` a predicate, `i` an `i32`, `a` an address (`i32` or `i64`), `x` any type,
//! `V` one `T` per vector element of the memory access (`Aux::Mem`). An argument code
//! followed by `?` is optional; `*` repeats it zero or more times.

/// Has an effect besides its results: never removed, merged or moved.
pub const EFFECT: u8 = 1;
/// Ends a block.
pub const TERM: u8 = 2;
/// Reads memory: removable when unused, but not merged or moved across effects.
pub const READS: u8 = 4;
/// Involves other threads (warp or CTA): never merged or moved.
pub const COLLECTIVE: u8 = 8;

macro_rules! opcodes {
    ($( $(#[doc = $doc:literal])* $name:ident = $text:literal, $flags:expr, $args:literal, $res:literal; )*) => {
        /// The operation of an instruction.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode {
            $( $(#[doc = $doc])* $name, )*
        }

        /// One row of the opcode table.
        #[derive(Clone, Copy, Debug)]
        pub struct OpInfo {
            /// The opcode.
            pub op: Opcode,
            /// Text-form name.
            pub name: &'static str,
            /// [`EFFECT`], [`TERM`], [`READS`], [`COLLECTIVE`].
            pub flags: u8,
            /// Argument type codes.
            pub args: &'static str,
            /// Result type codes.
            pub results: &'static str,
        }

        /// Every opcode, in declaration order.
        pub static OPCODES: &[OpInfo] = &[
            $( OpInfo { op: Opcode::$name, name: $text, flags: $flags, args: $args, results: $res }, )*
        ];
    };
}

opcodes! {
    /// A constant: bits in `Aux::Imm`.
    Const = "const", 0, "", "T";
    /// An undefined value (a register read before any write).
    Undef = "undef", 0, "", "T";
    /// A kernel parameter at byte offset `Aux::Param`.
    Param = "param", 0, "", "T";
    /// A special register (`Aux::Special`).
    Special = "special", 0, "", "T";
    /// The address of a variable (`Aux::Var`) in the variable's own state space.
    Addr = "addr", 0, "", "T";
    /// Copy of the argument (transient; copy propagation removes it).
    Copy = "copy", 0, "T", "T";
    /// The bits of the argument as `ty` (same width).
    Bitcast = "bitcast", 0, "x", "T";
    /// Integer addition (wrapping).
    Iadd = "iadd", 0, "T T", "T";
    /// Integer subtraction (wrapping).
    Isub = "isub", 0, "T T", "T";
    /// Low half of the product.
    Imul = "imul", 0, "T T", "T";
    /// High half of the signed product.
    ImulHiS = "imul_hi_s", 0, "T T", "T";
    /// High half of the unsigned product.
    ImulHiU = "imul_hi_u", 0, "T T", "T";
    /// Full signed product, twice as wide.
    ImulWideS = "imul_wide_s", 0, "T T", "W";
    /// Full unsigned product, twice as wide.
    ImulWideU = "imul_wide_u", 0, "T T", "W";
    /// `a * b + c`, low half.
    Imad = "imad", 0, "T T T", "T";
    /// High half of the signed product plus `c`.
    ImadHiS = "imad_hi_s", 0, "T T T", "T";
    /// High half of the unsigned product plus `c`.
    ImadHiU = "imad_hi_u", 0, "T T T", "T";
    /// `wide(a * b) + c`, signed.
    ImadWideS = "imad_wide_s", 0, "T T W", "W";
    /// `wide(a * b) + c`, unsigned.
    ImadWideU = "imad_wide_u", 0, "T T W", "W";
    /// Signed saturating addition.
    IaddSatS = "iadd_sat_s", 0, "T T", "T";
    /// Signed saturating subtraction.
    IsubSatS = "isub_sat_s", 0, "T T", "T";
    /// `a + b + carry_in`: the sum and the carry out.
    IaddCarry = "iadd_carry", 0, "T T p", "Tp";
    /// Low 32 bits of the product of the signed low 24 bits.
    Mul24LoS = "mul24_lo_s", 0, "T T", "T";
    /// Low 32 bits of the product of the unsigned low 24 bits.
    Mul24LoU = "mul24_lo_u", 0, "T T", "T";
    /// Bits 47..16 of the product of the signed low 24 bits.
    Mul24HiS = "mul24_hi_s", 0, "T T", "T";
    /// Bits 47..16 of the product of the unsigned low 24 bits.
    Mul24HiU = "mul24_hi_u", 0, "T T", "T";
    /// Signed division (truncating; by zero: -1).
    DivS = "div_s", 0, "T T", "T";
    /// Unsigned division (by zero: all ones).
    DivU = "div_u", 0, "T T", "T";
    /// Signed remainder (sign of the dividend; by zero: the dividend).
    RemS = "rem_s", 0, "T T", "T";
    /// Unsigned remainder (by zero: the dividend).
    RemU = "rem_u", 0, "T T", "T";
    /// Two's complement negation.
    Ineg = "ineg", 0, "T", "T";
    /// Bitwise and.
    And = "and", 0, "T T", "T";
    /// Bitwise or.
    Or = "or", 0, "T T", "T";
    /// Bitwise exclusive or.
    Xor = "xor", 0, "T T", "T";
    /// Bitwise not.
    Not = "not", 0, "T", "T";
    /// Shift left; amounts >= the width give 0.
    Shl = "shl", 0, "T i", "T";
    /// Arithmetic shift right; amounts >= the width give the sign bits.
    ShrS = "shr_s", 0, "T i", "T";
    /// Logical shift right; amounts >= the width give 0.
    ShrU = "shr_u", 0, "T i", "T";
    /// Signed minimum.
    MinS = "min_s", 0, "T T", "T";
    /// Unsigned minimum.
    MinU = "min_u", 0, "T T", "T";
    /// Signed maximum.
    MaxS = "max_s", 0, "T T", "T";
    /// Unsigned maximum.
    MaxU = "max_u", 0, "T T", "T";
    /// Signed bit-field extract `(a, pos, len)` (PTX `bfe.s`: pos and len use bits 7..0).
    BfeS = "bfe_s", 0, "T i i", "T";
    /// Unsigned bit-field extract.
    BfeU = "bfe_u", 0, "T i i", "T";
    /// Bit-field insert of `a` into `b` at `(pos, len)`.
    Bfi = "bfi", 0, "T T i i", "T";
    /// Position of the most significant non-sign bit (signed), or all ones.
    BfindS = "bfind_s", 0, "T", "i";
    /// Position of the most significant set bit, or all ones.
    BfindU = "bfind_u", 0, "T", "i";
    /// Bit reversal.
    Brev = "brev", 0, "T", "T";
    /// Count of leading zeros.
    Clz = "clz", 0, "T", "i";
    /// Count of set bits.
    Popc = "popc", 0, "T", "i";
    /// Byte permute `(a, b, selector)`; mode in `Aux::Imm` (0 default, 1 f4e, 2 b4e, 3 rc8,
    /// 4 ecl, 5 ecr, 6 rc16).
    Prmt = "prmt", 0, "T T i", "T";
    /// Three-input logic with the lookup table in `Aux::Imm`.
    Lop3 = "lop3", 0, "T T T", "T";
    /// Funnel shift left `(lo, hi, n)`, amount clamped to 32: high word.
    ShfLClamp = "shf_l_clamp", 0, "T T i", "T";
    /// Funnel shift left, amount modulo 32.
    ShfLWrap = "shf_l_wrap", 0, "T T i", "T";
    /// Funnel shift right `(lo, hi, n)`, amount clamped to 32: low word.
    ShfRClamp = "shf_r_clamp", 0, "T T i", "T";
    /// Funnel shift right, amount modulo 32.
    ShfRWrap = "shf_r_wrap", 0, "T T i", "T";
    /// Four-way byte dot product plus `c`; `Aux::Imm` bit 0: `a` signed, bit 1: `b` signed.
    Dp4a = "dp4a", 0, "T T T", "T";
    /// Two-way 16x8 dot product plus `c`; bits 0, 1 signedness, bit 2 `.hi` bytes of `b`.
    Dp2a = "dp2a", 0, "T T T", "T";
    /// Integer compare (`Aux::Cond`).
    Icmp = "icmp", 0, "T T", "p";
    /// `a ? b : c`.
    Select = "select", 0, "p T T", "T";
    /// Float addition (`Aux::Float`).
    Fadd = "fadd", 0, "T T", "T";
    /// Float subtraction.
    Fsub = "fsub", 0, "T T", "T";
    /// Float multiplication.
    Fmul = "fmul", 0, "T T", "T";
    /// Fused multiply-add (one rounding).
    Ffma = "ffma", 0, "T T T", "T";
    /// Sign flip (exact, also of NaN).
    Fneg = "fneg", 0, "T", "T";
    /// Sign clear.
    Fabs = "fabs", 0, "T", "T";
    /// Minimum: a NaN operand yields the other; -0 < +0.
    Fmin = "fmin", 0, "T T", "T";
    /// Maximum: a NaN operand yields the other; -0 < +0.
    Fmax = "fmax", 0, "T T", "T";
    /// Float compare (`Aux::Cond`).
    Fcmp = "fcmp", 0, "T T", "p";
    /// Subnormals to signed zero.
    Fflush = "fflush", 0, "T", "T";
    /// The magnitude of `b` with the sign of `a` (PTX `copysign`).
    Fcopysign = "fcopysign", 0, "T T", "T";
    /// Float class test; class in `Aux::Imm` (0 finite, 1 infinite, 2 number, 3 notanumber,
    /// 4 normal, 5 subnormal).
    Ftestp = "ftestp", 0, "T", "p";
    /// Round to an integral value in the `Aux::Float` rounding mode.
    Frint = "frint", 0, "T", "T";
    /// IEEE division, rounded as `Aux::Float` says.
    Fdiv = "fdiv", 0, "T T", "T";
    /// `a * rcp.approx(b)`.
    FdivApprox = "fdiv_approx", 0, "T T", "T";
    /// Full-range division within 2 ulp.
    FdivFull = "fdiv_full", 0, "T T", "T";
    /// IEEE reciprocal.
    Frcp = "frcp", 0, "T", "T";
    /// Approximate reciprocal.
    FrcpApprox = "frcp_approx", 0, "T", "T";
    /// IEEE square root.
    Fsqrt = "fsqrt", 0, "T", "T";
    /// Approximate square root.
    FsqrtApprox = "fsqrt_approx", 0, "T", "T";
    /// Approximate reciprocal square root.
    FrsqrtApprox = "frsqrt_approx", 0, "T", "T";
    /// Approximate 2^x.
    Fex2Approx = "fex2_approx", 0, "T", "T";
    /// Approximate log2(x).
    Flg2Approx = "flg2_approx", 0, "T", "T";
    /// Approximate sine.
    FsinApprox = "fsin_approx", 0, "T", "T";
    /// Approximate cosine.
    FcosApprox = "fcos_approx", 0, "T", "T";
    /// Approximate hyperbolic tangent.
    FtanhApprox = "ftanh_approx", 0, "T", "T";
    /// True when `a / b` must take the exact slow path of an f32 division (SASS `FCHK`): an
    /// operand is zero, subnormal, infinite or NaN, or the exponents put the reciprocal, the
    /// quotient or the residual of the Newton-Raphson fast path outside the normal range.
    /// Only the back end's division expansion creates it.
    FdivCheck = "fdiv_check", 0, "T T", "p";
    /// Conversion (`Aux::Convert`).
    Convert = "convert", 0, "x", "T";
    /// Two f32 values rounded (`Aux::Convert`: rounding, `.relu`) into a half pair (`f16x2`
    /// or `bf16x2`): the first into the high half (PTX `cvt.rn.f16x2.f32 d, a, b`).
    Fpack = "fpack", 0, "x x", "T";
    /// Load of `Aux::Mem` vector elements from `args[0] + offset`.
    Load = "load", READS, "a l?", "V";
    /// Store of the values to `args[0] + offset`.
    Store = "store", EFFECT, "a T* l?", "";
    /// Prefetch of the line at `args[0] + offset` (`Aux::Mem`: space and offset) into L1
    /// (`prefetch.L1`, `prefetchu.L1`); no effect on any result.
    PrefetchL1 = "prefetch_l1", EFFECT, "a", "";
    /// Prefetch into L2 (`prefetch.L2`, `.L2::evict_normal`); no effect on any result.
    PrefetchL2 = "prefetch_l2", EFFECT, "a", "";
    /// Prefetch into L2 with the evict-last priority (`prefetch.global.L2::evict_last`,
    /// sm_80 on); no effect on any result.
    PrefetchL2Last = "prefetch_l2_last", EFFECT, "a", "";
    /// Atomic read-modify-write (`Aux::Atom`): returns the old value; `cas` takes two values.
    Atom = "atom", EFFECT, "a T T?", "T";
    /// An operation on a Hopper `mbarrier` (sm_90 on, `lower/mbarrier.rs`) at `args[0] +
    /// offset`: `Aux::Atom` with [`AtomOp::HopperArrive`](crate::ir::AtomOp::HopperArrive)
    /// (`args[1]` arrivals), [`AtomOp::HopperDrop`](crate::ir::AtomOp::HopperDrop) (as many
    /// arrivals that leave the barrier) or
    /// [`AtomOp::HopperPending`](crate::ir::AtomOp::HopperPending) (one more pending arrival;
    /// `args[1]` unused), or a transaction count of `args[1]` bytes
    /// ([`AtomOp::HopperArriveTx`](crate::ir::AtomOp::HopperArriveTx),
    /// [`AtomOp::HopperExpectTx`](crate::ir::AtomOp::HopperExpectTx),
    /// [`AtomOp::HopperCompleteTx`](crate::ir::AtomOp::HopperCompleteTx)). Returns the
    /// barrier as it was.
    MbarArrive = "mbar_arrive", EFFECT, "a i", "l";
    /// Stores the 64-bit `args[1]` as the Hopper `mbarrier` at `args[0] + offset` (`Aux::Mem`):
    /// its `init` (SYNCS.EXCH.64, the warp's one swap).
    MbarInit = "mbar_init", EFFECT, "a l", "";
    /// Whether the Hopper `mbarrier` at `args[0] + offset` (`Aux::Mem`) is in another phase
    /// than bit 31 of `args[1]` names (a state's high word or a parity).
    MbarPhaseTest = "mbar_phase_test", EFFECT, "a i", "p";
    /// Address in a state space (`Aux::Space`) to a generic address.
    ToGeneric = "to_generic", 0, "T", "T";
    /// Generic address to an address in the state space (`Aux::Space`).
    FromGeneric = "from_generic", 0, "T", "T";
    /// Whether a generic address points into the state space (`Aux::Space`).
    IsSpace = "is_space", 0, "x", "p";
    /// Warp shuffle `(value, lane/delta, clamp|segmask, membermask)`; mode in `Aux::Imm`
    /// (0 up, 1 down, 2 bfly, 3 idx). Results: the value and whether the source was in range.
    Shfl = "shfl", COLLECTIVE, "T i i i", "Tp";
    /// True if the predicate holds in every participating thread.
    VoteAll = "vote_all", COLLECTIVE, "p i", "p";
    /// True if the predicate holds in some participating thread.
    VoteAny = "vote_any", COLLECTIVE, "p i", "p";
    /// True if the predicate is the same in every participating thread.
    VoteUni = "vote_uni", COLLECTIVE, "p i", "p";
    /// Mask of the participating threads where the predicate holds.
    VoteBallot = "vote_ballot", COLLECTIVE, "p i", "i";
    /// `redux.sync` `(value, membermask)`: the reduction over the participating threads
    /// (`Aux::Imm`: [`crate::ir::redux::ReduxFlags`]).
    Redux = "redux", COLLECTIVE, "i i", "i";
    /// Mask of the threads holding the same value.
    MatchAny = "match_any", COLLECTIVE, "T i", "i";
    /// The member mask if every thread holds the same value (else 0), and whether they do.
    MatchAll = "match_all", COLLECTIVE, "T i", "ip";
    /// `elect.sync (membermask)`: the lane of one elected thread among the participating ones,
    /// and whether this thread is it.
    Elect = "elect", COLLECTIVE, "i", "ip";
    /// Mask of the active threads of the warp.
    Activemask = "activemask", COLLECTIVE, "", "i";
    /// Collective 8x8 b16 matrix load from shared memory; `Aux::Imm`: matrix count (bits 2..0)
    /// and transposition (bit 4). One `i32` result per matrix.
    Ldmatrix = "ldmatrix", COLLECTIVE | READS, "a", "V";
    /// Collective transpose of an 8x8 b16 matrix held one `i32` (two elements) per lane
    /// (`movmatrix.sync.aligned.m8n8.trans.b16`).
    Movmatrix = "movmatrix", COLLECTIVE, "i", "i";
    /// Integer warp matrix multiply-accumulate `mma.sync.aligned.m8n8k{16,32,128}`
    /// `(a, b, c0, c1)`, results `(d0, d1)`, fragments as the PTX ISA lays them out (lane
    /// `4g + t` holds word `t` of A's row `g` and of B's column `g`, and C and D at row `g`,
    /// columns `2t`, `2t + 1`). `Aux::Imm` ([`crate::interp`]'s `mma_int`): element bits (8,
    /// 4, or 1 for b1 `.xor.popc`) in bits 7..0, A signed (bit 8), B signed (bit 9),
    /// `.satfinite` (bit 10), b1 `.and.popc` (bit 11, sm_80 on).
    MmaInt = "mma_int", COLLECTIVE, "i i i i", "ii";
    /// f16-family warp matrix multiply-accumulate `mma.sync.aligned.m16n8k{4,8,16}.row.col`
    /// `(a..., b..., c...)` with C and D both f16 (two registers) or both f32 (four), laid out
    /// as the PTX ISA's fragments; `Aux::Imm`: [`crate::ir::mma::MmaF16Flags`] (f32
    /// accumulator, f16/bf16/tf32 multiplicands, k16, Ampere numerics), which also give the
    /// register counts. Numerics of `ptxc_softfloat::tensor::mma_dot`.
    MmaF16 = "mma_f16", COLLECTIVE, "i*", "V";
    /// Integer warp matrix multiply-accumulate `mma.sync.aligned.m16n8k{16,32,64,128,256}.row.col`
    /// of 8-bit, 4-bit or single-bit elements `(a..., b..., c0..c3)`, results `(d0..d3)`, in the PTX ISA's fragment
    /// layouts; `Aux::Imm`: [`crate::ir::mma::MmaIntFlags`].
    MmaIntM16n8 = "mma_int_m16n8", COLLECTIVE, "i*", "V";
    /// f16 warp matrix multiply-accumulate `mma.sync.aligned.m8n8k4.alayout.blayout`
    /// `(a0, a1, b0, b1, c...)`: four independent 8x8x4 products, one per quad-pair, with the
    /// PTX ISA's m8n8k4 fragments (C four f16 registers or eight f32, D likewise). `Aux::Imm`:
    /// f32 D (bit 0), f32 C (bit 1), A column-major (bit 2), B column-major (bit 3).
    /// Numerics of `ptxc_softfloat::tensor::hmma_dot`.
    Mma884 = "mma_884", COLLECTIVE, "i*", "V";
    /// f64 warp matrix multiply-accumulate `mma.sync.aligned.m8n8k4.row.col.f64`
    /// `(a0, b0, c0, c1)`, results `(d0, d1)`, in the PTX ISA's m8n8k4 f64 fragments (lane
    /// `4g + t` holds A (g, t), B (t, g), C and D (g, 2t), (g, 2t + 1)). Numerics of
    /// `ptxc_softfloat::tensor::dmma_dot` rounded to nearest.
    MmaF64 = "mma_f64", COLLECTIVE, "T T T T", "TT";
    /// Warpgroup matrix multiply-accumulate `wgmma.mma_async` (sm_90a) `(a, b, scale_d,
    /// c...)`: `a` A's 64-bit shared-memory matrix descriptor or, with
    /// [`WgmmaFlags::a_regs`](crate::ir::mma::WgmmaFlags), four `i32` registers of A; `b`
    /// B's descriptor; `scale_d` a predicate (false: C is taken as zero); C the accumulator
    /// registers. Results: the new accumulator registers, which the warpgroup may read only
    /// after a `WgmmaWait` that covers the group (`Aux::Imm`: [`crate::ir::mma::WgmmaFlags`]).
    Wgmma = "wgmma", EFFECT | COLLECTIVE, "x*", "V";
    /// Orders the warpgroup's register accesses before the following `Wgmma`s (`wgmma.fence`).
    WgmmaFence = "wgmma_fence", EFFECT | COLLECTIVE, "", "";
    /// Closes the group of `Wgmma`s issued since the last one (`wgmma.commit_group`).
    WgmmaCommit = "wgmma_commit", EFFECT | COLLECTIVE, "", "";
    /// Waits until at most `Aux::Imm` groups of `Wgmma`s are pending (`wgmma.wait_group`).
    WgmmaWait = "wgmma_wait", EFFECT | COLLECTIVE, "", "";
    /// Orders the generic proxy's shared-memory accesses before the async proxy's
    /// (`fence.proxy.async`; `Aux::Imm` 0 for `.shared::cta`, 1 for `.global`, 2 without a
    /// state space).
    FenceProxyAsync = "fence_proxy_async", EFFECT, "", "";
    /// Collective store of 8x8 b16 matrices to shared memory `(address, r...)`
    /// (`stmatrix.sync.aligned.m8n8.xN[.trans].shared.b16`); `Aux::Imm` as `Ldmatrix`'s:
    /// matrix count (bits 2..0) and transposition (bit 4). One `i32` argument per matrix.
    Stmatrix = "stmatrix", EFFECT | COLLECTIVE, "a i*", "";
    /// CTA barrier `(id[, thread count])`.
    BarSync = "bar_sync", EFFECT | COLLECTIVE, "i i?", "";
    /// Arrival at a barrier without waiting.
    BarArrive = "bar_arrive", EFFECT | COLLECTIVE, "i i?", "";
    /// Barrier that counts the threads whose predicate holds `(id, p[, count])`.
    BarRedPopc = "bar_red_popc", EFFECT | COLLECTIVE, "i p i?", "i";
    /// Barrier that ands the predicates.
    BarRedAnd = "bar_red_and", EFFECT | COLLECTIVE, "i p i?", "p";
    /// Barrier that ors the predicates.
    BarRedOr = "bar_red_or", EFFECT | COLLECTIVE, "i p i?", "p";
    /// Asynchronous copy `(shared address, global address[, src-size])` from global to shared
    /// memory. `Aux::Imm`: the bytes copied (4, 8 or 16) in bits 7..0, `.cg` (L1 bypassed)
    /// in bit 8, the L2 prefetch size (0 none, 1 64 B, 2 128 B, 3 256 B) in bits 10..9.
    /// Bytes at and past src-size are zero. It lands in its group's time (see
    /// `CpAsyncWait`); the interpreter copies at once. With
    /// [`CP_ASYNC_POLICY`](crate::lower::CP_ASYNC_POLICY) (bit 11) the last argument is a
    /// 64-bit L2 cache policy (`.L2::cache_hint`).
    CpAsync = "cp_async", EFFECT, "a a i? l?", "";
    /// Closes the thread's group of asynchronous copies issued since the last one.
    CpAsyncCommit = "cp_async_commit", EFFECT, "", "";
    /// Waits until at most `Aux::Imm` of the thread's closed groups of copies are pending.
    CpAsyncWait = "cp_async_wait", EFFECT, "", "";
    /// An arrival on the shared-memory `mbarrier` at `(address)` made when the thread's
    /// earlier asynchronous copies have landed (`cp.async.mbarrier.arrive.noinc`); the
    /// interpreter arrives at once. `Aux::Imm`: 0 for Ampere's layout, or
    /// [`CP_ASYNC_ARRIVE_HOPPER`](crate::lower::CP_ASYNC_ARRIVE_HOPPER) with
    /// [`CP_ASYNC_ARRIVE_ANNOUNCED`](crate::lower::CP_ASYNC_ARRIVE_ANNOUNCED) when an
    /// `mbar_arrive` announced it.
    CpAsyncArrive = "cp_async_arrive", EFFECT, "a", "";
    /// A bulk copy (sm_90, `cp.async.bulk`) of `args[2]` 16-byte units, made once for all the
    /// threads that execute it (the lowering runs it for one thread at a time). `Aux::Imm`
    /// with [`BULK_TO_SHARED`](crate::lower::BULK_TO_SHARED): from global `args[1]` to shared
    /// `args[0]`, completing its bytes on the mbarrier at shared `args[3]`; else from shared
    /// `args[1]` to global `args[0]`, in the thread's bulk group.
    BulkCopy = "bulk_copy", EFFECT, "a a i a?", "";
    /// A TMA load (sm_90, `cp.async.bulk.tensor`, tiled): the box at the coordinates
    /// `args[3..]` of the tensor map at generic address `args[2]` into shared memory at
    /// `args[0]`, completing its bytes on the mbarrier at shared `args[1]`; made once for all
    /// the threads that execute it, as `bulk_copy`. `Aux::Imm`: the dimensions.
    TmaLoad = "tma_load", EFFECT, "a a x i*", "";
    /// A TMA store: the box at the coordinates `args[2..]` of the tensor map at generic
    /// address `args[1]` from shared memory at `args[0]`, in the thread's bulk group.
    /// `Aux::Imm`: the dimensions.
    TmaStore = "tma_store", EFFECT, "a x i*", "";
    /// Closes the thread's bulk group (`cp.async.bulk.commit_group`).
    BulkCommit = "bulk_commit", EFFECT, "", "";
    /// Waits until at most `Aux::Imm & 0xff` of the thread's bulk groups are pending
    /// (`cp.async.bulk.wait_group`; [`BULK_WAIT_READ`](crate::lower::BULK_WAIT_READ): their
    /// reads only).
    BulkWait = "bulk_wait", EFFECT, "", "";
    /// Memory fence; scope in `Aux::Imm` bits 3..0 (0 cta, 1 gpu, 2 sys,
    /// [`FENCE_CLUSTER`](crate::lower::FENCE_CLUSTER)), plus
    /// [`FENCE_ALL`](crate::lower::FENCE_ALL) for the `MEMBAR.ALL` of `mbarrier` arrivals
    /// and `.acq_rel` cluster fences, and [`FENCE_RELEASE`](crate::lower::FENCE_RELEASE)
    /// for the release half alone (no invalidation of the L1 cache).
    Fence = "fence", EFFECT, "", "";
    /// Invalidates the L1 cache (the acquire half of a fence at cluster scope or wider),
    /// when `args[0]` holds or without an argument; no effect on any result.
    L1Invalidate = "l1_invalidate", EFFECT, "p?", "";
    /// Arrival of the thread at its cluster's barrier (`barrier.cluster.arrive`, sm_90).
    ClusterArrive = "cluster_arrive", EFFECT | COLLECTIVE, "", "";
    /// Waits until every thread of every CTA of the cluster has arrived at the cluster's
    /// barrier since the thread's last wait (`barrier.cluster.wait`, sm_90).
    ClusterWait = "cluster_wait", EFFECT | COLLECTIVE, "", "";
    /// Suspends the thread for about `args[0]` nanoseconds.
    Nanosleep = "nanosleep", EFFECT, "i", "";
    /// Unconditional branch (`Aux::Branch` with one target).
    Jump = "jump", TERM | EFFECT, "", "";
    /// Conditional branch on `args[0]` (`Aux::Branch`: then, else).
    Brif = "brif", TERM | EFFECT, "p", "";
    /// End of the thread.
    Exit = "exit", TERM | EFFECT, "", "";
    /// Abort of the kernel.
    Trap = "trap", TERM | EFFECT, "", "";
    /// A call of the driver function `DriverFn::from_index(Aux::Imm)` with its arguments
    /// (the ABI call ptxas compiles `.extern .func vprintf` and its kin to); the result is
    /// the function's, or an unused `i32` for functions without one.
    CallDriver = "call_driver", EFFECT, "x*", "T";
    /// A call of the device function `Aux::Imm`, an index into the kernel's
    /// [`Function::callees`](crate::ir::Function::callees), compiled on its own and called
    /// as a subroutine (`CALL.REL`); `args[0]` is the local address (`i64`) of the caller's
    /// argument area, where the arguments are stored before the call and the return values
    /// are found after it (`lower/device.rs`).
    CallFunc = "call_func", EFFECT, "T", "";
    /// In a device function, the local address (`i64`) of the caller's argument area.
    ArgArea = "arg_area", EFFECT, "", "T";
    /// The end of a device function: back to the caller.
    Return = "return", TERM | EFFECT, "", "";
}

impl Opcode {
    /// The table row.
    pub fn info(self) -> &'static OpInfo {
        &OPCODES[self as usize]
    }

    /// The text-form name.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The opcode named `name` in the text form.
    pub fn from_name(name: &str) -> Option<Opcode> {
        OPCODES.iter().find(|i| i.name == name).map(|i| i.op)
    }

    /// True for block terminators.
    pub fn is_terminator(self) -> bool {
        self.info().flags & TERM != 0
    }

    /// True if the instruction has an effect besides its results (cannot be removed or merged).
    pub fn has_side_effects(self) -> bool {
        self.info().flags & EFFECT != 0
    }

    /// True if the instruction reads memory.
    pub fn reads_memory(self) -> bool {
        self.info().flags & READS != 0
    }

    /// True for warp- or CTA-collective instructions.
    pub fn is_collective(self) -> bool {
        self.info().flags & COLLECTIVE != 0
    }

    /// True if the result depends on nothing but the arguments and `aux` (it may be merged
    /// with an identical instruction, moved, or removed when unused).
    pub fn is_pure(self) -> bool {
        self.info().flags == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_in_declaration_order_with_unique_names() {
        for (i, info) in OPCODES.iter().enumerate() {
            assert_eq!(info.op as usize, i);
            assert_eq!(Opcode::from_name(info.name), Some(info.op));
        }
    }
}
