//! Register compaction: after allocation and emission, the general registers are coloured
//! again over the whole file. regalloc2 assigns each width (single, pair, quad) its own
//! region, so a register that holds a pair early and singles later is impossible there;
//! this pass splits the emitted code into webs (maximal sets of definitions and uses of a
//! register connected through data flow), ties the webs that wide operands use together
//! into aligned groups, and colours the groups greedily in program order with the lowest
//! free registers, preferring the source's register for copies (which then disappear).
//! The result replaces the original only when it uses fewer registers or fewer copies.
//! Last, on whichever colouring stays, webs move to the other bank where the hottest code
//! reads two sources from one (`compact/bank_moves.rs`).

mod bank_moves;

use super::bank_costs;
use crate::emit::CodeBlock;
use crate::emit::successors;
use ptxc_sass::isa::desc::OpKind;
use ptxc_sass::isa::{Inst, Op, PT, RZ, Value};

/// A set of general registers R0..R254.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct RegSet([u64; 4]);

impl RegSet {
    fn insert(&mut self, r: u8) {
        self.0[r as usize / 64] |= 1 << (r % 64);
    }
    fn remove(&mut self, r: u8) {
        self.0[r as usize / 64] &= !(1 << (r % 64));
    }
    fn union(&mut self, o: &RegSet) -> bool {
        let before = self.0;
        for (a, b) in self.0.iter_mut().zip(o.0) {
            *a |= b;
        }
        before != self.0
    }
    fn iter(&self) -> impl Iterator<Item = u8> + '_ {
        super::set_bits(&self.0).map(|r| r as u8)
    }
}

/// One general-register operand: operand index, first register, width, definition, and
/// the position of its first component among the instruction's register components.
#[derive(Clone, Copy, Debug)]
struct RegOperand {
    index: usize,
    reg: u8,
    width: u8,
    is_def: bool,
    first: usize,
}

/// No node or web.
const NONE: usize = usize::MAX;

/// Appends the general-register operands of `inst` (RZ excluded) to `v`.
fn push_reg_operands(inst: &Inst, v: &mut Vec<RegOperand>) {
    let form = inst.desc();
    let start = v.len();
    for (i, (d, op)) in form.operands.iter().zip(&inst.operands).enumerate() {
        let reg = match (d.kind, op.value) {
            (OpKind::Gpr { .. }, Value::Reg(r)) => r,
            (OpKind::Mem { .. }, Value::Mem { base, .. }) => base,
            (OpKind::CBankIndexed { .. }, Value::CBank { reg: Some(r), .. }) => r,
            _ => continue,
        };
        if reg == RZ {
            continue;
        }
        let width = match d.kind {
            OpKind::CBankIndexed { .. } => 1,
            _ => inst.reg_width(i),
        };
        let first = v[start..].last().map_or(0, |o| o.first + o.width as usize);
        v.push(RegOperand {
            index: i,
            reg,
            width,
            is_def: d.is_def,
            first,
        });
    }
}

/// The general-register operands of every instruction, stored flat.
struct OpTable {
    ops: Vec<RegOperand>,
    /// Start of each instruction's operands in `ops`, by global instruction index (with
    /// one more entry at the end).
    start: Vec<u32>,
    /// Start of each instruction's register components in a per-component array.
    comp: Vec<u32>,
    /// Global index of each block's first instruction.
    block: Vec<usize>,
}

impl OpTable {
    fn new(blocks: &[CodeBlock]) -> OpTable {
        let mut t = OpTable {
            ops: Vec::new(),
            start: vec![0],
            comp: vec![0],
            block: Vec::with_capacity(blocks.len()),
        };
        for b in blocks {
            t.block.push(t.start.len() - 1);
            for e in &b.insts {
                let from = t.ops.len();
                push_reg_operands(&e.inst, &mut t.ops);
                let width: u32 = t.ops[from..].iter().map(|o| o.width as u32).sum();
                t.start.push(t.ops.len() as u32);
                t.comp.push(t.comp.last().expect("starts at 0") + width);
            }
        }
        t
    }
    /// The operands of instruction `i` of block `b`.
    fn at(&self, b: usize, i: usize) -> &[RegOperand] {
        let g = self.block[b] + i;
        &self.ops[self.start[g] as usize..self.start[g + 1] as usize]
    }
    /// Index of the first component of instruction `i` of block `b`.
    fn comp_base(&self, b: usize, i: usize) -> usize {
        self.comp[self.block[b] + i] as usize
    }
    /// Number of instructions of block `b`.
    fn len(&self, b: usize) -> usize {
        let end = self.block.get(b + 1).copied().unwrap_or(self.start.len() - 1);
        end - self.block[b]
    }
}

