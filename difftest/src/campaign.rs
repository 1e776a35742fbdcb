//! Campaigns: N programs from a seed (program `i` of seed `S` has seed `S + i`), or one shard
//! of them ([`crate::results::Shard`]), checked on `jobs` threads. Each program's mismatches
//! are explained word by word ([`crate::classify`]); a program with an unexplained part is a
//! failure, and the first few failures of each signature are shrunk and written as
//! regression cases. With a results file, every program's verdict is appended as it is
//! found and the seeds already there are skipped (resume).

use crate::case;
use crate::check::check_case;
use crate::classify::Verdict;
use crate::engines::{Engines, Launch};
use crate::generator::{self, Case};
use crate::program::print;
use crate::results::{Header, Record, Shard, Tally, Writer};
use crate::shrink::{self, Limits, Target};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How to run a campaign.
#[derive(Clone, Debug)]
pub struct Options {
    /// Programs in the whole campaign.
    pub count: u64,
    /// Seed of the first program.
    pub seed: u64,
    /// The part of the campaign to run.
    pub shard: Shard,
    /// Where each program's verdict is appended (and the done seeds are read from).
    pub results: Option<PathBuf>,
    /// Worker threads.
    pub jobs: usize,
    /// Programs a worker checks together, one ptxas process per PTX version among them
    /// ([`crate::batch`]); 1 checks each program alone.
    pub batch: usize,
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

impl Options {
    /// The header of this campaign's results file.
    pub fn header(&self) -> Header {
        Header {
            seed: self.seed,
            count: self.count,
            shard: self.shard,
            generator: self.generator.name(),
        }
    }
}

/// The mismatches of one program.
#[derive(Clone, Debug)]
pub struct Failure {
    /// Its seed.
    pub seed: u64,
    /// Its mismatches, explained or not.
    pub verdict: Verdict,
    /// The report of the program.
    pub report: String,
}

/// What a campaign found.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Counts over the programs checked in this run.
    pub tally: Tally,
    /// Programs found done in the results file and skipped.
    pub resumed: u64,
    /// Programs with unexplained mismatches, in seed order.
    pub failures: Vec<Failure>,
    /// Wall time.
    pub elapsed: Duration,
    /// Cases written (paths of the launch specs).
    pub written: Vec<PathBuf>,
}

impl Summary {
    /// A printable summary.
    pub fn text(&self) -> String {
        let t = &self.tally;
        let mut s = format!(
            "{} programs: {} agree, {} with open issues only, {} with unexplained mismatches; {:.1} s ({:.1} programs/s)\n",
            t.programs,
            t.agree,
            t.explained,
            t.unexplained,
            self.elapsed.as_secs_f64(),
            t.programs as f64 / self.elapsed.as_secs_f64().max(1e-9)
        );
        if self.resumed > 0 {
            s.push_str(&format!(
                "  ({} programs were already in the results file)\n",
                self.resumed
            ));
        }
        s.push_str(&t.details());
        for f in self.failures.iter().take(20) {
            let sigs: Vec<String> = f.verdict.unexplained.iter().map(|m| m.signature()).collect();
            s.push_str(&format!("  seed {}: {}\n", f.seed, sigs.join("; ")));
        }
        for w in &self.written {
            s.push_str(&format!("  wrote {}\n", w.display()));
        }
        s
    }
}

