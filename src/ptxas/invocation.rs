//! What a ptxas command line asks for, once its options are understood: inputs, output,
//! target, the compiler settings ptxc honours, what to print, and the warnings ptxas gives
//! about the options themselves (redefinitions, register counts out of range).

use super::args::{Arg, Fatal, parse_count, parse_number, split};
use super::options::{OptSpec, Support, ValueKind};
use ptxc_backend::compile::TARGETS;
use ptxc_sass::isa::Arch;
use std::collections::HashMap;
use std::path::PathBuf;

/// Where PTX comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A file.
    File(PathBuf),
    /// Standard input (`-`).
    Stdin,
    /// The text of `--input-as-string`.
    Text(String),
}

/// What the `--gpu-name` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Compile for this architecture (`-arch=sm_75|sm_80|sm_86|sm_89`).
    Sass(Arch),
    /// A virtual target (`compute_75`, `lto_75`): check the PTX, write nothing.
    CheckOnly,
}

/// The architecture of `sm_NN` (`false`) or of the virtual `compute_NN` / `lto_NN` (`true`),
/// if ptxc generates code for it.
fn virtual_or_real(name: &str) -> Option<(Arch, bool)> {
    let (sm, virt) = if let Some(n) = name.strip_prefix("sm_") {
        (n, false)
    } else if let Some(n) = name.strip_prefix("compute_").or_else(|| name.strip_prefix("lto_")) {
        (n, true)
    } else {
        return None;
    };
    let arch = Arch::from_name(&format!("sm_{sm}"))?;
    TARGETS.contains(&arch).then_some((arch, virt))
}

/// A whole command line, understood.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invocation {
    /// The inputs, in order.
    pub inputs: Vec<Input>,
    /// `-o` (`elf.o` when absent).
    pub output: Option<PathBuf>,
    /// What to do with the PTX.
    pub target: Target,
    /// `-v`.
    pub verbose: bool,
    /// `-lineinfo` or `-g`, unless `-suppress-debug-info`.
    pub line_info: bool,
    /// `--fmad`.
    pub fmad: bool,
    /// `-maxrregcount` after ptxas's adjustments (`None`: no limit).
    pub max_registers: Option<u32>,
    /// `--entry` names (checked, every entry is compiled anyway).
    pub entries: Vec<String>,
    /// `--warn-on-spills`.
    pub warn_spills: bool,
    /// `--warn-on-local-memory-usage`.
    pub warn_local_memory: bool,
    /// `-w`.
    pub no_warnings: bool,
    /// `-Werror`.
    pub warnings_are_errors: bool,
    /// `--help`.
    pub help: bool,
    /// `--version`.
    pub version: bool,
    /// `--list-arch`.
    pub list_arch: bool,
    /// `--list-version`.
    pub list_version: bool,
    /// Warnings about the command line (text after `ptxas warning : `).
    pub warnings: Vec<String>,
}

impl Default for Invocation {
    fn default() -> Self {
        Invocation {
            inputs: Vec::new(),
            output: None,
            target: Target::Sass(Arch::Sm75),
            verbose: false,
            line_info: false,
            fmad: true,
            max_registers: None,
            entries: Vec::new(),
            warn_spills: false,
            warn_local_memory: false,
            no_warnings: false,
            warnings_are_errors: false,
            help: false,
            version: false,
            list_arch: false,
            list_version: false,
            warnings: Vec::new(),
        }
    }
}

/// The most registers a thread can have, and what `archmax`/`archmin` mean.
const ARCH_MAX_REGISTERS: i64 = 255;
const ARCH_MIN_REGISTERS: i64 = 32;

/// Understands a ptxas command line (without the program name).
pub fn parse(args: &[String]) -> Result<Invocation, Fatal> {
    let mut b = Builder::default();
    b.take(split(args)?)?;
    b.finish()
}

