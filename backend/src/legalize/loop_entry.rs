//! Loop entries: a loop header that several blocks outside the loop enter (the two sides of
//! an `if` meeting at a `while` loop) gets an entry block of its own, which those blocks
//! enter instead. A divergent branch before the loop then reconverges in the entry block,
//! whose `BSYNC` runs once, and not at the header, where every back edge would run it again
//! and wait for threads that have gone past it (a convergence-barrier deadlock).

use ptxc_mir::analysis::dom::DomTree;
use ptxc_mir::ir::{Aux, Block, BlockCall, Function, InstData, Opcode, Type};
use smallvec::SmallVec;

/// Gives every such loop header an entry block, laid out just before it.
pub fn run(func: &mut Function) {
    let dom = DomTree::new(func);
    let preds = func.predecessors();
    let headers: Vec<Block> = func
        .layout
        .iter()
        .copied()
        .filter(|&h| preds[h].iter().any(|&p| dom.dominates(h, p)))
        .collect();
    for header in headers {
        let mut outside: SmallVec<[Block; 4]> = preds[header]
            .iter()
            .copied()
            .filter(|&p| !dom.dominates(header, p))
            .collect();
        outside.dedup();
        if outside.len() >= 2 {
            add_entry(func, header, &outside);
        }
    }
}

/// Adds the entry block of `header` (parameters as the header's, passed on) and makes the
/// blocks of `outside` branch to it.
fn add_entry(func: &mut Function, header: Block, outside: &[Block]) {
    let entry = func.add_block();
    func.layout.pop();
    let at = func
        .layout
        .iter()
        .position(|&b| b == header)
        .expect("the header is laid out");
    func.layout.insert(at, entry);
    let types: Vec<Type> = func.blocks[header].params.iter().map(|&v| func.ty(v)).collect();
    let args = types.into_iter().map(|ty| func.add_block_param(entry, ty)).collect();
    let jump = InstData {
        op: Opcode::Jump,
        ty: Type::I32,
        args: SmallVec::new(),
        aux: Aux::Branch(smallvec::smallvec![BlockCall { block: header, args }]),
    };
    func.append(entry, jump, &[]);
    for &from in outside {
        let Some(term) = func.terminator(from) else { continue };
        if let Aux::Branch(calls) = &mut func.insts[term].aux {
            for call in calls.iter_mut().filter(|c| c.block == header) {
                call.block = entry;
            }
        }
    }
}
