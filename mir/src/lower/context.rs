//! The per-function lowering state: the MIR being built, the SSA builder, the current
//! block, and helpers to read and write PTX registers with PTX's type rules.

use super::LowerError;
use super::blocks::{Exit, Segment};
use super::ssa::{SsaBuilder, remove_trivial_params};
use crate::ir::{Aux, Block, BlockCall, Function, InstData, Opcode, Type, Value};
use ptxc_frontend::ast::{ScalarType, Span};
use ptxc_frontend::checked::{
    CheckedFunction, CheckedInst, CheckedModule, CheckedOperand, CheckedStmt, Opcode as P, RegId, SpecialReg,
};
use ptxc_frontend::literal::f64_to_f32_bits;
use rustc_hash::FxHashMap as HashMap;
use smallvec::smallvec;

/// Where the function being lowered sits: the kernel itself, or a device function inlined
/// into it (its registers are renumbered from `reg_base`; `ret` jumps to `ret_target`).
#[derive(Clone, Debug, Default)]
pub struct Frame {
    /// Added to the function's register numbers.
    pub reg_base: u32,
    /// MIR variables of the function's own variables (by `VarId`).
    pub vars: HashMap<u32, u32>,
    /// Where `ret` goes (`None`: the kernel, where `ret` ends the thread).
    pub ret_target: Option<Block>,
}

/// Lowers one function.
pub struct Lowerer<'a> {
    /// The checked module (device functions are looked up here).
    pub module: &'a CheckedModule,
    /// The checked function being lowered (a device function while it is inlined).
    pub src: &'a CheckedFunction,
    /// Register renumbering and return target of `src`.
    pub frame: Frame,
    /// The pseudo-register holding the carry flag of `.cc` chains.
    pub carry: RegId,
    /// Names of the device functions being inlined (to refuse recursion).
    pub call_stack: Vec<String>,
    /// The kernel's device functions kept as calls so far (`call_func` indexes them).
    pub callee_names: Vec<String>,
    /// The MIR under construction.
    pub func: Function,
    /// SSA state.
    pub ssa: SsaBuilder,
    /// The block instructions are appended to.
    pub cur: Block,
    /// The guard of the instruction being lowered, applied to register writes.
    pub guard: Option<Value>,
    exit_block: Option<Block>,
    errors: Vec<LowerError>,
    /// Index of the first MIR variable of each name (module variables and shared arrays are
    /// found here when an inlined function names them again).
    pub var_index: rustc_hash::FxHashMap<String, u32>,
    /// The smallest suffix `k` that may still be free for `name.k`, per base name (every
    /// smaller one is taken: names are never released).
    pub var_suffix: rustc_hash::FxHashMap<String, u32>,
    /// Lane-derived values of the `wmma` lowering already made in a block, by block and
    /// kind (`wmma.rs`), so that the fragments of one block share them.
    pub wmma_lane: rustc_hash::FxHashMap<(Block, u32), Value>,
    /// What the target asks of the lowering.
    pub options: LowerOptions,
    /// The values made once at the start of the kernel (`cluster.rs`).
    pub prologue: super::cluster::Prologue,
}

/// Target facts the lowering needs (the MIR is otherwise target-independent).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LowerOptions {
    /// `mbarrier` in Hopper's layout with its own operations (sm_90 on: `mbarrier.rs`);
    /// otherwise Ampere's words and atomics.
    pub hopper_mbarrier: bool,
    /// The tensor cores have no 4-bit integer and no XOR single-bit products (sm_90 on):
    /// `mma` of s4/u4 becomes 8-bit products of the unpacked nibbles, `.xor.popc` two
    /// `.and.popc` products (`mma_sub_byte.rs`).
    pub no_sub_byte_mma: bool,
    /// The tensor cores have no HMMA.884 (sm_80 on): `mma.m8n8k4` of f16 becomes warp
    /// shuffles and f32 arithmetic (`mma_m8n8k4.rs`).
    pub no_hmma_884: bool,
    /// Shared addresses carry the CTA's rank in its cluster in bits 24..31 (sm_90 on, as
    /// ptxas 13.5 writes them): a shared variable's address taken as a value is
    /// `offset + (%cluster_ctarank << 24)`, a `.shared::cluster` address of the CTA's own
    /// memory (`cluster.rs`).
    pub rank_in_shared_addresses: bool,
    /// Calls of device functions stay calls (`call_func`, each function lowered once per
    /// kernel into `Function::callees`, `device.rs`), as ptxas keeps them; otherwise they
    /// are inlined (what the MIR interpreter runs).
    pub keep_calls: bool,
}

