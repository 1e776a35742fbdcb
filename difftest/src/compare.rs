//! Comparing the three executions and naming the culprit by which pair disagrees: the
//! interpreter (M), ptxc's cubin on the simulator (C) and ptxas's cubin on the simulator (P).
//! M = P ≠ C blames ptxc's back end, C = P ≠ M the interpreter or lowering, M = C ≠ P the
//! simulator on ptxas's code (or a semantics shared by the interpreter and the back end),
//! and three different answers need a closer look. Errors, panics and hazards are mismatches
//! of their own.
//!
//! Every differing word gets its own kind; the words of one kind form one [`Mismatch`]. The
//! two compilers' words are equal only when identical; the interpreter's word and a compiled
//! kernel's are also equal when an equivalence rule of [`crate::known::equiv`] accepts the
//! difference (which needs the program's [`Facts`]: without them, only identical words are
//! equal).

use crate::engines::Outcome;
use crate::known::equiv;
use crate::program::Program;
use crate::slice::Facts;
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
    /// C ≠ P although the interpreter accepts both (an equivalence rule between the
    /// interpreter and a compiler that does not hold between the compilers).
    CompilersDiffer,
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
            Kind::CompilersDiffer => "ptxc != ptxas, both accepted by mir (the compilers differ)",
            Kind::ThreeWay => "all three differ",
            Kind::MirVsPtxc => "mir != ptxc (no ptxas answer)",
            Kind::MirVsPtxas => "mir != ptxas (no ptxc answer)",
            Kind::PtxcVsPtxas => "ptxc != ptxas (no interpreter answer)",
        };
        f.write_str(s)
    }
}

/// A differing output word: its index and the interpreter's, ptxc's and ptxas's values
/// (None for an execution that gave no output).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Word {
    /// Index in the output buffer.
    pub index: u32,
    /// The interpreter's value.
    pub mir: Option<u64>,
    /// ptxc's value.
    pub ptxc: Option<u64>,
    /// ptxas's value.
    pub ptxas: Option<u64>,
}

/// A disagreement: an error, panic or hazard report, or the differing words of one kind.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    /// Its kind.
    pub kind: Kind,
    /// The first line of the error, panic or hazard report, if any.
    pub message: String,
    /// Every differing word of this kind.
    pub words: Vec<Word>,
}

/// Words a report lists.
const REPORTED_WORDS: usize = 8;

impl Mismatch {
    /// A mismatch without words.
    pub fn new(kind: Kind, message: String) -> Mismatch {
        Mismatch {
            kind,
            message,
            words: Vec::new(),
        }
    }

    /// The same mismatch with only the words `keep` accepts.
    pub fn with_words(&self, keep: impl Fn(&Word) -> bool) -> Mismatch {
        Mismatch {
            kind: self.kind,
            message: self.message.clone(),
            words: self.words.iter().copied().filter(|w| keep(w)).collect(),
        }
    }

