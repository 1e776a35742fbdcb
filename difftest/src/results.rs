//! Campaign results on disk, one line per program, so that a campaign can be split into
//! shards (`--shard K/N`: a contiguous range of its seeds), run anywhere (Slurm array jobs,
//! Kubernetes indexed jobs, CI matrices), resumed after an interruption (the seeds already
//! in the file are skipped) and merged (`--merge`: every seed of the campaign exactly once).
//!
//! The file starts with a header naming the campaign (`# campaign seed=S count=C shard=K/N
//! generator=G`), then one tab-separated line per program: seed, verdict (`agree`,
//! `explained`, `unexplained`), the open issues that explain some part, the issues that are
//! the only candidate for some part, and the signatures of the unexplained mismatches (`-`
//! for none). `# segment programs=P seconds=T` closes each run.

use crate::classify::Verdict;
use crate::known;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::Write as _;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// One shard of a campaign: `index` of `count` (0-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// Which shard, 0 to `count` - 1.
    pub index: u64,
    /// How many shards.
    pub count: u64,
}

impl Shard {
    /// The whole campaign as one shard.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// Parses `K/N`.
    pub fn parse(s: &str) -> Result<Shard, String> {
        let bad = || format!("--shard {s}: expected K/N with 0 <= K < N (for example 3/10)");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            k.trim().parse::<u64>().map_err(|_| bad())?,
            n.trim().parse::<u64>().map_err(|_| bad())?,
        );
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// The seeds of this shard in a campaign of `count` programs from `seed`.
    pub fn seeds(&self, seed: u64, count: u64) -> Range<u64> {
        let at = |k: u64| seed + ((count as u128 * k as u128) / self.count as u128) as u64;
        at(self.index)..at(self.index + 1)
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Which campaign a results file belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Seed of the campaign's first program.
    pub seed: u64,
    /// Programs in the whole campaign.
    pub count: u64,
    /// This file's shard.
    pub shard: Shard,
    /// The generator's options, as text (`default`, `avoid-open-issues`).
    pub generator: String,
}

impl Header {
    fn line(&self) -> String {
        format!(
            "# campaign seed={} count={} shard={} generator={}",
            self.seed, self.count, self.shard, self.generator
        )
    }

    fn parse(line: &str) -> Option<Header> {
        let mut f: BTreeMap<&str, &str> = BTreeMap::new();
        for kv in line.strip_prefix("# campaign ")?.split_whitespace() {
            let (k, v) = kv.split_once('=')?;
            f.insert(k, v);
        }
        Some(Header {
            seed: f.get("seed")?.parse().ok()?,
            count: f.get("count")?.parse().ok()?,
            shard: Shard::parse(f.get("shard")?).ok()?,
            generator: f.get("generator")?.to_string(),
        })
    }

    /// The seeds of this file's shard.
    pub fn seeds(&self) -> Range<u64> {
        self.shard.seeds(self.seed, self.count)
    }
}

/// The verdict on one program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    /// Every execution agreed.
    Agree,
    /// Every mismatch is explained by open issues.
    Explained,
    /// Some mismatch is unexplained.
    Unexplained,
}

/// One program's line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// Its seed.
    pub seed: u64,
    /// The verdict.
    pub class: Class,
    /// Issues that explain some part.
    pub issues: Vec<&'static str>,
    /// Issues that are the only candidate for some part.
    pub sole: Vec<&'static str>,
    /// Signatures of the unexplained mismatches.
    pub unexplained: Vec<String>,
}

impl Record {
    /// The record of program `seed` with verdict `v`.
    pub fn of(seed: u64, v: &Verdict) -> Record {
        let class = if !v.unexplained.is_empty() {
            Class::Unexplained
        } else if v.agrees() {
            Class::Agree
        } else {
            Class::Explained
        };
        Record {
            seed,
            class,
            issues: v.issues().into_iter().collect(),
            sole: v.sole().into_iter().collect(),
            unexplained: v.unexplained.iter().map(|m| m.signature()).collect(),
        }
    }

