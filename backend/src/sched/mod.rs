//! Control codes: stall counts, yield, write and read scoreboards and wait masks, computed
//! over the final instruction order (no reordering yet) from the latency tables of the ISA
//! description. The state of outstanding results flows across block boundaries by a
//! dataflow over the CFG, so a block waits only for what its predecessors left pending.

mod barrier_motion;
pub mod budget;
mod dag;
pub mod heuristics;
pub mod list;
pub mod pre_ra;
mod reuse;
mod state;

use crate::emit::{CodeBlock, Emitted, successors};
use ptxc_sass::isa::Arch;
use ptxc_sass::isa::access::{Accesses, Reg, accesses, needs_write_scoreboard, reads_late};
use ptxc_sass::isa::make::make;
use ptxc_sass::isa::timing::{LatCat, address_unit, pred_raw_on, pred_war, pred_waw, raw_on, war, waw};
use ptxc_sass::isa::uniform_timing::{upred_raw, upred_war, upred_waw, uraw, uwar, uwaw};
use ptxc_sass::isa::{Control, Op};
use smallvec::SmallVec;
use state::{BlockState, Pending};

/// The scoreboard of the asynchronous-copy groups: every LDGDEPBAR sets it, `DEPBAR.LE
/// SB0, n` waits on it (ptxas's choice), and no other instruction of a kernel that has an
/// LDGDEPBAR uses it.
pub const COPY_SB: u8 = 0;

/// Stall after branches, EXIT, BSYNC, WARPSYNC, barriers, memory fences and cache invalidations (as
/// ptxas gives them: docs/TIMING-SM75.md 6.3).
const BRANCH_STALL: u8 = 5;

/// A wait mask of all six scoreboards.
const ALL_SCOREBOARDS: u8 = 0x3f;

