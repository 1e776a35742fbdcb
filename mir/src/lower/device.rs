//! Device functions kept as calls (`LowerOptions::keep_calls`), as ptxas keeps every
//! `call` of a `.func`: each function a kernel calls, directly or through another, is
//! lowered once into the kernel's `Function::callees`, and a call becomes one `call_func`.
//!
//! Arguments and return values travel through an argument area in the caller's local
//! memory (a variable of the caller's frame): the caller stores each argument at its
//! offset ([`AreaLayout`]), calls with the area's address, and reads the return values
//! back from it; the device function starts with `arg_area` (that address), copies its
//! parameters into its own variables and registers, and at `ret` stores its return values
//! into the area before `return`. Predicates travel as 32-bit 0 or 1. A device function
//! that calls itself, directly or not, is refused: the stack is sized statically.

use super::LowerError;
use super::blocks;
use super::call::Binding;
use super::context::{LowerOptions, Lowerer, mir_type};
use crate::ir::{Aux, Function, InstData, Linkage, MemVar, Opcode, Space, Type, Value};
use ptxc_frontend::ast::ScalarType;
use ptxc_frontend::checked::{CheckedFunction, CheckedInst, CheckedModule, CheckedOperand, ParamInfo};

/// Where each parameter and return value of a device function sits in an argument area:
/// parameters in order, then return values, each aligned to its own alignment.
pub(super) struct AreaLayout {
    /// Offset of each parameter.
    params: Vec<u32>,
    /// Offset of each return value.
    returns: Vec<u32>,
    /// Size of the area in bytes (a multiple of 8).
    pub size: u32,
}

/// The bytes and alignment one parameter or return value takes in an argument area.
fn slot_extent(f: &CheckedFunction, p: &ParamInfo) -> (u32, u32) {
    match p.reg {
        Some(r) => {
            let elem = slot_type(p.ty).bytes();
            (elem * f.regs[r.0 as usize].vector.max(1), elem)
        }
        None => (p.size, p.align.clamp(1, 16)),
    }
}

/// The type of one register element in an argument area (predicates as `i32`).
fn slot_type(t: ScalarType) -> Type {
    match mir_type(t) {
        Type::Pred => Type::I32,
        ty => ty,
    }
}

impl AreaLayout {
    /// The layout of `f`'s parameters and return values.
    pub fn of(f: &CheckedFunction) -> AreaLayout {
        let mut at = 0u32;
        let mut place = |p: &ParamInfo| {
            let (size, align) = slot_extent(f, p);
            let off = at.next_multiple_of(align);
            at = off + size;
            off
        };
        let params = f.params.iter().map(&mut place).collect();
        let returns = f.returns.iter().map(&mut place).collect();
        AreaLayout {
            params,
            returns,
            size: at.next_multiple_of(8).max(8),
        }
    }
}

/// A place in local memory: an address value plus a byte offset.
#[derive(Clone, Copy)]
pub(super) struct LocalAt {
    /// The address (a local address, `i64`).
    pub addr: Value,
    /// Added to it.
    pub offset: i64,
}

/// Lowers device function `src` on its own; `names` lists the kernel's callees so far
/// (calls add to it) and is handed back.
pub(super) fn lower_device_function(
    m: &CheckedModule,
    src: &CheckedFunction,
    options: LowerOptions,
    names: Vec<String>,
) -> Result<(Function, Vec<String>), Vec<LowerError>> {
    let mut func = Function::new(&src.name);
    func.is_device_function = true;
    func.linkage = match src.linkage {
        ptxc_frontend::ast::Linkage::Visible => Linkage::Visible,
        ptxc_frontend::ast::Linkage::Weak => Linkage::Weak,
        _ => Linkage::Internal,
    };
    let segments = blocks::split(src).map_err(|_| vec![LowerError::new("branch to an unknown label", src.span)])?;
    let mut l = Lowerer::new(m, src, func, options)?;
    l.callee_names = names;
    let layout = AreaLayout::of(src);
    // The prologue has a block of its own: the body's first block may head a loop.
    let prologue = l.cur;
    l.ssa.seal(&mut l.func, prologue);
    // With a return target, the parameters are variables of the function's own.
    let ret = l.func.add_block();
    l.frame.ret_target = Some(ret);
    let area = l.emit(Opcode::ArgArea, Type::I64, &[], Aux::None);
    for (p, &off) in src.params.iter().zip(&layout.params) {
        l.receive_parameter(
            p,
            LocalAt {
                addr: area,
                offset: off.into(),
            },
        )
        .map_err(|e| vec![e])?;
    }
    let body = l.func.add_block();
    l.jump(body);
    l.cur = body;
    l.lower_segments(&segments)?;
    l.ssa.seal(&mut l.func, ret);
    l.cur = ret;
    for (p, &off) in src.returns.iter().zip(&layout.returns) {
        l.send_return(
            p,
            LocalAt {
                addr: area,
                offset: off.into(),
            },
        )
        .map_err(|e| vec![e])?;
    }
    l.func.append(
        ret,
        InstData {
            op: Opcode::Return,
            ty: Type::I32,
            args: Default::default(),
            aux: Aux::None,
        },
        &[],
    );
    let names = std::mem::take(&mut l.callee_names);
    Ok((l.finish(), names))
}

