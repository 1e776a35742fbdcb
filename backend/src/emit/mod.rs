//! From allocated VCode to SASS: operands get their physical registers, pseudo-instructions
//! and regalloc2's moves expand into real instructions, branches to the next block
//! disappear. The result is a list of blocks of `isa::Inst` that the scheduler annotates
//! with control codes and [`layout`] turns into bytes.

mod branches;
mod call;
mod expand;
mod function;
pub mod layout;
pub mod pipe_balance;
pub(crate) mod predicate;
pub mod subroutine;
mod wide;
pub mod zero_pairs;

pub use branches::successors;
pub use call::{CALL_SEQUENCE_REGS, FUNCTION_CALL_REGS, fix_return_addresses};

use crate::regalloc::Allocation;
use crate::vcode::{File, VCode, View};
use ptxc_mir::ir::SrcLoc;
use ptxc_sass::isa::Inst;
use regalloc2 as ra;
use rustc_hash::FxHashMap as HashMap;

/// Why emission failed (a back-end bug or an unencodable operand combination).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("kernel `{kernel}`: cannot emit {what}")]
pub struct EmitError {
    /// The kernel.
    pub kernel: String,
    /// What could not be emitted.
    pub what: String,
}

/// One emitted instruction; branches remember their target block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Emitted {
    /// The instruction (control code still default).
    pub inst: Inst,
    /// Target block of a branch.
    pub target: Option<usize>,
    /// The PTX instruction it comes from (for line tables), if known.
    pub srcloc: SrcLoc,
    /// A warp-wide instruction the compiler inserted (`MInst::warp_wide`).
    pub warp_wide: bool,
    /// The register operand of a slow path's return address (`MOV`s and `RET`): the slow
    /// path's number and the pair's component, filled in after allocation
    /// ([`subroutine::assign_return_pairs`]).
    pub return_pair: Option<(u16, u8)>,
    /// A call of the kernel's device function `n` (`CALL.REL`): the layout writes the
    /// offset to its start ([`layout::Placement`]).
    pub callee: Option<u32>,
}

impl Emitted {
    /// `inst` alone: no branch target, source position, warp-wide mark or return pair.
    pub fn new(inst: Inst) -> Emitted {
        Emitted {
            inst,
            target: None,
            srcloc: SrcLoc::NONE,
            warp_wide: false,
            return_pair: None,
            callee: None,
        }
    }
}

/// The highest general register any of `insts` reads or writes.
pub fn highest_gpr<'a>(insts: impl IntoIterator<Item = &'a Inst>) -> Option<u32> {
    use ptxc_sass::isa::access::{Reg, accesses};
    insts
        .into_iter()
        .flat_map(|i| {
            let a = accesses(i);
            a.reads.into_iter().chain(a.writes)
        })
        .filter_map(|a| match a.reg {
            Reg::R(r) => Some(r as u32),
            Reg::P(_) | Reg::UR(_) | Reg::UP(_) => None,
        })
        .max()
}

/// A block of final code. Control leaves through its branches (whose targets are block
/// indexes) or falls through to the next non-empty block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CodeBlock {
    /// Instructions in order.
    pub insts: Vec<Emitted>,
}

/// The physical locations of one instruction's register operands.
pub type Locations = HashMap<crate::vcode::VReg, ra::Allocation>;

/// Emits the allocated function as blocks of SASS; `predicate`: short branches become
/// guarded code (`predicate.rs`).
pub fn emit(vcode: &VCode, alloc: &Allocation, predicate: bool) -> Result<Emission, EmitError> {
    let gpr_view = View::new(vcode, File::Gpr);
    let pred_view = View::new(vcode, File::Pred);
    let uniform_view = alloc.uniform.as_ref().map(|_| View::new(vcode, File::Uniform));
    let mut ex = expand::Expander {
        vcode,
        regions: alloc.regions,
        out: Vec::new(),
        frame: alloc.frame,
        spill_bytes: (0, 0),
    };
    ex.prologue()?;
    let mut files = vec![(&gpr_view, &alloc.gpr), (&pred_view, &alloc.pred)];
    if let (Some(v), Some(out)) = (&uniform_view, &alloc.uniform) {
        files.push((v, out));
    }
    let mut blocks = Vec::with_capacity(vcode.blocks.len());
    let mut gpr_edits = alloc.gpr.edits.iter().peekable();
    let mut pred_edits = alloc.pred.edits.iter().peekable();
    let mut uniform_edits = alloc.uniform.iter().flat_map(|u| u.edits.iter()).peekable();
    for (b, blk) in vcode.blocks.iter().enumerate() {
        for i in blk.start..blk.end {
            let inst = ra::Inst::new(i as usize);
            for point in [ra::ProgPoint::before(inst), ra::ProgPoint::after(inst)] {
                if point == ra::ProgPoint::after(inst) {
                    let locs = locations(&files, inst);
                    let (minst, start) = (&vcode.insts[i as usize], ex.out.len());
                    ex.inst(minst, &locs, b)?;
                    ex.out[start..].iter_mut().for_each(|e| {
                        e.srcloc = minst.srcloc;
                        e.warp_wide = minst.warp_wide;
                    });
                }
                while let Some((_, ra::Edit::Move { from, to })) = gpr_edits.next_if(|(p, _)| *p == point) {
                    ex.gpr_move(*from, *to)?;
                }
                while let Some((_, ra::Edit::Move { from, to })) = pred_edits.next_if(|(p, _)| *p == point) {
                    ex.pred_move(*from, *to)?;
                }
                while let Some((_, ra::Edit::Move { from, to })) = uniform_edits.next_if(|(p, _)| *p == point) {
                    ex.uniform_move(*from, *to)?;
                }
            }
        }
        let insts = std::mem::take(&mut ex.out);
        blocks.push(CodeBlock { insts });
    }
    branches::simplify(&mut blocks);
    if predicate {
        predicate::predicate_short_branches(&mut blocks);
    }
    Ok(Emission {
        blocks,
        spill_stores: ex.spill_bytes.0,
        spill_loads: ex.spill_bytes.1,
    })
}

/// Emitted code and what its spill code moves.
pub struct Emission {
    /// The blocks.
    pub blocks: Vec<CodeBlock>,
    /// Bytes written by spill stores (counted once per instruction, as ptxas counts).
    pub spill_stores: u32,
    /// Bytes read by spill reloads.
    pub spill_loads: u32,
}

/// Allocations of every register operand of `inst` in every allocated register file.
fn locations(files: &[(&View, &ra::Output)], inst: ra::Inst) -> Locations {
    use ra::Function;
    let mut m = Locations::default();
    for &(view, out) in files {
        for (op, a) in view.inst_operands(inst).iter().zip(out.inst_allocs(inst)) {
            m.insert(crate::vcode::VReg(op.vreg().vreg() as u32), *a);
        }
    }
    m
}
