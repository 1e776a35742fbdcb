//! Dominator tree (Cooper, Harvey and Kennedy's iterative algorithm over reverse post-order).

use crate::ir::{Block, Function};
use cranelift_entity::SecondaryMap;

/// Immediate dominators and the reverse post-order of reachable blocks.
pub struct DomTree {
    idom: SecondaryMap<Block, Option<Block>>,
    rpo_index: SecondaryMap<Block, u32>,
    rpo: Vec<Block>,
}

impl DomTree {
    /// Computes the dominator tree of `func`.
    pub fn new(func: &Function) -> DomTree {
        let rpo = reverse_post_order(func);
        let mut rpo_index = SecondaryMap::with_default(u32::MAX);
        for (i, &b) in rpo.iter().enumerate() {
            rpo_index[b] = i as u32;
        }
        let preds = func.predecessors();
        let mut idom: SecondaryMap<Block, Option<Block>> = SecondaryMap::new();
        let Some(&entry) = rpo.first() else {
            return DomTree { idom, rpo_index, rpo };
        };
        idom[entry] = Some(entry);
        let mut changed = true;
        while changed {
            changed = false;
            for &b in &rpo[1..] {
                let mut new_idom = None;
                for &p in &preds[b] {
                    if idom[p].is_none() {
                        continue;
                    }
                    new_idom = Some(match new_idom {
                        None => p,
                        Some(cur) => intersect(&idom, &rpo_index, p, cur),
                    });
                }
                if new_idom.is_some() && idom[b] != new_idom {
                    idom[b] = new_idom;
                    changed = true;
                }
            }
        }
        DomTree { idom, rpo_index, rpo }
    }

    /// True if `a` dominates `b` (every block dominates itself).
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        let mut cur = b;
        loop {
            if cur == a {
                return true;
            }
            match self.idom[cur] {
                Some(d) if d != cur => cur = d,
                _ => return false,
            }
        }
    }

    /// True if the block is reachable from the entry.
    pub fn is_reachable(&self, b: Block) -> bool {
        self.rpo_index[b] != u32::MAX
    }

    /// Immediate dominator (the entry's is itself).
    pub fn idom(&self, b: Block) -> Option<Block> {
        self.idom[b]
    }

    /// Reachable blocks in reverse post-order.
    pub fn rpo(&self) -> &[Block] {
        &self.rpo
    }

    /// The reachable blocks in a preorder of the tree, so that the blocks a block dominates
    /// are one run of the order.
    pub fn preorder(&self) -> DomPreorder {
        let mut children: SecondaryMap<Block, Vec<Block>> = SecondaryMap::new();
        for &b in self.rpo.iter().skip(1) {
            if let Some(d) = self.idom[b] {
                children[d].push(b);
            }
        }
        let mut pre = DomPreorder {
            order: Vec::with_capacity(self.rpo.len()),
            at: SecondaryMap::with_default(u32::MAX),
            size: SecondaryMap::new(),
        };
        let mut stack: Vec<Block> = self.rpo.first().copied().into_iter().collect();
        while let Some(b) = stack.pop() {
            pre.at[b] = pre.order.len() as u32;
            pre.order.push(b);
            stack.extend(children[b].iter().rev());
        }
        for (k, &b) in pre.order.iter().enumerate().rev() {
            pre.size[b] += 1;
            if k > 0
                && let Some(d) = self.idom[b]
            {
                pre.size[d] += pre.size[b];
            }
        }
        pre
    }
}

/// The reachable blocks in a preorder of the dominator tree ([`DomTree::preorder`]).
pub struct DomPreorder {
    order: Vec<Block>,
    /// Each reachable block's position in `order` (`u32::MAX` for the others).
    at: SecondaryMap<Block, u32>,
    /// The number of blocks each block dominates, itself included.
    size: SecondaryMap<Block, u32>,
}

impl DomPreorder {
    /// The blocks `b` dominates, `b` first; none when `b` is unreachable.
    pub fn dominated(&self, b: Block) -> &[Block] {
        match self.at[b] {
            u32::MAX => &[],
            at => &self.order[at as usize..(at + self.size[b]) as usize],
        }
    }
}

fn intersect(
    idom: &SecondaryMap<Block, Option<Block>>,
    index: &SecondaryMap<Block, u32>,
    mut a: Block,
    mut b: Block,
) -> Block {
    while a != b {
        while index[a] > index[b] {
            a = idom[a].expect("processed block has an idom");
        }
        while index[b] > index[a] {
            b = idom[b].expect("processed block has an idom");
        }
    }
    a
}

/// Reachable blocks in reverse post-order (iterative DFS).
pub fn reverse_post_order(func: &Function) -> Vec<Block> {
    let Some(entry) = func.entry() else {
        return Vec::new();
    };
    let mut visited: SecondaryMap<Block, bool> = SecondaryMap::new();
    let mut post = Vec::new();
    let mut stack = vec![(entry, 0usize)];
    visited[entry] = true;
    while let Some((b, i)) = stack.pop() {
        let succs = func.successors(b);
        if let Some(&s) = succs.get(i) {
            stack.push((b, i + 1));
            if !visited[s] {
                visited[s] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(b);
        }
    }
    post.reverse();
    post
}
