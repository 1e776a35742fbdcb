//! Optimisation passes over MIR functions, one file each, and the pass manager that runs
//! them in order. In debug builds the verifier runs after every pass.

pub mod addrfold;
pub mod constfold;
pub mod copyprop;
pub mod dce;
pub mod gvn;
pub mod licm;
pub mod strength;

use crate::ir::{Function, verify};

/// A pass: its name (for `--dump-mir=NAME` and the golden-test folders) and its function,
/// which returns whether it changed anything.
#[derive(Clone, Copy)]
pub struct Pass {
    /// Name.
    pub name: &'static str,
    /// What it does.
    pub run: fn(&mut Function) -> bool,
}

/// Every pass, in the order the full pipeline runs them.
pub static PASSES: &[Pass] = &[
    Pass {
        name: "constfold",
        run: constfold::run,
    },
    Pass {
        name: "copyprop",
        run: copyprop::run,
    },
    Pass {
        name: "gvn",
        run: gvn::run,
    },
    Pass {
        name: "licm",
        run: licm::run,
    },
    Pass {
        name: "strength",
        run: strength::run,
    },
    Pass {
        name: "addrfold",
        run: addrfold::run,
    },
    Pass {
        name: "dce",
        run: dce::run,
    },
];

/// The passes the compile pipeline runs by default (`ptxc compile --disable mir-passes`
/// leaves them out), before the back end legalizes the function. Not `licm`: hoisting
/// comparisons out of loops keeps predicates live across them, and P0..P6 are few (the back
/// end hoists everything else after legalization, `licm::run_except_predicates`).
pub static DEFAULT_PIPELINE: &[&str] = &["constfold", "copyprop", "gvn", "strength", "addrfold", "dce"];

/// The pass named `name`.
pub fn pass_named(name: &str) -> Option<&'static Pass> {
    PASSES.iter().find(|p| p.name == name)
}

/// Runs one pass, then (in debug builds) the verifier.
pub fn run_pass(func: &mut Function, pass: &Pass) -> bool {
    let changed = (pass.run)(func);
    if cfg!(debug_assertions)
        && let Err(e) = verify(func)
    {
        panic!("after pass `{}`: {e}\n{func}", pass.name);
    }
    changed
}

/// Runs the named passes in order.
pub fn run_passes(func: &mut Function, names: &[&str]) -> Result<(), String> {
    for name in names {
        let pass = pass_named(name).ok_or_else(|| format!("unknown pass `{name}`"))?;
        run_pass(func, pass);
    }
    Ok(())
}

/// Runs every pass up to and including `last` (all of them if `None`).
pub fn run_until(func: &mut Function, last: Option<&str>) -> Result<(), String> {
    if let Some(l) = last
        && pass_named(l).is_none()
    {
        return Err(format!("unknown pass `{l}`"));
    }
    for pass in PASSES {
        run_pass(func, pass);
        if Some(pass.name) == last {
            break;
        }
    }
    Ok(())
}

/// Every instruction in layout order with its block.
pub fn insts_in_order(func: &Function) -> Vec<(crate::ir::Block, crate::ir::Inst)> {
    func.layout
        .iter()
        .flat_map(|&b| func.blocks[b].insts.iter().map(move |&i| (b, i)))
        .collect()
}
