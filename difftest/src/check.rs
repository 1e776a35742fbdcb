//! One differential check: the three executions of a PTX kernel on one launch, compared.

use crate::classify::{self, Verdict};
use crate::compare::{self, Mismatch};
use crate::engines::{Engines, Launch, Outcome};
use crate::generator::Case;
use crate::program::print;
use crate::slice::Facts;

/// The outcomes of the three executions.
#[derive(Clone, Debug)]
pub struct Outcomes {
    /// The MIR interpreter.
    pub mir: Outcome,
    /// ptxc's cubin on the simulator.
    pub ptxc: Outcome,
    /// ptxas's cubin on the simulator (None without an oracle).
    pub ptxas: Option<Outcome>,
}

/// Runs `ptx` on `launch` with every engine. When ptxas rejects the PTX the other engines
/// are not run (the program is the generator's fault); when it crashes they are.
pub fn run(engines: &Engines, ptx: &str, launch: &Launch) -> Outcomes {
    run_with(engines, ptx, launch, engines.ptxas(ptx, launch))
}

/// Like [`run`], with ptxas's outcome already known (from a module of many kernels,
/// [`crate::batch`]).
pub fn run_with(engines: &Engines, ptx: &str, launch: &Launch, ptxas: Option<Outcome>) -> Outcomes {
    if let Some(o @ Outcome::CompileError(e)) = &ptxas
        && !e.starts_with(crate::engines::CRASH)
    {
        let skipped = Outcome::RunError("not run: ptxas rejects the program".into());
        return Outcomes {
            mir: skipped.clone(),
            ptxc: skipped,
            ptxas: Some(o.clone()),
        };
    }
    Outcomes {
        mir: engines.mir(ptx, launch),
        ptxc: engines.ptxc(ptx, launch),
        ptxas,
    }
}

/// Runs and compares `ptx` on `launch` (a program whose facts are `facts`, if known): every
/// disagreement.
pub fn check(engines: &Engines, ptx: &str, launch: &Launch, facts: Option<&Facts>) -> Vec<Mismatch> {
    let o = run(engines, ptx, launch);
    compare::compare(facts, &o.mir, &o.ptxc, o.ptxas.as_ref())
}

/// Runs, compares and explains a generated case.
pub fn check_case(engines: &Engines, case: &Case) -> Verdict {
    let ptx = print::to_ptx(&case.program);
    let launch = Launch::of(case);
    check_case_with(engines, case, engines.ptxas(&ptx, &launch))
}

/// Like [`check_case`], with ptxas's outcome already known.
pub fn check_case_with(engines: &Engines, case: &Case, ptxas: Option<Outcome>) -> Verdict {
    let ptx = print::to_ptx(&case.program);
    let facts = Facts::of(&case.program);
    let o = run_with(engines, &ptx, &Launch::of(case), ptxas);
    let all = compare::compare(Some(&facts), &o.mir, &o.ptxc, o.ptxas.as_ref());
    classify::classify(Some(&facts), all)
}