#[derive(Default)]
struct Builder {
    inv: Invocation,
    /// Last value of each single-valued option, for the redefinition warning.
    seen: HashMap<&'static str, String>,
    line_info: bool,
    suppress_debug_info: bool,
    compile_only: bool,
    gpu: Option<String>,
    max_registers: Option<String>,
    machine: Option<String>,
    reg_usage_level: Option<String>,
}

impl Builder {
    fn take(&mut self, args: Vec<Arg>) -> Result<(), Fatal> {
        for a in args {
            match a {
                Arg::Input(f) if f == "-" => self.inv.inputs.push(Input::Stdin),
                Arg::Input(f) => self.inv.inputs.push(Input::File(f.into())),
                Arg::Opt(spec, value) => self.option(spec, value)?,
            }
        }
        Ok(())
    }

    fn option(&mut self, spec: &'static OptSpec, value: Option<String>) -> Result<(), Fatal> {
        if spec.support == Support::Refused {
            return Err(Fatal(format!("option '--{}' is not supported by ptxc", spec.long)));
        }
        if let (Some(v), false) = (&value, matches!(spec.value, ValueKind::List))
            && let Some(old) = self.seen.insert(spec.long, v.clone())
            && old != *v
        {
            self.inv.warnings.push(format!(
                "incompatible redefinition for option '{}', the last value of this option was used",
                spec.long
            ));
        }
        let v = value.unwrap_or_default();
        let list = || v.split(',').map(String::from).collect::<Vec<_>>();
        match spec.long {
            "output-file" => self.inv.output = Some(PathBuf::from(&v)),
            "gpu-name" => self.gpu = Some(v),
            "verbose" | "verbose2" => self.inv.verbose = true,
            "generate-line-info" | "device-debug" => self.line_info = true,
            "suppress-debug-info" => self.suppress_debug_info = true,
            "fmad" => self.inv.fmad = v == "true",
            "maxrregcount" => self.max_registers = Some(v),
            "machine" => self.machine = Some(v),
            "register-usage-level" => self.reg_usage_level = Some(v),
            "compile-only" => self.compile_only = true,
            "entry" => self.inv.entries.extend(list()),
            "input-as-string" => self.inv.inputs.extend(list().into_iter().map(Input::Text)),
            "options-file" => {
                for file in list() {
                    self.options_file(&file)?;
                }
            }
            "warn-on-spills" => self.inv.warn_spills = true,
            "warn-on-local-memory-usage" => self.inv.warn_local_memory = true,
            "disable-warnings" => self.inv.no_warnings = true,
            "warning-as-error" => self.inv.warnings_are_errors = true,
            "help" => self.inv.help = true,
            "version" => self.inv.version = true,
            "list-arch" => self.inv.list_arch = true,
            "list-version" => self.inv.list_version = true,
            _ => {}
        }
        Ok(())
    }

    fn options_file(&mut self, file: &str) -> Result<(), Fatal> {
        let text = std::fs::read_to_string(file).map_err(|_| Fatal(format!("Could not open options file '{file}'")))?;
        let words: Vec<String> = text.split_whitespace().map(String::from).collect();
        self.take(split(&words)?)
    }

    fn finish(mut self) -> Result<Invocation, Fatal> {
        self.inv.target = match self.gpu.as_deref() {
            None => Target::Sass(Arch::Sm75),
            Some(name) => match virtual_or_real(name) {
                Some((a, false)) => Target::Sass(a),
                Some((_, true)) => Target::CheckOnly,
                None => {
                    let names: Vec<&str> = TARGETS.iter().map(|a| a.name()).collect();
                    return Err(Fatal(format!(
                        "ptxc generates code for {}; '{name}' is not supported",
                        names.join(", ")
                    )));
                }
            },
        };
        if let Some(m) = self.machine.as_deref()
            && m != "64"
        {
            return Err(Fatal(format!("Value '{m}' is not defined for option 'machine'")));
        }
        if let Some(level) = self.reg_usage_level.as_deref().and_then(parse_number)
            && !(0..=10).contains(&level)
        {
            self.inv.warnings.push(format!(
                "Value of RegUsageLevel ({level}) is out of valid range {{0..10}}, option will be ignored"
            ));
        }
        self.inv.max_registers = self.register_limit();
        self.inv.line_info = self.line_info && !self.suppress_debug_info;
        if self.suppress_debug_info && !self.line_info {
            self.inv.warnings.push(
                "Option suppress-debug-info requires option device-debug or lineinfo; ignoring since latter is not specified"
                    .into(),
            );
        }
        if self.compile_only {
            self.inv.warnings.push(
                "ptxc writes an executable cubin; option compile-only is ignored (the cubin cannot be linked with nvlink)"
                    .into(),
            );
        }
        Ok(self.inv)
    }

