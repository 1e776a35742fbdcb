//! A mutation test of the harness: a program that shows a known ptxas issue
//! (`ptxas-abs-sat`: `abs.s32` then `cvt.sat.u32.s32`, where ptxas drops the conversion) is
//! run on the three engines and explained by that issue alone; then wrong values are
//! injected into ptxc's output (and one into ptxas's) and each must make the program
//! unexplained: a known issue never explains a word it does not compute, nor a word where
//! ptxc disagrees. Needs ptxas (`CUDA_ORACLE_BIN`, or installed by `scripts/cuda-oracle`).

use ptxc_difftest::check;
use ptxc_difftest::classify::{Verdict, classify};
use ptxc_difftest::compare::{Kind, compare};
use ptxc_difftest::engines::{Engines, Launch, Outcome};
use ptxc_difftest::program::{Class, Dsts, Imm, ImmTy, Inst, Operand, Program, Reg, Src, Stmt, print};
use ptxc_difftest::slice::Facts;
use std::path::PathBuf;

const R0: Reg = Reg {
    class: Class::B32,
    index: 0,
};
const R1: Reg = Reg {
    class: Class::B32,
    index: 1,
};
const R2: Reg = Reg {
    class: Class::B32,
    index: 2,
};

fn inst(op: &str, d: Reg, srcs: Vec<Src>) -> Stmt {
    Stmt::Inst(Inst {
        guard: None,
        op: op.into(),
        dsts: vec![Operand::Reg(d)],
        dst_form: Dsts::Plain,
        srcs,
    })
}

fn reg(r: Reg) -> Src {
    Src {
        op: Operand::Reg(r),
        imm: None,
    }
}

/// `r1 = cvt.sat.u32.s32(abs.s32(r0))`, `r2 = r0 + 1`; r0 is INT_MIN in every fourth thread.
fn program() -> (Program, Vec<u64>) {
    let one = Src {
        op: Operand::Imm(Imm::new(ImmTy::U32, 1)),
        imm: Some(ImmTy::U32),
    };
    let p = Program {
        version: (7, 8),
        grid: 1,
        block: 32,
        pools: [3, 0, 0, 0, 0, 0],
        body: vec![
            inst("abs.s32", R1, vec![reg(R0)]),
            inst("cvt.sat.u32.s32", R1, vec![reg(R1)]),
            inst("add.u32", R2, vec![reg(R0), one]),
        ],
        shared_acc: Vec::new(),
        global_acc: Vec::new(),
        input_words: 128,
    };
    let mut input = vec![0u64; p.input_words as usize];
    for t in 0..32usize {
        input[t * 3] = if t % 4 == 0 { 0x8000_0000 } else { 0x1234 + t as u64 };
    }
    (p, input)
}

fn words(o: &Outcome) -> Vec<u64> {
    o.words().expect("the kernel ran").to_vec()
}

fn verdict(f: &Facts, m: &[u64], c: &[u64], o: &[u64]) -> Verdict {
    let w = |x: &[u64]| Outcome::Words(x.to_vec());
    classify(Some(f), compare(Some(f), &w(m), &w(c), Some(&w(o))))
}

#[test]
fn injected_ptxc_errors_are_never_explained_by_a_ptxas_issue() {
    let (p, input) = program();
    let ptxas = ptxc_testkit::oracle_tool("ptxas");
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("harness_mutation");
    let engines = Engines::new(Some(ptxas), &scratch);
    let launch = Launch {
        grid: p.grid,
        block: p.block,
        input,
        output: p.initial_output(),
    };
    let runs = check::run(&engines, &print::to_ptx(&p), &launch);
    let (m, c, o) = (
        words(&runs.mir),
        words(&runs.ptxc),
        words(runs.ptxas.as_ref().expect("ptxas")),
    );
    let facts = Facts::of(&p);
    let v = verdict(&facts, &m, &c, &o);
    assert!(v.unexplained.is_empty(), "unexplained before mutation: {v:?}");
    assert_eq!(
        v.issues().into_iter().collect::<Vec<_>>(),
        vec!["ptxas-abs-sat"],
        "{v:?}"
    );
    let shown: Vec<u32> = v.explained[0].mismatch.words.iter().map(|w| w.index).collect();
    assert_eq!(
        shown,
        (0..8).map(|k| k * 12 + 1).collect::<Vec<_>>(),
        "r1 of every fourth thread"
    );

    let (issue_word, plain_r1, r2_word) = (1usize, 3 + 1usize, 2usize);
    let mutations: Vec<(&str, usize, u64, Kind)> = vec![
        (
            "ptxc wrong in a word the issue does not compute (r2)",
            r2_word,
            7,
            Kind::Backend,
        ),
        (
            "ptxc wrong in r1 of a thread without the issue",
            plain_r1,
            9,
            Kind::Backend,
        ),
        (
            "ptxc wrong in the word the issue explains",
            issue_word,
            5,
            Kind::ThreeWay,
        ),
        (
            "ptxc equal to ptxas in the word the issue explains",
            issue_word,
            o[issue_word],
            Kind::Interpreter,
        ),
    ];
    for (what, i, value, kind) in mutations {
        let mut c2 = c.clone();
        c2[i] = value;
        let v = verdict(&facts, &m, &c2, &o);
        let bad: Vec<(Kind, Vec<u32>)> = v
            .unexplained
            .iter()
            .map(|x| (x.kind, x.words.iter().map(|w| w.index).collect()))
            .collect();
        assert_eq!(bad, vec![(kind, vec![i as u32])], "{what}: {v:?}");
        assert!(
            v.issues().contains("ptxas-abs-sat"),
            "{what}: the issue still explains the rest"
        );
    }
    // ptxas differing in r2 (computed without abs or cvt.sat) is no ptxas-abs-sat.
    let mut o2 = o.clone();
    o2[r2_word] ^= 0x10;
    let v = verdict(&facts, &m, &c, &o2);
    assert_eq!(v.unexplained.len(), 1, "{v:?}");
    assert_eq!(v.unexplained[0].kind, Kind::OracleDiffers);
    assert_eq!(v.unexplained[0].words[0].index, r2_word as u32);
}
