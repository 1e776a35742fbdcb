//! The issue timeline of one warp and the hazard check: every instruction issues at the
//! previous one's issue time plus its stall count, or later if it waits on scoreboards.
//! Fixed-latency results become readable after NVIDIA's latency for the writer/reader pair
//! (the same tables the compiler schedules with); variable-latency results only through
//! their write scoreboard; registers read late are protected by read scoreboards. An access
//! that breaks these rules is a hazard: real hardware would compute a wrong value.
//!
//! Every operation here is O(1) per register access and allocation-free once warm: a
//! scoreboard remembers up to which issue time its operations have been waited for, and a
//! register remembers the scoreboard and issue time of its outstanding variable-latency write.

use crate::decoded::Decoded;
use ptxc_sass::isa::Arch;
use ptxc_sass::isa::Op;
use ptxc_sass::isa::access::{Access, Reg};
use ptxc_sass::isa::control::NO_SB;
use ptxc_sass::isa::desc::Pipe;
use ptxc_sass::isa::timing::{LatCat, address_unit, pred_raw_on, pred_war, pred_waw, raw_on, war_on, waw};
use ptxc_sass::isa::uniform_timing::{upred_raw, upred_war, upred_waw, uraw, uwar, uwaw};
use smallvec::SmallVec;

/// A time before every event.
const NEVER: i64 = i64::MIN / 4;

/// Cycles after issue until the scoreboard increment of an instruction is visible to the
/// wait mask of a later one (a consumer in the very next slot needs stall >= 2).
pub const SB_VISIBLE: i64 = 2;

/// Nominal result latency of variable-latency instructions in the functional engine (the
/// timed engine computes memory latencies from its cache model).
pub fn result_latency(d: &Decoded) -> i64 {
    let (op, pipe) = (d.op, d.timing.pipe);
    if pipe == Pipe::Tensor {
        return tensor_latency(d.timing.cat);
    }
    match (op, pipe) {
        (Op::S2r | Op::S2ur | Op::Cs2r, _) => 20,
        (Op::Lds | Op::Sts | Op::Atoms | Op::AtomsCas | Op::Shfl | Op::Ldc | Op::Uldc, _) => 23,
        (Op::Bar, _) => 20,
        (_, Pipe::Lsu) => 32,
        (_, Pipe::Mufu) => 18,
        (_, Pipe::Conv) => 14,
        (_, Pipe::Fp64) => 10,
        _ => 14,
    }
}

/// Result latency of a tensor-core instruction: NVIDIA's minimum distance from the writer
/// to any reader (docs/TIMING-SM75.md): HMMA.1688 14, HMMA.884 13 (f16 result) or 10 (f32),
/// IMMA and BMMA 10.
fn tensor_latency(cat: LatCat) -> i64 {
    match cat {
        LatCat::Hmma884F16 => 13,
        LatCat::Hmma884F32 | LatCat::Imma => 10,
        _ => 14,
    }
}

/// Cycles after issue until a late reader (store data, atomics) has read its sources.
pub const LATE_READ: i64 = 4;

/// What an access did wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HazardKind {
    /// Read `distance` cycles after a fixed-latency write that needs `need`.
    ReadTooEarly { distance: i64, need: i64 },
    /// Read a variable-latency result that was not waited for on scoreboard `sb`.
    ReadUnwaited { sb: u8 },
    /// Written `distance` cycles after an earlier write that needs `need`.
    WriteTooEarly { distance: i64, need: i64 },
    /// Written while an earlier variable-latency write (scoreboard `sb`) is outstanding.
    WriteOverPending { sb: u8 },
    /// Overwritten before a late reader (read scoreboard `sb`) read it.
    WriteBeforeLateRead { sb: u8 },
    /// Overwritten `distance` cycles after a read that needs `need`.
    WriteAfterReadTooEarly { distance: i64, need: i64 },
}

/// One hazard of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HazardAt {
    /// The register.
    pub reg: Reg,
    /// What went wrong.
    pub kind: HazardKind,
    /// The reader sees the value from before the pending write.
    pub sees_old_value: bool,
}