    /// `-maxrregcount` as ptxas adjusts it: out of range values are ignored, small ones raised
    /// to the fewest registers ptxc can allocate with.
    fn register_limit(&mut self) -> Option<u32> {
        let n = match self.max_registers.as_deref()? {
            "archmax" => ARCH_MAX_REGISTERS,
            "archmin" => ARCH_MIN_REGISTERS,
            v => parse_count(v)?,
        };
        let min = ptxc_backend::compile::MIN_REGISTERS as i64;
        if !(0..=ARCH_MAX_REGISTERS).contains(&n) {
            self.inv
                .warnings
                .push(format!("Too big maxrregcount value specified {n}, will be ignored"));
            return None;
        }
        if n < min {
            self.inv.warnings.push(format!(
                "For profile sm_75 adjusting per thread register count of {n} to lower bound of {min}"
            ));
            return Some(min as u32);
        }
        Some(n as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(s: &str) -> Result<Invocation, Fatal> {
        parse(&s.split_whitespace().map(String::from).collect::<Vec<_>>())
    }

    #[test]
    fn register_limits() {
        let limit = |s: &str| parse_str(s).unwrap().max_registers;
        assert_eq!(limit("-maxrregcount 32"), Some(32));
        assert_eq!(limit("-maxrregcount=archmax"), Some(255));
        assert_eq!(limit("--maxrregcount=archmin"), Some(32));
        assert_eq!(limit("-maxrregcount=8"), Some(16));
        assert_eq!(limit("-maxrregcount=300"), None);
        assert_eq!(limit("-maxrregcount=-5"), None);
        let inv = parse_str("-maxrregcount=8").unwrap();
        assert_eq!(
            inv.warnings,
            ["For profile sm_75 adjusting per thread register count of 8 to lower bound of 16"]
        );
    }

    #[test]
    fn targets_and_line_info() {
        assert_eq!(parse_str("-arch compute_75").unwrap().target, Target::CheckOnly);
        assert_eq!(parse_str("-arch=sm_86").unwrap().target, Target::Sass(Arch::Sm86));
        assert_eq!(parse_str("-arch=sm_90").unwrap().target, Target::Sass(Arch::Sm90));
        assert_eq!(parse_str("-arch=sm_90a").unwrap().target, Target::Sass(Arch::Sm90a));
        assert!(
            parse_str("-arch=sm_100")
                .unwrap_err()
                .0
                .contains("'sm_100' is not supported")
        );
        assert!(parse_str("-lineinfo").unwrap().line_info);
        assert!(parse_str("-g").unwrap().line_info);
        assert!(!parse_str("-lineinfo -suppress-debug-info").unwrap().line_info);
        assert_eq!(parse_str("-suppress-debug-info").unwrap().warnings.len(), 1);
    }

    #[test]
    fn redefinition_warns_once_per_change() {
        let inv = parse_str("-O3 -O3 -O1").unwrap();
        assert_eq!(
            inv.warnings,
            ["incompatible redefinition for option 'opt-level', the last value of this option was used"]
        );
    }

    #[test]
    fn refused_options() {
        assert_eq!(
            parse_str("--sanitize memcheck").unwrap_err().0,
            "option '--sanitize' is not supported by ptxc"
        );
    }
}
