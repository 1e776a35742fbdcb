//! The call graph of a kernel and its device functions (`Function::callees`): node 0 is the
//! kernel, node `j + 1` its device function `j`.

use crate::ir::{Aux, Function, Opcode};

/// The device functions (indices into the kernel's `callees`) that `f` calls, each once.
pub fn called(f: &Function) -> Vec<usize> {
    let mut out: Vec<usize> = f
        .insts
        .values()
        .filter(|d| d.op == Opcode::CallFunc)
        .filter_map(|d| match d.aux {
            Aux::Imm(n) => Some(n as usize),
            _ => None,
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The function of node `n` of `kernel`'s call graph.
pub fn node(kernel: &Function, n: usize) -> &Function {
    if n == 0 { kernel } else { &kernel.callees[n - 1] }
}

/// The calls of every node of `kernel`'s call graph ([`called`]).
pub fn call_lists(kernel: &Function) -> Vec<Vec<usize>> {
    (0..=kernel.callees.len()).map(|n| called(node(kernel, n))).collect()
}

/// The nodes in an order where every caller comes before its callees (`calls[n]` lists the
/// functions node `n` calls; the graph must have no cycle, which the lowering ensures by
/// refusing recursion).
pub fn callers_first(calls: &[Vec<usize>]) -> Vec<usize> {
    fn visit(n: usize, calls: &[Vec<usize>], seen: &mut [bool], post: &mut Vec<usize>) {
        seen[n] = true;
        for &j in &calls[n] {
            if !seen[j + 1] {
                visit(j + 1, calls, seen, post);
            }
        }
        post.push(n);
    }
    let mut seen = vec![false; calls.len()];
    let mut post = Vec::with_capacity(calls.len());
    for n in 0..calls.len() {
        if !seen[n] {
            visit(n, calls, &mut seen, &mut post);
        }
    }
    post.reverse();
    post
}