fn regs_of(o: &RegOperand) -> impl Iterator<Item = u8> {
    (0..o.width).map(move |k| o.reg + k)
}

/// Union-find over web nodes.
struct Nodes(Vec<usize>);

impl Nodes {
    fn add(&mut self) -> usize {
        self.0.push(self.0.len());
        self.0.len() - 1
    }
    fn find(&mut self, mut x: usize) -> usize {
        while self.0[x] != x {
            self.0[x] = self.0[self.0[x]];
            x = self.0[x];
        }
        x
    }
    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.0[b] = a;
        }
    }
}

/// Union-find over webs with each web's offset from its group's base.
struct Groups {
    parent: Vec<usize>,
    offset: Vec<i32>,
}

impl Groups {
    fn find(&mut self, x: usize) -> (usize, i32) {
        if self.parent[x] == x {
            return (x, 0);
        }
        let (root, off) = self.find(self.parent[x]);
        self.parent[x] = root;
        self.offset[x] += off;
        (root, self.offset[x])
    }
    /// Requires `pos(b) = pos(a) + d`; false if that contradicts earlier ties.
    fn tie(&mut self, a: usize, b: usize, d: i32) -> bool {
        let ((ra, oa), (rb, ob)) = (self.find(a), self.find(b));
        if ra == rb {
            return ob == oa + d;
        }
        self.parent[rb] = ra;
        self.offset[rb] = oa + d - ob;
        true
    }
}

/// The webs of the code: a web per register occurrence (operand component).
struct Webs {
    /// Web of each operand component, at the instruction's `OpTable::comp_base` plus
    /// `RegOperand::first` plus the component.
    of: Vec<usize>,
    /// Webs of the registers live into each block.
    live_in: Vec<Vec<(u8, usize)>>,
    count: usize,
}

/// The current node or web of each register.
type Current = [usize; 256];

fn current_from(live_in: &[(u8, usize)]) -> Box<Current> {
    let mut cur = Box::new([NONE; 256]);
    for &(r, n) in live_in {
        cur[r as usize] = n;
    }
    cur
}

/// Live registers after each instruction, and into each block.
struct Liveness {
    after: Vec<Vec<RegSet>>,
    live_in: Vec<RegSet>,
}

fn liveness(blocks: &[CodeBlock], succ: &[Vec<usize>], ops: &OpTable) -> Liveness {
    let n = blocks.len();
    let mut live_in = vec![RegSet::default(); n];
    let transfer = |b: usize, out: RegSet, after: Option<&mut Vec<RegSet>>| {
        let mut live = out;
        let keep = after.is_some();
        let mut record = Vec::with_capacity(if keep { blocks[b].insts.len() } else { 0 });
        for (i, e) in blocks[b].insts.iter().enumerate().rev() {
            if keep {
                record.push(live);
            }
            let predicated = e.inst.guard != PT;
            for o in ops.at(b, i).iter().filter(|o| o.is_def && !predicated) {
                regs_of(o).for_each(|r| live.remove(r));
            }
            for o in ops.at(b, i).iter().filter(|o| !o.is_def) {
                regs_of(o).for_each(|r| live.insert(r));
            }
        }
        if let Some(a) = after {
            record.reverse();
            *a = record;
        }
        live
    };
    loop {
        let mut changed = false;
        for b in (0..n).rev() {
            let mut out = RegSet::default();
            for &s in &succ[b] {
                out.union(&live_in[s]);
            }
            let inn = transfer(b, out, None);
            changed |= live_in[b].union(&inn);
        }
        if !changed {
            break;
        }
    }
    let mut after = vec![Vec::new(); n];
    for b in 0..n {
        let mut out = RegSet::default();
        for &s in &succ[b] {
            out.union(&live_in[s]);
        }
        transfer(b, out, Some(&mut after[b]));
    }
    Liveness { after, live_in }
}

