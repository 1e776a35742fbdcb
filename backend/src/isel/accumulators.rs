//! Warpgroup accumulators: HGMMA reads and writes its accumulator in place, N/2 (or N/4)
//! consecutive registers that the tensor cores write asynchronously until
//! `WARPGROUP.DEPBAR`. regalloc2 has no class for such a tuple, and must not move or reuse
//! its registers while HGMMA owns them; so the accumulators live outside the allocator, in
//! registers R0.. pinned before allocation (the allocator's regions start after them).
//!
//! A web is the set of values that must share one block of registers: the results of a
//! `wgmma` (register `i` of its block holding result `i`), the accumulator arguments of a
//! `wgmma` that are results of another (or of a block parameter of the web, register for
//! register), and the block parameters whose incoming values are in the web (the loop-carried
//! accumulators of a GEMM loop). Other accumulator arguments (zeros before the loop, the
//! rescaled accumulator of an attention loop) and incoming values are copied into the block
//! where they are needed. The webs are then checked against a liveness analysis: where a
//! register of a web is written, no other value of that register may still be live (else
//! selection fails with a message instead of miscompiling).

use ptxc_mir::ir::mma::WgmmaFlags;
use ptxc_mir::ir::{Aux, Block, Function, Inst, Opcode, Value, ValueDef};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// Alignment of each web's first register.
const WEB_ALIGN: usize = 8;

/// Where the accumulators live.
#[derive(Clone, Debug, Default)]
pub struct Accumulators {
    /// The register of each pinned value.
    pub reg: HashMap<Value, u8>,
    /// The first of the four registers that hold A of each `wgmma` reading A from registers
    /// (HGMMA reads them asynchronously too, so they are not the allocator's either).
    pub a_quad: HashMap<Inst, u8>,
    /// Registers R0..`reserved` hold webs and A quads (a multiple of 4).
    pub reserved: u8,
}

/// The value `v` copies or reinterprets (selection aliases copies to their source).
pub(super) fn root(func: &Function, mut v: Value) -> Value {
    while let ValueDef::Result(i, 0) = func.values[v].def
        && matches!(func.insts[i].op, Opcode::Copy | Opcode::Bitcast)
    {
        v = func.insts[i].args[0];
    }
    v
}

/// The accumulator arguments and results of a `wgmma`.
fn accumulator_of(func: &Function, inst: Inst) -> Option<(Vec<Value>, Vec<Value>)> {
    let d = &func.insts[inst];
    let Aux::Imm(bits) = d.aux else { return None };
    let f = WgmmaFlags::from_bits(bits);
    let c = d.args.get(f.leading_args()..)?.to_vec();
    Some((c, func.results[inst].to_vec()))
}

/// Union-find over web ids.
struct Webs {
    parent: Vec<usize>,
    size: Vec<usize>,
}

impl Webs {
    fn add(&mut self, size: usize) -> usize {
        self.parent.push(self.parent.len());
        self.size.push(size);
        self.parent.len() - 1
    }
    fn find(&mut self, mut w: usize) -> usize {
        while self.parent[w] != w {
            self.parent[w] = self.parent[self.parent[w]];
            w = self.parent[w];
        }
        w
    }
    fn union(&mut self, a: usize, b: usize) -> Result<bool, String> {
        let (a, b) = (self.find(a), self.find(b));
        if a == b {
            return Ok(false);
        }
        if self.size[a] != self.size[b] {
            return Err("wgmma accumulators of different sizes flow into each other".into());
        }
        self.parent[b] = a;
        Ok(true)
    }
}

