//! The memory latency model of the timed engine: a per-SM L1 and a per-SM slice of the L2
//! (set-associative, LRU, 128-byte lines; the L2 is sliced so that SMs can be simulated in
//! parallel with deterministic results), a DRAM latency behind them, and shared memory with
//! 32 banks of 4 bytes. Values come from the functional model; only timing is modelled here.

use crate::config::MemoryTiming;
use crate::stats::Stats;

/// Ways per set.
const WAYS: usize = 8;

/// A set-associative LRU cache of line addresses.
#[derive(Clone, Debug)]
pub struct LineCache {
    sets: usize,
    tags: Vec<u64>,
    stamps: Vec<u64>,
    clock: u64,
}

impl LineCache {
    /// A cache of (about) `capacity` lines.
    pub fn new(capacity: usize) -> LineCache {
        let sets = (capacity / WAYS).max(1).next_power_of_two();
        LineCache {
            sets,
            tags: vec![u64::MAX; sets * WAYS],
            stamps: vec![0; sets * WAYS],
            clock: 0,
        }
    }

    /// Touches `line`; returns whether it was present.
    pub fn access(&mut self, line: u64) -> bool {
        self.clock += 1;
        let set = (line ^ (line >> 13)) as usize & (self.sets - 1);
        let base = set * WAYS;
        let ways = base..base + WAYS;
        if let Some(i) = ways.clone().find(|&i| self.tags[i] == line) {
            self.stamps[i] = self.clock;
            return true;
        }
        let victim = ways.min_by_key(|&i| self.stamps[i]).unwrap_or(base);
        self.tags[victim] = line;
        self.stamps[victim] = self.clock;
        false
    }
}

/// The caches one SM sees.
#[derive(Clone, Debug)]
pub struct Caches {
    /// Per-SM L1.
    pub l1: LineCache,
    /// This SM's slice of the L2.
    pub l2: LineCache,
}

impl Caches {
    /// Caches for one of `sms` SMs.
    pub fn new(t: &MemoryTiming, sms: u32) -> Caches {
        Caches {
            l1: LineCache::new(t.l1_lines),
            l2: LineCache::new(t.l2_lines / sms.max(1) as usize),
        }
    }
}

/// Latency of a global-memory access by a warp touching the 128-byte `lines` (sorted,
/// deduplicated); `cached` accesses go through L1.
pub fn global_latency(t: &MemoryTiming, c: &mut Caches, lines: &[u64], cached: bool, stats: &mut Stats) -> i64 {
    let mut worst = 0;
    for &line in lines {
        let lat = if cached && c.l1.access(line) {
            stats.l1_hits += 1;
            t.l1
        } else if c.l2.access(line) {
            stats.l2_hits += 1;
            t.l2
        } else {
            stats.dram_accesses += 1;
            t.dram
        };
        worst = worst.max(lat);
    }
    worst as i64 + t.per_line as i64 * lines.len().saturating_sub(1) as i64
}

/// Shared-memory bank conflict degree: the largest number of distinct 4-byte words that the
/// lanes' byte addresses put in one of the 32 banks (1 = no conflict).
pub fn shared_conflict_degree(addrs: &[u64]) -> u32 {
    let mut words: [u64; 32] = [u64::MAX; 32];
    let n = addrs.len().min(32);
    for (w, a) in words.iter_mut().zip(addrs) {
        *w = a / 4;
    }
    let words = &mut words[..n];
    words.sort_unstable();
    let mut per_bank = [0u32; 32];
    let mut prev = u64::MAX;
    for &w in words.iter() {
        if w != prev {
            per_bank[(w % 32) as usize] += 1;
            prev = w;
        }
    }
    per_bank.into_iter().max().unwrap_or(1).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_cache_and_bank_conflicts() {
        let mut c = LineCache::new(8);
        for i in 0..8 {
            assert!(!c.access(i * 2));
        }
        for i in 0..8 {
            assert!(c.access(i * 2), "line {i} stays");
        }
        assert!(!c.access(100));
        assert!(!c.access(0), "the least recently used line was evicted");
        let same_bank: Vec<u64> = (0..32).map(|i| i * 128).collect();
        assert_eq!(shared_conflict_degree(&same_bank), 32);
        let linear: Vec<u64> = (0..32).map(|i| i * 4).collect();
        assert_eq!(shared_conflict_degree(&linear), 1);
        let broadcast = vec![8u64; 32];
        assert_eq!(shared_conflict_degree(&broadcast), 1);
    }
}