impl HazardAt {
    /// A sentence for reports.
    pub fn describe(&self) -> String {
        let r = reg_name(self.reg);
        match self.kind {
            HazardKind::ReadTooEarly { distance, need } => {
                format!("{r} read {distance} cycles after its write, {need} needed")
            }
            HazardKind::ReadUnwaited { sb } => format!(
                "{r} read before its variable-latency write (scoreboard {}) was waited for",
                sb_name(sb)
            ),
            HazardKind::WriteTooEarly { distance, need } => {
                format!("{r} written {distance} cycles after an earlier write, {need} needed")
            }
            HazardKind::WriteOverPending { sb } => format!(
                "{r} written while a variable-latency write (scoreboard {}) is outstanding",
                sb_name(sb)
            ),
            HazardKind::WriteBeforeLateRead { sb } => format!(
                "{r} overwritten before a pending read (scoreboard {}) completed",
                sb_name(sb)
            ),
            HazardKind::WriteAfterReadTooEarly { distance, need } => {
                format!("{r} overwritten {distance} cycles after a read, {need} needed")
            }
        }
    }
}

/// The hazards of one instruction.
pub type Hazards = SmallVec<[HazardAt; 2]>;

/// An outstanding variable-latency write.
#[derive(Clone, Copy, Debug)]
struct VarWrite {
    sb: u8,
    issue: i64,
    release: i64,
    pipe: u8,
    /// The lanes it writes.
    lanes: u32,
}

/// The timing state of one register or predicate. Every event remembers the lanes it
/// concerns: lanes on different sides of a branch touch different parts of a register, so
/// a write on one path and a read on the other are no hazard.
#[derive(Clone, Copy, Debug)]
struct RegTime {
    write_t: i64,
    write_cat: LatCat,
    write_predicated: bool,
    write_lanes: u32,
    var: Option<VarWrite>,
    late_sb: u8,
    late_release: i64,
    late_lanes: u32,
    read_t: i64,
    read_cat: LatCat,
    read_lanes: u32,
}

impl Default for RegTime {
    fn default() -> Self {
        RegTime {
            write_t: NEVER,
            write_cat: LatCat::Alu,
            write_predicated: false,
            write_lanes: 0,
            var: None,
            late_sb: NO_SB,
            late_release: NEVER,
            late_lanes: 0,
            read_t: NEVER,
            read_cat: LatCat::Alu,
            read_lanes: 0,
        }
    }
}

/// An outstanding scoreboarded operation.
#[derive(Clone, Copy, Debug)]
struct SbOp {
    issue: i64,
    release: i64,
    pipe: u8,
}

/// One dependence counter.
#[derive(Clone, Debug)]
struct Scoreboard {
    /// Operations not known to have released, in issue order.
    ops: Vec<SbOp>,
    /// Operations issued at or before this time have been waited for.
    waited: i64,
    /// Per pipe, the latest issue of a released operation dropped from `ops` before a wait:
    /// the next wait still proves its pipe's earlier results back (in-order completion).
    dropped: [i64; PIPES],
}

impl Default for Scoreboard {
    fn default() -> Self {
        Scoreboard {
            ops: Vec::new(),
            waited: NEVER,
            dropped: [NEVER; PIPES],
        }
    }
}

impl Scoreboard {
    /// The first cycle at or after `t` when no operation visible then is outstanding.
    fn ready(&self, mut t: i64) -> i64 {
        loop {
            let blocked = self
                .ops
                .iter()
                .filter(|o| o.issue + SB_VISIBLE <= t && o.release > t)
                .map(|o| o.release)
                .max();
            match blocked {
                Some(r) => t = r,
                None => return t,
            }
        }
    }

    /// The first cycle at or after `t` when at most `n` visible operations are outstanding
    /// (operations complete in issue order).
    fn ready_le(&self, mut t: i64, n: usize) -> i64 {
        loop {
            let visible: SmallVec<[&SbOp; 8]> = self.ops.iter().filter(|o| o.issue + SB_VISIBLE <= t).collect();
            if visible.len() <= n {
                return t;
            }
            let must = &visible[..visible.len() - n];
            match must.iter().map(|o| o.release).filter(|&r| r > t).max() {
                Some(r) => t = r,
                None => return t,
            }
        }
    }

