//! One SM of the timed engine: resident CTAs, four sub-partitions that each issue at most
//! one instruction per cycle (warp slot w on sub-partition w % 4, greedy-then-youngest),
//! stall counts, yield, scoreboards, pipe throughput, register-bank conflicts and the reuse
//! cache, and memory latencies from the cache model.
//!
//! Every warp keeps the cycle at which its next instruction may issue (stall count, yield
//! and scoreboard waits are all known when the previous instruction issues), so a cycle
//! costs a scan of a few slots, and cycles in which nothing can issue are skipped. Why a
//! warp did not issue is accounted as [`super::accounting`] describes.
//!
//! Clusters (Hopper) are placed whole: a cluster's CTAs start together in consecutive CTA
//! slots and leave together once all have finished. A cluster larger than one SM holds is
//! run on a group of SMs simulated as one unit (`sms` SMs: their sub-partitions and slots,
//! one shared L1), a simplification of the hardware, which spreads a cluster over the SMs
//! of a GPC.

use super::accounting::{Waits, settle, waiting_cycles};
use super::banks::ReuseCache;
use super::memory::{Caches, global_latency, shared_conflict_degree};
use super::pipes::{self, PIPES};
use super::trace::Event;
use crate::config::Config;
use crate::decoded::Decoded;
use crate::error::SimError;
use crate::exec::semantics::{self, Space, address_of, space_of};
use crate::exec::{
    self, ClusterPeers, ClusterPlace, ConstBanks, CtaShared, Ctx, LaunchDims, Timer, WARP, Warp, lanes, result_latency,
    step,
};
use crate::memory::GlobalView;
use crate::module::Kernel;
use crate::stats::Stats;
use ptxc_sass::isa::Op;
use ptxc_sass::isa::desc::Pipe;

/// A cycle after every event.
const NEVER: i64 = i64::MAX;

/// A resident warp.
struct Slot {
    warp: Warp,
    timer: Timer,
    reuse: ReuseCache,
    /// Index of its CTA in `SmRun::ctas`.
    cta: usize,
    smsp: usize,
    age: u64,
    /// Trace track.
    id: u64,
    /// When the next instruction may issue (`ready_at` NEVER: blocked or finished) and
    /// the waiting not yet accounted.
    waits: Waits,
    /// Pipe of the next instruction.
    next_pipe: usize,
    /// Blocked at a barrier since this cycle.
    blocked_since: Option<i64>,
    /// Launched at this cycle.
    launched_at: i64,
}

/// A resident CTA.
struct Resident {
    cta: CtaShared,
    slots: Vec<usize>,
}

impl Resident {
    /// Index in `State::ctas` of rank 0 of its cluster (the ranks are consecutive).
    fn cluster_base(&self, ci: usize) -> usize {
        ci - self.cta.cluster.rank as usize
    }
}

/// The other CTAs of a resident cluster, by rank (see [`exec::PeerSlices`]).
struct ResidentPeers<'a> {
    before: &'a mut [Option<Resident>],
    after: &'a mut [Option<Resident>],
}

impl ClusterPeers for ResidentPeers<'_> {
    fn peer(&mut self, rank: u32) -> Option<&mut CtaShared> {
        exec::by_rank(self.before, self.after, rank)?
            .as_mut()
            .map(|x| &mut x.cta)
    }
}

/// A sub-partition's scheduler state.
#[derive(Default)]
struct Smsp {
    last: Option<usize>,
    pipe_free: [i64; PIPES],
    busy_until: i64,
    slots: Vec<usize>,
}

/// One SM's part of a launch: its CTAs, its caches, its statistics and its state, run
/// until it finishes or, when SMs communicate, one time slice at a time.
pub struct SmRun<'a> {
    /// SM index.
    pub index: u32,
    /// The kernel.
    pub kernel: &'a Kernel,
    /// Constant banks.
    pub consts: &'a ConstBanks,
    /// Device configuration.
    pub config: &'a Config,
    /// Launch dimensions.
    pub dims: &'a LaunchDims,
    /// This SM's caches.
    pub caches: Caches,
    /// Statistics.
    pub stats: Stats,
    /// Timeline, if requested.
    pub trace: Option<Vec<Event>>,
    /// Events kept at most.
    pub trace_limit: usize,
    /// Clusters (each its CTAs in rank order) still to launch, in order.
    queue: std::collections::VecDeque<Vec<[u32; 3]>>,
    /// CTAs per cluster.
    cluster_size: usize,
    /// CTA slots per SM of the unit (for `%smid`).
    per_sm: usize,
    /// Resident CTAs and warps.
    st: State,
    /// The current cycle.
    t: i64,
    /// All CTAs have finished (at cycle `t`).
    done: bool,
}

