//! SSA construction for PTX registers (Braun et al., "Simple and Efficient Construction of
//! Static Single Assignment Form", CC 2013), with block parameters in place of phis. Blocks
//! may be created while lowering; a block is sealed once all its predecessors are known.

use crate::ir::{Aux, Block, Function, InstData, Opcode, Type, Value};
use cranelift_entity::SecondaryMap;
use ptxc_frontend::checked::RegId;
use rustc_hash::FxHashMap as HashMap;
use smallvec::SmallVec;

/// Tracks the current definition of every register in every block.
pub struct SsaBuilder {
    defs: SecondaryMap<Block, HashMap<RegId, Value>>,
    sealed: SecondaryMap<Block, bool>,
    incomplete: SecondaryMap<Block, Vec<(RegId, Value)>>,
    preds: SecondaryMap<Block, SmallVec<[Block; 2]>>,
    reg_types: Vec<Type>,
}

impl SsaBuilder {
    /// A builder for registers of the given types (indexed by `RegId`).
    pub fn new(reg_types: Vec<Type>) -> SsaBuilder {
        SsaBuilder {
            defs: SecondaryMap::new(),
            sealed: SecondaryMap::new(),
            incomplete: SecondaryMap::new(),
            preds: SecondaryMap::new(),
            reg_types,
        }
    }

    /// Adds registers of the given types; returns the id of the first.
    pub fn add_regs(&mut self, types: impl IntoIterator<Item = Type>) -> u32 {
        let base = self.reg_types.len() as u32;
        self.reg_types.extend(types);
        base
    }

    /// The declared type of a register.
    pub fn reg_type(&self, reg: RegId) -> Type {
        self.reg_types[reg.0 as usize]
    }

    /// Records that `reg` holds `value` at the current point of `block`.
    pub fn write(&mut self, block: Block, reg: RegId, value: Value) {
        self.defs[block].insert(reg, value);
    }

    /// Records the CFG edge `pred -> block` (call when the branch is emitted).
    pub fn add_edge(&mut self, pred: Block, block: Block) {
        if !self.preds[block].contains(&pred) {
            self.preds[block].push(pred);
        }
    }

    /// The value of `reg` at the current point of `block`.
    pub fn read(&mut self, func: &mut Function, block: Block, reg: RegId) -> Value {
        if let Some(&v) = self.defs[block].get(&reg) {
            return v;
        }
        let ty = self.reg_type(reg);
        let v = if !self.sealed[block] {
            let p = func.add_block_param(block, ty);
            self.incomplete[block].push((reg, p));
            p
        } else if self.preds[block].len() == 1 {
            let pred = self.preds[block][0];
            self.read(func, pred, reg)
        } else if self.preds[block].is_empty() {
            undef(func, block, ty)
        } else {
            let p = func.add_block_param(block, ty);
            self.write(block, reg, p);
            self.add_incoming(func, block, reg);
            p
        };
        self.write(block, reg, v);
        v
    }

    /// Marks `block` as having all its predecessors and completes its pending parameters.
    pub fn seal(&mut self, func: &mut Function, block: Block) {
        if self.sealed[block] {
            return;
        }
        self.sealed[block] = true;
        for (reg, _) in std::mem::take(&mut self.incomplete[block]) {
            self.add_incoming(func, block, reg);
        }
    }

    /// Appends, for each predecessor, the value of `reg` as the argument of the parameter
    /// that was just added to `block`.
    fn add_incoming(&mut self, func: &mut Function, block: Block, reg: RegId) {
        let preds = self.preds[block].clone();
        for pred in preds {
            let v = self.read(func, pred, reg);
            let term = func.terminator(pred).expect("predecessor has its branch");
            for call in func.insts[term].targets_mut() {
                if call.block == block {
                    call.args.push(v);
                }
            }
        }
    }
}

fn undef(func: &mut Function, block: Block, ty: Type) -> Value {
    let data = InstData {
        op: Opcode::Undef,
        ty,
        args: SmallVec::new(),
        aux: Aux::None,
    };
    let inst = func.append(block, data, &[ty]);
    // Keep the terminator last: move the new instruction to the front of the block.
    let insts = &mut func.blocks[block].insts;
    insts.pop();
    insts.insert(0, inst);
    func.results[inst][0]
}

/// Removes block parameters whose incoming values are all the same value (or the parameter
/// itself), replacing their uses, until none is left.
pub fn remove_trivial_params(func: &mut Function) {
    // The replacement of each removed parameter (a dense map: values are numbered densely).
    let mut subst: SecondaryMap<Value, Option<Value>> = SecondaryMap::with_capacity(func.values.len());
    let resolve = |subst: &SecondaryMap<Value, Option<Value>>, mut v: Value| {
        while let Some(n) = subst[v] {
            v = n;
        }
        v
    };
    // Removing parameters changes branch arguments, never the edges. A predecessor is listed
    // once however many of its branch's targets reach the block (`@p bra L; L:` reaches L
    // both ways): each of those calls loses the argument once.
    let mut preds = func.predecessors();
    for &b in &func.layout {
        preds[b].dedup();
    }
    let layout = func.layout.clone();
    let mut removed: Vec<usize> = Vec::new();
    loop {
        let mut changed = false;
        for &b in &layout {
            // Parameters are examined at their current positions and the trivial ones removed
            // together afterwards (one pass over the lists instead of a shift per removal).
            removed.clear();
            for i in 0..func.blocks[b].params.len() {
                let p = func.blocks[b].params[i];
                let mut same: Option<Value> = None;
                let mut trivial = true;
                for &pred in &preds[b] {
                    let term = func.terminator(pred).expect("predecessor has a terminator");
                    for call in func.insts[term].targets().iter().filter(|c| c.block == b) {
                        let a = resolve(&subst, call.args[i]);
                        if a == p || Some(a) == same {
                            continue;
                        }
                        if same.is_some() {
                            trivial = false;
                        }
                        same = Some(a);
                    }
                }
                if let (true, Some(v)) = (trivial, same)
                    && Some(b) != func.entry()
                {
                    subst[p] = Some(v);
                    removed.push(i);
                }
            }
            if removed.is_empty() {
                continue;
            }
            changed = true;
            let mut keep = keep_all_but(&removed);
            func.blocks[b].params.retain(|_| keep());
            for &pred in &preds[b] {
                let term = func.terminator(pred).expect("terminator");
                for call in func.insts[term].targets_mut().iter_mut().filter(|c| c.block == b) {
                    let mut keep = keep_all_but(&removed);
                    call.args.retain(|_| keep());
                }
            }
        }
        if !changed {
            break;
        }
    }
    renumber_params(func);
    for inst in func.insts.keys().collect::<Vec<_>>() {
        func.insts[inst].map_args(|v| resolve(&subst, v));
    }
}

/// A filter for `retain` that drops the elements at `positions` (ascending) and keeps the
/// rest in order: call it once per element, front to back; true means keep.
fn keep_all_but(positions: &[usize]) -> impl FnMut() -> bool + '_ {
    let mut next = positions.iter().peekable();
    let mut index = 0;
    move || {
        let drop = next.peek() == Some(&&index);
        if drop {
            next.next();
        }
        index += 1;
        !drop
    }
}

/// Keeps `ValueDef::Param` indexes in step with the parameter lists after removals.
fn renumber_params(func: &mut Function) {
    for b in func.layout.clone() {
        for (i, &p) in func.blocks[b].params.iter().enumerate() {
            func.values[p].def = crate::ir::ValueDef::Param(b, i as u8);
        }
    }
}