    /// Marks the operations visible at `t` as waited for and forgets released ones.
    fn wait_all(&mut self, t: i64) {
        self.waited = self.waited.max(t - SB_VISIBLE);
        self.ops.retain(|o| o.issue + SB_VISIBLE > t);
    }

    /// Marks the oldest visible operations, all but `n`, as waited for; returns them.
    fn wait_le(&mut self, t: i64, n: usize) -> SmallVec<[SbOp; 8]> {
        let visible = self.ops.iter().filter(|o| o.issue + SB_VISIBLE <= t).count();
        let done = visible.saturating_sub(n);
        if done > 0 {
            self.waited = self.waited.max(self.ops[done - 1].issue);
            return self.ops.drain(..done).collect();
        }
        SmallVec::new()
    }

    fn push(&mut self, op: SbOp, now: i64) {
        if self.ops.len() >= 16 {
            for o in self.ops.iter().filter(|o| o.release <= now) {
                if let Some(d) = self.dropped.get_mut(o.pipe as usize) {
                    *d = (*d).max(o.issue);
                }
            }
            self.ops.retain(|o| o.release > now);
        }
        self.ops.push(op);
    }

    /// The released operations dropped since the last wait (per pipe, the latest issue),
    /// forgotten: a wait covers them.
    fn take_dropped(&mut self) -> [i64; PIPES] {
        std::mem::replace(&mut self.dropped, [NEVER; PIPES])
    }
}

/// The timeline and hazard state of one warp.
///
/// Variable-latency units complete in order: a result written without a scoreboard is
/// known to be back once a later scoreboarded operation of the same pipe has been waited
/// for (ptxas relies on this, e.g. `POPC R0, R2` without a scoreboard followed by
/// `POPC R3, R3` on SB0, then a reader of R0 and R3 that waits on SB0 only).
#[derive(Clone, Debug)]
pub struct Timer {
    /// Whose latency tables apply.
    arch: Arch,
    next: i64,
    gpr: Vec<RegTime>,
    pred: [RegTime; 8],
    /// Uniform registers UR0..UR63 and predicates UP0..UP7 (one value per warp).
    ugpr: Vec<RegTime>,
    upred: [RegTime; 8],
    sb: [Scoreboard; 6],
    /// Per pipe: operations issued at or before this time have completed and been waited.
    pipe_waited: [i64; PIPES],
    /// When the last LDGSTS of the open copy group lands (the next LDGDEPBAR's release).
    copies_land: i64,
    /// When the last LDGSTS issued so far lands, grouped or not (an `ARRIVES.LDGSTSBAR`'s
    /// arrival).
    all_copies_land: i64,
}

/// Pipes tracked for in-order completion.
const PIPES: usize = 11;
/// The pipe of read-scoreboard operations (not a result).
const NO_PIPE: u8 = u8::MAX;

/// The lanes an access to `reg` concerns: a uniform register or predicate holds one value
/// for the whole warp, so an instruction that runs for any lane touches it for all.
fn file_lanes(reg: Reg, lanes: u32) -> u32 {
    if reg.is_uniform() && lanes != 0 {
        u32::MAX
    } else {
        lanes
    }
}

/// Index of a pipe for in-order completion.
fn pipe_index(p: Pipe) -> u8 {
    crate::timed::pipes::index(p) as u8
}

impl Default for Timer {
    fn default() -> Self {
        Timer::new(Arch::Sm75)
    }
}

impl Timer {
    /// A timer checking code for `arch`.
    pub fn new(arch: Arch) -> Timer {
        Timer {
            arch,
            next: 0,
            gpr: vec![RegTime::default(); 256],
            pred: [RegTime::default(); 8],
            ugpr: vec![RegTime::default(); 64],
            upred: [RegTime::default(); 8],
            sb: Default::default(),
            pipe_waited: [NEVER; PIPES],
            copies_land: NEVER,
            all_copies_land: NEVER,
        }
    }
}

