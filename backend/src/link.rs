//! Linking a kernel with its device functions (`Function::callees`): each is compiled on
//! its own (`compile.rs`), callers before callees so that a function's convergence barriers
//! start after those its callers hold; the code of each follows the kernel's in one text
//! section, as ptxas places `$kernel$function`, and is assembled at its place (calls reach
//! their callees' starts, return addresses and `RET` offsets count from the kernel's start).

use crate::compile::{BackendError, Code, CompiledKernel, LinkedFunction};
use crate::emit::CodeBlock;
use crate::emit::layout::{Assembled, Placement, assemble_at};
use ptxc_sass::isa::Value;

/// The number of convergence barriers the code names (its highest plus one).
pub fn barriers_held(blocks: &[CodeBlock]) -> u8 {
    blocks
        .iter()
        .flat_map(|b| &b.insts)
        .flat_map(|e| &e.inst.operands)
        .filter_map(|o| match o.value {
            Value::Barrier(b) => Some(b + 1),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// The kernel (`parts[0]`) and its device functions, in that order in one text section;
/// `calls` as for `ptxc_mir::analysis::calls::callers_first`.
pub(crate) fn link(parts: Vec<Code>, calls: &[Vec<usize>]) -> Result<CompiledKernel, BackendError> {
    let mut starts = Vec::with_capacity(parts.len());
    let mut at = 0i64;
    for p in &parts {
        starts.push(at);
        at += 16 * p.blocks.iter().map(|b| b.insts.len()).sum::<usize>() as i64;
    }
    let functions_at: Vec<i64> = starts[1..].to_vec();
    let stack = stack_sizes(&parts, calls);
    let mut assembled = Assembled::default();
    let mut unused_load_bytes = Vec::new();
    let mut functions = Vec::new();
    let mut warnings = Vec::new();
    let (mut spill_stores, mut spill_loads, mut divergent_loop) = (0, 0, false);
    for (n, p) in parts.iter().enumerate() {
        let placement = Placement {
            base: starts[n],
            functions: functions_at.clone(),
        };
        let code = assemble_at(&p.blocks, &placement)?;
        let base = starts[n] as u32;
        let local = Assembled {
            insts: code.insts.clone(),
            srclocs: code.srclocs.clone(),
            ..Assembled::default()
        };
        unused_load_bytes.extend(
            crate::attrs::unused_load_bytes(&p.partly_used_loads, &local)
                .into_iter()
                .map(|[off, mask]| [off + base, mask]),
        );
        if n > 0 {
            functions.push(LinkedFunction {
                name: p.name.clone(),
                offset: base,
                size: code.code.len() as u32,
                frame_size: p.frame_size,
                linkage: p.linkage,
            });
        }
        spill_stores += p.spill_stores;
        spill_loads += p.spill_loads;
        divergent_loop |= p.divergent_loop;
        warnings.extend(p.warnings.iter().cloned());
        assembled.append(code);
    }
    unused_load_bytes.sort_unstable();
    let highest_gpr = crate::emit::highest_gpr(&assembled.insts);
    Ok(CompiledKernel {
        name: parts[0].name.clone(),
        assembled,
        highest_gpr,
        frame_size: parts[0].frame_size,
        stack_size: stack[0],
        spill_stores,
        spill_loads,
        warnings,
        unused_load_bytes,
        divergent_loop,
        functions,
    })
}

/// The stack each part needs: its own frame and the deepest chain of its callees' frames
/// (their frames sit below the caller's).
fn stack_sizes(parts: &[Code], calls: &[Vec<usize>]) -> Vec<u32> {
    let mut need: Vec<Option<u32>> = vec![None; parts.len()];
    fn of(n: usize, parts: &[Code], calls: &[Vec<usize>], need: &mut [Option<u32>]) -> u32 {
        if let Some(s) = need[n] {
            return s;
        }
        let deepest = calls[n]
            .iter()
            .map(|&j| of(j + 1, parts, calls, need))
            .max()
            .unwrap_or(0);
        let s = parts[n].frame_size + deepest;
        need[n] = Some(s);
        s
    }
    (0..parts.len()).map(|n| of(n, parts, calls, &mut need)).collect()
}
