//! Campaigns: N programs from a seed (program `i` of seed `S` has seed `S + i`), checked on
//! `jobs` threads. Each mismatch is either an open issue of [`crate::known`] (explained) or
//! unexplained; the first few unexplained mismatches of each signature are shrunk and
//! written as regression cases.

use crate::case;
use crate::check::check_case;
use crate::compare::{Kind, Mismatch};
use crate::engines::{Engines, Launch};
use crate::generator::{self, Case};
use crate::known;
use crate::program::print;
use crate::shrink::{self, Limits};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
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
    /// What the generator writes.
    pub generator: generator::Options,
    /// Also report programs whose mismatches are all open issues.
    pub verbose: bool,
}

/// The mismatches of one program.
#[derive(Clone, Debug)]
pub struct Failure {
    /// Its seed.
    pub seed: u64,
    /// Mismatches no open issue explains.
    pub unexplained: Vec<Mismatch>,
    /// Open issues it shows.
    pub explained: Vec<&'static str>,
    /// The mismatches open issues explain.
    pub known: Vec<Mismatch>,
    /// The report of the program.
    pub report: String,
}

/// What a campaign found.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Programs checked.
    pub programs: u64,
    /// Programs with unexplained mismatches, in seed order.
    pub failures: Vec<Failure>,
    /// Programs whose mismatches are all open issues.
    pub explained_programs: u64,
    /// Unexplained mismatches by kind.
    pub by_kind: BTreeMap<Kind, u64>,
    /// Programs showing each open issue.
    pub by_issue: BTreeMap<&'static str, u64>,
    /// Wall time.
    pub elapsed: Duration,
    /// Cases written (paths of the launch specs).
    pub written: Vec<PathBuf>,
}

impl Summary {
    /// A printable summary.
    pub fn text(&self) -> String {
        let mut s = format!(
            "{} programs: {} agree, {} with open issues only, {} with unexplained mismatches; {:.1} s ({:.1} programs/s)\n",
            self.programs,
            self.programs - self.explained_programs - self.failures.len() as u64,
            self.explained_programs,
            self.failures.len(),
            self.elapsed.as_secs_f64(),
            self.programs as f64 / self.elapsed.as_secs_f64().max(1e-9)
        );
        for (k, n) in &self.by_kind {
            s.push_str(&format!("  {n:6}  unexplained: {k}\n"));
        }
        for (id, n) in &self.by_issue {
            let what = known::ISSUES.iter().find(|i| i.id == *id).map_or("", |i| i.summary);
            s.push_str(&format!(
                "  {n:6}  open issue {id}: {}\n",
                what.lines().next().unwrap_or("")
            ));
        }
        for f in self.failures.iter().take(20) {
            let sigs: Vec<String> = f.unexplained.iter().map(|m| m.signature()).collect();
            s.push_str(&format!("  seed {}: {}\n", f.seed, sigs.join("; ")));
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
                    if tx.send((seed, check_seed(&engines, seed, opts.generator))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let engines = Engines::new(opts.ptxas.clone(), &opts.scratch.join("shrink"));
        let mut last = Instant::now();
        for (_, failure) in rx {
            summary.programs += 1;
            if let Some(f) = failure {
                for id in &f.explained {
                    *summary.by_issue.entry(id).or_default() += 1;
                }
                if f.unexplained.is_empty() {
                    summary.explained_programs += 1;
                    if opts.verbose {
                        progress(&format!("seed {}: open issues {}", f.seed, f.explained.join(", ")));
                    }
                } else {
                    record(opts, &engines, &f, &mut summary, &mut shrunk_per_sig, progress);
                    summary.failures.push(f);
                }
            }
            if last.elapsed() > Duration::from_secs(10) {
                last = Instant::now();
                progress(&format!(
                    "{} / {} programs, {} with unexplained mismatches, {:.0} s",
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

/// Counts, reports and (the first few of each signature) shrinks an unexplained failure.
fn record(
    opts: &Options,
    engines: &Engines,
    f: &Failure,
    summary: &mut Summary,
    shrunk_per_sig: &mut BTreeMap<String, usize>,
    progress: &mut dyn FnMut(&str),
) {
    progress(&format!("seed {}: {}", f.seed, f.report.replace('\n', "\n    ")));
    for m in &f.unexplained {
        *summary.by_kind.entry(m.kind).or_default() += 1;
    }
    let m = &f.unexplained[0];
    let n = shrunk_per_sig.entry(m.signature()).or_default();
    if let Some(dir) = &opts.out
        && *n < opts.shrink_per_signature
    {
        *n += 1;
        match shrink_and_write(engines, f.seed, opts.generator, m, opts.limits, dir) {
            Ok(p) => {
                progress(&format!("seed {}: shrunk to {}", f.seed, p.display()));
                summary.written.push(p);
            }
            Err(e) => progress(&format!("seed {}: {e}", f.seed)),
        }
    }
}

/// Generates and checks program `seed`; None when every execution agrees.
pub fn check_seed(engines: &Engines, seed: u64, options: generator::Options) -> Option<Failure> {
    let case = generator::generate_with(seed, options);
    let all = check_case(engines, &case);
    if all.is_empty() {
        return None;
    }
    let report = all
        .iter()
        .map(|m| m.report(Some(&case.program)))
        .collect::<Vec<_>>()
        .join("\n");
    let p = Some(&case.program);
    let (explained, unexplained): (Vec<Mismatch>, Vec<Mismatch>) =
        all.into_iter().partition(|m| known::issue(m, p).is_some());
    let mut ids: Vec<&'static str> = explained
        .iter()
        .filter_map(|m| known::issue(m, p))
        .map(|i| i.id)
        .collect();
    ids.dedup();
    Some(Failure {
        seed,
        unexplained,
        explained: ids,
        known: explained,
        report,
    })
}

/// Shrinks program `seed` while it shows mismatch `m` and writes it to `dir` as
/// `<kind>_<seed>`; returns the path of its launch spec.
pub fn shrink_and_write(
    engines: &Engines,
    seed: u64,
    options: generator::Options,
    m: &Mismatch,
    limits: Limits,
    dir: &Path,
) -> Result<PathBuf, String> {
    let case: Case = generator::generate_with(seed, options);
    let s = shrink::shrink(engines, case, m.clone(), limits);
    let name = format!("{:?}_{seed}", s.mismatch.kind).to_lowercase();
    let ptx = print::to_ptx(&s.case.program);
    let report = format!(
        "program seed {seed}, shrunk in {} checks\n{}\n",
        s.checks,
        s.mismatch.report(Some(&s.case.program)),
    );
    case::write(dir, &name, &ptx, &Launch::of(&s.case), &report)?;
    Ok(dir.join(format!("{name}.toml")))
}
