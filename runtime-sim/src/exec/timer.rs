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
    if op == Op::Hgmma {
        return hgmma_occupancy(d) + HGMMA_PIPELINE;
    }
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

/// Hopper's tensor cores: an SM does 2048 dense f16 or bf16 multiply-adds per cycle, 512 per
/// sub-partition's tensor core (H100 SXM5: 989.4 dense f16 TFLOPS = 132 SMs x 1830 MHz x
/// 2048 FMAs x 2; "NVIDIA H100 Tensor Core GPU Architecture": four tensor cores per SM, twice
/// A100's per-SM rate, whose 1024 FMAs per cycle give its 312 TFLOPS). Each warp of the
/// warpgroup computes its 16 rows of `HGMMA.64xNx16` on its own sub-partition: 16 N 16
/// multiply-adds, N/2 cycles at that rate, whatever the accumulator type.
pub const HGMMA_FMAS_PER_CYCLE: i64 = 512;

/// Cycles from the end of an HGMMA's tensor-core work to its results being readable. No
/// measurement of Hopper is used: Ampere's tensor-core result distance (`tensor_latency`),
/// a modelling choice.
pub const HGMMA_PIPELINE: i64 = 14;

/// Cycles the warp's tensor core works on the HGMMA `d` (its share: 16 x N x 16).
pub fn hgmma_occupancy(d: &Decoded) -> i64 {
    use ptxc_sass::isa::values::HmmaDType;
    let per_register = if d.m.hmma_d == HmmaDType::F32 { 2 } else { 4 };
    let n = d.dst.width as i64 * per_register;
    16 * n * 16 / HGMMA_FMAS_PER_CYCLE
}

/// The scoreboard number of HGMMA results (group scoreboard 0, which WARPGROUP.DEPBAR waits
/// on); the six ordinary scoreboards are 0..5.
pub const GSB: u8 = 6;

/// Cycles after issue until a late reader (store data, atomics) has read its sources.
pub const LATE_READ: i64 = ptxc_sass::isa::timing::LATE_READ as i64;

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
    /// Used by an HGMMA after another instruction accessed it, with no `WARPGROUP.ARRIVE`
    /// (PTX `wgmma.fence`) between.
    NotFenced,
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
            HazardKind::NotFenced => format!(
                "{r} used by an HGMMA after another instruction accessed it, without a WARPGROUP.ARRIVE \
                 (wgmma.fence) between"
            ),
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
    /// The last access by an instruction other than HGMMA (the `wgmma.fence` rule).
    plain_t: i64,
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
            plain_t: NEVER,
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
            let visible: SmallVec<[&SbOp; 8]> = self.ops.iter().filter(|o| o.issue + DEPBAR_SEES <= t).collect();
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
        let visible = self.ops.iter().filter(|o| o.issue + DEPBAR_SEES <= t).count();
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

/// The warp's asynchronous HGMMAs (Hopper, PTX `wgmma.mma_async`): its tensor core works on
/// them one after another while the warp issues on; an HGMMA with `gsb0` closes a commit
/// group (PTX `wgmma.commit_group`), and `WARPGROUP.DEPBAR.LE gsb0, n` waits until at most
/// `n` committed groups are in flight. Results are written at issue and tracked as
/// outstanding writes on [`GSB`] until a DEPBAR retires their group: an earlier read is a
/// hazard and sees the old value if the HGMMA has not completed.
#[derive(Clone, Debug)]
struct GmmaState {
    /// When the tensor core has finished the HGMMAs issued so far.
    busy_until: i64,
    /// The open group: the issue of its last HGMMA and when all of its HGMMAs complete.
    open: Option<(i64, i64)>,
    /// Committed groups, oldest first: (issue of the last HGMMA, completion).
    committed: SmallVec<[(i64, i64); 4]>,
    /// HGMMAs issued at or before this cycle have been waited for.
    waited: i64,
    /// The last `WARPGROUP.ARRIVE`.
    arrive: i64,
}

impl Default for GmmaState {
    fn default() -> Self {
        GmmaState {
            busy_until: NEVER,
            open: None,
            committed: SmallVec::new(),
            waited: NEVER,
            arrive: NEVER,
        }
    }
}

impl GmmaState {
    /// Queues an HGMMA issued at `t` that keeps the tensor core busy `work` cycles; `commit`:
    /// it closes its group. Returns when its results are readable.
    fn issue(&mut self, t: i64, work: i64, commit: bool) -> i64 {
        self.busy_until = self.busy_until.max(t) + work;
        let release = self.busy_until + HGMMA_PIPELINE;
        let group_release = self.open.map_or(release, |(_, r)| r.max(release));
        self.open = Some((t, group_release));
        if commit {
            self.committed.extend(self.open.take());
        }
        release
    }