/// Assigns control codes to every instruction (and inserts NOPs where a block must wait
/// for results of its predecessors).
pub fn assign_control(blocks: &mut [CodeBlock], arch: Arch) {
    let n = blocks.len();
    if n == 0 {
        return;
    }
    let succs = block_successors(blocks);
    let preds = predecessors(&succs);
    // The registers each instruction touches, computed once for every visit of its block.
    let accs: Vec<Vec<Accesses>> = blocks
        .iter()
        .map(|b| b.insts.iter().map(|e| accesses(&e.inst)).collect())
        .collect();
    let has_copies = blocks
        .iter()
        .flat_map(|b| &b.insts)
        .any(|e| matches!(e.inst.desc().op, Op::Ldgdepbar | Op::Utmacmdflush));
    let reserved = if has_copies { 1 << COPY_SB } else { 0 };
    let writes = writes_per_block(&accs);
    // A register is overwritten "later" if another block writes it (conservative across the CFG).
    let mut writers: rustc_hash::FxHashMap<Reg, usize> = rustc_hash::FxHashMap::default();
    for (w, _) in writes.iter().flatten() {
        *writers.entry(*w).or_default() += 1;
    }
    // Whether `r` is written by another block, or in block `b` by more instructions than
    // the `own` (0 or 1) of the reader itself.
    let written_elsewhere = |b: usize, r: Reg, own: u32| {
        let here_count = writers_in(&writes[b], r);
        let here = usize::from(here_count > 0);
        writers.get(&r).copied().unwrap_or(0) > here || here_count > own
    };
    let mut entry: Vec<BlockState> = vec![BlockState::default(); n];
    let mut exit: Vec<Option<BlockState>> = vec![None; n];
    // A worklist to a fixed point. Each new exit state is joined into the old one, so exit
    // states only grow (more pending results) in a finite lattice (times are clamped to the
    // horizon by `rebase`) and the loop ends even where scoreboard choices would oscillate.
    // Blocks in reverse post-order (unreachable ones last), always the earliest queued
    // first: forward edges then see their predecessors' final states, which halves the
    // number of block visits against a FIFO in layout order.
    let mut by_rank = crate::vcode::graph::reverse_post_order(&succs, 0);
    let mut rank = vec![usize::MAX; n];
    for (i, &b) in by_rank.iter().enumerate() {
        rank[b] = i;
    }
    for (b, r) in rank.iter_mut().enumerate() {
        if *r == usize::MAX {
            *r = by_rank.len();
            by_rank.push(b);
        }
    }
    let mut work: std::collections::BTreeSet<usize> = (0..n).collect();
    let mut scheduled: Vec<Option<Vec<Emitted>>> = vec![None; n];
    let mut exit_pad: Vec<u8> = vec![0; n];
    // The pad each block was last scheduled with.
    let mut padded: Vec<u8> = vec![0; n];
    while let Some(r) = work.pop_first() {
        let b = by_rank[r];
        let mut state = BlockState::default();
        for &p in &preds[b] {
            if let Some(e) = &exit[p] {
                state.join(e);
            }
        }
        if exit[b].is_some() && entry[b] == state && padded[b] == exit_pad[b] {
            // Same input, same result: nothing to propagate.
            continue;
        }
        if let Some(forward) = preheader_waits(b, &state, &preds[b], &succs, &exit, &rank, blocks, &accs, arch) {
            // The loop head would wait for its preheaders' results on every iteration: the
            // preheaders wait once instead, and the head is visited again after them.
            for (p, cycles) in forward {
                if cycles > exit_pad[p] {
                    exit_pad[p] = cycles;
                    // Its exit state starts again from the padded schedule (pads only grow,
                    // so this happens a bounded number of times).
                    exit[p] = None;
                    work.insert(rank[p]);
                }
            }
            work.insert(r);
            if work.first() != Some(&r) {
                continue;
            }
        }
        entry[b] = state.clone();
        padded[b] = exit_pad[b];
        let mut insts = blocks[b].insts.clone();
        let mut out = schedule_block(&mut insts, &accs[b], state, arch, reserved, exit_pad[b], &|r, own| {
            written_elsewhere(b, r, own)
        });
        // The last visit ran from the final entry state: its code is the result.
        scheduled[b] = Some(insts);
        if let Some(old) = &exit[b] {
            out.join(old);
        }
        if exit[b].as_ref() != Some(&out) {
            exit[b] = Some(out);
            for &s in &succs[b] {
                work.insert(rank[s]);
            }
        }
    }
    for b in 0..n {
        match scheduled[b].take() {
            Some(insts) => blocks[b].insts = insts,
            None => {
                schedule_block(
                    &mut blocks[b].insts,
                    &accs[b],
                    entry[b].clone(),
                    arch,
                    reserved,
                    exit_pad[b],
                    &|r, own| written_elsewhere(b, r, own),
                );
            }
        }
        reuse::align_commuted_sources(&mut blocks[b].insts);
        reuse::set_reuse_flags(&mut blocks[b].insts);
    }
}

/// Instructions at the start of a loop head whose waits for its forward predecessors' results
/// those predecessors take over when each of them leads only to the head
/// ([`preheader_waits`]; else the first instruction's alone).
const HEAD_WAITS: usize = 4;

