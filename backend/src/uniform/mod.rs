//! The uniform datapath: warp-uniform 32-bit values move from general registers to the
//! uniform registers (UR0..UR62), computed by the uniform instructions (`UMOV`, `ULDC`,
//! `UIADD3`, `ULOP3`, `USHF`, `UIMAD`, `ULEA`, ...) and read by vector instructions in the
//! operand slots that take a uniform register, and by memory accesses as the uniform part
//! of the address (`[R+UR]`, `[R.X4+UR]`; `fold.rs`), as ptxas does.
//!
//! A value is promoted when (fixed point over the candidates):
//! - it is a single register defined by one unguarded instruction with a uniform form
//!   whose register sources are promoted too, or a block parameter all of whose arguments
//!   are promoted;
//! - its definition and every read sit in blocks the warp runs converged
//!   (`converged.rs`), which is where the allocator's liveness is the warp's;
//! - every read has a slot for it: a promoted instruction, a vector instruction's operand
//!   that takes a uniform register, or a block argument (of a general-register parameter,
//!   through a `MOV R, UR` before the jump).
//!
//! Only 32-bit values are promoted, and uniformity follows from their sources, without
//! the divergence analysis: constants, constant-bank words, the uniform special registers
//! (`uniform_special_register`), what is computed from them, and block parameters merging
//! such values in converged blocks. Kernels with calls keep general registers (the call
//! sequence saves only those); kernels that call slow paths as subroutines promote only
//! their parameter pointers (`pointers.rs`).

mod converged;
mod fold;
mod pointers;

use crate::vcode::{BlockId, MInst, MKind, MOp, Slot, SrcMods, VClass, VCode, VReg};
use ptxc_sass::isa::make::make;
use ptxc_sass::isa::{Arch, Mod, Op, Operand, RZ, Role, URZ, Value as V};
use rustc_hash::FxHashMap as HashMap;
use smallvec::SmallVec;

/// Most rounds of the candidate fixed point before giving up on the kernel.
const MAX_ROUNDS: usize = 64;

/// Where a value is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Use {
    /// By instruction `inst` (a flat index), in block `block`.
    Inst { inst: usize, block: usize },
    /// As argument `arg` of successor `succ` of block `block`.
    Arg { block: usize, succ: usize, arg: usize },
}

/// How a value is defined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Def {
    /// By instruction `inst` in block `block`.
    Inst { inst: usize, block: usize },
    /// As parameter `index` of block `block`.
    Param { block: usize, index: usize },
}

/// Where every value is read.
type Uses = HashMap<VReg, SmallVec<[Use; 4]>>;

/// The values still candidates for promotion.
type Candidates = rustc_hash::FxHashSet<VReg>;

/// Moves the uniform values of `vcode` to uniform registers.
pub fn promote(vcode: &mut VCode) {
    // Calls keep general registers and predicates across them, not uniform registers; and
    // a device function must leave its callers' uniform registers alone.
    if vcode.device_function || vcode.insts.iter().any(|i| i.is_call()) {
        return;
    }
    let converged = converged::converged_blocks(vcode);
    pointers::promote_pointers(vcode, &converged);
    if vcode.insts.iter().any(|i| matches!(i.kind, MKind::SubCall(_))) {
        return;
    }
    let (defs, uses) = defs_and_uses(vcode);
    let Some(chosen) = choose(vcode, &converged, &defs, &uses) else {
        return;
    };
    if chosen.is_empty() {
        return;
    }
    rewrite(vcode, &chosen, &defs, &uses);
    fold::fold_addresses(vcode, &converged);
}

