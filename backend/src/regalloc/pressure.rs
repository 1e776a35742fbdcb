//! Register pressure: the largest number of simultaneously live virtual registers of each
//! class, from a backward liveness analysis over the VCode blocks.

use crate::vcode::{VClass, VCode, VReg};
use std::collections::{HashMap, HashSet};

/// Maximum live count per class (at least 1 for every class, so regalloc2 has a register).
pub fn max_live(vcode: &VCode) -> HashMap<VClass, usize> {
    let live_out = live_out(vcode);
    let mut max: HashMap<VClass, usize> = [VClass::Single, VClass::Pair, VClass::Quad, VClass::Pred]
        .into_iter()
        .map(|c| (c, 0))
        .collect();
    for (b, blk) in vcode.blocks.iter().enumerate() {
        let mut live = live_out[b].clone();
        measure(vcode, &live, &mut max);
        for inst in vcode.insts[blk.start as usize..blk.end as usize].iter().rev() {
            let mut defs = Vec::new();
            let mut uses = Vec::new();
            inst.for_each_reg(|v, is_def| if is_def { defs.push(v) } else { uses.push(v) });
            // Definitions and the values live across the instruction coexist.
            let mut during = live.clone();
            during.extend(defs.iter().copied());
            during.extend(uses.iter().copied());
            measure(vcode, &during, &mut max);
            for d in defs {
                live.remove(&d);
            }
            live.extend(uses);
        }
    }
    max
}

fn measure(vcode: &VCode, live: &HashSet<VReg>, max: &mut HashMap<VClass, usize>) {
    let mut count: HashMap<VClass, usize> = HashMap::new();
    for &v in live {
        *count.entry(vcode.class(v)).or_default() += 1;
    }
    for (c, n) in count {
        let m = max.entry(c).or_default();
        *m = (*m).max(n);
    }
}

/// Live-out sets per block (block parameters are defined at block entry; branch arguments
/// are used at the end of the predecessor).
fn live_out(vcode: &VCode) -> Vec<HashSet<VReg>> {
    let n = vcode.blocks.len();
    let mut live_in: Vec<HashSet<VReg>> = vec![HashSet::new(); n];
    let mut live_out: Vec<HashSet<VReg>> = vec![HashSet::new(); n];
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..n).rev() {
            let blk = &vcode.blocks[b];
            let mut out: HashSet<VReg> = HashSet::new();
            for (s, args) in blk.succs.iter().zip(&blk.succ_args) {
                out.extend(live_in[s.0 as usize].iter().copied());
                out.extend(args.iter().copied());
            }
            let mut live = out.clone();
            for inst in vcode.insts[blk.start as usize..blk.end as usize].iter().rev() {
                let mut defs = Vec::new();
                let mut uses = Vec::new();
                inst.for_each_reg(|v, is_def| if is_def { defs.push(v) } else { uses.push(v) });
                for d in defs {
                    live.remove(&d);
                }
                live.extend(uses);
            }
            for p in &blk.params {
                live.remove(p);
            }
            if live != live_in[b] || out != live_out[b] {
                live_in[b] = live;
                live_out[b] = out;
                changed = true;
            }
        }
    }
    live_out
}