/// `DEPBAR.LE SBx, n`: the scoreboard and count an instruction waits for, if it is one.
pub fn depbar_of(d: &Decoded) -> Option<(usize, usize)> {
    use crate::decoded::Src;
    if d.op != Op::Depbar {
        return None;
    }
    match (d.a.src, d.b.src) {
        (Src::Imm(sb), Src::Imm(n)) if sb < 6 => Some((sb as usize, n as usize)),
        _ => None,
    }
}

/// The scoreboards a DEPBAR waits for completely (its list operand), as a mask.
pub fn depbar_all(d: &Decoded) -> u8 {
    if d.op == Op::Depbar { (d.other & 0x3f) as u8 } else { 0 }
}

impl Timer {
    /// The cycle at which the stall count of the previous instruction has elapsed.
    #[inline]
    pub fn now(&self) -> i64 {
        self.next
    }

    /// The cycle at which every LDGSTS the warp has issued has landed (long past if none).
    pub fn copies_landed(&self) -> i64 {
        self.all_copies_land
    }

    #[inline]
    fn state(&mut self, r: Reg) -> &mut RegTime {
        match r {
            Reg::R(i) => &mut self.gpr[i as usize],
            Reg::P(i) => &mut self.pred[i as usize & 7],
            Reg::UR(i) => &mut self.ugpr[i as usize & 63],
            Reg::UP(i) => &mut self.upred[i as usize & 7],
        }
    }

    /// The earliest cycle at or after `t` when the wait mask (and a DEPBAR) of `d` allow it
    /// to issue.
    pub fn ready(&self, d: &Decoded, t: i64) -> i64 {
        let mut t = t.max(self.next);
        let wait = d.ctrl.wait | depbar_all(d);
        if wait != 0 {
            loop {
                let before = t;
                for k in 0..6 {
                    if wait & (1 << k) != 0 {
                        t = self.sb[k].ready(t);
                    }
                }
                if t == before {
                    break;
                }
            }
        }
        if let Some((k, n)) = depbar_of(d) {
            t = self.sb[k].ready_le(t, n);
        }
        t
    }

    /// Issues `d` at cycle `t` (which must be at or after [`Timer::ready`]) for the lanes
    /// of `group`, of which `exec` pass the guard; a variable-latency result completes
    /// `latency` cycles later. Returns the hazards.
    pub fn issue(&mut self, t: i64, d: &Decoded, latency: i64, group: u32, exec: u32) -> Hazards {
        let latency = self.copy_group(d, t, latency);
        self.complete_waits(d, t);
        let mut hazards = Hazards::new();
        for a in &d.accesses.reads {
            let lanes = file_lanes(a.reg, if a.guard { group } else { exec });
            if let Some(h) = self.check_read(a, t, lanes, address_unit(d.op, d.timing.pipe)) {
                hazards.push(h);
            }
        }
        // A variable-latency write completes in order with the earlier ones of its pipe.
        let in_order = d.timing.variable_latency.then(|| pipe_index(d.timing.pipe));
        for a in &d.accesses.writes {
            if let Some(h) = self.check_write(a, t, file_lanes(a.reg, exec), in_order) {
                hazards.push(h);
            }
        }
        self.record(d, t, latency, group, exec);
        self.next = t + d.ctrl.stall as i64;
        hazards
    }

    /// Asynchronous copies: an LDGSTS lands `latency` cycles after issue; an LDGDEPBAR
    /// releases its scoreboard when the last copy of its group has landed. Returns the
    /// latency of `d`.
    fn copy_group(&mut self, d: &Decoded, t: i64, latency: i64) -> i64 {
        match d.op {
            Op::Ldgsts => {
                self.copies_land = self.copies_land.max(t + latency);
                self.all_copies_land = self.all_copies_land.max(t + latency);
                latency
            }
            Op::Ldgdepbar => {
                let land = std::mem::replace(&mut self.copies_land, NEVER);
                (land - t).max(SB_VISIBLE)
            }
            _ => latency,
        }
    }