/// The definition and the reads of every single register.
fn defs_and_uses(vcode: &VCode) -> (HashMap<VReg, Def>, Uses) {
    let mut defs = HashMap::default();
    let mut uses: Uses = HashMap::default();
    let mut multiply_defined = Vec::new();
    for (b, blk) in vcode.blocks.iter().enumerate() {
        for (index, &p) in blk.params.iter().enumerate() {
            defs.insert(p, Def::Param { block: b, index });
        }
        for i in blk.start as usize..blk.end as usize {
            vcode.insts[i].for_each_reg(|v, is_def| {
                if is_def {
                    if defs.insert(v, Def::Inst { inst: i, block: b }).is_some() {
                        multiply_defined.push(v);
                    }
                } else {
                    uses.entry(v).or_default().push(Use::Inst { inst: i, block: b });
                }
            });
        }
        for (succ, args) in blk.succ_args.iter().enumerate() {
            for (arg, &v) in args.iter().enumerate() {
                uses.entry(v).or_default().push(Use::Arg { block: b, succ, arg });
            }
        }
    }
    for v in multiply_defined {
        defs.remove(&v);
    }
    (defs, uses)
}

/// The values to promote; None if the fixed point does not settle.
fn choose(vcode: &VCode, converged: &[bool], defs: &HashMap<VReg, Def>, uses: &Uses) -> Option<Vec<VReg>> {
    let mut cand = Candidates::default();
    for (&v, &d) in defs {
        if vcode.class(v) != VClass::Single {
            continue;
        }
        let ok = match d {
            Def::Param { block, .. } => converged[block],
            Def::Inst { inst, block } => converged[block] && uniform_op(vcode.arch, &vcode.insts[inst]).is_some(),
        };
        if ok {
            cand.insert(v);
        }
    }
    // The definitions first (to their fixed point: a value is definable while its sources
    // are), then the reads of what is left, which may drop more.
    for _ in 0..MAX_ROUNDS {
        drop_where(&mut cand, |v, cand| match defs[&v] {
            Def::Param { block, index } => vcode.blocks[block]
                .preds
                .iter()
                .all(|&p| arg_into(vcode, p.0 as usize, block, index).is_some_and(|a| cand.contains(&a))),
            Def::Inst { inst, .. } => encodable(vcode, &vcode.insts[inst], true, &|r| cand.contains(&r)),
        });
        let mut changed = drop_where(&mut cand, |v, cand| {
            uses.get(&v).is_none_or(|us| {
                us.iter()
                    .all(|&u| readable(vcode, converged, defs, u, v, |r| cand.contains(&r)))
            })
        });
        if !changed {
            changed = prune_copied_only(vcode, &mut cand, uses);
        }
        if !changed {
            let mut chosen: Vec<VReg> = cand.into_iter().collect();
            chosen.sort_unstable();
            return Some(chosen);
        }
    }
    None
}

/// Drops the candidates for which `keep` fails, judged on the set as it was before this
/// round, until none fails; true if any was dropped.
fn drop_where(cand: &mut Candidates, keep: impl Fn(VReg, &Candidates) -> bool) -> bool {
    let mut dropped = false;
    for _ in 0..MAX_ROUNDS {
        let failing: Vec<VReg> = cand.iter().copied().filter(|&v| !keep(v, cand)).collect();
        if failing.is_empty() {
            break;
        }
        dropped = true;
        for v in failing {
            cand.remove(&v);
        }
    }
    dropped
}

/// Drops the candidates that only go to general-register parameters (each would cost a
/// `MOV R, UR` for nothing); true if any was dropped.
fn prune_copied_only(vcode: &VCode, cand: &mut Candidates, uses: &Uses) -> bool {
    let copied_only = |v: VReg, cand: &Candidates| {
        uses.get(&v).is_none_or(|us| {
            us.iter().all(|&u| match u {
                Use::Arg { block, succ, arg } => {
                    let target = vcode.blocks[block].succs[succ].0 as usize;
                    !cand.contains(&vcode.blocks[target].params[arg])
                }
                Use::Inst { .. } => false,
            })
        })
    };
    let useless: Vec<VReg> = cand.iter().copied().filter(|&v| copied_only(v, cand)).collect();
    for v in &useless {
        cand.remove(v);
    }
    !useless.is_empty()
}