impl<'a> Lowerer<'a> {
    /// The index of device function `name` in the kernel's callees (added if new).
    fn callee_index(&mut self, name: &str) -> usize {
        match self.callee_names.iter().position(|n| n == name) {
            Some(i) => i,
            None => {
                self.callee_names.push(name.to_string());
                self.callee_names.len() - 1
            }
        }
    }

    /// `call (rets), callee, (args)` kept as a call: the arguments into a new argument
    /// area, `call_func`, the return values out of it.
    pub(super) fn call_device_function(
        &mut self,
        inst: &CheckedInst,
        callee: &'a CheckedFunction,
        rets: &[CheckedOperand],
        args: &[CheckedOperand],
    ) -> Result<(), LowerError> {
        self.func.calls_functions = true;
        let index = self.callee_index(&callee.name);
        let layout = AreaLayout::of(callee);
        let var = self.func.vars.len() as u32;
        self.func.vars.push(MemVar {
            name: format!("{}.args.{var}", callee.name),
            space: Space::Local,
            size: layout.size.into(),
            align: 16,
            init: None,
            relocs: Vec::new(),
        });
        let addr = self.emit(Opcode::Addr, Type::I64, &[], Aux::Var(var));
        for ((a, p), &off) in args.iter().zip(&callee.params).zip(&layout.params) {
            let b = self.bind_argument(inst, a, p)?;
            self.store_argument(
                inst,
                b,
                p,
                LocalAt {
                    addr,
                    offset: off.into(),
                },
            )?;
        }
        let data = InstData {
            op: Opcode::CallFunc,
            ty: Type::I64,
            args: smallvec::smallvec![addr],
            aux: Aux::Imm(index as u64),
        };
        self.func.ins(self.cur, data);
        for ((r, p), &off) in rets.iter().zip(&callee.returns).zip(&layout.returns) {
            let at = LocalAt {
                addr,
                offset: off.into(),
            };
            let v = match p.reg {
                Some(_) => Binding::Regs(self.load_elements(callee, p, at)),
                None => Binding::At(at),
            };
            self.store_return(inst, r, p, v)?;
        }
        Ok(())
    }

    /// Stores one bound argument of parameter `p` at `at`.
    fn store_argument(&mut self, inst: &CheckedInst, b: Binding, p: &ParamInfo, at: LocalAt) -> Result<(), LowerError> {
        match b {
            Binding::Regs(vals) => {
                self.store_elements(p, &vals, at);
                Ok(())
            }
            Binding::Copy(from) => {
                let src = self.emit(Opcode::Addr, Type::I64, &[], Aux::Var(from));
                let space = self.func.vars[from as usize].space;
                let align = self.func.vars[from as usize].align.min(16);
                self.copy_bytes(
                    (LocalAt { addr: src, offset: 0 }, space),
                    (at, Space::Local),
                    p.size.into(),
                    align,
                );
                Ok(())
            }
            Binding::Store(v) => {
                let info = Self::plain_mem(Space::Local, at.offset, 1);
                self.store(self.func.ty(v), vec![at.addr, v], info);
                Ok(())
            }
            Binding::At(_) => Err(LowerError::new("argument does not match the parameter", inst.span)),
        }
    }

    /// Stores register elements `vals` of `p` from `at` on (predicates as 0 or 1).
    fn store_elements(&mut self, p: &ParamInfo, vals: &[Value], at: LocalAt) {
        let ty = slot_type(p.ty);
        for (k, &v) in vals.iter().enumerate() {
            let v = if self.func.ty(v) == Type::Pred {
                let (one, zero) = (self.konst(Type::I32, 1), self.konst(Type::I32, 0));
                self.emit(Opcode::Select, Type::I32, &[v, one, zero], Aux::None)
            } else {
                v
            };
            let info = Self::plain_mem(Space::Local, at.offset + (k as u32 * ty.bytes()) as i64, 1);
            self.store(self.func.ty(v), vec![at.addr, v], info);
        }
    }

