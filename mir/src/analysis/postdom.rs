//! Post-dominator tree: Cooper, Harvey and Kennedy's iterative algorithm over the reversed
//! control-flow graph, whose root is a virtual exit that every block ending the thread
//! (`exit`, `trap`) leads to.

use crate::ir::{Block, Function};
use cranelift_entity::SecondaryMap;

/// Immediate post-dominators of the blocks.
pub struct PostDomTree {
    ipdom: SecondaryMap<Block, Option<Block>>,
}

/// A node of the reversed graph: a block, or the virtual exit.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Node {
    Exit,
    Block(Block),
}

impl PostDomTree {
    /// Computes the post-dominator tree of `func`.
    pub fn new(func: &Function) -> PostDomTree {
        let preds = func.predecessors();
        let order = reverse_post_order(func, &preds);
        let mut index: SecondaryMap<Block, u32> = SecondaryMap::with_default(u32::MAX);
        for (i, n) in order.iter().enumerate() {
            if let Node::Block(b) = n {
                index[*b] = i as u32;
            }
        }
        // Immediate post-dominators as order indices (the exit is index 0).
        let mut idom: Vec<Option<u32>> = vec![None; order.len()];
        idom[0] = Some(0);
        let mut changed = true;
        while changed {
            changed = false;
            for (i, n) in order.iter().enumerate().skip(1) {
                let Node::Block(b) = *n else { continue };
                let mut new = None;
                for p in reverse_preds(func, b).map(|s| s.map_or(0, |s| index[s])) {
                    if p == u32::MAX || idom[p as usize].is_none() {
                        continue;
                    }
                    new = Some(new.map_or(p, |cur| intersect(&idom, p, cur)));
                }
                if new.is_some() && idom[i] != new {
                    idom[i] = new;
                    changed = true;
                }
            }
        }
        let mut ipdom = SecondaryMap::new();
        for (i, n) in order.iter().enumerate() {
            if let (Node::Block(b), Some(d)) = (*n, idom[i]) {
                ipdom[b] = match order[d as usize] {
                    Node::Block(d) => Some(d),
                    Node::Exit => None,
                };
            }
        }
        PostDomTree { ipdom }
    }

    /// The immediate post-dominator of `b`: None when only the exit post-dominates it (or
    /// it never reaches the exit).
    pub fn ipdom(&self, b: Block) -> Option<Block> {
        self.ipdom[b]
    }
}

/// The predecessors of `b` in the reversed graph: its successors, or the exit (None) for a
/// block without successors.
fn reverse_preds(func: &Function, b: Block) -> impl Iterator<Item = Option<Block>> {
    let succs = func.successors(b);
    let exit = succs.is_empty().then_some(None);
    succs.into_iter().map(Some).chain(exit)
}

fn intersect(idom: &[Option<u32>], mut a: u32, mut b: u32) -> u32 {
    while a != b {
        while a > b {
            a = idom[a as usize].expect("processed node has an idom");
        }
        while b > a {
            b = idom[b as usize].expect("processed node has an idom");
        }
    }
    a
}

/// The nodes the exit reaches in the reversed graph, in reverse post-order (the exit first).
fn reverse_post_order(func: &Function, preds: &SecondaryMap<Block, smallvec::SmallVec<[Block; 2]>>) -> Vec<Node> {
    let ends: Vec<Block> = func
        .layout
        .iter()
        .copied()
        .filter(|&b| func.successors(b).is_empty())
        .collect();
    let mut visited: SecondaryMap<Block, bool> = SecondaryMap::new();
    let mut post = Vec::new();
    // (node, next child); the exit's children are the ending blocks.
    let mut stack: Vec<(Node, usize)> = vec![(Node::Exit, 0)];
    while let Some((n, i)) = stack.pop() {
        let next = match n {
            Node::Exit => ends.get(i).copied(),
            Node::Block(b) => preds[b].get(i).copied(),
        };
        match next {
            Some(c) => {
                stack.push((n, i + 1));
                if !visited[c] {
                    visited[c] = true;
                    stack.push((Node::Block(c), 0));
                }
            }
            None => post.push(n),
        }
    }
    post.reverse();
    post
}