    /// The record's line in a results file.
    pub(crate) fn line(&self) -> String {
        let list = |v: &[&str]| if v.is_empty() { "-".to_string() } else { v.join(",") };
        let sigs: Vec<String> = self
            .unexplained
            .iter()
            .map(|s| s.replace(['\t', '\n', '|'], " "))
            .collect();
        let class = match self.class {
            Class::Agree => "agree",
            Class::Explained => "explained",
            Class::Unexplained => "unexplained",
        };
        let unexplained = if sigs.is_empty() {
            "-".to_string()
        } else {
            sigs.join(" | ")
        };
        format!(
            "{}\t{class}\t{}\t{}\t{unexplained}",
            self.seed,
            list(&self.issues),
            list(&self.sole)
        )
    }

    fn parse(line: &str) -> Result<Record, String> {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() != 5 {
            return Err(format!("expected 5 tab-separated fields, found {}", f.len()));
        }
        let seed = f[0].parse().map_err(|_| format!("bad seed `{}`", f[0]))?;
        let class = match f[1] {
            "agree" => Class::Agree,
            "explained" => Class::Explained,
            "unexplained" => Class::Unexplained,
            other => return Err(format!("bad verdict `{other}`")),
        };
        let ids = |s: &str| -> Result<Vec<&'static str>, String> {
            if s == "-" {
                return Ok(Vec::new());
            }
            s.split(',')
                .map(|id| {
                    known::by_id(id)
                        .map(|i| i.id)
                        .ok_or_else(|| format!("issue `{id}` is not in this build's known.rs"))
                })
                .collect()
        };
        let unexplained = if f[4] == "-" {
            Vec::new()
        } else {
            f[4].split(" | ").map(str::to_string).collect()
        };
        Ok(Record {
            seed,
            class,
            issues: ids(f[2])?,
            sole: ids(f[3])?,
            unexplained,
        })
    }
}

/// A results file: its header, records and the time its segments took.
#[derive(Clone, Debug)]
pub struct Results {
    /// The campaign.
    pub header: Header,
    /// The records, in file order.
    pub records: Vec<Record>,
    /// Wall time of the runs that wrote it.
    pub elapsed: Duration,
    /// The summaries of the rechecks of its unexplained seeds by later builds
    /// ([`crate::recheck`]), without their `# recheck ` prefix.
    pub rechecks: Vec<String>,
}

impl Results {
    /// Reads a results file. A last line without its newline (an interrupted write) is
    /// ignored.
    pub fn read(path: &Path) -> Result<Results, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let complete = match text.rfind('\n') {
            Some(k) => &text[..=k],
            None => "",
        };
        let mut lines = complete.lines().enumerate();
        let header = lines
            .next()
            .and_then(|(_, l)| Header::parse(l))
            .ok_or_else(|| format!("{}: no `# campaign` header", path.display()))?;
        let mut records = Vec::new();
        let mut elapsed = Duration::ZERO;
        let mut rechecks = Vec::new();
        for (n, l) in lines {
            if let Some(r) = l.strip_prefix("# recheck ") {
                rechecks.push(r.to_string());
            } else if let Some(seg) = l.strip_prefix("# segment ") {
                let secs = seg
                    .split_whitespace()
                    .find_map(|kv| kv.strip_prefix("seconds="))
                    .and_then(|s| s.parse::<f64>().ok())
                    .unwrap_or(0.0);
                elapsed += Duration::from_secs_f64(secs);
            } else if !l.starts_with('#') && !l.trim().is_empty() {
                records.push(Record::parse(l).map_err(|e| format!("{}:{}: {e}", path.display(), n + 1))?);
            }
        }
        Ok(Results {
            header,
            records,
            elapsed,
            rechecks,
        })
    }
}

/// Appends records to a results file, one flushed line at a time.
pub struct Writer {
    file: std::fs::File,
    path: PathBuf,
}

