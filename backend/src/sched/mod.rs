//! Control codes: stall counts, yield, write and read scoreboards and wait masks, computed
//! over the final instruction order (no reordering yet) from the latency tables of the ISA
//! description. The state of outstanding results flows across block boundaries by a
//! dataflow over the CFG, so a block waits only for what its predecessors left pending.

mod state;

use crate::emit::{CodeBlock, Emitted};
use crate::isa::access::{accesses, needs_write_scoreboard, reads_late, Reg};
use crate::isa::make::make;
use crate::isa::{Control, Op};
use crate::isa::timing::{pred_raw, pred_war, pred_waw, raw, war, waw, LatCat};
use state::{BlockState, Pending};

/// Stall after branches and EXIT (as ptxas does).
const BRANCH_STALL: u8 = 5;

/// Assigns control codes to every instruction (and inserts NOPs where a block must wait
/// for results of its predecessors).
pub fn assign_control(blocks: &mut [CodeBlock]) {
    let n = blocks.len();
    let preds = predecessors(blocks);
    let mut entry: Vec<BlockState> = vec![BlockState::default(); n];
    let mut exit: Vec<Option<BlockState>> = vec![None; n];
    // Iterate to a fixed point: exit states only grow (more pending results).
    loop {
        let mut changed = false;
        for b in 0..n {
            let mut state = BlockState::default();
            for &p in &preds[b] {
                if let Some(e) = &exit[p] {
                    state.join(e);
                }
            }
            entry[b] = state.clone();
            let out = schedule_block(&mut blocks[b].insts.clone(), state);
            if exit[b].as_ref() != Some(&out) {
                exit[b] = Some(out);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for b in 0..n {
        schedule_block(&mut blocks[b].insts, entry[b].clone());
    }
}

fn predecessors(blocks: &[CodeBlock]) -> Vec<Vec<usize>> {
    let mut preds = vec![Vec::new(); blocks.len()];
    for (b, blk) in blocks.iter().enumerate() {
        let mut succs = blk.succs.clone();
        let falls_through = blk.insts.last().is_none_or(|e| !ends_flow(e));
        if falls_through && b + 1 < blocks.len() && !succs.contains(&(b + 1)) {
            succs.push(b + 1);
        }
        for s in succs {
            preds[s].push(b);
        }
    }
    preds
}

/// True for an unconditional branch or EXIT.
fn ends_flow(e: &Emitted) -> bool {
    e.inst.unguarded() && matches!(e.inst.desc().op, Op::Bra | Op::Exit)
}

/// Assigns control codes within one block starting from `state`; returns the state at the
/// block's end (times relative to the end).
fn schedule_block(insts: &mut Vec<Emitted>, mut state: BlockState) -> BlockState {
    let mut i = 0;
    while i < insts.len() {
        let inst = &insts[i].inst;
        let acc = accesses(inst);
        let mut earliest = i32::MIN;
        let mut wait = 0u8;
        for r in &acc.reads {
            earliest = earliest.max(state.ready_for_read(r.reg, |w: &Pending| read_latency(w, r.reg, r.cat, r.guard)));
            wait |= state.write_sbs(r.reg);
        }
        for w in &acc.writes {
            earliest = earliest.max(state.ready_for_write(w.reg, |p: &Pending| write_latency(p, w.reg, w.cat)));
            wait |= state.write_sbs(w.reg) | state.read_sbs(w.reg);
        }
        earliest = earliest.max(state.sb_visible(wait));
        if i == 0 && earliest > 0 {
            // The block's first instruction must wait for a predecessor's result: a NOP at
            // time 0 stalls until then.
            insts.insert(0, nop(earliest.min(15) as u8));
            state.issued(0);
            i += 1;
        }
        let t = if i == 0 {
            0
        } else {
            let stall = (earliest - state.last_issue).clamp(1, 15) as u8;
            set_stall(&mut insts[i - 1].inst.ctrl, stall);
            state.last_issue + stall as i32
        };
        state.clear_sbs(wait);
        let inst = &mut insts[i].inst;
        inst.ctrl.wait = wait;
        state.record_reads(&acc.reads, t);
        if needs_write_scoreboard(inst) && !acc.writes.is_empty() {
            let sb = state.alloc_sb(t);
            inst.ctrl.write_sb = sb;
            state.protect_writes(sb, &acc.writes, t);
        } else {
            state.record_writes(&acc.writes, t, inst.guard != crate::isa::PT);
        }
        let late: Vec<Reg> = acc.reads.iter().filter(|r| !r.guard).map(|r| r.reg).collect();
        if reads_late(inst) && !late.is_empty() {
            let sb = state.alloc_sb(t);
            inst.ctrl.read_sb = sb;
            state.protect_reads(sb, &late, t);
        }
        let is_branch = matches!(inst.desc().op, Op::Bra | Op::Exit);
        set_stall(&mut inst.ctrl, if is_branch { BRANCH_STALL } else { 1 });
        state.issued(t);
        i += 1;
    }
    let end = state.last_issue + insts.last().map_or(0, |e| e.inst.ctrl.stall as i32);
    state.rebase(end);
    state
}

fn set_stall(ctrl: &mut Control, stall: u8) {
    ctrl.stall = stall;
    ctrl.yield_ = !(1..=11).contains(&stall);
}

fn nop(stall: u8) -> Emitted {
    let mut inst = make(Op::Nop, &[], &[]).expect("NOP has one form");
    set_stall(&mut inst.ctrl, stall);
    Emitted { inst, target: None }
}

/// Cycles after a pending write until `reg` may be read by a reader of category `cat`.
fn read_latency(w: &Pending, reg: Reg, cat: LatCat, guard: bool) -> i32 {
    match reg {
        Reg::R(_) => raw(w.cat, cat) as i32,
        Reg::P(_) => pred_raw(w.cat, cat, guard) as i32,
    }
}

/// Cycles after a pending access until `reg` may be written by a writer of category `cat`:
/// WAW after a write, WAR after a read.
fn write_latency(p: &Pending, reg: Reg, cat: LatCat) -> i32 {
    let v = match (reg, p.is_read) {
        (Reg::R(_), false) => waw(p.cat, cat, p.predicated),
        (Reg::P(_), false) => pred_waw(p.cat, cat, p.predicated),
        (Reg::R(_), true) => war(p.cat, cat),
        (Reg::P(_), true) => pred_war(p.cat, cat),
    };
    v as i32
}
