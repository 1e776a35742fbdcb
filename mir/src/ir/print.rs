//! The MIR text form, which [`super::parse`] reads back. One instruction per line:
//!
//! ```text
//! kernel add(a: 8@0 align 8, out: 8@8 align 8) {
//!     var @buf: shared 1024 align 4
//! block0:
//!     v1 = param.i64 param+0
//!     v3 = iadd.i32 v1, v2
//!     v5 = load.global.f32 v4+8
//!     v6 = convert.s32.rz.sat.u8 v5
//!     brif v6, block2(v1), block3
//! }
//! ```
//!
//! Modifiers from the instruction's extra data follow the opcode (`.eq`, `.rn.ftz`,
//! `.global.v2`, `.shared.add`), then the type. Immediates (`0x..`), parameter offsets
//! (`param+N`), special registers (`%tid.x`), variables (`@name`) and branch targets are
//! trailing operands.

use super::entities::{Block, Inst};
use super::function::{Function, MemVar};
use super::inst::{Aux, BlockCall, ConvertInfo, SpecialReg};
use super::types::Type;
use std::fmt::{self, Write};

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let keyword = if self.is_device_function { "function" } else { "kernel" };
        write!(f, "{keyword} {}(", self.name)?;
        for (i, p) in self.params.iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            write!(f, "{sep}{}: {}@{} align {}", p.name, p.size, p.offset, p.align)?;
        }
        write!(f, ")")?;
        let dims = [
            ("reqntid", self.req_ntid),
            ("maxntid", self.max_ntid),
            ("reqnctapercluster", self.cluster_dims),
        ];
        for (name, dims) in dims {
            if let Some([x, y, z]) = dims {
                write!(f, " {name} {x} {y} {z}")?;
            }
        }
        if let Some(n) = self.max_nreg {
            write!(f, " maxnreg {n}")?;
        }
        if let Some(n) = self.max_cluster_rank {
            write!(f, " maxclusterrank {n}")?;
        }
        if self.explicit_cluster {
            write!(f, " explicitcluster")?;
        }
        writeln!(f, " {{")?;
        for v in &self.vars {
            writeln!(f, "    {}", var_text(v))?;
        }
        for &b in &self.layout {
            write_block(self, b, f)?;
        }
        writeln!(f, "}}")?;
        // A kernel's device functions follow it.
        for c in &self.callees {
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

/// A variable declaration line.
pub fn var_text(v: &MemVar) -> String {
    let mut s = format!("var @{}: {} {} align {}", v.name, v.space.name(), v.size, v.align);
    if let Some(init) = &v.init {
        s.push_str(" init 0x");
        for b in init {
            let _ = write!(s, "{b:02x}");
        }
    }
    for (off, var) in &v.relocs {
        let _ = write!(s, " reloc {off} {var}");
    }
    s
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

/// The PTX-style name of a type with signedness (`s32`, `u8`, `f32`, `pred`).
pub fn signed_type_name(ty: Type, signed: bool) -> String {
    if ty.is_int() {
        format!("{}{}", if signed { 's' } else { 'u' }, ty.bits())
    } else {
        ty.name().to_string()
    }
}

/// The PTX spelling of a special register (`%tid.x`).
pub fn special_name(sr: SpecialReg) -> String {
    use SpecialReg::*;
    let dim = |d: u8| ["x", "y", "z"].get(d as usize).copied().unwrap_or("?");
    match sr {
        Tid(d) => format!("%tid.{}", dim(d)),
        Ntid(d) => format!("%ntid.{}", dim(d)),
        Ctaid(d) => format!("%ctaid.{}", dim(d)),
        Nctaid(d) => format!("%nctaid.{}", dim(d)),
        ClusterId(d) => format!("%clusterid.{}", dim(d)),
        NClusterId(d) => format!("%nclusterid.{}", dim(d)),
        ClusterCtaId(d) => format!("%cluster_ctaid.{}", dim(d)),
        ClusterNctaId(d) => format!("%cluster_nctaid.{}", dim(d)),
        other => format!(
            "%{}",
            SPECIAL_NAMES.iter().find(|(s, _)| *s == other).map_or("?", |(_, n)| *n)
        ),
    }
}

/// Special registers without a dimension and their names (without `%`).
pub const SPECIAL_NAMES: &[(SpecialReg, &str)] = &[
    (SpecialReg::LaneId, "laneid"),
    (SpecialReg::WarpId, "warpid"),
    (SpecialReg::NWarpId, "nwarpid"),
    (SpecialReg::SmId, "smid"),
    (SpecialReg::NSmId, "nsmid"),
    (SpecialReg::GridId, "gridid"),
    (SpecialReg::LaneMaskEq, "lanemask_eq"),
    (SpecialReg::LaneMaskLe, "lanemask_le"),
    (SpecialReg::LaneMaskLt, "lanemask_lt"),
    (SpecialReg::LaneMaskGe, "lanemask_ge"),
    (SpecialReg::LaneMaskGt, "lanemask_gt"),
    (SpecialReg::Clock, "clock"),
    (SpecialReg::Clock64, "clock64"),
    (SpecialReg::GlobalTimer, "globaltimer"),
    (SpecialReg::GlobalTimerLo, "globaltimer_lo"),
    (SpecialReg::GlobalTimerHi, "globaltimer_hi"),
    (SpecialReg::TotalSmemSize, "total_smem_size"),
    (SpecialReg::DynamicSmemSize, "dynamic_smem_size"),
    (SpecialReg::WarpSize, "warpsize"),
    (SpecialReg::ClusterCtaRank, "cluster_ctarank"),
    (SpecialReg::ClusterNctaRank, "cluster_nctarank"),
    (SpecialReg::IsExplicitCluster, "is_explicit_cluster"),
];

fn convert_mods(s: &mut String, c: &ConvertInfo) {
    let _ = write!(s, ".{}", signed_type_name(c.from, c.from_signed));
    if let Some(r) = c.rnd {
        let _ = write!(s, ".{}", r.name());
    }
    if c.sat {
        s.push_str(".sat");
    }
    if c.ftz {
        s.push_str(".ftz");
    }
    if c.relu {
        s.push_str(".relu");
    }
}

/// The cache hints of a memory access (`.evict_last`, `.L2_128B`).
fn mem_hint(s: &mut String, h: crate::ir::inst::CacheHint) {
    use crate::ir::inst::{EVICT_NAMES, L2_PREFETCH_NAMES};
    if let Some((_, n)) = EVICT_NAMES.iter().find(|(e, _)| *e == h.evict) {
        let _ = write!(s, ".{n}");
    }
    if let Some((_, n)) = L2_PREFETCH_NAMES.iter().find(|(p, _)| *p == h.l2_prefetch) {
        let _ = write!(s, ".L2_{n}");
    }
    if h.policy {
        s.push_str(".policy");
    }
}

fn aux_mods(s: &mut String, aux: &Aux) {
    match aux {
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
            mem_hint(s, m.hint);
        }
        Aux::Float(m) => {
            if let Some(r) = m.rnd {
                let _ = write!(s, ".{}", r.name());
            }
            if m.ftz {
                s.push_str(".ftz");
            }
            if m.sat {
                s.push_str(".sat");
            }
            for (on, name) in [(m.relu, ".relu"), (m.nan, ".nan"), (m.xorsign, ".xorsign")] {
                if on {
                    s.push_str(name);
                }
            }
        }
        Aux::Convert(c) => convert_mods(s, c),
        Aux::Atom(a) => {
            let _ = write!(s, ".{}.{}", a.space.name(), a.op.name());
            if a.red {
                s.push_str(".red");
            }
        }
        Aux::Space(sp) => {
            let _ = write!(s, ".{}", sp.name());
        }
        _ => {}
    }
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
    aux_mods(&mut s, &data.aux);
    match &data.aux {
        Aux::Convert(c) => {
            let _ = write!(s, ".{}", signed_type_name(data.ty, c.to_signed));
        }
        _ => {
            let _ = write!(s, ".{}", data.ty);
        }
    }
    let mut args: Vec<String> = data.args.iter().map(|v| v.to_string()).collect();
    let offset = match &data.aux {
        Aux::Mem(m) => m.offset,
        Aux::Atom(a) => a.offset,
        _ => 0,
    };
    if offset != 0
        && let Some(a) = args.first_mut()
    {
        *a = format!("{a}{offset:+}");
    }
    match &data.aux {
        Aux::Imm(bits) => args.push(format!("{bits:#x}")),
        Aux::Special(sr) => args.push(special_name(*sr)),
        Aux::Param(off) => args.push(format!("param+{off}")),
        Aux::Var(i) => args.push(format!(
            "@{}",
            func.vars.get(*i as usize).map_or("?", |v| v.name.as_str())
        )),
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