/// The argument block `pred` passes to parameter `index` of `block`.
fn arg_into(vcode: &VCode, pred: usize, block: usize, index: usize) -> Option<VReg> {
    let p = &vcode.blocks[pred];
    let succ = p.succs.iter().position(|s| s.0 as usize == block)?;
    p.succ_args.get(succ)?.get(index).copied()
}

/// True if use `u` of candidate `v` can read a uniform register.
fn readable(
    vcode: &VCode,
    converged: &[bool],
    defs: &HashMap<VReg, Def>,
    u: Use,
    v: VReg,
    is_uniform: impl Fn(VReg) -> bool,
) -> bool {
    match u {
        Use::Arg { block, succ, arg } => {
            let target = vcode.blocks[block].succs[succ].0 as usize;
            let param = vcode.blocks[target].params[arg];
            converged[block]
                && (is_uniform(param)
                    || matches!(
                        vcode.block_insts(BlockId(block as u32)).last().map(|i| &i.kind),
                        Some(MKind::Jump(_))
                    ))
        }
        Use::Inst { inst, block } => {
            let i = &vcode.insts[inst];
            if !converged[block] || i.keep == Some(v) || i.guard.is_some_and(|(g, _)| g == v) {
                return false;
            }
            let MKind::Sass { slots, .. } = &i.kind else {
                return false;
            };
            if !reads_as_register(slots, v) {
                return false;
            }
            let promoted = i.single_def().is_some_and(|d| defs.contains_key(&d) && is_uniform(d));
            // A reader that cannot be promoted is dropped in turn and read as a vector
            // instruction.
            promoted && encodable(vcode, i, true, &is_uniform) || fitted(vcode, i, is_uniform).is_some()
        }
    }
}

/// `inst` as a vector instruction reading the registers `is_uniform` names as uniform
/// registers: as it is, or with its commuting sources A and B exchanged (the uniform
/// operand slot is B); None if neither encodes.
fn fitted(vcode: &VCode, inst: &MInst, is_uniform: impl Fn(VReg) -> bool) -> Option<MInst> {
    if encodable(vcode, inst, false, &is_uniform) {
        return Some(inst.clone());
    }
    let swapped = commuted(inst)?;
    encodable(vcode, &swapped, false, &is_uniform).then_some(swapped)
}

/// `inst` with sources A and B exchanged, where they commute.
fn commuted(inst: &MInst) -> Option<MInst> {
    let MKind::Sass { op, slots, mods } = &inst.kind else {
        return None;
    };
    if !matches!(
        op,
        Op::Iadd3 | Op::Imad | Op::ImadWide | Op::ImadHi | Op::Imnmx | Op::Isetp
    ) {
        return None;
    }
    // An extended comparison (`.EX`, the high word of a 64-bit one) takes its low word's
    // outcome in the operand order it was computed in.
    if mods.iter().any(|m| m.id == Mod::Ex && m.code != 0) {
        return None;
    }
    let a = slots.iter().position(|s| s.role == Role::A)?;
    let b = slots.iter().position(|s| s.role == Role::B)?;
    let mut out = inst.clone();
    if let MKind::Sass { slots, mods, .. } = &mut out.kind {
        let (sa, sb) = (slots[a], slots[b]);
        slots[a] = Slot { role: Role::A, ..sb };
        slots[b] = Slot { role: Role::B, ..sa };
        // A comparison of B with A is the mirrored comparison of A with B.
        for m in mods.iter_mut().filter(|m| m.id == Mod::IntCmp) {
            m.code = MIRRORED_INT_CMP[usize::from(m.code & 7)];
        }
    }
    Some(out)
}

/// ISETP's comparison codes (F, LT, EQ, LE, GT, NE, GE, T) with the operands exchanged.
const MIRRORED_INT_CMP: [u16; 8] = [0, 4, 2, 6, 1, 5, 3, 7];

