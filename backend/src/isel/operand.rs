//! Operands: which MIR values fold into immediates or constant-bank operands, and
//! materialising them into registers where a register is needed.

use super::Isel;
use crate::vars::Place;
use crate::vcode::{MInst, MKind, MOp, Slot, VClass, VReg, WideOp};
use ptxc_mir::ir::{Aux, Opcode, SpecialReg, Type, Value, ValueDef};
use ptxc_sass::isa::{Op, Role, Value as V};
use smallvec::smallvec;

impl Isel<'_> {
    /// Byte offset of the kernel parameters in constant bank 0 on the target.
    pub fn param_base(&self) -> i32 {
        self.vcode.arch.param_base() as i32
    }

    /// The defining opcode and data of `v`, if it is an instruction result.
    pub fn def_of(&self, v: Value) -> Option<&ptxc_mir::ir::InstData> {
        match self.func.values[v].def {
            ValueDef::Result(i, _) => Some(&self.func.insts[i]),
            ValueDef::Param(..) => None,
        }
    }

    /// `v` as an operand that needs no register (32-bit or predicate), if possible.
    pub fn foldable(&self, v: Value) -> Option<V> {
        let d = self.def_of(v)?;
        let ty = self.func.ty(v);
        match (&d.op, &d.aux) {
            (Opcode::Copy | Opcode::Bitcast, _) => self.foldable(d.args[0]),
            (Opcode::Undef, _) if ty == Type::Pred => Some(V::Pred { idx: 7, neg: true }),
            (Opcode::Undef, _) if ty.bits() <= 32 => Some(V::Imm(0)),
            (Opcode::Const, Aux::Imm(bits)) if ty == Type::Pred => Some(V::Pred {
                idx: 7,
                neg: *bits == 0,
            }),
            (Opcode::Const, Aux::Imm(bits)) if ty.bits() <= 32 => Some(V::Imm(*bits & 0xffff_ffff)),
            // ALU operands address constant banks in words: a parameter at another offset
            // (a `.u8` or `.u16` after a narrower one) is loaded by LDC (`lower_value`).
            (Opcode::Param, Aux::Param(off)) if ty.bits() <= 32 && off % 4 == 0 => Some(V::CBank {
                bank: 0,
                offset: self.param_base() + *off as i32,
                reg: None,
            }),
            // ptxas' values: 32 warp slots per SM, 32 lanes per warp.
            (Opcode::Special, Aux::Special(SpecialReg::NWarpId | SpecialReg::WarpSize)) => Some(V::Imm(32)),
            (Opcode::Special, Aux::Special(sr)) => driver_constant(*sr).map(|offset| V::CBank {
                bank: 0,
                offset,
                reg: None,
            }),
            // The low bits of a 64-bit constant (a variable's address, say).
            (Opcode::Convert, Aux::Convert(c))
                if !c.sat && c.rnd.is_none() && c.from == Type::I64 && ty.is_int() && ty.bits() <= 32 =>
            {
                match self.const64(d.args[0])? {
                    V::Imm(k) => Some(V::Imm(k & (u64::MAX >> (64 - ty.bits())))),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// A 64-bit `v` as a constant-bank operand (a 64-bit kernel parameter), if possible.
    pub fn foldable64(&self, v: Value) -> Option<V> {
        let d = self.def_of(v)?;
        match (&d.op, &d.aux) {
            (Opcode::Copy | Opcode::Bitcast, _) => self.foldable64(d.args[0]),
            (Opcode::Param, Aux::Param(off)) if self.func.ty(v).bits() == 64 => Some(V::CBank {
                bank: 0,
                offset: self.param_base() + *off as i32,
                reg: None,
            }),
            // The grid id is a 64-bit driver constant.
            (Opcode::Special, Aux::Special(SpecialReg::GridId)) => Some(V::CBank {
                bank: 0,
                offset: 0x30,
                reg: None,
            }),
            // A `.global` variable's address is in its constant-bank-4 slot.
            (Opcode::Addr, _) => match self.var_place(v)? {
                Place::Global { slot } => Some(V::CBank {
                    bank: 4,
                    offset: slot as i32,
                    reg: None,
                }),
                _ => None,
            },
            _ => None,
        }
    }

    /// The register holding `v`, materialising folded values (and elements of tuples) in
    /// the current block.
    pub fn reg(&mut self, v: Value) -> VReg {
        if let Some(&r) = self.regs.get(&v) {
            return r;
        }
        if let Some(&r) = self.local.get(&v) {
            return r;
        }
        let ty = self.func.ty(v);
        let class = super::class_of(ty);
        let r = self.vcode.new_vreg(class);
        if let Some((tuple, index)) = self.sub_of(v) {
            self.push(copy(class, r, MOp::Sub(tuple, index)));
            self.local.insert(v, r);
            return r;
        }
        let folded = if class == VClass::Pair {
            self.foldable64(v).or_else(|| self.const64(v))
        } else {
            self.foldable(v)
        };
        match folded {
            Some(val) if class == VClass::Pred => self.push(pred_const(r, val)),
            Some(val) => self.push(copy(class, r, MOp::Fixed(val))),
            None => {
                // Defined later in program order (a loop-carried use cannot reach here in
                // SSA) or by an instruction that selects its own register.
                self.regs.insert(v, r);
                return r;
            }
        }
        self.local.insert(v, r);
        r
    }

    /// `v` as a source operand: an element of a tuple, a predicate, or its register.
    pub fn src_op(&mut self, v: Value) -> MOp {
        if let Some((tuple, index)) = self.sub_of(v) {
            return MOp::Sub(tuple, index);
        }
        if super::class_of(self.func.ty(v)) == VClass::Pred {
            return self.pred(v);
        }
        MOp::Reg(self.reg(v))
    }

    /// `v` as the source of a move: its constant where it folds, else [`Self::src_op`].
    pub fn fixed_or_src(&mut self, v: Value) -> MOp {
        match self.foldable(v) {
            Some(c) => MOp::Fixed(c),
            None => self.src_op(v),
        }
    }

    /// A 64-bit `v` as a source of a wide operation: a 64-bit parameter, a constant, or a pair.
    pub fn wide_src(&mut self, v: Value) -> MOp {
        match self.foldable64(v).or_else(|| self.const64(v)) {
            Some(val) => MOp::Fixed(val),
            None => self.src_op(v),
        }
    }

    /// The 64-bit constant `v` holds, if it is one.
    pub fn const64(&self, v: Value) -> Option<V> {
        match self.def_of(v) {
            Some(d) if matches!(d.op, Opcode::Copy | Opcode::Bitcast) => self.const64(d.args[0]),
            Some(d) if d.op == Opcode::Undef => Some(V::Imm(0)),
            Some(d) if d.op == Opcode::Const => match d.aux {
                Aux::Imm(bits) => Some(V::Imm(bits)),
                _ => None,
            },
            // Shared and constant variables' addresses are offsets known now.
            Some(d) if d.op == Opcode::Addr => match self.var_place(v)? {
                Place::Shared { offset } | Place::Const { offset } => Some(V::Imm(u64::from(offset))),
                _ => None,
            },
            _ => None,
        }
    }

    /// True if `v` is never held in a register of its own: every use folds or materialises it.
    pub fn is_operand_value(&self, v: Value) -> bool {
        match self.vcode_class_of(v) {
            VClass::Pair => self.foldable64(v).is_some() || self.const64(v).is_some(),
            _ => self.foldable(v).is_some(),
        }
    }

    fn vcode_class_of(&self, v: Value) -> VClass {
        super::class_of(self.func.ty(v))
    }

    /// `v` as a predicate operand (folding `not`).
    pub fn pred(&mut self, v: Value) -> MOp {
        if let Some(V::Pred { idx, neg }) = self.foldable(v) {
            return MOp::Fixed(V::Pred { idx, neg });
        }
        if let Some(d) = self.def_of(v)
            && d.op == Opcode::Not
            && self.func.ty(v) == Type::Pred
        {
            let inner = d.args[0];
            return match self.pred(inner) {
                MOp::Pred(r, n) => MOp::Pred(r, !n),
                MOp::Fixed(V::Pred { idx, neg }) => MOp::Fixed(V::Pred { idx, neg: !neg }),
                other => other,
            };
        }
        MOp::Pred(self.reg(v), false)
    }

    /// A fresh predicate register set to the constant `val` (`PT` or `!PT`).
    pub fn constant_pred_reg(&mut self, val: V) -> VReg {
        let r = self.vcode.new_vreg(VClass::Pred);
        self.push(pred_const(r, val));
        r
    }
}

/// The constant-bank offset of special registers the driver keeps in bank 0 (the cluster
/// words of sm_90 where ptxas 13.5 reads them: the launch's cluster word, 1 with a cluster
/// shape, at 0x140; the CTAs per cluster dimension at 0x144, the clusters per grid
/// dimension at 0x15c, the CTAs per cluster at 0x188).
pub fn driver_constant(sr: SpecialReg) -> Option<i32> {
    match sr {
        SpecialReg::Ntid(d) => Some(4 * d as i32),
        SpecialReg::Nctaid(d) => Some(0xc + 4 * d as i32),
        SpecialReg::DynamicSmemSize => Some(0x2c),
        SpecialReg::NSmId => Some(0x10c),
        SpecialReg::IsExplicitCluster => Some(0x140),
        SpecialReg::ClusterNctaId(d) => Some(0x144 + 4 * d as i32),
        SpecialReg::NClusterId(d) => Some(0x15c + 4 * d as i32),
        SpecialReg::ClusterNctaRank => Some(0x188),
        _ => None,
    }
}

/// A 64-bit move of `src` into the pair `d` (two MOVs after allocation).
pub fn wide_mov(d: VReg, src: MOp) -> MInst {
    MInst::new(MKind::Wide {
        op: WideOp::Mov,
        d,
        srcs: smallvec![src],
        tmp: None,
    })
}

/// A copy of `src` into `d` of `class`: a pair's as one 64-bit move, else `MOV`.
fn copy(class: VClass, d: VReg, src: MOp) -> MInst {
    if class == VClass::Pair {
        wide_mov(d, src)
    } else {
        mov(d, src)
    }
}

/// `MOV d, src`.
pub fn mov(d: VReg, src: MOp) -> MInst {
    MInst::new(MKind::Sass {
        op: Op::Mov,
        slots: smallvec![slot(Role::Dst, MOp::Reg(d)), slot(Role::B, src)],
        mods: smallvec![],
    })
}

/// A predicate set to a constant: `PLOP3.LUT Pd, PT, PT, PT, PT, 0xff|0x00`.
fn pred_const(d: VReg, val: V) -> MInst {
    let truth = matches!(val, V::Pred { neg: false, .. });
    MInst::new(MKind::Sass {
        op: Op::Plop3,
        slots: smallvec![
            slot(Role::PredDst0, MOp::Pred(d, false)),
            slot(Role::Other, MOp::Fixed(V::Imm(if truth { 0xff } else { 0 })))
        ],
        mods: smallvec![],
    })
}

/// An operand slot without modifiers.
pub fn slot(role: Role, op: MOp) -> Slot {
    Slot::plain(role, op)
}
