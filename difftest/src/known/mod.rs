//! What the comparison knows in advance, listed explicitly:
//!
//! - [`equiv`]: accepted differences between the interpreter's semantics and the hardware's
//!   (as a compiled kernel on the simulator shows it), each with its reason and the words it
//!   applies to; two words that differ only so count as equal. The two compilers' words must
//!   agree bit for bit.
//! - [`ISSUES`]: open bugs found by differential testing, each with its component, a
//!   diagnosis, the regression case that reproduces it, how it shows (a differing word whose
//!   slice has the instructions it names, or a fault or crash with its message), and for
//!   ptxas's bugs the evidence it rests on. A differing word or a fault an open issue matches
//!   is reported as that issue ("explained"); anything else is unexplained.

pub mod equiv;
mod issues;
mod ops;

use crate::compare::Kind;
use crate::program::{Inst, Program, Stmt};
use crate::slice::Slice;
pub use issues::ISSUES;

/// The component a bug is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Component {
    /// `frontend/`: parsing and checking.
    Frontend,
    /// `mir/`: lowering and the interpreter.
    Mir,
    /// `backend/`: selection, allocation, scheduling, encoding.
    Backend,
    /// `runtime-sim/`: the simulator.
    Simulator,
    /// NVIDIA's ptxas, the oracle.
    Ptxas,
}

/// What a claim about ptxas rests on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evidence {
    /// ptxas's own output proves it: its SASS (read with nvdisasm) computes a value other
    /// than the one the PTX specification states, using only instructions whose behaviour
    /// is not in doubt (or, for a crash, its exit status).
    Sass,
    /// The wrong value shows only through the simulator's model of a behaviour of the
    /// hardware that is not documented (which one is said).
    Model(&'static str),
    /// The expected value rests on a reading of the PTX specification where it does not
    /// state the result (which reading is said).
    Spec(&'static str),
}

impl Evidence {
    /// A short name of the class.
    pub fn class(&self) -> &'static str {
        match self {
            Evidence::Sass => "SASS alone",
            Evidence::Model(_) => "modelled behaviour",
            Evidence::Spec(_) => "reading of the specification",
        }
    }

    /// What the claim depends on beyond the SASS (empty for [`Evidence::Sass`]).
    pub fn detail(&self) -> &'static str {
        match self {
            Evidence::Sass => "",
            Evidence::Model(m) | Evidence::Spec(m) => m,
        }
    }
}

/// How an issue shows in a mismatch.
#[derive(Clone, Copy, Debug)]
pub enum How {
    /// A differing word whose slice satisfies the predicate (it is computed from the
    /// instructions the issue names).
    Word(fn(&Slice) -> bool),
    /// A fault, crash or error whose message contains one of the texts, in a program whose
    /// whole slice satisfies the predicate (if there is one).
    Message(&'static [&'static str], Option<fn(&Slice) -> bool>),
    /// Never matched in a campaign: the generator does not write what it takes (its `avoid`
    /// predicate or a rule of the generator); only its regression case shows it.
    CaseOnly,
}

/// One way an issue shows: a kind of mismatch and how to recognise it.
#[derive(Clone, Copy, Debug)]
pub struct Sign {
    /// The kind of mismatch.
    pub kind: Kind,
    /// How to recognise it.
    pub how: How,
}

/// An open bug.
#[derive(Debug)]
pub struct Issue {
    /// Short name.
    pub id: &'static str,
    /// Where the bug is.
    pub component: Component,
    /// What is wrong (first line: a summary).
    pub summary: &'static str,
    /// The regression case under `tests/difftest/` (its name without extension).
    pub case: &'static str,
    /// How it shows.
    pub shows: &'static [Sign],
    /// Instructions that run into it, for generators that avoid open issues.
    pub avoid: Option<fn(&Inst) -> bool>,
    /// What the claim rests on.
    pub evidence: Evidence,
    /// The value the PTX gives on the regression case, with the reasoning from the PTX
    /// specification.
    pub expected: &'static str,
}

impl Issue {
    /// Whether a differing word of kind `kind`, computed by `slice`, is this issue.
    pub fn explains_word(&self, kind: Kind, slice: &Slice) -> bool {
        self.shows
            .iter()
            .any(|s| s.kind == kind && matches!(s.how, How::Word(f) if f(slice)))
    }

    /// Whether a mismatch of kind `kind` with `message`, in a program whose whole slice is
    /// `whole` (if known), is this issue.
    pub fn explains_message(&self, kind: Kind, message: &str, whole: Option<&Slice>) -> bool {
        self.shows.iter().any(|s| {
            s.kind == kind
                && match s.how {
                    How::Message(texts, program) => {
                        texts.iter().any(|t| !t.is_empty() && message.contains(t))
                            && program.is_none_or(|f| whole.is_some_and(f))
                    }
                    _ => false,
                }
        })
    }

    /// The kinds of mismatch it shows as.
    pub fn kinds(&self) -> impl Iterator<Item = Kind> + '_ {
        self.shows.iter().map(|s| s.kind)
    }
}

/// The open issue named `id`.
pub fn by_id(id: &str) -> Option<&'static Issue> {
    ISSUES.iter().find(|i| i.id == id)
}

/// The first open issue statement `s` of program `p` runs into, if any (by the issues'
/// `avoid` predicates; an atomic is seen as the `atom`/`red` instruction it prints as).
pub fn avoided(p: &Program, s: &Stmt) -> Option<&'static Issue> {
    let insts: Vec<Inst> = match s {
        Stmt::Inst(i) => vec![i.clone()],
        Stmt::Group(g) => g.clone(),
        Stmt::Atomic { space, slot, src, ret } => p.atomic_inst(*space, *slot, src, *ret).into_iter().collect(),
        _ => Vec::new(),
    };
    ISSUES
        .iter()
        .find(|issue| issue.avoid.is_some_and(|f| insts.iter().any(f)))
}