/// For a loop head `b` (a block with a predecessor not before it in reverse post-order)
/// one of whose first [`HEAD_WAITS`] instructions (the first alone when a forward
/// predecessor also leads elsewhere: a preheader's pad costs that path too) must wait at
/// entry (`state`) beyond its place in the block, only because of its forward predecessors'
/// results: those predecessors with the cycles each must add at its end. (`mandelbrot`'s
/// preheader ends with `MOV R6, R5`, which the loop head's second instruction reads: without
/// this every iteration stalled 4 cycles for it; ptxas puts `S05` on the preheader's last
/// MOV.)
#[allow(clippy::too_many_arguments)]
fn preheader_waits(
    b: usize,
    state: &BlockState,
    preds: &[usize],
    succs: &[Vec<usize>],
    exit: &[Option<BlockState>],
    rank: &[usize],
    blocks: &[CodeBlock],
    accs: &[Vec<Accesses>],
    arch: Arch,
) -> Option<Vec<(usize, u8)>> {
    if blocks[b].insts.is_empty() {
        return None;
    }
    let only_to_head = preds
        .iter()
        .filter(|&&p| rank[p] < rank[b])
        .all(|&p| succs[p].len() == 1);
    let head = if only_to_head { HEAD_WAITS } else { 1 };
    let wait_after = |s: &BlockState| {
        blocks[b]
            .insts
            .iter()
            .zip(&accs[b])
            .take(head)
            .enumerate()
            .map(|(j, (i, a))| earliest_issue(&i.inst, a, s, arch).0.saturating_sub(j as i32))
            .max()
            .unwrap_or(0)
    };
    if wait_after(state) <= 0 || !preds.iter().any(|&p| rank[p] >= rank[b]) {
        return None;
    }
    let mut forward = Vec::new();
    for &p in preds {
        let Some(e) = exit[p].as_ref() else { continue };
        let w = wait_after(e);
        if w <= 0 {
            continue;
        }
        if rank[p] >= rank[b] || w > 15 || blocks[p].insts.is_empty() {
            return None;
        }
        forward.push((p, w as u8));
    }
    Some(forward)
}

/// Registers written by each block with the number of its instructions that write each (a
/// late reader needs a read scoreboard only if a source register is written again afterwards).
fn writes_per_block(accs: &[Vec<Accesses>]) -> Vec<Vec<(Reg, u32)>> {
    accs.iter()
        .map(|b| {
            let mut regs: Vec<Reg> = Vec::new();
            for a in b {
                let start = regs.len();
                for w in &a.writes {
                    if !regs[start..].contains(&w.reg) {
                        regs.push(w.reg);
                    }
                }
            }
            regs.sort();
            let mut counts: Vec<(Reg, u32)> = Vec::new();
            for r in regs {
                match counts.last_mut() {
                    Some((last, n)) if *last == r => *n += 1,
                    _ => counts.push((r, 1)),
                }
            }
            counts
        })
        .collect()
}

/// Number of instructions of a block that write `r` (from `writes_per_block`).
fn writers_in(counts: &[(Reg, u32)], r: Reg) -> u32 {
    counts
        .binary_search_by_key(&r, |&(reg, _)| reg)
        .map_or(0, |k| counts[k].1)
}

/// How many instructions after a late-reading instruction its source registers may be
/// written again without a read scoreboard, on sm_75, where ptxas 13.5 leaves them
/// unprotected that close (`scripts/late-read-distances`, `docs/TIMING-SM75.md` section
/// 6.2): FP64 arithmetic, `F2I`, `I2F` and `SHFL` from 6 instructions on (ptxas: from 1 to
/// 4), shared-memory loads and stores from 8 (ptxas: 7 and 8), `MUFU` from 18 (ptxas: 18;
/// it protects one at 2, and on sm_80 and sm_90 at 5 to 7). Every other late reader (global,
/// generic and local accesses, atomics: ptxas protects global loads at every distance) and
/// every other target: None, always protected.
fn late_read_window(inst: &ptxc_sass::isa::Inst, arch: Arch) -> Option<usize> {
    if arch != Arch::Sm75 {
        return None;
    }
    match inst.desc().op {
        Op::Dfma | Op::Dadd | Op::Dmul | Op::F2i | Op::I2f | Op::Shfl => Some(LATE_READ_WINDOW),
        Op::Lds | Op::Sts => Some(SHARED_LATE_READ_WINDOW),
        Op::Mufu => Some(MUFU_LATE_READ_WINDOW),
        _ => None,
    }
}

/// The distance (instructions, so at least as many cycles) from which a register read late
/// by FP64 arithmetic, a conversion or a shuffle is written again without a read scoreboard:
/// `LATE_READ + SB_VISIBLE`, the simulator's release.
const LATE_READ_WINDOW: usize = (ptxc_sass::isa::timing::LATE_READ + ptxc_sass::isa::timing::SB_VISIBLE) as usize;

