//! Batches: a campaign's programs compiled by ptxas many kernels to a process. Starting ptxas
//! costs more than compiling one small kernel, so the programs of a batch that share a PTX
//! version are printed into one module, each kernel named for its seed ([`kernel_name`]), and
//! ptxas compiles the module once; each kernel then runs from that cubin. ptxas compiles
//! every `.entry` of a module on its own (the batch test compares the code of each kernel
//! with its code compiled alone), so a kernel's code does not depend on its neighbours.
//!
//! Attribution: when ptxas rejects or crashes on a module, every program of that module is
//! compiled alone, so an error or a crash names its seed; and every program that does not
//! agree is checked again alone ([`check_case`]), so the verdict recorded is exactly the one
//! `difftest --count 1 --seed S` reproduces.

use crate::campaign::{Failure, report};
use crate::check::{check_case, check_case_with};
use crate::engines::{Engines, Launch, Outcome};
use crate::generator::{self, Case};
use crate::program::print;
use std::collections::BTreeMap;

/// The name of the kernel of program `seed` in a batch module.
pub fn kernel_name(seed: u64) -> String {
    format!("difftest_{seed}")
}

/// The modules of a batch of (seed, case): for each PTX version, the indices of its cases
/// and their module.
pub fn modules(cases: &[(u64, Case)]) -> Vec<(Vec<usize>, String)> {
    let mut by_version: BTreeMap<(u8, u8), Vec<usize>> = BTreeMap::new();
    for (i, (_, c)) in cases.iter().enumerate() {
        by_version.entry(c.program.version).or_default().push(i);
    }
    by_version
        .into_iter()
        .map(|(version, idx)| {
            let mut ptx = print::module_header(version);
            for &i in &idx {
                let (seed, case) = &cases[i];
                ptx.push_str(&print::entry(&case.program, &kernel_name(*seed)));
                ptx.push('\n');
            }
            (idx, ptx)
        })
        .collect()
}

/// ptxas's outcome of every case (None without an oracle): one ptxas process per module of
/// [`modules`], each case alone when its module does not compile.
pub fn oracle_outcomes(engines: &Engines, cases: &[(u64, Case)]) -> Vec<Option<Outcome>> {
    let mut out = vec![None; cases.len()];
    let Some(ptxas) = &engines.ptxas else {
        return out;
    };
    for (idx, ptx) in modules(cases) {
        match engines.ptxas_cubin(ptxas, &ptx) {
            Ok(cubin) => {
                for i in idx {
                    let (seed, case) = &cases[i];
                    out[i] = Some(engines.kernel(&cubin, &kernel_name(*seed), &Launch::of(case)));
                }
            }
            Err(_) => {
                for i in idx {
                    let case = &cases[i].1;
                    out[i] = engines.ptxas(&print::to_ptx(&case.program), &Launch::of(case));
                }
            }
        }
    }
    out
}

/// Generates and checks programs `seeds` with one ptxas process per PTX version: each
/// seed with its failure (None when every execution agrees).
pub fn check_seeds(engines: &Engines, seeds: &[u64], options: generator::Options) -> Vec<(u64, Option<Failure>)> {
    let cases: Vec<(u64, Case)> = seeds
        .iter()
        .map(|&s| (s, generator::generate_with(s, options)))
        .collect();
    let oracle = oracle_outcomes(engines, &cases);
    cases
        .iter()
        .zip(oracle)
        .map(|((seed, case), ptxas)| {
            let mut verdict = check_case_with(engines, case, ptxas);
            if !verdict.agrees() {
                verdict = check_case(engines, case);
            }
            let failure = (!verdict.agrees()).then(|| Failure {
                seed: *seed,
                report: report(&verdict, case),
                verdict,
            });
            (*seed, failure)
        })
        .collect()
}
