//! The MIR text form: one instruction per line, e.g.
//! `v3 = iadd.i32 v1, v2`, `v5 = load.global.f32 v4+8`, `brif v6, block2(v1), block3`.

use super::entities::{Block, Inst};
use super::function::Function;
use super::inst::{Aux, BlockCall};
use std::fmt::{self, Write};

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "kernel {}(", self.name)?;
        for (i, p) in self.params.iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            write!(f, "{sep}{}: {}@{}", p.name, p.size, p.offset)?;
        }
        writeln!(f, ") {{")?;
        for &b in &self.layout {
            write_block(self, b, f)?;
        }
        writeln!(f, "}}")
    }
}

fn write_block(func: &Function, b: Block, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    write!(f, "{b}")?;
    let params = &func.blocks[b].params;
    if !params.is_empty() {
        let list: Vec<String> = params.iter().map(|&p| format!("{p}: {}", func.ty(p))).collect();
        write!(f, "({})", list.join(", "))?;
    }
    writeln!(f, ":")?;
    for &inst in &func.blocks[b].insts {
        writeln!(f, "    {}", inst_text(func, inst))?;
    }
    Ok(())
}

/// One instruction in text form.
pub fn inst_text(func: &Function, inst: Inst) -> String {
    let data = &func.insts[inst];
    let mut s = String::new();
    let results = &func.results[inst];
    if !results.is_empty() {
        let names: Vec<String> = results.iter().map(|v| v.to_string()).collect();
        let _ = write!(s, "{} = ", names.join(", "));
    }
    s.push_str(data.op.name());
    match &data.aux {
        Aux::Cond(c) => {
            let _ = write!(s, ".{}", c.name());
        }
        Aux::Mem(m) => {
            let _ = write!(s, ".{}", m.space.name());
            if m.vector > 1 {
                let _ = write!(s, ".v{}", m.vector);
            }
            if m.non_coherent {
                s.push_str(".nc");
            }
            if m.volatile {
                s.push_str(".volatile");
            }
        }
        Aux::Float(m) => {
            if let Some(r) = m.rnd {
                let _ = write!(s, ".{}", format!("{r:?}").to_lowercase());
            }
            if m.ftz {
                s.push_str(".ftz");
            }
            if m.sat {
                s.push_str(".sat");
            }
        }
        Aux::Convert(c) => {
            let _ = write!(s, ".{}{}", if c.from_signed { "s" } else { "" }, c.from.name());
            if let Some(r) = c.rnd {
                let _ = write!(s, ".{}", format!("{r:?}").to_lowercase());
            }
            if c.sat {
                s.push_str(".sat");
            }
            if c.ftz {
                s.push_str(".ftz");
            }
        }
        _ => {}
    }
    let _ = write!(s, ".{}", data.ty);
    let mut args: Vec<String> = data.args.iter().map(|v| v.to_string()).collect();
    match &data.aux {
        Aux::Imm(bits) => args.push(format!("{bits:#x}")),
        Aux::Special(sr) => args.push(format!("{sr:?}")),
        Aux::Param(off) => args.push(format!("param+{off}")),
        Aux::Mem(m) if m.offset != 0 => {
            if let Some(a) = args.first_mut() {
                *a = format!("{a}{:+}", m.offset);
            }
        }
        Aux::Branch(targets) => args.extend(targets.iter().map(call_text)),
        _ => {}
    }
    if !args.is_empty() {
        let _ = write!(s, " {}", args.join(", "));
    }
    s
}

fn call_text(c: &BlockCall) -> String {
    if c.args.is_empty() {
        c.block.to_string()
    } else {
        let a: Vec<String> = c.args.iter().map(|v| v.to_string()).collect();
        format!("{}({})", c.block, a.join(", "))
    }
}
