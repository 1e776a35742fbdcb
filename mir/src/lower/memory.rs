//! Moves and memory: mov (incl. vectors and variable addresses), ld, st, cvta, isspacep,
//! atom and red, kernel parameters (ld.param) and variables of every state space.
//!
//! Variables become MIR variables ([`crate::ir::MemVar`]) named by `addr`: module `.global`
//! and `.const` variables keep their space; `.shared` stays shared; `.local` variables and
//! the `.param` variables of device-function calls become local memory. Kernel parameters
//! are read with `param`; the address of one is its offset in the parameter block.

use super::LowerError;
use super::context::{Lowerer, mir_type};
use crate::ir::{
    AtomInfo, AtomOp, Aux, CacheHint, ConvertInfo, Evict, InstData, L2Prefetch, MemInfo, MemVar, Opcode, Space, Type,
    Value,
};
use ptxc_frontend::ast::{ScalarType, Span, StateSpace};
use ptxc_frontend::checked::{AddrBase, AtomOp as PAtom, CacheOp, CheckedInst, CheckedOperand, MemOrder, RegId, VarId};

/// The MIR space of a PTX state space.
pub fn space_of(s: Option<StateSpace>) -> Space {
    match s {
        Some(StateSpace::Global) => Space::Global,
        Some(StateSpace::Shared) => Space::Shared,
        Some(StateSpace::SharedCluster) => Space::SharedCluster,
        Some(StateSpace::Local) => Space::Local,
        Some(StateSpace::Const) => Space::Const,
        Some(StateSpace::Param) => Space::Param,
        _ => Space::Generic,
    }
}

/// Where a PTX variable lives for the lowering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarPlace {
    /// A kernel parameter at this parameter-block offset.
    KernelParam(u32),
    /// A MIR variable (index into `Function::vars`) in this space.
    Mem(u32, Space),
}

/// A resolved address: a base value (or a kernel parameter) and a constant offset.
pub(super) enum Address {
    /// `[param+off]` of a kernel parameter.
    Param(u32),
    /// A base value in `space` plus `offset`.
    Value(Value, Space, i64),
}

