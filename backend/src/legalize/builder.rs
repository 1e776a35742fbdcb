//! Building an expansion: the instructions that replace one MIR instruction, appended to a
//! current block that may branch into new blocks (a slow path) and merge again.
//!
//! The expanded instruction keeps its result: it becomes a `copy` of the expansion's value
//! in the block where the expansion ends, followed by the instructions that came after it.

use ptxc_mir::ir::{
    Aux, Block, BlockCall, Cond, ConvertInfo, FloatMode, Function, Inst, InstData, Opcode, Rounding, Type, Value,
    ValueDef,
};
use smallvec::smallvec;

/// Appends instructions for one expansion.
pub struct Builder<'f> {
    /// The function.
    pub func: &'f mut Function,
    /// The block instructions are appended to.
    pub block: Block,
    /// Blocks created by this expansion, with whether they are cold (placed at the end).
    pub created: Vec<(Block, bool)>,
    /// The slow paths this expansion made subroutines of.
    pub subroutines: Vec<Subroutine>,
}

/// A slow path called as a subroutine, as ptxas calls its own (`CALL.REL.NOINC` after the
/// return address is set, `RET.REL.NODEC` back; `docs/CUBIN.md`, section 4): `call` holds
/// only a jump to the slow path's first block, and every jump to `merge` comes from the slow
/// path's end (the fast path reaches `merge` by a conditional branch).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Subroutine {
    /// The block that calls the slow path.
    pub call: Block,
    /// The block the slow path returns to.
    pub merge: Block,
}

