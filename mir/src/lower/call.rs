//! `call` of a device function: kept as a call when `LowerOptions::keep_calls` is set
//! (`device.rs`), else inlined. Inlined, the callee's registers get fresh SSA ids, its
//! `.param` parameters and return values become local-memory variables filled from the
//! caller's arguments (copied byte for byte from a caller `.param` variable, or stored from
//! a register or immediate), `.reg` parameters are bound directly, and `ret` jumps to the
//! block after the call; recursion is refused. A call through a function pointer compares
//! it with the address of every function whose signature fits and calls (or inlines) the
//! one that matches. Calls of the functions the driver provides (`vprintf`, `malloc`,
//! `free`, `__assertfail`) become one `call_driver` instruction with the argument values.

use super::LowerError;
use super::blocks;
use super::context::{Frame, Lowerer, mir_type, register_slots};
use super::device::LocalAt;
use super::memory::VarPlace;
use crate::ir::{Aux, DriverFn, Opcode, Space, Type, Value};
use ptxc_frontend::checked::{CheckedFunction, CheckedInst, CheckedOperand, ParamInfo};

/// A bound argument: values to write into a callee `.reg`, or bytes to copy.
pub(super) enum Binding {
    /// Element values of a `.reg` parameter.
    Regs(Vec<Value>),
    /// Caller variable (MIR variable index) whose bytes fill the callee's slot.
    Copy(u32),
    /// One value stored into the callee's slot.
    Store(Value),
    /// Bytes at this place of an argument area (a return value of a kept call).
    At(LocalAt),
}

impl<'a> Lowerer<'a> {
    /// `call (rets), f, (args)`, or through a function pointer (`call (rets), %rd, (args),
    /// prototype`): the pointer is compared with the address of every device function of the
    /// module whose signature fits, and the matching one is inlined; no match traps.
    pub fn lower_call(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        match &inst.operands[..] {
            [
                CheckedOperand::List(rets),
                CheckedOperand::Func(name),
                CheckedOperand::List(args),
                ..,
            ] => self.lower_direct_call(inst, name, rets, args),
            [CheckedOperand::List(rets), target, CheckedOperand::List(args), ..] => {
                self.lower_indirect_call(inst, target, rets, args)
            }
            _ => Err(self.refuse(inst, "this form of `call`")),
        }
    }

    fn lower_indirect_call(
        &mut self,
        inst: &CheckedInst,
        target: &CheckedOperand,
        rets: &[CheckedOperand],
        args: &[CheckedOperand],
    ) -> Result<(), LowerError> {
        let ptr = self.operand(target, Type::I64, false, inst.span)?;
        let module = self.module;
        let candidates: Vec<&'a CheckedFunction> = module
            .functions
            .iter()
            .filter(|f| !f.is_entry && f.params.len() == args.len() && f.returns.len() == rets.len())
            .filter(|f| !self.call_stack.contains(&f.name))
            .collect();
        let join = self.func.add_block();
        for f in candidates {
            let (hit, next) = (self.func.add_block(), self.func.add_block());
            let addr = self.konst(Type::I64, ptxc_frontend::checked::function_address(&f.name));
            let is = self.emit_typed(
                Opcode::Icmp,
                Type::I64,
                &[ptr, addr],
                Aux::Cond(crate::ir::Cond::Eq),
                Type::Pred,
            );
            self.brif(is, hit, next);
            self.ssa.seal(&mut self.func, hit);
            self.ssa.seal(&mut self.func, next);
            self.cur = hit;
            self.lower_direct_call(inst, &f.name, rets, args)?;
            self.jump(join);
            self.cur = next;
        }
        // No function has this address.
        self.emit_multi(Opcode::Trap, Type::I32, &[], Aux::None);
        self.ssa.seal(&mut self.func, join);
        self.cur = join;
        Ok(())
    }