/// MIR type of a PTX type.
pub fn mir_type(t: ScalarType) -> Type {
    use ScalarType::*;
    match t {
        Pred => Type::Pred,
        B8 | U8 | S8 => Type::I8,
        B16 | U16 | S16 => Type::I16,
        F16 => Type::F16,
        Bf16 => Type::Bf16,
        Bf16x2 => Type::Bf16x2,
        B32 | U32 | S32 | Tf32 => Type::I32,
        F16x2 => Type::F16x2,
        F32 => Type::F32,
        B64 | U64 | S64 => Type::I64,
        F64 => Type::F64,
        B128 => Type::I64,
    }
}

impl<'a> Lowerer<'a> {
    /// A lowerer for `src` building into `func`.
    pub fn new(
        module: &'a CheckedModule,
        src: &'a CheckedFunction,
        mut func: Function,
        options: LowerOptions,
    ) -> Result<Lowerer<'a>, Vec<LowerError>> {
        let mut reg_types = vec![Type::Pred];
        let carry = RegId(0);
        reg_types.extend(register_slots(src));
        let cur = func.add_block();
        Ok(Lowerer {
            module,
            src,
            frame: Frame {
                reg_base: 1,
                ..Frame::default()
            },
            carry,
            call_stack: vec![src.name.clone()],
            callee_names: Vec::new(),
            func,
            ssa: SsaBuilder::new(reg_types),
            cur,
            guard: None,
            exit_block: None,
            errors: Vec::new(),
            var_index: rustc_hash::FxHashMap::default(),
            var_suffix: rustc_hash::FxHashMap::default(),
            wmma_lane: rustc_hash::FxHashMap::default(),
            options,
            prologue: Default::default(),
        })
    }

    /// Lowers the segments in order, wiring their exits.
    pub fn lower_segments(&mut self, segs: &[Segment]) -> Result<(), Vec<LowerError>> {
        let mut blocks = vec![self.cur];
        blocks.extend((1..segs.len()).map(|_| self.func.add_block()));
        let mut unfilled_preds = vec![0usize; segs.len()];
        for (i, s) in segs.iter().enumerate() {
            for t in s.successors(i, segs.len()) {
                unfilled_preds[t] += 1;
            }
        }
        for (i, seg) in segs.iter().enumerate() {
            self.cur = blocks[i];
            if unfilled_preds[i] == 0 {
                self.ssa.seal(&mut self.func, self.cur);
            }
            for &stmt in &seg.stmts {
                if let CheckedStmt::Inst(inst) = &self.src.body[stmt] {
                    self.func.cur_srcloc = crate::ir::SrcLoc::at(inst.span.start);
                    if let Err(e) = self.lower_guarded(inst) {
                        self.errors.push(e);
                    }
                }
            }
            self.lower_exit(seg, i, &blocks);
            for t in seg.successors(i, segs.len()) {
                unfilled_preds[t] -= 1;
                if unfilled_preds[t] == 0 {
                    self.ssa.seal(&mut self.func, blocks[t]);
                }
            }
        }
        for b in blocks {
            self.ssa.seal(&mut self.func, b);
        }
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(std::mem::take(&mut self.errors))
        }
    }

    fn lower_exit(&mut self, seg: &Segment, i: usize, blocks: &[Block]) {
        let next = blocks.get(i + 1).copied();
        let last = seg.last.and_then(|s| match &self.src.body[s] {
            CheckedStmt::Inst(inst) => Some(inst),
            _ => None,
        });
        if let Some(inst) = last {
            self.func.cur_srcloc = crate::ir::SrcLoc::at(inst.span.start);
        }
        let guard = last.and_then(|inst| inst.guard);
        let ret = self.frame.ret_target;
        match (&seg.exit, next) {
            (Exit::FallThrough, Some(n)) => self.jump(n),
            (Exit::FallThrough, None) | (Exit::Return, _) if ret.is_some() => self.jump(ret.expect("checked")),
            (Exit::FallThrough, None) | (Exit::Return, _) | (Exit::Exit, _) => self.exit(),
            (Exit::Jump(t), _) => self.jump(blocks[*t]),
            (Exit::CondJump(t), Some(n)) => {
                let p = self.guard_value(guard.expect("conditional branch has a guard"));
                self.brif(p, blocks[*t], n);
            }
            (Exit::CondJump(t), None) => {
                let p = self.guard_value(guard.expect("conditional branch has a guard"));
                let e = match ret {
                    Some(r) => r,
                    None => self.exit_block(),
                };
                self.brif(p, blocks[*t], e);
            }
            (Exit::CondReturn | Exit::CondExit, next) => {
                let p = self.guard_value(guard.expect("conditional return has a guard"));
                let e = match (ret, &seg.exit) {
                    (Some(r), Exit::CondReturn) => r,
                    _ => self.exit_block(),
                };
                let n = next.unwrap_or(e);
                self.brif(p, e, n);
            }
        }
    }

    fn exit_block(&mut self) -> Block {
        if let Some(b) = self.exit_block {
            return b;
        }
        let b = self.func.add_block();
        let data = InstData {
            op: Opcode::Exit,
            ty: Type::I32,
            args: smallvec![],
            aux: Aux::None,
        };
        self.func.append(b, data, &[]);
        self.exit_block = Some(b);
        b
    }

    /// The predicate value of a guard (`@p` or `@!p`).
    pub fn guard_value(&mut self, (reg, negated): (RegId, bool)) -> Value {
        let p = self.read_raw(reg);
        if negated {
            self.emit(Opcode::Not, Type::Pred, &[p], Aux::None)
        } else {
            p
        }
    }

    fn lower_guarded(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let Some(g) = inst.guard else {
            return self.lower_inst(inst);
        };
        let p = self.guard_value(g);
        if has_side_effects(inst.op) {
            // Run the instruction in a block of its own, entered only when the guard holds.
            let then_b = self.func.add_block();
            let cont = self.func.add_block();
            self.brif(p, then_b, cont);
            self.ssa.seal(&mut self.func, then_b);
            self.cur = then_b;
            let r = self.lower_inst(inst);
            self.jump(cont);
            self.ssa.seal(&mut self.func, cont);
            self.cur = cont;
            r
        } else {
            self.guard = Some(p);
            let r = self.lower_inst(inst);
            self.guard = None;
            r
        }
    }

    /// Ends the current block with a jump.
    pub fn jump(&mut self, target: Block) {
        let call = BlockCall {
            block: target,
            args: smallvec![],
        };
        let data = InstData {
            op: Opcode::Jump,
            ty: Type::I32,
            args: smallvec![],
            aux: Aux::Branch(smallvec![call]),
        };
        self.func.append(self.cur, data, &[]);
        self.ssa.add_edge(self.cur, target);
    }

    /// Ends the current block with a conditional branch.
    pub fn brif(&mut self, cond: Value, then_b: Block, else_b: Block) {
        let calls = smallvec![
            BlockCall {
                block: then_b,
                args: smallvec![]
            },
            BlockCall {
                block: else_b,
                args: smallvec![]
            }
        ];
        let data = InstData {
            op: Opcode::Brif,
            ty: Type::Pred,
            args: smallvec![cond],
            aux: Aux::Branch(calls),
        };
        self.func.append(self.cur, data, &[]);
        self.ssa.add_edge(self.cur, then_b);
        self.ssa.add_edge(self.cur, else_b);
    }

    /// Ends the current block with `exit`.
    pub fn exit(&mut self) {
        let data = InstData {
            op: Opcode::Exit,
            ty: Type::I32,
            args: smallvec![],
            aux: Aux::None,
        };
        self.func.append(self.cur, data, &[]);
    }

    /// Appends a single-result instruction whose result has type `ty`.
    pub fn emit(&mut self, op: Opcode, ty: Type, args: &[Value], aux: Aux) -> Value {
        self.emit_typed(op, ty, args, aux, ty)
    }

    /// Appends a single-result instruction with an explicit result type.
    pub fn emit_typed(&mut self, op: Opcode, ty: Type, args: &[Value], aux: Aux, result: Type) -> Value {
        self.func.append_value(self.cur, op, ty, args, aux, result)
    }

    /// A constant of type `ty` (bits truncated to the type's width).
    pub fn konst(&mut self, ty: Type, bits: u64) -> Value {
        let bits = if ty.bits() >= 64 {
            bits
        } else {
            bits & ((1u64 << ty.bits()) - 1)
        };
        self.emit(Opcode::Const, ty, &[], Aux::Imm(bits))
    }

    /// The SSA id of register `reg` of the current function (element 0 of a vector).
    pub fn reg_id(&self, reg: RegId) -> RegId {
        self.elem_id(reg, 0)
    }

    /// The SSA id of element `k` of vector register `reg` of the current function.
    pub fn elem_id(&self, reg: RegId, k: u8) -> RegId {
        RegId(self.frame.reg_base + reg.0 * SLOTS + k as u32)
    }

    /// The vector width of register `reg` of the current function (1 for scalars).
    pub fn reg_width(&self, reg: RegId) -> u32 {
        self.src.regs[reg.0 as usize].vector.max(1)
    }

    /// The current value of a register of the current function, in its declared type.
    pub fn read_raw(&mut self, reg: RegId) -> Value {
        let id = self.reg_id(reg);
        self.read_id(id)
    }

    /// The current value of SSA register `id`.
    pub fn read_id(&mut self, id: RegId) -> Value {
        self.ssa.read(&mut self.func, self.cur, id)
    }

    /// Reads register `reg` as a value of type `ty`: same-width types are reinterpreted.
    pub fn read_reg(&mut self, reg: RegId, ty: Type, span: Span) -> Result<Value, LowerError> {
        let v = self.read_raw(reg);
        self.coerce(v, ty, false, span)
    }

    /// The carry flag of `.cc` chains.
    pub fn read_carry(&mut self) -> Value {
        self.ssa.read(&mut self.func, self.cur, self.carry)
    }

    /// Sets the carry flag (unconditionally: a guarded `.cc` instruction selects first).
    pub fn write_carry(&mut self, v: Value) {
        let v = match self.guard {
            Some(g) => {
                let old = self.read_carry();
                self.emit(Opcode::Select, Type::Pred, &[g, v, old], Aux::None)
            }
            None => v,
        };
        self.ssa.write(self.cur, self.carry, v);
    }

    /// Converts `v` to `ty`: same width is a bitcast; a narrower target truncates and a
    /// wider one extends (signed or not): the relaxed rules of ld/st/cvt.
    pub fn coerce(&mut self, v: Value, ty: Type, signed: bool, span: Span) -> Result<Value, LowerError> {
        let from = self.func.ty(v);
        if from == ty {
            return Ok(v);
        }
        if from.bits() == ty.bits() {
            return Ok(self.emit(Opcode::Bitcast, ty, &[v], Aux::None));
        }
        if from == Type::Pred || ty == Type::Pred {
            return Err(LowerError::new(format!("cannot use a {from} value as {ty}"), span));
        }
        let int_from = Type::int(from.bits()).expect("scalar width");
        let int_to = Type::int(ty.bits()).expect("scalar width");
        let raw = self.coerce(v, int_from, signed, span)?;
        let info = crate::ir::ConvertInfo {
            from: int_from,
            from_signed: signed,
            to_signed: signed,
            rnd: None,
            sat: false,
            ftz: false,
            relu: false,
        };
        let c = self.emit(Opcode::Convert, int_to, &[raw], Aux::Convert(info));
        self.coerce(c, ty, signed, span)
    }

    /// Writes `v` to register `reg`, converting to the register's declared type (`signed`
    /// decides the extension when the register is wider) and honouring the guard.
    /// `id` is an SSA register id (see [`Lowerer::dst`]).
    pub fn write_reg(&mut self, id: RegId, v: Value, signed: bool, span: Span) -> Result<(), LowerError> {
        let ty = self.ssa.reg_type(id);
        let mut v = self.coerce(v, ty, signed, span)?;
        if let Some(g) = self.guard {
            let old = self.read_id(id);
            v = self.emit(Opcode::Select, ty, &[g, v, old], Aux::None);
        }
        self.ssa.write(self.cur, id, v);
        Ok(())
    }

    /// The value of a source operand as type `ty` (`signed` decides how immediates and
    /// narrower registers extend).
    pub fn operand(&mut self, op: &CheckedOperand, ty: Type, signed: bool, span: Span) -> Result<Value, LowerError> {
        match op {
            CheckedOperand::Reg(r) if self.reg_width(*r) > 1 => {
                let elems = self.elements(&CheckedOperand::Reg(*r));
                self.pack(&elems, ty, span)
            }
            CheckedOperand::Reg(r) => {
                let v = self.read_raw(*r);
                self.coerce(v, ty, signed, span)
            }
            CheckedOperand::RegElem(r, k) => {
                let id = self.elem_id(*r, *k);
                let v = self.read_id(id);
                self.coerce(v, ty, signed, span)
            }
            CheckedOperand::Vector(elems) => {
                let elems = elems.clone();
                self.pack(&elems, ty, span)
            }
            CheckedOperand::RegOffset(r, k) => {
                let v = self.read_raw(*r);
                let v = self.coerce(v, ty, signed, span)?;
                let k = self.konst(ty, *k as u64);
                Ok(self.emit(Opcode::Iadd, ty, &[v, k], Aux::None))
            }
            CheckedOperand::VarAddr(var) => self.var_value(*var, ty, 0, span),
            CheckedOperand::VarAddrOffset(var, k) => self.var_value(*var, ty, *k, span),
            CheckedOperand::NotReg(r) => {
                let v = self.read_reg(*r, Type::Pred, span)?;
                Ok(self.emit(Opcode::Not, Type::Pred, &[v], Aux::None))
            }
            CheckedOperand::Func(name) if ty.bits() == 64 => {
                Ok(self.konst(ty, ptxc_frontend::checked::function_address(name)))
            }
            CheckedOperand::Int(i) => Ok(self.int_const(ty, *i)),
            CheckedOperand::Float { value, single } => Ok(self.float_const(ty, *value, *single)),
            CheckedOperand::Special(sr) => {
                let v = self.special(*sr);
                self.coerce(v, ty, false, span)
            }
            other => Err(LowerError::new(
                format!("operand {other:?} cannot be used as a {ty} value here"),
                span,
            )),
        }
    }

    fn int_const(&mut self, ty: Type, i: i64) -> Value {
        match ty {
            Type::F32 => self.konst(ty, (i as f32).to_bits() as u64),
            Type::F64 => self.konst(ty, (i as f64).to_bits()),
            _ => self.konst(ty, i as u64),
        }
    }

    /// A float literal as a `ty` constant. f32 bits come from the front end's exact narrowing,
    /// which keeps a NaN's payload and signalling bit (`value as f32` quiets it on x86, so a
    /// `0f7FA00001` operand became 0x7FE00001; ptxas keeps the bits as written).
    fn float_const(&mut self, ty: Type, value: f64, single: bool) -> Value {
        let f32_bits = || f64_to_f32_bits(value) as u64;
        match ty {
            Type::F32 => self.konst(ty, f32_bits()),
            Type::F64 => self.konst(ty, value.to_bits()),
            _ if single => self.konst(ty, f32_bits()),
            _ => self.konst(ty, value.to_bits()),
        }
    }

    /// Reads a special register.
    pub fn special(&mut self, sr: SpecialReg) -> Value {
        if let Some(v) = self.cluster_special(sr) {
            return v;
        }
        match sr {
            SpecialReg::WarpSize => self.konst(Type::I32, 32),
            SpecialReg::Clock64 | SpecialReg::GlobalTimer | SpecialReg::GridId => {
                self.emit(Opcode::Special, Type::I64, &[], Aux::Special(sr))
            }
            _ => self.emit(Opcode::Special, Type::I32, &[], Aux::Special(sr)),
        }
    }

    /// The SSA register id written by destination operand `i` (a register or an element).
    pub fn dst(&self, inst: &CheckedInst, i: usize) -> Result<RegId, LowerError> {
        match inst.operands.get(i) {
            Some(CheckedOperand::Reg(r)) => Ok(self.reg_id(*r)),
            Some(CheckedOperand::RegElem(r, k)) => Ok(self.elem_id(*r, *k)),
            _ => Err(LowerError::new("expected a destination register", inst.span)),
        }
    }

    /// The elements of a vector operand: `{a, b}` or a vector register (else the operand).
    pub fn elements(&self, op: &CheckedOperand) -> Vec<CheckedOperand> {
        match op {
            CheckedOperand::Vector(v) => v.clone(),
            CheckedOperand::Reg(r) if self.reg_width(*r) > 1 => (0..self.reg_width(*r) as u8)
                .map(|k| CheckedOperand::RegElem(*r, k))
                .collect(),
            other => vec![other.clone()],
        }
    }

    /// Packs the element operands into one integer of `ty`'s width (element 0 lowest).
    pub fn pack(&mut self, elems: &[CheckedOperand], ty: Type, span: Span) -> Result<Value, LowerError> {
        let wide = Type::int(ty.bits()).ok_or_else(|| LowerError::new("cannot pack into this type", span))?;
        let elem_bits = ty.bits() / elems.len().max(1) as u32;
        let elem = Type::int(elem_bits).ok_or_else(|| LowerError::new("bad vector element", span))?;
        let mut acc = self.konst(wide, 0);
        for (i, s) in elems.iter().enumerate() {
            let e = self.operand(s, elem, false, span)?;
            let e = self.widen(e, wide);
            let sh = self.konst(Type::I32, (i as u32 * elem_bits) as u64);
            let e = self.emit(Opcode::Shl, wide, &[e, sh], Aux::None);
            acc = self.emit(Opcode::Or, wide, &[acc, e], Aux::None);
        }
        self.coerce(acc, ty, false, span)
    }

    /// Operand `i` of `inst`.
    pub fn arg<'b>(&self, inst: &'b CheckedInst, i: usize) -> Result<&'b CheckedOperand, LowerError> {
        inst.operands
            .get(i)
            .ok_or_else(|| LowerError::new(format!("missing operand {}", i + 1), inst.span))
    }

    /// Dispatches one (unguarded, or guard already applied) instruction.
    fn lower_inst(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let Some((_, lower)) = lowerings().into_iter().find(|(op, _)| *op == inst.op) else {
            return Err(LowerError::new(
                format!(
                    "`{}` is not supported by this version of ptxc",
                    format!("{:?}", inst.op).to_lowercase()
                ),
                inst.span,
            ));
        };
        lower(self, inst)
    }

    /// Records errors found while inlining.
    pub fn push_errors(&mut self, errs: Vec<LowerError>) {
        self.errors.extend(errs);
    }

    /// Finishes: removes trivial block parameters.
    pub fn finish(mut self) -> Function {
        self.func.cur_srcloc = crate::ir::SrcLoc::NONE;
        remove_trivial_params(&mut self.func);
        self.func
    }
}

