//! Every option ptxas 13.5 lists in `--help` (plus the hidden `--regAllocOptLevel` that Triton
//! passes), with the kind of value it takes and what ptxc does with it: honour it, accept and
//! ignore it (it changes nothing in ptxc's output), or refuse it.

/// The value an option takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueKind {
    /// None: a switch.
    Flag,
    /// `true` or `false`.
    Bool,
    /// A decimal integer.
    Number,
    /// Any text (a file name, a cache modifier, ...).
    Text,
    /// A comma-separated list; every occurrence adds to it.
    List,
    /// One of these words.
    Choice(&'static [&'static str]),
    /// `archmax`, `archmin` or a register count.
    RegCount,
    /// `0`, `min`, `mid` or `max` (`--Ofast-compile`).
    FastCompile,
}

/// What ptxc does with an option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Support {
    /// It has its ptxas meaning.
    Supported,
    /// Accepted and checked like ptxas checks it, then ignored: it would not change ptxc's
    /// output.
    Ignored,
    /// Refused with an error: ptxc cannot do what it asks.
    Refused,
}

/// One ptxas option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptSpec {
    /// Long name, written after `--`.
    pub long: &'static str,
    /// Short name, written after `-` (the long name when ptxas has no other).
    pub short: &'static str,
    /// Its value.
    pub value: ValueKind,
    /// What ptxc does with it.
    pub support: Support,
    /// One line for `--help` and the README: what ptxc does.
    pub note: &'static str,
}

/// The `--gpu-name` values ptxas 13.5 knows.
pub const GPU_NAMES: &[&str] = &[
    "compute_100",
    "compute_100a",
    "compute_100f",
    "compute_103",
    "compute_103a",
    "compute_103f",
    "compute_107",
    "compute_107a",
    "compute_107f",
    "compute_110",
    "compute_110a",
    "compute_110f",
    "compute_120",
    "compute_120a",
    "compute_120f",
    "compute_121",
    "compute_121a",
    "compute_121f",
    "compute_75",
    "compute_80",
    "compute_86",
    "compute_87",
    "compute_88",
    "compute_89",
    "compute_90",
    "compute_90a",
    "lto_100",
    "lto_100a",
    "lto_100f",
    "lto_103",
    "lto_103a",
    "lto_103f",
    "lto_107",
    "lto_107a",
    "lto_107f",
    "lto_110",
    "lto_110a",
    "lto_110f",
    "lto_120",
    "lto_120a",
    "lto_120f",
    "lto_121",
    "lto_121a",
    "lto_121f",
    "lto_75",
    "lto_80",
    "lto_86",
    "lto_87",
    "lto_88",
    "lto_89",
    "lto_90",
    "lto_90a",
    "sm_100",
    "sm_100a",
    "sm_100f",
    "sm_103",
    "sm_103a",
    "sm_103f",
    "sm_107",
    "sm_107a",
    "sm_107f",
    "sm_110",
    "sm_110a",
    "sm_110f",
    "sm_120",
    "sm_120a",
    "sm_120f",
    "sm_121",
    "sm_121a",
    "sm_121f",
    "sm_75",
    "sm_80",
    "sm_86",
    "sm_87",
    "sm_88",
    "sm_89",
    "sm_90",
    "sm_90a",
];

const fn opt(
    long: &'static str,
    short: &'static str,
    value: ValueKind,
    support: Support,
    note: &'static str,
) -> OptSpec {
    OptSpec {
        long,
        short,
        value,
        support,
        note,
    }
}

use Support::{Ignored, Refused, Supported};
use ValueKind::{Bool, Choice, FastCompile, Flag, List, Number, RegCount, Text};

