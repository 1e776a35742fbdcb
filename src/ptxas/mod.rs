//! ptxas mode: ptxc as a drop-in `ptxas` for sm_75. The `ptxc` executable runs in this mode
//! when it is invoked under the name `ptxas` (a symlink or a copy) or as `ptxc ptxas ARGS...`.
//! It reads ptxas's options ([`options`] says which it honours, which it accepts and ignores,
//! and which it refuses), prints ptxas's messages (`ptxas info    : ...`, `ptxas fatal   : ...`)
//! and exits as ptxas does: 0 on success, 255 on any error.

pub mod args;
pub mod compile;
pub mod invocation;
pub mod options;
pub mod report;
pub mod text;

use std::io::Write;

/// The exit status of every failure, as ptxas's.
pub const FAILURE: u8 = 255;

/// True if a program invoked as `argv0` should behave as ptxas (its file name is `ptxas`).
pub fn invoked_as_ptxas(argv0: &str) -> bool {
    let name = std::path::Path::new(argv0)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    name == "ptxas" || name == "ptxas.exe"
}

/// Runs ptxas mode on `args` (without the program name), printing to `out` and `err`;
/// returns the exit status.
pub fn run(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let inv = match invocation::parse(args) {
        Ok(inv) => inv,
        Err(f) => {
            let _ = writeln!(err, "ptxas fatal   : {}", f.0);
            return FAILURE;
        }
    };
    let listing = if inv.help {
        Some(text::help())
    } else if inv.version {
        Some(text::version_banner())
    } else if inv.list_arch || inv.list_version {
        let mut s = String::new();
        if inv.list_arch {
            s.push_str(&text::arch_list());
        }
        if inv.list_version {
            s.push_str(&text::version_list());
        }
        Some(s)
    } else if inv.inputs.is_empty() {
        Some(text::help())
    } else {
        None
    };
    if let Some(s) = listing {
        let _ = out.write_all(s.as_bytes());
        return 0;
    }
    let mut con = compile::Console::new(err, &inv);
    match compile::compile(&inv, &mut con) {
        Ok(()) => 0,
        Err(compile::Aborted) => FAILURE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn program_names() {
        assert!(invoked_as_ptxas("ptxas"));
        assert!(invoked_as_ptxas("/usr/local/bin/ptxas"));
        assert!(!invoked_as_ptxas("/usr/local/bin/ptxc"));
        assert!(!invoked_as_ptxas("ptxas-blackwell"));
    }

    #[test]
    fn errors_exit_255() {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        assert_eq!(run(&["--foo".into()], &mut out, &mut err), 255);
        assert_eq!(
            String::from_utf8(err).unwrap(),
            "ptxas fatal   : Unknown option '-foo'\n"
        );
    }

    #[test]
    fn no_input_prints_usage() {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        assert_eq!(run(&["-v".into()], &mut out, &mut err), 0);
        assert!(String::from_utf8(out).unwrap().contains("Usage  : ptxas"));
    }
}
