//! Device configurations: the SM count and the per-SM limits that decide occupancy.

/// A simulated GPU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Name shown in reports.
    pub name: &'static str,
    /// Number of SMs.
    pub sms: u32,
    /// Registers per SM.
    pub regs_per_sm: u32,
    /// Shared memory per SM in bytes.
    pub shared_per_sm: u32,
    /// Maximum resident threads per SM.
    pub threads_per_sm: u32,
    /// Maximum resident CTAs per SM.
    pub ctas_per_sm: u32,
    /// Upper bound on warp instructions per launch (catches infinite loops).
    pub instruction_limit: u64,
    /// Memory latencies and cache sizes of the timed engine.
    pub memory: MemoryTiming,
    /// Global accesses past the end of an allocation fault even inside its mapped granule
    /// (the hardware does not fault there; see [`crate::memory`]).
    pub strict_memory: bool,
}

/// Memory latencies (cycles) and cache sizes (128-byte lines) of the timed engine. Defaults
/// from public microbenchmarks of Turing (see `docs/TIMING-SM75.md`, section 8).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryTiming {
    /// Shared-memory load without bank conflicts.
    pub shared: u32,
    /// L1 hit.
    pub l1: u32,
    /// L2 hit.
    pub l2: u32,
    /// DRAM.
    pub dram: u32,
    /// Lines of the per-SM L1 data cache.
    pub l1_lines: usize,
    /// Lines of the device-wide L2.
    pub l2_lines: usize,
    /// Extra cycles per additional 128-byte line a warp access touches.
    pub per_line: u32,
}

impl Default for MemoryTiming {
    fn default() -> Self {
        MemoryTiming {
            shared: 23,
            l1: 32,
            l2: 200,
            dram: 400,
            l1_lines: 512,
            l2_lines: 32768,
            per_line: 2,
        }
    }
}

impl Config {
    /// Tesla T4: 40 SMs.
    pub fn t4() -> Config {
        Config {
            name: "T4",
            sms: 40,
            ..Config::small()
        }
    }

    /// GeForce RTX 2080 Ti: 68 SMs.
    pub fn rtx_2080_ti() -> Config {
        Config {
            name: "RTX 2080 Ti",
            sms: 68,
            ..Config::small()
        }
    }

    /// A small Turing device with 4 SMs (the default: quick to simulate).
    pub fn small() -> Config {
        Config {
            name: "small sm_75 (4 SMs)",
            sms: 4,
            regs_per_sm: 65536,
            shared_per_sm: 64 * 1024,
            threads_per_sm: 1024,
            ctas_per_sm: 16,
            instruction_limit: 1 << 32,
            memory: MemoryTiming::default(),
            strict_memory: false,
        }
    }

    /// Looks a configuration up by name (`t4`, `2080ti`, `small`).
    pub fn by_name(name: &str) -> Option<Config> {
        match name.to_ascii_lowercase().as_str() {
            "t4" => Some(Config::t4()),
            "2080ti" | "rtx2080ti" | "rtx-2080-ti" => Some(Config::rtx_2080_ti()),
            "small" | "default" => Some(Config::small()),
            _ => None,
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config::small()
    }
}
