//! Kernel attributes that follow from the emitted code, written as ptxas 13.5 writes them
//! (`docs/CUBIN.md`, section 4): `EIATTR_SYSCALL_OFFSETS`, `EIATTR_COOP_GROUP_INSTR_OFFSETS` with
//! `EIATTR_COOP_GROUP_MASK_REGIDS`, `EIATTR_CRS_STACK_SIZE`, `EIATTR_CTAIDZ_USED` and
//! `EIATTR_UNUSED_LOAD_BYTE_OFFSET` (`EIATTR_INT_WARP_WIDE_INSTR_OFFSETS` is the list of
//! instructions marked inserted, `emit::layout::Assembled::warp_wide_offsets`).

use crate::emit::layout::Assembled;
use ptxc_mir::analysis::divergence::Divergence;
use ptxc_mir::ir::{Block, Function, Opcode, SrcLoc};
use ptxc_sass::isa::desc::OpKind;
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
    /// The driver functions the kernel calls (`EIATTR_EXTERNS`), in order of first call.
    pub driver_calls: Vec<ptxc_mir::ir::DriverFn>,
}

impl MirFacts {
    /// The facts of kernel `f` with its device functions.
    pub fn of(f: &Function) -> MirFacts {
        let all = || std::iter::once(f).chain(&f.callees);
        let has = |ops: &[Opcode]| all().any(|g| g.insts.values().any(|d| ops.contains(&d.op)));
        let mut driver_calls = Vec::new();
        for d in all().flat_map(crate::vars::driver_calls) {
            if !driver_calls.contains(&d) {
                driver_calls.push(d);
            }
        }
        MirFacts {
            activemask: has(&[Opcode::Activemask]),
            votes: has(&[Opcode::VoteAll, Opcode::VoteAny, Opcode::VoteUni, Opcode::VoteBallot]),
            driver_calls,
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
/// is not listed). Besides the warp-wide instructions it inserts itself (`inserted`, listed in
/// `EIATTR_INT_WARP_WIDE_INSTR_OFFSETS` instead), ptxc emits SHFL, VOTE and MATCH only for
/// warp operations; a VOTE of the constant-true predicate is `activemask` unless the kernel
/// has no `activemask` but votes.
pub fn coop_group_offsets(f: &MirFacts, insts: &[Inst], inserted: &[u32]) -> Vec<u32> {
    let (activemask, votes) = (f.activemask, f.votes);
    insts
        .iter()
        .enumerate()
        .filter(|(n, _)| inserted.binary_search(&(16 * *n as u32)).is_err())
        .filter(|(_, i)| match i.desc().op {
            Op::Shfl | Op::Match => true,
            Op::Vote => votes && (!activemask || !votes_pt(i)),
            _ => false,
        })
        .map(|(n, _)| 16 * n as u32)
        .collect()
}

/// `EIATTR_CRS_STACK_SIZE` (always 0): ptxas 13.5 writes it for a kernel whose code has a
/// convergence barrier (`BSSY`), a `WARPSYNC` or a call of a subroutine (`CALL.REL`; a
/// `CALL.ABS` of a driver function such as `vprintf` does not count), and for a divergent
/// loop (one a divergent branch leaves), whose barrier ptxas drops when the loop's join is
/// the exit (`docs/CUBIN.md`, section 4). `divergent_loop`: the divergence analysis found
/// such a loop in the kernel.
pub fn crs_stack_size(insts: &[Inst], divergent_loop: bool) -> Option<u32> {
    (converges(insts) || divergent_loop).then_some(0)
}

/// Whether `func` has a divergent loop in the sense of [`crs_stack_size`]: a loop a divergent
/// branch leaves, except where every such exit goes to a block that only jumps to the
/// kernel's exit. That is PTX's `@p bra head; bra.uni end;` with `end: ret`, which ptxas
/// compiles to `@!P0 EXIT; BRA head` (no conditional branch back) and gives no attribute,
/// where `@p bra head;` falling through to `ret` keeps its conditional branch back and gets
/// it (`docs/CUBIN.md`, section 4: the Kokkos `copy_constrained_values` and `ViewCopy`
/// kernels).
pub fn has_divergent_loop(func: &Function, divergence: &Divergence) -> bool {
    let jumps_to_exit = |b: Block| match func.blocks[b].insts.as_slice() {
        &[jump] => {
            let data = &func.insts[jump];
            data.op == Opcode::Jump && data.targets().first().is_some_and(|t| func.only_exits(t.block))
        }
        _ => false,
    };
    divergence.divergent_exits().iter().any(|&(_, to)| !jumps_to_exit(to))
}

/// Whether the code has a convergence barrier (`BSSY`), a `WARPSYNC` or a subroutine call
/// (`CALL.REL`): ptxas writes `EIATTR_CRS_STACK_SIZE` for every such kernel of its own.
pub fn converges(insts: &[Inst]) -> bool {
    insts.iter().any(|i| match i.desc().op {
        Op::Bssy | Op::Warpsync => true,
        Op::Call => calls_relative(i),
        _ => false,
    })
}

/// Whether the code has a loop whose latch is a conditional backward branch: what every
/// divergent loop of ptxas's code has (tests check ptxas's attribute against it).
pub fn loops_conditionally(insts: &[Inst]) -> bool {
    insts
        .iter()
        .any(|i| i.desc().op == Op::Bra && !i.unguarded() && branches_back(i))
}

/// Whether a `CALL` names its target relative to itself (`CALL.REL`: a subroutine of the
/// same module) rather than by absolute address (`CALL.ABS`: a driver function).
fn calls_relative(inst: &Inst) -> bool {
    inst.desc()
        .operands
        .iter()
        .any(|o| matches!(o.kind, OpKind::Rel { .. }))
}

/// Whether a branch goes to itself or an earlier instruction (offsets count from the next).
fn branches_back(inst: &Inst) -> bool {
    inst.operands.iter().any(|o| matches!(o.value, Value::Rel(r) if r < 0))
}

/// `EIATTR_SYSCALL_OFFSETS`: the byte offset of every call of a function the driver
/// provides (`CALL.ABS`; not the `CALL.REL` of a slow path).
pub fn syscall_offsets(insts: &[Inst]) -> Vec<u32> {
    insts
        .iter()
        .enumerate()
        .filter(|(_, i)| i.desc().op == Op::Call && !calls_relative(i))
        .map(|(n, _)| 16 * n as u32)
        .collect()
}

/// The special-register number of `SR_CTAID.Z` (`sass/src/isa/sm75/misc.rs`).
const SR_CTAID_Z: u8 = 0x27;

/// `EIATTR_CTAIDZ_USED`: ptxas 13.5 writes it exactly for the kernels whose code reads
/// `SR_CTAID.Z` (`S2R` or `S2UR`); a PTX read of `%ctaid.z` whose value is unused leaves no
/// read and no attribute (`docs/CUBIN.md`, section 4).
pub fn ctaid_z_used(insts: &[Inst]) -> bool {
    insts
        .iter()
        .any(|i| i.operands.iter().any(|o| o.value == Value::SReg(SR_CTAID_Z)))
}

/// `EIATTR_UNUSED_LOAD_BYTE_OFFSET`: ptxas 13.5 lists each load of several registers (`LDG`,
/// `LDS`, `LD`) that the code does not read in full, in code order, with the mask of the
/// bytes read, 4 bits per register (`docs/CUBIN.md`, section 4). `partly_used` names the
/// PTX loads isel found so (their elements' uses); each becomes one entry at the load
/// instruction selected from it, if exactly one carries its position.
pub fn unused_load_bytes(partly_used: &[(SrcLoc, u32)], code: &Assembled) -> Vec<[u32; 2]> {
    let is_load = |n: usize| matches!(code.insts[n].desc().op, Op::Ldg | Op::Lds | Op::Ld);
    let mut out: Vec<[u32; 2]> = partly_used
        .iter()
        .filter_map(|&(loc, mask)| {
            let mut at = (0..code.insts.len()).filter(|&n| is_load(n) && code.srclocs.get(n) == Some(&loc));
            match (at.next(), at.next()) {
                (Some(n), None) => Some([16 * n as u32, mask]),
                _ => None,
            }
        })
        .collect();
    out.sort_unstable();
    out
}
