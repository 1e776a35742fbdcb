//! One SM of the timed engine: resident CTAs, four sub-partitions that each issue at most
//! one instruction per cycle (warp w on sub-partition w % 4, greedy-then-youngest), stall
//! counts, yield, scoreboards, pipe throughput, register-bank conflicts, and results that
//! reach the register file only after their latency (an early reader sees the old value).

use super::banks::ReuseCache;
use super::memory::{LineCache, global_latency, shared_conflict_degree};
use super::pipes::{self, PIPES};
use super::trace::{Event, Trace};
use crate::config::Config;
use crate::decoded::Decoded;
use crate::error::SimError;
use crate::exec::{self, ConstBanks, CtaShared, Ctx, LaunchDims, Timer, WARP, Warp, lanes};
use crate::memory::GlobalMemory;
use crate::module::Kernel;
use crate::stats::{Hazard, Stats};
use ptxc_backend::isa::access::Reg;
use ptxc_backend::isa::timing::{LatCat, pred_raw, raw};
use ptxc_backend::isa::{Op, RZ};

/// Every reader category, to find the earliest cycle any reader may legally see a result.
const READERS: [LatCat; 9] = [
    LatCat::Disp,
    LatCat::Alu,
    LatCat::Fma,
    LatCat::ImadWideAB,
    LatCat::ImadWideLower,
    LatCat::ImadWideUpper,
    LatCat::Fp64,
    LatCat::Fp16,
    LatCat::Decoupled,
];

/// A result on its way to the register file.
#[derive(Clone, Debug)]
struct Pending {
    at: i64,
    reg: Reg,
    mask: u32,
    values: [u32; WARP],
}

/// A resident warp.
struct Slot {
    warp: Warp,
    timer: Timer,
    reuse: ReuseCache,
    pending: Vec<Pending>,
    smsp: usize,
    age: u64,
    no_issue_until: i64,
    id: u64,
}

/// A resident CTA.
struct Resident {
    cta: CtaShared,
    slots: Vec<Slot>,
}

/// A sub-partition's scheduler state.
#[derive(Default)]
struct Smsp {
    last: Option<(usize, usize)>,
    pipe_free: [i64; PIPES],
    busy_until: i64,
}

/// Everything one SM needs for a launch.
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
    /// Global memory.
    pub global: &'a mut GlobalMemory,
    /// The device's L2.
    pub l2: &'a mut LineCache,
    /// Statistics.
    pub stats: &'a mut Stats,
    /// Timeline, if requested.
    pub trace: Option<&'a mut Trace>,
}

/// Why a warp did not issue this cycle.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wait {
    Barrier,
    Yield,
    StallCount,
    Scoreboard,
    Pipe,
    Bank,
    Ready,
}