/// SSA register slots per PTX register (vector registers have up to four elements).
pub const SLOTS: u32 = 4;

/// The SSA register types of a function's registers: [`SLOTS`] per register.
pub fn register_slots(f: &CheckedFunction) -> Vec<Type> {
    f.regs
        .iter()
        .flat_map(|r| std::iter::repeat_n(mir_type(r.ty), SLOTS as usize))
        .collect()
}

/// How one PTX opcode is lowered.
type LowerFn<'a> = fn(&mut Lowerer<'a>, &CheckedInst) -> Result<(), LowerError>;

/// The lowering of every PTX opcode (`bra`, `ret` and `exit` end blocks and are handled by
/// the block splitter).
fn lowerings<'a>() -> Vec<(P, LowerFn<'a>)> {
    vec![
        (P::Abs, Lowerer::lower_unary),
        (P::Activemask, Lowerer::lower_activemask),
        (P::Add, Lowerer::lower_binary_family),
        (P::Addc, Lowerer::lower_carry),
        (P::And, Lowerer::lower_binary_family),
        (P::Atom, Lowerer::lower_atom),
        (P::Bar, Lowerer::lower_bar),
        (P::Barrier, Lowerer::lower_bar),
        (P::Bfe, Lowerer::lower_bfe),
        (P::Bfi, Lowerer::lower_bfi),
        (P::Bfind, Lowerer::lower_bfind),
        (P::Bmsk, Lowerer::lower_bmsk),
        (P::Brev, Lowerer::lower_bit_unary),
        (P::Brkpt, Lowerer::lower_nothing),
        (P::Call, Lowerer::lower_call),
        (P::Clz, Lowerer::lower_bit_unary),
        (P::Cnot, Lowerer::lower_unary),
        (P::Copysign, Lowerer::lower_float_binary),
        (P::Cos, Lowerer::lower_float_unary),
        (P::CpAsync, Lowerer::lower_cp_async),
        (P::Createpolicy, Lowerer::lower_createpolicy),
        (P::Cvt, Lowerer::lower_cvt),
        (P::Cvta, Lowerer::lower_cvta),
        (P::Div, Lowerer::lower_div_rem),
        (P::Dp2a, Lowerer::lower_dp),
        (P::Dp4a, Lowerer::lower_dp),
        (P::Elect, Lowerer::lower_elect),
        (P::Setmaxnreg, Lowerer::lower_setmaxnreg),
        (P::Ex2, Lowerer::lower_float_unary),
        (P::Fence, Lowerer::lower_fence),
        (P::Fma, Lowerer::lower_binary_family),
        (P::Isspacep, Lowerer::lower_isspacep),
        (P::Ld, Lowerer::lower_ld),
        (P::Ldmatrix, Lowerer::lower_ldmatrix),
        (P::Ldu, Lowerer::lower_ld),
        (P::Lg2, Lowerer::lower_float_unary),
        (P::Lop3, Lowerer::lower_lop3),
        (P::Mad, Lowerer::lower_binary_family),
        (P::Mad24, Lowerer::lower_mul24),
        (P::Madc, Lowerer::lower_carry),
        (P::Mapa, Lowerer::lower_mapa),
        (P::Match, Lowerer::lower_match),
        (P::Max, Lowerer::lower_binary_family),
        (P::Mbarrier, Lowerer::lower_mbarrier),
        (P::Membar, Lowerer::lower_fence),
        (P::Min, Lowerer::lower_binary_family),
        (P::Mma, Lowerer::lower_mma),
        (P::Mov, Lowerer::lower_mov),
        (P::Movmatrix, Lowerer::lower_movmatrix),
        (P::Mul, Lowerer::lower_binary_family),
        (P::Mul24, Lowerer::lower_mul24),
        (P::Nanosleep, Lowerer::lower_nanosleep),
        (P::Neg, Lowerer::lower_unary),
        (P::Not, Lowerer::lower_unary),
        (P::Or, Lowerer::lower_binary_family),
        (P::Pmevent, Lowerer::lower_nothing),
        (P::Popc, Lowerer::lower_bit_unary),
        (P::Prefetch, Lowerer::lower_prefetch),
        (P::Prmt, Lowerer::lower_prmt),
        (P::Rcp, Lowerer::lower_float_unary),
        (P::Red, Lowerer::lower_atom),
        (P::Rem, Lowerer::lower_div_rem),
        (P::Rsqrt, Lowerer::lower_float_unary),
        (P::Sad, Lowerer::lower_sad),
        (P::Selp, Lowerer::lower_selp),
        (P::Set, Lowerer::lower_set),
        (P::Setp, Lowerer::lower_setp),
        (P::Shf, Lowerer::lower_shf),
        (P::Shfl, Lowerer::lower_shfl),
        (P::Shl, Lowerer::lower_binary_family),
        (P::Shr, Lowerer::lower_binary_family),
        (P::Sin, Lowerer::lower_float_unary),
        (P::Slct, Lowerer::lower_slct),
        (P::Sqrt, Lowerer::lower_float_unary),
        (P::St, Lowerer::lower_st),
        (P::Sub, Lowerer::lower_binary_family),
        (P::Subc, Lowerer::lower_carry),
        (P::Szext, Lowerer::lower_szext),
        (P::Tanh, Lowerer::lower_float_unary),
        (P::Testp, Lowerer::lower_testp),
        (P::Trap, Lowerer::lower_trap),
        (P::Vote, Lowerer::lower_vote),
        (P::Redux, Lowerer::lower_redux),
        (P::Vshl, Lowerer::lower_video_shift),
        (P::Vshr, Lowerer::lower_video_shift),
        (P::Wmma, Lowerer::lower_wmma),
        (P::Wgmma, Lowerer::lower_wgmma),
        (P::Stmatrix, Lowerer::lower_stmatrix),
        (P::Xor, Lowerer::lower_binary_family),
    ]
}

/// True for instructions that must not run when their guard is false.
fn has_side_effects(op: P) -> bool {
    matches!(
        op,
        P::St
            | P::Atom
            | P::Red
            | P::Bar
            | P::Barrier
            | P::Membar
            | P::Fence
            | P::Call
            | P::Trap
            | P::Ld
            | P::Ldu
            | P::Nanosleep
            | P::Shfl
            | P::Vote
            | P::Match
            | P::Activemask
            | P::Redux
            | P::Elect
            | P::Setmaxnreg
            | P::Ldmatrix
            | P::Movmatrix
            | P::Mma
            | P::CpAsync
            | P::Mbarrier
            | P::Wmma
            | P::Wgmma
            | P::Stmatrix
    )
}
