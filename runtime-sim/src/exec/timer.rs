//! The issue timeline of one warp and the hazard check: every instruction issues at the
//! previous one's issue time plus its stall count, or later if it waits on scoreboards.
//! Fixed-latency results become readable after NVIDIA's latency for the writer/reader pair
//! (the same tables the compiler schedules with); variable-latency results only through
//! their write scoreboard; registers read late are protected by read scoreboards. An access
//! that breaks these rules is a hazard: real hardware would compute a wrong value.

use crate::decoded::Decoded;
use ptxc_backend::isa::Op;
use ptxc_backend::isa::access::{Access, Reg};
use ptxc_backend::isa::control::NO_SB;
use ptxc_backend::isa::desc::Pipe;
use ptxc_backend::isa::timing::{LatCat, pred_raw, pred_war, pred_waw, raw, war, waw};

/// Nominal result latency of variable-latency instructions in the functional engine.
pub fn result_latency(op: Op, pipe: Pipe) -> i64 {
    match (op, pipe) {
        (Op::S2r | Op::S2ur, _) => 20,
        (Op::Lds | Op::Atoms | Op::AtomsCas | Op::Shfl, _) => 23,
        (_, Pipe::Lsu) => 32,
        (_, Pipe::Mufu) => 18,
        (_, Pipe::Fp64) => 10,
        _ => 14,
    }
}

/// Cycles after issue until a late reader has read its sources.
const LATE_READ: i64 = 4;

#[derive(Clone, Copy, Debug)]
struct FixedWrite {
    t: i64,
    cat: LatCat,
    predicated: bool,
}

#[derive(Clone, Copy, Debug)]
struct VarWrite {
    sb: u8,
    issue: i64,
    pipe: Pipe,
}

#[derive(Clone, Copy, Debug, Default)]
struct RegState {
    write: Option<FixedWrite>,
    var: Option<VarWrite>,
    late_read: Option<(u8, i64)>,
    last_read: Option<(i64, LatCat)>,
}

/// An outstanding scoreboarded operation.
#[derive(Clone, Copy, Debug)]
struct SbOp {
    issue: i64,
    release: i64,
}

/// The timeline and hazard state of one warp.
#[derive(Clone, Debug)]
pub struct Timer {
    next: i64,
    gpr: Vec<RegState>,
    pred: [RegState; 8],
    sb: [Vec<SbOp>; 6],
}

impl Default for Timer {
    fn default() -> Self {
        Timer {
            next: 0,
            gpr: vec![RegState::default(); 256],
            pred: [RegState::default(); 8],
            sb: Default::default(),
        }
    }
}

impl Timer {
    /// The cycle at which the warp could issue its next instruction.
    pub fn now(&self) -> i64 {
        self.next
    }

    fn state(&mut self, r: Reg) -> &mut RegState {
        match r {
            Reg::R(i) => &mut self.gpr[i as usize],
            Reg::P(i) => &mut self.pred[i as usize & 7],
        }
    }

    /// Functional engine: issues `inst` at the earliest time its stall counts and scoreboard
    /// waits allow, with the nominal latency of variable-latency results. Calls `hazard` for
    /// every illegal access; returns the issue time.
    pub fn issue(&mut self, inst: &Decoded, hazard: &mut dyn FnMut(String)) -> i64 {
        let t = self.earliest(inst.ctrl.wait);
        let latency = result_latency(inst.op, inst.inst.desc().meta.pipe);
        self.issue_at(t, inst, latency, hazard);
        t
    }

    /// The earliest issue time: after the previous stall count, and after every scoreboard
    /// operation of the wait mask that is visible by then has completed.
    pub fn earliest(&self, wait: u8) -> i64 {
        let mut t = self.next;
        for k in (0..6).filter(|k| wait & (1 << k) != 0) {
            for o in self.sb[k].iter().filter(|o| o.issue + 2 <= self.next) {
                t = t.max(o.release);
            }
        }
        t
    }

    /// The next cycle after `now` at which [`Timer::can_issue`] may change its answer.
    pub fn next_change(&self, wait: u8, now: i64) -> i64 {
        let mut t = i64::MAX;
        if self.next > now {
            t = self.next;
        }
        for k in (0..6).filter(|k| wait & (1 << k) != 0) {
            for o in &self.sb[k] {
                for c in [o.release, o.issue + 2] {
                    if c > now {
                        t = t.min(c);
                    }
                }
            }
        }
        t
    }

    /// Timed engine: may the instruction with wait mask `wait` issue at cycle `now`?
    /// `Err(true)` means it waits on a scoreboard, `Err(false)` on its stall count.
    pub fn can_issue(&self, wait: u8, now: i64) -> Result<(), bool> {
        if now < self.next {
            return Err(false);
        }
        let blocked = (0..6)
            .filter(|k| wait & (1 << k) != 0)
            .any(|k| self.sb[k].iter().any(|o| o.issue + 2 <= now && o.release > now));
        if blocked { Err(true) } else { Ok(()) }
    }

    /// Issues `inst` at cycle `t` (which must be legal per [`Timer::can_issue`] or
    /// [`Timer::earliest`]); a variable-latency result completes `latency` cycles later.
    pub fn issue_at(&mut self, t: i64, inst: &Decoded, latency: i64, hazard: &mut dyn FnMut(String)) {
        self.release_waited(inst.ctrl.wait, t);
        let cat = inst.inst.desc().meta.cat;
        for a in &inst.accesses.reads {
            if let Some(h) = self.check_read(a, t) {
                hazard(h);
            }
        }
        for a in &inst.accesses.writes {
            if let Some(h) = self.check_write(a, t) {
                hazard(h);
            }
        }
        self.record(inst, t, cat, latency);
        self.next = t + inst.ctrl.stall as i64;
    }

