//! The memory latency model of the timed engine: per-SM L1 and device-wide L2 caches of
//! 128-byte lines with LRU replacement, a DRAM latency behind them, and shared memory with
//! 32 banks of 4 bytes. Values come from the functional model; only timing is modelled here.

use crate::config::MemoryTiming;
use std::collections::{BTreeMap, HashMap};

/// An LRU set of cache lines (stamp order kept in a B-tree: O(log n) per access).
#[derive(Clone, Debug)]
pub struct LineCache {
    capacity: usize,
    stamp: u64,
    lines: HashMap<u64, u64>,
    order: BTreeMap<u64, u64>,
}

impl LineCache {
    /// A cache of `capacity` lines.
    pub fn new(capacity: usize) -> LineCache {
        LineCache {
            capacity: capacity.max(1),
            stamp: 0,
            lines: HashMap::new(),
            order: BTreeMap::new(),
        }
    }

    /// Touches `line`; returns whether it was present.
    pub fn access(&mut self, line: u64) -> bool {
        self.stamp += 1;
        let previous = self.lines.insert(line, self.stamp);
        if let Some(old) = previous {
            self.order.remove(&old);
        }
        self.order.insert(self.stamp, line);
        if previous.is_none()
            && self.lines.len() > self.capacity
            && let Some((_, victim)) = self.order.pop_first()
        {
            self.lines.remove(&victim);
        }
        previous.is_some()
    }
}

/// Latency of a global-memory access by a warp touching the 128-byte `lines` (deduplicated).
pub fn global_latency(t: &MemoryTiming, l1: &mut LineCache, l2: &mut LineCache, lines: &[u64], cached: bool) -> i64 {
    let mut worst = 0;
    for &line in lines {
        let lat = if cached && l1.access(line) {
            t.l1
        } else if l2.access(line) {
            t.l2
        } else {
            t.dram
        };
        worst = worst.max(lat);
    }
    worst as i64 + t.per_line as i64 * lines.len().saturating_sub(1) as i64
}

/// Shared-memory bank conflict degree: the largest number of distinct 4-byte words that the
/// lanes' byte addresses put in one of the 32 banks (1 = no conflict).
pub fn shared_conflict_degree(addrs: &[u64]) -> u32 {
    let mut words: Vec<u64> = addrs.iter().map(|a| a / 4).collect();
    words.sort_unstable();
    words.dedup();
    let mut per_bank = [0u32; 32];
    for w in words {
        per_bank[(w % 32) as usize] += 1;
    }
    per_bank.into_iter().max().unwrap_or(1).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_cache_and_bank_conflicts() {
        let mut c = LineCache::new(2);
        assert!(!c.access(1));
        assert!(!c.access(2));
        assert!(c.access(1));
        assert!(!c.access(3)); // evicts 2
        assert!(!c.access(2));
        let same_bank: Vec<u64> = (0..32).map(|i| i * 128).collect();
        assert_eq!(shared_conflict_degree(&same_bank), 32);
        let linear: Vec<u64> = (0..32).map(|i| i * 4).collect();
        assert_eq!(shared_conflict_degree(&linear), 1);
        let broadcast = vec![8u64; 32];
        assert_eq!(shared_conflict_degree(&broadcast), 1);
    }
}
