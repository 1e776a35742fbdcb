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
    /// ptxas crashed on the program.
    OracleCrash,
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
    /// M ≠ C without ptxas's answer to break the tie.
    MirVsPtxc,
    /// M ≠ P without ptxc's answer.
    MirVsPtxas,
    /// C ≠ P without the interpreter's answer.
    PtxcVsPtxas,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            Kind::GeneratorBug => "generator bug (ptxas rejects)",
            Kind::OracleCrash => "ptxas crashes",
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
            Kind::MirVsPtxc => "mir != ptxc (no ptxas answer)",
            Kind::MirVsPtxas => "mir != ptxas (no ptxc answer)",
            Kind::PtxcVsPtxas => "ptxc != ptxas (no interpreter answer)",
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

    /// What must stay the same while shrinking: the kind and, for errors, the message
    /// without what varies between programs (see [`normalize`]).
    pub fn signature(&self) -> String {
        match self.kind {
            Kind::Backend
            | Kind::Interpreter
            | Kind::OracleDiffers
            | Kind::ThreeWay
            | Kind::MirVsPtxc
            | Kind::MirVsPtxas
            | Kind::PtxcVsPtxas
            | Kind::PtxcHazards
            | Kind::PtxasHazards => format!("{:?}", self.kind),
            _ => format!("{:?}: {}", self.kind, normalize(&self.message)),
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

/// An error message without the parts that vary between programs with the same problem:
/// the fault location (block, thread, address), the words of an unknown instruction, the
/// operands of an unsupported operand combination, and numbers of three or more digits.
pub fn normalize(msg: &str) -> String {
    let mut m = msg;
    for start in ["*/: ", "; error"] {
        if let Some((_, rest)) = m.split_once(start) {
            m = rest;
        }
    }
    for cut in [" at offset ", " with these operands", " (/*"] {
        if let Some((head, _)) = m.split_once(cut) {
            m = head;
        }
    }
    let mut out = String::new();
    let mut digits = String::new();
    let mut hex = false;
    for c in m.chars().chain(std::iter::once(' ')) {
        if hex && c.is_ascii_hexdigit() {
            out.push(c);
            continue;
        }
        hex = false;
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        if c == 'x' && digits == "0" {
            // A hex literal (an opcode): kept.
            hex = true;
        } else if digits.len() >= 3 {
            digits = "#".into();
        }
        out.push_str(&digits);
        digits.clear();
        out.push(c);
    }
    out.trim_end().to_string()
}

fn first_line(s: &str) -> String {
    s.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string()
}

/// Compares the outcomes: every disagreement (errors, panics, hazards, differing words),
/// empty when they agree. Output words are compared between whichever executions finished.
pub fn compare(p: Option<&Program>, m: &Outcome, c: &Outcome, o: Option<&Outcome>) -> Vec<Mismatch> {
    let mut out = Vec::new();
    if let Some(Outcome::CompileError(e)) = o {
        if !e.starts_with(crate::engines::CRASH) {
            return vec![Mismatch::new(Kind::GeneratorBug, first_line(e))];
        }
        out.push(Mismatch::new(Kind::OracleCrash, first_line(e)));
    }
    for (x, who) in [(Some(m), "interpreter"), (Some(c), "ptxc"), (o, "ptxas")] {
        if let Some(Outcome::Panic(e)) = x {
            out.push(Mismatch::new(Kind::Panic, format!("{who}: {}", first_line(e))));
        }
    }
    match m {
        Outcome::CompileError(e) => out.push(Mismatch::new(Kind::FrontendReject, error_line(e))),
        Outcome::RunError(e) => out.push(Mismatch::new(Kind::InterpreterFault, first_line(e))),
        _ => {}
    }
    match c {
        Outcome::CompileError(e) => out.push(Mismatch::new(Kind::BackendError, error_line(e))),
        Outcome::RunError(e) => out.push(Mismatch::new(Kind::PtxcFault, first_line(e))),
        Outcome::Hazards(_, h, _) => out.push(Mismatch::new(Kind::PtxcHazards, h.clone())),
        _ => {}
    }
    match o {
        Some(Outcome::RunError(e)) => out.push(Mismatch::new(Kind::PtxasFault, first_line(e))),
        Some(Outcome::Hazards(_, h, _)) => out.push(Mismatch::new(Kind::PtxasHazards, h.clone())),
        _ => {}
    }
    out.extend(values(p, m.words(), c.words(), o.and_then(|o| o.words())));
    out
}

/// The line of a rendered diagnostic that says what is wrong.
fn error_line(e: &str) -> String {
    e.lines()
        .find(|l| l.contains("error"))
        .map(|l| l.trim().to_string())
        .unwrap_or_else(|| first_line(e))
}

/// Word-by-word comparison of the output buffers that exist (three, or two).
fn values(p: Option<&Program>, m: Option<&[u64]>, c: Option<&[u64]>, o: Option<&[u64]>) -> Option<Mismatch> {
    let present = [m, c, o].iter().filter(|x| x.is_some()).count();
    if present < 2 {
        return None;
    }
    let len = [m, c, o].iter().flatten().map(|x| x.len()).max().unwrap_or(0);
    let mut kinds = Vec::new();
    let mut words = Vec::new();
    for i in 0..len {
        let get = |x: Option<&[u64]>| x.and_then(|x| x.get(i).copied());
        let (mv, cv, ov) = (get(m), get(c), get(o));
        // Against the interpreter, accepted differences count as equal; between the two
        // compilers only identical bits do.
        let eq_m = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (Some(a), Some(b)) => a == b || known::equivalent(p, i as u32, a, b).is_some(),
            _ => false,
        };
        let eq = |a: Option<u64>, b: Option<u64>| a.is_some() && a == b;
        let kind = match (m.is_some(), c.is_some(), o.is_some()) {
            (true, true, true) => match (eq_m(mv, cv), eq_m(mv, ov), eq(cv, ov)) {
                (true, true, _) | (true, _, true) | (_, true, true) => continue,
                (true, false, false) => Kind::OracleDiffers,
                (false, true, false) => Kind::Backend,
                (false, false, true) => Kind::Interpreter,
                (false, false, false) => Kind::ThreeWay,
            },
            (true, true, false) if !eq_m(mv, cv) => Kind::MirVsPtxc,
            (true, false, true) if !eq_m(mv, ov) => Kind::MirVsPtxas,
            (false, true, true) if !eq(cv, ov) => Kind::PtxcVsPtxas,
            _ => continue,
        };
        if words.len() < 8 {
            words.push((i as u32, mv, cv, ov));
        }
        kinds.push(kind);
    }
    // The most telling kind: the one most words show (ties: the first in `Kind` order).
    let kind = *kinds
        .iter()
        .max_by_key(|k| (kinds.iter().filter(|x| x == k).count(), std::cmp::Reverse(**k)))?;
    Some(Mismatch {
        kind,
        message: String::new(),
        words,
        differing: kinds.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalized_messages_drop_what_varies() {
        let a = "kernel `difftest`, block (0, 0, 0), thread (32, 0, 0), instruction /*0f30*/: an instruction the \
                 decoder does not know (unknown opcode 0x20a at offset 0xf30 (words 0x1 0x2)) is not supported";
        assert_eq!(
            normalize(a),
            "an instruction the decoder does not know (unknown opcode 0x20a"
        );
        let b = "difftest.ptx: error: kernel `difftest`: imul_hi_u on i16 is not supported";
        assert!(normalize(b).contains("i16"));
        let c = "ptxas /tmp/x/job0/oracle.ptx, line 106; error   : Illegal modifier '.sat'";
        assert_eq!(normalize(c), "   : Illegal modifier '.sat'");
        assert_eq!(normalize("Imnmx with these operands ([(A, 5)])"), "Imnmx");
    }
}
