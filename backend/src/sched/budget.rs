//! The register budget from occupancy: the most registers per thread a kernel may use
//! without lowering the number of warps an SM can hold, given what is known at compile time
//! (the block size from `.reqntid`/`.maxntid`, the static shared memory, `.maxnreg` and
//! `--max-registers`). Pre-allocation scheduling spends registers up to this budget to hide
//! latency and turns to pressure only when the budget binds.
//!
//! The per-SM limits are those of the CUDA C++ Programming Guide's table of compute
//! capabilities (7.5, 8.0, 8.6, 8.9). Without a known block size the budget keeps every warp
//! slot of the SM usable: 64 registers on sm_75 (32 warps), 32 on sm_80 (64 warps) and 40 on
//! sm_86/sm_89 (48 warps). ptxas 13.5 caps the suite's kernels the same way (`ptxas -v`:
//! nbody_f32 uses 54 registers for sm_75, 32 for sm_80, 40 for sm_86; dgemm_small 42, 32,
//! 40), which is what this rests on.

use ptxc_sass::isa::Arch;

/// Per-SM limits that decide occupancy.
#[derive(Clone, Copy, Debug)]
struct SmLimits {
    /// Resident warps.
    warps: u32,
    /// Resident CTAs.
    ctas: u32,
    /// Shared memory in bytes (largest carve-out).
    shared: u32,
}

/// 32-bit registers per SM (every target).
const REGS_PER_SM: u32 = 65536;
/// Registers are allocated to a warp in units of this many.
const REG_UNIT: u32 = 256;
/// Shared memory is allocated to a CTA in units of this many bytes.
const SMEM_UNIT: u32 = 256;
/// Most registers a thread can address.
const MAX_REGS: u32 = 255;

fn limits(arch: Arch) -> SmLimits {
    match arch {
        Arch::Sm75 => SmLimits {
            warps: 32,
            ctas: 16,
            shared: 64 * 1024,
        },
        Arch::Sm80 => SmLimits {
            warps: 64,
            ctas: 32,
            shared: 164 * 1024,
        },
        Arch::Sm86 => SmLimits {
            warps: 48,
            ctas: 16,
            shared: 100 * 1024,
        },
        Arch::Sm89 => SmLimits {
            warps: 48,
            ctas: 24,
            shared: 100 * 1024,
        },
        Arch::Sm90 | Arch::Sm90a => SmLimits {
            warps: 64,
            ctas: 32,
            shared: 228 * 1024,
        },
    }
}

/// What the budget depends on.
#[derive(Clone, Copy, Debug, Default)]
pub struct KernelShape {
    /// Threads per block when `.reqntid` or `.maxntid` bounds them.
    pub threads: Option<u32>,
    /// Static shared memory in bytes.
    pub shared: u32,
    /// A hard register limit (`.maxnreg`, `--max-registers`).
    pub limit: Option<u32>,
}

/// CTAs of `warps` warps using `regs` registers per thread that fit on an SM by registers.
fn ctas_by_regs(regs: u32, warps: u32) -> u32 {
    let per_warp = (regs * 32).div_ceil(REG_UNIT) * REG_UNIT;
    REGS_PER_SM / (per_warp * warps).max(1)
}

/// The register budget of a kernel of `shape` on `arch`.
pub fn register_budget(arch: Arch, shape: &KernelShape) -> u32 {
    let sm = limits(arch);
    let budget = match shape.threads {
        None => {
            // Every warp slot usable, whatever the block size.
            let per_thread = REGS_PER_SM / (sm.warps * 32);
            per_thread / 8 * 8
        }
        Some(threads) => {
            let warps = threads.div_ceil(32).max(1);
            let by_smem = match shape.shared {
                0 => u32::MAX,
                s => sm.shared / (s.div_ceil(SMEM_UNIT) * SMEM_UNIT),
            };
            let target = (sm.warps / warps).min(by_smem).min(sm.ctas).max(1);
            // The largest count (in allocation steps of 8) that still fits `target` CTAs.
            (1..=MAX_REGS / 8)
                .rev()
                .map(|k| k * 8)
                .find(|&r| ctas_by_regs(r, warps) >= target)
                .unwrap_or(8)
        }
    };
    budget.min(shape.limit.unwrap_or(MAX_REGS)).min(MAX_REGS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_block_size_keeps_every_warp_slot() {
        let s = KernelShape::default();
        assert_eq!(register_budget(Arch::Sm75, &s), 64);
        assert_eq!(register_budget(Arch::Sm80, &s), 32);
        assert_eq!(register_budget(Arch::Sm86, &s), 40);
        assert_eq!(register_budget(Arch::Sm89, &s), 40);
    }

    #[test]
    fn block_size_and_shared_memory_raise_the_budget() {
        // 1024 threads: one CTA of 32 warps on sm_75, 64 registers each fill the file.
        let big = KernelShape {
            threads: Some(1024),
            ..KernelShape::default()
        };
        assert_eq!(register_budget(Arch::Sm75, &big), 64);
        // 256 threads and 40 KB of shared memory: one CTA per sm_75 SM, 255 registers fit.
        let smem = KernelShape {
            threads: Some(256),
            shared: 40 * 1024,
            limit: None,
        };
        assert_eq!(register_budget(Arch::Sm75, &smem), 248);
        // 96 threads on sm_86: 16 CTAs of 3 warps (CTA slots bind), 40 registers.
        let odd = KernelShape {
            threads: Some(96),
            ..KernelShape::default()
        };
        assert_eq!(register_budget(Arch::Sm86, &odd), 40);
    }

    #[test]
    fn a_hard_limit_caps_the_budget() {
        let s = KernelShape {
            limit: Some(24),
            ..KernelShape::default()
        };
        assert_eq!(register_budget(Arch::Sm75, &s), 24);
    }
}
