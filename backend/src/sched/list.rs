//! The list scheduler: reorders each block's instructions (the final branch or EXIT stays
//! last) by repeatedly issuing the best-ranked ready instruction.

use super::dag::Dag;
use super::heuristics::{Candidate, Heuristic};
use crate::emit::{CodeBlock, Emitted};
use ptxc_sass::isa::Arch;

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
    while !ready.is_empty() {
        let (pos, &pick) = ready
            .iter()
            .enumerate()
            .max_by_key(|&(_, &i)| {
                let c = Candidate {
                    index: i,
                    inst: &insts[i],
                    dag: &dag,
                    ready_at: ready_at[i],
                    now,
                    last_pipe,
                };
                (h.rank(&c), std::cmp::Reverse(i))
            })
            .expect("ready is not empty");
        ready.swap_remove(pos);
        now = now.max(ready_at[pick]) + 1;
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
