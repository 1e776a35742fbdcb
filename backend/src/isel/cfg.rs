//! The block structure of VCode: one block per reachable MIR block, plus an empty block
//! on every critical edge (regalloc2 places edge moves in blocks with a single predecessor
//! or successor). Block parameters and branch arguments carry the SSA values across edges.
//! A short block that one way of a conditional branch runs is selected under a guard at the
//! end of the branching block instead (`ifconvert.rs`) and gets no block of its own; when
//! the branching block is then the join's only predecessor, the join continues the same
//! VCode block, so a row of guarded loads and stores is one block for the scheduler.
//! A back edge of a spin loop goes through its forward-progress latch (`progress.rs`): the
//! latch's test block, which takes the header's parameters (the edge's moves come before
//! it, as in ptxas's code), a block going round it again, and an edge block into the header.

use super::ifconvert::{self, Arm};
use super::{Isel, IselError};
use crate::vcode::{BlockId, MInst, MKind, VBlock};
use ptxc_mir::analysis::dom::reverse_post_order;
use ptxc_mir::ir::{Block, BlockCall, Opcode};
use rustc_hash::FxHashMap as HashMap;

/// A VCode block: a MIR block, or the edge block of successor `n` of a MIR block.
#[derive(Clone, Copy)]
enum Entry {
    Block(Block),
    Edge(Block, usize),
    /// The edge block of successor `n` of a MIR block into its forward-progress latch (the
    /// next block), with the edge's arguments.
    IntoLatch(Block, usize),
    /// The test of the forward-progress latch on back edge `n` of a MIR block, with the
    /// header's parameters; the two blocks after it go round again and into the header.
    Latch(Block, usize),
    /// The latch's way round again (the block before it).
    LatchRetry,
    /// The latch's way into the header of successor `n` of a MIR block (two blocks back).
    LatchExit(Block, usize),
}

/// Where a MIR edge lands in VCode: the target block, or an edge block that jumps there.
struct Edges {
    block_of: HashMap<Block, BlockId>,
    /// `(from, successor index)` -> edge block.
    split: HashMap<(Block, usize), BlockId>,
    /// `(from, successor index)` -> the forward-progress latch the edge enters directly
    /// (with its arguments, as into the header).
    latches: HashMap<(Block, usize), BlockId>,
    /// Blocks that end by absorbing a guarded arm.
    arms: HashMap<Block, Arm>,
    /// Joins of arms that continue the VCode block of the arm's branching block.
    continued: rustc_hash::FxHashSet<Block>,
}

impl Edges {
    /// The join that continues `b`'s VCode block, if one does.
    fn continuation(&self, b: Block) -> Option<(Arm, Block)> {
        let arm = *self.arms.get(&b)?;
        self.continued.contains(&arm.join).then_some((arm, arm.join))
    }

    /// The last MIR block of the VCode block that starts with `b` (its terminator ends it).
    fn chain_end(&self, mut b: Block) -> Block {
        while let Some((_, j)) = self.continuation(b) {
            b = j;
        }
        b
    }
}