/// Runs a campaign (its shard, without the seeds the results file has), calling `progress`
/// with a line now and then.
pub fn run(opts: &Options, progress: &mut dyn FnMut(&str)) -> Result<Summary, String> {
    let start = Instant::now();
    let mut summary = Summary::default();
    let (mut writer, done) = match &opts.results {
        Some(p) => {
            let (w, done) = Writer::open(p, &opts.header())?;
            (Some(w), done)
        }
        None => (None, Vec::new()),
    };
    summary.resumed = done.len() as u64;
    let done: std::collections::HashSet<u64> = done.iter().map(|r| r.seed).collect();
    let seeds: Vec<u64> = opts
        .shard
        .seeds(opts.seed, opts.count)
        .filter(|s| !done.contains(s))
        .collect();
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<(u64, Option<Failure>)>();
    let mut shrunk_per_sig: BTreeMap<String, usize> = BTreeMap::new();
    let mut error = None;
    std::thread::scope(|s| {
        for j in 0..opts.jobs.max(1) {
            let (tx, next, seeds) = (tx.clone(), &next, &seeds);
            let engines = Engines::new(opts.ptxas.clone(), &opts.scratch.join(format!("job{j}")));
            let batch = opts.batch.max(1);
            s.spawn(move || {
                loop {
                    let first = next.fetch_add(batch, Ordering::Relaxed).min(seeds.len());
                    let chunk = &seeds[first..(first + batch).min(seeds.len())];
                    if chunk.is_empty() {
                        break;
                    }
                    let checked = if batch == 1 {
                        vec![(chunk[0], check_seed(&engines, chunk[0], opts.generator))]
                    } else {
                        crate::batch::check_seeds(&engines, chunk, opts.generator)
                    };
                    if checked.into_iter().any(|r| tx.send(r).is_err()) {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let engines = Engines::new(opts.ptxas.clone(), &opts.scratch.join("shrink"));
        let mut last = Instant::now();
        for (seed, failure) in rx {
            let record = Record::of(seed, failure.as_ref().map_or(&Verdict::default(), |f| &f.verdict));
            summary.tally.add(&record);
            if let Some(w) = writer.as_mut()
                && let Err(e) = w.record(&record)
            {
                error = Some(e);
                next.store(usize::MAX / 2, Ordering::Relaxed);
            }
            if let Some(f) = failure {
                if f.verdict.unexplained.is_empty() {
                    if opts.verbose {
                        progress(&format!("seed {}: {}", f.seed, f.report.replace('\n', "\n    ")));
                    }
                } else {
                    record_failure(opts, &engines, &f, &mut summary, &mut shrunk_per_sig, progress);
                    summary.failures.push(f);
                }
            }
            if last.elapsed() > Duration::from_secs(10) {
                last = Instant::now();
                progress(&format!(
                    "{} / {} programs, {} with unexplained mismatches, {:.0} s",
                    summary.tally.programs,
                    seeds.len(),
                    summary.tally.unexplained,
                    start.elapsed().as_secs_f64()
                ));
            }
        }
    });
    summary.failures.sort_by_key(|f| f.seed);
    summary.tally.unexplained_seeds.sort_unstable();
    summary.elapsed = start.elapsed();
    if let Some(w) = writer.as_mut() {
        w.segment(summary.tally.programs, summary.elapsed)?;
    }
    match error {
        Some(e) => Err(e),
        None => Ok(summary),
    }
}

/// Reports and (the first few of each signature) shrinks an unexplained failure.
fn record_failure(
    opts: &Options,
    engines: &Engines,
    f: &Failure,
    summary: &mut Summary,
    shrunk_per_sig: &mut BTreeMap<String, usize>,
    progress: &mut dyn FnMut(&str),
) {
    progress(&format!("seed {}: {}", f.seed, f.report.replace('\n', "\n    ")));
    let m = &f.verdict.unexplained[0];
    let n = shrunk_per_sig.entry(m.signature()).or_default();
    if let Some(dir) = &opts.out
        && *n < opts.shrink_per_signature
    {
        *n += 1;
        let target = Target::Unexplained(m.signature());
        match shrink_and_write(engines, f.seed, opts.generator, &target, opts.limits, dir) {
            Ok(p) => {
                progress(&format!("seed {}: shrunk to {}", f.seed, p.display()));
                summary.written.push(p);
            }
            Err(e) => progress(&format!("seed {}: {e}", f.seed)),
        }
    }
}

/// The report of a verdict: unexplained parts first, then each explained part with its
/// candidate issues.
pub fn report(v: &Verdict, case: &Case) -> String {
    let p = Some(&case.program);
    let mut lines: Vec<String> = v
        .unexplained
        .iter()
        .map(|m| format!("UNEXPLAINED {}", m.report(p)))
        .collect();
    for e in &v.explained {
        lines.push(format!(
            "open issue {}: {}",
            e.issues.join(" or "),
            e.mismatch.report(p)
        ));
    }
    lines.join("\n")
}

/// Generates and checks program `seed`; None when every execution agrees.
pub fn check_seed(engines: &Engines, seed: u64, options: generator::Options) -> Option<Failure> {
    let case = generator::generate_with(seed, options);
    let verdict = check_case(engines, &case);
    if verdict.agrees() {
        return None;
    }
    let report = report(&verdict, &case);
    Some(Failure { seed, verdict, report })
}

/// Shrinks program `seed` while it shows `target` and writes it to `dir` as
/// `<kind>_<seed>`; returns the path of its launch spec.
pub fn shrink_and_write(
    engines: &Engines,
    seed: u64,
    options: generator::Options,
    target: &Target,
    limits: Limits,
    dir: &Path,
) -> Result<PathBuf, String> {
    let case: Case = generator::generate_with(seed, options);
    let m = target
        .find(&check_case(engines, &case))
        .ok_or_else(|| format!("program {seed} does not show {target:?}"))?;
    let s = shrink::shrink(engines, case, target, m, limits);
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
