//! The list scheduler: reorders each block's instructions (the final branch or EXIT stays
//! last) by repeatedly issuing the best-ranked ready instruction. An instruction is ready
//! when its dependences allow and its pipe accepts it: the memory and tensor pipes take one
//! instruction every few cycles (the ISA's issue intervals), so a run of shared-memory
//! fragment loads leaves room for the tensor-core instructions that consume the first ones.

use super::dag::Dag;
use super::heuristics::{Candidate, Heuristic};
use crate::emit::{CodeBlock, Emitted};
use ptxc_sass::isa::Arch;
use ptxc_sass::isa::desc::Pipe;
use ptxc_sass::isa::timing::{issue_interval, tensor_issue_interval};

/// The pipes whose throughput the scheduler tracks, and the cycles `e` occupies its pipe
/// (`None`: another pipe; the ALU and FMA pipes are balanced by the heuristics instead).
fn occupancy(e: &Emitted) -> Option<(usize, u32)> {
    let pipe = e.inst.desc().meta.pipe;
    let cycles = match pipe {
        Pipe::Lsu => issue_interval(pipe),
        Pipe::Tensor => tensor_issue_interval(e.inst.desc().op, false),
        _ => return None,
    };
    Some(((pipe == Pipe::Tensor) as usize, cycles as u32))
}

/// Reorders every block of `blocks` with `h`, with the latencies of `arch`.
pub fn schedule(blocks: &mut [CodeBlock], h: &dyn Heuristic, arch: Arch) {
    for b in blocks.iter_mut() {
        b.insts = schedule_block(std::mem::take(&mut b.insts), h, arch);
    }
}

fn schedule_block(insts: Vec<Emitted>, h: &dyn Heuristic, arch: Arch) -> Vec<Emitted> {
    if insts.len() < 3 {
        return insts;
    }
    let dag = Dag::new(&insts, arch);
    let n = insts.len();
    let mut npreds = dag.npreds.clone();
    let mut ready_at = vec![0u32; n];
    let mut ready: Vec<usize> = (0..n).filter(|&i| npreds[i] == 0).collect();
    let mut order = Vec::with_capacity(n);
    let mut now = 0u32;
    let mut last_pipe = None;
    // When the memory pipe (0) and the tensor pipe (1) accept their next instruction.
    let mut pipe_free = [0u32; 2];
    let ready_time = |i: usize, ready_at: &[u32], pipe_free: &[u32; 2]| match occupancy(&insts[i]) {
        Some((p, _)) => ready_at[i].max(pipe_free[p]),
        None => ready_at[i],
    };
    while !ready.is_empty() {
        let (pos, &pick) = ready
            .iter()
            .enumerate()
            .max_by_key(|&(_, &i)| {
                let c = Candidate {
                    index: i,
                    inst: &insts[i],
                    dag: &dag,
                    ready_at: ready_time(i, &ready_at, &pipe_free),
                    now,
                    last_pipe,
                };
                (h.rank(&c), std::cmp::Reverse(i))
            })
            .expect("ready is not empty");
        ready.swap_remove(pos);
        now = now.max(ready_time(pick, &ready_at, &pipe_free)) + 1;
        if let Some((p, cycles)) = occupancy(&insts[pick]) {
            pipe_free[p] = now - 1 + cycles;
        }
        last_pipe = Some(insts[pick].inst.desc().meta.pipe);
        order.push(pick);
        for e in &dag.succs[pick] {
            ready_at[e.to] = ready_at[e.to].max(now - 1 + e.latency);
            npreds[e.to] -= 1;
            if npreds[e.to] == 0 {
                ready.push(e.to);
            }
        }
    }
    debug_assert_eq!(order.len(), n, "the dependency graph is acyclic");
    let mut slots: Vec<Option<Emitted>> = insts.into_iter().map(Some).collect();
    order
        .into_iter()
        .map(|i| slots[i].take().expect("each instruction once"))
        .collect()
}