fn build_webs(blocks: &[CodeBlock], succ: &[Vec<usize>], ops: &OpTable, live: &Liveness) -> Webs {
    let mut nodes = Nodes(Vec::new());
    let live_in: Vec<Vec<(u8, usize)>> = live
        .live_in
        .iter()
        .map(|s| s.iter().map(|r| (r, nodes.add())).collect())
        .collect();
    let mut of: Vec<usize> = vec![NONE; *ops.comp.last().expect("starts at 0") as usize];
    let mut exit_nodes: Vec<Box<Current>> = Vec::with_capacity(blocks.len());
    for (b, block) in blocks.iter().enumerate() {
        let mut cur = current_from(&live_in[b]);
        for (i, e) in block.insts.iter().enumerate() {
            for o in ops.at(b, i).iter().filter(|o| !o.is_def) {
                for k in 0..o.width {
                    let r = (o.reg + k) as usize;
                    if cur[r] == NONE {
                        cur[r] = nodes.add();
                    }
                    of[ops.comp_base(b, i) + o.first + k as usize] = cur[r];
                }
            }
            let predicated = e.inst.guard != PT;
            for o in ops.at(b, i).iter().filter(|o| o.is_def) {
                for k in 0..o.width {
                    let r = (o.reg + k) as usize;
                    let n = nodes.add();
                    if predicated && cur[r] != NONE {
                        nodes.union(n, cur[r]);
                    }
                    cur[r] = n;
                    of[ops.comp_base(b, i) + o.first + k as usize] = n;
                }
            }
        }
        exit_nodes.push(cur);
    }
    for b in 0..blocks.len() {
        for &s in &succ[b] {
            for &(r, n) in &live_in[s] {
                let m = exit_nodes[b][r as usize];
                if m != NONE {
                    nodes.union(n, m);
                }
            }
        }
    }
    // Number the webs densely.
    let mut ids = vec![NONE; nodes.0.len()];
    let mut count = 0;
    let mut id = |n: usize, nodes: &mut Nodes| {
        let root = nodes.find(n);
        if ids[root] == NONE {
            ids[root] = count;
            count += 1;
        }
        ids[root]
    };
    for w in of.iter_mut() {
        *w = id(*w, &mut nodes);
    }
    let live_in = live_in
        .into_iter()
        .map(|m| m.into_iter().map(|(r, n)| (r, id(n, &mut nodes))).collect())
        .collect();
    Webs { of, live_in, count }
}

/// A forbidden relation between two groups: `base(self) - base(other) != delta`.
type Edge = (u32, i32);

/// The colouring problem over groups.
struct Problem {
    /// Group root and offset of each web.
    web_group: Vec<(usize, i32)>,
    /// Interference edges of each group.
    edges: Vec<Vec<Edge>>,
    /// Alignment constraints of each group: `(base + residue) % modulus == 0`.
    align: Vec<Vec<(i32, i32)>>,
    /// Copy partners: (group, offset of the copy in it, other group, other offset).
    prefs: Vec<Vec<(i32, usize, i32)>>,
    /// First program position of each group.
    first: Vec<usize>,
    /// Soft interference of each group (same form as `edges`): registers a memory
    /// instruction shortly before one of its definitions is still to read ([`WAR_WINDOW`]).
    soft: Vec<Vec<Edge>>,
    /// Bank partners of each group, kept at the one coloured later: (other group, offset
    /// difference, weight) for two sources of one fixed-latency instruction, which cost a
    /// bubble when their registers share a bank (`bank_costs.rs`).
    banks: Vec<Vec<(u32, i32, u64)>>,
}

/// Instructions after a late reader (a memory instruction, which reads its register sources
/// `ptxc_sass::isa::timing::LATE_READ` cycles after issue) within which a definition of one
/// of its sources would wait for that read: such a definition prefers another register.
const WAR_WINDOW: usize = 3;

