//! Wide shared-memory loads: neighbouring 32-bit loads from one base address (`[r]`,
//! `[r+4]`, `[r+8]`, `[r+12]`) become one 128-bit (or 64-bit) load when the first address
//! is provably aligned to the access size, as ptxas merges a tiled GEMM's row reads into
//! `LDS.U.128`; two neighbouring 64-bit loads (`[r]`, `[r+8]`) become one 128-bit load the
//! same way, as ptxas reads a DGEMM tile's row of doubles with `LDS.128`. Alignment comes
//! from the addresses' arithmetic: the kernel's layout of its shared variables (their
//! offsets are the addresses), constants, shifts, multiplications by constants, masks and
//! sums.
//!
//! Loads merge only within a block and only across other loads: a store, atomic, barrier,
//! fence, call or any other instruction with side effects ends every group, so no load
//! moves across a write it could observe. Volatile loads never merge. The merged load
//! stands where the group's first load stood; the scalar loads become copies of its
//! elements.

use crate::vars::{KernelVars, Place};
use ptxc_mir::ir::{Aux, Block, Function, Inst, InstData, MemInfo, Opcode, Space, Type, Value};
use rustc_hash::FxHashMap as HashMap;
use smallvec::SmallVec;

/// Largest alignment tracked (a shared address is below 2^24).
const MAX_ALIGN: u64 = 1 << 24;

/// Merges the shared loads of every block of `func`; returns how many loads were merged
/// away.
pub fn run(func: &mut Function, vars: &KernelVars) -> usize {
    let mut align = Alignment {
        vars,
        memo: HashMap::default(),
    };
    let mut merged = 0;
    for b in func.layout.clone() {
        merged += merge_block(func, b, &mut align);
    }
    merged
}

/// One candidate load: instruction, base value, constant offset, bytes loaded.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    inst: Inst,
    base: Value,
    offset: i64,
    size: i64,
}

/// A 32- or 64-bit, non-volatile, scalar shared load.
fn candidate(func: &Function, i: Inst) -> Option<Candidate> {
    let d = &func.insts[i];
    let Aux::Mem(m) = d.aux else { return None };
    let size = match d.ty {
        Type::I32 | Type::F32 => 4,
        Type::I64 | Type::F64 => 8,
        _ => return None,
    };
    let scalar = m.vector == 1 && func.results[i].len() == 1;
    (d.op == Opcode::Load && m.space == Space::Shared && scalar && !m.volatile).then(|| Candidate {
        inst: i,
        base: d.args[0],
        offset: m.offset,
        size,
    })
}

/// Groups the loads of `b` between side effects and merges each group's runs.
fn merge_block(func: &mut Function, b: Block, align: &mut Alignment) -> usize {
    let mut merged = 0;
    let mut group: Vec<Candidate> = Vec::new();
    let insts = func.blocks[b].insts.clone();
    for &i in &insts {
        if let Some(c) = candidate(func, i) {
            group.push(c);
        } else if func.insts[i].op.has_side_effects() || func.insts[i].op.is_terminator() {
            merged += merge_group(func, b, &group, align);
            group.clear();
        }
    }
    merged + merge_group(func, b, &group, align)
}

/// Merges runs of loads of one size from one base with consecutive offsets into loads of at
/// most 128 bits: four 32-bit ones where the first address is 16-byte aligned, else two
/// where it is 8-byte aligned; two 64-bit ones where it is 16-byte aligned.
fn merge_group(func: &mut Function, b: Block, group: &[Candidate], align: &mut Alignment) -> usize {
    let mut by_base_and_size: HashMap<(Value, i64), Vec<Candidate>> = HashMap::default();
    for c in group {
        by_base_and_size.entry((c.base, c.size)).or_default().push(*c);
    }
    let mut keys: Vec<(Value, i64)> = by_base_and_size.keys().copied().collect();
    keys.sort();
    let mut merged = 0;
    for (base, size) in keys {
        let mut loads = by_base_and_size.remove(&(base, size)).unwrap_or_default();
        loads.sort_by_key(|c| c.offset);
        loads.dedup_by_key(|c| c.offset);
        let base_align = align.of(func, base);
        let mut k = 0;
        while k < loads.len() {
            let run = consecutive_run(&loads[k..]);
            let aligned = |bytes: i64| offset_align(base_align, loads[k].offset) >= bytes as u64;
            let n = (1..=run)
                .rev()
                .find(|&n| n.is_power_of_two() && n as i64 * size <= 16 && aligned(n as i64 * size))
                .unwrap_or(1);
            if n > 1 {
                replace_with_vector(func, b, &loads[k..k + n]);
                merged += n - 1;
            }
            k += n;
        }
    }
    merged
}

