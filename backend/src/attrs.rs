//! Kernel attributes that follow from the emitted code, written as ptxas 13.5 writes them
//! (`docs/CUBIN.md`, section 4): `EIATTR_SYSCALL_OFFSETS`, `EIATTR_COOP_GROUP_INSTR_OFFSETS` with
//! `EIATTR_COOP_GROUP_MASK_REGIDS`, and `EIATTR_CRS_STACK_SIZE`.

use ptxc_mir::ir::{Function, Opcode};
use ptxc_sass::isa::{Inst, Op, Role, Value};

/// The mask "register id" ptxas records for a warp-synchronous instruction whose member
/// mask it does not keep in a register (every full-mask `.sync` operation examined, and
/// SHFL whatever its mask).
pub const NO_MASK_REGISTER: u32 = 0xffff_ffff;

/// What the attributes need to know of a kernel's MIR (taken before compilation consumes it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MirFacts {
    /// The kernel uses `activemask`.
    pub activemask: bool,
    /// The kernel has a `vote`.
    pub votes: bool,
    /// The kernel calls device functions (ptxc inlines them; ptxas calls them).
    pub calls_functions: bool,
    /// The driver functions the kernel calls (`EIATTR_EXTERNS`), in order of first call.
    pub driver_calls: Vec<ptxc_mir::ir::DriverFn>,
}

impl MirFacts {
    /// The facts of `f`.
    pub fn of(f: &Function) -> MirFacts {
        let has = |ops: &[Opcode]| f.insts.values().any(|d| ops.contains(&d.op));
        MirFacts {
            activemask: has(&[Opcode::Activemask]),
            votes: has(&[Opcode::VoteAll, Opcode::VoteAny, Opcode::VoteUni, Opcode::VoteBallot]),
            calls_functions: f.calls_functions,
            driver_calls: crate::vars::driver_calls(f),
        }
    }
}

/// Whether a VOTE reads the constant-true predicate (`VOTE.ANY R, PT, PT`: the active mask,
/// or a vote of the constant 1).
fn votes_pt(inst: &Inst) -> bool {
    let i = inst.desc().operand_index(Role::PredSrc0);
    i.is_some_and(|i| inst.operands[i].value == Value::Pred { idx: 7, neg: false })
}

/// Byte offsets of the instructions that implement PTX `shfl.sync`, `vote.sync` and
/// `match.sync` (ptxas lists these in `EIATTR_COOP_GROUP_INSTR_OFFSETS`; `activemask`'s VOTE
/// is not listed). ptxc emits SHFL, VOTE and MATCH only for warp operations; a VOTE of the
/// constant-true predicate is `activemask` unless the kernel has no `activemask` but votes.
pub fn coop_group_offsets(f: &MirFacts, insts: &[Inst]) -> Vec<u32> {
    let (activemask, votes) = (f.activemask, f.votes);
    insts
        .iter()
        .enumerate()
        .filter(|(_, i)| match i.desc().op {
            Op::Shfl | Op::Match => true,
            Op::Vote => votes && (!activemask || !votes_pt(i)),
            _ => false,
        })
        .map(|(n, _)| 16 * n as u32)
        .collect()
}

/// `EIATTR_CRS_STACK_SIZE`: ptxas 13.5 writes 0 for the kernels whose code saves or uses the
/// convergence state (BSSY with BMOV, WARPSYNC) or calls subroutines. ptxc inlines the
/// device functions a kernel calls, where ptxas calls them: such a kernel gets the attribute
/// too, and otherwise the BSSY and WARPSYNC ptxc emits decide.
pub fn crs_stack_size(f: &MirFacts, insts: &[Inst]) -> Option<u32> {
    let converges = insts
        .iter()
        .any(|i| matches!(i.desc().op, Op::Bssy | Op::Warpsync | Op::Call));
    (f.calls_functions || converges).then_some(0)
}

/// `EIATTR_SYSCALL_OFFSETS`: the byte offset of every `CALL` (ptxc calls only the
/// functions the driver provides).
pub fn syscall_offsets(insts: &[Inst]) -> Vec<u32> {
    insts
        .iter()
        .enumerate()
        .filter(|(_, i)| i.desc().op == Op::Call)
        .map(|(n, _)| 16 * n as u32)
        .collect()
}