/// True if S2UR reads special register `sr`: the CTA's coordinates and, on sm_90, the
/// CTA's rank in its cluster (`SR_CgaCtaId`, the base of every shared-memory address).
/// Measured both ways on the suite: reading the coordinates with S2UR gives geometric
/// means of 1.006 (sm_75) and 0.978 (sm_90) of ptxas's cycles, with S2R 1.005 and 0.984
/// (`wmma_gemm` gains, 1.050 to 1.026 on sm_75; `transpose_tiled` loses, 1.043 to 1.059,
/// where the uniform chain only delays vector readers).
fn uniform_special_register(arch: Arch, sr: u8) -> bool {
    matches!(sr, 0x25..=0x27) || (arch >= Arch::Sm90 && sr == 0x88)
}

/// True if every slot naming `v` reads it as a whole register operand.
fn reads_as_register(slots: &[Slot], v: VReg) -> bool {
    let mut named = slots.iter().filter(|s| names(&s.op, v)).peekable();
    named.peek().is_some() && named.all(|s| s.op == MOp::Reg(v) && !crate::vcode::is_def_role(s.role))
}

/// True if operand `op` names register `v`.
fn names(op: &MOp, v: VReg) -> bool {
    let mut found = false;
    op.for_each_vreg(|r| found |= r == v);
    found
}

/// The uniform form of a vector instruction with one single-register result, unguarded
/// and writing no predicate: the uniform operation, None where there is none.
fn uniform_op(arch: Arch, inst: &MInst) -> Option<Op> {
    let MKind::Sass { op, slots, .. } = &inst.kind else {
        return None;
    };
    if inst.guard.is_some() || inst.keep.is_some() || inst.warp_wide {
        return None;
    }
    let writes_predicate = slots
        .iter()
        .any(|s| matches!(s.role, Role::PredDst0 | Role::PredDst1) && !matches!(s.op, MOp::Fixed(_)));
    if writes_predicate || inst.single_def().is_none() {
        return None;
    }
    let has_cbank = slots
        .iter()
        .any(|s| matches!(s.op, MOp::Fixed(V::CBank { reg: None, .. })));
    let uniform_sreg = slots
        .iter()
        .any(|s| matches!(s.op, MOp::Fixed(V::SReg(sr)) if uniform_special_register(arch, sr)));
    Some(match op {
        Op::S2r if uniform_sreg => Op::S2ur,
        Op::Mov if has_cbank => Op::Uldc,
        Op::Mov => Op::Umov,
        Op::Iadd3 => Op::Uiadd3,
        Op::Lop3 => Op::Ulop3,
        Op::Shf => Op::Ushf,
        Op::Imad => Op::Uimad,
        Op::Lea => Op::Ulea,
        Op::Sel => Op::Usel,
        Op::Prmt => Op::Uprmt,
        _ => return None,
    })
}

/// True if `inst` encodes with the registers `is_uniform` names as uniform registers; as
/// its uniform form if `promoted`.
fn encodable(vcode: &VCode, inst: &MInst, promoted: bool, is_uniform: &impl Fn(VReg) -> bool) -> bool {
    let MKind::Sass { op, slots, mods } = &inst.kind else {
        return false;
    };
    let op = if promoted {
        match uniform_op(vcode.arch, inst) {
            Some(u) => u,
            None => return false,
        }
    } else {
        *op
    };
    let mut ops: SmallVec<[(Role, Operand); 6]> = SmallVec::new();
    let mut uniform_sources = 0;
    for s in slots {
        let value = match s.op {
            MOp::Reg(r) if promoted => {
                if !is_uniform(r) {
                    return false;
                }
                V::UReg(0)
            }
            MOp::Reg(r) if is_uniform(r) && !crate::vcode::is_def_role(s.role) => {
                uniform_sources += 1;
                V::UReg(0)
            }
            MOp::Fixed(V::Reg(RZ)) if promoted => V::UReg(URZ),
            MOp::Fixed(V::CBank { .. }) if promoted && op != Op::Uldc => return false,
            // A predicate register would have to be a uniform predicate (UP0..UP6), which
            // ptxc does not allocate; PT and !PT stay.
            MOp::Pred(..)
            | MOp::Sub(..)
            | MOp::Mem { .. }
            | MOp::UMem { .. }
            | MOp::CMem { .. }
            | MOp::Sp
            | MOp::SpMem { .. }
                if promoted =>
            {
                return false;
            }
            other => crate::isel::fit::representative(other, s.mods).value,
        };
        if promoted && s.mods.abs {
            return false;
        }
        ops.push((s.role, crate::isel::fit::representative(MOp::Fixed(value), s.mods)));
    }
    // A vector instruction reads at most one uniform register.
    if uniform_sources > 1 {
        return false;
    }
    let mods: &[_] = if op == Op::Uldc { &[] } else { mods };
    make(vcode.arch, op, &ops, mods).is_ok()
}

