//! Comparing the three executions and naming the culprit by which pair disagrees: the
//! interpreter (M), ptxc's cubin on the simulator (C) and ptxas's cubin on the simulator (P).
//! M = P ≠ C blames ptxc's back end, C = P ≠ M the interpreter or lowering, M = C ≠ P the
//! simulator on ptxas's code (or a semantics shared by the interpreter and the back end),
//! and three different answers need a closer look. Errors, panics and hazards are mismatches
//! of their own. Known, accepted differences ([`crate::known`]) are applied word by word.

use crate::engines::Outcome;
use crate::known;
use crate::program::Program;
use std::fmt;

/// What disagreed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// ptxas rejected the program: the generator wrote invalid PTX.
    GeneratorBug,
    /// A stage panicked.
    Panic,
    /// ptxc's front end or lowering rejected PTX that ptxas accepts.
    FrontendReject,
    /// ptxc's back end failed to compile.
    BackendError,
    /// The interpreter faulted.
    InterpreterFault,
    /// ptxc's cubin faulted on the simulator.
    PtxcFault,
    /// ptxas's cubin faulted on the simulator.
    PtxasFault,
    /// The simulator reported hazards in ptxc's code.
    PtxcHazards,
    /// The simulator reported hazards in ptxas's code.
    PtxasHazards,
    /// M = P ≠ C: ptxc's back end.
    Backend,
    /// C = P ≠ M: the interpreter or the lowering to MIR.
    Interpreter,
    /// M = C ≠ P: the simulator on ptxas's code, or a semantics shared by both our sides.
    OracleDiffers,
    /// All three differ.
    ThreeWay,
    /// M ≠ C without an oracle to break the tie.
    MirVsPtxc,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            Kind::GeneratorBug => "generator bug (ptxas rejects)",
            Kind::Panic => "panic",
            Kind::FrontendReject => "front end rejects",
            Kind::BackendError => "back end error",
            Kind::InterpreterFault => "interpreter fault",
            Kind::PtxcFault => "ptxc cubin faults",
            Kind::PtxasFault => "ptxas cubin faults",
            Kind::PtxcHazards => "hazards in ptxc cubin",
            Kind::PtxasHazards => "hazards in ptxas cubin",
            Kind::Backend => "mir = ptxas != ptxc (back end)",
            Kind::Interpreter => "ptxc = ptxas != mir (interpreter)",
            Kind::OracleDiffers => "mir = ptxc != ptxas (simulator or shared semantics)",
            Kind::ThreeWay => "all three differ",
            Kind::MirVsPtxc => "mir != ptxc (no oracle)",
        };
        f.write_str(s)
    }
}

/// A differing output word: index, then the interpreter's, ptxc's and ptxas's values.
pub type WordDiff = (u32, Option<u64>, Option<u64>, Option<u64>);

/// A disagreement.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    /// Its kind.
    pub kind: Kind,
    /// The first line of the error, panic or hazard report, if any.
    pub message: String,
    /// Differing output words (index, M, C, P), the first few.
    pub words: Vec<WordDiff>,
    /// How many words differ.
    pub differing: usize,
}

impl Mismatch {
    fn new(kind: Kind, message: String) -> Mismatch {
        Mismatch {
            kind,
            message,
            words: Vec::new(),
            differing: 0,
        }
    }

    /// What must stay the same while shrinking: the kind and, for errors, the message with
    /// its numbers blanked.
    pub fn signature(&self) -> String {
        let msg: String = self
            .message
            .chars()
            .map(|c| if c.is_ascii_digit() { '#' } else { c })
            .take(80)
            .collect();
        match self.kind {
            Kind::Backend | Kind::Interpreter | Kind::OracleDiffers | Kind::ThreeWay | Kind::MirVsPtxc => {
                format!("{:?}", self.kind)
            }
            Kind::PtxcHazards | Kind::PtxasHazards => format!("{:?}", self.kind),
            _ => format!("{:?}: {msg}", self.kind),
        }
    }