    /// What must stay the same while shrinking: the kind and, for errors, the message
    /// without what varies between programs (see [`normalize`]).
    pub fn signature(&self) -> String {
        match self.kind {
            Kind::Backend
            | Kind::Interpreter
            | Kind::OracleDiffers
            | Kind::CompilersDiffer
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
        if !self.words.is_empty() {
            s.push_str(&format!("\n  {} word(s) differ", self.words.len()));
        }
        let hex = |v: Option<u64>| v.map_or("-".to_string(), |v| format!("{v:#018x}"));
        for w in self.words.iter().take(REPORTED_WORDS) {
            s.push_str(&format!(
                "\n  word {} ({}): mir {} ptxc {} ptxas {}",
                w.index,
                p.map_or_else(|| "output".to_string(), |p| p.describe_word(w.index)),
                hex(w.mir),
                hex(w.ptxc),
                hex(w.ptxas)
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
pub fn compare(f: Option<&Facts>, m: &Outcome, c: &Outcome, o: Option<&Outcome>) -> Vec<Mismatch> {
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
    out.extend(values(f, m.words(), c.words(), o.and_then(|o| o.words())));
    out
}

/// The line of a rendered diagnostic that says what is wrong.
fn error_line(e: &str) -> String {
    e.lines()
        .find(|l| l.contains("error"))
        .map(|l| l.trim().to_string())
        .unwrap_or_else(|| first_line(e))
}

/// How words compare: the interpreter's with a compiled kernel's (`mir`), and the two
/// compilers' (`compilers`); each true for identical words and for the differences an
/// equivalence rule accepts between that pair.
pub struct Equality<'a> {
    /// The interpreter's word against a compiled kernel's.
    pub mir: &'a dyn Fn(u64, u64) -> bool,
    /// ptxc's word against ptxas's.
    pub compilers: &'a dyn Fn(u64, u64) -> bool,
}

/// The kind of a word the three executions wrote (M, C, P), or None when they agree.
pub fn word_kind(m: Option<u64>, c: Option<u64>, o: Option<u64>, e: &Equality) -> Option<Kind> {
    let eq_m = |a: Option<u64>, b: Option<u64>| a.zip(b).is_some_and(|(a, b)| (e.mir)(a, b));
    let eq = |a: Option<u64>, b: Option<u64>| a.zip(b).is_some_and(|(a, b)| (e.compilers)(a, b));
    match (m.is_some(), c.is_some(), o.is_some()) {
        (true, true, true) => match (eq(c, o), eq_m(m, c), eq_m(m, o)) {
            (true, true, _) => None,
            (true, false, _) => Some(Kind::Interpreter),
            (false, true, true) => Some(Kind::CompilersDiffer),
            (false, true, false) => Some(Kind::OracleDiffers),
            (false, false, true) => Some(Kind::Backend),
            (false, false, false) => Some(Kind::ThreeWay),
        },
        (true, true, false) => (!eq_m(m, c)).then_some(Kind::MirVsPtxc),
        (true, false, true) => (!eq_m(m, o)).then_some(Kind::MirVsPtxas),
        (false, true, true) => (!eq(c, o)).then_some(Kind::PtxcVsPtxas),
        _ => None,
    }
}

/// Word-by-word comparison of the output buffers that exist (three, or two): one mismatch
/// per kind of differing word, in [`Kind`] order.
fn values(f: Option<&Facts>, m: Option<&[u64]>, c: Option<&[u64]>, o: Option<&[u64]>) -> Vec<Mismatch> {
    let len = [m, c, o].iter().flatten().map(|x| x.len()).max().unwrap_or(0);
    let mut by_kind: std::collections::BTreeMap<Kind, Vec<Word>> = Default::default();
    for i in 0..len {
        let get = |x: Option<&[u64]>| x.and_then(|x| x.get(i).copied());
        let (mv, cv, ov) = (get(m), get(c), get(o));
        let facts = f.map(|f| f.word(i as u32));
        let mir = |a: u64, b: u64| a == b || facts.is_some_and(|w| equiv::equivalent(&w, a, b).is_some());
        let compilers =
            |a: u64, b: u64| a == b || facts.is_some_and(|w| equiv::compilers_equivalent(&w, a, b).is_some());
        let eq = Equality {
            mir: &mir,
            compilers: &compilers,
        };
        if let Some(kind) = word_kind(mv, cv, ov, &eq) {
            by_kind.entry(kind).or_default().push(Word {
                index: i as u32,
                mir: mv,
                ptxc: cv,
                ptxas: ov,
            });
        }
    }
    by_kind
        .into_iter()
        .map(|(kind, words)| Mismatch {
            kind,
            message: String::new(),
            words,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_kinds() {
        let same = |a: u64, b: u64| a == b;
        let strict = Equality {
            mir: &same,
            compilers: &same,
        };
        let k = |m: u64, c: u64, o: u64| word_kind(Some(m), Some(c), Some(o), &strict);
        assert_eq!(k(1, 1, 1), None);
        assert_eq!(k(1, 1, 2), Some(Kind::OracleDiffers));
        assert_eq!(k(1, 2, 1), Some(Kind::Backend));
        assert_eq!(k(2, 1, 1), Some(Kind::Interpreter));
        assert_eq!(k(1, 2, 3), Some(Kind::ThreeWay));
        assert_eq!(word_kind(Some(1), Some(2), None, &strict), Some(Kind::MirVsPtxc));
        assert_eq!(word_kind(None, Some(2), Some(2), &strict), None);
    }

    #[test]
    fn the_compilers_agree_by_their_own_rules() {
        // The interpreter accepts any two odd values (a stand-in for an equivalence rule the
        // compilers do not share).
        let loose = |a: u64, b: u64| a == b || (a & 1 == 1 && b & 1 == 1);
        let same = |a: u64, b: u64| a == b;
        let e = Equality {
            mir: &loose,
            compilers: &same,
        };
        let k = |m: u64, c: u64, o: u64| word_kind(Some(m), Some(c), Some(o), &e);
        assert_eq!(k(1, 3, 5), Some(Kind::CompilersDiffer));
        assert_eq!(k(1, 3, 3), None);
        assert_eq!(k(1, 3, 4), Some(Kind::OracleDiffers));
        // The interpreter's rule does not make the compilers equal.
        assert_eq!(k(2, 3, 3), Some(Kind::Interpreter));
    }

    #[test]
    fn every_differing_word_keeps_its_own_kind() {
        let (m, c, o) = (vec![1u64, 2, 3, 4], vec![1u64, 9, 3, 9], vec![1u64, 2, 7, 7]);
        let ms = values(None, Some(&m), Some(&c), Some(&o));
        let kinds: Vec<(Kind, Vec<u32>)> = ms
            .iter()
            .map(|x| (x.kind, x.words.iter().map(|w| w.index).collect()))
            .collect();
        assert_eq!(
            kinds,
            vec![
                (Kind::Backend, vec![1]),
                (Kind::OracleDiffers, vec![2]),
                (Kind::ThreeWay, vec![3])
            ]
        );
    }

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
