//! The device functions a kernel calls (`LowerOptions::keep_calls`): each is lowered once
//! (`device.rs`) into the kernel's `Function::callees`, in the order first called; then the
//! call graph is checked for recursion (refused: the stack is sized statically) and every
//! function learns which of its arguments every call passes uniform.

use super::LowerError;
use super::context::LowerOptions;
use super::device::lower_device_function;
use crate::analysis::calls;
use crate::analysis::divergence::Divergence;
use crate::ir::{Aux, Function, Opcode, Space, Value};
use ptxc_frontend::checked::CheckedModule;

/// Lowers the device functions `names` that kernel `kernel` calls (and those they call in
/// turn) into `kernel.callees`; the shared variables they name join the kernel's variables,
/// whose layout decides their addresses. Refuses recursion.
pub(super) fn lower_callees(
    m: &CheckedModule,
    options: LowerOptions,
    kernel: &mut Function,
    mut names: Vec<String>,
) -> Result<(), Vec<LowerError>> {
    let mut done = 0;
    while done < names.len() {
        let src = m
            .function(&names[done])
            .filter(|f| !f.is_entry)
            .expect("only functions with a body are called");
        let (func, more) = lower_device_function(m, src, options, names)?;
        names = more;
        for v in func.vars.iter().filter(|v| v.space == Space::Shared) {
            if !kernel.vars.iter().any(|k| k.name == v.name) {
                kernel.vars.push(v.clone());
            }
        }
        kernel.callees.push(func);
        done += 1;
    }
    refuse_recursion(m, kernel)?;
    uniform_arguments(kernel);
    Ok(())
}

/// Finds the arguments every call of each device function passes the same in every thread
/// (`Function::uniform_args`), callers before callees: the register values each call
/// stores into its argument area that the caller's divergence analysis finds uniform.
fn uniform_arguments(kernel: &mut Function) {
    let order = calls::callers_first(&calls::call_lists(kernel));
    let mut found: Vec<Option<Vec<(u32, u32)>>> = vec![None; kernel.callees.len()];
    for n in order {
        if n > 0 {
            kernel.callees[n - 1].uniform_args = found[n - 1].take().unwrap_or_default();
        }
        let f = calls::node(kernel, n);
        let divergence = Divergence::new(f);
        for d in f.insts.values().filter(|d| d.op == Opcode::CallFunc) {
            let Aux::Imm(j) = d.aux else { continue };
            let uniform = uniform_stores(f, &divergence, d.args[0]);
            let all = &mut found[j as usize];
            *all = Some(match all.take() {
                None => uniform,
                Some(mut before) => {
                    before.retain(|r| uniform.contains(r));
                    before
                }
            });
        }
    }
}

/// The byte ranges of the argument area at `area` that `f` fills with uniform values.
fn uniform_stores(f: &Function, divergence: &Divergence, area: Value) -> Vec<(u32, u32)> {
    f.insts
        .values()
        .filter(|d| d.op == Opcode::Store && d.args.len() == 2 && d.args[0] == area)
        .filter(|d| !divergence.is_divergent(d.args[1]))
        .filter_map(|d| match d.aux {
            Aux::Mem(m) if m.vector <= 1 => Some((u32::try_from(m.offset).ok()?, d.ty.bytes())),
            _ => None,
        })
        .collect()
}

/// An error when some device function of `kernel` reaches itself through calls.
fn refuse_recursion(m: &CheckedModule, kernel: &Function) -> Result<(), Vec<LowerError>> {
    let n = kernel.callees.len();
    // Depth-first search; state 1 = on the path, 2 = finished.
    let mut state = vec![0u8; n];
    fn visit(k: &Function, i: usize, state: &mut [u8]) -> Option<usize> {
        state[i] = 1;
        for j in calls::called(&k.callees[i]) {
            match state[j] {
                1 => return Some(j),
                0 => {
                    if let Some(c) = visit(k, j, state) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        state[i] = 2;
        None
    }
    for i in 0..n {
        if state[i] == 0
            && let Some(c) = visit(kernel, i, &mut state)
        {
            let name = &kernel.callees[c].name;
            let span = m.function(name).map(|f| f.span).unwrap_or_default();
            return Err(vec![LowerError::new(
                format!(
                    "`{name}` is recursive; ptxc sizes each kernel's stack statically and cannot compile recursion"
                ),
                span,
            )]);
        }
    }
    Ok(())
}