/// The distance from which ptxas leaves the sources of a shared-memory access unprotected.
const SHARED_LATE_READ_WINDOW: usize = 8;

/// The distance from which ptxas leaves the source of a `MUFU` unprotected.
const MUFU_LATE_READ_WINDOW: usize = 18;

/// True if `r`, read late by instruction `at` of a block with accesses `accs`, may be
/// written again within `window` instructions (each issues at least a cycle after the one
/// before it, on every path): by a later instruction of the block that close, or by any
/// other writer (`elsewhere`, with `own` writes of the reader itself; in another block, or
/// earlier in this one) when the block ends that close.
fn written_within(
    accs: &[Accesses],
    at: usize,
    r: Reg,
    elsewhere: &dyn Fn(Reg, u32) -> bool,
    own: u32,
    window: usize,
) -> bool {
    let writes = |a: &Accesses| a.writes.iter().any(|w| w.reg == r);
    let near = accs[at + 1..accs.len().min(at + window)].iter().any(writes);
    let later = accs[at + 1..].iter().filter(|a| writes(a)).count() as u32;
    near || (accs.len() - at < window && elsewhere(r, own + later))
}

/// How far ahead a shared scoreboard's registers are looked for ([`next_need`]).
const NEED_WINDOW: usize = 64;

/// How many of the instructions `ahead` (the rest of the block) come before the first that
/// needs a register of a scoreboard: reads or writes one of `written` (its pending writes)
/// or writes one of `read_late` (its late reads); [`NEED_WINDOW`] when none does that close.
fn next_need(ahead: &[Accesses], written: &[Reg], read_late: &[Reg]) -> usize {
    let needs = |a: &Accesses| {
        a.writes
            .iter()
            .any(|w| written.contains(&w.reg) || read_late.contains(&w.reg))
            || a.reads.iter().any(|r| written.contains(&r.reg))
    };
    ahead.iter().take(NEED_WINDOW).position(needs).unwrap_or(NEED_WINDOW)
}

/// Successors of every block. An empty block (a branch may still target it: it has the
/// address of the block that follows) falls through to the next non-empty block, so the
/// state a branch to it carries reaches that block.
fn block_successors(blocks: &[CodeBlock]) -> Vec<Vec<usize>> {
    (0..blocks.len())
        .map(|b| {
            if blocks[b].insts.is_empty() {
                (b + 1..blocks.len())
                    .find(|&n| !blocks[n].insts.is_empty())
                    .into_iter()
                    .collect()
            } else {
                successors(blocks, b).into_vec()
            }
        })
        .collect()
}

/// Predecessors of every block, from the successor lists.
fn predecessors(succs: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut preds = vec![Vec::new(); succs.len()];
    for (b, ss) in succs.iter().enumerate() {
        for &s in ss {
            preds[s].push(b);
        }
    }
    preds
}