/// Finds the webs of `func` and places them; an empty result without `wgmma`.
pub fn assign(func: &Function) -> Result<Accumulators, String> {
    let wgmmas: Vec<Inst> = func
        .layout
        .iter()
        .flat_map(|&b| func.blocks[b].insts.iter().copied())
        .filter(|&i| func.insts[i].op == Opcode::Wgmma)
        .collect();
    if wgmmas.is_empty() {
        return Ok(Accumulators::default());
    }
    // A driver call passes its arguments in R4 and up and keeps every register through the
    // frame, which the pinned registers would collide with.
    if func.insts.values().any(|d| d.op == Opcode::CallDriver) {
        return Err("wgmma in a kernel that calls driver functions (printf, malloc, ...)".into());
    }
    let mut webs = Webs {
        parent: Vec::new(),
        size: Vec::new(),
    };
    let mut pin: HashMap<Value, (usize, u8)> = HashMap::default();
    for &w in &wgmmas {
        let (_, d) = accumulator_of(func, w).ok_or("wgmma without its flags")?;
        let id = webs.add(d.len());
        for (i, &v) in d.iter().enumerate() {
            pin.insert(v, (id, i as u8));
        }
    }
    let incoming = incoming_values(func);
    let mut changed = true;
    while changed {
        changed = false;
        for &w in &wgmmas {
            let (c, d) = accumulator_of(func, w).ok_or("wgmma without its flags")?;
            let (id, _) = pin[&d[0]];
            for (i, &v) in c.iter().enumerate() {
                if let Some(&(other, j)) = pin.get(&root(func, v)) {
                    if j as usize != i {
                        return Err(format!(
                            "accumulator register {j} of one wgmma is register {i} of another"
                        ));
                    }
                    changed |= webs.union(id, other)?;
                }
            }
        }
        for (&p, args) in &incoming {
            for &a in args {
                let Some(&(web, j)) = pin.get(&root(func, a)) else {
                    continue;
                };
                match pin.get(&p).copied() {
                    None => {
                        pin.insert(p, (web, j));
                        changed = true;
                    }
                    Some((other, k)) if k == j => changed |= webs.union(web, other)?,
                    Some(_) => return Err("a block parameter joins different accumulator registers".into()),
                }
            }
        }
    }
    coalesce(func, &wgmmas, &mut pin);
    let mut base: HashMap<usize, usize> = HashMap::default();
    let mut next = 0usize;
    let mut reg = HashMap::default();
    let mut sorted: Vec<(Value, (usize, u8))> = pin.into_iter().collect();
    sorted.sort_by_key(|(v, _)| *v);
    for (v, (web, i)) in sorted {
        let root_web = webs.find(web);
        let b = *base.entry(root_web).or_insert_with(|| {
            let b = next.next_multiple_of(WEB_ALIGN);
            next = b + webs.size[root_web];
            b
        });
        reg.insert(v, (b + i as usize) as u8);
    }
    let mut a_quad = HashMap::default();
    for &w in &wgmmas {
        let Aux::Imm(bits) = func.insts[w].aux else { continue };
        if WgmmaFlags::from_bits(bits).a_regs {
            let b = next.next_multiple_of(4);
            a_quad.insert(w, b as u8);
            next = b + 4;
        }
    }
    let reserved = next.next_multiple_of(4);
    if reserved > 200 {
        return Err(format!("wgmma accumulators need {reserved} registers"));
    }
    let acc = Accumulators {
        reg,
        a_quad,
        reserved: reserved as u8,
    };
    check_interference(func, &acc)?;
    Ok(acc)
}

/// Operations whose one 32-bit result selection writes to a register of its own
/// (`def_reg`): they may write an accumulator register directly.
const COALESCED_OPS: &[Opcode] = &[
    Opcode::Fmul,
    Opcode::Fadd,
    Opcode::Fsub,
    Opcode::Ffma,
    Opcode::Fmin,
    Opcode::Fmax,
];

/// Pins the accumulator arguments that an arithmetic instruction of the `wgmma`'s own block
/// computes (the rescaled accumulator of an attention loop) to the register they go to, so
/// that the instruction writes it in place instead of a copy following it.
fn coalesce(func: &Function, wgmmas: &[Inst], pin: &mut HashMap<Value, (usize, u8)>) {
    let block_of: HashMap<Inst, Block> = func
        .layout
        .iter()
        .flat_map(|&b| func.blocks[b].insts.iter().map(move |&i| (i, b)))
        .collect();
    for &w in wgmmas {
        let Some((c, d)) = accumulator_of(func, w) else {
            continue;
        };
        let target = pin[&d[0]].0;
        for (i, &v) in c.iter().enumerate() {
            let r = root(func, v);
            let ValueDef::Result(def, 0) = func.values[r].def else {
                continue;
            };
            let same_block = block_of.get(&def) == block_of.get(&w);
            let simple =
                COALESCED_OPS.contains(&func.insts[def].op) && func.results[def].len() == 1 && func.ty(r).bits() == 32;
            if same_block && simple && !pin.contains_key(&r) {
                pin.insert(r, (target, i as u8));
            }
        }
    }
}

