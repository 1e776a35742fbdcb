//! Explaining a program's mismatches by the open issues of [`crate::known`], word by word:
//! a differing word is explained by the issues whose kind it has and whose instructions its
//! slice contains; a fault, crash or error by the issues whose kind and message it has (and
//! whose instructions the program contains). Every issue that matches is a candidate, so the
//! outcome does not depend on the order of the table; an item with no candidate is
//! unexplained, and one unexplained item makes the program unexplained.

use crate::compare::{Kind, Mismatch};
use crate::known::{self, Issue};
use crate::slice::Facts;
use std::collections::{BTreeMap, BTreeSet};

/// The candidates that explain one part of a mismatch.
#[derive(Clone, Debug, PartialEq)]
pub struct Explained {
    /// The part (a message mismatch, or the words with these candidates).
    pub mismatch: Mismatch,
    /// Every open issue that matches it, by id (sorted).
    pub issues: Vec<&'static str>,
}

/// A program's mismatches, explained or not.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Verdict {
    /// The parts no open issue explains.
    pub unexplained: Vec<Mismatch>,
    /// The parts open issues explain.
    pub explained: Vec<Explained>,
}

impl Verdict {
    /// Whether every execution agreed.
    pub fn agrees(&self) -> bool {
        self.unexplained.is_empty() && self.explained.is_empty()
    }

    /// Every issue that explains some part.
    pub fn issues(&self) -> BTreeSet<&'static str> {
        self.explained.iter().flat_map(|e| e.issues.iter().copied()).collect()
    }

    /// The issues that are the only candidate for some part.
    pub fn sole(&self) -> BTreeSet<&'static str> {
        self.explained
            .iter()
            .filter(|e| e.issues.len() == 1)
            .map(|e| e.issues[0])
            .collect()
    }

    /// Whether some part has more than one candidate.
    pub fn ambiguous(&self) -> bool {
        self.explained.iter().any(|e| e.issues.len() > 1)
    }
}

/// The issues that explain a message mismatch `m`.
fn message_candidates(m: &Mismatch, f: Option<&Facts>) -> Vec<&'static str> {
    let whole = f.map(|f| f.analysis.whole());
    let mut ids: Vec<&'static str> = known::ISSUES
        .iter()
        .filter(|i| i.explains_message(m.kind, &m.message, whole.as_ref()))
        .map(|i| i.id)
        .collect();
    ids.sort_unstable();
    ids
}

/// The issues that explain differing word `index` of kind `kind`.
fn word_candidates(kind: Kind, index: u32, f: &Facts) -> Vec<&'static str> {
    let slice = f.slice(index);
    let mut ids: Vec<&'static str> = known::ISSUES
        .iter()
        .filter(|i: &&Issue| i.explains_word(kind, &slice))
        .map(|i| i.id)
        .collect();
    ids.sort_unstable();
    ids
}

