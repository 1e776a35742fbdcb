//! The scheduler's abstract state of one warp: recent fixed-latency writes and reads with
//! their issue times, and what each of the six scoreboards protects.

use ptxc_sass::isa::access::{Access, Reg};
use ptxc_sass::isa::timing::LatCat;
use smallvec::SmallVec;

/// A short list of registers (held inline: states are cloned at every block boundary).
type Regs = SmallVec<[Reg; 8]>;

/// The recent accesses of a state (a short list, held inline).
type Recent = SmallVec<[(Reg, Pending); 8]>;

/// Number of scoreboards.
pub const SCOREBOARDS: usize = 6;

/// Results older than this many cycles are complete whatever their latency.
const HORIZON: i32 = 16;

/// A recent access of a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Pending {
    /// Issue time of the access.
    pub time: i32,
    /// Latency category of the access.
    pub cat: LatCat,
    /// A read (for write-after-read) rather than a write.
    pub is_read: bool,
    /// The writer was predicated.
    pub predicated: bool,
}

/// The state at one program point.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockState {
    /// Recent fixed-latency accesses (a short list: only the last `HORIZON` cycles), kept
    /// sorted at block boundaries so equal states compare equal.
    recent: Recent,
    /// Registers whose pending write scoreboard is `k`.
    write_sb: [Regs; SCOREBOARDS],
    /// Registers read late under read scoreboard `k`.
    read_sb: [Regs; SCOREBOARDS],
    /// Issue time of the last write to each scoreboard (a waiter needs 2 cycles after it).
    sb_time: [Option<i32>; SCOREBOARDS],
    /// Round-robin cursor for allocation.
    next_sb: usize,
    /// Issue time of the last instruction.
    pub last_issue: i32,
}

