//! Parameter pointers in uniform pairs: a 64-bit value loaded from constant bank 0 (a
//! kernel parameter) that only memory accesses read as their whole address becomes a
//! uniform pair, loaded by `ULDC.64` and read as `[UR]` (`LDG.E R0, [UR4+0x10]`), as
//! ptxas addresses memory at a parameter pointer; the pair of general registers and its
//! two moves go away. Turing only: from Ampere on, ptxas keeps parameter pointers in
//! general registers (`LDG.E R2, [R2.64]`; `LDC.64` on Hopper), and the `[UR]` form is
//! `[RZ.U32+UR]` there.
//!
//! A pointer is promoted when its one definition, unguarded, and every read sit in blocks
//! the warp runs converged (`converged.rs`), every read is the address `[p + offset]` of
//! an access that has the `[UR + offset]` form, and nothing else reads it (no block
//! argument, no arithmetic, no store of it as data). At most [`MAX_POINTERS`] are promoted:
//! the allocator sets aside one pair per pointer, so they never run out.

use crate::vcode::{MInst, MKind, MOp, Slot, VClass, VCode, VReg, WideOp};
use ptxc_sass::isa::values::MemSize;
use ptxc_sass::isa::{Op, Role, Value as V};
use rustc_hash::FxHashMap as HashMap;
use smallvec::smallvec;

/// The most pointers promoted per kernel (the allocator sets one uniform pair aside per
/// pointer).
pub const MAX_POINTERS: usize = 8;

/// A promotable pointer: its definition and the reads (instruction, slot) of its address.
struct Pointer {
    def: usize,
    bank: V,
    reads: Vec<(usize, usize)>,
}

/// Moves the parameter pointers of `vcode` that only address memory into uniform pairs.
pub fn promote_pointers(vcode: &mut VCode, converged: &[bool]) {
    if vcode.arch != ptxc_sass::isa::Arch::Sm75 {
        return;
    }
    let mut pointers = candidates(vcode, converged);
    pointers.retain(|_, p| {
        p.reads
            .iter()
            .all(|&(i, slot)| encodes_as_uniform_address(vcode, &vcode.insts[i], slot))
    });
    let mut chosen: Vec<(VReg, Pointer)> = pointers.into_iter().collect();
    chosen.sort_by_key(|(_, p)| p.def);
    chosen.truncate(MAX_POINTERS);
    if chosen.is_empty() {
        return;
    }
    for (v, p) in &chosen {
        vcode.classes[v.0 as usize] = VClass::UniformPair;
        let def = &mut vcode.insts[p.def];
        def.kind = MKind::Sass {
            op: Op::Uldc,
            slots: smallvec![
                Slot::plain(Role::Dst, MOp::Reg(*v)),
                Slot::plain(Role::B, MOp::Fixed(p.bank))
            ],
            mods: smallvec![MemSize::B64.set()],
        };
        for &(i, s) in &p.reads {
            if let MKind::Sass { slots, .. } = &mut vcode.insts[i].kind
                && let MOp::Mem { offset, .. } = slots[s].op
            {
                slots[s].op = MOp::UAddr { ubase: *v, offset };
            }
        }
    }
}

/// The pairs loaded from constant bank 0 in converged blocks whose every read, in a
/// converged block, is the plain address of an access.
fn candidates(vcode: &VCode, converged: &[bool]) -> HashMap<VReg, Pointer> {
    let mut pointers: HashMap<VReg, Pointer> = HashMap::default();
    let mut spoiled = rustc_hash::FxHashSet::default();
    for (b, blk) in vcode.blocks.iter().enumerate() {
        for i in blk.start as usize..blk.end as usize {
            let inst = &vcode.insts[i];
            if let Some((d, bank)) = parameter_pair(vcode, inst)
                && converged[b]
            {
                let first = Pointer {
                    def: i,
                    bank,
                    reads: Vec::new(),
                };
                if pointers.insert(d, first).is_some() {
                    spoiled.insert(d);
                }
                continue;
            }
            inst.for_each_reg(|v, is_def| {
                if is_def {
                    spoiled.insert(v);
                }
            });
            for (v, read) in reads(inst) {
                match read {
                    Some(s) if converged[b] => pointers.get_mut(&v).map(|p| p.reads.push((i, s))),
                    _ => None,
                }
                .unwrap_or_else(|| {
                    spoiled.insert(v);
                });
            }
        }
        for &v in blk.succ_args.iter().flatten() {
            spoiled.insert(v);
        }
    }
    pointers.retain(|v, p| !spoiled.contains(v) && !p.reads.is_empty());
    pointers
}

/// `(d, c[0x0][offset])` if `inst` is `d = c[0x0][offset]`, unguarded, into a pair.
fn parameter_pair(vcode: &VCode, inst: &MInst) -> Option<(VReg, V)> {
    let MKind::Wide {
        op: WideOp::Mov,
        d,
        srcs,
        tmp: None,
    } = &inst.kind
    else {
        return None;
    };
    let bank @ V::CBank { bank: 0, reg: None, .. } = (match srcs.as_slice() {
        [MOp::Fixed(v)] => *v,
        _ => return None,
    }) else {
        return None;
    };
    (inst.guard.is_none() && vcode.class(*d) == VClass::Pair).then_some((*d, bank))
}

/// Every register `inst` reads, with the slot when the read is the whole base of a plain
/// address `[v + offset]` (None for any other read; definitions are not listed).
fn reads(inst: &MInst) -> Vec<(VReg, Option<usize>)> {
    let mut addresses: Vec<(VReg, usize)> = match &inst.kind {
        MKind::Sass { slots, .. } => slots
            .iter()
            .enumerate()
            .filter_map(|(k, s)| match s.op {
                MOp::Mem {
                    base, uniform: None, ..
                } => Some((base, k)),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    let mut out = Vec::new();
    inst.for_each_reg(|v, is_def| {
        if is_def {
            return;
        }
        let address = addresses.iter().position(|&(b, _)| b == v);
        out.push((v, address.map(|a| addresses.remove(a).1)));
    });
    out
}

/// True if `inst` encodes with the address in slot `slot` read from a uniform pair.
fn encodes_as_uniform_address(vcode: &VCode, inst: &MInst, slot: usize) -> bool {
    let MKind::Sass { slots, .. } = &inst.kind else {
        return false;
    };
    let MOp::Mem { offset, .. } = slots[slot].op else {
        return false;
    };
    super::fold::encodes_with(vcode, inst, slot, MOp::UAddr { ubase: VReg(0), offset })
}