/// Gives the chosen values the uniform class, turns their definitions into uniform
/// instructions and passes them to general-register parameters through `MOV R, UR`.
fn rewrite(vcode: &mut VCode, chosen: &[VReg], defs: &HashMap<VReg, Def>, uses: &Uses) {
    for &v in chosen {
        vcode.classes[v.0 as usize] = VClass::Uniform;
    }
    let mut copies: Vec<(usize, usize, usize, VReg)> = Vec::new();
    for &v in chosen {
        if let Def::Inst { inst, .. } = defs[&v] {
            to_uniform(vcode.arch, &mut vcode.insts[inst]);
        }
        for &u in uses.get(&v).into_iter().flatten() {
            if let Use::Inst { inst, .. } = u
                && vcode.insts[inst]
                    .single_def()
                    .is_none_or(|d| vcode.class(d) != VClass::Uniform)
            {
                let is_uniform = |r: VReg| vcode.class(r) == VClass::Uniform;
                if let Some(f) = fitted(vcode, &vcode.insts[inst], is_uniform) {
                    vcode.insts[inst] = f;
                }
            }
            if let Use::Arg { block, succ, arg } = u {
                let target = vcode.blocks[block].succs[succ].0 as usize;
                if vcode.class(vcode.blocks[target].params[arg]) != VClass::Uniform {
                    copies.push((block, succ, arg, v));
                }
            }
        }
    }
    if copies.is_empty() {
        return;
    }
    let mut blocks: Vec<Vec<MInst>> = (0..vcode.blocks.len())
        .map(|b| vcode.block_insts(BlockId(b as u32)).to_vec())
        .collect();
    for (block, succ, arg, v) in copies {
        let r = vcode.new_vreg(VClass::Single);
        let at = blocks[block].len() - 1;
        blocks[block].insert(at, mov(r, v));
        vcode.blocks[block].succ_args[succ][arg] = r;
    }
    replace_insts(vcode, blocks);
}

/// `MOV r, u`.
fn mov(r: VReg, u: VReg) -> MInst {
    let slot = |role, op| Slot {
        role,
        op,
        mods: SrcMods::default(),
    };
    MInst::new(MKind::Sass {
        op: Op::Mov,
        slots: [slot(Role::Dst, MOp::Reg(r)), slot(Role::B, MOp::Reg(u))]
            .into_iter()
            .collect(),
        mods: SmallVec::new(),
    })
}

/// Makes `inst` its uniform form: the operation, URZ for RZ.
fn to_uniform(arch: Arch, inst: &mut MInst) {
    let Some(u) = uniform_op(arch, inst) else {
        return;
    };
    let MKind::Sass { op, slots, mods } = &mut inst.kind else {
        return;
    };
    *op = u;
    if u == Op::Uldc {
        mods.clear();
    }
    for s in slots.iter_mut() {
        if s.op == MOp::Fixed(V::Reg(RZ)) {
            s.op = MOp::Fixed(V::UReg(URZ));
        }
    }
}

/// Replaces the instructions of every block (and the block ranges).
pub(crate) fn replace_insts(vcode: &mut VCode, blocks: Vec<Vec<MInst>>) {
    vcode.insts.clear();
    for (b, insts) in blocks.into_iter().enumerate() {
        vcode.blocks[b].start = vcode.insts.len() as u32;
        vcode.insts.extend(insts);
        vcode.blocks[b].end = vcode.insts.len() as u32;
    }
}
