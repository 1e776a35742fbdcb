//! Splits a checked body into segments that become basic blocks: a segment starts at a
//! label or after a branch/exit, and ends with how control leaves it.

use ptxc_frontend::checked::{CheckedFunction, CheckedInst, CheckedOperand, CheckedStmt, LabelId, Opcode};
use rustc_hash::FxHashMap as HashMap;

/// How control leaves a segment.
#[allow(clippy::enum_variant_names)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Into the next segment.
    FallThrough,
    /// `bra L`.
    Jump(usize),
    /// `@p bra L` (the guard is on the last instruction): to `L` or the next segment.
    CondJump(usize),
    /// `ret`: leave the function (in a kernel: end the thread).
    Return,
    /// `@p ret`: leave the function or go to the next segment.
    CondReturn,
    /// `exit`: end the thread.
    Exit,
    /// `@p exit`: end the thread or go to the next segment.
    CondExit,
}

/// A run of straight-line statements.
#[derive(Clone, Debug)]
pub struct Segment {
    /// Indexes into the body of the instructions in the segment, excluding a final branch/exit.
    pub stmts: Vec<usize>,
    /// The final branch/exit instruction, if any.
    pub last: Option<usize>,
    /// How control leaves.
    pub exit: Exit,
}

impl Segment {
    /// Successor segment indexes.
    pub fn successors(&self, index: usize, count: usize) -> Vec<usize> {
        let next = || {
            if index + 1 < count { vec![index + 1] } else { vec![] }
        };
        match self.exit {
            Exit::FallThrough | Exit::CondReturn | Exit::CondExit => next(),
            Exit::Jump(t) => vec![t],
            Exit::CondJump(t) => {
                let mut v = vec![t];
                v.extend(next());
                v
            }
            Exit::Return | Exit::Exit => vec![],
        }
    }
}

/// Splits `f.body`; returns the segments, or the unknown-label error's instruction index.
pub fn split(f: &CheckedFunction) -> Result<Vec<Segment>, usize> {
    let mut label_seg: HashMap<LabelId, usize> = HashMap::default();
    let mut raw: Vec<(Vec<usize>, Option<usize>)> = vec![(Vec::new(), None)];
    for (i, stmt) in f.body.iter().enumerate() {
        match stmt {
            CheckedStmt::Label(l) => {
                let cur = raw.last().expect("a segment");
                if !cur.0.is_empty() || cur.1.is_some() {
                    raw.push((Vec::new(), None));
                }
                label_seg.insert(*l, raw.len() - 1);
            }
            CheckedStmt::Inst(inst) if ends_segment(inst) => {
                raw.last_mut().expect("a segment").1 = Some(i);
                raw.push((Vec::new(), None));
            }
            CheckedStmt::Inst(_) => raw.last_mut().expect("a segment").0.push(i),
            CheckedStmt::Loc { .. } => {}
        }
    }
    let mut segs = Vec::with_capacity(raw.len());
    for (stmts, last) in raw {
        let exit = match last {
            None => Exit::FallThrough,
            Some(i) => {
                let CheckedStmt::Inst(inst) = &f.body[i] else {
                    unreachable!("branch is an instruction")
                };
                exit_of(inst, &label_seg).ok_or(i)?
            }
        };
        segs.push(Segment { stmts, last, exit });
    }
    Ok(segs)
}

fn ends_segment(inst: &CheckedInst) -> bool {
    matches!(inst.op, Opcode::Bra | Opcode::Ret | Opcode::Exit)
}

fn exit_of(inst: &CheckedInst, labels: &HashMap<LabelId, usize>) -> Option<Exit> {
    let guarded = inst.guard.is_some();
    Some(match inst.op {
        Opcode::Bra => {
            let target = inst.operands.iter().find_map(|o| match o {
                CheckedOperand::Label(l) => labels.get(l).copied(),
                _ => None,
            })?;
            if guarded {
                Exit::CondJump(target)
            } else {
                Exit::Jump(target)
            }
        }
        Opcode::Exit if guarded => Exit::CondExit,
        Opcode::Exit => Exit::Exit,
        _ if guarded => Exit::CondReturn,
        _ => Exit::Return,
    })
}