/// Assigns control codes within one block starting from `state`; returns the state at the
/// block's end (times relative to the end). `accs`: the accesses of `insts`. `reserved`:
/// scoreboards (a mask) left to LDGDEPBAR. `exit_pad`: cycles added to the last stall
/// (a loop's preheader settling results the loop head would otherwise wait for).
fn schedule_block(
    insts: &mut Vec<Emitted>,
    accs: &[Accesses],
    mut state: BlockState,
    arch: Arch,
    reserved: u8,
    exit_pad: u8,
    elsewhere: &dyn Fn(Reg, u32) -> bool,
) -> BlockState {
    if insts.is_empty() {
        // An empty block passes its entry state on unchanged.
        return state;
    }
    let mut i = 0;
    // NOPs inserted so far (a waiting NOP before the block's first instruction, or one that
    // carries a wait longer than a stall count); `at_nop`: `insts[i]` is one of them.
    let mut inserted = 0;
    let mut at_nop = false;
    let no_accesses = Accesses::default();
    while i < insts.len() {
        let inst = &insts[i].inst;
        let acc = if at_nop { &no_accesses } else { &accs[i - inserted] };
        at_nop = false;
        let (earliest, wait) = earliest_issue(inst, acc, &state, arch);
        let op = inst.desc().op;
        if i == 0 && earliest > 0 {
            // The block's first instruction must wait for a predecessor's result: a NOP at
            // time 0 stalls until then.
            insts.insert(0, nop(arch, earliest.min(15) as u8));
            state.issued(0);
            i += 1;
            inserted += 1;
        }
        let t = if i == 0 {
            0
        } else {
            // At least the previous instruction's own minimum (1, or 5 after barriers).
            let min_gap = insts[i - 1].inst.ctrl.stall.max(1) as i32;
            let need = earliest.max(state.last_issue + min_gap) - state.last_issue;
            if need > 15 && op != Op::Call {
                // No stall count reaches that far (an Ampere MMA_2x result read by the next
                // instruction): a NOP in between carries the rest of the wait. (A CALL's
                // wait for every result to settle stays capped at 15, as before: the callee
                // does not read its arguments in its first cycles.)
                insts.insert(i, nop(arch, 1));
                inserted += 1;
                at_nop = true;
                continue;
            }
            let stall = need.min(15) as u8;
            set_stall(&mut insts[i - 1].inst.ctrl, stall);
            state.last_issue + stall as i32
        };
        state.clear_sbs(wait);
        // The rest of the block, for a scoreboard this instruction shares (`next_need`).
        let ahead = accs.get(i - inserted + 1..).unwrap_or(&[]);
        let inst = &mut insts[i].inst;
        inst.ctrl.wait = wait;
        state.record_reads(&acc.reads, t);
        if op == Op::Ldgdepbar {
            inst.ctrl.write_sb = COPY_SB;
            state.mark_sb(COPY_SB, t);
        } else if op == Op::Utmacmdflush {
            // The bulk group's flush: a read scoreboard, as ptxas 13.5 sets it, which
            // `DEPBAR.LE SB0, n` waits for.
            inst.ctrl.read_sb = COPY_SB;
            state.mark_sb(COPY_SB, t);
        } else if needs_write_scoreboard(inst) && !acc.writes.is_empty() {
            let sb = state.alloc_sb(reserved, |w, r| next_need(ahead, w, r));
            inst.ctrl.write_sb = sb;
            state.protect_writes(sb, &acc.writes, t);
        } else {
            state.record_writes(&acc.writes, t, inst.guard != ptxc_sass::isa::PT);
        }
        let late: SmallVec<[Reg; 8]> = acc.reads.iter().filter(|r| !r.guard).map(|r| r.reg).collect();
        // Any other writer of a source (in this block, loops included, or another one);
        // for the kinds of instruction `late_read_window` names, only one that close.
        let window = late_read_window(inst, arch);
        let overwritten = late.iter().any(|&r| {
            let own = u32::from(acc.writes.iter().any(|w| w.reg == r));
            elsewhere(r, own) && window.is_none_or(|w| written_within(accs, i - inserted, r, elsewhere, own, w))
        });
        let inst = &mut insts[i].inst;
        // A CALL takes no read scoreboard (nvdisasm rejects one): its target register is
        // next written after the callee returned. Nor does a WARPSYNC (nvdisasm rejects one
        // on WARPSYNC.EXCLUSIVE R, ptxas sets none): it settles like a branch instead.
        if reads_late(inst) && overwritten && !matches!(inst.desc().op, Op::Call | Op::Ret | Op::Warpsync) {
            let sb = state.alloc_sb(reserved, |w, r| next_need(ahead, w, r));
            inst.ctrl.read_sb = sb;
            state.protect_reads(sb, &late, t);
        }
        let settles = matches!(
            inst.desc().op,
            Op::Bra
                | Op::Exit
                | Op::Bpt
                | Op::Bsync
                | Op::Bar
                | Op::Membar
                | Op::Cctl
                | Op::Cctll
                | Op::Call
                | Op::Ret
                | Op::Warpsync
        );
        set_stall(&mut inst.ctrl, if settles { BRANCH_STALL } else { 1 });
        state.issued(t);
        i += 1;
    }
    if let Some(last) = insts.last_mut().filter(|_| exit_pad > 0) {
        let stall = (last.inst.ctrl.stall + exit_pad).min(15);
        set_stall(&mut last.inst.ctrl, stall);
    }
    let end = state.last_issue + insts.last().map_or(0, |e| e.inst.ctrl.stall as i32);
    state.rebase(end);
    state
}

