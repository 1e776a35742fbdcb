//! Loads and stores of global (and generic) memory: LDG/STG with `[Ra.64+offset]` folding.

use super::fit::Arg;
use super::{Isel, IselError};
use crate::isa::{Op, Role};
use crate::vcode::MOp;
use ptxc_mir::ir::{Aux, Inst, MemInfo, Opcode, Space, Type, Value};

/// Size code of LDG/STG for an access of `bytes` (sm75-encoding.md B.4).
fn size_code(bytes: u32) -> Option<u16> {
    match bytes {
        4 => Some(4),
        8 => Some(5),
        16 => Some(6),
        _ => None,
    }
}

/// True if `offset` fits the signed 24-bit address offset.
fn fits24(offset: i64) -> bool {
    (-(1 << 23)..(1 << 23)).contains(&offset)
}

impl Isel<'_> {
    /// The address operand: a 64-bit register plus a constant offset (an `iadd x, const`
    /// feeding the address folds into the offset).
    fn address(&mut self, addr: Value, offset: i64) -> Result<MOp, IselError> {
        if self.func.ty(addr) != Type::I64 {
            return Err(self.unsupported("32-bit addresses"));
        }
        let folded = self.def_of(addr).and_then(|d| {
            if d.op != Opcode::Iadd || d.ty != Type::I64 {
                return None;
            }
            match self.def_of(d.args[1]).map(|c| (c.op, &c.aux)) {
                Some((Opcode::Const, Aux::Imm(k))) if fits24(offset + *k as i64) => {
                    Some((d.args[0], offset + *k as i64))
                }
                _ => None,
            }
        });
        let (base, total) = folded.unwrap_or((addr, offset));
        if !fits24(total) {
            return Err(self.unsupported("address offsets beyond 24 bits"));
        }
        Ok(MOp::Mem {
            base: self.reg(base),
            offset: total as i32,
        })
    }

    fn mem_mods(&self, info: &MemInfo, bytes: u32) -> Result<Vec<(&'static str, u16)>, IselError> {
        let size = size_code(bytes).ok_or_else(|| self.unsupported(format!("{bytes}-byte memory accesses")))?;
        let sem = match (info.non_coherent, info.volatile) {
            (true, _) => 0,
            (false, true) => 2,
            _ => 1,
        };
        Ok(vec![("e", 1), ("size", size), ("sem", sem), ("scope", 3)])
    }

    fn check_space(&self, info: &MemInfo) -> Result<(), IselError> {
        match info.space {
            Space::Global | Space::Generic => Ok(()),
            s => Err(self.unsupported(format!("{}-space memory accesses", s.name()))),
        }
    }

    /// `load`.
    pub fn lower_load(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let Aux::Mem(info) = data.aux else {
            return Err(self.unsupported("load without memory info"));
        };
        self.check_space(&info)?;
        let results = self.func.results[inst].clone();
        if results.len() != 1 {
            return Err(self.unsupported("vector loads"));
        }
        let mods = self.mem_mods(&info, data.ty.bytes())?;
        let addr = self.address(data.args[0], info.offset)?;
        let d = MOp::Reg(self.def_reg(results[0]));
        self.emit_sass(Op::Ldg, &[(Role::Dst, d)], &[(Role::Addr, Arg::op(addr))], &mods, None)
    }

    /// `store`.
    pub fn lower_store(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let Aux::Mem(info) = data.aux else {
            return Err(self.unsupported("store without memory info"));
        };
        self.check_space(&info)?;
        if data.args.len() != 2 {
            return Err(self.unsupported("vector stores"));
        }
        let (ty, value) = (data.ty, data.args[1]);
        let mods = self.mem_mods(&info, ty.bytes())?;
        let addr = self.address(data.args[0], info.offset)?;
        let v = MOp::Reg(self.reg(value));
        self.emit_sass(
            Op::Stg,
            &[],
            &[(Role::Addr, Arg::op(addr)), (Role::Data, Arg::op(v))],
            &mods,
            None,
        )
    }
}