/// Builds the VCode blocks and selects every instruction.
pub fn build(isel: &mut Isel) -> Result<(), IselError> {
    let func = isel.func;
    // Reverse post-order: every block after its dominators (regalloc2's heuristics and its
    // checker assume block parameters are mostly defined before they are used).
    let preds = func.predecessors();
    let mut arms = ifconvert::find(func, &|b| preds[b].len());
    if !isel.if_convert {
        arms.clear();
    }
    // The header of a spin loop keeps the branches into it: its back edges get latches.
    arms.retain(|_, arm| !isel.spin_headers.contains(&arm.join));
    let dom = (!isel.spin_headers.is_empty()).then(|| ptxc_mir::analysis::dom::DomTree::new(func));
    let is_latch_edge =
        |from: Block, to: Block| isel.spin_headers.contains(&to) && dom.as_ref().is_some_and(|d| d.dominates(to, from));
    // A join with tuple parameters keeps its branches (SEL merges single values and pairs).
    arms.retain(|_, arm| !isel.has_tuple_params(arm.join));
    // Nor does a join with pinned accumulator parameters (SEL would not write their registers).
    arms.retain(|_, arm| !isel.has_pinned_params(arm.join));
    // Kernels with warpgroup MMAs keep their branches: Triton's masked element loads there
    // would keep dozens of guards live at once (P0..P6 hold seven; the rest move to general
    // registers and spill). Measured on the simulator (`tests/sim_hopper_wgmma.rs`, H100
    // model), the branches are faster: 64x64 tiles 10651 against 22947 cycles, 64x32 4964
    // against 7601, 64x128 85026 against 97192.
    if func.insts.values().any(|d| d.op == ptxc_mir::ir::Opcode::Wgmma) {
        arms.clear();
    }
    let entry = func.layout.first().copied();
    let continued: rustc_hash::FxHashSet<Block> = arms
        .iter()
        .filter(|&(&a, arm)| {
            let p = &preds[arm.join];
            Some(arm.join) != entry && p.len() == 2 && p.contains(&a) && p.contains(&arm.body)
        })
        .map(|(_, arm)| arm.join)
        .collect();
    let bodies: rustc_hash::FxHashSet<Block> = arms.values().map(|arm| arm.body).collect();
    let order: Vec<Block> = reverse_post_order(func)
        .into_iter()
        .filter(|b| !bodies.contains(b) && !continued.contains(b))
        .collect();
    let mut edges = Edges {
        block_of: HashMap::default(),
        split: HashMap::default(),
        latches: HashMap::default(),
        arms,
        continued,
    };
    let mut next = 0u32;
    let mut layout: Vec<Entry> = Vec::new();
    for &b in &order {
        edges.block_of.insert(b, BlockId(next));
        layout.push(Entry::Block(b));
        next += 1;
        let end = edges.chain_end(b);
        let succs = match edges.arms.get(&end) {
            Some(arm) => smallvec::smallvec![arm.join],
            None => func.successors(end),
        };
        let same_twice = succs.len() == 2 && succs[0] == succs[1];
        for (i, s) in succs.iter().enumerate() {
            if is_latch_edge(end, *s) {
                if succs.len() > 1 {
                    // A critical edge into the latch (the retry block enters it too).
                    edges.split.insert((end, i), BlockId(next));
                    layout.push(Entry::IntoLatch(end, i));
                    next += 1;
                } else {
                    edges.latches.insert((end, i), BlockId(next));
                }
                layout.extend([Entry::Latch(end, i), Entry::LatchRetry, Entry::LatchExit(end, i)]);
                next += 3;
            } else if succs.len() > 1 && (preds[*s].len() > 1 || same_twice) {
                edges.split.insert((end, i), BlockId(next));
                layout.push(Entry::Edge(end, i));
                next += 1;
            }
        }
    }
    isel.vcode.blocks = vec![VBlock::default(); layout.len()];
    for (id, entry) in layout.iter().enumerate() {
        let start = isel.vcode.insts.len() as u32;
        match *entry {
            Entry::Block(b) => select_block(isel, &edges, b, id)?,
            Entry::Edge(from, i) => {
                let call = edge_call(func, from, i);
                edge_block(isel, id, call, edges.block_of[&call.block]);
            }
            Entry::IntoLatch(from, i) => edge_block(isel, id, edge_call(func, from, i), BlockId(id as u32 + 1)),
            Entry::Latch(from, i) => latch_block(isel, from, i, id)?,
            Entry::LatchRetry => {
                isel.start_block();
                let params = isel.vcode.blocks[id - 1].params.clone();
                jump_block(isel, id, BlockId(id as u32 - 1), params);
            }
            Entry::LatchExit(from, i) => {
                isel.start_block();
                let params = isel.vcode.blocks[id - 2].params.clone();
                jump_block(isel, id, edges.block_of[&edge_call(func, from, i).block], params);
            }
        }
        let end = isel.vcode.insts.len() as u32;
        let blk = &mut isel.vcode.blocks[id];
        blk.start = start;
        blk.end = end;
    }
    isel.vcode.compute_preds();
    Ok(())
}

fn select_block(isel: &mut Isel, edges: &Edges, b: Block, id: usize) -> Result<(), IselError> {
    isel.start_block();
    let func = isel.func;
    let params = isel.block_params(b);
    isel.vcode.blocks[id].params = params;
    let mut cur = Some(b);
    while let Some(m) = cur.take() {
        for &inst in &func.blocks[m].insts {
            if isel.is_fused(inst) {
                continue;
            }
            let data = &func.insts[inst];
            isel.srcloc = func.srclocs[inst];
            if !data.op.is_terminator() {
                isel.lower_inst(inst)?;
            } else if let Some((arm, join)) = edges.continuation(m) {
                // The join goes on in this block, its parameters named by the arguments.
                let args = isel.absorb_arm(m, arm)?;
                for (&p, &v) in func.blocks[join].params.iter().zip(&args) {
                    isel.alias(p, v);
                }
                cur = Some(join);
            } else {
                terminator(isel, edges, m, id, inst)?;
            }
        }
    }
    isel.srcloc = ptxc_mir::ir::SrcLoc::NONE;
    let out = std::mem::take(&mut isel.out);
    isel.vcode.insts.extend(out);
    Ok(())
}

