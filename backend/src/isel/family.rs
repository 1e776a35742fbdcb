//! Which part of instruction selection handles each MIR opcode: one family per file.

use ptxc_mir::ir::Opcode;

/// A family of MIR opcodes selected together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Constants, parameters, special registers, copies, variable addresses (`values.rs`).
    Value,
    /// Integer arithmetic and logic (`arith.rs`, `wide.rs` for 64-bit, `bits.rs`).
    Int,
    /// Integer comparisons (`arith.rs`).
    Compare,
    /// Selects (`arith.rs`).
    Select,
    /// Float arithmetic, comparisons and math functions (`float.rs` and its neighbours).
    Float,
    /// Conversions (`convert.rs`).
    Convert,
    /// Loads, stores, address-space conversions (`memory.rs`).
    Memory,
    /// Atomics and reductions (`atomic.rs`).
    Atomic,
    /// Warp-level operations: shuffles, votes, match (`warp.rs`).
    Warp,
    /// CTA barriers, fences, sleeps (`barrier.rs`).
    Barrier,
    /// Asynchronous copies and their groups (`async_copy.rs`).
    AsyncCopy,
    /// Hopper's `mbarrier` operations (`mbarrier.rs`).
    Mbarrier,
    /// Tensor-core instructions: matrix transpose and multiply-accumulate (`tensor.rs`).
    Tensor,
    /// Calls of driver functions (`call.rs`).
    Call,
    /// Terminators (selected by `cfg.rs`).
    Control,
}

use Family::*;
use Opcode::*;

/// Every opcode with its family.
const TABLE: &[(Opcode, Family)] = &[
    (Const, Value),
    (Undef, Value),
    (Param, Value),
    (Special, Value),
    (Addr, Value),
    (Copy, Value),
    (Bitcast, Value),
    (Iadd, Int),
    (Isub, Int),
    (Imul, Int),
    (ImulHiS, Int),
    (ImulHiU, Int),
    (ImulWideS, Int),
    (ImulWideU, Int),
    (Imad, Int),
    (ImadHiS, Int),
    (ImadHiU, Int),
    (ImadWideS, Int),
    (ImadWideU, Int),
    (IaddSatS, Int),
    (IsubSatS, Int),
    (IaddCarry, Int),
    (Mul24LoS, Int),
    (Mul24LoU, Int),
    (Mul24HiS, Int),
    (Mul24HiU, Int),
    (DivS, Int),
    (DivU, Int),
    (RemS, Int),
    (RemU, Int),
    (Ineg, Int),
    (And, Int),
    (Or, Int),
    (Xor, Int),
    (Not, Int),
    (Shl, Int),
    (ShrS, Int),
    (ShrU, Int),
    (MinS, Int),
    (MinU, Int),
    (MaxS, Int),
    (MaxU, Int),
    (BfeS, Int),
    (BfeU, Int),
    (Bfi, Int),
    (BfindS, Int),
    (BfindU, Int),
    (Brev, Int),
    (Clz, Int),
    (Popc, Int),
    (Prmt, Int),
    (Lop3, Int),
    (ShfLClamp, Int),
    (ShfLWrap, Int),
    (ShfRClamp, Int),
    (ShfRWrap, Int),
    (Dp4a, Int),
    (Dp2a, Int),
    (Icmp, Compare),
    (Opcode::Select, Family::Select),
    (Fadd, Float),
    (Fsub, Float),
    (Fmul, Float),
    (Ffma, Float),
    (Fneg, Float),
    (Fabs, Float),
    (Fmin, Float),
    (Fmax, Float),
    (Fcmp, Float),
    (Fflush, Float),
    (Fcopysign, Float),
    (Ftestp, Float),
    (Frint, Float),
    (Fdiv, Float),
    (FdivApprox, Float),
    (FdivFull, Float),
    (Frcp, Float),
    (FrcpApprox, Float),
    (Fsqrt, Float),
    (FsqrtApprox, Float),
    (FrsqrtApprox, Float),
    (Fex2Approx, Float),
    (Flg2Approx, Float),
    (FsinApprox, Float),
    (FcosApprox, Float),
    (FtanhApprox, Float),
    (FdivCheck, Float),
    (Opcode::Convert, Family::Convert),
    (Opcode::Fpack, Family::Convert),
    (Load, Memory),
    (Store, Memory),
    (PrefetchL1, Memory),
    (PrefetchL2, Memory),
    (PrefetchL2Last, Memory),
    (ToGeneric, Memory),
    (FromGeneric, Memory),
    (IsSpace, Memory),
    (Ldmatrix, Warp),
    (Movmatrix, Tensor),
    (MmaInt, Tensor),
    (MmaF16, Tensor),
    (MmaIntM16n8, Tensor),
    (Mma884, Tensor),
    (MmaF64, Tensor),
    (Atom, Atomic),
    (Shfl, Warp),
    (VoteAll, Warp),
    (VoteAny, Warp),
    (VoteUni, Warp),
    (VoteBallot, Warp),
    (MatchAny, Warp),
    (MatchAll, Warp),
    (Activemask, Warp),
    (Redux, Warp),
    (BarSync, Barrier),
    (BarArrive, Barrier),
    (BarRedPopc, Barrier),
    (BarRedAnd, Barrier),
    (BarRedOr, Barrier),
    (Fence, Barrier),
    (L1Invalidate, Barrier),
    (ClusterArrive, Barrier),
    (ClusterWait, Barrier),
    (FenceProxyAsync, Barrier),
    (Wgmma, Tensor),
    (WgmmaFence, Tensor),
    (WgmmaCommit, Tensor),
    (WgmmaWait, Tensor),
    (Stmatrix, Warp),
    (Elect, Warp),
    (CpAsync, AsyncCopy),
    (CpAsyncCommit, AsyncCopy),
    (BulkCopy, AsyncCopy),
    (TmaLoad, AsyncCopy),
    (TmaStore, AsyncCopy),
    (BulkCommit, AsyncCopy),
    (BulkWait, AsyncCopy),
    (CpAsyncWait, AsyncCopy),
    (CpAsyncArrive, AsyncCopy),
    (MbarArrive, Mbarrier),
    (MbarInit, Mbarrier),
    (MbarPhaseTest, Mbarrier),
    (Nanosleep, Barrier),
    (Jump, Control),
    (Brif, Control),
    (Exit, Control),
    (Trap, Control),
    (CallDriver, Call),
    (CallFunc, Call),
    (ArgArea, Call),
    (Return, Control),
];

/// The family of `op`.
pub fn family(op: Opcode) -> Family {
    TABLE.iter().find(|(o, _)| *o == op).map_or(Control, |(_, f)| *f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_opcode_has_a_family() {
        for info in ptxc_mir::ir::opcode::OPCODES {
            assert!(TABLE.iter().any(|(o, _)| *o == info.op), "{} has no family", info.name);
        }
    }
}
