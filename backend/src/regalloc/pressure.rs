//! Register pressure: the largest number of simultaneously live virtual registers of each
//! class, from a backward liveness analysis over the VCode blocks.

use crate::vcode::{VClass, VCode, VReg};
use std::collections::{HashMap, HashSet};

/// The classes, in the order of the counters below.
const CLASSES: [VClass; 4] = [VClass::Single, VClass::Pair, VClass::Quad, VClass::Pred];

fn class_index(vcode: &VCode, v: VReg) -> usize {
    CLASSES
        .iter()
        .position(|&c| c == vcode.class(v))
        .expect("every class is listed")
}

/// Maximum live count per class (at least 1 for every class, so regalloc2 has a register).
pub fn max_live(vcode: &VCode) -> HashMap<VClass, usize> {
    let live_out = live_out(vcode);
    let mut max = [0usize; 4];
    let raise = |max: &mut [usize; 4], count: &[usize; 4]| {
        for k in 0..4 {
            max[k] = max[k].max(count[k]);
        }
    };
    for (b, blk) in vcode.blocks.iter().enumerate() {
        let mut live = live_out[b].clone();
        let mut count = [0usize; 4];
        for &v in &live {
            count[class_index(vcode, v)] += 1;
        }
        raise(&mut max, &count);
        for inst in vcode.insts[blk.start as usize..blk.end as usize].iter().rev() {
            let mut defs = Vec::new();
            let mut uses = Vec::new();
            inst.for_each_reg(|v, is_def| if is_def { defs.push(v) } else { uses.push(v) });
            // Definitions and the values live across the instruction coexist.
            let mut during = count;
            let mut extra: Vec<VReg> = Vec::new();
            for &v in defs.iter().chain(&uses) {
                if !live.contains(&v) && !extra.contains(&v) {
                    extra.push(v);
                    during[class_index(vcode, v)] += 1;
                }
            }
            raise(&mut max, &during);
            for d in defs {
                if live.remove(&d) {
                    count[class_index(vcode, d)] -= 1;
                }
            }
            for u in uses {
                if live.insert(u) {
                    count[class_index(vcode, u)] += 1;
                }
            }
        }
    }
    CLASSES.into_iter().zip(max).collect()
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
