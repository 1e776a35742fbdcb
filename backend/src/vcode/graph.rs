//! Graph analyses over VCode blocks: dominators, post-dominators (with a virtual exit that
//! every block without successors reaches) and natural loops.

use super::VCode;

/// Immediate dominators of a graph given by successor lists; `None` for unreachable nodes.
/// (Cooper, Harvey and Kennedy's iterative algorithm over reverse post-order.)
pub fn dominators(succs: &[Vec<usize>], entry: usize) -> Vec<Option<usize>> {
    let n = succs.len();
    let order = reverse_post_order(succs, entry);
    let mut index = vec![usize::MAX; n];
    for (i, &b) in order.iter().enumerate() {
        index[b] = i;
    }
    let mut preds = vec![Vec::new(); n];
    for (b, ss) in succs.iter().enumerate() {
        for &s in ss {
            preds[s].push(b);
        }
    }
    let mut idom: Vec<Option<usize>> = vec![None; n];
    idom[entry] = Some(entry);
    let mut changed = true;
    while changed {
        changed = false;
        for &b in order.iter().skip(1) {
            let mut new = None;
            for &p in &preds[b] {
                if idom[p].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => p,
                    Some(cur) => intersect(&idom, &index, p, cur),
                });
            }
            if new.is_some() && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom
}

fn intersect(idom: &[Option<usize>], index: &[usize], mut a: usize, mut b: usize) -> usize {
    while a != b {
        while index[a] > index[b] {
            a = idom[a].expect("processed");
        }
        while index[b] > index[a] {
            b = idom[b].expect("processed");
        }
    }
    a
}

/// Nodes reachable from `entry` in reverse post-order.
pub fn reverse_post_order(succs: &[Vec<usize>], entry: usize) -> Vec<usize> {
    let mut seen = vec![false; succs.len()];
    let mut post = Vec::new();
    let mut stack = vec![(entry, 0usize)];
    seen[entry] = true;
    while let Some((b, i)) = stack.pop() {
        if let Some(&s) = succs[b].get(i) {
            stack.push((b, i + 1));
            if !seen[s] {
                seen[s] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(b);
        }
    }
    post.reverse();
    post
}

/// Pre-order number and the last pre-order number below each node of a dominator tree:
/// `a` dominates `b` exactly when `b`'s number lies in `a`'s interval.
fn tree_intervals(idom: &[Option<usize>]) -> Vec<(u32, u32)> {
    let n = idom.len();
    let mut children = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for (b, d) in idom.iter().enumerate() {
        match *d {
            Some(d) if d != b => children[d].push(b),
            _ => roots.push(b),
        }
    }
    let mut interval = vec![(0u32, 0u32); n];
    let mut next = 0u32;
    for root in roots {
        let mut stack = vec![(root, false)];
        while let Some((b, done)) = stack.pop() {
            if done {
                interval[b].1 = next - 1;
                continue;
            }
            interval[b].0 = next;
            next += 1;
            stack.push((b, true));
            stack.extend(children[b].iter().rev().map(|&c| (c, false)));
        }
    }
    interval
}

/// Dominance facts of a VCode function.
pub struct Cfg {
    /// Successors of each block.
    pub succs: Vec<Vec<usize>>,
    /// Immediate dominators.
    pub idom: Vec<Option<usize>>,
    /// Immediate post-dominators; the virtual exit is block index `n` (`succs.len()`).
    pub ipdom: Vec<Option<usize>>,
    /// Dominator-tree intervals (constant-time `dominates`).
    dom_interval: Vec<(u32, u32)>,
    /// Post-dominator-tree intervals.
    pdom_interval: Vec<(u32, u32)>,
}

fn within(intervals: &[(u32, u32)], a: usize, b: usize) -> bool {
    let (lo, hi) = intervals[a];
    (lo..=hi).contains(&intervals[b].0)
}

impl Cfg {
    /// Builds the analyses.
    pub fn new(vcode: &VCode) -> Cfg {
        let n = vcode.blocks.len();
        let succs: Vec<Vec<usize>> = vcode
            .blocks
            .iter()
            .map(|b| b.succs.iter().map(|s| s.0 as usize).collect())
            .collect();
        let idom = dominators(&succs, 0);
        // Reverse graph with a virtual exit n that precedes every block without successors.
        let mut rev = vec![Vec::new(); n + 1];
        for (b, ss) in succs.iter().enumerate() {
            if ss.is_empty() {
                rev[n].push(b);
            }
            for &s in ss {
                rev[s].push(b);
            }
        }
        let ipdom = dominators(&rev, n);
        Cfg {
            dom_interval: tree_intervals(&idom),
            pdom_interval: tree_intervals(&ipdom),
            succs,
            idom,
            ipdom,
        }
    }

    /// The virtual exit's index.
    pub fn exit(&self) -> usize {
        self.succs.len()
    }

    /// True if `a` dominates `b`.
    pub fn dominates(&self, a: usize, b: usize) -> bool {
        within(&self.dom_interval, a, b)
    }

    /// True if `a` post-dominates `b`.
    pub fn post_dominates(&self, a: usize, b: usize) -> bool {
        within(&self.pdom_interval, a, b)
    }

    /// Blocks of natural loops: for each back edge `latch -> header`, the header and every
    /// block that reaches the latch without passing the header.
    pub fn loops(&self) -> Vec<(usize, Vec<usize>)> {
        let n = self.succs.len();
        let mut preds = vec![Vec::new(); n];
        for (b, ss) in self.succs.iter().enumerate() {
            for &s in ss {
                preds[s].push(b);
            }
        }
        let mut loops = Vec::new();
        for (latch, ss) in self.succs.iter().enumerate() {
            for &header in ss {
                if !self.dominates(header, latch) {
                    continue;
                }
                let mut body = vec![header];
                let mut inside = vec![false; n];
                inside[header] = true;
                let mut stack = vec![latch];
                while let Some(b) = stack.pop() {
                    if !inside[b] {
                        inside[b] = true;
                        body.push(b);
                        stack.extend(preds[b].iter().copied());
                    }
                }
                loops.push((header, body));
            }
        }
        loops
    }
}
