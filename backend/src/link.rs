//! Linking a kernel with its device functions (`Function::callees`): each is compiled on
//! its own (`compile.rs`), callers before callees so that a function's convergence barriers
//! start after those its callers hold; the code of each follows the kernel's in one text
//! section, as ptxas places `$kernel$function`, and is assembled at its place (calls reach
//! their callees' starts, return addresses and `RET` offsets count from the kernel's start).

use crate::compile::{BackendError, Code, CompiledKernel, DumpSink, LinkedFunction, Options, Stage, compile_code};
use crate::emit::CodeBlock;
use crate::emit::layout::{Assembled, Placement, assemble_at};
use crate::vars::KernelVars;
use ptxc_mir::analysis::calls::{called, callers_first};
use ptxc_mir::analysis::spin_loops::{self, CalleeSpin};
use ptxc_mir::ir::Function;
use ptxc_sass::isa::{Arch, Value};

/// Compiles kernel `f` and its device functions, callers first (each function's barriers
/// start after those its callers hold; the kernel's register limit holds in them too), and
/// links them; `dump` receives the kernel's VCode and the linked SASS.
pub(crate) fn compile_linked(
    mut f: Function,
    vars: &KernelVars,
    opts: &Options,
    dump: DumpSink,
) -> Result<CompiledKernel, BackendError> {
    let callees = std::mem::take(&mut f.callees);
    let (kernel_name, max_nreg) = (f.name.clone(), f.max_nreg);
    let calls: Vec<Vec<usize>> = std::iter::once(&f).chain(&callees).map(called).collect();
    let order = callers_first(&calls);
    let spin = match opts.arch {
        Arch::Sm75 => callee_spin(&callees, &order),
        _ => Vec::new(),
    };
    let mut parts: Vec<Option<Code>> = (0..=callees.len()).map(|_| None).collect();
    parts[0] = Some(compile_code(f, vars, &spin, opts, dump)?);
    let mut barrier_base = vec![0u8; callees.len()];
    let mut callees: Vec<Option<Function>> = callees.into_iter().map(Some).collect();
    for &n in &order {
        if n > 0 {
            let mut fvars = vars.callees.get(n - 1).cloned().ok_or_else(|| {
                BackendError::Options(format!(
                    "kernel `{kernel_name}`: no variable layout for its device functions"
                ))
            })?;
            fvars.barrier_base = barrier_base[n - 1];
            let mut callee = callees[n - 1].take().expect("each function compiles once");
            callee.max_nreg = max_nreg;
            parts[n] = Some(compile_code(callee, &fvars, &spin, opts, &mut |_, _| {})?);
        }
        let held = parts[n].as_ref().map_or(0, |c| c.barriers_held);
        for &j in &calls[n] {
            barrier_base[j] = barrier_base[j].max(held);
        }
    }
    let parts: Vec<Code> = parts.into_iter().map(|p| p.expect("every function compiled")).collect();
    let kernel = link(parts, &calls)?;
    dump(Stage::Sass, &|| crate::compile::sass_text(&kernel.assembled));
    Ok(kernel)
}

/// What each device function means for the spin loops around its calls (sm_75's latch),
/// callees before callers (`order` has callers first; node `j + 1` is function `j`).
fn callee_spin(callees: &[Function], order: &[usize]) -> Vec<CalleeSpin> {
    let mut spin = vec![CalleeSpin::default(); callees.len()];
    for &n in order.iter().rev().filter(|&&n| n > 0) {
        let f = &callees[n - 1];
        let headers = spin_loops::spin_loop_headers(f, &spin);
        spin[n - 1] = spin_loops::callee_spin(f, &spin, &headers);
    }
    spin
}

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
/// `calls` as for [`callers_first`].
fn link(parts: Vec<Code>, calls: &[Vec<usize>]) -> Result<CompiledKernel, BackendError> {
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
        // Offsets from this part's start (its instructions alone), then from the section's.
        unused_load_bytes.extend(
            crate::attrs::unused_load_bytes(&p.partly_used_loads, &code)
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