/// How many loads from the start of `loads` (sorted by offset, of one size) follow each
/// other without a gap.
fn consecutive_run(loads: &[Candidate]) -> usize {
    let mut n = 1;
    while n < loads.len() && loads[n].offset == loads[0].offset + loads[0].size * n as i64 {
        n += 1;
    }
    n
}

/// The alignment of `base + offset` given the base's.
fn offset_align(base_align: u64, offset: i64) -> u64 {
    if offset == 0 {
        base_align
    } else {
        base_align.min(1 << offset.trailing_zeros().min(24))
    }
}

/// Replaces the loads `run` (consecutive offsets) by one vector load placed where the
/// earliest of them stood; each becomes a copy of its element.
fn replace_with_vector(func: &mut Function, b: Block, run: &[Candidate]) {
    let first = run[0];
    let d = func.insts[first.inst].clone();
    let Aux::Mem(m) = d.aux else { return };
    // Every load of the run has the same type here; the vector takes the first one's.
    let data = InstData {
        op: Opcode::Load,
        ty: d.ty,
        args: SmallVec::from_slice(&[first.base]),
        aux: Aux::Mem(MemInfo {
            vector: run.len() as u8,
            ..m
        }),
    };
    let wide = func.create_inst(data);
    let at = run
        .iter()
        .filter_map(|c| func.blocks[b].insts.iter().position(|&x| x == c.inst))
        .min()
        .expect("the loads are in the block");
    func.blocks[b].insts.insert(at, wide);
    func.srclocs[wide] = func.srclocs[func.blocks[b].insts[at + 1]];
    for (k, c) in run.iter().enumerate() {
        let element = func.results[wide][k];
        let ty = func.ty(func.results[c.inst][0]);
        let elem_ty = func.ty(element);
        func.insts[c.inst] = InstData {
            op: if ty == elem_ty { Opcode::Copy } else { Opcode::Bitcast },
            ty,
            args: SmallVec::from_slice(&[element]),
            aux: Aux::None,
        };
    }
}

/// Known alignments of address values (memoised).
struct Alignment<'a> {
    vars: &'a KernelVars,
    memo: HashMap<Value, u64>,
}

impl Alignment<'_> {
    /// The largest power of two that divides `v` in every thread.
    fn of(&mut self, func: &Function, v: Value) -> u64 {
        if let Some(&a) = self.memo.get(&v) {
            return a;
        }
        // Cycles (through block parameters) are cut at 1.
        self.memo.insert(v, 1);
        let a = self.compute(func, v).clamp(1, MAX_ALIGN);
        self.memo.insert(v, a);
        a
    }

    fn compute(&mut self, func: &Function, v: Value) -> u64 {
        let Some(i) = func.def_inst(v) else { return 1 };
        let d = &func.insts[i];
        let pow2 = |k: u64| {
            if k == 0 {
                MAX_ALIGN
            } else {
                1 << k.trailing_zeros().min(24)
            }
        };
        match (d.op, &d.aux) {
            (Opcode::Const, Aux::Imm(k)) => pow2(*k),
            (Opcode::Addr, Aux::Var(k)) => match self.vars.places.get(*k as usize) {
                Some(Place::Shared { offset }) => pow2(u64::from(*offset)),
                _ => 1,
            },
            (Opcode::Copy | Opcode::Bitcast, _) => self.of(func, d.args[0]),
            (Opcode::Convert, Aux::Convert(c)) if !c.sat && c.rnd.is_none() && c.from.is_int() => {
                self.of(func, d.args[0])
            }
            (Opcode::Iadd, _) => self.of(func, d.args[0]).min(self.of(func, d.args[1])),
            // Hopper's shared addresses carry the CTA's rank shifted by 24 (`cluster.rs`).
            (Opcode::Shl, _) => match func.const_value(d.args[1]) {
                Some(k) if k < 32 => self.of(func, d.args[0]).saturating_mul(1 << k.min(24)),
                _ => 1,
            },
            (Opcode::Imul, _) => self.of(func, d.args[0]).saturating_mul(self.of(func, d.args[1])),
            (Opcode::And, _) => self.of(func, d.args[0]).max(self.of(func, d.args[1])),
            _ => 1,
        }
    }
}