    /// Marks the scoreboard operations `d` waited for.
    fn complete_waits(&mut self, d: &Decoded, t: i64) {
        let wait = d.ctrl.wait | depbar_all(d);
        for k in 0..6 {
            if wait & (1 << k) != 0 {
                for o in self.sb[k].ops.iter().filter(|o| o.issue + SB_VISIBLE <= t) {
                    if let Some(p) = self.pipe_waited.get_mut(o.pipe as usize) {
                        *p = (*p).max(o.issue);
                    }
                }
                self.sb[k].wait_all(t);
                self.note_dropped_waited(k);
            }
        }
        if let Some((k, n)) = depbar_of(d) {
            for o in self.sb[k].wait_le(t, n) {
                if let Some(p) = self.pipe_waited.get_mut(o.pipe as usize) {
                    *p = (*p).max(o.issue);
                }
            }
            self.note_dropped_waited(k);
        }
    }

    /// A wait on scoreboard `k` also covers its released operations dropped from its list:
    /// their pipes' earlier results are back.
    fn note_dropped_waited(&mut self, k: usize) {
        for (p, d) in self.pipe_waited.iter_mut().zip(self.sb[k].take_dropped()) {
            *p = (*p).max(d);
        }
    }

    fn var_waited(&self, v: &VarWrite) -> bool {
        if v.sb == NO_SB {
            v.issue < self.pipe_waited[v.pipe as usize]
        } else {
            v.issue <= self.sb[v.sb as usize].waited
        }
    }

    fn check_read(&mut self, a: &Access, t: i64, lanes: u32, address_unit: bool) -> Option<HazardAt> {
        let s = *self.state(a.reg);
        if let Some(v) = s.var
            && v.lanes & lanes != 0
            && !self.var_waited(&v)
        {
            return Some(HazardAt {
                reg: a.reg,
                kind: HazardKind::ReadUnwaited { sb: v.sb },
                sees_old_value: t < v.release,
            });
        }
        if s.write_t > NEVER && s.write_lanes & lanes != 0 {
            let need = match a.reg {
                Reg::R(_) => raw_on(self.arch, s.write_cat, a.cat, address_unit),
                Reg::P(_) => pred_raw_on(self.arch, s.write_cat, a.cat, a.guard),
                Reg::UR(_) => uraw(self.arch, s.write_cat, a.cat),
                Reg::UP(_) => upred_raw(self.arch, s.write_cat, a.cat),
            } as i64;
            if t < s.write_t + need {
                return Some(HazardAt {
                    reg: a.reg,
                    kind: HazardKind::ReadTooEarly {
                        distance: t - s.write_t,
                        need,
                    },
                    sees_old_value: true,
                });
            }
        }
        None
    }

    /// `in_order`: the pipe of a variable-latency writer, whose result lands after those of
    /// every earlier instruction of that pipe (ptxas overwrites a pending F2I, F2F, I2F or
    /// POPC result with another conversion without waiting: the pipe completes in order).
    fn check_write(&mut self, a: &Access, t: i64, lanes: u32, in_order: Option<u8>) -> Option<HazardAt> {
        let s = *self.state(a.reg);
        let hazard = |kind| {
            Some(HazardAt {
                reg: a.reg,
                kind,
                sees_old_value: false,
            })
        };
        if let Some(v) = s.var
            && v.lanes & lanes != 0
            && !self.var_waited(&v)
            && t < v.release
            && in_order != Some(v.pipe)
        {
            return hazard(HazardKind::WriteOverPending { sb: v.sb });
        }
        if s.write_t > NEVER && s.write_lanes & lanes != 0 {
            let need = match a.reg {
                Reg::R(_) => waw(s.write_cat, a.cat, s.write_predicated),
                Reg::P(_) => pred_waw(s.write_cat, a.cat, s.write_predicated),
                Reg::UR(_) => uwaw(self.arch, s.write_cat, a.cat, s.write_predicated),
                Reg::UP(_) => upred_waw(s.write_cat, a.cat),
            } as i64;
            if t < s.write_t + need {
                return hazard(HazardKind::WriteTooEarly {
                    distance: t - s.write_t,
                    need,
                });
            }
        }
        if t < s.late_release && s.late_lanes & lanes != 0 {
            return hazard(HazardKind::WriteBeforeLateRead { sb: s.late_sb });
        }
        if s.read_t > NEVER && s.read_lanes & lanes != 0 {
            let need = match a.reg {
                Reg::R(_) => war_on(self.arch, s.read_cat, a.cat),
                Reg::P(_) => pred_war(s.read_cat, a.cat),
                Reg::UR(_) => uwar(self.arch, s.read_cat, a.cat),
                Reg::UP(_) => upred_war(self.arch, s.read_cat, a.cat),
            } as i64;
            if t < s.read_t + need {
                return hazard(HazardKind::WriteAfterReadTooEarly {
                    distance: t - s.read_t,
                    need,
                });
            }
        }
        None
    }

