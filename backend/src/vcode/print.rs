//! Text form of VCode for dumps: one instruction per line with virtual registers
//! (`v3` singles, `v4:2` pairs, `v5:p` predicates, `v6:u` uniform registers).

use super::{MInst, MKind, MOp, Slot, VClass, VCode, VReg};
use std::fmt::{self, Write};

impl VCode {
    fn reg(&self, v: VReg) -> String {
        match self.class(v) {
            VClass::Single => format!("v{}", v.0),
            VClass::Pair => format!("v{}:2", v.0),
            VClass::Quad => format!("v{}:4", v.0),
            VClass::Pred => format!("v{}:p", v.0),
            VClass::Uniform => format!("v{}:u", v.0),
            VClass::UniformPair => format!("v{}:u2", v.0),
            VClass::Fixed(r) => format!("v{}:R{r}", v.0),
        }
    }

    fn mop(&self, op: &MOp) -> String {
        match op {
            MOp::Reg(v) => self.reg(*v),
            MOp::Sub(v, i) => format!("{}.{i}", self.reg(*v)),
            MOp::Pred(v, neg) => format!("{}{}", if *neg { "!" } else { "" }, self.reg(*v)),
            MOp::Mem {
                base,
                offset,
                uniform: None,
            } => format!("[{}{offset:+#x}]", self.reg(*base)),
            MOp::Mem {
                base,
                offset,
                uniform: Some(u),
            } => format!("[{}+UR{u}{offset:+#x}]", self.reg(*base)),
            MOp::UMem {
                base,
                ubase,
                offset,
                scale,
            } => {
                let x = ["", ".X4", ".X8", ".X16"][usize::from(*scale & 3)];
                format!("[{}{x}+{}{offset:+#x}]", self.reg(*base), self.reg(*ubase))
            }
            MOp::UAddr { ubase, offset } => format!("[{}{offset:+#x}]", self.reg(*ubase)),
            MOp::CMem { bank, base, offset } => format!("c[{bank:#x}][{}{offset:+#x}]", self.reg(*base)),
            MOp::Sp => "SP".to_string(),
            MOp::SpMem { offset } => format!("[SP{offset:+#x}]"),
            MOp::Fixed(val) => format!("{val:?}"),
        }
    }

    fn slot(&self, s: &Slot) -> String {
        let core = self.mop(&s.op);
        let core = if s.mods.abs { format!("|{core}|") } else { core };
        let core = if s.mods.swizzle != 0 {
            format!("{core}.sw{}", s.mods.swizzle)
        } else {
            core
        };
        format!("{:?}={}{core}", s.role, if s.mods.neg { "-" } else { "" })
    }

    /// One instruction as text.
    pub fn inst_text(&self, inst: &MInst) -> String {
        let mut s = String::new();
        if let Some((g, neg)) = inst.guard {
            let _ = write!(s, "@{}{} ", if neg { "!" } else { "" }, self.reg(g));
        }
        match &inst.kind {
            MKind::Sass { op, slots, mods } => {
                let _ = write!(s, "{op:?}");
                for m in mods {
                    let _ = write!(s, ".{:?}={}", m.id, m.code);
                }
                let parts: Vec<String> = slots.iter().map(|x| self.slot(x)).collect();
                let _ = write!(s, " {}", parts.join(", "));
            }
            MKind::Wide { op, d, srcs, tmp } => {
                let parts: Vec<String> = srcs.iter().map(|o| self.mop(o)).collect();
                let _ = write!(s, "wide.{op:?} {}, {}", self.reg(*d), parts.join(", "));
                if let Some(t) = tmp {
                    let _ = write!(s, " (tmp {})", self.reg(*t));
                }
            }
            MKind::Jump(b) => {
                let _ = write!(s, "jump b{}", b.0);
            }
            MKind::CondJump {
                cond,
                neg,
                taken,
                not_taken,
                uniform,
                active_agree,
            } => {
                let c = format!("{}{}", if *neg { "!" } else { "" }, self.reg(*cond));
                let u = match (uniform, active_agree) {
                    (_, true) => ".u",
                    (true, false) => ".uniform",
                    (false, false) => "",
                };
                let _ = write!(s, "brif{u} {c}, b{}, b{}", taken.0, not_taken.0);
            }
            MKind::Exit => s.push_str("exit"),
            MKind::Trap => s.push_str("trap"),
            MKind::Call { target, args, ret } => {
                let parts: Vec<String> = args.iter().map(|a| self.reg(*a)).collect();
                let name = match target {
                    crate::vcode::CallTarget::Driver { f, .. } => f.name().to_string(),
                    crate::vcode::CallTarget::Function(n) => format!("function {n}"),
                };
                let _ = write!(s, "{} = call {name}({})", self.reg(*ret), parts.join(", "));
            }
            MKind::ArgArea(d) => {
                let _ = write!(s, "{} = arg_area", self.reg(*d));
            }
            MKind::FuncReturn => s.push_str("return"),
            MKind::SubCall(b) => {
                let _ = write!(s, "subcall b{}", b.0);
            }
            MKind::Return { to, n } => {
                let _ = write!(s, "return {n} to b{}", to.0);
            }
            MKind::ReturnAddress { of, n } => {
                let _ = write!(s, "return address {n} = b{}", of.0);
            }
        }
        if let Some(k) = inst.keep {
            let _ = write!(s, " (keep {})", self.reg(k));
        }
        s
    }
}

impl fmt::Display for VCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "vcode {} {{", self.name)?;
        for (i, b) in self.blocks.iter().enumerate() {
            let params: Vec<String> = b.params.iter().map(|&p| self.reg(p)).collect();
            writeln!(f, "b{i}({}):", params.join(", "))?;
            for inst in &self.insts[b.start as usize..b.end as usize] {
                writeln!(f, "    {}", self.inst_text(inst))?;
            }
            for (s, args) in b.succs.iter().zip(&b.succ_args) {
                if !args.is_empty() {
                    let a: Vec<String> = args.iter().map(|&v| self.reg(v)).collect();
                    writeln!(f, "    ; -> b{}({})", s.0, a.join(", "))?;
                }
            }
        }
        writeln!(f, "}}")
    }
}
