//! The per-function lowering state: the MIR being built, the SSA builder, the current
//! block, and helpers to read and write PTX registers with PTX's type rules.

use super::LowerError;
use super::blocks::{Exit, Segment};
use super::ssa::{SsaBuilder, remove_trivial_params};
use crate::ir::{Aux, Block, BlockCall, Function, InstData, Opcode, Type, Value};
use ptxc_frontend::ast::{ScalarType, Span};
use ptxc_frontend::checked::{
    CheckedFunction, CheckedInst, CheckedOperand, CheckedStmt, Opcode as P, RegId, SpecialReg,
};
use smallvec::smallvec;

/// Lowers one function.
pub struct Lowerer<'a> {
    /// The checked function.
    pub src: &'a CheckedFunction,
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
}

/// MIR type of a PTX type.
pub fn mir_type(t: ScalarType) -> Type {
    use ScalarType::*;
    match t {
        Pred => Type::Pred,
        B8 | U8 | S8 => Type::I8,
        B16 | U16 | S16 | Bf16 => Type::I16,
        F16 => Type::F16,
        B32 | U32 | S32 | Bf16x2 | Tf32 => Type::I32,
        F16x2 => Type::F16x2,
        F32 => Type::F32,
        B64 | U64 | S64 => Type::I64,
        F64 => Type::F64,
        B128 => Type::I64,
    }
}