    fn record(&mut self, d: &Decoded, t: i64, latency: i64, group: u32, exec: u32) {
        let timing = d.timing;
        let predicated = d.guard.idx != ptxc_sass::isa::PT;
        for a in &d.accesses.reads {
            let s = self.state(a.reg);
            s.read_t = t;
            s.read_cat = a.cat;
            s.read_lanes = file_lanes(a.reg, if a.guard { group } else { exec });
        }
        if timing.reads_late {
            let release = t + LATE_READ;
            let sb = d.ctrl.read_sb;
            // Predicates are read at issue: ptxas overwrites the predicate source of a DSETP
            // one cycle later without waiting on its read scoreboard.
            for a in d
                .accesses
                .reads
                .iter()
                .filter(|a| !a.guard && matches!(a.reg, Reg::R(_)))
            {
                let s = self.state(a.reg);
                s.late_sb = sb;
                s.late_release = release;
                s.late_lanes = exec;
            }
            if (sb as usize) < 6 {
                // Read releases say nothing about results: no pipe.
                self.sb[sb as usize].push(
                    SbOp {
                        issue: t,
                        release,
                        pipe: NO_PIPE,
                    },
                    t,
                );
            }
        }
        if timing.variable_latency {
            let release = t + latency;
            let sb = d.ctrl.write_sb;
            let pipe = pipe_index(timing.pipe);
            for a in &d.accesses.writes {
                let lanes = file_lanes(a.reg, exec);
                let s = self.state(a.reg);
                s.write_lanes &= !lanes;
                if s.write_lanes == 0 {
                    s.write_t = NEVER;
                }
                // In order with a pending write of the same pipe: lands after it.
                let after = s
                    .var
                    .filter(|v| v.pipe == pipe)
                    .map_or(release, |v| v.release.max(release));
                s.var = Some(VarWrite {
                    sb,
                    issue: t,
                    release: after,
                    pipe,
                    lanes,
                });
            }
            if (sb as usize) < 6 {
                self.sb[sb as usize].push(
                    SbOp {
                        issue: t,
                        release,
                        pipe,
                    },
                    t,
                );
            }
        } else {
            for a in &d.accesses.writes {
                let lanes = file_lanes(a.reg, exec);
                let s = self.state(a.reg);
                if let Some(v) = &mut s.var {
                    v.lanes &= !lanes;
                    if v.lanes == 0 {
                        s.var = None;
                    }
                }
                s.write_t = t;
                s.write_cat = a.cat;
                s.write_predicated = predicated;
                s.write_lanes = lanes;
            }
        }
    }
}

/// `R4` / `P0`.
pub fn reg_name(r: Reg) -> String {
    match r {
        Reg::R(i) => format!("R{i}"),
        Reg::P(i) => format!("P{i}"),
        Reg::UR(i) => format!("UR{i}"),
        Reg::UP(i) => format!("UP{i}"),
    }
}

fn sb_name(sb: u8) -> String {
    if sb == NO_SB { "none".into() } else { format!("SB{sb}") }
}
