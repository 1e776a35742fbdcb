//! Moves and memory: mov, ld, st, cvta, and kernel parameters (ld.param).

use super::LowerError;
use super::context::{Lowerer, mir_type};
use crate::ir::{Aux, InstData, MemInfo, Opcode, Space, Type, Value};
use ptxc_frontend::ast::StateSpace;
use ptxc_frontend::checked::{AddrBase, CacheOp, CheckedInst, CheckedOperand, MemOrder};

/// The MIR space of a PTX state space.
fn space_of(s: Option<StateSpace>) -> Space {
    match s {
        Some(StateSpace::Global) => Space::Global,
        Some(StateSpace::Shared) => Space::Shared,
        Some(StateSpace::Local) => Space::Local,
        Some(StateSpace::Const) => Space::Const,
        Some(StateSpace::Param) => Space::Param,
        _ => Space::Generic,
    }
}

impl Lowerer<'_> {
    /// `mov.type d, a`.
    pub fn lower_mov(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let t = inst
            .mods
            .ty()
            .ok_or_else(|| LowerError::new("mov needs a type", inst.span))?;
        let d = self.dst(inst, 0)?;
        let src = self.arg(inst, 1)?;
        if let CheckedOperand::VarAddr(_) | CheckedOperand::Vector(_) = src {
            return Err(LowerError::new(
                "`mov` of an address or vector is not supported by this version of ptxc",
                inst.span,
            ));
        }
        let v = self.operand(src, mir_type(t), t.is_signed(), inst.span)?;
        self.write_reg(d, v, t.is_signed(), inst.span)
    }

    /// `cvta[.to].space.size d, a`: on sm_75 a generic address of global memory is the global
    /// address itself; the shared and local windows need the window bases (not yet).
    pub fn lower_cvta(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let t = inst
            .mods
            .ty()
            .ok_or_else(|| LowerError::new("cvta needs a size", inst.span))?;
        if inst.mods.space != Some(StateSpace::Global) {
            return Err(LowerError::new(
                "`cvta` for shared, local and const memory is not supported by this version of ptxc",
                inst.span,
            ));
        }
        let d = self.dst(inst, 0)?;
        let v = self.operand(self.arg(inst, 1)?, mir_type(t), false, inst.span)?;
        self.write_reg(d, v, false, inst.span)
    }

    /// `ld[.space][.vN].type d, [addr]`.
    pub fn lower_ld(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let t = inst
            .mods
            .ty()
            .ok_or_else(|| LowerError::new("ld needs a type", inst.span))?;
        let ty = mir_type(t);
        let dsts = self.vector_regs(inst, 0)?;
        let (base, offset) = self.address(inst, 1)?;
        let space = space_of(inst.mods.space);
        let values: Vec<Value> = if space == Space::Param {
            let param_offset = self.param_offset(inst, base)?;
            (0..dsts.len())
                .map(|i| {
                    let off = (param_offset as i64 + offset + (i as u32 * ty.bytes()) as i64) as u32;
                    self.emit(Opcode::Param, ty, &[], Aux::Param(off))
                })
                .collect()
        } else {
            let addr = self.address_value(inst, base)?;
            let info = self.mem_info(inst, space, offset, dsts.len());
            let data = InstData {
                op: Opcode::Load,
                ty,
                args: smallvec::smallvec![addr],
                aux: Aux::Mem(info),
            };
            let i = self.func.append(self.cur, data, &vec![ty; dsts.len()]);
            self.func.results[i].to_vec()
        };
        for (d, v) in dsts.into_iter().zip(values) {
            if let Some(d) = d {
                self.write_reg(d, v, t.is_signed(), inst.span)?;
            }
        }
        Ok(())
    }

    /// `st[.space][.vN].type [addr], a`.
    pub fn lower_st(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let t = inst
            .mods
            .ty()
            .ok_or_else(|| LowerError::new("st needs a type", inst.span))?;
        let ty = mir_type(t);
        let space = space_of(inst.mods.space);
        if space == Space::Param {
            return Err(LowerError::new(
                "`st.param` is not supported by this version of ptxc",
                inst.span,
            ));
        }
        let (base, offset) = self.address(inst, 0)?;
        let addr = self.address_value(inst, base)?;
        let srcs: Vec<CheckedOperand> = match self.arg(inst, 1)? {
            CheckedOperand::Vector(v) => v.clone(),
            other => vec![other.clone()],
        };
        let mut args = vec![addr];
        for s in &srcs {
            args.push(self.operand(s, ty, t.is_signed(), inst.span)?);
        }
        let info = self.mem_info(inst, space, offset, srcs.len());
        let data = InstData {
            op: Opcode::Store,
            ty,
            args: args.into(),
            aux: Aux::Mem(info),
        };
        self.func.append(self.cur, data, &[]);
        Ok(())
    }

    fn mem_info(&self, inst: &CheckedInst, space: Space, offset: i64, n: usize) -> MemInfo {
        MemInfo {
            space,
            offset,
            vector: n as u8,
            non_coherent: inst.mods.cache == Some(CacheOp::Nc),
            volatile: matches!(
                inst.mods.order,
                Some(
                    MemOrder::Volatile
                        | MemOrder::Relaxed
                        | MemOrder::Acquire
                        | MemOrder::Release
                        | MemOrder::AcqRel
                        | MemOrder::Sc
                )
            ),
        }
    }

    /// Destination registers of a (possibly vector) operand; `None` for `_`.
    fn vector_regs(
        &self,
        inst: &CheckedInst,
        i: usize,
    ) -> Result<Vec<Option<ptxc_frontend::checked::RegId>>, LowerError> {
        match self.arg(inst, i)? {
            CheckedOperand::Reg(r) => Ok(vec![Some(*r)]),
            CheckedOperand::Vector(v) => v
                .iter()
                .map(|o| match o {
                    CheckedOperand::Reg(r) => Ok(Some(*r)),
                    CheckedOperand::Sink => Ok(None),
                    _ => Err(LowerError::new("vector destinations must be registers", inst.span)),
                })
                .collect(),
            _ => Err(LowerError::new("expected a destination register", inst.span)),
        }
    }

    fn address<'b>(&self, inst: &'b CheckedInst, i: usize) -> Result<(&'b AddrBase, i64), LowerError> {
        match self.arg(inst, i)? {
            CheckedOperand::Address { base, offset } => Ok((base, *offset)),
            _ => Err(LowerError::new("expected an address `[...]`", inst.span)),
        }
    }

    /// The address register value (64-bit).
    fn address_value(&mut self, inst: &CheckedInst, base: &AddrBase) -> Result<Value, LowerError> {
        match base {
            AddrBase::Reg(r) => {
                let ty = self.ssa.reg_type(*r);
                let v = self.ssa.read(&mut self.func, self.cur, *r);
                if ty == Type::I32 || ty == Type::I64 {
                    Ok(v)
                } else {
                    Err(LowerError::new(
                        "an address register must be 32 or 64 bits wide",
                        inst.span,
                    ))
                }
            }
            AddrBase::Absolute => Ok(self.konst(Type::I64, 0)),
            AddrBase::Var(_) => Err(LowerError::new(
                "addressing a variable by name is not supported by this version of ptxc",
                inst.span,
            )),
        }
    }

    /// The parameter-block offset of the kernel parameter named by `base`.
    fn param_offset(&self, inst: &CheckedInst, base: &AddrBase) -> Result<u32, LowerError> {
        let AddrBase::Var(v) = base else {
            return Err(LowerError::new("`ld.param` needs a parameter name", inst.span));
        };
        let var = &self.src.vars[v.0 as usize];
        self.src
            .params
            .iter()
            .find(|p| p.name == var.name)
            .map(|p| p.offset)
            .ok_or_else(|| LowerError::new(format!("`{}` is not a kernel parameter", var.name), inst.span))
    }
}
