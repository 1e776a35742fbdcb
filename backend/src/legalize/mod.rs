//! MIR-to-MIR legalization before instruction selection: every MIR instruction that SASS
//! cannot compute with a short straight-line sequence is rewritten into simpler MIR
//! instructions (possibly in new blocks: a fast path and an out-of-line slow path) whose
//! selection is direct. The result is ordinary MIR, so the MIR interpreter runs it and the
//! expansions are tested against the interpreter's exact semantics of the original op.
//!
//! Expansions (one file each):
//! - `contract`: `fmul` + `fadd` without rounding modifiers into `ffma` (ptxas's default
//!   contraction), unless disabled;
//! - `approx`: approximate functions without `.ftz` (input scaling around one MUFU), and
//!   `div.approx` / `div.full`;
//! - `fdiv32`: f32 `div.rn`, `rcp.rn`, `sqrt.rn` (Newton-Raphson fast path, FCHK or
//!   exponent checks, exact slow path through f64);
//! - `fp64`: f64 `div.rn`, `rcp.rn`, `sqrt.rn` and the f64 approximations;
//! - `intdiv`: integer division and remainder;
//! - `f64bits`: f64 `min`/`max`, `testp` and saturation on compares and selects;
//! - `intsat`: saturating integer conversions with a 64-bit side;
//! - `cvtftz`: `cvt.ftz.f32.f64` (flushed when tiny after rounding, as ptxas does);
//! - `atomics`: float additions in shared memory (a compare-and-swap loop);
//! - `bitfield64`: 64-bit bit-field extract and insert;
//! - `subnormal` (shared by the f64 slow paths): exact scaling of a result computed in a
//!   safe exponent range, with the rounding of subnormal results done on the integers.
//!
//! Before them, `zero_adds` removes additions of zero (of a shared variable at offset 0,
//! say), given the kernel's variable layout.
//!
//! After legalization the back end runs `wide_loads` (`compile_kernel`): neighbouring
//! 32-bit shared loads become 64- and 128-bit ones where their alignment is provable.
//!
//! Last, `loop_entry` gives a loop header that several blocks outside the loop enter an
//! entry block of its own (where a branch before the loop reconverges).

mod approx;
mod atomics;
mod bitfield64;
mod builder;
pub use builder::Subroutine;
mod contract;
mod cvtftz;
mod f64bits;
mod fdiv32;
mod fp64;
mod intdiv;
mod intsat;
mod loop_entry;
mod subnormal;
pub mod wide_loads;
pub mod zero_adds;

pub use builder::Builder;

use ptxc_mir::ir::{Block, Function, Inst, InstData, Opcode};

/// Options of the legalization.
#[derive(Clone, Copy, Debug)]
pub struct LegalizeOptions {
    /// Contract `fmul` + `fadd` without rounding modifiers into `ffma`.
    pub fmad: bool,
}

impl Default for LegalizeOptions {
    fn default() -> Self {
        LegalizeOptions { fmad: true }
    }
}

/// An expansion: appends instructions computing the value of `data` and returns it, or
/// returns `None` without appending anything when it does not handle `data`.
type Expand = fn(&mut Builder, &InstData) -> Option<ptxc_mir::ir::Value>;

/// The expansions, tried in order.
const EXPANSIONS: &[Expand] = &[
    approx::expand,
    atomics::expand,
    bitfield64::expand,
    cvtftz::expand,
    f64bits::expand,
    fdiv32::expand,
    fp64::expand,
    intdiv::expand,
    intsat::expand,
];

/// Legalizes `func` in place. The instructions an expansion creates are scanned too (an
/// expansion may use operations another one expands), in blocks laid out after the current
/// one or at the end.
///
/// Returns the slow paths made subroutines ([`Subroutine`]).
pub fn legalize(func: &mut Function, opts: &LegalizeOptions) -> Vec<Subroutine> {
    if opts.fmad {
        contract::run(func);
    }
    let mut subroutines = Vec::new();
    let mut bi = 0;
    while bi < func.layout.len() {
        let block = func.layout[bi];
        let mut ii = 0;
        while ii < func.blocks[block].insts.len() {
            let inst = func.blocks[block].insts[ii];
            if !expand_at(func, block, ii, inst, &mut subroutines) {
                ii += 1;
            }
        }
        bi += 1;
    }
    loop_entry::run(func);
    subroutines
}

/// Tries every expansion on the instruction at index `at` of `block`; on success the
/// instruction becomes a `copy` of the expansion's value, placed in the block where the
/// expansion ended with the instructions that followed it.
fn expand_at(func: &mut Function, block: Block, at: usize, inst: Inst, subroutines: &mut Vec<Subroutine>) -> bool {
    let data = func.insts[inst].clone();
    if data.op.is_terminator() || data.op == Opcode::Copy {
        return false;
    }
    let rest = func.blocks[block].insts.split_off(at);
    // The expansion's instructions stand at the expanded instruction's source position.
    func.cur_srcloc = func.srclocs[inst];
    let mut b = Builder::new(func, block);
    let value = EXPANSIONS.iter().find_map(|e| e(&mut b, &data));
    let (end, created) = (b.block, std::mem::take(&mut b.created));
    let called = std::mem::take(&mut b.subroutines);
    func.cur_srcloc = ptxc_mir::ir::SrcLoc::NONE;
    let Some(value) = value else {
        func.blocks[block].insts.extend(rest);
        return false;
    };
    let ty = func.ty(func.results[inst][0]);
    func.insts[inst] = InstData {
        op: Opcode::Copy,
        ty,
        args: [value].into_iter().collect(),
        aux: ptxc_mir::ir::Aux::None,
    };
    func.blocks[end].insts.extend(rest);
    place_blocks(func, block, &created);
    subroutines.extend(called);
    true
}

/// Lays out the blocks an expansion of an instruction of `block` created: hot ones right
/// after `block` in creation order, cold ones at the end of the function.
fn place_blocks(func: &mut Function, block: Block, created: &[(Block, bool)]) {
    let pos = func.layout.iter().position(|&b| b == block).expect("laid out");
    let hot: Vec<Block> = created.iter().filter(|c| !c.1).map(|c| c.0).collect();
    func.layout.splice(pos + 1..pos + 1, hot);
    func.layout.extend(created.iter().filter(|c| c.1).map(|c| c.0));
}