    /// A multi-line report naming the differing words.
    pub fn report(&self, p: Option<&Program>) -> String {
        let mut s = format!("{}", self.kind);
        if !self.message.is_empty() {
            s.push_str(&format!(": {}", self.message));
        }
        if self.differing > 0 {
            s.push_str(&format!("\n  {} word(s) differ", self.differing));
        }
        let hex = |v: Option<u64>| v.map_or("-".to_string(), |v| format!("{v:#018x}"));
        for &(i, m, c, o) in &self.words {
            s.push_str(&format!(
                "\n  word {i} ({}): mir {} ptxc {} ptxas {}",
                p.map_or_else(|| "output".to_string(), |p| p.describe_word(i)),
                hex(m),
                hex(c),
                hex(o)
            ));
        }
        s
    }
}

fn first_line(s: &str) -> String {
    s.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string()
}

/// Compares the outcomes; None when they agree.
pub fn compare(p: Option<&Program>, m: &Outcome, c: &Outcome, o: Option<&Outcome>) -> Option<Mismatch> {
    if let Some(Outcome::CompileError(e)) = o {
        return Some(Mismatch::new(Kind::GeneratorBug, first_line(e)));
    }
    for x in [Some(m), Some(c), o].into_iter().flatten() {
        if let Outcome::Panic(e) = x {
            return Some(Mismatch::new(Kind::Panic, first_line(e)));
        }
    }
    let errors = [
        (m, Kind::FrontendReject, Kind::InterpreterFault),
        (c, Kind::BackendError, Kind::PtxcFault),
    ];
    for (x, compile, run) in errors {
        match x {
            Outcome::CompileError(e) => return Some(Mismatch::new(compile, error_line(e))),
            Outcome::RunError(e) => return Some(Mismatch::new(run, first_line(e))),
            _ => {}
        }
    }
    if let Some(Outcome::RunError(e)) = o {
        return Some(Mismatch::new(Kind::PtxasFault, first_line(e)));
    }
    if let Outcome::Hazards(_, h, _) = c {
        return Some(Mismatch::new(Kind::PtxcHazards, h.clone()));
    }
    if let Some(Outcome::Hazards(_, h, _)) = o {
        return Some(Mismatch::new(Kind::PtxasHazards, h.clone()));
    }
    let (mw, cw) = (m.words()?, c.words()?);
    let ow = o.and_then(|o| o.words());
    values(p, mw, cw, ow)
}

/// The line of a rendered diagnostic that says what is wrong.
fn error_line(e: &str) -> String {
    e.lines()
        .find(|l| l.contains("error"))
        .map(|l| l.trim().to_string())
        .unwrap_or_else(|| first_line(e))
}

/// Word-by-word comparison of three (or two) output buffers.
fn values(p: Option<&Program>, m: &[u64], c: &[u64], o: Option<&[u64]>) -> Option<Mismatch> {
    let same = |i: usize, a: u64, b: u64| a == b || known::equivalent(p, i as u32, a, b).is_some();
    let mut kinds = Vec::new();
    let mut words = Vec::new();
    let mut differing = 0;
    for i in 0..m.len().max(c.len()) {
        let (mv, cv, ov) = (m.get(i).copied(), c.get(i).copied(), o.and_then(|o| o.get(i).copied()));
        let eq = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (Some(a), Some(b)) => same(i, a, b),
            _ => false,
        };
        let kind = match o {
            None if eq(mv, cv) => continue,
            None => Kind::MirVsPtxc,
            Some(_) => match (eq(mv, cv), eq(mv, ov), eq(cv, ov)) {
                (true, true, _) | (true, _, true) | (_, true, true) => continue,
                (true, false, false) => Kind::OracleDiffers,
                (false, true, false) => Kind::Backend,
                (false, false, true) => Kind::Interpreter,
                (false, false, false) => Kind::ThreeWay,
            },
        };
        differing += 1;
        if words.len() < 8 {
            words.push((i as u32, mv, cv, ov));
        }
        kinds.push(kind);
    }
    // The most telling kind: the one most words show (ties: the first).
    let kind = *kinds
        .iter()
        .max_by_key(|k| (kinds.iter().filter(|x| x == k).count(), std::cmp::Reverse(**k)))?;
    Some(Mismatch {
        kind,
        message: String::new(),
        words,
        differing,
    })
}
