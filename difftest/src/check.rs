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
    let ptxas = engines.ptxas(ptx, launch);
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
    let facts = Facts::of(&case.program);
    let all = check(engines, &ptx, &Launch::of(case), Some(&facts));
    classify::classify(Some(&facts), all)
}
