//! Rechecking a results file with a newer build (`difftest --recheck FILE...`): every
//! program the file records as unexplained is generated again from its seed, with the
//! campaign's generator options (the file's header), and checked alone, as `--count 1 --seed
//! S` would; its verdict line is replaced in place by the new verdict and followed by a
//! comment naming the build that gave it (`# rechecked seed=S was=unexplained
//! revision=R`), and the file ends with a line that sums the recheck (`# recheck revision=R
//! seeds=N agree=A explained=E unexplained=U seconds=T`). The other lines stay as they are:
//! their verdicts are those of the builds that ran the campaign.
//!
//! A file is rewritten only if it did not change while its seeds were rechecked (a shard
//! still running appends to it), through a temporary file renamed over it.

use crate::campaign::check_seed;
use crate::classify::Verdict;
use crate::engines::Engines;
use crate::generator;
use crate::results::{Class, Header, Record, Results};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The revision of this build (the git commit it was built from; see `build.rs`).
pub const REVISION: &str = env!("DIFFTEST_REVISION");

/// The prefix of the comment that follows a rechecked verdict line.
const SEED_NOTE: &str = "# rechecked seed=";

/// What rechecking one file did.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The file.
    pub path: PathBuf,
    /// Per rechecked seed: its old and its new record.
    pub seeds: Vec<(Record, Record)>,
    /// Wall time.
    pub elapsed: Duration,
}

impl Outcome {
    /// How many rechecked programs are still unexplained.
    pub fn unexplained(&self) -> usize {
        self.seeds.iter().filter(|(_, n)| n.class == Class::Unexplained).count()
    }

    /// The line that closes the file.
    fn summary_line(&self) -> String {
        let count = |c: Class| self.seeds.iter().filter(|(_, n)| n.class == c).count();
        format!(
            "# recheck revision={REVISION} seeds={} agree={} explained={} unexplained={} seconds={:.1}",
            self.seeds.len(),
            count(Class::Agree),
            count(Class::Explained),
            count(Class::Unexplained),
            self.elapsed.as_secs_f64()
        )
    }
}

/// The generator options a campaign's header names, if this build's generator is the one
/// that wrote it (another revision would give other programs for the same seeds).
pub fn options_of(header: &Header) -> Result<generator::Options, String> {
    let all = generator::REVISIONS.into_iter().flat_map(|revision| {
        [false, true].map(|avoid_open_issues| generator::Options {
            avoid_open_issues,
            revision,
        })
    });
    let names: Vec<String> = all.clone().map(|o| format!("`{}`", o.name())).collect();
    all.clone().find(|o| o.name() == header.generator).ok_or_else(|| {
        format!(
            "the campaign's generator is `{}`; this build writes {}: its seeds would give other programs",
            header.generator,
            names.join(", ")
        )
    })
}

/// Rechecks the unexplained seeds of the results file `path` on `jobs` threads (ptxas
/// `ptxas`, scratch folders under `scratch`) and rewrites the file; `progress` gets a line
/// per seed.
pub fn recheck(
    path: &Path,
    ptxas: Option<PathBuf>,
    scratch: &Path,
    jobs: usize,
    progress: &mut dyn FnMut(&str),
) -> Result<Outcome, String> {
    let start = Instant::now();
    let err = |e: std::io::Error| format!("{}: {e}", path.display());
    let before = std::fs::read_to_string(path).map_err(err)?;
    let results = Results::read(path)?;
    let options = options_of(&results.header).map_err(|e| format!("{}: {e}", path.display()))?;
    let old: BTreeMap<u64, Record> = results
        .records
        .iter()
        .filter(|r| r.class == Class::Unexplained)
        .map(|r| (r.seed, r.clone()))
        .collect();
    let seeds: Vec<u64> = old.keys().copied().collect();
    let checked = check_all(&seeds, options, ptxas, scratch, jobs);
    let mut outcome = Outcome {
        path: path.to_path_buf(),
        seeds: Vec::new(),
        elapsed: Duration::ZERO,
    };
    for (seed, new) in checked {
        progress(&format!("{}: seed {seed}: {}", path.display(), describe(&new)));
        outcome.seeds.push((old[&seed].clone(), new));
    }
    outcome.elapsed = start.elapsed();
    let text = rewrite(&before, &outcome);
    let now = std::fs::read_to_string(path).map_err(err)?;
    if now != before {
        return Err(format!(
            "{}: changed while its seeds were rechecked (is its shard still running?); not rewritten",
            path.display()
        ));
    }
    let tmp = path.with_extension("recheck.tmp");
    std::fs::write(&tmp, text).map_err(|e| format!("{}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(err)?;
    Ok(outcome)
}

/// Checks `seeds` alone, on `jobs` threads; the records in seed order.
fn check_all(
    seeds: &[u64],
    options: generator::Options,
    ptxas: Option<PathBuf>,
    scratch: &Path,
    jobs: usize,
) -> Vec<(u64, Record)> {
    let next = AtomicUsize::new(0);
    let out = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for j in 0..jobs.max(1).min(seeds.len().max(1)) {
            let engines = Engines::new(ptxas.clone(), &scratch.join(format!("recheck{j}")));
            let (next, out) = (&next, &out);
            s.spawn(move || {
                while let Some(&seed) = seeds.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let f = check_seed(&engines, seed, options);
                    let record = Record::of(seed, f.as_ref().map_or(&Verdict::default(), |f| &f.verdict));
                    out.lock()
                        .expect("no checker panics holding the lock")
                        .push((seed, record));
                }
            });
        }
    });
    let mut v = out.into_inner().expect("the checkers are done");
    v.sort_by_key(|(s, _)| *s);
    v
}

