//! Zeroing in pairs, after allocation: within a block, two zeroing moves of an aligned
//! register pair (`R2k`, `R2k+1`) with no access to either between them become one
//! `CS2R R2k, SRZ`, as ptxas zeroes accumulators. A `MOV Rd, Rs` whose source is known to
//! hold zero counts as a zeroing move (and is one when it pairs; unpaired it stays as it
//! was, so no dependence moves) (an MMA kernel's 32 accumulator registers take 16 instructions
//! instead of 32). A control instruction (branch, call, exit, barrier; not a convergence
//! barrier's set-up) ends the search: a zeroing never moves across one.

use crate::emit::CodeBlock;
use ptxc_sass::isa::access::{Reg, accesses};
use ptxc_sass::isa::desc::Pipe;
use ptxc_sass::isa::make::make;
use ptxc_sass::isa::{Arch, Inst, Mod, Op, Operand, RZ, Role, Value};
use rustc_hash::FxHashSet as HashSet;

/// SRZ, the special register that reads as zero.
const SRZ: u8 = 0xff;

/// Rewrites the zeroing moves of every block; returns how many instructions it removed.
pub fn run(blocks: &mut [CodeBlock], arch: Arch) -> usize {
    let mut removed = 0;
    for block in blocks {
        let originals = copies_of_zero_as_zeroes(block, arch);
        removed += pair_up(block, arch, originals);
    }
    removed
}

/// The register an unguarded `MOV Rd, 0x0` (or `MOV Rd, RZ`) zeroes.
fn zeroed(inst: &Inst) -> Option<u8> {
    if inst.desc().op != Op::Mov || !inst.unguarded() {
        return None;
    }
    let Value::Reg(d) = inst.get(Role::Dst)?.value else {
        return None;
    };
    match inst.get(Role::B)?.value {
        Value::Imm(0) => Some(d),
        Value::Reg(RZ) => Some(d),
        _ => None,
    }
}

/// True for instructions no zeroing may move across or be tracked through. A convergence
/// barrier's set-up (`BMOV.32.CLEAR`, `BSSY`) transfers no control: the block's moves on
/// either side of it run for the same threads (its register accesses count as any other's).
fn is_control(inst: &Inst) -> bool {
    let barrier_setup = matches!(inst.desc().op, Op::Bssy | Op::Bmov);
    !barrier_setup && (inst.desc().meta.pipe == Pipe::Branch || inst.desc().meta.terminator)
}

/// `MOV Rd, Rs` with `Rs` holding zero (set earlier in the block) becomes `MOV Rd, 0x0`;
/// returns, per instruction, the original of each rewritten one.
fn copies_of_zero_as_zeroes(block: &mut CodeBlock, arch: Arch) -> Vec<Option<Inst>> {
    let mut zero: HashSet<u8> = HashSet::default();
    let mut originals = vec![None; block.insts.len()];
    for (k, e) in block.insts.iter_mut().enumerate() {
        if is_control(&e.inst) {
            zero.clear();
            continue;
        }
        let copy_of_zero = match (e.inst.desc().op, e.inst.get(Role::Dst), e.inst.get(Role::B)) {
            (Op::Mov, Some(d), Some(s)) if e.inst.unguarded() => match (d.value, s.value) {
                (Value::Reg(d), Value::Reg(s)) if zero.contains(&s) => Some(d),
                _ => None,
            },
            _ => None,
        };
        if let Some(d) = copy_of_zero
            && let Ok(mut mov) = make(
                arch,
                Op::Mov,
                &[(Role::Dst, Operand::reg(d)), (Role::B, Operand::imm(0))],
                &[],
            )
        {
            mov.ctrl = e.inst.ctrl;
            originals[k] = Some(std::mem::replace(&mut e.inst, mov));
        }
        for w in accesses(&e.inst).writes {
            if let Reg::R(r) = w.reg {
                zero.remove(&r);
            }
        }
        if let Some(d) = zeroed(&e.inst) {
            zero.insert(d);
        }
    }
    originals
}

/// True if `inst` reads or writes register `r` (its guard excluded: predicates only).
fn touches(inst: &Inst, r: u8) -> bool {
    let a = accesses(inst);
    a.reads.iter().chain(a.writes.iter()).any(|x| x.reg == Reg::R(r))
}

/// Merges the zeroing moves of aligned pairs into CS2R and restores the rewritten copies
/// (`originals`) that found no partner; returns how many moves it removed.
fn pair_up(block: &mut CodeBlock, arch: Arch, mut originals: Vec<Option<Inst>>) -> usize {
    let mut removed = 0;
    let mut i = 0;
    while i < block.insts.len() {
        let Some(r) = zeroed(&block.insts[i].inst) else {
            i += 1;
            continue;
        };
        let (base, partner) = (r & !1, r ^ 1);
        if r == RZ || partner == RZ {
            if let Some(original) = originals[i].take() {
                block.insts[i].inst = original;
            }
            i += 1;
            continue;
        }
        let mut j = i + 1;
        let found = loop {
            let Some(e) = block.insts.get(j) else { break None };
            if is_control(&e.inst) {
                break None;
            }
            if zeroed(&e.inst) == Some(partner) {
                break Some(j);
            }
            if touches(&e.inst, r) || touches(&e.inst, partner) {
                break None;
            }
            j += 1;
        };
        if let Some(j) = found
            && let Ok(mut cs2r) = make(
                arch,
                Op::Cs2r,
                &[
                    (Role::Dst, Operand::reg(base)),
                    (Role::A, Operand::new(Value::SReg(SRZ))),
                ],
                &[Mod::Wide.flag(true)],
            )
        {
            cs2r.ctrl = block.insts[i].inst.ctrl;
            block.insts[i].inst = cs2r;
            block.insts.remove(j);
            originals.remove(j);
            removed += 1;
        } else if let Some(original) = originals[i].take() {
            block.insts[i].inst = original;
        }
        i += 1;
    }
    removed
}