/// The earliest issue time of `inst` (accessing `acc`) in `state`, and the scoreboards it
/// must wait on.
fn earliest_issue(inst: &ptxc_sass::isa::Inst, acc: &Accesses, state: &BlockState, arch: Arch) -> (i32, u8) {
    let address_unit = address_unit(inst.desc().op, inst.desc().meta.pipe);
    let mut earliest = i32::MIN;
    let mut wait = 0u8;
    for r in &acc.reads {
        earliest = earliest.max(state.ready_for_read(r.reg, |w: &Pending| {
            read_latency(arch, w, r.reg, r.cat, r.guard, address_unit)
        }));
        wait |= state.write_sbs(r.reg);
    }
    for w in &acc.writes {
        earliest = earliest.max(state.ready_for_write(w.reg, |p: &Pending| write_latency(arch, p, w.reg, w.cat)));
        wait |= state.write_sbs(w.reg) | state.read_sbs(w.reg);
    }
    if matches!(inst.desc().op, Op::Call | Op::Ret) {
        // The callee reads what the caller left anywhere, and the code returned to what
        // the callee left: every result must be complete.
        wait = ALL_SCOREBOARDS;
        earliest = earliest.max(state.settled());
    }
    earliest = earliest.max(state.sb_visible(wait));
    if inst.desc().op == Op::Depbar {
        // DEPBAR.LE SB0 reads the copy groups' counter.
        earliest = earliest.max(state.sb_visible(1 << COPY_SB));
    }
    (earliest, wait)
}

fn set_stall(ctrl: &mut Control, stall: u8) {
    ctrl.stall = stall;
    ctrl.yield_ = !(1..=11).contains(&stall);
}

fn nop(arch: Arch, stall: u8) -> Emitted {
    let mut inst = make(arch, Op::Nop, &[], &[]).expect("every architecture has NOP");
    set_stall(&mut inst.ctrl, stall);
    Emitted::new(inst)
}

/// Cycles after a pending write until `reg` may be read by a reader of category `cat` on
/// `arch` (`address_unit`: the reader issues to the memory pipe).
fn read_latency(arch: Arch, w: &Pending, reg: Reg, cat: LatCat, guard: bool, address_unit: bool) -> i32 {
    match reg {
        Reg::R(_) => raw_on(arch, w.cat, cat, address_unit) as i32,
        Reg::P(_) => pred_raw_on(arch, w.cat, cat, guard) as i32,
        Reg::UR(_) => uraw(arch, w.cat, cat) as i32,
        Reg::UP(_) => upred_raw(arch, w.cat, cat) as i32,
    }
}

/// Cycles after a pending access until `reg` may be written by a writer of category `cat`:
/// WAW after a write, WAR after a read.
fn write_latency(arch: Arch, p: &Pending, reg: Reg, cat: LatCat) -> i32 {
    let v = match (reg, p.is_read) {
        (Reg::R(_), false) => waw(p.cat, cat, p.predicated),
        (Reg::P(_), false) => pred_waw(p.cat, cat, p.predicated),
        (Reg::UR(_), false) => uwaw(arch, p.cat, cat, p.predicated),
        (Reg::UP(_), false) => upred_waw(p.cat, cat),
        (Reg::R(_), true) => war(p.cat, cat),
        (Reg::P(_), true) => pred_war(p.cat, cat),
        (Reg::UR(_), true) => uwar(arch, p.cat, cat),
        (Reg::UP(_), true) => upred_war(arch, p.cat, cat),
    };
    v as i32
}
