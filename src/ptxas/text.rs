//! The fixed texts of the ptxas command line: the version banner, `--help`, `--list-arch`
//! and `--list-version`.

use super::options::{OPTIONS, Support, ValueKind};

/// The newest PTX ISA version ptxc accepts, in ptxas mode as in `ptxc compile`: the front
/// end's, ptxas 13.5's (the kernels under `tests/` come from CUDA 13.5's nvcc).
pub const PTX_ISA_VERSION: (u32, u32) = ptxc_frontend::sema::NEWEST_PTX_VERSION;

/// The CUDA release whose ptxas reads PTX ISA [`PTX_ISA_VERSION`] (PTX 9.x is CUDA 13.x),
/// printed by `--version` so that tools which pick a PTX version from ptxas's release (Triton)
/// write PTX that ptxc reads.
pub const CUDA_RELEASE: (u32, u32) = (PTX_ISA_VERSION.0 + 4, PTX_ISA_VERSION.1);

/// PTX ISA versions listed by `--list-version` (ptxas 13.5's list).
const PTX_VERSIONS: &[&str] = &[
    "1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "2.0", "2.1", "2.2", "2.3", "3.0", "3.1", "3.2", "4.0", "4.1", "4.2",
    "4.3", "5.0", "5.1", "6.0", "6.1", "6.2", "6.3", "6.4", "6.5", "7.0", "7.1", "7.2", "7.3", "7.4", "7.5", "7.6",
    "7.7", "7.8", "8.0", "8.1", "8.2", "8.3", "8.4", "8.5", "8.6", "8.7", "8.8", "9.0", "9.1", "9.2", "9.3", "9.4",
    "9.5",
];

/// `--version`: the line `Cuda compilation tools, release X.Y, VX.Y.Z` is what tools parse.
pub fn version_banner() -> String {
    let (major, minor) = CUDA_RELEASE;
    let ours = env!("CARGO_PKG_VERSION");
    format!(
        "ptxas: ptxc {ours}, a PTX to Turing (sm_75) SASS compiler with ptxas's command line\n\
         Cuda compilation tools, release {major}.{minor}, V{major}.{minor}.0\n\
         Build ptxc {ours}\n"
    )
}

/// `--list-arch`.
pub fn arch_list() -> String {
    "75\n".into()
}

/// `--list-version`.
pub fn version_list() -> String {
    PTX_VERSIONS.iter().map(|v| format!("{v}\n")).collect()
}

/// `--help` (also printed when there is no input, as ptxas does).
pub fn help() -> String {
    let mut s = String::from("\nUsage  : ptxas [options] <ptx file>,...\n\nOptions\n=======\n\n");
    for o in OPTIONS {
        let hint = match o.value {
            ValueKind::Flag => "",
            ValueKind::Bool => " <true|false>",
            ValueKind::Number => " <N>",
            ValueKind::Text => " <value>",
            ValueKind::List => " <value>,...",
            ValueKind::Choice(_) if o.long == "gpu-name" => " <gpu name>",
            ValueKind::Choice(_) => " <value>",
            ValueKind::RegCount => " <archmax/archmin/N>",
            ValueKind::FastCompile => " <0|min|mid|max>",
        };
        let head = format!("--{}{hint}", o.long);
        let class = match o.support {
            Support::Supported => "supported",
            Support::Ignored => "accepted and ignored",
            Support::Refused => "refused",
        };
        s.push_str(&format!("{head:<52}(-{})\n        [{class}] {}.\n\n", o.short, o.note));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn banner_has_the_release_line_tools_parse() {
        let b = version_banner();
        assert!(
            b.lines().any(|l| l == "Cuda compilation tools, release 13.5, V13.5.0"),
            "{b}"
        );
    }

    #[test]
    fn newest_listed_version_is_the_accepted_one() {
        let (a, b) = PTX_ISA_VERSION;
        assert_eq!(version_list().lines().last(), Some(format!("{a}.{b}").as_str()));
    }
}