impl Lowerer<'_> {
    /// Where variable `v` of the current function lives, creating its MIR variable.
    pub fn var_place(&mut self, v: VarId) -> VarPlace {
        if self.frame.ret_target.is_none()
            && let Some(p) = self.src.params.iter().find(|p| p.var == v)
        {
            return VarPlace::KernelParam(p.offset);
        }
        if let Some(&i) = self.frame.vars.get(&v.0) {
            return VarPlace::Mem(i, self.func.vars[i as usize].space);
        }
        let info = &self.src.vars[v.0 as usize];
        let is_global = (v.0 as usize) < self.module.globals.len();
        let space = match info.space {
            StateSpace::Global => Space::Global,
            StateSpace::Const => Space::Const,
            StateSpace::Shared => Space::Shared,
            _ => Space::Local,
        };
        // Module variables and shared arrays exist once per kernel, however often the
        // function that names them is inlined.
        let once = is_global || space == Space::Shared;
        let shared_key = once.then(|| {
            if is_global {
                info.name.clone()
            } else {
                format!("{}.{}", self.src.name, info.name)
            }
        });
        let existing = shared_key.as_ref().and_then(|k| self.var_index.get(k).copied());
        let i = existing.unwrap_or_else(|| {
            let name = shared_key.unwrap_or_else(|| self.fresh_var_name(&info.name));
            self.var_index
                .entry(name.clone())
                .or_insert(self.func.vars.len() as u32);
            let init = info.init.clone().map(|mut b| {
                b.resize(info.size as usize, 0);
                b
            });
            self.func.vars.push(MemVar {
                name,
                space,
                size: info.size,
                align: info.align.max(1),
                init,
                relocs: Vec::new(),
            });
            self.func.vars.len() as u32 - 1
        });
        self.frame.vars.insert(v.0, i);
        if existing.is_none() {
            let relocs = self.src.vars[v.0 as usize].init_relocs.clone();
            for (off, target, _) in relocs {
                if let VarPlace::Mem(t, _) = self.var_place(target) {
                    self.func.vars[i as usize].relocs.push((off, t));
                }
            }
        }
        VarPlace::Mem(i, space)
    }

    /// `base`, or `base.k` with the smallest `k` not yet taken (a function inlined many times
    /// gets `x`, `x.1`, `x.2`, ... in constant time per copy).
    fn fresh_var_name(&mut self, base: &str) -> String {
        if !self.var_index.contains_key(base) {
            return base.to_string();
        }
        let mut k = self.var_suffix.get(base).copied().unwrap_or(1);
        let name = loop {
            let candidate = format!("{base}.{k}");
            if !self.var_index.contains_key(&candidate) {
                break candidate;
            }
            k += 1;
        };
        self.var_suffix.insert(base.to_string(), k + 1);
        name
    }

    /// The address of variable `v` plus `k` as a value of type `ty` (in the variable's space).
    pub fn var_address(&mut self, v: VarId, ty: Type, k: i64, span: Span) -> Result<Value, LowerError> {
        let base = match self.var_place(v) {
            VarPlace::KernelParam(off) => self.konst(Type::I64, off as u64),
            VarPlace::Mem(i, _) => self.emit(Opcode::Addr, Type::I64, &[], Aux::Var(i)),
        };
        let base = if k != 0 {
            let kv = self.konst(Type::I64, k as u64);
            self.emit(Opcode::Iadd, Type::I64, &[base, kv], Aux::None)
        } else {
            base
        };
        self.coerce(base, ty, false, span)
    }

    /// `mov.type d, a` (also vectors, packing, unpacking and variable addresses).
    pub fn lower_mov(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let t = self.ptx_type(inst)?;
        let ty = mir_type(t);
        let (dst, src) = (self.arg(inst, 0)?.clone(), self.arg(inst, 1)?.clone());
        let dsts = self.elements(&dst);
        if inst.mods.vector.is_some() {
            // Element-wise `mov.vN`.
            let srcs = self.elements(&src);
            let vals: Vec<Value> = srcs
                .iter()
                .map(|s| self.operand(s, ty, false, inst.span))
                .collect::<Result<_, _>>()?;
            for (d, v) in dsts.iter().zip(vals) {
                if let Some(id) = self.dst_of(d) {
                    self.write_reg(id, v, false, inst.span)?;
                }
            }
            return Ok(());
        }
        if dsts.len() > 1 {
            let whole = self.operand(&src, Type::int(ty.bits()).unwrap_or(ty), false, inst.span)?;
            let elem_bits = ty.bits() / dsts.len() as u32;
            for (i, d) in dsts.iter().enumerate() {
                if let Some(id) = self.dst_of(d) {
                    let part = self.extract_bits(whole, i as u32 * elem_bits, elem_bits);
                    self.write_reg(id, part, false, inst.span)?;
                }
            }
            return Ok(());
        }
        let d = self.dst(inst, 0)?;
        let v = self.operand(&src, ty, t.is_signed(), inst.span)?;
        self.write_reg(d, v, t.is_signed(), inst.span)
    }

    /// The SSA register id of a destination element (`None` for `_`).
    pub fn dst_of(&self, op: &CheckedOperand) -> Option<RegId> {
        match op {
            CheckedOperand::Reg(r) => Some(self.reg_id(*r)),
            CheckedOperand::RegElem(r, k) => Some(self.elem_id(*r, *k)),
            _ => None,
        }
    }

    /// Zero-extends an integer value to `wide`.
    pub fn widen(&mut self, v: Value, wide: Type) -> Value {
        let from = self.func.ty(v);
        if from == wide {
            return v;
        }
        let info = ConvertInfo {
            from,
            from_signed: false,
            to_signed: false,
            rnd: None,
            sat: false,
            ftz: false,
            relu: false,
        };
        self.emit(Opcode::Convert, wide, &[v], Aux::Convert(info))
    }

    /// Bits `pos..pos+len` of integer `v` as an integer of `len` bits.
    pub fn extract_bits(&mut self, v: Value, pos: u32, len: u32) -> Value {
        let ty = self.func.ty(v);
        let sh = self.konst(Type::I32, pos as u64);
        let shifted = if pos == 0 {
            v
        } else {
            self.emit(Opcode::ShrU, ty, &[v, sh], Aux::None)
        };
        let to = Type::int(len).expect("element width");
        if to == ty {
            return shifted;
        }
        let info = ConvertInfo {
            from: ty,
            from_signed: false,
            to_signed: false,
            rnd: None,
            sat: false,
            ftz: false,
            relu: false,
        };
        self.emit(Opcode::Convert, to, &[shifted], Aux::Convert(info))
    }

    /// The first type suffix.
    pub fn ptx_type(&self, inst: &CheckedInst) -> Result<ScalarType, LowerError> {
        inst.mods
            .ty()
            .ok_or_else(|| LowerError::new("the instruction needs a type", inst.span))
    }

    /// `cvta[.to].space.size d, a`: the window model (generic = window base + offset for
    /// shared, local and const; global addresses are generic as they are). The cluster's
    /// shared memory shares the window of the CTA's (`.shared::cluster` is `.shared`).
    pub fn lower_cvta(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let ty = mir_type(self.ptx_type(inst)?);
        let d = self.dst(inst, 0)?;
        let a = self.operand(self.arg(inst, 1)?, ty, false, inst.span)?;
        let space = match space_of(inst.mods.space) {
            Space::SharedCluster => Space::Shared,
            s => s,
        };
        let v = match space {
            Space::Shared | Space::Local | Space::Const | Space::Param => {
                let op = if inst.mods.to_space {
                    Opcode::FromGeneric
                } else {
                    Opcode::ToGeneric
                };
                self.emit(op, ty, &[a], Aux::Space(space))
            }
            _ => a,
        };
        self.write_reg(d, v, false, inst.span)
    }

    /// `isspacep.space p, a`.
    pub fn lower_isspacep(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let d = self.dst(inst, 0)?;
        let a = self.operand(self.arg(inst, 1)?, Type::I64, false, inst.span)?;
        let space = space_of(inst.mods.space);
        let v = self.emit_typed(Opcode::IsSpace, Type::I64, &[a], Aux::Space(space), Type::Pred);
        self.write_reg(d, v, false, inst.span)
    }

    /// `ld[.space][.vN].type d, [addr]`.
    pub fn lower_ld(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let t = self.ptx_type(inst)?;
        let ty = mir_type(t);
        let dsts = self.vector_regs(inst, 0)?;
        let values: Vec<Value> = match self.address(inst, 1)? {
            Address::Param(off) => (0..dsts.len())
                .map(|i| {
                    let o = off + i as u32 * ty.bytes();
                    self.emit(Opcode::Param, ty, &[], Aux::Param(o))
                })
                .collect(),
            Address::Value(addr, space, offset) => {
                let info = self.mem_info(inst, space, offset, dsts.len());
                let mut args = smallvec::smallvec![addr];
                args.extend(self.policy(inst, 2)?);
                let data = InstData {
                    op: Opcode::Load,
                    ty,
                    args,
                    aux: Aux::Mem(info),
                };
                let i = self.func.ins(self.cur, data);
                self.func.results[i].to_vec()
            }
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
        let t = self.ptx_type(inst)?;
        let ty = mir_type(t);
        let Address::Value(addr, space, offset) = self.address(inst, 0)? else {
            return Err(LowerError::new("a kernel parameter cannot be written", inst.span));
        };
        let srcs = self.elements(self.arg(inst, 1)?);
        let mut args = vec![addr];
        for s in &srcs {
            args.push(self.operand(s, ty, t.is_signed(), inst.span)?);
        }
        args.extend(self.policy(inst, 2)?);
        let info = self.mem_info(inst, space, offset, srcs.len());
        self.store(ty, args, info);
        Ok(())
    }

    /// The 64-bit cache-policy operand `i` of an access with `.L2::cache_hint` (none without).
    pub(super) fn policy(&mut self, inst: &CheckedInst, i: usize) -> Result<Option<Value>, LowerError> {
        if !inst.mods.has_flag("L2::cache_hint") {
            return Ok(None);
        }
        let op = self.arg(inst, i)?;
        self.operand(op, Type::I64, false, inst.span).map(Some)
    }

    /// `prefetch{.space}.level [a]` and `prefetchu.L1 [a]`: a prefetch of the address's line
    /// (`.L2::evict_normal` is `.L2`).
    pub fn lower_prefetch(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let op = if inst.mods.has_flag("L1") {
            Opcode::PrefetchL1
        } else if inst.mods.has_flag("L2::evict_last") {
            Opcode::PrefetchL2Last
        } else {
            Opcode::PrefetchL2
        };
        let Address::Value(addr, space, offset) = self.address(inst, 0)? else {
            return Err(LowerError::new("a kernel parameter cannot be prefetched", inst.span));
        };
        let data = InstData {
            op,
            ty: Type::I32,
            args: smallvec::smallvec![addr],
            aux: Aux::Mem(Self::plain_mem(space, offset, 1)),
        };
        self.func.ins(self.cur, data);
        Ok(())
    }

    /// Appends a store.
    pub fn store(&mut self, ty: Type, args: Vec<Value>, info: MemInfo) {
        let data = InstData {
            op: Opcode::Store,
            ty,
            args: args.into(),
            aux: Aux::Mem(info),
        };
        self.func.ins(self.cur, data);
    }

    /// A plain memory access description.
    pub fn plain_mem(space: Space, offset: i64, vector: u8) -> MemInfo {
        MemInfo {
            space,
            offset,
            vector,
            non_coherent: false,
            volatile: false,
            hint: Default::default(),
        }
    }

    /// The access's memory info. The cache operators map as ptxas 13.5 maps them (sm_75 to
    /// sm_89, checked one access at a time): `.cg` and `.cv` loads and `.cg` and `.wt` stores
    /// are strong (ptxas: `.STRONG.GPU` for `.cg`, `.STRONG.SYS` for the others; ptxc's strong
    /// accesses are all system-scope), `.cs` evicts first (`.EF`), `.lu` is a last use
    /// (`.LU`). `.ca` and `.wb` stay weak: ptxas makes them `.STRONG.CTA` (sm_75) or
    /// `.STRONG.SM`, a strength that orders nothing for other CTAs.
    fn mem_info(&self, inst: &CheckedInst, space: Space, offset: i64, n: usize) -> MemInfo {
        let cache = inst.mods.cache;
        let mut hint = cache_hint(inst);
        match cache {
            Some(CacheOp::Cs) => hint.evict = Evict::First,
            Some(CacheOp::Lu) => hint.evict = Evict::LastUse,
            _ => {}
        }
        MemInfo {
            non_coherent: cache == Some(CacheOp::Nc),
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
            ) || matches!(cache, Some(CacheOp::Cg | CacheOp::Cv | CacheOp::Wt)),
            hint,
            ..Self::plain_mem(space, offset, n as u8)
        }
    }

    /// Destination registers of a (possibly vector) operand as SSA ids; `None` for `_`.
    pub fn vector_regs(&self, inst: &CheckedInst, i: usize) -> Result<Vec<Option<RegId>>, LowerError> {
        let op = self.arg(inst, i)?;
        self.elements(op)
            .iter()
            .map(|o| match o {
                CheckedOperand::Sink => Ok(None),
                o => self
                    .dst_of(o)
                    .map(Some)
                    .ok_or_else(|| LowerError::new("vector destinations must be registers", inst.span)),
            })
            .collect()
    }

    /// The address operand `i` with the instruction's state space.
    pub(super) fn address(&mut self, inst: &CheckedInst, i: usize) -> Result<Address, LowerError> {
        self.address_in(inst, i, space_of(inst.mods.space))
    }

    /// The address operand `i` in `space` (a variable keeps its own).
    pub(super) fn address_in(&mut self, inst: &CheckedInst, i: usize, space: Space) -> Result<Address, LowerError> {
        let op = self.arg(inst, i)?.clone();
        self.address_of_operand(&op, space, inst.span)
    }

    /// The address operand `op` in `space` (a variable keeps its own).
    pub(super) fn address_of_operand(
        &mut self,
        op: &CheckedOperand,
        space: Space,
        span: Span,
    ) -> Result<Address, LowerError> {
        let CheckedOperand::Address { base, offset } = op else {
            return Err(LowerError::new("expected an address `[...]`", span));
        };
        let (base, offset) = (base.clone(), *offset);
        Ok(match base {
            AddrBase::Var(v) => match self.var_place(v) {
                VarPlace::KernelParam(off) => Address::Param((off as i64 + offset) as u32),
                // On Hopper a shared variable's address carries the CTA's rank, as ptxas
                // writes it (`cluster.rs`): a direct operand too.
                VarPlace::Mem(_, Space::Shared) if self.options.rank_in_shared_addresses => {
                    let a = self.var_value(v, Type::I32, 0, span)?;
                    Address::Value(a, Space::Shared, offset)
                }
                VarPlace::Mem(i, var_space) => {
                    let a = self.emit(Opcode::Addr, Type::I64, &[], Aux::Var(i));
                    Address::Value(a, var_space, offset)
                }
            },
            AddrBase::Reg(r) => {
                let v = self.read_raw(r);
                if !matches!(self.func.ty(v), Type::I32 | Type::I64) {
                    return Err(LowerError::new("an address register must be 32 or 64 bits wide", span));
                }
                let space = match space {
                    // A `.param` address in a device function is one of its local slots.
                    Space::Param if self.frame.ret_target.is_some() => Space::Local,
                    s => s,
                };
                Address::Value(v, space, offset)
            }
            AddrBase::Absolute => Address::Value(self.konst(Type::I64, 0), space, offset),
        })
    }

    /// `atom.op.type d, [a], b[, c]` and `red.op.type [a], b`.
    pub fn lower_atom(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let t = self.ptx_type(inst)?;
        let ty = mir_type(t);
        let is_red = inst.op == ptxc_frontend::checked::Opcode::Red;
        let first = if is_red { 0 } else { 1 };
        let Address::Value(addr, space, offset) = self.address(inst, first)? else {
            return Err(LowerError::new(
                "atomics on kernel parameters are not allowed",
                inst.span,
            ));
        };
        let op = atom_op(inst, t).ok_or_else(|| LowerError::new("unsupported atomic operation", inst.span))?;
        let mut args = vec![addr];
        let n_vals = if op == AtomOp::Cas { 2 } else { 1 };
        for k in 0..n_vals {
            args.push(self.operand(self.arg(inst, first + 1 + k)?, ty, t.is_signed(), inst.span)?);
        }
        let data = InstData {
            op: Opcode::Atom,
            ty,
            args: args.into(),
            aux: Aux::Atom(AtomInfo {
                op,
                space,
                offset,
                red: is_red,
            }),
        };
        let i = self.func.ins(self.cur, data);
        if !is_red {
            let old = self.func.results[i][0];
            let d = self.dst(inst, 0)?;
            self.write_reg(d, old, t.is_signed(), inst.span)?;
        }
        Ok(())
    }
}