/// The SM's dynamic state.
struct State {
    slots: Vec<Option<Slot>>,
    ctas: Vec<Option<Resident>>,
    smsps: Vec<Smsp>,
    launched: u64,
}

impl<'a> SmRun<'a> {
    /// A unit of `sms` SMs that will run `clusters` (in order) with at most `max_resident`
    /// CTAs per SM at once.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        index: u32,
        kernel: &'a Kernel,
        consts: &'a ConstBanks,
        config: &'a Config,
        dims: &'a LaunchDims,
        clusters: Vec<Vec<[u32; 3]>>,
        (max_resident, sms): (usize, usize),
        trace: Option<(Vec<Event>, usize)>,
    ) -> SmRun<'a> {
        let warps_per_cta = dims.block.iter().product::<u32>().div_ceil(WARP as u32) as usize;
        let cluster_size = dims.cluster_size() as usize;
        // Whole clusters only: the CTA slots the unit's clusters fill.
        let cta_slots = (max_resident * sms) / cluster_size * cluster_size;
        let (trace, trace_limit) = match trace {
            Some((v, limit)) => (Some(v), limit),
            None => (None, 0),
        };
        SmRun {
            index,
            kernel,
            consts,
            config,
            dims,
            caches: Caches::new(&config.memory, config.sms),
            stats: Stats::default(),
            trace,
            trace_limit,
            queue: clusters.into(),
            cluster_size,
            per_sm: max_resident,
            st: State {
                slots: (0..cta_slots * warps_per_cta).map(|_| None).collect(),
                ctas: (0..cta_slots).map(|_| None).collect(),
                smsps: (0..4 * sms).map(|_| Smsp::default()).collect(),
                launched: 0,
            },
            t: 0,
            done: false,
        }
    }

    /// True once every CTA has finished.
    pub fn done(&self) -> bool {
        self.done
    }

    /// The cycle the SM finished (or has reached).
    pub fn t_finished(&self) -> i64 {
        self.t
    }

    /// Runs until every CTA has finished or the cycle reaches `until`.
    pub fn run_until(&mut self, global: &mut GlobalView, until: i64) -> Result<(), SimError> {
        let mut st = std::mem::replace(
            &mut self.st,
            State {
                slots: Vec::new(),
                ctas: Vec::new(),
                smsps: Vec::new(),
                launched: 0,
            },
        );
        let r = self.cycles(&mut st, global, until);
        self.st = st;
        r
    }

    fn cycles(&mut self, st: &mut State, global: &mut GlobalView, until: i64) -> Result<(), SimError> {
        while !self.done && self.t < until {
            let t = self.t;
            // Fill free CTA slots with whole clusters.
            while let Some(base) = self.free_cluster_slots(st) {
                let Some(cluster) = self.queue.pop_front() else { break };
                let size = cluster.len() as u32;
                for (rank, ctaid) in cluster.into_iter().enumerate() {
                    let place = ClusterPlace {
                        rank: rank as u32,
                        size,
                    };
                    self.launch_cta(st, base + rank, ctaid, place, t);
                }
            }
            if st.ctas.iter().all(Option::is_none) {
                self.done = true;
                return Ok(());
            }
            // Asynchronous arrivals whose copies have landed by now.
            for r in st.ctas.iter_mut().flatten() {
                semantics::apply_arrivals(&mut r.cta, t);
            }
            let mut issued = false;
            for sp in 0..st.smsps.len() {
                if let Some(slot) = self.pick(st, sp, t) {
                    self.issue(st, global, slot, t)?;
                    issued = true;
                }
            }
            if issued {
                self.t = t + 1;
                continue;
            }
            match self.next_event(st, t) {
                Some(n) => {
                    let n = n.min(until.max(t + 1));
                    self.count_waits(st, t, n);
                    self.t = n;
                }
                None => {
                    let r = st.ctas.iter().flatten().next().expect("a resident CTA");
                    let warps = r.slots.iter().filter_map(|&i| st.slots[i].as_ref().map(|s| &s.warp));
                    return Err(exec::deadlock(self.kernel, &r.cta, warps));
                }
            }
        }
        Ok(())
    }

    /// The first CTA slot of a run of free ones a cluster can take.
    fn free_cluster_slots(&self, st: &State) -> Option<usize> {
        (0..st.ctas.len())
            .step_by(self.cluster_size)
            .find(|&b| st.ctas[b..b + self.cluster_size].iter().all(Option::is_none))
    }

    fn launch_cta(&mut self, st: &mut State, free: usize, ctaid: [u32; 3], place: ClusterPlace, t: i64) {
        let sms = st.smsps.len() / 4;
        let sm = self.index * sms as u32 + (free / self.per_sm.max(1)) as u32;
        let (cta, warps) = exec::new_cta(self.kernel, self.dims, ctaid, sm, place);
        self.stats.ctas += 1;
        self.stats.warps += warps.len() as u64;
        let linear =
            (ctaid[2] as u64 * self.dims.grid[1] as u64 + ctaid[1] as u64) * self.dims.grid[0] as u64 + ctaid[0] as u64;
        let mut slots = Vec::with_capacity(warps.len());
        for warp in warps {
            let Some(i) = st.slots.iter().position(Option::is_none) else {
                break;
            };
            st.launched += 1;
            let smsp = i % st.smsps.len();
            let mut s = Slot {
                id: linear * 64 + warp.index as u64,
                warp,
                timer: Timer::new(self.kernel.arch),
                reuse: ReuseCache::default(),
                cta: free,
                smsp,
                age: st.launched,
                waits: Waits {
                    since: t,
                    stall_until: t,
                    yield_until: t,
                    ready_at: t,
                },
                next_pipe: 0,
                blocked_since: None,
                launched_at: t,
            };
            self.refresh(&mut s, t);
            st.slots[i] = Some(s);
            st.smsps[smsp].slots.push(i);
            slots.push(i);
        }
        st.ctas[free] = Some(Resident { cta, slots });
    }

    /// Recomputes when slot `s` can issue its next instruction (from cycle `t` on). The
    /// waiting before `t` is accounted first, for the instruction it was for.
    fn refresh(&mut self, s: &mut Slot, t: i64) {
        let Some(pc) = s.warp.peek_pc() else {
            if s.warp.alive != 0 && s.blocked_since.is_none() {
                settle(&mut self.stats.stalls, &mut s.waits, t);
                s.blocked_since = Some(t);
            }
            s.waits.ready_at = NEVER;
            return;
        };
        let w = &mut s.waits;
        if let Some(b) = s.blocked_since.take() {
            // Back from a barrier: the wait counts as barrier time.
            let from = b.max(w.since);
            self.stats.stalls.barrier += (t - from).max(0) as u64;
            w.since = w.since.max(t);
        } else {
            settle(&mut self.stats.stalls, w, t);
        }
        let Some(d) = self.kernel.insts.get(pc as usize / 16) else {
            // Running off the end faults when it issues.
            w.ready_at = t.max(w.stall_until);
            return;
        };
        let earliest = t.max(w.stall_until).max(w.yield_until);
        w.ready_at = s.timer.ready(d, earliest);
        s.next_pipe = pipes::index(d.timing.pipe);
    }

    /// Greedy-then-youngest among the slots of sub-partition `sp` that can issue at `t`;
    /// ready slots that are held back count a cycle of their reason.
    fn pick(&mut self, st: &mut State, sp: usize, t: i64) -> Option<usize> {
        let smsp = &st.smsps[sp];
        let can = |s: &Slot| s.waits.ready_at <= t && smsp.pipe_free[s.next_pipe] <= t && smsp.busy_until <= t;
        let mut choice = smsp
            .last
            .filter(|&i| st.slots[i].as_ref().is_some_and(|s| s.smsp == sp && can(s)));
        if choice.is_none() {
            let mut best: Option<(usize, u64)> = None;
            for &i in &smsp.slots {
                if let Some(s) = st.slots[i].as_ref()
                    && can(s)
                    && best.is_none_or(|(_, age)| s.age > age)
                {
                    best = Some((i, s.age));
                }
            }
            choice = best.map(|(i, _)| i);
        }
        let stalls = &mut self.stats.stalls;
        for &i in &smsp.slots {
            if Some(i) == choice {
                continue;
            }
            if let Some(s) = st.slots[i].as_ref()
                && s.waits.ready_at <= t
            {
                if smsp.busy_until > t {
                    stalls.bank_conflict += 1;
                } else if smsp.pipe_free[s.next_pipe] > t {
                    stalls.pipe_busy += 1;
                } else {
                    stalls.not_selected += 1;
                }
            }
        }
        choice
    }

    /// The next cycle after `t` at which some slot can issue, or `None` if none ever can.
    fn next_event(&self, st: &State, t: i64) -> Option<i64> {
        let mut next = NEVER;
        for smsp in &st.smsps {
            for &i in &smsp.slots {
                if let Some(s) = st.slots[i].as_ref()
                    && s.waits.ready_at != NEVER
                {
                    let at = s.waits.ready_at.max(smsp.pipe_free[s.next_pipe]).max(smsp.busy_until);
                    next = next.min(at.max(t + 1));
                }
            }
        }
        (next != NEVER).then_some(next)
    }

    /// Accounts the skipped cycles `t+1 .. n` in which ready slots waited for a pipe or a
    /// bank (no slot could issue before `n`).
    fn count_waits(&mut self, st: &State, t: i64, n: i64) {
        for smsp in &st.smsps {
            for &i in &smsp.slots {
                if let Some(s) = st.slots[i].as_ref()
                    && s.waits.ready_at < n
                {
                    waiting_cycles(&mut self.stats.stalls, s.waits.ready_at.max(t + 1), n, smsp.busy_until);
                }
            }
        }
    }

    /// Issues the next instruction of slot `i` at cycle `t`.
    fn issue(&mut self, st: &mut State, global: &mut GlobalView, i: usize, t: i64) -> Result<(), SimError> {
        let kernel = self.kernel;
        let mut s = st.slots[i].take().expect("picked slot exists");
        let ci = s.cta;
        let result = self.issue_slot(st, global, &mut s, ci, t);
        let sp = s.smsp;
        if result.is_ok() && s.warp.alive == 0 {
            self.stats.warp_cycles += (t + 1 - s.launched_at) as u64;
        }
        st.slots[i] = Some(s);
        st.smsps[sp].last = Some(i);
        let op = result?;
        if matches!(op, Op::Bar | Op::Exit) {
            // A barrier may have completed: every warp of the CTA may move on.
            let r = st.ctas[ci].as_mut().expect("resident CTA");
            let mut warps: Vec<&mut Warp> = st
                .slots
                .iter_mut()
                .flatten()
                .filter(|o| o.cta == ci)
                .map(|o| &mut o.warp)
                .collect();
            if semantics::release_barriers(&mut r.cta, &mut warps, kernel) {
                for o in st.slots.iter_mut().flatten().filter(|o| o.cta == ci) {
                    self.refresh(o, t + 1);
                }
            }
        }
        let base = st.ctas[ci].as_ref().expect("resident CTA").cluster_base(ci);
        let cluster = base..base + self.cluster_size;
        if matches!(op, Op::UcgabarArv | Op::Exit) {
            self.complete_cluster_phase(st, cluster.clone(), t);
        }
        if op == Op::Exit && cluster_finished(st, cluster.clone()) {
            for c in cluster {
                let Some(r) = st.ctas[c].take() else { continue };
                for j in r.slots {
                    if let Some(o) = st.slots[j].take() {
                        st.smsps[o.smsp].slots.retain(|&x| x != j);
                        if st.smsps[o.smsp].last == Some(j) {
                            st.smsps[o.smsp].last = None;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Completes the cluster barrier's phase of the cluster in CTA slots `cluster` once
    /// every live thread has arrived: its waiting warps move on.
    fn complete_cluster_phase(&mut self, st: &mut State, cluster: std::ops::Range<usize>, t: i64) {
        if !semantics::cluster::phase_complete(st.ctas[cluster.clone()].iter().flatten().map(|r| &r.cta)) {
            return;
        }
        for r in st.ctas[cluster.clone()].iter_mut().flatten() {
            semantics::cluster::end_phase_cta(&mut r.cta);
        }
        for o in st.slots.iter_mut().flatten().filter(|o| cluster.contains(&o.cta)) {
            semantics::cluster::end_phase_warp(&mut o.warp);
            self.refresh(o, t + 1);
        }
    }

    /// Issues for one slot; returns the operation it issued.
    fn issue_slot(
        &mut self,
        st: &mut State,
        global: &mut GlobalView,
        s: &mut Slot,
        ci: usize,
        t: i64,
    ) -> Result<Op, SimError> {
        let kernel = self.kernel;
        let (below, above) = st.ctas.split_at_mut(ci);
        let (me, above) = above.split_first_mut().expect("resident CTA");
        let r = me.as_mut().expect("resident CTA");
        let rank = r.cta.cluster.rank as usize;
        let mut peers = ResidentPeers {
            before: &mut below[ci - rank..],
            after: &mut above[..self.cluster_size - rank - 1],
        };
        let (pc, group) = s.warp.next_group().expect("picked warps have a group");
        let d = exec::fetch(kernel, &r.cta, &s.warp, pc, group)?;
        // The waiting since the instruction became current; this cycle is the issue.
        settle(&mut self.stats.stalls, &mut s.waits, t);
        s.waits.since = t + 1;
        let exec_mask = s.warp.pred_mask(d.guard, group);
        let latency = self.latency(d, &s.warp, exec_mask, rank as u32);
        // The pipe's occupancy follows the addresses before the instruction writes its
        // results (a load may overwrite its own address register).
        let interval = self.pipe_interval(d, &s.warp, exec_mask);
        let hazards = s.timer.issue(t, d, latency, group, exec_mask);
        if !hazards.is_empty() {
            exec::report_hazards(&mut self.stats, kernel, &r.cta, s.warp.index, d, &hazards);
        }
        let mut ctx = Ctx {
            kernel,
            consts: self.consts,
            global,
            cta: &mut r.cta,
            peers: &mut peers,
            stats: &mut self.stats,
            now: t,
            copies_landed: s.timer.copies_landed(),
            memory: &self.config.memory,
            timed: true,
        };
        step::execute(&mut ctx, &mut s.warp, d, group, &hazards)?;
        let operands = s.reuse.read(d);
        self.stats.bank_conflicts += operands.bubbles as u64;
        self.stats.reuse_hits += operands.reuse_hits as u64;
        let smsp = &mut st.smsps[s.smsp];
        smsp.busy_until = t + 1 + operands.bubbles as i64;
        let p = pipes::index(d.timing.pipe);
        smsp.pipe_free[p] = t + interval;
        s.waits.stall_until = t + d.ctrl.stall.max(1) as i64;
        s.waits.yield_until = if d.ctrl.yield_ { t + 2 } else { t + 1 };
        if let Some(trace) = self.trace.as_mut()
            && trace.len() < self.trace_limit
        {
            trace.push(Event {
                name: d.text(),
                ph: "X",
                ts: t,
                dur: d.ctrl.stall.max(1) as i64,
                pid: self.index,
                tid: s.id,
            });
        }
        if self.stats.warp_instructions > self.config.instruction_limit {
            let at = exec::location(kernel, &r.cta, &s.warp, group.trailing_zeros() as usize, pc);
            return Err(SimError::Limit {
                at,
                limit: self.config.instruction_limit,
            });
        }
        self.refresh(s, t + 1);
        Ok(d.op)
    }

    /// Cycles the instruction occupies its pipe.
    fn pipe_interval(&self, d: &Decoded, w: &Warp, exec_mask: u32) -> i64 {
        if d.timing.pipe == Pipe::Tensor {
            return pipes::tensor_interval(d.op, d.m.hmma_d == ptxc_sass::isa::values::HmmaDType::F16);
        }
        let base = match d.timing.pipe {
            Pipe::Fp64 => self.config.fp64_interval,
            p => pipes::interval(p),
        };
        if d.timing.pipe != Pipe::Lsu || d.addr.is_none() {
            return base;
        }
        let (lines, _) = self.lines_of(d, w, exec_mask);
        base.max(2 * lines as i64)
    }

    /// The distinct 128-byte lines a memory instruction touches (and its space).
    fn lines_of(&self, d: &Decoded, w: &Warp, exec_mask: u32) -> (usize, Space) {
        let Some(a) = d.src_addr.or(d.addr) else {
            return (0, Space::Global);
        };
        let mut lines = [0u64; WARP];
        let mut n = 0;
        for l in lanes(exec_mask) {
            lines[n] = address_of(w, &a, l) >> 7;
            n += 1;
        }
        let v = &mut lines[..n];
        v.sort_unstable();
        let mut distinct = 0;
        let mut prev = u64::MAX;
        for &x in v.iter() {
            if x != prev {
                distinct += 1;
                prev = x;
            }
        }
        (distinct, space_of(d))
    }

    /// Result latency of a variable-latency instruction from the memory model.
    fn latency(&mut self, d: &Decoded, w: &Warp, mask: u32, rank: u32) -> i64 {
        let m = &self.config.memory;
        // A copy's latency is that of its source (LDGSTS reads global memory).
        let Some(a) = d.src_addr.or(d.addr) else {
            return match d.op {
                Op::Ldc | Op::Uldc => m.l1 as i64,
                _ => result_latency(d),
            };
        };
        if d.timing.pipe != Pipe::Lsu {
            return result_latency(d);
        }
        let mut addrs = [0u64; WARP];
        let mut n = 0;
        for l in lanes(mask) {
            addrs[n] = address_of(w, &a, l);
            n += 1;
        }
        let addrs = &addrs[..n];
        let space = match space_of(d) {
            Space::Generic => match addrs.first() {
                // Another CTA's shared memory (distributed shared memory) goes over the
                // SM-to-SM network: modelled as an L2 hit (a modelling choice; NVIDIA's
                // Hopper tuning guide asks for global-memory access patterns there).
                Some(&x)
                    if exec::split_shared(x.wrapping_sub(exec::SHARED_WINDOW)).0 != rank
                        && (exec::SHARED_WINDOW..exec::SHARED_WINDOW + (1 << 32)).contains(&x) =>
                {
                    return m.l2 as i64;
                }
                Some(&x) if (exec::SHARED_WINDOW..exec::SHARED_WINDOW + (1 << 32)).contains(&x) => Space::Shared,
                Some(&x) if (exec::LOCAL_WINDOW..exec::LOCAL_WINDOW + (1 << 32)).contains(&x) => Space::Local,
                _ => Space::Global,
            },
            s => s,
        };
        match space {
            Space::Shared => {
                let degree = shared_conflict_degree(addrs);
                self.stats.shared_bank_conflicts += degree as u64 - 1;
                m.shared as i64 + 2 * (degree as i64 - 1)
            }
            Space::Local => {
                // Local memory is interleaved per lane: a warp's word k is one line.
                let mut lines: Vec<u64> = addrs.iter().map(|x| (x & 0xffff_ffff) / 4).collect();
                lines.sort_unstable();
                lines.dedup();
                let tagged: Vec<u64> = lines
                    .iter()
                    .map(|w4| (1 << 62) | (self.index as u64) << 48 | (w.index as u64) << 40 | w4)
                    .collect();
                global_latency(m, &mut self.caches, &tagged, true, &mut self.stats)
            }
            _ => {
                let mut lines = [0u64; WARP];
                for (x, &a) in lines.iter_mut().zip(addrs) {
                    *x = a >> 7;
                }
                let lines = &mut lines[..n];
                lines.sort_unstable();
                let mut k = 0;
                for j in 0..lines.len() {
                    if j == 0 || lines[j] != lines[k - 1] {
                        lines[k] = lines[j];
                        k += 1;
                    }
                }
                let cached = !matches!(d.op, Op::Atomg | Op::AtomgCas | Op::Red);
                global_latency(m, &mut self.caches, &lines[..k], cached, &mut self.stats)
            }
        }
    }
}

/// Whether every CTA in slots `cluster` has finished (a cluster leaves as a whole).
fn cluster_finished(st: &State, cluster: std::ops::Range<usize>) -> bool {
    st.ctas[cluster].iter().flatten().all(|r| {
        r.slots
            .iter()
            .all(|&j| st.slots[j].as_ref().is_none_or(|o| o.warp.alive == 0))
    })
}
