//! Natural loops: every block that a back edge enters (an edge `latch -> header` whose
//! header dominates the latch) heads a loop of the blocks that reach one of its latches
//! without passing the header.

use super::dom::DomTree;
use crate::ir::{Block, Function};
use rustc_hash::FxHashSet as HashSet;

/// A natural loop.
pub struct Loop {
    /// The block every path into the loop enters through.
    pub header: Block,
    /// Its blocks, as a set.
    pub body: HashSet<Block>,
    /// Its blocks, the header first.
    pub blocks: Vec<Block>,
}

/// The natural loops of `func`, one per header, in reverse post-order of the headers (outer
/// loops before the loops they contain).
pub fn natural_loops(func: &Function, dom: &DomTree) -> Vec<Loop> {
    let preds = func.predecessors();
    let mut out = Vec::new();
    for &header in dom.rpo() {
        let latches: Vec<Block> = preds[header]
            .iter()
            .copied()
            .filter(|&p| dom.dominates(header, p))
            .collect();
        if latches.is_empty() {
            continue;
        }
        let mut body: HashSet<Block> = [header].into_iter().collect();
        let mut blocks = vec![header];
        let mut work = latches;
        while let Some(b) = work.pop() {
            if body.insert(b) {
                blocks.push(b);
                work.extend(preds[b].iter().copied());
            }
        }
        out.push(Loop { header, body, blocks });
    }
    out
}