impl<'f> Builder<'f> {
    /// A builder appending to `block`.
    pub fn new(func: &'f mut Function, block: Block) -> Builder<'f> {
        Builder {
            func,
            block,
            created: Vec::new(),
            subroutines: Vec::new(),
        }
    }

    /// Appends `op` and returns its first result.
    pub fn op(&mut self, op: Opcode, ty: Type, args: &[Value], aux: Aux) -> Value {
        let inst = self.func.create_inst(InstData {
            op,
            ty,
            args: args.into(),
            aux,
        });
        self.func.blocks[self.block].insts.push(inst);
        self.func.results[inst][0]
    }

    /// A constant of type `ty`.
    pub fn k(&mut self, ty: Type, bits: u64) -> Value {
        self.op(Opcode::Const, ty, &[], Aux::Imm(bits & ty.mask()))
    }

    /// An i32 constant.
    pub fn i32(&mut self, v: i64) -> Value {
        self.k(Type::I32, v as u64)
    }

    /// An f32 constant.
    pub fn f32(&mut self, v: f32) -> Value {
        self.k(Type::F32, v.to_bits() as u64)
    }

    /// An f64 constant.
    pub fn f64(&mut self, v: f64) -> Value {
        self.k(Type::F64, v.to_bits())
    }

    /// A two-operand operation without extra data.
    pub fn bin(&mut self, op: Opcode, ty: Type, a: Value, b: Value) -> Value {
        self.op(op, ty, &[a, b], Aux::None)
    }

    /// A float operation with mode `m`.
    pub fn fop(&mut self, op: Opcode, ty: Type, args: &[Value], m: FloatMode) -> Value {
        self.op(op, ty, args, Aux::Float(m))
    }

    /// `a * b + c` rounded as `rnd` says.
    pub fn fma(&mut self, ty: Type, a: Value, b: Value, c: Value, rnd: Rounding) -> Value {
        self.fop(Opcode::Ffma, ty, &[a, b, c], rounded(rnd))
    }

    /// `a * b` rounded as `rnd` says.
    pub fn mul(&mut self, ty: Type, a: Value, b: Value, rnd: Rounding) -> Value {
        self.fop(Opcode::Fmul, ty, &[a, b], rounded(rnd))
    }

    /// `-a` (exact).
    pub fn neg(&mut self, ty: Type, a: Value) -> Value {
        self.fop(Opcode::Fneg, ty, &[a], FloatMode::default())
    }

    /// `|a|` (exact).
    pub fn abs(&mut self, ty: Type, a: Value) -> Value {
        self.fop(Opcode::Fabs, ty, &[a], FloatMode::default())
    }

    /// An approximate function with flushed input and output (one MUFU instruction).
    pub fn mufu(&mut self, op: Opcode, ty: Type, a: Value) -> Value {
        self.fop(
            op,
            ty,
            &[a],
            FloatMode {
                ftz: true,
                ..FloatMode::default()
            },
        )
    }

    /// Integer compare.
    pub fn icmp(&mut self, cond: Cond, ty: Type, a: Value, b: Value) -> Value {
        self.op(Opcode::Icmp, ty, &[a, b], Aux::Cond(cond))
    }

    /// Float compare.
    pub fn fcmp(&mut self, cond: Cond, ty: Type, a: Value, b: Value) -> Value {
        self.op(Opcode::Fcmp, ty, &[a, b], Aux::Cond(cond))
    }

    /// `p ? a : b`.
    pub fn select(&mut self, ty: Type, p: Value, a: Value, b: Value) -> Value {
        self.op(Opcode::Select, ty, &[p, a, b], Aux::None)
    }

    /// Predicate logic.
    pub fn pred(&mut self, op: Opcode, a: Value, b: Value) -> Value {
        self.bin(op, Type::Pred, a, b)
    }

    /// The bits of `a` as `ty`.
    pub fn bitcast(&mut self, ty: Type, a: Value) -> Value {
        self.op(Opcode::Bitcast, ty, &[a], Aux::None)
    }

    /// A conversion of `a` to `to`.
    pub fn convert(&mut self, to: Type, a: Value, info: ConvertInfo) -> Value {
        self.op(Opcode::Convert, to, &[a], Aux::Convert(info))
    }

    /// `a` (f32) widened to f64 (exact).
    pub fn f32_to_f64(&mut self, a: Value) -> Value {
        self.convert(Type::F64, a, float_convert(Type::F32, None, false))
    }

    /// `a` (f64) rounded to f32 to nearest, flushing a subnormal result if `ftz`.
    pub fn f64_to_f32(&mut self, a: Value, ftz: bool) -> Value {
        let v = self.convert(Type::F32, a, float_convert(Type::F64, Some(Rounding::Rn), false));
        if ftz {
            self.fop(Opcode::Fflush, Type::F32, &[v], FloatMode::default())
        } else {
            v
        }
    }

    /// `a` (64 bits) as an i64.
    fn as_i64(&mut self, a: Value) -> Value {
        if self.func.ty(a) == Type::I64 {
            a
        } else {
            self.bitcast(Type::I64, a)
        }
    }

    /// The upper 32 bits of a 64-bit value, as an i32.
    pub fn hi(&mut self, a: Value) -> Value {
        let bits = self.as_i64(a);
        let n = self.i32(32);
        let shifted = self.bin(Opcode::ShrU, Type::I64, bits, n);
        self.convert(Type::I32, shifted, int_convert(Type::I64))
    }

    /// The lower 32 bits of a 64-bit value, as an i32: the word itself where `a` widens
    /// one (`cvt.u64.u32`, `cvt.s64.s32`), as nvcc's PTX reassembles a shuffled double.
    pub fn lo(&mut self, a: Value) -> Value {
        if let Some(word) = self.widened_word(a) {
            return word;
        }
        let bits = self.as_i64(a);
        self.convert(Type::I32, bits, int_convert(Type::I64))
    }

    /// The 32-bit integer that `a` is the zero or sign extension of, if it is one.
    fn widened_word(&self, a: Value) -> Option<Value> {
        let ValueDef::Result(i, 0) = self.func.values[a].def else {
            return None;
        };
        let d = &self.func.insts[i];
        let widens = |c: &ConvertInfo| c.from == Type::I32 && c.rnd.is_none() && !c.sat;
        match &d.aux {
            Aux::Convert(c) if d.op == Opcode::Convert && d.ty == Type::I64 && widens(c) => Some(d.args[0]),
            _ => None,
        }
    }

    /// The 64-bit value of type `ty` with upper word `hi` and lower word `lo` (i32 values).
    pub fn pack(&mut self, ty: Type, hi: Value, lo: Value) -> Value {
        let h = self.convert(Type::I64, hi, int_convert(Type::I32));
        let l = self.convert(Type::I64, lo, int_convert(Type::I32));
        let n = self.i32(32);
        let h = self.bin(Opcode::Shl, Type::I64, h, n);
        let bits = self.bin(Opcode::Or, Type::I64, h, l);
        self.bitcast(ty, bits)
    }

    /// Creates a block; cold blocks are laid out at the end of the function.
    pub fn new_block(&mut self, cold: bool) -> Block {
        let b = self.func.blocks.push(Default::default());
        self.created.push((b, cold));
        b
    }

    /// Adds a parameter to `block`.
    pub fn param(&mut self, block: Block, ty: Type) -> Value {
        self.func.add_block_param(block, ty)
    }

    /// Ends the current block with `brif cond, then(args), else(args)`.
    pub fn brif(&mut self, cond: Value, then: (Block, &[Value]), els: (Block, &[Value])) {
        let call = |(block, args): (Block, &[Value])| BlockCall {
            block,
            args: args.into(),
        };
        let targets = smallvec![call(then), call(els)];
        self.op_terminator(Opcode::Brif, &[cond], Aux::Branch(targets));
    }

    /// Ends the current block with `jump target(args)`.
    pub fn jump(&mut self, target: Block, args: &[Value]) {
        let targets = smallvec![BlockCall {
            block: target,
            args: args.into(),
        }];
        self.op_terminator(Opcode::Jump, &[], Aux::Branch(targets));
    }

    fn op_terminator(&mut self, op: Opcode, args: &[Value], aux: Aux) -> Inst {
        let inst = self.func.create_inst(InstData {
            op,
            ty: Type::I32,
            args: args.into(),
            aux,
        });
        self.func.blocks[self.block].insts.push(inst);
        inst
    }

    /// Switches to appending to `block`.
    pub fn switch_to(&mut self, block: Block) {
        self.block = block;
    }

    /// Branches on `slow`: to a new cold block where `slow_path` computes the value (called
    /// as a subroutine, [`Subroutine`]), else straight to a new merge block with `fast`;
    /// continues in the merge block and returns the merged value.
    pub fn with_slow_path(
        &mut self,
        ty: Type,
        slow: Value,
        fast: Value,
        slow_path: impl FnOnce(&mut Builder) -> Value,
    ) -> Value {
        let merge = self.new_block(false);
        let merged = self.param(merge, ty);
        self.subroutine(slow, merge, &[fast], |b| vec![slow_path(b)]);
        merged
    }

    /// Calls a new cold block where `body` computes a value of type `ty` (as a subroutine,
    /// [`Subroutine`]; the current block is the call block); continues in a new block and
    /// returns the value.
    pub fn call(&mut self, ty: Type, body: impl FnOnce(&mut Builder) -> Value) -> Value {
        let (cold, merge) = (self.new_block(true), self.new_block(false));
        let v = self.param(merge, ty);
        let call = self.block;
        self.jump(cold, &[]);
        self.switch_to(cold);
        let r = body(self);
        self.jump(merge, &[r]);
        self.switch_to(merge);
        self.subroutines.push(Subroutine { call, merge });
        v
    }

    /// Branches on `slow` to a call of a new cold block where `slow_path` computes the
    /// arguments of `merge`, else to `merge` with `fast`; continues in `merge`.
    pub fn subroutine(
        &mut self,
        slow: Value,
        merge: Block,
        fast: &[Value],
        slow_path: impl FnOnce(&mut Builder) -> Vec<Value>,
    ) {
        let (call, cold) = (self.new_block(false), self.new_block(true));
        self.brif(slow, (call, &[]), (merge, fast));
        self.switch_to(call);
        self.jump(cold, &[]);
        self.switch_to(cold);
        let v = slow_path(self);
        self.jump(merge, &v);
        self.switch_to(merge);
        self.subroutines.push(Subroutine { call, merge });
    }
}

/// A float mode with explicit rounding.
pub fn rounded(rnd: Rounding) -> FloatMode {
    FloatMode {
        rnd: Some(rnd),
        ..FloatMode::default()
    }
}

/// Conversion data of an integer width change from `from` (unsigned, no saturation).
pub fn int_convert(from: Type) -> ConvertInfo {
    ConvertInfo {
        from,
        from_signed: false,
        to_signed: false,
        rnd: None,
        sat: false,
        ftz: false,
        relu: false,
    }
}

/// Conversion data of a float conversion from `from`.
pub fn float_convert(from: Type, rnd: Option<Rounding>, ftz: bool) -> ConvertInfo {
    ConvertInfo {
        from,
        from_signed: false,
        to_signed: false,
        rnd,
        sat: false,
        ftz,
        relu: false,
    }
}
