//! What ptxas prints about a compiled module, for ptxc's output: the `-v` lines (module
//! memory, then every kernel's resources, kernels in ptxas's reverse PTX order), the
//! `-maxrregcount` notes, and the `--warn-on-spills` / `--warn-on-local-memory-usage` warnings.

use crate::pipeline::Resources;
use ptxc_sass::cubin::{self, GlobalSpace};

/// Bytes of module-scope memory, as ptxas's first `-v` line counts them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ModuleMemory {
    /// `.global` variables (`.nv.global` and `.nv.global.init`).
    pub gmem: u64,
    /// User constants (constant bank 3).
    pub cmem3: u64,
    /// Addresses of globals the code loads from constant bank 4.
    pub cmem4: u64,
}

impl ModuleMemory {
    /// Measures the module-scope memory of a cubin (`None` if it cannot be read back).
    pub fn of_cubin(bytes: &[u8]) -> Option<ModuleMemory> {
        let m = cubin::read(bytes).ok()?;
        let extent = |initialised: bool| {
            m.globals
                .iter()
                .filter(|g| g.space == GlobalSpace::Global && g.init.is_some() == initialised)
                .map(|g| g.offset + g.size)
                .max()
                .unwrap_or(0)
        };
        Some(ModuleMemory {
            gmem: extent(true) + extent(false),
            cmem3: m.const_bank3.len() as u64,
            cmem4: m.const_bank4.len() as u64,
        })
    }

    /// `ptxas info    : 104 bytes gmem, 12 bytes cmem[3], 16 bytes cmem[4]`.
    pub fn line(&self) -> String {
        let mut s = format!("{} bytes gmem", self.gmem);
        for (bytes, bank) in [(self.cmem3, 3), (self.cmem4, 4)] {
            if bytes > 0 {
                s.push_str(&format!(", {bytes} bytes cmem[{bank}]"));
            }
        }
        info(&s)
    }
}

/// A `ptxas info    : ` line.
pub fn info(text: &str) -> String {
    format!("ptxas info    : {text}\n")
}

/// The `-v` note for a kernel compiled under `-maxrregcount`.
pub fn register_limit_note(kernel: &str, limit: u32) -> String {
    info(&format!(
        "Overriding maximum register limit 255 for '{kernel}' with  {limit} of maxrregcount option"
    ))
}

/// The `--warn-on-spills` warning text for a kernel, if it spills.
pub fn spill_warning(r: &Resources) -> Option<String> {
    (r.spill_stores > 0 || r.spill_loads > 0).then(|| {
        format!(
            "Registers are spilled to local memory in function '{}', {} bytes spill stores, {} bytes spill loads",
            r.name, r.spill_stores, r.spill_loads
        )
    })
}

/// The `--warn-on-local-memory-usage` warning text for a kernel, if it has a stack frame.
pub fn local_memory_warning(r: &Resources) -> Option<String> {
    (r.stack_frame > 0).then(|| {
        format!(
            "Local memory used for function '{}', size of stack frame: {} bytes",
            r.name, r.stack_frame
        )
    })
}

/// Every kernel's `-v` lines, in ptxas's order (the last kernel of the PTX first).
pub fn kernel_lines(resources: &[Resources]) -> String {
    resources.iter().rev().map(|r| r.report("ptxas")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_line_names_only_used_banks() {
        let m = ModuleMemory {
            gmem: 104,
            cmem3: 12,
            cmem4: 16,
        };
        assert_eq!(
            m.line(),
            "ptxas info    : 104 bytes gmem, 12 bytes cmem[3], 16 bytes cmem[4]\n"
        );
        assert_eq!(ModuleMemory::default().line(), "ptxas info    : 0 bytes gmem\n");
    }

    #[test]
    fn spill_warning_only_for_spills() {
        let mut r = Resources {
            name: "k".into(),
            ..Resources::default()
        };
        assert_eq!(spill_warning(&r), None);
        r.spill_stores = 8;
        r.spill_loads = 4;
        assert_eq!(
            spill_warning(&r).unwrap(),
            "Registers are spilled to local memory in function 'k', 8 bytes spill stores, 4 bytes spill loads"
        );
    }
}
