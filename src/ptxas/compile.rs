//! The compile step of ptxas mode: read the PTX, check its `.version`, compile it with the
//! settings of the command line, print what ptxas prints, write the cubin.

use super::invocation::{Input, Invocation, Target};
use super::report::{self, ModuleMemory};
use super::text::PTX_ISA_VERSION;
use crate::pipeline::{CompileOptions, compile_ptx_module, lower_ptx};
use std::io::{Read, Write};
use std::path::PathBuf;

/// The compile step stopped; the messages are printed and the exit status is 255.
#[derive(Debug)]
pub struct Aborted;

/// The name ptxas gives a module passed with `--input-as-string`.
const STRING_INPUT_NAME: &str = "application ptx input";

/// Prints ptxas's messages to `err`, honouring `-w` and `-Werror`.
pub struct Console<'a> {
    err: &'a mut dyn Write,
    no_warnings: bool,
    warnings_are_errors: bool,
    /// A warning was turned into an error.
    pub failed: bool,
}

impl<'a> Console<'a> {
    /// A console for `inv`'s warning settings.
    pub fn new(err: &'a mut dyn Write, inv: &Invocation) -> Self {
        Console {
            err,
            no_warnings: inv.no_warnings,
            warnings_are_errors: inv.warnings_are_errors,
            failed: false,
        }
    }

    /// Prints text as it is.
    pub fn print(&mut self, text: &str) {
        let _ = self.err.write_all(text.as_bytes());
    }

    /// `ptxas warning : ...`, or `ptxas error   : ...` under `-Werror`.
    pub fn warning(&mut self, text: &str) {
        if self.warnings_are_errors {
            self.failed = true;
            self.print(&format!("ptxas error   : {text}\n"));
        } else if !self.no_warnings {
            self.print(&format!("ptxas warning : {text}\n"));
        }
    }

    /// `ptxas fatal   : ...`.
    pub fn fatal(&mut self, text: &str) -> Aborted {
        self.print(&format!("ptxas fatal   : {text}\n"));
        Aborted
    }

    /// ptxas's last line after errors.
    pub fn abort(&mut self) -> Aborted {
        self.fatal("Ptx assembly aborted due to errors")
    }
}

/// Compiles the one input of `inv` (there is at least one).
pub fn compile(inv: &Invocation, con: &mut Console) -> Result<(), Aborted> {
    for w in &inv.warnings {
        con.warning(w);
    }
    if con.failed {
        return Err(con.abort());
    }
    if inv.inputs.len() > 1 {
        return Err(con.fatal(&format!(
            "ptxc compiles one PTX module at a time; {} inputs given",
            inv.inputs.len()
        )));
    }
    let (name, src) = read_input(&inv.inputs[0], con)?;
    check_version(&name, &src, con)?;
    let arch = match inv.target {
        Target::Sass(arch) => arch,
        Target::CheckOnly => {
            return lower_ptx(&src, &name).map(|_| ()).map_err(|e| {
                con.print(&format!("{}\n", e.0.trim_end()));
                con.abort()
            });
        }
    };
    let opts = CompileOptions {
        arch,
        fmad: inv.fmad,
        max_registers: inv.max_registers,
        line_info: inv.line_info,
        ..CompileOptions::default()
    };
    let compiled = compile_ptx_module(&src, &name, &opts).map_err(|e| {
        con.print(&format!("{}\n", e.0.trim_end()));
        con.abort()
    })?;
    let names: Vec<&str> = compiled.resources.iter().map(|r| r.name.as_str()).collect();
    if let Some(missing) = inv.entries.iter().find(|e| !names.contains(&e.as_str())) {
        return Err(con.fatal(&format!("Unknown function {missing}")));
    }
    print_report(inv, &compiled, con);
    if con.failed {
        return Err(con.abort());
    }
    let out = inv.output.clone().unwrap_or_else(|| PathBuf::from("elf.o"));
    std::fs::write(&out, &compiled.cubin)
        .map_err(|_| con.fatal(&format!("Output file '{}' could not be opened", out.display())))
}

/// The messages of a successful compilation, in ptxas's order.
fn print_report(inv: &Invocation, compiled: &ptxc_backend::compile::Compiled, con: &mut Console) {
    let kernels = || compiled.resources.iter().rev();
    if let (true, Some(limit)) = (inv.verbose, inv.max_registers) {
        for r in kernels() {
            con.print(&report::register_limit_note(&r.name, limit));
        }
    }
    for w in &compiled.warnings {
        con.warning(w);
    }
    for r in kernels() {
        if let Some(w) = report::spill_warning(r).filter(|_| inv.warn_spills) {
            con.warning(&w);
        }
        if let Some(w) = report::local_memory_warning(r).filter(|_| inv.warn_local_memory) {
            con.warning(&w);
        }
    }
    if inv.verbose {
        let memory = ModuleMemory::of_cubin(&compiled.cubin).unwrap_or_default();
        con.print(&memory.line());
        con.print(&report::kernel_lines(&compiled.resources));
    }
}

/// The input's name for messages and its text.
fn read_input(input: &Input, con: &mut Console) -> Result<(String, String), Aborted> {
    let (name, bytes) = match input {
        Input::Text(t) => return Ok((STRING_INPUT_NAME.into(), t.clone())),
        Input::Stdin => {
            let mut b = Vec::new();
            std::io::stdin()
                .read_to_end(&mut b)
                .map_err(|_| con.fatal("Input file '<stdin>' could not be read"))?;
            ("<stdin>".to_string(), b)
        }
        Input::File(p) => {
            let name = p.display().to_string();
            match std::fs::read(p) {
                Ok(b) => (name, b),
                Err(_) => {
                    con.fatal(&format!("Input file '{name}' could not be opened"));
                    return Err(con.abort());
                }
            }
        }
    };
    Ok((name, ptxc_frontend::source_text(bytes)))
}

/// Refuses a `.version` newer than ptxc reads, with ptxas's message.
fn check_version(name: &str, src: &str, con: &mut Console) -> Result<(), Aborted> {
    let Some((line, (major, minor))) = ptx_version(src) else {
        return Ok(());
    };
    if (major, minor) <= PTX_ISA_VERSION {
        return Ok(());
    }
    let (a, b) = PTX_ISA_VERSION;
    con.print(&format!(
        "ptxas {name}, line {line}; fatal   : Unsupported .version {major}.{minor}; current version is '{a}.{b}'\n"
    ));
    Err(con.abort())
}

/// The `.version` directive: its line number (from 1) and value.
pub fn ptx_version(src: &str) -> Option<(usize, (u32, u32))> {
    let (i, line) = src
        .lines()
        .enumerate()
        .find(|(_, l)| l.trim_start().starts_with(".version"))?;
    let text = line.trim_start().strip_prefix(".version")?.split("//").next()?.trim();
    let (major, minor) = text.split_once('.')?;
    Some((i + 1, (major.parse().ok()?, minor.parse().ok()?)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_version_line() {
        let src = "//\n// Generated\n\n.version 8.8\n.target sm_75\n";
        assert_eq!(ptx_version(src), Some((4, (8, 8))));
        assert_eq!(ptx_version(".version 9.5 // x\n"), Some((1, (9, 5))));
        assert_eq!(ptx_version(".target sm_75\n"), None);
    }
}