    /// The first cycle at or after `t` at which at most `n` committed groups are in flight.
    fn ready_le(&self, t: i64, n: usize) -> i64 {
        let done = self.committed.len().saturating_sub(n);
        self.committed[..done].iter().map(|&(_, r)| r).fold(t, i64::max)
    }

    /// `WARPGROUP.DEPBAR.LE gsb0, n`: the groups beyond the newest `n` are retired.
    fn wait_le(&mut self, n: usize) {
        let done = self.committed.len().saturating_sub(n);
        for (issue, _) in self.committed.drain(..done) {
            self.waited = self.waited.max(issue);
        }
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
    /// Asynchronous HGMMAs.
    gmma: GmmaState,
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
            gmma: GmmaState::default(),
        }
    }
}

/// Cycles after issue from which `DEPBAR.LE` counts an operation on its scoreboard: the
/// instruction right before it counts (ptxas issues `DEPBAR.LE SB0, 0x0` one cycle after
/// the `LDGDEPBAR` it waits for, and `DEPBAR.LE SB1, 0x0` one cycle after an
/// `S2UR UR4, SR_CLOCKLO` on SB1 whose result it reads after a `BAR.SYNC`), where a wait
/// mask sees an operation only [`SB_VISIBLE`] cycles after its issue.
const DEPBAR_SEES: i64 = 1;

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