impl<'a> Lowerer<'a> {
    /// A lowerer for `src` building into `func`.
    pub fn new(src: &'a CheckedFunction, mut func: Function) -> Result<Lowerer<'a>, Vec<LowerError>> {
        let reg_types = src.regs.iter().map(|r| mir_type(r.ty)).collect();
        let cur = func.add_block();
        Ok(Lowerer {
            src,
            func,
            ssa: SsaBuilder::new(reg_types),
            cur,
            guard: None,
            exit_block: None,
            errors: Vec::new(),
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
                if let CheckedStmt::Inst(inst) = &self.src.body[stmt]
                    && let Err(e) = self.lower_guarded(inst)
                {
                    self.errors.push(e);
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
        let guard = seg.last.and_then(|s| match &self.src.body[s] {
            CheckedStmt::Inst(inst) => inst.guard,
            _ => None,
        });
        match (&seg.exit, next) {
            (Exit::FallThrough, Some(n)) => self.jump(n),
            (Exit::FallThrough, None) | (Exit::Return, _) => self.exit(),
            (Exit::Jump(t), _) => self.jump(blocks[*t]),
            (Exit::CondJump(t), Some(n)) => {
                let p = self.guard_value(guard.expect("conditional branch has a guard"));
                self.brif(p, blocks[*t], n);
            }
            (Exit::CondJump(t), None) => {
                let p = self.guard_value(guard.expect("conditional branch has a guard"));
                let e = self.exit_block();
                self.brif(p, blocks[*t], e);
            }
            (Exit::CondReturn, next) => {
                let p = self.guard_value(guard.expect("conditional return has a guard"));
                let e = self.exit_block();
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
        let p = self.ssa.read(&mut self.func, self.cur, reg);
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

    /// Reads register `reg` as a value of type `ty`: same-width types are reinterpreted.
    pub fn read_reg(&mut self, reg: RegId, ty: Type, span: Span) -> Result<Value, LowerError> {
        let v = self.ssa.read(&mut self.func, self.cur, reg);
        self.coerce(v, ty, false, span)
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
        };
        let c = self.emit(Opcode::Convert, int_to, &[raw], Aux::Convert(info));
        self.coerce(c, ty, signed, span)
    }

    /// Writes `v` to register `reg`, converting to the register's declared type (`signed`
    /// decides the extension when the register is wider) and honouring the guard.
    pub fn write_reg(&mut self, reg: RegId, v: Value, signed: bool, span: Span) -> Result<(), LowerError> {
        let ty = self.ssa.reg_type(reg);
        let mut v = self.coerce(v, ty, signed, span)?;
        if let Some(g) = self.guard {
            let old = self.ssa.read(&mut self.func, self.cur, reg);
            v = self.emit(Opcode::Select, ty, &[g, v, old], Aux::None);
        }
        self.ssa.write(self.cur, reg, v);
        Ok(())
    }

    /// The value of a source operand as type `ty` (`signed` decides how immediates and
    /// narrower registers extend).
    pub fn operand(&mut self, op: &CheckedOperand, ty: Type, signed: bool, span: Span) -> Result<Value, LowerError> {
        match op {
            CheckedOperand::Reg(r) => {
                let v = self.ssa.read(&mut self.func, self.cur, *r);
                self.coerce(v, ty, signed, span)
            }
            CheckedOperand::NotReg(r) => {
                let v = self.read_reg(*r, Type::Pred, span)?;
                Ok(self.emit(Opcode::Not, Type::Pred, &[v], Aux::None))
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

    fn float_const(&mut self, ty: Type, value: f64, single: bool) -> Value {
        match ty {
            Type::F32 => self.konst(ty, (value as f32).to_bits() as u64),
            Type::F64 => self.konst(ty, value.to_bits()),
            _ if single => self.konst(ty, (value as f32).to_bits() as u64),
            _ => self.konst(ty, value.to_bits()),
        }
    }

    /// Reads a special register.
    pub fn special(&mut self, sr: SpecialReg) -> Value {
        match sr {
            SpecialReg::WarpSize => self.konst(Type::I32, 32),
            SpecialReg::Clock64 | SpecialReg::GlobalTimer => {
                self.emit(Opcode::Special, Type::I64, &[], Aux::Special(sr))
            }
            _ => self.emit(Opcode::Special, Type::I32, &[], Aux::Special(sr)),
        }
    }

    /// Destination register of operand `i`.
    pub fn dst(&self, inst: &CheckedInst, i: usize) -> Result<RegId, LowerError> {
        match inst.operands.get(i) {
            Some(CheckedOperand::Reg(r)) => Ok(*r),
            _ => Err(LowerError::new("expected a destination register", inst.span)),
        }
    }

    /// Operand `i` of `inst`.
    pub fn arg<'b>(&self, inst: &'b CheckedInst, i: usize) -> Result<&'b CheckedOperand, LowerError> {
        inst.operands
            .get(i)
            .ok_or_else(|| LowerError::new(format!("missing operand {}", i + 1), inst.span))
    }

    /// Dispatches one (unguarded, or guard already applied) instruction.
    fn lower_inst(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        match inst.op {
            P::Mov => self.lower_mov(inst),
            P::Ld | P::Ldu => self.lower_ld(inst),
            P::St => self.lower_st(inst),
            P::Cvta => self.lower_cvta(inst),
            P::Cvt => self.lower_cvt(inst),
            P::Setp => self.lower_setp(inst),
            P::Selp => self.lower_selp(inst),
            P::Add
            | P::Sub
            | P::Mul
            | P::Mad
            | P::Fma
            | P::And
            | P::Or
            | P::Xor
            | P::Shl
            | P::Shr
            | P::Min
            | P::Max => self.lower_binary_family(inst),
            P::Neg | P::Not | P::Abs => self.lower_unary(inst),
            other => Err(LowerError::new(
                format!(
                    "`{}` is not supported by this version of ptxc",
                    format!("{other:?}").to_lowercase()
                ),
                inst.span,
            )),
        }
    }

    /// Finishes: removes trivial block parameters.
    pub fn finish(mut self) -> Function {
        remove_trivial_params(&mut self.func);
        self.func
    }
}

/// True for instructions that must not run when their guard is false.
fn has_side_effects(op: P) -> bool {
    matches!(
        op,
        P::St | P::Atom | P::Red | P::Bar | P::Barrier | P::Membar | P::Fence | P::Call | P::Trap
    )
}