fn terminator(isel: &mut Isel, edges: &Edges, b: Block, id: usize, inst: ptxc_mir::ir::Inst) -> Result<(), IselError> {
    let func = isel.func;
    if let Some(&arm) = edges.arms.get(&b) {
        let args = isel.absorb_arm(b, arm)?;
        let target = edges.block_of[&arm.join];
        isel.push_jump(target);
        let blk = &mut isel.vcode.blocks[id];
        blk.succs = vec![target];
        blk.succ_args = vec![args];
        return Ok(());
    }
    let data = &func.insts[inst];
    let mut succs = Vec::new();
    let mut succ_args: Vec<Vec<crate::vcode::VReg>> = Vec::new();
    for (i, call) in data.targets().iter().enumerate() {
        match edges.split.get(&(b, i)) {
            Some(&e) => {
                succs.push(e);
                succ_args.push(Vec::new());
            }
            None => {
                let into_latch = edges.latches.get(&(b, i)).copied();
                succs.push(into_latch.unwrap_or(edges.block_of[&call.block]));
                succ_args.push(isel.edge_args(call.block, &call.args));
            }
        }
    }
    if data.op == Opcode::Jump {
        let to = data.targets()[0].block;
        if let Some((merge, &back)) = isel.called_from(b).and_then(|m| Some((m, edges.block_of.get(&m)?))) {
            isel.call_slow_path(merge, back, succs[0]);
        } else if isel.returns_to(to) {
            isel.return_from_slow_path(to, succs[0]);
        } else {
            isel.push(MInst::new(MKind::Jump(succs[0])));
        }
        let blk = &mut isel.vcode.blocks[id];
        blk.succs = succs;
        blk.succ_args = succ_args;
        return Ok(());
    }
    let kind = match data.op {
        Opcode::Exit => MKind::Exit,
        Opcode::Return => MKind::FuncReturn,
        Opcode::Trap => MKind::Trap,
        Opcode::Brif => {
            // A constant condition (`PT`, `!PT`, or the `not` of one, which is not selected
            // itself) lives in a predicate register like any other.
            let (cond, neg, constant) = match isel.pred(data.args[0]) {
                crate::vcode::MOp::Pred(cond, neg) => (cond, neg, false),
                crate::vcode::MOp::Fixed(val @ ptxc_sass::isa::Value::Pred { .. }) => {
                    (isel.constant_pred_reg(val), false, true)
                }
                _ => (isel.reg(data.args[0]), false, true),
            };
            MKind::CondJump {
                cond,
                neg,
                taken: succs[0],
                not_taken: succs[1],
                uniform: isel.uniform_branches && (constant || isel.divergence.is_uniform(data.args[0])),
                active_agree: false,
            }
        }
        other => return Err(isel.unsupported(format!("terminator {other:?}"))),
    };
    isel.push(MInst::new(kind));
    let blk = &mut isel.vcode.blocks[id];
    blk.succs = succs;
    blk.succ_args = succ_args;
    Ok(())
}

/// The test of a forward-progress latch (`progress.rs`) at `id`, on back edge `i` of `from`,
/// with parameters like the header's: the block after it goes round again, the one after
/// that enters the header.
fn latch_block(isel: &mut Isel, from: Block, i: usize, id: usize) -> Result<(), IselError> {
    let func = isel.func;
    let header = edge_call(func, from, i).block;
    let params: Vec<_> = isel
        .block_params(header)
        .into_iter()
        .map(|p| {
            let class = isel.vcode.class(p);
            isel.vcode.new_vreg(class)
        })
        .collect();
    isel.start_block();
    let (retry, exit) = (BlockId(id as u32 + 1), BlockId(id as u32 + 2));
    isel.srcloc = func.srclocs[func.terminator(from).expect("terminator")];
    isel.spin_latch(exit, retry)?;
    isel.srcloc = ptxc_mir::ir::SrcLoc::NONE;
    end_block(isel, id, vec![exit, retry], vec![Vec::new(), Vec::new()]);
    isel.vcode.blocks[id].params = params;
    Ok(())
}

/// Ends the block at `id` (started by the caller) with a jump to `target` with `args`.
fn jump_block(isel: &mut Isel, id: usize, target: BlockId, args: Vec<crate::vcode::VReg>) {
    isel.push(MInst::new(MKind::Jump(target)));
    end_block(isel, id, vec![target], vec![args]);
}

/// Moves the selected instructions into the block at `id`, whose last instruction (already
/// pushed) goes to `succs` with `succ_args`.
fn end_block(isel: &mut Isel, id: usize, succs: Vec<BlockId>, succ_args: Vec<Vec<crate::vcode::VReg>>) {
    let out = std::mem::take(&mut isel.out);
    isel.vcode.insts.extend(out);
    let blk = &mut isel.vcode.blocks[id];
    blk.succs = succs;
    blk.succ_args = succ_args;
}

/// Successor `i` of MIR block `from`'s terminator.
fn edge_call(func: &ptxc_mir::ir::Function, from: Block, i: usize) -> &BlockCall {
    &func.insts[func.terminator(from).expect("terminator")].targets()[i]
}

/// The block at `id` on the edge `call`: its arguments, then a jump to `target`.
fn edge_block(isel: &mut Isel, id: usize, call: &BlockCall, target: BlockId) {
    isel.start_block();
    let args = isel.edge_args(call.block, &call.args);
    jump_block(isel, id, target, args);
}