    /// Loads the register elements of `p` (a `.reg` parameter or return value of `f`)
    /// from `at` on.
    fn load_elements(&mut self, f: &CheckedFunction, p: &ParamInfo, at: LocalAt) -> Vec<Value> {
        let r = p.reg.expect("a register parameter");
        let ty = slot_type(p.ty);
        (0..f.regs[r.0 as usize].vector.max(1))
            .map(|k| {
                let v = self.load_local(ty, at.addr, at.offset + (k * ty.bytes()) as i64);
                if mir_type(p.ty) == Type::Pred {
                    let zero = self.konst(Type::I32, 0);
                    self.emit_typed(
                        Opcode::Icmp,
                        Type::I32,
                        &[v, zero],
                        Aux::Cond(crate::ir::Cond::Ne),
                        Type::Pred,
                    )
                } else {
                    v
                }
            })
            .collect()
    }

    /// A load of `ty` from local address `addr` plus `offset`.
    pub(super) fn load_local(&mut self, ty: Type, addr: Value, offset: i64) -> Value {
        let data = InstData {
            op: Opcode::Load,
            ty,
            args: smallvec::smallvec![addr],
            aux: Aux::Mem(Self::plain_mem(Space::Local, offset, 1)),
        };
        let i = self.func.ins(self.cur, data);
        self.func.results[i][0]
    }

    /// In a device function's prologue: parameter `p` from the argument area at `at`.
    fn receive_parameter(&mut self, p: &ParamInfo, at: LocalAt) -> Result<(), LowerError> {
        let src = self.src;
        match p.reg {
            Some(r) => {
                let vals = self.load_elements(src, p, at);
                for (k, v) in vals.into_iter().enumerate() {
                    let id = self.elem_id(r, k as u8);
                    self.write_reg(id, v, p.ty.is_signed(), p.span)?;
                }
            }
            None => {
                let to = self.slot_of(p);
                let dst = self.emit(Opcode::Addr, Type::I64, &[], Aux::Var(to));
                let align = self.func.vars[to as usize].align.min(16);
                let to_at = LocalAt { addr: dst, offset: 0 };
                self.copy_bytes((at, Space::Local), (to_at, Space::Local), p.size.into(), align);
            }
        }
        Ok(())
    }

    /// At a device function's `ret`: return value `p` into the argument area at `at`.
    fn send_return(&mut self, p: &ParamInfo, at: LocalAt) -> Result<(), LowerError> {
        match p.reg {
            Some(r) => {
                let n = self.reg_width(r) as u8;
                let vals: Vec<Value> = (0..n).map(|k| self.read_id(self.elem_id(r, k))).collect();
                self.store_elements(p, &vals, at);
            }
            None => {
                let from = self.slot_of(p);
                let src = self.emit(Opcode::Addr, Type::I64, &[], Aux::Var(from));
                let align = self.func.vars[from as usize].align.min(16);
                let from_at = LocalAt { addr: src, offset: 0 };
                self.copy_bytes((from_at, Space::Local), (at, Space::Local), p.size.into(), align);
            }
        }
        Ok(())
    }

    /// Copies `size` bytes from `from` to `to` (places with their state spaces), in the
    /// widest chunks that `align` (both places' alignment) and the size allow.
    pub(super) fn copy_bytes(&mut self, from: (LocalAt, Space), to: (LocalAt, Space), size: u64, align: u32) {
        let chunk = [8u64, 4, 2, 1]
            .into_iter()
            .find(|c| *c <= u64::from(align.clamp(1, 8)) && size.is_multiple_of(*c))
            .unwrap_or(1);
        let ty = Type::int(chunk as u32 * 8).expect("chunk width");
        for k in 0..size / chunk {
            let off = (k * chunk) as i64;
            let data = InstData {
                op: Opcode::Load,
                ty,
                args: smallvec::smallvec![from.0.addr],
                aux: Aux::Mem(Self::plain_mem(from.1, from.0.offset + off, 1)),
            };
            let i = self.func.ins(self.cur, data);
            let v = self.func.results[i][0];
            let store = Self::plain_mem(to.1, to.0.offset + off, 1);
            self.store(ty, vec![to.0.addr, v], store);
        }
    }
}
