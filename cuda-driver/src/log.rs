//! Messages on stderr. `PTXC_CUDA_LOG` sets how many: `0` none, unset or `1` warnings
//! (hazards, kernel faults, compile errors, entry points the library does not support),
//! `2` also every module load and launch with its statistics.

use std::sync::OnceLock;

/// The level from `PTXC_CUDA_LOG` (default 1).
pub fn level() -> u8 {
    static LEVEL: OnceLock<u8> = OnceLock::new();
    *LEVEL.get_or_init(|| {
        std::env::var("PTXC_CUDA_LOG")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(1)
    })
}

/// Prints a warning (level 1 and above).
pub fn warn(msg: impl std::fmt::Display) {
    if level() >= 1 {
        eprintln!("ptxc libcuda: {msg}");
    }
}

/// Prints an informational line (level 2 and above).
pub fn info(msg: impl std::fmt::Display) {
    if level() >= 2 {
        eprintln!("ptxc libcuda: {msg}");
    }
}
