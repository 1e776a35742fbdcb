//! Lowering from the front end's checked module to MIR: blocks from labels and branches
//! ([`blocks`]), SSA for PTX registers ([`ssa`]), and one file per instruction family.

mod arith;
mod async_copy;
mod bits;
mod blocks;
mod bulk_copy;
mod call;
mod callees;
mod cluster;
mod compare;
mod context;
mod convert;
mod device;
mod float;
mod fragment;
mod mbarrier;
mod memory;
mod mma_m8n8k4;
mod mma_sub_byte;
mod policy;
pub mod ssa;
mod tensor;
mod warp;
mod wgmma;
mod wmma;

pub use async_copy::{
    CP_ASYNC_ARRIVE_ANNOUNCED, CP_ASYNC_ARRIVE_HOPPER, CP_ASYNC_CG, CP_ASYNC_L2_SHIFT, CP_ASYNC_POLICY,
};
pub use bulk_copy::{BULK_TO_SHARED, BULK_WAIT_READ};
pub use cluster::{FENCE_CLUSTER, FENCE_RELEASE};
pub use mbarrier::FENCE_ALL;

use crate::ir::{Function, KernelParam, Module};
pub use context::LowerOptions;
use context::Lowerer;
use ptxc_frontend::ast::Span;
use ptxc_frontend::checked::{CheckedFunction, CheckedModule};

/// A construct the lowering cannot handle (yet), with where it was written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct LowerError {
    /// What is wrong.
    pub message: String,
    /// Where.
    pub span: Span,
}

impl LowerError {
    /// An error at `span`.
    pub fn new(message: impl Into<String>, span: Span) -> LowerError {
        LowerError {
            message: message.into(),
            span,
        }
    }
}

/// Lowers every kernel (`.entry`) of the module, for no particular target.
pub fn lower_module(m: &CheckedModule) -> Result<Module, Vec<LowerError>> {
    lower_module_with(m, LowerOptions::default())
}

/// Lowers every kernel (`.entry`) of the module with the target's `options`.
pub fn lower_module_with(m: &CheckedModule, options: LowerOptions) -> Result<Module, Vec<LowerError>> {
    // Kernels lower independently (in parallel); results keep the module's order.
    let entries: Vec<&CheckedFunction> = m.functions.iter().filter(|f| f.is_entry).collect();
    module_of(lower_entries_with(m, &entries, options))
}

/// The module of the lowered kernels `results`, or every kernel's errors.
fn module_of(results: Vec<Result<Function, Vec<LowerError>>>) -> Result<Module, Vec<LowerError>> {
    let mut functions = Vec::new();
    let mut errors = Vec::new();
    for result in results {
        match result {
            Ok(func) => functions.push(func),
            Err(e) => errors.extend(e),
        }
    }
    if errors.is_empty() {
        Ok(Module { functions })
    } else {
        Err(errors)
    }
}

/// Lowers every kernel of `m`, consuming it: each kernel's checked body is freed as soon as
/// the kernel is lowered (the device functions that calls inline stay to the end), so that
/// the checked tree and the MIR of a large module are not both whole in memory. The result
/// is [`lower_module_with`]'s: lowering reads only the kernel itself and the module's device
/// functions (in source order), globals and target.
pub fn lower_module_owned(mut m: CheckedModule, options: LowerOptions) -> Result<Module, Vec<LowerError>> {
    use rayon::prelude::*;
    let (entries, device): (Vec<CheckedFunction>, Vec<CheckedFunction>) =
        std::mem::take(&mut m.functions).into_iter().partition(|f| f.is_entry);
    m.functions = device;
    m.index_functions();
    let lower = |f: CheckedFunction| lower_function_with(&m, &f, options);
    let results = if entries.len() > 1 {
        entries.into_par_iter().map(lower).collect()
    } else {
        // Starting rayon's pool would cost more than one kernel.
        entries.into_iter().map(lower).collect()
    };
    module_of(results)
}

/// Lowers the kernels `entries` of `m`, in parallel (rayon) when there are several; the
/// results keep their order.
pub fn lower_entries(m: &CheckedModule, entries: &[&CheckedFunction]) -> Vec<Result<Function, Vec<LowerError>>> {
    lower_entries_with(m, entries, LowerOptions::default())
}

/// [`lower_entries`] with the target's `options`.
pub fn lower_entries_with(
    m: &CheckedModule,
    entries: &[&CheckedFunction],
    options: LowerOptions,
) -> Vec<Result<Function, Vec<LowerError>>> {
    use rayon::prelude::*;
    if entries.len() > 1 {
        entries.par_iter().map(|f| lower_function_with(m, f, options)).collect()
    } else {
        // Starting rayon's pool would cost more than one kernel.
        entries.iter().map(|f| lower_function_with(m, f, options)).collect()
    }
}

/// Lowers one kernel of `m` (device functions it calls are inlined).
pub fn lower_function(m: &CheckedModule, f: &CheckedFunction) -> Result<Function, Vec<LowerError>> {
    lower_function_with(m, f, LowerOptions::default())
}

/// [`lower_function`] with the target's `options`.
pub fn lower_function_with(
    m: &CheckedModule,
    f: &CheckedFunction,
    options: LowerOptions,
) -> Result<Function, Vec<LowerError>> {
    let mut func = Function::new(&f.name);
    func.params = f
        .params
        .iter()
        .map(|p| KernelParam {
            name: p.name.clone(),
            offset: p.offset,
            size: p.size,
            align: p.align,
        })
        .collect();
    func.req_ntid = f.req_ntid;
    func.max_ntid = f.max_ntid;
    func.max_nreg = f.max_nreg;
    func.cluster_dims = f.cluster.req_ncta;
    func.max_cluster_rank = f.cluster.max_rank;
    func.explicit_cluster = f.cluster.explicit;
    let segments = blocks::split(f).map_err(|i| vec![LowerError::new("branch to an unknown label", span_of(f, i))])?;
    let mut lowerer = Lowerer::new(m, f, func, options)?;
    lowerer.lower_segments(&segments)?;
    let names = std::mem::take(&mut lowerer.callee_names);
    let mut func = lowerer.finish();
    callees::lower_callees(m, options, &mut func, names)?;
    Ok(func)
}

fn span_of(f: &CheckedFunction, index: usize) -> Span {
    match &f.body[index] {
        ptxc_frontend::checked::CheckedStmt::Inst(i) => i.span,
        _ => f.span,
    }
}
