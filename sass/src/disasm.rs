//! A listing of every kernel of a cubin in nvdisasm's instruction syntax, with control codes
//! and labels at branch targets: the text `ptxc disasm` prints and the golden tests compare.

use crate::cubin;
use crate::isa::text::{LabelNamer, inst_text};
use crate::isa::{Arch, Value, decode};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Labels `.L_x_<n>` numbered by target address; the kernel's start is its name (as nvdisasm
/// prints it: a `RET.REL` relative to the kernel's start, a loop from the first instruction),
/// and a device function's start in the kernel's code is its symbol (`$kernel$function`).
struct Labels<'a> {
    numbered: BTreeMap<u64, usize>,
    kernel: &'a str,
    functions: &'a [(u64, String)],
}

impl LabelNamer for Labels<'_> {
    fn label(&self, target: u64) -> String {
        if target == 0 {
            return self.kernel.to_string();
        }
        if let Some((_, f)) = self.functions.iter().find(|(at, _)| *at == target) {
            return f.clone();
        }
        match self.numbered.get(&target) {
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
        let functions: Vec<(u64, String)> = k.functions.iter().map(|f| (f.offset, f.name.clone())).collect();
        out.push_str(&disassemble_kernel(arch, &k.name, &k.code, &functions, controls)?);
    }
    Ok(out)
}

/// Disassembles one kernel's code for `arch`: a blank line, `.text.<name>:`, then one line
/// per instruction (`/*addr*/ [control] TEXT ;`) with a label line before each branch target
/// and before each of the device functions `functions` (offset, symbol) placed in it.
pub fn disassemble_kernel(
    arch: Arch,
    name: &str,
    code: &[u8],
    functions: &[(u64, String)],
    controls: bool,
) -> Result<String, String> {
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
    targets.retain(|&t| t != 0 && functions.iter().all(|(at, _)| *at != t));
    targets.sort();
    targets.dedup();
    let labels = Labels {
        numbered: targets.iter().enumerate().map(|(n, &t)| (t, n)).collect(),
        kernel: name,
        functions,
    };
    let mut out = String::new();
    let _ = writeln!(out, "\n.text.{name}:");
    for (i, inst) in insts.iter().enumerate() {
        let addr = 16 * i as u64;
        if let Some((_, f)) = functions.iter().find(|(at, _)| *at == addr) {
            let _ = writeln!(out, "{f}:");
        }
        if let Some(n) = labels.numbered.get(&addr) {
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
