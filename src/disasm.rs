//! `ptxc disasm`: a listing of every kernel of a cubin in nvdisasm's instruction syntax,
//! with control codes and labels at branch targets.

use ptxc_sass::cubin;
use ptxc_sass::isa::text::{LabelNamer, inst_text};
use ptxc_sass::isa::{Control, Value, decode};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Labels `.L_x_<n>` numbered by target address.
struct Labels(BTreeMap<u64, usize>);

impl LabelNamer for Labels {
    fn label(&self, target: u64) -> String {
        match self.0.get(&target) {
            Some(n) => format!(".L_x_{n}"),
            None => format!("{target:#x}"),
        }
    }
}

/// Disassembles a cubin; `controls` adds the control-code column.
pub fn disassemble(bytes: &[u8], controls: bool) -> Result<String, String> {
    let module = cubin::read(bytes).map_err(|e| format!("bad cubin: {e}"))?;
    let mut out = String::new();
    for k in &module.kernels {
        let arch = module
            .arch()
            .ok_or_else(|| format!("bad cubin: unknown architecture sm_{}", module.sm))?;
        let insts = decode::decode_all(arch, &k.code).map_err(|e| format!("kernel `{}`: {e}", k.name))?;
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
        targets.sort();
        targets.dedup();
        let labels = Labels(targets.iter().enumerate().map(|(n, &t)| (t, n)).collect());
        let _ = writeln!(out, "\n.text.{}:", k.name);
        for (i, inst) in insts.iter().enumerate() {
            let addr = 16 * i as u64;
            if let Some(n) = labels.0.get(&addr) {
                let _ = writeln!(out, ".L_x_{n}:");
            }
            let ctrl = if controls {
                format!("{} ", control_column(&inst.ctrl))
            } else {
                String::new()
            };
            let _ = writeln!(out, "        /*{addr:04x}*/ {ctrl}{} ;", inst_text(inst, addr, &labels));
        }
    }
    Ok(out)
}

fn control_column(c: &Control) -> String {
    c.to_string()
}
