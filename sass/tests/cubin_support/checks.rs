//! Checks of a cubin the writer produced against the one ptxas wrote for the same PTX,
//! shared by the sm_75 (`cubin_oracle`) and sm_90 (`cubin_sm90`) tests.

use std::path::Path;

use ptxc_sass::cubin::{self, CubinModule, KernelParam, ObjectKind};

use super::{Compiled, ToolRun, cuobjdump_elf, nvdisasm, ptxas_for};

/// The rewritten file must be accepted silently and print exactly what ptxas' file prints.
/// (When the bytes are identical the disassemblies are too, so the original is disassembled
/// only when they differ: nvdisasm takes 0.2 s per file.)
pub fn compare_with_ptxas(c: &Compiled, rewritten: &Path, disasm: &ToolRun, identical: bool) -> Vec<String> {
    let mut problems = Vec::new();
    let elf = cuobjdump_elf(rewritten);
    let ptxas_elf = cuobjdump_elf(&c.cubin);
    if !disasm.ok || !disasm.stderr.is_empty() {
        problems.push(format!("nvdisasm on the rewritten file: {}", disasm.stderr.trim()));
    }
    // cuobjdump notes "Skipping .debug_frame section, as length was 0" for ptxas' own
    // kernel-less modules too: the rewritten file must say what ptxas' says.
    if !elf.ok || elf.stderr != ptxas_elf.stderr {
        problems.push(format!("cuobjdump -elf on the rewritten file: {}", elf.stderr.trim()));
    }
    if elf.stdout != ptxas_elf.stdout {
        problems.push("cuobjdump -elf output differs".into());
    }
    if !identical {
        problems.push("rewritten bytes differ from ptxas'".into());
        if nvdisasm(&c.cubin).stdout != disasm.stdout {
            problems.push("nvdisasm -hex output differs".into());
        }
    }
    problems
}

/// `ptxas -c -arch=<arch>` output (ET_REL) must read, with the same kernels, parameters and
/// parameter sizes as `exec`, the module read from the ET_EXEC file.
pub fn check_relocatable(arch: &str, c: &Compiled, exec: &CubinModule, path: &Path) -> Vec<String> {
    let run = ptxas_for(arch, &c.ptx, path, &["-c"]);
    if !run.ok && run.stderr.contains("requires ABI") {
        // ptxas cannot compile without its calling ABI (multiple return values) with -c.
        return Vec::new();
    }
    if !run.ok {
        return vec![format!("ptxas -c: {}", run.stderr.trim())];
    }
    match cubin::read(&std::fs::read(path).unwrap()) {
        Ok(rel) if rel.kind != ObjectKind::Relocatable => vec!["not read as ET_REL".into()],
        Ok(rel) if entries(&rel) == entries(exec) => Vec::new(),
        Ok(_) => vec!["kernels or parameters differ from the ET_EXEC file".into()],
        Err(e) => vec![format!("read: {e}")],
    }
}

/// The entries of `m` by name, with their parameters and parameter size.
fn entries(m: &CubinModule) -> Vec<(String, Vec<KernelParam>, u32)> {
    let mut v: Vec<_> = m
        .kernels
        .iter()
        .filter(|k| k.entry)
        .map(|k| (k.name.clone(), k.params.clone(), k.param_size))
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

/// The structure `cuobjdump -elf` shows, without file offsets and contents: the section
/// table (name, type, flags, link, info, alignment, entry size, size), the symbol table and
/// every attribute record of `.nv.info*` and `.nv.compat` (name, format, value), each
/// section's records under its name.
pub fn elf_structure(cuobjdump_elf: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut section = "";
    let mut in_table = false;
    for line in cuobjdump_elf.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if line.starts_with("Index Offset") {
            in_table = true;
            continue;
        }
        if in_table && fields.len() >= 9 && u64::from_str_radix(fields[0], 16).is_ok() {
            // Index Offset Size ES Align Type Flags Link Info Name: drop the offset.
            out.push(format!("section {} {}", fields[0], fields[2..].join(" ")));
            continue;
        }
        in_table = false;
        if line.starts_with('.') {
            section = line.trim();
        }
        let is_symbol = section == ".section .symtab" && fields.first().is_some_and(|f| f.starts_with("0x"));
        let is_record = section.starts_with(".nv.info") || section.starts_with(".nv.compat");
        let is_attribute = ["Attribute:", "Format:", "Value:"]
            .iter()
            .any(|k| line.trim_start().starts_with(k));
        if is_symbol || (is_record && is_attribute) {
            out.push(format!("{section}: {}", fields.join(" ")));
        }
    }
    out
}

/// The lines of `ours` and `theirs` that differ, at most `limit`, for messages.
pub fn first_differences(ours: &[String], theirs: &[String], limit: usize) -> String {
    let mut diffs = Vec::new();
    for i in 0..ours.len().max(theirs.len()) {
        let (a, b) = (ours.get(i), theirs.get(i));
        if a != b {
            diffs.push(format!("ours: {a:?}\n      ptxas: {b:?}"));
        }
        if diffs.len() == limit {
            break;
        }
    }
    diffs.join("\n")
}