/// Every option, in ptxas's `--help` order.
pub const OPTIONS: &[OptSpec] = &[
    opt(
        "Ofast-compile",
        "Ofc",
        FastCompile,
        Ignored,
        "ptxc compiles at one speed",
    ),
    opt(
        "allow-expensive-optimizations",
        "allow-expensive-optimizations",
        Bool,
        Ignored,
        "ptxc always runs all of its passes",
    ),
    opt(
        "apply-controls",
        "apply-controls",
        Text,
        Refused,
        "NVIDIA-internal controls file",
    ),
    opt(
        "compile-as-tools-patch",
        "astoolspatch",
        Flag,
        Refused,
        "CUDA tools patch code is not supported",
    ),
    opt(
        "compile-only",
        "c",
        Flag,
        Ignored,
        "ptxc always writes an executable (ET_EXEC) cubin; a warning says so",
    ),
    opt(
        "compiler-annotations",
        "annotate",
        Flag,
        Ignored,
        "no annotations are written",
    ),
    opt(
        "def-load-cache",
        "dlcm",
        Text,
        Ignored,
        "cache modifiers are left as written",
    ),
    opt(
        "def-store-cache",
        "dscm",
        Text,
        Ignored,
        "cache modifiers are left as written",
    ),
    opt(
        "device-debug",
        "g",
        Flag,
        Supported,
        "writes the line tables of -lineinfo (no variable locations)",
    ),
    opt(
        "device-function-maxrregcount",
        "func-maxrregcount",
        RegCount,
        Ignored,
        "only matters with -c; a kernel's register limit holds in the device functions it calls",
    ),
    opt(
        "device-stack-protector",
        "device-stack-protector",
        Bool,
        Ignored,
        "no stack canaries",
    ),
    opt(
        "disable-optimizer-constants",
        "disable-optimizer-consts",
        Flag,
        Ignored,
        "ptxc does not use an optimizer constant bank",
    ),
    opt("disable-warnings", "w", Flag, Supported, "no warnings are printed"),
    opt(
        "dont-merge-basicblocks",
        "no-bb-merge",
        Flag,
        Ignored,
        "no effect on ptxc",
    ),
    opt(
        "enable-func-clone-sc",
        "enable-func-clone-sc",
        Bool,
        Ignored,
        "only matters with -c",
    ),
    opt(
        "entry",
        "e",
        List,
        Ignored,
        "the names are checked, but every entry is compiled",
    ),
    opt("extensible-whole-program", "ewp", Flag, Ignored, "no effect on ptxc"),
    opt(
        "fmad",
        "fmad",
        Bool,
        Supported,
        "false keeps float multiplies and adds apart (no FFMA/DFMA contraction)",
    ),
    opt(
        "force-load-cache",
        "flcm",
        Text,
        Ignored,
        "cache modifiers are left as written",
    ),
    opt(
        "force-store-cache",
        "fscm",
        Text,
        Ignored,
        "cache modifiers are left as written",
    ),
    opt(
        "g-tensor-memory-access-check",
        "g-tmem-access-check",
        Flag,
        Ignored,
        "no tensor memory on sm_75",
    ),
    opt(
        "generate-line-info",
        "lineinfo",
        Flag,
        Supported,
        "writes .debug_line (the .loc lines) and .nv_debug_line_sass (the PTX lines)",
    ),
    opt(
        "gno-fabric-access-check",
        "gno-fabric-access-check",
        Flag,
        Ignored,
        "no fabric checks are generated",
    ),
    opt(
        "gno-tensor-memory-access-check",
        "gno-tmem-access-check",
        Flag,
        Ignored,
        "no tensor memory on sm_75",
    ),
    opt(
        "gpu-name",
        "arch",
        Choice(GPU_NAMES),
        Supported,
        "sm_75, sm_80, sm_86, sm_89, sm_90 and sm_90a compile; their compute_ and lto_ targets only check the PTX; other targets are refused",
    ),
    opt("help", "h", Flag, Supported, "prints this list"),
    opt(
        "input-as-string",
        "ias",
        List,
        Supported,
        "the PTX module is the option's value",
    ),
    opt("jobserver", "jobserver", Flag, Ignored, "no effect on ptxc"),
    opt(
        "legacy-bar-warp-wide-behavior",
        "legacy-bar-warp-wide-behavior",
        Flag,
        Ignored,
        "ignored by ptxas too for sm_70 and later",
    ),
    opt("list-arch", "arch-ls", Flag, Supported, "prints 75"),
    opt(
        "list-version",
        "version-ls",
        Flag,
        Supported,
        "prints the PTX ISA versions accepted",
    ),
    opt("machine", "m", Number, Supported, "64 only, as ptxas"),
    opt(
        "make-errors-visible-at-exit",
        "make-errors-visible-at-exit",
        Flag,
        Ignored,
        "no extra code at exits",
    ),
    opt(
        "maxntid",
        "maxntid",
        List,
        Ignored,
        "the register budget comes from -maxrregcount",
    ),
    opt(
        "maxrregcount",
        "maxrregcount",
        RegCount,
        Supported,
        "register limit (archmax = 255, archmin = 32, at least 16), spilling the rest",
    ),
    opt(
        "minnctapersm",
        "minnctapersm",
        Number,
        Ignored,
        "the register budget comes from -maxrregcount",
    ),
    opt("opt-level", "O", Number, Ignored, "ptxc always optimises the same way"),
    opt(
        "optimize-float-atomics",
        "opt-fp-atomics",
        Flag,
        Ignored,
        "float atomics keep their exact rounding",
    ),
    opt(
        "options-file",
        "optf",
        List,
        Supported,
        "reads more options from the files",
    ),
    opt("output-file", "o", Text, Supported, "the cubin's name (default elf.o)"),
    opt(
        "override-directive-values",
        "override-directive-values",
        Flag,
        Ignored,
        "a .maxnreg directive still lowers -maxrregcount",
    ),
    opt(
        "position-independent-code",
        "pic",
        Bool,
        Ignored,
        "the code is position independent either way",
    ),
    opt("preserve-relocs", "preserve-relocs", Flag, Ignored, "no effect on ptxc"),
    opt(
        "register-usage-level",
        "regUsageLevel",
        Number,
        Ignored,
        "no effect on ptxc",
    ),
    opt("return-at-end", "ret-end", Flag, Ignored, "no effect on ptxc"),
    opt(
        "sanitize",
        "sanitize",
        Choice(&["memcheck", "threadsteer"]),
        Refused,
        "sanitizer instrumentation is not supported",
    ),
    opt(
        "sp-bounds-check",
        "sp-bounds-check",
        Flag,
        Ignored,
        "no bounds-checking code",
    ),
    opt(
        "split-compile",
        "split-compile",
        Number,
        Ignored,
        "ptxc compiles the kernels of a module in parallel anyway",
    ),
    opt(
        "suppress-async-bulk-multicast-advisory-warning",
        "suppress-async-bulk-multicast-advisory-warning",
        Flag,
        Ignored,
        "no such warning on sm_75",
    ),
    opt(
        "suppress-debug-info",
        "suppress-debug-info",
        Flag,
        Supported,
        "drops the line tables of -lineinfo/-g",
    ),
    opt(
        "suppress-double-demote-warning",
        "suppress-double-demote-warning",
        Flag,
        Ignored,
        "sm_75 has doubles: no such warning",
    ),
    opt(
        "suppress-position-independent-code-warning",
        "suppress-position-independent-code-warning",
        Flag,
        Ignored,
        "no such warning",
    ),
    opt(
        "suppress-sparse-mma-advisory-info",
        "suppress-sparse-mma-advisory-info",
        Flag,
        Ignored,
        "no mma.sp on sm_75",
    ),
    opt(
        "suppress-stack-size-warning",
        "suppress-stack-size-warning",
        Flag,
        Ignored,
        "stack sizes are always known",
    ),
    opt("verbose", "v", Flag, Supported, "prints the resources of every kernel"),
    opt("verbose2", "v2", Flag, Supported, "as --verbose"),
    opt("version", "V", Flag, Supported, "prints the version banner"),
    opt(
        "warn-on-double-precision-use",
        "warn-double-usage",
        Flag,
        Ignored,
        "no warning is printed",
    ),
    opt(
        "warn-on-local-memory-usage",
        "warn-lmem-usage",
        Flag,
        Supported,
        "warns about kernels with a stack frame",
    ),
    opt(
        "warn-on-spills",
        "warn-spills",
        Flag,
        Supported,
        "warns about kernels that spill",
    ),
    opt("warning-as-error", "Werror", Flag, Supported, "warnings become errors"),
    opt(
        "regAllocOptLevel",
        "regAllocOptLevel",
        Number,
        Ignored,
        "hidden ptxas option (Triton passes it); no effect on ptxc",
    ),
];

/// The option written `--name` (`long`) or `-name`.
pub fn lookup(name: &str, long: bool) -> Option<&'static OptSpec> {
    OPTIONS
        .iter()
        .find(|o| if long { o.long == name } else { o.short == name })
}

/// Single-letter short options whose (numeric) value may be attached: `-O3`, `-m64`.
pub const ATTACHED: &[&str] = &["O", "m"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        for (i, a) in OPTIONS.iter().enumerate() {
            for b in &OPTIONS[i + 1..] {
                assert_ne!(a.long, b.long);
                assert_ne!(a.short, b.short, "{} and {}", a.long, b.long);
            }
        }
    }

    #[test]
    fn attached_options_exist() {
        for s in ATTACHED {
            assert!(lookup(s, false).is_some(), "{s}");
        }
    }
}
