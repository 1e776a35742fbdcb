//! Campaigns: N programs from a seed (program `i` of seed `S` has seed `S + i`), checked on
//! `jobs` threads, mismatches counted by kind, the first few of each signature shrunk and
//! written as regression cases.

use crate::case;
use crate::check::check_case;
use crate::compare::{Kind, Mismatch};
use crate::engines::{Engines, Launch};
use crate::generator::{self, Case};
use crate::program::print;
use crate::shrink::{self, Limits};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How to run a campaign.
#[derive(Clone, Debug)]
pub struct Options {
    /// Programs.
    pub count: u64,
    /// Seed of the first program.
    pub seed: u64,
    /// Worker threads.
    pub jobs: usize,
    /// Where shrunk cases go (None: no shrinking).
    pub out: Option<PathBuf>,
    /// Cases shrunk per mismatch signature.
    pub shrink_per_signature: usize,
    /// Limits of each shrink.
    pub limits: Limits,
    /// The oracle (`ptxas`), if any.
    pub ptxas: Option<PathBuf>,
    /// Scratch directory root.
    pub scratch: PathBuf,
}

/// A failing program.
#[derive(Clone, Debug)]
pub struct Failure {
    /// Its seed.
    pub seed: u64,
    /// What disagreed.
    pub mismatch: Mismatch,
    /// The report of the original program.
    pub report: String,
}

/// What a campaign found.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Programs checked.
    pub programs: u64,
    /// Failures in seed order.
    pub failures: Vec<Failure>,
    /// Failures by kind.
    pub by_kind: BTreeMap<Kind, u64>,
    /// Wall time.
    pub elapsed: Duration,
    /// Cases written (paths of the launch specs).
    pub written: Vec<PathBuf>,
}

impl Summary {
    /// A printable summary.
    pub fn text(&self) -> String {
        let mut s = format!(
            "{} programs, {} mismatches, {:.1} s ({:.1} programs/s)\n",
            self.programs,
            self.failures.len(),
            self.elapsed.as_secs_f64(),
            self.programs as f64 / self.elapsed.as_secs_f64().max(1e-9)
        );
        for (k, n) in &self.by_kind {
            s.push_str(&format!("  {n:6}  {k}\n"));
        }
        for f in self.failures.iter().take(20) {
            s.push_str(&format!("  seed {}: {}\n", f.seed, f.mismatch.signature()));
        }
        for w in &self.written {
            s.push_str(&format!("  wrote {}\n", w.display()));
        }
        s
    }
}

/// Runs a campaign, calling `progress` with a line now and then.
pub fn run(opts: &Options, progress: &mut dyn FnMut(&str)) -> Summary {
    let start = Instant::now();
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<(u64, Option<Failure>)>();
    let mut summary = Summary::default();
    let mut shrunk_per_sig: BTreeMap<String, usize> = BTreeMap::new();
    std::thread::scope(|s| {
        for j in 0..opts.jobs.max(1) {
            let (tx, next) = (tx.clone(), &next);
            let engines = Engines::new(opts.ptxas.clone(), &opts.scratch.join(format!("job{j}")));
            s.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed) as u64;
                    if i >= opts.count {
                        break;
                    }
                    let seed = opts.seed.wrapping_add(i);
                    if tx.send((seed, check_seed(&engines, seed))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let engines = Engines::new(opts.ptxas.clone(), &opts.scratch.join("shrink"));
        let mut last = Instant::now();
        for (seed, failure) in rx {
            summary.programs += 1;
            if let Some(f) = failure {
                progress(&format!(
                    "seed {seed}: {}",
                    f.mismatch.report(None).replace('\n', "\n    ")
                ));
                *summary.by_kind.entry(f.mismatch.kind).or_default() += 1;
                let n = shrunk_per_sig.entry(f.mismatch.signature()).or_default();
                if let Some(dir) = &opts.out
                    && *n < opts.shrink_per_signature
                {
                    *n += 1;
                    match shrink_and_write(&engines, seed, &f, opts.limits, dir) {
                        Ok(p) => {
                            progress(&format!("seed {seed}: shrunk to {}", p.display()));
                            summary.written.push(p);
                        }
                        Err(e) => progress(&format!("seed {seed}: {e}")),
                    }
                }
                summary.failures.push(f);
            }
            if last.elapsed() > Duration::from_secs(10) {
                last = Instant::now();
                progress(&format!(
                    "{} / {} programs, {} mismatches, {:.0} s",
                    summary.programs,
                    opts.count,
                    summary.failures.len(),
                    start.elapsed().as_secs_f64()
                ));
            }
        }
    });
    summary.failures.sort_by_key(|f| f.seed);
    summary.elapsed = start.elapsed();
    summary
}

/// Generates and checks program `seed`.
pub fn check_seed(engines: &Engines, seed: u64) -> Option<Failure> {
    let case = generator::generate(seed);
    let m = check_case(engines, &case)?;
    Some(Failure {
        seed,
        report: m.report(Some(&case.program)),
        mismatch: m,
    })
}

/// Shrinks the program of a failure and writes it to `dir` as `<kind>_<seed>`; returns the
/// path of its launch spec.
pub fn shrink_and_write(
    engines: &Engines,
    seed: u64,
    f: &Failure,
    limits: Limits,
    dir: &std::path::Path,
) -> Result<PathBuf, String> {
    let case: Case = generator::generate(seed);
    let s = shrink::shrink(engines, case, f.mismatch.clone(), limits);
    let name = format!("{:?}_{seed}", s.mismatch.kind).to_lowercase();
    let ptx = print::to_ptx(&s.case.program);
    let report = format!(
        "program seed {seed}, shrunk in {} checks\n{}\n\noriginal:\n{}\n",
        s.checks,
        s.mismatch.report(Some(&s.case.program)),
        f.report
    );
    case::write(dir, &name, &ptx, &Launch::of(&s.case), &report)?;
    Ok(dir.join(format!("{name}.toml")))
}