    /// Completes the scoreboard operations of `mask` visible at `t`: their registers become
    /// readable (and unscoreboarded LSU loads issued before them, which return in order).
    fn release_waited(&mut self, mask: u8, t: i64) {
        let mut cleared_until = i64::MIN;
        for k in 0..6 {
            if mask & (1 << k) == 0 {
                continue;
            }
            let (seen, unseen): (Vec<SbOp>, Vec<SbOp>) = self.sb[k].iter().partition(|o| o.issue + 2 <= t);
            for o in &seen {
                cleared_until = cleared_until.max(o.issue);
            }
            self.sb[k] = unseen;
            for s in self.gpr.iter_mut().chain(self.pred.iter_mut()) {
                if s.var.is_some_and(|v| v.sb == k as u8 && v.issue + 2 <= t) {
                    s.var = None;
                }
                if s.late_read.is_some_and(|(sb, _)| sb == k as u8) {
                    s.late_read = None;
                }
            }
        }
        if cleared_until > i64::MIN {
            for s in self.gpr.iter_mut().chain(self.pred.iter_mut()) {
                if s.var
                    .is_some_and(|v| v.sb == NO_SB && v.pipe == Pipe::Lsu && v.issue <= cleared_until)
                {
                    s.var = None;
                }
            }
        }
    }

    fn check_read(&mut self, a: &Access, t: i64) -> Option<String> {
        let s = *self.state(a.reg);
        if let Some(w) = s.write {
            let need = match a.reg {
                Reg::R(_) => raw(w.cat, a.cat),
                Reg::P(_) => pred_raw(w.cat, a.cat, a.guard),
            } as i64;
            if t < w.t + need {
                return Some(format!(
                    "{} read {} cycles after its write, {need} needed",
                    name(a.reg),
                    t - w.t
                ));
            }
        }
        if let Some(v) = s.var {
            return Some(format!(
                "{} read before its variable-latency write (scoreboard {}) was waited for",
                name(a.reg),
                sb_name(v.sb)
            ));
        }
        None
    }

    fn check_write(&mut self, a: &Access, t: i64) -> Option<String> {
        let s = *self.state(a.reg);
        if let Some(w) = s.write {
            let need = match a.reg {
                Reg::R(_) => waw(w.cat, a.cat, w.predicated),
                Reg::P(_) => pred_waw(w.cat, a.cat, w.predicated),
            } as i64;
            if t < w.t + need {
                return Some(format!(
                    "{} written {} cycles after an earlier write, {need} needed",
                    name(a.reg),
                    t - w.t
                ));
            }
        }
        if let Some(v) = s.var {
            return Some(format!(
                "{} written while a variable-latency write (scoreboard {}) is outstanding",
                name(a.reg),
                sb_name(v.sb)
            ));
        }
        if let Some((sb, release)) = s.late_read
            && t < release
        {
            return Some(format!(
                "{} overwritten before a pending read (scoreboard {}) completed",
                name(a.reg),
                sb_name(sb)
            ));
        }
        if let Some((tr, cr)) = s.last_read {
            let need = match a.reg {
                Reg::R(_) => war(cr, a.cat),
                Reg::P(_) => pred_war(cr, a.cat),
            } as i64;
            if t < tr + need {
                return Some(format!(
                    "{} overwritten {} cycles after a read, {need} needed",
                    name(a.reg),
                    t - tr
                ));
            }
        }
        None
    }

    fn record(&mut self, inst: &Decoded, t: i64, cat: LatCat, latency: i64) {
        let pipe = inst.inst.desc().meta.pipe;
        let predicated = inst.guard.idx != ptxc_backend::isa::PT;
        for a in &inst.accesses.reads {
            self.state(a.reg).last_read = Some((t, a.cat));
        }
        if inst.reads_late {
            let release = t + LATE_READ;
            for a in inst.accesses.reads.iter().filter(|a| !a.guard) {
                self.state(a.reg).late_read = Some((inst.ctrl.read_sb, release));
            }
            if inst.ctrl.read_sb != NO_SB {
                self.sb[inst.ctrl.read_sb as usize].push(SbOp { issue: t, release });
            }
        }
        if inst.variable_latency {
            let release = t + latency;
            for a in &inst.accesses.writes {
                let s = self.state(a.reg);
                s.write = None;
                s.var = Some(VarWrite {
                    sb: inst.ctrl.write_sb,
                    issue: t,
                    pipe,
                });
            }
            if inst.ctrl.write_sb != NO_SB {
                self.sb[inst.ctrl.write_sb as usize].push(SbOp { issue: t, release });
            }
        } else {
            for a in &inst.accesses.writes {
                let s = self.state(a.reg);
                s.var = None;
                s.write = Some(FixedWrite {
                    t,
                    cat: if a.cat == cat { cat } else { a.cat },
                    predicated,
                });
            }
        }
    }
}

fn name(r: Reg) -> String {
    match r {
        Reg::R(i) => format!("R{i}"),
        Reg::P(i) => format!("P{i}"),
    }
}

fn sb_name(sb: u8) -> String {
    if sb == NO_SB { "none".into() } else { format!("SB{sb}") }
}