/// The register sources of the late readers before instruction `i` of block `b`, within
/// [`WAR_WINDOW`] instructions: (instruction, operand).
fn late_sources<'a>(
    block: &'a CodeBlock,
    ops: &'a OpTable,
    b: usize,
    i: usize,
) -> impl Iterator<Item = (usize, &'a RegOperand)> + 'a {
    (i.saturating_sub(WAR_WINDOW)..i)
        .filter(move |&j| ptxc_sass::isa::access::reads_late(&block.insts[j].inst))
        .flat_map(move |j| ops.at(b, j).iter().filter(|o| !o.is_def).map(move |o| (j, o)))
}

/// The late-read sources (group, offset) before instruction `i` of block `b`, within
/// [`WAR_WINDOW`] instructions.
fn recent_late_reads(
    block: &CodeBlock,
    ops: &OpTable,
    webs: &Webs,
    web_group: &[(usize, i32)],
    b: usize,
    i: usize,
) -> Vec<(usize, i32)> {
    late_sources(block, ops, b, i)
        .flat_map(|(j, o)| (0..o.width).map(move |k| web_group[web_at(webs, ops, b, j, o, k)]))
        .collect()
}

/// The operand component's web.
fn web_at(webs: &Webs, ops: &OpTable, b: usize, i: usize, o: &RegOperand, k: u8) -> usize {
    webs.of[ops.comp_base(b, i) + o.first + k as usize]
}

fn is_copy(inst: &Inst) -> Option<(u8, u8)> {
    let form = inst.desc();
    if form.op != Op::Mov || inst.operands.len() < 2 {
        return None;
    }
    match (inst.operands[0].value, inst.operands[1].value, form.operands[1].kind) {
        (Value::Reg(d), Value::Reg(s), OpKind::Gpr { .. }) if d != RZ && s != RZ => Some((d, s)),
        _ => None,
    }
}

fn build_problem(
    blocks: &[CodeBlock],
    ops: &OpTable,
    webs: &Webs,
    live: &Liveness,
    weights: &[u64],
) -> Option<Problem> {
    let mut groups = Groups {
        parent: (0..webs.count).collect(),
        offset: vec![0; webs.count],
    };
    // Wide operands tie their components.
    let mut aligned: Vec<(usize, i32)> = Vec::new();
    for b in 0..ops.block.len() {
        for i in 0..ops.len(b) {
            for o in ops.at(b, i) {
                let w0 = web_at(webs, ops, b, i, o, 0);
                for k in 1..o.width {
                    if !groups.tie(w0, web_at(webs, ops, b, i, o, k), k as i32) {
                        return None;
                    }
                }
                if o.width > 1 {
                    aligned.push((w0, o.width.next_power_of_two() as i32));
                }
            }
        }
    }
    let web_group: Vec<(usize, i32)> = (0..webs.count).map(|w| groups.find(w)).collect();
    let n = webs.count;
    let first = first_positions(ops, webs, &web_group);
    let mut edges: Vec<Vec<Edge>> = vec![Vec::new(); n];
    // Colouring visits the groups by (first position, root); a group's edges only matter
    // to it towards groups already coloured, so each edge is kept at its later group only.
    let colours_after = |a: usize, b: usize| (first[a], a) > (first[b], b);
    let interfere = |a: usize, b: usize, edges: &mut Vec<Vec<Edge>>| -> bool {
        let ((ga, oa), (gb, ob)) = (web_group[a], web_group[b]);
        if ga == gb {
            return oa != ob || a == b;
        }
        // Duplicates are harmless (colouring forbids a base once either way) and common
        // (a long-lived value meets many definitions); only repeats in a row are dropped.
        let (later, edge) = if colours_after(ga, gb) {
            (ga, (gb as u32, ob - oa))
        } else {
            (gb, (ga as u32, oa - ob))
        };
        if edges[later].last() != Some(&edge) {
            edges[later].push(edge);
        }
        true
    };
    // Everything live at entry interferes.
    if let Some(entry) = webs.live_in.first() {
        let ws: Vec<usize> = entry.iter().map(|&(_, w)| w).collect();
        for (x, &a) in ws.iter().enumerate() {
            for &b in &ws[x + 1..] {
                if !interfere(a, b, &mut edges) {
                    return None;
                }
            }
        }
    }
    // A definition interferes with what is live after it and with the other definitions.
    for b in 0..ops.block.len() {
        let mut cur = current_from(&webs.live_in[b]);
        for i in 0..ops.len(b) {
            let inst_ops = ops.at(b, i);
            for o in inst_ops.iter().filter(|o| o.is_def) {
                for k in 0..o.width {
                    cur[(o.reg + k) as usize] = web_at(webs, ops, b, i, o, k);
                }
            }
            let defs: Vec<usize> = inst_ops
                .iter()
                .filter(|o| o.is_def)
                .flat_map(|o| (0..o.width).map(move |k| (o, k)))
                .map(|(o, k)| web_at(webs, ops, b, i, o, k))
                .collect();
            for (x, &d) in defs.iter().enumerate() {
                for &e in &defs[x + 1..] {
                    if d != e && !interfere(d, e, &mut edges) {
                        return None;
                    }
                }
                for r in live.after[b][i].iter() {
                    let other = cur[r as usize];
                    if other == NONE {
                        return None;
                    }
                    if other != d && !interfere(d, other, &mut edges) {
                        return None;
                    }
                }
            }
        }
    }
    let mut align = vec![Vec::new(); n];
    for (w, m) in aligned {
        let (g, o) = web_group[w];
        align[g].push((o, m));
    }
    let mut prefs = vec![Vec::new(); n];
    for (b, block) in blocks.iter().enumerate() {
        for (i, e) in block.insts.iter().enumerate() {
            if is_copy(&e.inst).is_none() {
                continue;
            }
            let (d, s) = (
                ops.at(b, i).iter().find(|o| o.is_def)?,
                ops.at(b, i).iter().find(|o| !o.is_def)?,
            );
            let (gd, od) = web_group[web_at(webs, ops, b, i, d, 0)];
            let (gs, os) = web_group[web_at(webs, ops, b, i, s, 0)];
            if gd != gs {
                prefs[gd].push((od, gs, os));
                prefs[gs].push((os, gd, od));
            }
        }
    }
    let mut soft = vec![Vec::new(); n];
    for (b, block) in blocks.iter().enumerate() {
        for i in 0..ops.len(b) {
            let reads = recent_late_reads(block, ops, webs, &web_group, b, i);
            if reads.is_empty() {
                continue;
            }
            for o in ops.at(b, i).iter().filter(|o| o.is_def) {
                let (gd, od) = web_group[web_at(webs, ops, b, i, o, 0)];
                for &(gs, os) in &reads {
                    if gs != gd && colours_after(gd, gs) {
                        soft[gd].push((gs as u32, os - od));
                    }
                }
            }
        }
    }
    let banks = bank_partners(blocks, ops, webs, &web_group, &first, weights);
    Some(Problem {
        web_group,
        edges,
        align,
        prefs,
        first,
        soft,
        banks,
    })
}

/// The (group, offset) of each bank source of instruction `i` of block `b`.
fn bank_groups(
    block: &CodeBlock,
    ops: &OpTable,
    webs: &Webs,
    web_group: &[(usize, i32)],
    b: usize,
    i: usize,
) -> Vec<(usize, i32)> {
    let sources = bank_costs::bank_sources(&block.insts[i].inst);
    ops.at(b, i)
        .iter()
        .filter(|o| sources.contains(&o.index))
        .map(|o| web_group[web_at(webs, ops, b, i, o, 0)])
        .collect()
}

/// [`Problem::banks`]: every two sources of a fixed-latency instruction in different groups,
/// kept at the group coloured later, weighted by the instruction's block.
fn bank_partners(
    blocks: &[CodeBlock],
    ops: &OpTable,
    webs: &Webs,
    web_group: &[(usize, i32)],
    first: &[usize],
    weights: &[u64],
) -> Vec<Vec<(u32, i32, u64)>> {
    let mut banks = vec![Vec::new(); web_group.len()];
    for (b, block) in blocks.iter().enumerate() {
        for i in 0..ops.len(b) {
            let srcs = bank_groups(block, ops, webs, web_group, b, i);
            for (x, &(ga, oa)) in srcs.iter().enumerate() {
                for &(gb, ob) in &srcs[x + 1..] {
                    if ga == gb {
                        continue;
                    }
                    let (later, entry) = if (first[ga], ga) > (first[gb], gb) {
                        (ga, (gb as u32, ob - oa, weights[b]))
                    } else {
                        (gb, (ga as u32, oa - ob, weights[b]))
                    };
                    banks[later].push(entry);
                }
            }
        }
    }
    banks
}

/// The bank bubbles of the code with the groups at `base`, each weighted by its block.
fn weighted_bubbles(blocks: &[CodeBlock], a: &Analysis, base: &[i32]) -> u64 {
    let mut total = 0;
    for (b, block) in blocks.iter().enumerate() {
        for i in 0..a.ops.len(b) {
            let srcs = bank_groups(block, &a.ops, &a.webs, &a.problem.web_group, b, i);
            total += a.weights[b] * bank_costs::bubbles(srcs.iter().map(|&(g, off)| base[g] + off));
        }
    }
    total
}

/// The base register of each group in the code as it is.
fn current_bases(blocks: &[CodeBlock], a: &Analysis) -> Vec<i32> {
    let mut base = vec![0; a.problem.web_group.len()];
    for b in 0..blocks.len() {
        for i in 0..a.ops.len(b) {
            for o in a.ops.at(b, i) {
                let (g, off) = a.problem.web_group[web_at(&a.webs, &a.ops, b, i, o, 0)];
                base[g] = o.reg as i32 - off;
            }
        }
    }
    base
}

/// The first program position (instruction index over all blocks) of each group, by root.
fn first_positions(ops: &OpTable, webs: &Webs, web_group: &[(usize, i32)]) -> Vec<usize> {
    let mut first = vec![usize::MAX; webs.count];
    let mut pos = 0usize;
    for b in 0..ops.block.len() {
        for i in 0..ops.len(b) {
            for o in ops.at(b, i) {
                for k in 0..o.width {
                    let g = web_group[web_at(webs, ops, b, i, o, k)].0;
                    first[g] = first[g].min(pos);
                }
            }
            pos += 1;
        }
    }
    first
}

/// The lowest and highest offset of each group's webs (indexed by group root).
fn extents(p: &Problem) -> Vec<Option<(i32, i32)>> {
    let mut ext: Vec<Option<(i32, i32)>> = vec![None; p.web_group.len()];
    for &(g, o) in &p.web_group {
        let e = ext[g].get_or_insert((o, o));
        e.0 = e.0.min(o);
        e.1 = e.1.max(o);
    }
    ext
}

/// The bases `edges` name, given the bases coloured so far, shifted by 256 (a base may be
/// negative when offset 0 is unused).
fn bases_named(edges: &[Edge], base: &[Option<i32>]) -> [u64; 8] {
    let mut named = [0u64; 8];
    for &(other, delta) in edges {
        if let Some(f) = base[other as usize]
            .map(|bo| bo + delta + 256)
            .filter(|f| (0..512).contains(f))
        {
            named[f as usize / 64] |= 1 << (f % 64);
        }
    }
    named
}

/// Whether `b` is among the bases of [`bases_named`].
fn is_named(named: &[u64; 8], b: i32) -> bool {
    let f = b + 256;
    (0..512).contains(&f) && named[f as usize / 64] & (1 << (f % 64)) != 0
}

/// Colours the groups; the base register of each group root (the register of offset 0).
/// With a `limit`, a group avoids its soft interference where a register up to it (or the
/// highest coloured so far) allows.
fn colour(p: &Problem, limit: Option<i32>) -> Option<Vec<i32>> {
    let ext = extents(p);
    let mut order: Vec<usize> = (0..ext.len()).filter(|&g| ext[g].is_some()).collect();
    order.sort_by_key(|&g| (p.first[g], g));
    let mut base: Vec<Option<i32>> = vec![None; ext.len()];
    // The highest register coloured so far: a soft preference may not raise it past `limit`.
    let mut highest = limit.unwrap_or(-1);
    for g in order {
        let (lo, hi) = ext[g].expect("a group");
        let forbidden = bases_named(&p.edges[g], &base);
        let soft = bases_named(&p.soft[g], &base);
        let ok = |b: i32| -> bool {
            b + lo >= 0
                && b + hi < RZ as i32
                && !is_named(&forbidden, b)
                && p.align[g].iter().all(|&(o, m)| (b + o) % m == 0)
        };
        let preferred = p.prefs[g]
            .iter()
            .filter_map(|&(o, other, oo)| base[other].map(|bo| bo + oo - o))
            .find(|&b| ok(b));
        let unhindered = || {
            limit?;
            (-lo..RZ as i32).find(|&b| ok(b) && !is_named(&soft, b) && b + hi <= highest)
        };
        let chosen = preferred
            .or_else(unhindered)
            .or_else(|| (-lo..RZ as i32).find(|&b| ok(b)))?;
        highest = highest.max(chosen + hi);
        base[g] = Some(chosen);
    }
    Some(base.into_iter().map(|b| b.unwrap_or(0)).collect())
}

/// Rewrites the operands with the new colouring and drops copies that became `MOV R, R`.
fn rewrite(blocks: &mut [CodeBlock], ops: &OpTable, webs: &Webs, p: &Problem, base: &[i32]) {
    for (b, block) in blocks.iter_mut().enumerate() {
        for (i, e) in block.insts.iter_mut().enumerate() {
            for o in ops.at(b, i) {
                let (g, off) = p.web_group[web_at(webs, ops, b, i, o, 0)];
                let r = (base[g] + off) as u8;
                let v = &mut e.inst.operands[o.index].value;
                match v {
                    Value::Reg(x) => *x = r,
                    Value::Mem { base, .. } => *base = r,
                    Value::CBank { reg: Some(x), .. } => *x = r,
                    _ => {}
                }
            }
        }
        block
            .insts
            .retain(|e| e.target.is_some() || is_copy(&e.inst).is_none_or(|(d, s)| d != s));
    }
}

/// The highest register the operands use, before and after recolouring, and the number
/// of copies recolouring turns into `MOV R, R`.
fn outcome(
    blocks: &[CodeBlock],
    ops: &OpTable,
    webs: &Webs,
    p: &Problem,
    base: &[i32],
) -> (Option<u8>, Option<u8>, usize) {
    let (mut old, mut new) = (None, None);
    let mut vanishing = 0;
    for (b, block) in blocks.iter().enumerate() {
        for (i, e) in block.insts.iter().enumerate() {
            let at = |o: &RegOperand| {
                let (g, off) = p.web_group[web_at(webs, ops, b, i, o, 0)];
                (base[g] + off) as u8
            };
            for o in ops.at(b, i) {
                old = old.max(Some(o.reg + o.width - 1));
                new = new.max(Some(at(o) + o.width - 1));
            }
            if e.target.is_none() && is_copy(&e.inst).is_some() {
                let d = ops.at(b, i).iter().find(|o| o.is_def);
                let s = ops.at(b, i).iter().find(|o| !o.is_def);
                vanishing += usize::from(d.zip(s).is_some_and(|(d, s)| at(d) == at(s)));
            }
        }
    }
    (old, new, vanishing)
}

/// Definitions of a register a late reader within [`WAR_WINDOW`] instructions before is
/// still to read, before and after recolouring.
fn late_read_waits(blocks: &[CodeBlock], ops: &OpTable, webs: &Webs, p: &Problem, base: &[i32]) -> (usize, usize) {
    let (mut old, mut new) = (0, 0);
    let covers = |r: i32, from: i32, w: u8| (from..from + w as i32).contains(&r);
    for (b, block) in blocks.iter().enumerate() {
        for i in 0..ops.len(b) {
            for o in ops.at(b, i).iter().filter(|o| o.is_def) {
                let (g, off) = p.web_group[web_at(webs, ops, b, i, o, 0)];
                for (j, s) in late_sources(block, ops, b, i) {
                    let (gs, os) = p.web_group[web_at(webs, ops, b, j, s, 0)];
                    old += usize::from(covers(o.reg as i32, s.reg as i32, s.width));
                    new += usize::from(covers(base[g] + off, base[gs] + os, s.width));
                }
            }
        }
    }
    (old, new)
}

/// What recolouring works on: the registers' operands, their webs, the colouring problem
/// and the blocks' weights for bank costs.
struct Analysis {
    ops: OpTable,
    webs: Webs,
    problem: Problem,
    weights: Vec<u64>,
}

/// The webs of `blocks` and their colouring problem; `None` where the registers must stay
/// (HGMMA writes its accumulators asynchronously, until the warpgroup's wait: data flow
/// alone cannot tell when their registers are free) or no colouring keeps the code valid.
fn analyse(blocks: &[CodeBlock]) -> Option<Analysis> {
    if blocks
        .iter()
        .flat_map(|b| &b.insts)
        .any(|e| e.inst.desc().op == Op::Hgmma)
    {
        return None;
    }
    let succ: Vec<Vec<usize>> = (0..blocks.len())
        .map(|b| {
            if blocks[b].insts.is_empty() {
                // An empty block falls through to the next non-empty one.
                (b + 1..blocks.len())
                    .find(|&n| !blocks[n].insts.is_empty())
                    .into_iter()
                    .collect()
            } else {
                successors(blocks, b).into_vec()
            }
        })
        .collect();
    let ops = OpTable::new(blocks);
    let live = liveness(blocks, &succ, &ops);
    let webs = build_webs(blocks, &succ, &ops, &live);
    let weights = bank_costs::block_weights(&succ);
    let problem = build_problem(blocks, &ops, &webs, &live, &weights)?;
    Some(Analysis {
        ops,
        webs,
        problem,
        weights,
    })
}

/// The most registers above the plain colouring's highest that keeping definitions off
/// late-read registers may add (within the room the caller allows).
const MAX_EXTRA: i32 = 4;

/// Recolours the general registers of `blocks` when that needs fewer registers, removes
/// copies or keeps definitions off registers memory accesses are still to read; `room` is
/// the highest register the kernel's occupancy leaves free, which the last may use (at most
/// [`MAX_EXTRA`] above the plain colouring's highest). Then moves webs off shared banks
/// (`bank_moves::spread`). Returns true if the code changed.
pub fn compact(blocks: &mut [CodeBlock], room: Option<i32>) -> bool {
    let Some(a) = analyse(blocks) else {
        return false;
    };
    let (ops, webs, problem) = (&a.ops, &a.webs, &a.problem);
    let Some(plain) = colour(problem, None) else {
        return false;
    };
    // Avoiding late readers' registers may not take more registers than colouring without.
    let ext = extents(problem);
    let highest = |base: &[i32]| -> i32 {
        (0..base.len())
            .filter_map(|g| ext[g].map(|(_, hi)| base[g] + hi))
            .max()
            .unwrap_or(-1)
    };
    let soft = problem.soft.iter().any(|s| !s.is_empty());
    let ceiling = room.map_or(highest(&plain), |r| {
        r.min(highest(&plain) + MAX_EXTRA).max(highest(&plain))
    });
    let base = match soft.then(|| colour(problem, Some(ceiling))).flatten() {
        Some(b) if highest(&b) <= ceiling => b,
        _ => plain,
    };
    // Fewer registers, or as many and fewer instructions or fewer waits for late readers.
    let (old_highest, new_highest, vanishing) = outcome(blocks, ops, webs, problem, &base);
    let (old_waits, new_waits) = if soft {
        late_read_waits(blocks, ops, webs, problem, &base)
    } else {
        (0, 0)
    };
    // Registers above the original allocation's only where the caller gives room for them.
    let within_room = room.is_some() && new_highest.map(i32::from) <= Some(ceiling);
    let better = new_highest < old_highest
        || new_highest == old_highest && (vanishing > 0 || new_waits < old_waits)
        || within_room && new_waits < old_waits;
    // Then webs move to the other bank where the hottest code reads two in one.
    let mut chosen = if better { base } else { current_bases(blocks, &a) };
    let moved = bank_moves::spread(blocks, &a, &mut chosen);
    if better || moved {
        rewrite(blocks, ops, webs, problem, &chosen);
    }
    better || moved
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::emit::Emitted;
    use ptxc_sass::isa::make::make;
    use ptxc_sass::isa::values::MemSize;
    use ptxc_sass::isa::{Arch, Operand, Role};

    fn mov(d: u8, v: u64) -> Emitted {
        let i = make(
            Arch::Sm75,
            Op::Mov,
            &[(Role::Dst, Operand::reg(d)), (Role::B, Operand::imm(v))],
            &[],
        );
        Emitted::new(i.expect("encodable"))
    }

    fn sts(base: u8, offset: i32, data: u8) -> Emitted {
        let addr = Operand::new(Value::Mem {
            base,
            uniform: None,
            offset,
            scale: 0,
        });
        let ops = [(Role::Addr, addr), (Role::Data, Operand::reg(data))];
        Emitted::new(make(Arch::Sm75, Op::Sts, &ops, &[MemSize::B32.set()]).expect("encodable"))
    }

    fn iadd3(d: u8, a: u8, b: u8, c: u8) -> Emitted {
        let r = Operand::reg;
        let ops = [(Role::Dst, r(d)), (Role::A, r(a)), (Role::B, r(b)), (Role::C, r(c))];
        Emitted::new(make(Arch::Sm75, Op::Iadd3, &ops, &[]).expect("encodable"))
    }

    /// The destination register of instruction `i`.
    fn dst(block: &CodeBlock, i: usize) -> u8 {
        match block.insts[i].inst.operands[0].value {
            Value::Reg(r) => r,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_definition_after_a_store_avoids_the_registers_the_store_is_still_to_read() {
        // R0..R4 live at once, three of them summed into R2; R3 is a store's address, R0
        // its data; the next definition (the second address) was given R0, which the store
        // reads after issue: R4 is free and no higher.
        let mut blocks = vec![CodeBlock {
            insts: vec![
                mov(0, 1),
                mov(1, 2),
                mov(2, 3),
                mov(3, 4),
                mov(4, 5),
                iadd3(2, 2, 3, 4),
                mov(3, 0x10),
                sts(3, 0, 0),
                mov(0, 0x20),
                sts(0, 0, 1),
                sts(0, 4, 2),
            ],
        }];
        assert!(compact(&mut blocks, None));
        let b = &blocks[0];
        let second_address = dst(b, 8);
        let first_address = dst(b, 6);
        let first_data = dst(b, 0);
        assert!(
            second_address != first_address && second_address != first_data,
            "R{second_address}"
        );
        assert!(second_address <= 4, "R{second_address}");
    }

    /// R0..R2 live, a store reading R1 and R0, then R0 defined again at once: with no
    /// register free below the highest, the definition keeps R0 (and waits for the store's
    /// read) unless the occupancy leaves room above.
    fn store_then_redefinition() -> Vec<CodeBlock> {
        vec![CodeBlock {
            insts: vec![
                mov(0, 1),
                mov(1, 2),
                mov(2, 3),
                sts(1, 0, 0),
                mov(0, 0x20),
                sts(2, 0, 0),
                sts(2, 4, 1),
            ],
        }]
    }

    #[test]
    fn room_above_the_highest_register_keeps_a_definition_off_a_register_still_to_be_read() {
        let mut tight = store_then_redefinition();
        compact(&mut tight, None);
        let late = [dst(&tight[0], 0), dst(&tight[0], 1)];
        assert!(late.contains(&dst(&tight[0], 4)), "{:?}", dst(&tight[0], 4));
        let mut roomy = store_then_redefinition();
        assert!(compact(&mut roomy, Some(10)));
        let b = &roomy[0];
        let redefined = dst(b, 4);
        assert!(![dst(b, 0), dst(b, 1)].contains(&redefined), "R{redefined}");
        assert!(redefined <= 10, "R{redefined}");
    }

    #[test]
    fn regset_basics() {
        let mut s = RegSet::default();
        s.insert(3);
        s.insert(200);
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![3, 200]);
    }
}
