//! Regression cases (`tests/difftest/*.toml`, written by [`crate::case`]): a case named by an
//! open issue ([`crate::known::Issue::case`]) must still show that issue, so that a fix is
//! noticed and the issue retired; every other case is a fixed bug and must agree everywhere.

use crate::case;
use crate::check::check;
use crate::compare::{Kind, Mismatch};
use crate::engines::Engines;
use crate::known::{self, Component, Issue};
use std::path::Path;

/// The verdict on one case.
#[derive(Debug)]
pub enum Verdict {
    /// A fixed bug's case: every execution agrees.
    Pass,
    /// An open issue's case still shows its issue (and nothing unexplained).
    StillOpen(&'static Issue),
    /// An open issue's case no longer shows it: the issue looks fixed.
    NoLongerShows(&'static Issue, Vec<Mismatch>),
    /// Mismatches the case should not have.
    Fail(Vec<Mismatch>),
    /// Not checkable here (the case needs ptxas and there is none).
    Skipped(String),
    /// The case could not be read.
    Error(String),
}

impl Verdict {
    /// Whether the verdict is a failure.
    pub fn failed(&self) -> bool {
        matches!(self, Verdict::NoLongerShows(..) | Verdict::Fail(_) | Verdict::Error(_))
    }
}

/// Whether mismatch `m` shows issue `i` (by kind, and by message when the issue has one).
fn shows(m: &Mismatch, i: &Issue) -> bool {
    i.kinds.contains(&m.kind) && (i.messages.is_empty() || i.messages.iter().any(|t| m.message.contains(t)))
}

/// Whether issue `i` can only be seen with ptxas's answer.
fn needs_oracle(i: &Issue) -> bool {
    matches!(i.component, Component::Simulator | Component::Ptxas)
        || i.kinds.iter().all(|k| {
            matches!(
                k,
                Kind::PtxasFault | Kind::PtxasHazards | Kind::OracleDiffers | Kind::OracleCrash
            )
        })
}

/// Checks the case whose launch spec is `toml`.
pub fn check_case_file(engines: &Engines, toml: &Path) -> Verdict {
    let name = toml.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let issue = known::ISSUES.iter().find(|i| i.case == name);
    if let Some(i) = issue
        && engines.ptxas.is_none()
        && needs_oracle(i)
    {
        return Verdict::Skipped(format!("open issue {} needs ptxas (left out by --no-ptxas)", i.id));
    }
    let (ptx, launch) = match case::read(toml) {
        Ok(x) => x,
        Err(e) => return Verdict::Error(e),
    };
    let all = check(engines, &ptx, &launch, None);
    let Some(i) = issue else {
        return if all.is_empty() {
            Verdict::Pass
        } else {
            Verdict::Fail(all)
        };
    };
    if !all.iter().any(|m| shows(m, i)) {
        return Verdict::NoLongerShows(i, all);
    }
    let other: Vec<Mismatch> = all
        .into_iter()
        .filter(|m| !shows(m, i) && known::issue(m, None).is_none())
        .collect();
    if other.is_empty() {
        Verdict::StillOpen(i)
    } else {
        Verdict::Fail(other)
    }
}