/// Explains the mismatches of a program (`f`: its facts; without them, no word is explained).
pub fn classify(f: Option<&Facts>, all: Vec<Mismatch>) -> Verdict {
    let mut v = Verdict::default();
    for m in all {
        if m.words.is_empty() {
            let issues = message_candidates(&m, f);
            if issues.is_empty() {
                v.unexplained.push(m);
            } else {
                v.explained.push(Explained { mismatch: m, issues });
            }
            continue;
        }
        let mut groups: BTreeMap<Vec<&'static str>, Vec<u32>> = BTreeMap::new();
        for w in &m.words {
            let c = f.map_or_else(Vec::new, |f| word_candidates(m.kind, w.index, f));
            groups.entry(c).or_default().push(w.index);
        }
        for (issues, idx) in groups {
            let idx: BTreeSet<u32> = idx.into_iter().collect();
            let part = m.with_words(|w| idx.contains(&w.index));
            if issues.is_empty() {
                v.unexplained.push(part);
            } else {
                v.explained.push(Explained { mismatch: part, issues });
            }
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::{Word, compare};
    use crate::engines::Outcome;
    use crate::program::{Class, Dsts, Inst, Operand, Program, Reg, Src, Stmt};

    fn r(index: u8) -> Reg {
        Reg {
            class: Class::B32,
            index,
        }
    }

    fn inst(op: &str, d: Reg, s: Reg) -> Stmt {
        Stmt::Inst(Inst {
            guard: None,
            op: op.into(),
            dsts: vec![Operand::Reg(d)],
            dst_form: Dsts::Plain,
            srcs: vec![Src {
                op: Operand::Reg(s),
                imm: None,
            }],
        })
    }

    /// r1 = sat(abs(r0)) (ptxas-abs-sat), r3 = sat(cnot(r2)) (ptxas-cnot-sat), r4 = sat of
    /// both (abs and cnot feed it: either issue may explain it), r5 = r0 + 0.
    fn program() -> Program {
        Program {
            version: (7, 8),
            grid: 1,
            block: 1,
            pools: [6, 0, 0, 0, 0, 0],
            body: vec![
                inst("abs.s32", r(1), r(0)),
                inst("cvt.sat.u32.s32", r(1), r(1)),
                inst("cnot.b32", r(3), r(2)),
                inst("cvt.sat.s8.u32", r(3), r(3)),
                inst("abs.s32", r(4), r(0)),
                inst("cnot.b32", r(4), r(4)),
                inst("cvt.sat.s8.u32", r(4), r(4)),
                inst("add.u32", r(5), r(0)),
            ],
            shared_acc: Vec::new(),
            global_acc: Vec::new(),
            input_words: 8,
        }
    }

    fn run(f: &Facts, ptxas_wrong: &[usize], ptxc_wrong: &[usize]) -> Verdict {
        let m = vec![0u64; 6];
        let (mut c, mut o) = (m.clone(), m.clone());
        ptxas_wrong.iter().for_each(|&i| o[i] = 0x80);
        ptxc_wrong.iter().for_each(|&i| c[i] = 0x81);
        let w = |x: Vec<u64>| Outcome::Words(x);
        classify(Some(f), compare(Some(f), &w(m), &w(c), Some(&w(o))))
    }

    #[test]
    fn each_word_is_explained_by_the_issues_of_its_slice() {
        let p = program();
        let f = Facts::of(&p);
        let v = run(&f, &[1, 3, 4], &[]);
        assert!(v.unexplained.is_empty(), "{v:?}");
        let parts: Vec<(Vec<u32>, Vec<&str>)> = v
            .explained
            .iter()
            .map(|e| (e.mismatch.words.iter().map(|w| w.index).collect(), e.issues.clone()))
            .collect();
        assert_eq!(
            parts,
            vec![
                (vec![1], vec!["ptxas-abs-sat"]),
                (vec![4], vec!["ptxas-abs-sat", "ptxas-cnot-sat"]),
                (vec![3], vec!["ptxas-cnot-sat"]),
            ]
        );
        assert!(v.ambiguous());
        assert_eq!(v.sole().len(), 2);
    }

    #[test]
    fn a_word_outside_the_slices_is_unexplained() {
        let p = program();
        let f = Facts::of(&p);
        // r5 = r0 + 0 differs on ptxas: no issue computes it.
        let v = run(&f, &[1, 5], &[]);
        assert_eq!(v.unexplained.len(), 1);
        assert_eq!(v.unexplained[0].kind, Kind::OracleDiffers);
        assert_eq!(
            v.unexplained[0].words,
            vec![Word {
                index: 5,
                mir: Some(0),
                ptxc: Some(0),
                ptxas: Some(0x80)
            }]
        );
        // ptxc wrong as well on an explained word: three answers, unexplained.
        let v = run(&f, &[1], &[1]);
        assert_eq!(v.unexplained[0].kind, Kind::ThreeWay);
        assert!(v.explained.is_empty());
    }

    #[test]
    fn crashes_and_faults_match_on_message_and_program() {
        let p = program();
        let f = Facts::of(&p);
        let crash = Mismatch::new(Kind::OracleCrash, "ptxas crashed (signal: 11 (SIGSEGV))".into());
        // No atomic in an unreachable block: not the known crash.
        assert_eq!(classify(Some(&f), vec![crash.clone()]).unexplained, vec![crash.clone()]);
        let fault = Mismatch::new(
            Kind::PtxasFault,
            "instruction limit of 5000000 warp instructions".into(),
        );
        assert_eq!(classify(Some(&f), vec![fault.clone()]).unexplained, vec![fault]);
        // Without the program nothing that needs its instructions is explained.
        assert_eq!(classify(None, vec![crash.clone()]).unexplained, vec![crash]);
    }
}