impl SmRun<'_> {
    /// Runs the CTAs `ctas` (in order) with at most `max_resident` at once; returns the
    /// cycle the SM finished.
    pub fn run(&mut self, ctas: &[[u32; 3]], max_resident: usize) -> Result<i64, SimError> {
        let mut queue = ctas.iter();
        let mut residents: Vec<Resident> = Vec::new();
        let mut smsps: [Smsp; 4] = Default::default();
        let mut l1 = LineCache::new(self.config.memory.l1_lines);
        let mut launched = 0u64;
        let mut t: i64 = 0;
        loop {
            residents.retain(|r| r.slots.iter().any(|s| s.warp.alive != 0));
            while residents.len() < max_resident {
                let Some(&ctaid) = queue.next() else { break };
                residents.push(self.launch_cta(ctaid, &mut launched));
            }
            if residents.is_empty() {
                return Ok(t);
            }
            for r in residents.iter_mut() {
                for s in r.slots.iter_mut() {
                    commit(s, t);
                }
            }
            let mut issued = false;
            for (sp, smsp) in smsps.iter_mut().enumerate() {
                let Some((ci, wi)) = self.pick(&residents, smsp, sp, t) else {
                    continue;
                };
                self.issue(&mut residents[ci], wi, smsp, &mut l1, t)?;
                smsp.last = Some((ci, wi));
                issued = true;
            }
            self.count_stalls(&residents, &smsps, t, 1);
            if issued {
                t += 1;
                continue;
            }
            let next = self.next_event(&residents, &smsps, t);
            match next {
                Some(n) => {
                    if n > t + 1 {
                        self.count_stalls(&residents, &smsps, t, (n - t - 1) as u64);
                    }
                    t = n.max(t + 1);
                }
                None => {
                    let r = residents
                        .iter()
                        .find(|r| r.slots.iter().any(|s| s.warp.alive != 0))
                        .expect("resident CTA");
                    return Err(exec::deadlock(self.kernel, &r.cta, r.slots.iter().map(|s| &s.warp)));
                }
            }
        }
    }

    fn launch_cta(&mut self, ctaid: [u32; 3], launched: &mut u64) -> Resident {
        let (cta, warps) = exec::new_cta(self.kernel, self.dims, ctaid);
        self.stats.ctas += 1;
        self.stats.warps += warps.len() as u64;
        let slots = warps
            .into_iter()
            .map(|warp| {
                *launched += 1;
                let linear = ((ctaid[2] as u64 * self.dims.grid[1] as u64 + ctaid[1] as u64)
                    * self.dims.grid[0] as u64
                    + ctaid[0] as u64)
                    * 64
                    + warp.index as u64;
                Slot {
                    warp,
                    timer: Timer::default(),
                    reuse: ReuseCache::default(),
                    pending: Vec::new(),
                    smsp: (*launched as usize - 1) % 4,
                    age: *launched,
                    no_issue_until: 0,
                    id: linear,
                }
            })
            .collect();
        Resident { cta, slots }
    }

    /// Why warp `s` cannot issue at `t` (or `Ready`).
    fn wait_reason(&self, s: &Slot, smsp: &Smsp, t: i64) -> Option<Wait> {
        let (pc, _) = s.warp.next_group().or_else(|| (s.warp.alive != 0).then_some((0, 0)))?;
        if s.warp.alive & !s.warp.blocked == 0 {
            return Some(Wait::Barrier);
        }
        let d = self.kernel.insts.get(pc as usize / 16)?;
        if t < s.no_issue_until {
            return Some(Wait::Yield);
        }
        match s.timer.can_issue(d.ctrl.wait, t) {
            Err(false) => return Some(Wait::StallCount),
            Err(true) => return Some(Wait::Scoreboard),
            Ok(()) => {}
        }
        if smsp.busy_until > t {
            return Some(Wait::Bank);
        }
        if smsp.pipe_free[pipes::index(d.inst.desc().meta.pipe)] > t {
            return Some(Wait::Pipe);
        }
        Some(Wait::Ready)
    }

    /// Greedy-then-youngest: the last issuing warp if it is ready, else the youngest ready one.
    fn pick(&self, residents: &[Resident], smsp: &Smsp, sp: usize, t: i64) -> Option<(usize, usize)> {
        if let Some((ci, wi)) = smsp.last
            && let Some(s) = residents.get(ci).and_then(|r| r.slots.get(wi))
            && s.smsp == sp
            && self.wait_reason(s, smsp, t) == Some(Wait::Ready)
        {
            return Some((ci, wi));
        }
        let mut best: Option<((usize, usize), u64)> = None;
        for (ci, r) in residents.iter().enumerate() {
            for (wi, s) in r.slots.iter().enumerate() {
                if s.smsp == sp
                    && best.is_none_or(|(_, age)| s.age > age)
                    && self.wait_reason(s, smsp, t) == Some(Wait::Ready)
                {
                    best = Some(((ci, wi), s.age));
                }
            }
        }
        best.map(|(k, _)| k)
    }

    fn count_stalls(&mut self, residents: &[Resident], smsps: &[Smsp; 4], t: i64, cycles: u64) {
        for r in residents {
            for s in &r.slots {
                let reason = self.wait_reason(s, &smsps[s.smsp], t);
                let st = &mut self.stats.stalls;
                match reason {
                    Some(Wait::Barrier) => st.barrier += cycles,
                    Some(Wait::Yield) => st.yield_ += cycles,
                    Some(Wait::StallCount) => st.stall_count += cycles,
                    Some(Wait::Scoreboard) => st.scoreboard += cycles,
                    Some(Wait::Pipe) => st.pipe_busy += cycles,
                    Some(Wait::Bank) => st.bank_conflict += cycles,
                    Some(Wait::Ready) => st.not_selected += cycles,
                    None => {}
                }
            }
        }
    }

    /// The next cycle at which anything can change, or `None` if every warp waits forever.
    fn next_event(&self, residents: &[Resident], smsps: &[Smsp; 4], t: i64) -> Option<i64> {
        let mut next = i64::MAX;
        for r in residents {
            for s in &r.slots {
                next = s.pending.iter().map(|p| p.at).filter(|&a| a > t).fold(next, i64::min);
                let Some((pc, _)) = s.warp.next_group() else { continue };
                let Some(d) = self.kernel.insts.get(pc as usize / 16) else {
                    return Some(t + 1);
                };
                let smsp = &smsps[s.smsp];
                let candidates = [
                    s.timer.next_change(d.ctrl.wait, t),
                    s.no_issue_until,
                    smsp.busy_until,
                    smsp.pipe_free[pipes::index(d.inst.desc().meta.pipe)],
                ];
                let blocked_until = candidates.iter().copied().filter(|&c| c > t).min();
                next = next.min(blocked_until.unwrap_or(t + 1));
            }
        }
        (next != i64::MAX).then_some(next)
    }

    /// Issues the next instruction of warp `wi` of `r` at cycle `t`.
    fn issue(
        &mut self,
        r: &mut Resident,
        wi: usize,
        smsp: &mut Smsp,
        l1: &mut LineCache,
        t: i64,
    ) -> Result<(), SimError> {
        let kernel = self.kernel;
        let s = &mut r.slots[wi];
        let (pc, group) = s.warp.next_group().expect("picked warps have a group");
        let d = exec::fetch(kernel, &r.cta, &s.warp, pc, group)?;
        let exec_mask = s.warp.pred_mask(d.guard, group);
        let latency = self.latency(d, &s.warp, exec_mask, l1);
        let before = snapshot(&s.warp, d);
        let mut ctx = Ctx {
            kernel,
            consts: self.consts,
            global: self.global,
            cta: &mut r.cta,
            stats: self.stats,
        };
        exec::execute(&mut ctx, &mut s.warp, d, group, t)?;
        defer_results(s, d, before, t, latency, exec_mask);
        let (name, ctaid, warp_index) = (&kernel.name, r.cta.ctaid, s.warp.index);
        let stats = &mut *self.stats;
        s.timer.issue_at(t, d, latency, &mut |what| {
            stats.hazard(Hazard {
                kernel: name.clone(),
                ctaid,
                warp: warp_index,
                pc: d.pc,
                what,
            })
        });
        let operands = s.reuse.read(d);
        stats.bank_conflicts += operands.bubbles as u64;
        stats.reuse_hits += operands.reuse_hits as u64;
        smsp.busy_until = t + 1 + operands.bubbles as i64;
        let p = pipes::index(d.inst.desc().meta.pipe);
        smsp.pipe_free[p] = t + pipes::interval(d.inst.desc().meta.pipe);
        s.no_issue_until = if d.ctrl.yield_ { t + 2 } else { t + 1 };
        if let Some(trace) = self.trace.as_deref_mut() {
            let text =
                ptxc_backend::isa::text::inst_text(&d.inst, d.pc as u64, &ptxc_backend::isa::text::AddressLabels);
            trace.push(Event {
                name: text,
                ph: "X",
                ts: t,
                dur: d.ctrl.stall.max(1) as i64,
                pid: self.index,
                tid: s.id,
            });
        }
        if stats.warp_instructions > self.config.instruction_limit {
            let at = exec::location(kernel, &r.cta, &r.slots[wi].warp, group.trailing_zeros() as usize, pc);
            return Err(SimError::Limit {
                at,
                limit: self.config.instruction_limit,
            });
        }
        if matches!(d.op, Op::Bar | Op::Exit) {
            let mut warps: Vec<&mut Warp> = r.slots.iter_mut().map(|s| &mut s.warp).collect();
            exec::release_barriers(&mut r.cta, &mut warps, kernel);
        }
        Ok(())
    }

    /// Result latency of a variable-latency instruction from the memory model.
    fn latency(&mut self, d: &Decoded, w: &Warp, mask: u32, l1: &mut LineCache) -> i64 {
        let m = &self.config.memory;
        let addrs = || -> Vec<u64> {
            let Some((base, offset)) = d.addr else {
                return Vec::new();
            };
            lanes(mask)
                .map(|l| {
                    let b = if d.m.e { w.reg64(base, l) } else { w.reg(base, l) as u64 };
                    b.wrapping_add(offset as i64 as u64)
                })
                .collect()
        };
        match d.op {
            Op::Ldg | Op::Stg | Op::Atomg | Op::AtomgCas | Op::Red | Op::Ldl | Op::Stl => {
                let mut lines: Vec<u64> = addrs().iter().map(|a| a >> 7).collect();
                lines.sort_unstable();
                lines.dedup();
                let cached = d.op != Op::Atomg && d.op != Op::AtomgCas && d.op != Op::Red;
                global_latency(m, l1, self.l2, &lines, cached)
            }
            Op::Lds | Op::Sts | Op::Atoms | Op::AtomsCas => {
                let degree = shared_conflict_degree(&addrs());
                self.stats.shared_bank_conflicts += degree as u64 - 1;
                m.shared as i64 + 2 * (degree as i64 - 1)
            }
            _ => exec::result_latency(d.op, d.inst.desc().meta.pipe),
        }
    }
}