impl Writer {
    /// Opens `path` for campaign `header`: a new file gets the header; an existing one must
    /// be of the same campaign, and its complete records are returned (their seeds are done).
    pub fn open(path: &Path, header: &Header) -> Result<(Writer, Vec<Record>), String> {
        let err = |e: std::io::Error| format!("{}: {e}", path.display());
        let done = if path.exists() {
            let r = Results::read(path)?;
            if r.header != *header {
                return Err(format!(
                    "{}: written for another campaign ({}); this one is {}",
                    path.display(),
                    r.header.line(),
                    header.line()
                ));
            }
            // Drop an incomplete last line before appending.
            let text = std::fs::read_to_string(path).map_err(err)?;
            let keep = text.rfind('\n').map_or(0, |k| k + 1);
            if keep < text.len() {
                std::fs::write(path, &text[..keep]).map_err(err)?;
            }
            r.records
        } else {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            }
            std::fs::write(path, format!("{}\n", header.line())).map_err(err)?;
            Vec::new()
        };
        let file = std::fs::OpenOptions::new().append(true).open(path).map_err(err)?;
        Ok((
            Writer {
                file,
                path: path.to_path_buf(),
            },
            done,
        ))
    }

    /// Appends one record.
    pub fn record(&mut self, r: &Record) -> Result<(), String> {
        writeln!(self.file, "{}", r.line())
            .and_then(|_| self.file.flush())
            .map_err(|e| format!("{}: {e}", self.path.display()))
    }

    /// Closes a run of `programs` programs that took `elapsed`.
    pub fn segment(&mut self, programs: u64, elapsed: Duration) -> Result<(), String> {
        writeln!(
            self.file,
            "# segment programs={programs} seconds={:.1}",
            elapsed.as_secs_f64()
        )
        .and_then(|_| self.file.flush())
        .map_err(|e| format!("{}: {e}", self.path.display()))
    }
}

/// Counts over records.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Programs.
    pub programs: u64,
    /// Programs on which every execution agreed.
    pub agree: u64,
    /// Programs whose mismatches are all explained.
    pub explained: u64,
    /// Programs with an unexplained mismatch.
    pub unexplained: u64,
    /// Per open issue: programs it explains some part of, and programs where it is the
    /// only candidate for some part.
    pub by_issue: BTreeMap<&'static str, (u64, u64)>,
    /// Programs with each unexplained signature.
    pub by_signature: BTreeMap<String, u64>,
    /// Seeds of the programs with unexplained mismatches.
    pub unexplained_seeds: Vec<u64>,
}

impl Tally {
    /// Adds one record.
    pub fn add(&mut self, r: &Record) {
        self.programs += 1;
        match r.class {
            Class::Agree => self.agree += 1,
            Class::Explained => self.explained += 1,
            Class::Unexplained => {
                self.unexplained += 1;
                self.unexplained_seeds.push(r.seed);
            }
        }
        for id in &r.issues {
            self.by_issue.entry(id).or_default().0 += 1;
        }
        for id in &r.sole {
            self.by_issue.entry(id).or_default().1 += 1;
        }
        let sigs: BTreeSet<&String> = r.unexplained.iter().collect();
        for s in sigs {
            *self.by_signature.entry(s.clone()).or_default() += 1;
        }
    }

    /// The counts of every open issue, then of every unexplained signature.
    pub fn details(&self) -> String {
        let mut s = String::new();
        for (id, (any, sole)) in &self.by_issue {
            let what = known::by_id(id).map_or("", |i| i.summary.lines().next().unwrap_or(""));
            let _ = writeln!(s, "  {any:6} programs ({sole:6} sole)  open issue {id}: {what}");
        }
        for (sig, n) in &self.by_signature {
            let _ = writeln!(s, "  {n:6} programs  unexplained: {sig}");
        }
        s
    }
}

/// The merge of a campaign's shards: per shard and in total, and what is missing.
#[derive(Clone, Debug)]
pub struct Merged {
    /// The campaign (shard field: the number of shards, index 0).
    pub seed: u64,
    /// Programs in the campaign.
    pub count: u64,
    /// Per shard: its header, tally and wall time, by shard index.
    pub shards: Vec<(Header, Tally, Duration)>,
    /// The whole campaign.
    pub total: Tally,
    /// Seeds of the campaign no file has (ranges).
    pub missing: Vec<Range<u64>>,
    /// Problems: files of other campaigns, duplicate shards or seeds, seeds outside a shard.
    pub problems: Vec<String>,
    /// The rechecks of the files' unexplained seeds by later builds: (file, summary).
    pub rechecks: Vec<(PathBuf, String)>,
}

