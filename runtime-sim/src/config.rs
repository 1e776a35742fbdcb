//! Device configurations: the SM count and the per-SM limits that decide occupancy, per
//! architecture. The Ampere and Ada models take their limits from the CUDA C++ Programming
//! Guide's table of compute capabilities (8.0, 8.6, 8.9) and their SM counts, L2 sizes and
//! FP64 rates from NVIDIA's product whitepapers (A100: "NVIDIA A100 Tensor Core GPU
//! Architecture"; RTX 3090: "NVIDIA Ampere GA102 GPU Architecture"; RTX 4090 and L4: "NVIDIA
//! Ada GPU Architecture"); the Hopper model (H100 SXM) likewise from compute capability 9.0
//! and "NVIDIA H100 Tensor Core GPU Architecture".

use ptxc_sass::isa::Arch;

/// A simulated GPU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Name shown in reports.
    pub name: &'static str,
    /// The architecture the device runs (cubins for another one are refused).
    pub arch: Arch,
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
    /// Cycles one warp instruction occupies a sub-partition's FP64 pipe (32 lanes over the
    /// FP64 units of one SMSP: 64 for 2 units per SM, 2 for A100's 64).
    pub fp64_interval: i64,
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

impl MemoryTiming {
    /// Ampere's latencies, measured on the A100 by Abdelkhalik et al., "Demystifying the
    /// Nvidia Ampere Architecture through Microbenchmarking and Instruction-level Analysis"
    /// (HPEC 2022): shared-memory load 23 cycles, L1 hit 33, L2 hit 200, global memory 290
    /// (Turing's 434 in the same study). No cycle-level measurement of GA102 or AD102 was
    /// found; their models take these too (a modelling choice, not a measurement). The cache
    /// sizes are the device's.
    pub fn ampere(l1_lines: usize, l2_lines: usize) -> MemoryTiming {
        MemoryTiming {
            shared: 23,
            l1: 33,
            l2: 200,
            dram: 290,
            l1_lines,
            l2_lines,
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

    /// A small Turing device with 4 SMs (the default for sm_75: quick to simulate).
    pub fn small() -> Config {
        Config {
            name: "small sm_75 (4 SMs)",
            arch: Arch::Sm75,
            sms: 4,
            regs_per_sm: 65536,
            shared_per_sm: 64 * 1024,
            threads_per_sm: 1024,
            ctas_per_sm: 16,
            fp64_interval: 64,
            instruction_limit: 1 << 32,
            memory: MemoryTiming::default(),
            strict_memory: false,
        }
    }

    /// A100 (SXM4, sm_80): 108 SMs, 64 warps and 32 CTAs per SM, 164 KB of shared memory
    /// per SM (of 192 KB L1), 40 MB L2, FP64 at half the FP32 rate (16 FP64 units per SMSP).
    pub fn a100() -> Config {
        Config {
            name: "A100",
            arch: Arch::Sm80,
            sms: 108,
            regs_per_sm: 65536,
            shared_per_sm: 164 * 1024,
            threads_per_sm: 2048,
            ctas_per_sm: 32,
            fp64_interval: 2,
            memory: MemoryTiming::ampere((192 - 164) * 1024 / 128, 40 * 1024 * 1024 / 128),
            ..Config::small()
        }
    }

    /// GeForce RTX 3090 (GA102, sm_86): 82 SMs, 48 warps and 16 CTAs per SM, 100 KB of
    /// shared memory per SM (of 128 KB L1), 6 MB L2, FP64 at 1/64 of the FP32 rate.
    pub fn rtx_3090() -> Config {
        Config {
            name: "RTX 3090",
            arch: Arch::Sm86,
            sms: 82,
            shared_per_sm: 100 * 1024,
            threads_per_sm: 1536,
            ctas_per_sm: 16,
            fp64_interval: 64,
            memory: MemoryTiming::ampere((128 - 100) * 1024 / 128, 6 * 1024 * 1024 / 128),
            ..Config::small()
        }
    }

    /// GeForce RTX 4090 (AD102, sm_89): 128 SMs, 48 warps and 24 CTAs per SM, 100 KB of
    /// shared memory per SM (of 128 KB L1), 72 MB L2, FP64 at 1/64 of the FP32 rate.
    pub fn rtx_4090() -> Config {
        Config {
            name: "RTX 4090",
            arch: Arch::Sm89,
            sms: 128,
            ctas_per_sm: 24,
            memory: MemoryTiming::ampere((128 - 100) * 1024 / 128, 72 * 1024 * 1024 / 128),
            ..Config::rtx_3090()
        }
    }

    /// L4 (AD104, sm_89): 58 SMs, otherwise as the RTX 4090 but with a 48 MB L2.
    pub fn l4() -> Config {
        let c = Config::rtx_4090();
        Config {
            name: "L4",
            sms: 58,
            memory: MemoryTiming {
                l2_lines: 48 * 1024 * 1024 / 128,
                ..c.memory
            },
            ..c
        }
    }

    /// H100 SXM5 (GH100, sm_90): 132 SMs, 64 warps and 32 CTAs per SM, 228 KB of shared
    /// memory per SM (of 256 KB L1), 50 MB L2, FP64 at half the FP32 rate (64 FP64 units per
    /// SM, as A100's 2 cycles per warp instruction on an SMSP). Limits from the CUDA C++
    /// Programming Guide (compute capability 9.0), SM count, caches and FP64 units from
    /// "NVIDIA H100 Tensor Core GPU Architecture". No cycle-level measurement of its memory
    /// latencies is used: the model takes Ampere's (a modelling choice, not a measurement).
    pub fn h100() -> Config {
        Config {
            name: "H100 SXM",
            arch: Arch::Sm90,
            sms: 132,
            shared_per_sm: 228 * 1024,
            memory: MemoryTiming::ampere((256 - 228) * 1024 / 128, 50 * 1024 * 1024 / 128),
            ..Config::a100()
        }
    }

    /// Looks a configuration up by name (see [`DEVICES`]).
    pub fn by_name(name: &str) -> Option<Config> {
        let name = name.to_ascii_lowercase();
        DEVICES
            .iter()
            .find(|d| d.names.contains(&name.as_str()))
            .map(|d| (d.make)())
    }

    /// Whether the device runs cubins for `arch`: its own architecture, and on Hopper also
    /// the architecture-specific sm_90a (an H100 runs both; `Arch::from_sm`).
    pub fn runs(&self, arch: Arch) -> bool {
        self.arch == arch || self.arch == Arch::Sm90 && arch == Arch::Sm90a
    }

    /// The device a cubin for `arch` runs on when none is named (the first listed for it).
    pub fn for_arch(arch: Arch) -> Option<Config> {
        DEVICES.iter().map(|d| (d.make)()).find(|c| c.runs(arch))
    }

    /// The names of the devices that run `arch` (`a100`), or of all devices.
    pub fn device_names(arch: Option<Arch>) -> String {
        DEVICES
            .iter()
            .filter(|d| arch.is_none_or(|a| (d.make)().runs(a)))
            .map(|d| format!("{} ({})", d.names[0], (d.make)().arch.name()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A device model that `--device` can name.
pub struct DeviceModel {
    /// Accepted names, lower case; the first is the one listed.
    pub names: &'static [&'static str],
    /// Its configuration.
    pub make: fn() -> Config,
}

/// The device models; the first of each architecture is its default.
pub const DEVICES: &[DeviceModel] = &[
    DeviceModel {
        names: &["small", "default"],
        make: Config::small,
    },
    DeviceModel {
        names: &["t4"],
        make: Config::t4,
    },
    DeviceModel {
        names: &["2080ti", "rtx2080ti", "rtx-2080-ti"],
        make: Config::rtx_2080_ti,
    },
    DeviceModel {
        names: &["a100"],
        make: Config::a100,
    },
    DeviceModel {
        names: &["3090", "rtx3090", "rtx-3090"],
        make: Config::rtx_3090,
    },
    DeviceModel {
        names: &["4090", "rtx4090", "rtx-4090"],
        make: Config::rtx_4090,
    },
    DeviceModel {
        names: &["l4"],
        make: Config::l4,
    },
    DeviceModel {
        names: &["h100", "h100-sxm"],
        make: Config::h100,
    },
];

impl Default for Config {
    fn default() -> Self {
        Config::small()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_modelled_architecture_has_a_default_device() {
        for arch in [Arch::Sm75, Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90] {
            assert_eq!(Config::for_arch(arch).map(|c| c.arch), Some(arch));
        }
        assert_eq!(Config::for_arch(Arch::Sm90a).map(|c| c.name), Some("H100 SXM"));
        assert!(Config::device_names(Some(Arch::Sm90a)).contains("h100 (sm_90)"));
        assert_eq!(Config::by_name("H100").map(|c| c.sms), Some(132));
        assert_eq!(Config::by_name("RTX3090").map(|c| c.sms), Some(82));
        assert!(Config::device_names(Some(Arch::Sm89)).contains("l4 (sm_89)"));
    }
}