fn atom_op(inst: &CheckedInst, t: ScalarType) -> Option<AtomOp> {
    let signed = t.is_signed();
    Some(match inst.mods.atom_op? {
        PAtom::Add if t.is_float() => AtomOp::Fadd,
        PAtom::Add => AtomOp::Add,
        PAtom::Min if t.is_float() => return None,
        PAtom::Max if t.is_float() => return None,
        PAtom::Min if signed => AtomOp::MinS,
        PAtom::Min => AtomOp::MinU,
        PAtom::Max if signed => AtomOp::MaxS,
        PAtom::Max => AtomOp::MaxU,
        PAtom::Inc => AtomOp::Inc,
        PAtom::Dec => AtomOp::Dec,
        PAtom::And => AtomOp::And,
        PAtom::Or => AtomOp::Or,
        PAtom::Xor => AtomOp::Xor,
        PAtom::Exch => AtomOp::Exch,
        PAtom::Cas => AtomOp::Cas,
    })
}

/// The PTX cache-hint qualifiers of an access and their MIR values.
const EVICT_FLAGS: &[(&str, Evict)] = &[
    ("L1::evict_normal", Evict::Normal),
    ("L1::evict_first", Evict::First),
    ("L1::evict_last", Evict::Last),
    ("L1::evict_unchanged", Evict::Unchanged),
    ("L1::no_allocate", Evict::NoAllocate),
];

/// The PTX L2 prefetch sizes of a load and their MIR values.
const L2_PREFETCH_FLAGS: &[(&str, L2Prefetch)] = &[
    ("L2::64B", L2Prefetch::B64),
    ("L2::128B", L2Prefetch::B128),
    ("L2::256B", L2Prefetch::B256),
];

/// The cache hints of `inst` (sema allows one of each kind).
fn cache_hint(inst: &CheckedInst) -> CacheHint {
    let has = |f: &&str| inst.mods.has_flag(f);
    CacheHint {
        evict: EVICT_FLAGS
            .iter()
            .find(|(f, _)| has(f))
            .map(|(_, e)| *e)
            .unwrap_or_default(),
        l2_prefetch: L2_PREFETCH_FLAGS
            .iter()
            .find(|(f, _)| has(f))
            .map(|(_, p)| *p)
            .unwrap_or_default(),
        policy: inst.mods.has_flag("L2::cache_hint"),
    }
}