impl Merged {
    /// Whether the campaign is complete, consistent and without unexplained mismatches.
    pub fn passed(&self) -> bool {
        self.missing.is_empty() && self.problems.is_empty() && self.total.unexplained == 0
    }

    /// The table: one row per shard and a total.
    pub fn table(&self) -> String {
        let mut s = format!(
            "campaign: seeds {}..{} ({} programs), {} shard(s)\n",
            self.seed,
            self.seed + self.count,
            self.count,
            self.shards.len()
        );
        let _ = writeln!(
            s,
            "{:>7}  {:>21}  {:>9}  {:>9}  {:>9}  {:>11}  {:>8}",
            "shard", "seeds", "programs", "agree", "explained", "unexplained", "seconds"
        );
        let mut time = Duration::ZERO;
        for (h, t, d) in &self.shards {
            let r = h.seeds();
            time += *d;
            let _ = writeln!(
                s,
                "{:>7}  {:>21}  {:>9}  {:>9}  {:>9}  {:>11}  {:>8.0}",
                h.shard.to_string(),
                format!("{}..{}", r.start, r.end),
                t.programs,
                t.agree,
                t.explained,
                t.unexplained,
                d.as_secs_f64()
            );
        }
        let t = &self.total;
        let _ = writeln!(
            s,
            "{:>7}  {:>21}  {:>9}  {:>9}  {:>9}  {:>11}  {:>8.0}",
            "total",
            format!("{}..{}", self.seed, self.seed + self.count),
            t.programs,
            t.agree,
            t.explained,
            t.unexplained,
            time.as_secs_f64()
        );
        s.push_str(&t.details());
        for (f, r) in &self.rechecks {
            let _ = writeln!(s, "  rechecked {}: {r}", f.display());
        }
        for r in &self.missing {
            let _ = writeln!(s, "  MISSING seeds {}..{}", r.start, r.end);
        }
        for p in &self.problems {
            let _ = writeln!(s, "  PROBLEM {p}");
        }
        if !t.unexplained_seeds.is_empty() {
            let shown: Vec<String> = t.unexplained_seeds.iter().take(50).map(u64::to_string).collect();
            let _ = writeln!(s, "  unexplained seeds: {}", shown.join(" "));
        }
        s
    }
}