/// Values of the registers `d` writes, before it runs.
fn snapshot(w: &Warp, d: &Decoded) -> Vec<(Reg, [u32; WARP])> {
    d.accesses
        .writes
        .iter()
        .map(|a| {
            let v = match a.reg {
                Reg::R(r) => w.regs[r as usize],
                Reg::P(p) => [w.preds[p as usize & 7]; WARP],
            };
            (a.reg, v)
        })
        .collect()
}

/// Moves `d`'s results from the register file into the pending queue (restoring the old
/// values) until the first cycle any reader may legally see them.
/// `written` are the lanes that executed: their values are queued even when they equal the
/// current register (an earlier queued write to the same register may still be pending).
fn defer_results(s: &mut Slot, d: &Decoded, before: Vec<(Reg, [u32; WARP])>, t: i64, latency: i64, written: u32) {
    let cat = d.inst.desc().meta.cat;
    for (reg, old) in before {
        let (new, mask) = match reg {
            Reg::R(r) if r != RZ => {
                let new = s.warp.regs[r as usize];
                s.warp.regs[r as usize] = old;
                (new, written)
            }
            Reg::P(p) => {
                let new = s.warp.preds[p as usize & 7];
                s.warp.preds[p as usize & 7] = old[0];
                let mut values = [0; WARP];
                values[0] = new;
                (values, written)
            }
            _ => continue,
        };
        if mask == 0 {
            continue;
        }
        let at = if d.variable_latency {
            t + latency
        } else {
            let earliest = READERS.iter().map(|&r| match reg {
                Reg::R(_) => raw(cat, r),
                Reg::P(_) => pred_raw(cat, r, false),
            });
            t + earliest.min().unwrap_or(1) as i64
        };
        s.pending.push(Pending {
            at,
            reg,
            mask,
            values: new,
        });
    }
}

/// Applies the pending results due by cycle `t`, oldest first.
fn commit(s: &mut Slot, t: i64) {
    if s.pending.iter().all(|p| p.at > t) {
        return;
    }
    s.pending.sort_by_key(|p| p.at);
    let due = s.pending.iter().take_while(|p| p.at <= t).count();
    for p in s.pending.drain(..due) {
        match p.reg {
            Reg::R(r) => {
                for l in lanes(p.mask) {
                    s.warp.regs[r as usize][l] = p.values[l];
                }
            }
            Reg::P(i) => {
                let v = &mut s.warp.preds[i as usize & 7];
                *v = (*v & !p.mask) | (p.values[0] & p.mask);
            }
        }
    }
}