impl BlockState {
    /// Merges a predecessor's exit state.
    pub fn join(&mut self, other: &BlockState) {
        self.recent = merge_sorted(&self.recent, &other.recent);
        for k in 0..SCOREBOARDS {
            merge(&mut self.write_sb[k], &other.write_sb[k]);
            merge(&mut self.read_sb[k], &other.read_sb[k]);
            self.sb_time[k] = match (self.sb_time[k], other.sb_time[k]) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            };
        }
        self.last_issue = self.last_issue.max(other.last_issue);
    }

    /// Earliest time `reg` may be read, given `latency(write)` for each pending write.
    pub fn ready_for_read(&self, reg: Reg, latency: impl Fn(&Pending) -> i32) -> i32 {
        self.recent
            .iter()
            .filter(|(r, p)| *r == reg && !p.is_read)
            .map(|(_, p)| p.time + latency(p))
            .max()
            .unwrap_or(i32::MIN)
    }

    /// Earliest time `reg` may be written, given the WAW/WAR latency of each pending access.
    pub fn ready_for_write(&self, reg: Reg, latency: impl Fn(&Pending) -> i32) -> i32 {
        self.recent
            .iter()
            .filter(|(r, _)| *r == reg)
            .map(|(_, p)| p.time + latency(p))
            .max()
            .unwrap_or(i32::MIN)
    }

    /// Earliest time by which every recent fixed-latency write is complete.
    pub fn settled(&self) -> i32 {
        self.recent
            .iter()
            .filter(|(_, p)| !p.is_read)
            .map(|(_, p)| p.time + HORIZON)
            .max()
            .unwrap_or(i32::MIN)
    }

    /// Scoreboards guarding a pending write of `reg` (as a wait mask).
    pub fn write_sbs(&self, reg: Reg) -> u8 {
        mask(&self.write_sb, reg)
    }

    /// Scoreboards guarding a pending late read of `reg`.
    pub fn read_sbs(&self, reg: Reg) -> u8 {
        mask(&self.read_sb, reg)
    }

    /// Earliest issue time of an instruction that waits on `wait`.
    pub fn sb_visible(&self, wait: u8) -> i32 {
        (0..SCOREBOARDS)
            .filter(|k| wait & (1 << k) != 0)
            .filter_map(|k| self.sb_time[k].map(|t| t + 2))
            .max()
            .unwrap_or(i32::MIN)
    }

    /// Waiting on scoreboards releases everything they protected.
    pub fn clear_sbs(&mut self, wait: u8) {
        for k in 0..SCOREBOARDS {
            if wait & (1 << k) != 0 {
                self.write_sb[k].clear();
                self.read_sb[k].clear();
                self.sb_time[k] = None;
            }
        }
    }

    /// A free scoreboard, else a shared one (shared counters stay correct): the one whose
    /// protected registers are needed last, as `need(written, read late)` counts
    /// instructions ahead, so that a wait for them does not also wait for the new
    /// instruction; ties go to the least recently set one. Never one of `reserved` (a mask).
    pub fn alloc_sb(&mut self, reserved: u8, need: impl Fn(&[Reg], &[Reg]) -> usize) -> u8 {
        let usable = |k: &usize| reserved & (1 << k) == 0;
        let free = (0..SCOREBOARDS)
            .map(|i| (self.next_sb + i) % SCOREBOARDS)
            .filter(usable)
            .find(|&k| self.write_sb[k].is_empty() && self.read_sb[k].is_empty() && self.sb_time[k].is_none());
        let k = free.unwrap_or_else(|| {
            (0..SCOREBOARDS)
                .filter(usable)
                .max_by_key(|&k| {
                    let later = need(&self.write_sb[k], &self.read_sb[k]);
                    (later, std::cmp::Reverse(self.sb_time[k].unwrap_or(i32::MIN)))
                })
                .expect("an unreserved scoreboard")
        });
        self.next_sb = (k + 1) % SCOREBOARDS;
        k as u8
    }

    /// Notes that scoreboard `sb` was set at `t` by an instruction without a register
    /// result (LDGDEPBAR): a wait on it may issue 2 cycles later.
    pub fn mark_sb(&mut self, sb: u8, t: i32) {
        self.sb_time[sb as usize] = Some(t);
    }

    /// Records writes through scoreboard `sb`.
    pub fn protect_writes(&mut self, sb: u8, writes: &[Access], t: i32) {
        for w in writes {
            self.recent.retain(|(r, _)| *r != w.reg);
            self.write_sb[sb as usize].push(w.reg);
        }
        self.sb_time[sb as usize] = Some(t);
    }

    /// Records late reads through scoreboard `sb`.
    pub fn protect_reads(&mut self, sb: u8, regs: &[Reg], t: i32) {
        self.read_sb[sb as usize].extend_from_slice(regs);
        self.sb_time[sb as usize] = Some(self.sb_time[sb as usize].map_or(t, |x| x.max(t)));
    }

    /// Records fixed-latency writes at time `t`.
    pub fn record_writes(&mut self, writes: &[Access], t: i32, predicated: bool) {
        for w in writes {
            for k in 0..SCOREBOARDS {
                self.write_sb[k].retain(|r| *r != w.reg);
            }
            if !predicated {
                self.recent.retain(|(r, _)| *r != w.reg);
            }
            self.recent.push((
                w.reg,
                Pending {
                    time: t,
                    cat: w.cat,
                    is_read: false,
                    predicated,
                },
            ));
        }
    }

    /// Records reads at time `t` (for write-after-read distances).
    pub fn record_reads(&mut self, reads: &[Access], t: i32) {
        for r in reads {
            self.recent.push((
                r.reg,
                Pending {
                    time: t,
                    cat: r.cat,
                    is_read: true,
                    predicated: false,
                },
            ));
        }
    }

    /// Notes the issue of an instruction at `t` and forgets accesses older than the horizon.
    pub fn issued(&mut self, t: i32) {
        self.last_issue = t;
        self.recent.retain(|(_, p)| p.time > t - HORIZON);
    }

    /// Makes all times relative to `end` (the next block starts at time 0).
    pub fn rebase(&mut self, end: i32) {
        for (_, p) in self.recent.iter_mut() {
            p.time = (p.time - end).max(-HORIZON);
        }
        self.recent.retain(|(_, p)| p.time > -HORIZON);
        self.recent.sort();
        self.recent.dedup();
        for t in self.sb_time.iter_mut().flatten() {
            *t = (*t - end).max(-HORIZON);
        }
        self.last_issue = (self.last_issue - end).max(-HORIZON);
        self.next_sb = 0;
    }
}

/// The sorted union of two lists of recent accesses (each sorted; duplicates kept once).
fn merge_sorted(a: &[(Reg, Pending)], b: &[(Reg, Pending)]) -> Recent {
    if b.is_empty() {
        return a.into();
    }
    let mut a = Recent::from(a);
    if !a.is_sorted() {
        a.sort();
    }
    let mut out = Recent::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let next = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x <= y => {
                i += 1;
                if x == y {
                    j += 1;
                }
                *x
            }
            (Some(x), None) => {
                i += 1;
                *x
            }
            (_, Some(y)) => {
                j += 1;
                *y
            }
            (None, None) => unreachable!("loop condition"),
        };
        if out.last() != Some(&next) {
            out.push(next);
        }
    }
    out
}

fn merge(a: &mut Regs, b: &[Reg]) {
    for r in b {
        if !a.contains(r) {
            a.push(*r);
        }
    }
    a.sort();
}

fn mask(sbs: &[Regs; SCOREBOARDS], reg: Reg) -> u8 {
    (0..SCOREBOARDS)
        .filter(|&k| sbs[k].contains(&reg))
        .fold(0, |m, k| m | 1 << k)
}