/// A short description of a record's verdict.
fn describe(r: &Record) -> String {
    match r.class {
        Class::Agree => "agrees".to_string(),
        Class::Explained => format!("explained by {}", r.issues.join(", ")),
        Class::Unexplained => format!("still unexplained: {}", r.unexplained.join("; ")),
    }
}

/// The text of the file `before` with the rechecked verdicts in place, each followed by its
/// note (earlier notes on the same seeds are dropped), and the recheck's summary at the end.
/// An incomplete last line (an interrupted write) is dropped, as a resumed campaign does.
fn rewrite(before: &str, outcome: &Outcome) -> String {
    let new: BTreeMap<u64, &Record> = outcome.seeds.iter().map(|(_, n)| (n.seed, n)).collect();
    let complete = before.rfind('\n').map_or("", |k| &before[..=k]);
    let mut text = String::with_capacity(complete.len() + 64 * new.len());
    for line in complete.lines() {
        let seed_of = |l: &str| l.split(['\t', ' ']).next().and_then(|s| s.parse::<u64>().ok());
        if let Some(rest) = line.strip_prefix(SEED_NOTE)
            && seed_of(rest).is_some_and(|s| new.contains_key(&s))
        {
            continue;
        }
        match seed_of(line)
            .and_then(|s| new.get(&s))
            .filter(|_| !line.starts_with('#'))
        {
            Some(r) => {
                text.push_str(&r.line());
                text.push('\n');
                text.push_str(&format!("{SEED_NOTE}{} was=unexplained revision={REVISION}\n", r.seed));
            }
            None => {
                text.push_str(line);
                text.push('\n');
            }
        }
    }
    text.push_str(&outcome.summary_line());
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{Shard, Writer};

    fn record(seed: u64, class: Class) -> Record {
        Record {
            seed,
            class,
            issues: if class == Class::Explained {
                vec![crate::known::ISSUES[0].id]
            } else {
                Vec::new()
            },
            sole: Vec::new(),
            unexplained: if class == Class::Unexplained {
                vec!["OracleDiffers".into()]
            } else {
                Vec::new()
            },
        }
    }

    #[test]
    fn rewrite_replaces_the_rechecked_lines_only() {
        let dir = std::env::temp_dir().join(format!("ptxc-difftest-recheck-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("shard.txt");
        let _ = std::fs::remove_file(&p);
        let header = Header {
            seed: 1,
            count: 4,
            shard: Shard::ALL,
            generator: generator::Options::default().name(),
        };
        let (mut w, _) = Writer::open(&p, &header).unwrap();
        for r in [
            record(1, Class::Agree),
            record(2, Class::Unexplained),
            record(3, Class::Unexplained),
        ] {
            w.record(&r).unwrap();
        }
        w.segment(3, Duration::from_secs(1)).unwrap();
        drop(w);
        let before = std::fs::read_to_string(&p).unwrap();
        let outcome = Outcome {
            path: p.clone(),
            seeds: vec![
                (record(2, Class::Unexplained), record(2, Class::Explained)),
                (record(3, Class::Unexplained), record(3, Class::Unexplained)),
            ],
            elapsed: Duration::from_secs(2),
        };
        let once = rewrite(&before, &outcome);
        std::fs::write(&p, &once).unwrap();
        let r = Results::read(&p).unwrap();
        let classes: Vec<(u64, Class)> = r.records.iter().map(|r| (r.seed, r.class)).collect();
        assert_eq!(
            classes,
            vec![(1, Class::Agree), (2, Class::Explained), (3, Class::Unexplained)]
        );
        assert_eq!(r.elapsed, Duration::from_secs(1), "a recheck is no segment");
        assert_eq!(once.matches(SEED_NOTE).count(), 2);
        assert!(once.ends_with(&format!("{}\n", outcome.summary_line())));
        // Rechecking seed 3 again keeps one note per seed, and the campaign resumes.
        let again = Outcome {
            seeds: vec![(record(3, Class::Unexplained), record(3, Class::Agree))],
            ..outcome
        };
        let twice = rewrite(&once, &again);
        assert_eq!(twice.matches(SEED_NOTE).count(), 2);
        std::fs::write(&p, &twice).unwrap();
        let (_, done) = Writer::open(&p, &header).unwrap();
        assert_eq!(done.iter().filter(|r| r.class == Class::Agree).count(), 2);
    }

    #[test]
    fn another_generator_revision_is_refused() {
        let mut h = Header {
            seed: 1,
            count: 1,
            shard: Shard::ALL,
            generator: "avoid-open-issues-r0".into(),
        };
        assert!(options_of(&h).is_err());
        for revision in generator::REVISIONS {
            let o = generator::Options {
                avoid_open_issues: true,
                revision,
            };
            h.generator = o.name();
            assert_eq!(options_of(&h), Ok(o));
        }
    }
}
