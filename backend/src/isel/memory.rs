//! Loads and stores of global (and generic) memory: LDG/STG of 1 to 16 bytes, vectors as
//! register pairs and quads, with `[Ra.64+offset]` address folding.

use super::fit::Arg;
use super::{Isel, IselError, class_of};
use crate::isa::{Op, Role};
use crate::vcode::{MInst, MKind, MOp, VClass, VReg, WideOp};
use ptxc_mir::ir::{Aux, Inst, MemInfo, Opcode, Space, Type, Value};
use smallvec::SmallVec;

/// Size code of LDG/STG for an access of `bytes` (sm75-encoding.md B.4).
fn size_code(bytes: u32) -> Option<u16> {
    match bytes {
        1 => Some(0),
        2 => Some(2),
        4 => Some(4),
        8 => Some(5),
        16 => Some(6),
        _ => None,
    }
}

/// The register class holding `bytes` of data.
fn tuple_class(bytes: u32) -> VClass {
    match bytes {
        16 => VClass::Quad,
        8 => VClass::Pair,
        _ => VClass::Single,
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

    /// Bytes of a vector access and whether its elements fill whole registers.
    fn access_shape(&self, ty: Type, n: usize) -> Result<u32, IselError> {
        let bytes = ty.bytes() * n as u32;
        if n > 1 && ty.bytes() < 4 {
            return Err(self.unsupported(format!("vectors of {n} {ty} values")));
        }
        Ok(bytes)
    }

    /// Selects a memory instruction.
    pub(super) fn lower_memory(&mut self, inst: Inst) -> Result<(), IselError> {
        match self.func.insts[inst].op {
            Opcode::Load => self.lower_load(inst),
            Opcode::Store => self.lower_store(inst),
            other => Err(self.unsupported(format!("MIR `{}`", other.name()))),
        }
    }

    /// `load`: the destination is a register, pair or quad; vector elements alias its registers.
    pub fn lower_load(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let Aux::Mem(info) = data.aux else {
            return Err(self.unsupported("load without memory info"));
        };
        self.check_space(&info)?;
        let results = self.func.results[inst].clone();
        let ty = data.ty;
        let bytes = self.access_shape(ty, results.len())?;
        let mods = self.mem_mods(&info, bytes)?;
        let addr = self.address(data.args[0], info.offset)?;
        let d = if results.len() == 1 {
            self.def_reg(results[0])
        } else {
            self.vcode.new_vreg(tuple_class(bytes))
        };
        self.emit_sass(
            Op::Ldg,
            &[(Role::Dst, MOp::Reg(d))],
            &[(Role::Addr, Arg::op(addr))],
            &mods,
            None,
        )?;
        if results.len() > 1 {
            let regs_per = (ty.bytes() / 4) as u8;
            for (i, &r) in results.iter().enumerate() {
                let first = i as u8 * regs_per;
                if regs_per == 1 {
                    self.alias_sub(r, d, first);
                } else {
                    let pair = self.def_reg(r);
                    self.push(MInst::new(MKind::Wide {
                        op: WideOp::Mov,
                        d: pair,
                        srcs: smallvec::smallvec![MOp::Sub(d, first)],
                        tmp: None,
                    }));
                }
            }
        }
        Ok(())
    }

    /// `store`: vector data is packed into a pair or quad unless it already is one.
    pub fn lower_store(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let Aux::Mem(info) = data.aux else {
            return Err(self.unsupported("store without memory info"));
        };
        self.check_space(&info)?;
        let (ty, values) = (data.ty, data.args[1..].to_vec());
        let bytes = self.access_shape(ty, values.len())?;
        let mods = self.mem_mods(&info, bytes)?;
        let addr = self.address(data.args[0], info.offset)?;
        let v = self.store_data(ty, &values, bytes);
        self.emit_sass(
            Op::Stg,
            &[],
            &[(Role::Addr, Arg::op(addr)), (Role::Data, Arg::op(v))],
            &mods,
            None,
        )
    }

    /// The register (or tuple) holding the data of a store.
    fn store_data(&mut self, ty: Type, values: &[Value], bytes: u32) -> MOp {
        if values.len() == 1 {
            return MOp::Reg(self.reg(values[0]));
        }
        if let Some(t) = self.same_tuple(values, bytes) {
            return MOp::Reg(t);
        }
        let mut parts: SmallVec<[MOp; 3]> = SmallVec::new();
        for &v in values {
            if class_of(ty) == VClass::Pair {
                let r = self.reg(v);
                parts.extend([MOp::Sub(r, 0), MOp::Sub(r, 1)]);
            } else {
                parts.push(self.src_op(v));
            }
        }
        let d = self.vcode.new_vreg(tuple_class(bytes));
        self.push(MInst::new(MKind::Wide {
            op: WideOp::Pack,
            d,
            srcs: parts,
            tmp: None,
        }));
        MOp::Reg(d)
    }

    /// The tuple whose registers are exactly `values` in order, if there is one.
    fn same_tuple(&self, values: &[Value], bytes: u32) -> Option<VReg> {
        let (t, _) = self.sub_of(values[0])?;
        let ok = values
            .iter()
            .enumerate()
            .all(|(i, &v)| self.sub_of(v) == Some((t, i as u8)));
        (ok && self.vcode.class(t) == tuple_class(bytes)).then_some(t)
    }
}