    fn lower_direct_call(
        &mut self,
        inst: &CheckedInst,
        name: &String,
        rets: &[CheckedOperand],
        args: &[CheckedOperand],
    ) -> Result<(), LowerError> {
        let module = self.module;
        let callee = module.function(name).filter(|f| !f.is_entry);
        let callee: &'a CheckedFunction = match (callee, DriverFn::by_name(name)) {
            (Some(f), _) => f,
            (None, Some(d)) => return self.lower_driver_call(inst, d, rets, args),
            (None, None) => return Err(LowerError::new(format!("`{name}` has no body to call"), inst.span)),
        };
        if self.options.keep_calls {
            return self.call_device_function(inst, callee, rets, args);
        }
        if self.call_stack.contains(name) {
            return Err(LowerError::new(
                format!("`{name}` is recursive; ptxc inlines calls and cannot lower recursion"),
                inst.span,
            ));
        }
        self.func.calls_functions = true;
        let bindings = args
            .iter()
            .zip(&callee.params)
            .map(|(a, p)| self.bind_argument(inst, a, p))
            .collect::<Result<Vec<_>, _>>()?;
        let saved = (self.src, std::mem::take(&mut self.frame), self.guard.take());
        let cont = self.func.add_block();
        let entry = self.func.add_block();
        self.frame = Frame {
            reg_base: self.ssa.add_regs(register_slots(callee)),
            vars: Default::default(),
            ret_target: Some(cont),
        };
        self.src = callee;
        self.call_stack.push(name.clone());
        for (b, p) in bindings.into_iter().zip(&callee.params) {
            self.fill_parameter(inst, b, p)?;
        }
        self.jump(entry);
        self.cur = entry;
        let body = self.inline_body(inst, callee);
        self.ssa.seal(&mut self.func, cont);
        self.cur = cont;
        let results = match body {
            Ok(()) => self.read_returns(inst, callee),
            Err(e) => Err(e),
        };
        self.call_stack.pop();
        let (src, frame, guard) = saved;
        (self.src, self.frame, self.guard) = (src, frame, guard);
        let results = results?;
        for ((r, p), v) in rets.iter().zip(&callee.returns).zip(results) {
            self.store_return(inst, r, p, v)?;
        }
        Ok(())
    }

    /// A call of driver function `d`: the arguments as values of the types of its signature
    /// (loaded from the caller's `.param` variables), one `call_driver`, and its result
    /// stored into the return variable or register.
    fn lower_driver_call(
        &mut self,
        inst: &CheckedInst,
        d: DriverFn,
        rets: &[CheckedOperand],
        args: &[CheckedOperand],
    ) -> Result<(), LowerError> {
        let sig = d.sig();
        if args.len() != sig.params.len() || rets.len() > usize::from(sig.ret.is_some()) {
            return Err(LowerError::new(
                format!(
                    "`{}` takes {} argument(s) and returns {}",
                    sig.name,
                    sig.params.len(),
                    if sig.ret.is_some() { "one value" } else { "nothing" }
                ),
                inst.span,
            ));
        }
        let vals = args
            .iter()
            .zip(sig.params)
            .map(|(a, &ty)| self.driver_argument(inst, a, ty))
            .collect::<Result<Vec<_>, _>>()?;
        self.func.calls_functions = true;
        let ret_ty = sig.ret.unwrap_or(Type::I32);
        let v = self.emit(Opcode::CallDriver, ret_ty, &vals, Aux::Imm(d.index()));
        let Some(dst) = rets.first() else {
            return Ok(());
        };
        match dst {
            CheckedOperand::VarAddr(var) => {
                let VarPlace::Mem(to, space) = self.var_place(*var) else {
                    return Err(LowerError::new("cannot return into a kernel parameter", inst.span));
                };
                let addr = self.emit(Opcode::Addr, Type::I64, &[], Aux::Var(to));
                self.store(ret_ty, vec![addr, v], Self::plain_mem(space, 0, 1));
                Ok(())
            }
            d => {
                let id = self
                    .dst_of(d)
                    .ok_or_else(|| LowerError::new("bad return destination", inst.span))?;
                self.write_reg(id, v, false, inst.span)
            }
        }
    }

    /// One argument of a driver call as a value of type `ty`.
    fn driver_argument(&mut self, inst: &CheckedInst, a: &CheckedOperand, ty: Type) -> Result<Value, LowerError> {
        match a {
            CheckedOperand::VarAddr(v) => match self.var_place(*v) {
                VarPlace::Mem(i, space) => {
                    let addr = self.emit(Opcode::Addr, Type::I64, &[], Aux::Var(i));
                    let data = crate::ir::InstData {
                        op: Opcode::Load,
                        ty,
                        args: smallvec::smallvec![addr],
                        aux: Aux::Mem(Self::plain_mem(space, 0, 1)),
                    };
                    let i = self.func.ins(self.cur, data);
                    Ok(self.func.results[i][0])
                }
                VarPlace::KernelParam(off) => Ok(self.emit(Opcode::Param, ty, &[], Aux::Param(off))),
            },
            other => self.operand(other, ty, false, inst.span),
        }
    }

    fn inline_body(&mut self, inst: &CheckedInst, callee: &CheckedFunction) -> Result<(), LowerError> {
        let segs = blocks::split(callee).map_err(|_| LowerError::new("branch to an unknown label", inst.span))?;
        self.lower_segments(&segs).map_err(|mut errs| {
            let first = errs.remove(0);
            self.push_errors(errs);
            first
        })
    }

    /// Evaluates one argument in the caller.
    pub(super) fn bind_argument(
        &mut self,
        inst: &CheckedInst,
        a: &CheckedOperand,
        p: &ParamInfo,
    ) -> Result<Binding, LowerError> {
        let ty = mir_type(p.ty);
        if p.reg.is_some() {
            let elems = self.elements(a);
            let vals = elems
                .iter()
                .map(|e| self.operand(e, ty, p.ty.is_signed(), inst.span))
                .collect::<Result<_, _>>()?;
            return Ok(Binding::Regs(vals));
        }
        match a {
            CheckedOperand::VarAddr(v) => match self.var_place(*v) {
                VarPlace::Mem(i, _) => Ok(Binding::Copy(i)),
                VarPlace::KernelParam(off) => Ok(Binding::Store(self.emit(Opcode::Param, ty, &[], Aux::Param(off)))),
            },
            other => Ok(Binding::Store(self.operand(other, ty, p.ty.is_signed(), inst.span)?)),
        }
    }

    /// Writes one bound argument into the callee (its frame is current).
    fn fill_parameter(&mut self, inst: &CheckedInst, b: Binding, p: &ParamInfo) -> Result<(), LowerError> {
        match (b, p.reg) {
            (Binding::Regs(vals), Some(r)) => {
                for (k, v) in vals.into_iter().enumerate() {
                    let id = self.elem_id(r, k as u8);
                    self.write_reg(id, v, p.ty.is_signed(), inst.span)?;
                }
                Ok(())
            }
            (Binding::Copy(from), None) => {
                let to = self.slot_of(p);
                self.copy_var(from, to, p.size as u64);
                Ok(())
            }
            (Binding::Store(v), None) => {
                let to = self.slot_of(p);
                let addr = self.emit(Opcode::Addr, Type::I64, &[], Aux::Var(to));
                let info = Self::plain_mem(Space::Local, 0, 1);
                self.store(self.func.ty(v), vec![addr, v], info);
                Ok(())
            }
            _ => Err(LowerError::new("argument does not match the parameter", inst.span)),
        }
    }

    /// The MIR variable of a callee `.param` parameter or return value.
    pub(super) fn slot_of(&mut self, p: &ParamInfo) -> u32 {
        match self.var_place(p.var) {
            VarPlace::Mem(i, _) => i,
            VarPlace::KernelParam(_) => unreachable!("device functions have no kernel parameters"),
        }
    }

    /// Copies `size` bytes between two variables.
    fn copy_var(&mut self, from: u32, to: u32, size: u64) {
        let src = self.emit(Opcode::Addr, Type::I64, &[], Aux::Var(from));
        let dst = self.emit(Opcode::Addr, Type::I64, &[], Aux::Var(to));
        let align = self.func.vars[from as usize]
            .align
            .min(self.func.vars[to as usize].align);
        let place = |addr, v: u32, this: &Self| (LocalAt { addr, offset: 0 }, this.func.vars[v as usize].space);
        let (from, to) = (place(src, from, self), place(dst, to, self));
        self.copy_bytes(from, to, size, align);
    }

    /// The callee's return values (its frame is current), as values or slots.
    fn read_returns(&mut self, inst: &CheckedInst, callee: &CheckedFunction) -> Result<Vec<Binding>, LowerError> {
        let mut out = Vec::new();
        for p in &callee.returns {
            out.push(match p.reg {
                Some(r) => {
                    let n = self.reg_width(r) as u8;
                    Binding::Regs((0..n).map(|k| self.read_id(self.elem_id(r, k))).collect())
                }
                None => Binding::Copy(self.slot_of(p)),
            });
        }
        let _ = inst;
        Ok(out)
    }

    /// Writes one return value into the caller's destination (the caller's frame is current).
    pub(super) fn store_return(
        &mut self,
        inst: &CheckedInst,
        dst: &CheckedOperand,
        p: &ParamInfo,
        v: Binding,
    ) -> Result<(), LowerError> {
        let ty = mir_type(p.ty);
        match (dst, v) {
            (CheckedOperand::VarAddr(var), Binding::Copy(slot)) => {
                let VarPlace::Mem(to, _) = self.var_place(*var) else {
                    return Err(LowerError::new("cannot return into a kernel parameter", inst.span));
                };
                self.copy_var(slot, to, p.size as u64);
                Ok(())
            }
            (d, Binding::Copy(slot)) => {
                let addr = self.emit(Opcode::Addr, Type::I64, &[], Aux::Var(slot));
                let data = crate::ir::InstData {
                    op: Opcode::Load,
                    ty,
                    args: smallvec::smallvec![addr],
                    aux: Aux::Mem(Self::plain_mem(Space::Local, 0, 1)),
                };
                let i = self.func.ins(self.cur, data);
                let v = self.func.results[i][0];
                let id = self
                    .dst_of(d)
                    .ok_or_else(|| LowerError::new("bad return destination", inst.span))?;
                self.write_reg(id, v, p.ty.is_signed(), inst.span)
            }
            (CheckedOperand::VarAddr(var), Binding::Regs(vals)) => {
                let VarPlace::Mem(to, space) = self.var_place(*var) else {
                    return Err(LowerError::new("cannot return into a kernel parameter", inst.span));
                };
                let addr = self.emit(Opcode::Addr, Type::I64, &[], Aux::Var(to));
                for (k, v) in vals.into_iter().enumerate() {
                    let info = Self::plain_mem(space, (k as u32 * ty.bytes()) as i64, 1);
                    self.store(self.func.ty(v), vec![addr, v], info);
                }
                Ok(())
            }
            (d, Binding::Regs(vals)) => {
                for (e, v) in self.elements(d).iter().zip(vals) {
                    if let Some(id) = self.dst_of(e) {
                        self.write_reg(id, v, p.ty.is_signed(), inst.span)?;
                    }
                }
                Ok(())
            }
            (CheckedOperand::VarAddr(var), Binding::At(at)) => {
                let VarPlace::Mem(to, space) = self.var_place(*var) else {
                    return Err(LowerError::new("cannot return into a kernel parameter", inst.span));
                };
                let addr = self.emit(Opcode::Addr, Type::I64, &[], Aux::Var(to));
                let align = self.func.vars[to as usize].align.min(16);
                self.copy_bytes(
                    (at, Space::Local),
                    (LocalAt { addr, offset: 0 }, space),
                    p.size.into(),
                    align,
                );
                Ok(())
            }
            (d, Binding::At(at)) => {
                let v = self.load_local(ty, at.addr, at.offset);
                let id = self
                    .dst_of(d)
                    .ok_or_else(|| LowerError::new("bad return destination", inst.span))?;
                self.write_reg(id, v, p.ty.is_signed(), inst.span)
            }
            (_, Binding::Store(_)) => unreachable!("returns are never stores"),
        }
    }
}