/// Merges the results files of one campaign's shards.
pub fn merge(files: &[PathBuf]) -> Result<Merged, String> {
    let all: Vec<Results> = files.iter().map(|f| Results::read(f)).collect::<Result<_, _>>()?;
    let first = all.first().ok_or("--merge needs at least one results file")?;
    let (seed, count, n, generator) = (
        first.header.seed,
        first.header.count,
        first.header.shard.count,
        first.header.generator.clone(),
    );
    let mut m = Merged {
        seed,
        count,
        shards: Vec::new(),
        total: Tally::default(),
        missing: Vec::new(),
        problems: Vec::new(),
        rechecks: Vec::new(),
    };
    let mut seen: BTreeMap<u64, u64> = BTreeMap::new();
    for (f, r) in files.iter().zip(&all) {
        let h = &r.header;
        if (h.seed, h.count, h.shard.count, &h.generator) != (seed, count, n, &generator) {
            m.problems
                .push(format!("{}: another campaign ({})", f.display(), h.line()));
            continue;
        }
        if m.shards.iter().any(|(o, _, _)| o.shard == h.shard) {
            m.problems
                .push(format!("{}: shard {} given twice", f.display(), h.shard));
            continue;
        }
        let range = h.seeds();
        let mut t = Tally::default();
        for rec in &r.records {
            if !range.contains(&rec.seed) {
                m.problems.push(format!(
                    "{}: seed {} is outside shard {}",
                    f.display(),
                    rec.seed,
                    h.shard
                ));
                continue;
            }
            *seen.entry(rec.seed).or_default() += 1;
            if seen[&rec.seed] > 1 {
                m.problems
                    .push(format!("{}: seed {} recorded twice", f.display(), rec.seed));
                continue;
            }
            t.add(rec);
            m.total.add(rec);
        }
        m.shards.push((h.clone(), t, r.elapsed));
        m.rechecks.extend(r.rechecks.iter().map(|x| (f.clone(), x.clone())));
    }
    m.shards.sort_by_key(|(h, _, _)| h.shard.index);
    let mut start = None;
    for s in seed..seed + count {
        match (seen.contains_key(&s), start) {
            (false, None) => start = Some(s),
            (true, Some(a)) => {
                m.missing.push(a..s);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(a) = start {
        m.missing.push(a..seed + count);
    }
    m.total.unexplained_seeds.sort_unstable();
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_split_the_seeds_exactly() {
        let n = 7;
        let mut all = Vec::new();
        for k in 0..n {
            all.extend(Shard { index: k, count: n }.seeds(100, 1000));
        }
        assert_eq!(all, (100..1100).collect::<Vec<_>>());
        assert_eq!(Shard::parse("3/10"), Ok(Shard { index: 3, count: 10 }));
        assert!(Shard::parse("10/10").is_err() && Shard::parse("1").is_err() && Shard::parse("0/0").is_err());
    }

    #[test]
    fn records_round_trip() {
        let id = known::ISSUES[0].id;
        let r = Record {
            seed: 42,
            class: Class::Unexplained,
            issues: vec![id],
            sole: Vec::new(),
            unexplained: vec!["Backend".into(), "PtxcFault: a fault".into()],
        };
        assert_eq!(Record::parse(&r.line()), Ok(r));
        assert!(Record::parse("1\texplained\tno-such-issue\t-\t-").is_err());
    }

    fn temp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ptxc-difftest-results-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d.join(name)
    }

    fn header(shard: Shard) -> Header {
        Header {
            seed: 10,
            count: 6,
            shard,
            generator: "default".into(),
        }
    }

    fn agree(seed: u64) -> Record {
        Record {
            seed,
            class: Class::Agree,
            issues: Vec::new(),
            sole: Vec::new(),
            unexplained: Vec::new(),
        }
    }

    #[test]
    fn resume_skips_done_seeds_and_drops_a_torn_line() {
        let p = temp("resume.txt");
        let _ = std::fs::remove_file(&p);
        let h = header(Shard { index: 0, count: 2 });
        let (mut w, done) = Writer::open(&p, &h).unwrap();
        assert!(done.is_empty());
        w.record(&agree(10)).unwrap();
        drop(w);
        // An interrupted write leaves half a line.
        let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
        write!(f, "11\tagr").unwrap();
        drop(f);
        let (mut w, done) = Writer::open(&p, &h).unwrap();
        assert_eq!(done, vec![agree(10)]);
        w.record(&agree(11)).unwrap();
        w.record(&agree(12)).unwrap();
        w.segment(2, Duration::from_secs(3)).unwrap();
        let r = Results::read(&p).unwrap();
        assert_eq!(r.records.len(), 3);
        assert_eq!(r.elapsed, Duration::from_secs(3));
        assert!(Writer::open(&p, &header(Shard::ALL)).is_err(), "another campaign");
    }

    #[test]
    fn merge_checks_coverage() {
        let (a, b) = (temp("m0.txt"), temp("m1.txt"));
        for (p, k, seeds) in [(&a, 0, 10..13), (&b, 1, 13..15)] {
            let _ = std::fs::remove_file(p);
            let (mut w, _) = Writer::open(p, &header(Shard { index: k, count: 2 })).unwrap();
            for s in seeds {
                w.record(&agree(s)).unwrap();
            }
        }
        let m = merge(&[b.clone(), a.clone()]).unwrap();
        assert_eq!(m.total.programs, 5);
        assert_eq!(m.missing, vec![15..16]);
        assert!(!m.passed());
        assert_eq!(m.shards[0].0.shard.index, 0);
        assert!(
            merge(&[a.clone(), a])
                .unwrap()
                .problems
                .iter()
                .any(|p| p.contains("twice"))
        );
    }
}