/// The values each block parameter receives on its incoming edges.
fn incoming_values(func: &Function) -> HashMap<Value, Vec<Value>> {
    let mut out: HashMap<Value, Vec<Value>> = HashMap::default();
    for &b in &func.layout {
        let Some(t) = func.terminator(b) else { continue };
        for call in func.insts[t].targets() {
            for (&p, &a) in func.blocks[call.block].params.iter().zip(&call.args) {
                out.entry(p).or_default().push(a);
            }
        }
    }
    out
}

/// The pinned value a use of `v` keeps live (copies of a pinned value live in its register).
fn pinned_use(func: &Function, acc: &Accumulators, v: Value) -> Option<Value> {
    let r = root(func, v);
    acc.reg.contains_key(&r).then_some(r)
}

/// Checks that no register of a web is written while another value of it is live: at a
/// `wgmma` (its results, and the accumulator arguments copied in before it) and at the end of
/// a block that passes a value into a pinned parameter. Liveness is of the pinned values
/// (with copies of them counted as uses).
fn check_interference(func: &Function, acc: &Accumulators) -> Result<(), String> {
    let live_in = live_in_sets(func, acc);
    let conflict =
        |live: &HashSet<Value>, r: u8, allowed: &[Value]| live.iter().any(|v| acc.reg[v] == r && !allowed.contains(v));
    let message = || {
        "a wgmma accumulator register is overwritten while its old value is still used: ptxc keeps accumulators in place and cannot compile this".to_string()
    };
    for &b in &func.layout {
        let mut live = live_out(func, acc, &live_in, b);
        // Parameters of successors written at the end of this block.
        if let Some(t) = func.terminator(b) {
            for call in func.insts[t].targets() {
                for (&p, &a) in func.blocks[call.block].params.iter().zip(&call.args) {
                    if let Some(&r) = acc.reg.get(&p)
                        && pinned_use(func, acc, a).is_none_or(|x| acc.reg[&x] != r)
                        && conflict(&live, r, &[p])
                    {
                        return Err(message());
                    }
                }
            }
        }
        for &i in func.blocks[b].insts.iter().rev() {
            for &d in func.results[i].iter() {
                live.remove(&d);
                if let Some(&r) = acc.reg.get(&d)
                    && conflict(&live, r, &[])
                {
                    return Err(message());
                }
            }
            for &a in &func.insts[i].args {
                if let Some(p) = pinned_use(func, acc, a) {
                    live.insert(p);
                }
            }
        }
    }
    Ok(())
}

/// The pinned values live out of block `b`: live into a successor, or passed to it.
fn live_out(func: &Function, acc: &Accumulators, live_in: &HashMap<Block, HashSet<Value>>, b: Block) -> HashSet<Value> {
    let mut out = HashSet::default();
    let Some(t) = func.terminator(b) else { return out };
    for call in func.insts[t].targets() {
        let params = &func.blocks[call.block].params;
        out.extend(live_in[&call.block].iter().filter(|v| !params.contains(v)).copied());
        out.extend(call.args.iter().filter_map(|&a| pinned_use(func, acc, a)));
    }
    out
}

/// Backward liveness of the pinned values, to a fixed point.
fn live_in_sets(func: &Function, acc: &Accumulators) -> HashMap<Block, HashSet<Value>> {
    let mut live_in: HashMap<Block, HashSet<Value>> = func.layout.iter().map(|&b| (b, HashSet::default())).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for &b in func.layout.iter().rev() {
            let mut live = live_out(func, acc, &live_in, b);
            for &i in func.blocks[b].insts.iter().rev() {
                for d in func.results[i].iter() {
                    live.remove(d);
                }
                for &a in &func.insts[i].args {
                    if let Some(p) = pinned_use(func, acc, a) {
                        live.insert(p);
                    }
                }
            }
            if live != live_in[&b] {
                live_in.insert(b, live);
                changed = true;
            }
        }
    }
    live_in
}
