//! A listing of every kernel of a cubin in nvdisasm's instruction syntax, with control codes
//! and labels at branch targets: the text `ptxc disasm` prints and the golden tests compare.

use crate::cubin;
use crate::isa::text::{LabelNamer, inst_text};
use crate::isa::{Arch, Value, decode};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Labels `.L_x_<n>` numbered by target address; the kernel's start is its name (as nvdisasm
/// prints it: a `RET.REL` relative to the kernel's start, a loop from the first instruction).
struct Labels<'a>(BTreeMap<u64, usize>, &'a str);

impl LabelNamer for Labels<'_> {
    fn label(&self, target: u64) -> String {
        match self.0.get(&target) {
            _ if target == 0 => self.1.to_string(),
            Some(n) => format!(".L_x_{n}"),
            None => format!("{target:#x}"),
        }
    }
}

/// Disassembles a cubin; `controls` adds the control-code column.
pub fn disassemble(bytes: &[u8], controls: bool) -> Result<String, String> {
    let module = cubin::read(bytes).map_err(|e| format!("bad cubin: {e}"))?;
    let mut out = String::new();
    let arch = module
        .arch()
        .ok_or_else(|| format!("bad cubin: unknown architecture sm_{}", module.sm))?;
    for k in &module.kernels {
        out.push_str(&disassemble_kernel(arch, &k.name, &k.code, controls)?);
    }
    Ok(out)
}

/// Disassembles one kernel's code for `arch`: a blank line, `.text.<name>:`, then one line
/// per instruction (`/*addr*/ [control] TEXT ;`) with a label line before each branch target.
pub fn disassemble_kernel(arch: Arch, name: &str, code: &[u8], controls: bool) -> Result<String, String> {
    let insts = decode::decode_all(arch, code).map_err(|e| format!("kernel `{name}`: {e}"))?;
    let mut targets: Vec<u64> = insts
        .iter()
        .enumerate()
        .filter_map(|(i, inst)| {
            inst.operands.iter().find_map(|o| match o.value {
                Value::Rel(off) => Some((16 * i as i64 + 16 + off) as u64),
                _ => None,
            })
        })
        .collect();
    targets.retain(|&t| t != 0);
    targets.sort();
    targets.dedup();
    let labels = Labels(targets.iter().enumerate().map(|(n, &t)| (t, n)).collect(), name);
    let mut out = String::new();
    let _ = writeln!(out, "\n.text.{name}:");
    for (i, inst) in insts.iter().enumerate() {
        let addr = 16 * i as u64;
        if let Some(n) = labels.0.get(&addr) {
            let _ = writeln!(out, ".L_x_{n}:");
        }
        let ctrl = if controls {
            format!("{} ", inst.ctrl)
        } else {
            String::new()
        };
        let _ = writeln!(out, "        /*{addr:04x}*/ {ctrl}{} ;", inst_text(inst, addr, &labels));
    }
    Ok(out)
}
