//! Regression cases (`tests/difftest/*.toml`, written by [`crate::case`]): a case named by an
//! open issue ([`crate::known::Issue::case`]) must still show exactly what it showed when the
//! issue was recorded (its `NAME.expect`: every differing word with its kind and the three
//! values, and every fault or crash with its normalised message), so that a fix is noticed
//! and the issue retired, and no other bug can hide behind the issue; every other case is a
//! fixed bug and must agree everywhere.

use crate::case;
use crate::check::check;
use crate::compare::{Kind, Mismatch, normalize};
use crate::engines::Engines;
use crate::known::{self, Component, Issue};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The verdict on one case.
#[derive(Debug)]
pub enum Verdict {
    /// A fixed bug's case: every execution agrees.
    Pass,
    /// An open issue's case shows exactly what it recorded.
    StillOpen(&'static Issue),
    /// An open issue's case shows none of what it recorded: the issue looks fixed.
    NoLongerShows(&'static Issue, Vec<Mismatch>),
    /// An open issue's case shows something other than what it recorded: observations it
    /// recorded that are missing, and observations it did not record.
    Changed(&'static Issue, Vec<String>, Vec<String>),
    /// Mismatches a fixed bug's case should not have.
    Fail(Vec<Mismatch>),
    /// Not checkable here (the case needs ptxas and there is none).
    Skipped(String),
    /// The case could not be read.
    Error(String),
}

impl Verdict {
    /// Whether the verdict is a failure.
    pub fn failed(&self) -> bool {
        matches!(
            self,
            Verdict::NoLongerShows(..) | Verdict::Changed(..) | Verdict::Fail(_) | Verdict::Error(_)
        )
    }
}

/// Whether issue `i` can only be seen with ptxas's answer.
fn needs_oracle(i: &Issue) -> bool {
    matches!(i.component, Component::Simulator | Component::Ptxas)
        || i.kinds().all(|k| {
            matches!(
                k,
                Kind::PtxasFault | Kind::PtxasHazards | Kind::OracleDiffers | Kind::OracleCrash
            )
        })
}

/// The observations of a list of mismatches, one line each: `word INDEX KIND MIR PTXC PTXAS`
/// for a differing word, `message KIND TEXT` (normalised) for the others.
pub fn observations(all: &[Mismatch]) -> BTreeSet<String> {
    let hex = |v: Option<u64>| v.map_or("-".to_string(), |v| format!("{v:#x}"));
    let mut out = BTreeSet::new();
    for m in all {
        if m.words.is_empty() {
            out.insert(format!("message {:?} {}", m.kind, normalize(&m.message)));
        }
        for w in &m.words {
            out.insert(format!(
                "word {} {:?} {} {} {}",
                w.index,
                m.kind,
                hex(w.mir),
                hex(w.ptxc),
                hex(w.ptxas)
            ));
        }
    }
    out
}

/// The expectation file of the case whose launch spec is `toml`.
pub fn expect_path(toml: &Path) -> PathBuf {
    toml.with_extension("expect")
}

/// Reads an expectation file.
fn read_expect(path: &Path) -> Result<BTreeSet<String>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect())
}

/// Writes the expectation file of open issue `i`'s case from what it shows now.
pub fn write_expect(toml: &Path, i: &Issue, all: &[Mismatch]) -> Result<(), String> {
    let path = expect_path(toml);
    let mut text = format!(
        "# What the regression case of open issue {} shows (one observation a line):\n\
         # `word INDEX KIND MIR PTXC PTXAS` or `message KIND TEXT`. The replay requires exactly these.\n",
        i.id
    );
    for o in observations(all) {
        text.push_str(&o);
        text.push('\n');
    }
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The open issue whose case the launch spec `toml` is, if any.
pub fn issue_of(toml: &Path) -> Option<&'static Issue> {
    let name = toml.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    known::ISSUES.iter().find(|i| i.case == name)
}

/// Runs the case whose launch spec is `toml`: every mismatch.
pub fn run_case_file(engines: &Engines, toml: &Path) -> Result<Vec<Mismatch>, String> {
    let (ptx, launch) = case::read(toml)?;
    Ok(check(engines, &ptx, &launch, None))
}

/// Checks the case whose launch spec is `toml`.
pub fn check_case_file(engines: &Engines, toml: &Path) -> Verdict {
    let issue = issue_of(toml);
    if let Some(i) = issue
        && engines.ptxas.is_none()
        && needs_oracle(i)
    {
        return Verdict::Skipped(format!("open issue {} needs ptxas (left out by --no-ptxas)", i.id));
    }
    let all = match run_case_file(engines, toml) {
        Ok(a) => a,
        Err(e) => return Verdict::Error(e),
    };
    let Some(i) = issue else {
        return if all.is_empty() {
            Verdict::Pass
        } else {
            Verdict::Fail(all)
        };
    };
    let expected = match read_expect(&expect_path(toml)) {
        Ok(e) if !e.is_empty() => e,
        Ok(_) => return Verdict::Error(format!("{}: records nothing", expect_path(toml).display())),
        Err(e) => return Verdict::Error(e),
    };
    let seen = observations(&all);
    if seen.is_disjoint(&expected) {
        return Verdict::NoLongerShows(i, all);
    }
    let missing: Vec<String> = expected.difference(&seen).cloned().collect();
    let extra: Vec<String> = seen.difference(&expected).cloned().collect();
    if missing.is_empty() && extra.is_empty() {
        Verdict::StillOpen(i)
    } else {
        Verdict::Changed(i, missing, extra)
    }
}