/// `WARPGROUP.DEPBAR.LE gsb0, n`: the number of committed HGMMA groups it allows in flight.
pub fn warpgroup_depbar_of(d: &Decoded) -> Option<usize> {
    use crate::decoded::Src;
    match (d.op, d.b.src) {
        (Op::WarpgroupDepbar, Src::Imm(n)) => Some(n as usize),
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
        if let Some(n) = warpgroup_depbar_of(d) {
            t = self.gmma.ready_le(t, n);
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
        let hgmma = d.op == Op::Hgmma;
        for a in &d.accesses.reads {
            if hgmma && self.in_flight_gmma(a.reg) && d.accesses.writes.iter().any(|w| w.reg == a.reg) {
                continue;
            }
            let lanes = file_lanes(a.reg, if a.guard { group } else { exec });
            if let Some(h) = self.check_read(a, t, lanes, address_unit(d.op, d.timing.pipe)) {
                hazards.push(h);
            }
        }
        // A variable-latency write completes in order with the earlier ones of its pipe.
        let in_order = d.timing.variable_latency.then(|| pipe_index(d.timing.pipe));
        for a in &d.accesses.writes {
            if hgmma && self.in_flight_gmma(a.reg) {
                continue;
            }
            if let Some(h) = self.check_write(a, t, file_lanes(a.reg, exec), in_order) {
                hazards.push(h);
            }
        }
        if hgmma {
            hazards.extend(self.unfenced_registers(d));
        }
        self.warpgroup(d, t);
        self.record(d, t, latency, group, exec);
        self.next = t + d.ctrl.stall as i64;
        hazards
    }

    /// Whether an earlier HGMMA still computes `reg`. HGMMAs order their accesses to the
    /// accumulators among themselves, without a fence or a wait (PTX ISA, `wgmma.fence`): a
    /// later HGMMA may write them, and read them as its own accumulator (C and D).
    fn in_flight_gmma(&mut self, reg: Reg) -> bool {
        self.state(reg).var.is_some_and(|v| v.sb == GSB)
    }

    /// The general registers the HGMMA `d` uses that another instruction accessed since the
    /// last `WARPGROUP.ARRIVE`.
    fn unfenced_registers(&mut self, d: &Decoded) -> Hazards {
        let arrive = self.gmma.arrive;
        let accesses = d.accesses.reads.iter().chain(&d.accesses.writes);
        let regs: SmallVec<[Reg; 8]> = accesses
            .filter(|a| matches!(a.reg, Reg::R(_)))
            .map(|a| a.reg)
            .filter(|&r| self.state(r).plain_t > arrive)
            .collect();
        regs.into_iter()
            .map(|reg| HazardAt {
                reg,
                kind: HazardKind::NotFenced,
                sees_old_value: false,
            })
            .collect()
    }

    /// The warpgroup bookkeeping of `d` issued at `t`: `WARPGROUP.ARRIVE` and `DEPBAR`.
    fn warpgroup(&mut self, d: &Decoded, t: i64) {
        match d.op {
            Op::WarpgroupArrive => self.gmma.arrive = t,
            Op::WarpgroupDepbar => {
                if let Some(n) = warpgroup_depbar_of(d) {
                    self.gmma.wait_le(n);
                }
            }
            _ => {}
        }
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
        if v.sb == GSB {
            v.issue <= self.gmma.waited
        } else if v.sb == NO_SB {
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
        let hgmma = d.op == Op::Hgmma;
        for a in &d.accesses.reads {
            let s = self.state(a.reg);
            s.read_t = t;
            s.read_cat = a.cat;
            s.read_lanes = file_lanes(a.reg, if a.guard { group } else { exec });
            if !hgmma {
                s.plain_t = t;
            }
        }
        if hgmma {
            self.record_hgmma(d, t, exec);
            return;
        }
        for a in &d.accesses.writes {
            self.state(a.reg).plain_t = t;
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
                if d.op == Op::Atom && matches!(a.reg, Reg::P(_)) {
                    // A generic ATOM's "done" predicate: ptxas's sm_90 code branches on it
                    // in the next instruction without a scoreboard wait (the SASS alone), so
                    // it is taken as known at issue.
                    let s = self.state(a.reg);
                    s.var = None;
                    s.write_t = NEVER;
                    s.write_lanes = 0;
                    continue;
                }
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

impl Timer {
    /// An HGMMA issued at `t`: its results are outstanding writes on [`GSB`] until its group
    /// is waited for.
    fn record_hgmma(&mut self, d: &Decoded, t: i64, exec: u32) {
        // The gsb operand (bits 84..86) is 0 for `gsb0`, 7 for none.
        let release = self.gmma.issue(t, hgmma_occupancy(d), d.other == 0);
        let pipe = pipe_index(d.timing.pipe);
        for a in &d.accesses.writes {
            let lanes = file_lanes(a.reg, exec);
            let s = self.state(a.reg);
            s.write_t = NEVER;
            s.write_lanes = 0;
            s.var = Some(VarWrite {
                sb: GSB,
                issue: t,
                release,
                pipe,
                lanes,
            });
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
    match sb {
        NO_SB => "none".into(),
        GSB => "gsb0".into(),
        _ => format!("SB{sb}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxc_sass::isa::decode;

    /// ptxas 13.5's sm_90a instruction `(lo, hi)` at `pc`.
    fn inst(lo: u64, hi: u64, pc: u32) -> Decoded {
        let word = (hi as u128) << 64 | lo as u128;
        Decoded::new(decode(Arch::Sm90a, word, pc as u64).expect("a valid word"), pc)
    }

    /// `HGMMA.64x64x16.F32 R24, gdesc[UR8], RZ, !UPT` (open group) and the same with `gsb0`.
    fn hgmma(commit: bool) -> Decoded {
        if commit {
            inst(0x00e0_0000_0418_79f0, 0x000f_e200_0c00_08ff, 0x10)
        } else {
            inst(0x00e0_0000_0818_79f0, 0x000f_e200_0c70_08ff, 0x10)
        }
    }

    #[test]
    fn warpgroup_depbar_waits_for_the_committed_hgmmas() {
        let arrive = inst(0x0000_0000_0000_79c5, 0x000f_e200_0000_0000, 0);
        let depbar = inst(0x0000_8000_0000_79c5, 0x000f_c800_0001_0000, 0x30);
        // F2FP.F16.F32.PACK_AB R24, R26, R24: reads two accumulators.
        let reader = inst(0x0000_0018_1a18_723e, 0x000f_e200_0000_00ff, 0x40);
        let mut t = Timer::new(Arch::Sm90a);
        assert!(t.issue(0, &arrive, 0, u32::MAX, u32::MAX).is_empty());
        // Two HGMMA.64x64x16 of one commit group: 32 cycles of tensor-core work each, one
        // after the other, then the pipeline: the group completes at 1 + 32 + 32 + 14.
        assert!(t.issue(1, &hgmma(false), 0, u32::MAX, u32::MAX).is_empty());
        assert!(t.issue(2, &hgmma(true), 0, u32::MAX, u32::MAX).is_empty());
        assert_eq!(t.ready(&depbar, 3), 1 + 32 + 32 + HGMMA_PIPELINE);
        // A read before the wait is a hazard and sees the old value.
        let early = t.clone().issue(5, &reader, 0, u32::MAX, u32::MAX);
        assert_eq!(early[0].kind, HazardKind::ReadUnwaited { sb: GSB });
        assert!(early[0].sees_old_value);
        t.issue(79, &depbar, 0, u32::MAX, u32::MAX);
        assert!(t.issue(80, &reader, 0, u32::MAX, u32::MAX).is_empty());
    }

    #[test]
    fn an_hgmma_after_other_accesses_needs_a_fence() {
        let reader = inst(0x0000_0018_1a18_723e, 0x000f_e200_0000_00ff, 0x40);
        let mut t = Timer::new(Arch::Sm90a);
        t.issue(0, &reader, 0, u32::MAX, u32::MAX);
        let hazards = t.issue(20, &hgmma(true), 0, u32::MAX, u32::MAX);
        assert!(hazards.iter().all(|h| h.kind == HazardKind::NotFenced));
        assert_eq!(hazards.len(), 2, "R24 and R26: {hazards:?}");
    }
}
