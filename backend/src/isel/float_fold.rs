//! Folds for float selection, found before selection starts (their uses are discounted, so
//! an instruction folded into every user is not emitted):
//! - `fneg` / `fabs` become the source modifiers `-x` / `|x|` of the float instructions
//!   that read them (FADD, FMUL, FFMA, FSETP, FMNMX, their f64 and f16 forms, MUFU, F2I,
//!   F2F, FRND). A flushing (`.ftz`) sign operation folds only into a flushing user;
//! - the halves of 64-bit values: `convert.i32 (shr_u.i64 x, 32)` is the upper register of
//!   `x`'s pair and `convert.i32 x` the lower one; `or.i64 (shl (zext hi) 32) (zext lo)` is
//!   a pair built from two registers (the legalized f64 code uses all three);
//! - the upper half of a 32-bit register as an f16 widened to f32 (`convert.f32 (bitcast.f16
//!   (convert.i16 (shr.i32 w, 16)))`) is HADD2.F32 of `w.H1_H1`, as ptxas reads halves.

use super::Isel;
use super::fit::Arg;
use crate::vcode::SrcMods;
use ptxc_mir::ir::{Aux, Inst, InstData, Opcode, Type, Value, ValueDef};

/// True if instructions of this opcode take float source modifiers on their float sources.
fn takes_sign_mods(d: &InstData) -> bool {
    use Opcode::*;
    match d.op {
        Fadd | Fsub | Fmul | Ffma | Fmin | Fmax | Fcmp | Frint | FrcpApprox | FsqrtApprox | FrsqrtApprox
        | Fex2Approx | Flg2Approx | FtanhApprox => d.ty.is_float(),
        Convert => matches!(d.aux, Aux::Convert(c) if c.from.is_float()),
        _ => false,
    }
}

/// Whether the user flushes its float inputs.
fn user_flushes(d: &InstData) -> bool {
    match d.aux {
        Aux::Float(m) => m.ftz,
        Aux::Convert(c) => c.ftz,
        _ => false,
    }
}

impl Isel<'_> {
    /// The instruction defining `v`, if any.
    fn def_inst(&self, v: Value) -> Option<Inst> {
        match self.func.values[v].def {
            ValueDef::Result(i, _) => Some(i),
            ValueDef::Param(..) => None,
        }
    }

    /// `v` as a source of a float instruction flushing its inputs if `flushing`: the value
    /// under any `fneg`/`fabs` chain, with the modifiers they amount to.
    pub fn float_src(&self, v: Value, flushing: bool) -> Arg {
        let (inner, mods) = self.peel_signs(v, flushing);
        Arg::Val(inner, mods)
    }

    /// Peels `fneg`/`fabs` of the same type off `v`.
    fn peel_signs(&self, mut v: Value, flushing: bool) -> (Value, SrcMods) {
        let mut mods = SrcMods::default();
        while let Some(i) = self.def_inst(v) {
            let d = &self.func.insts[i];
            let foldable = matches!(d.op, Opcode::Fneg | Opcode::Fabs)
                && matches!(d.aux, Aux::Float(m) if !m.ftz || flushing)
                && self.func.ty(d.args[0]) == self.func.ty(v);
            if !foldable || mods.abs {
                break;
            }
            if d.op == Opcode::Fabs {
                // The signs peeled so far apply after the absolute value: -|x| keeps its `-`.
                mods.abs = true;
            } else {
                mods.neg = !mods.neg;
            }
            v = d.args[0];
        }
        (v, mods)
    }

    /// True if `inst` is pure and nothing reads its results: it is not selected.
    fn is_unselected(&self, inst: Inst) -> bool {
        self.func.insts[inst].op.is_pure() && self.func.results[inst].iter().all(|&r| self.use_count(r) == 0)
    }

    /// Discounts the uses folded as source modifiers and as register halves (of the
    /// instructions that are selected).
    pub(super) fn find_float_folds(&mut self) {
        let mut folded: Vec<Value> = Vec::new();
        for &b in &self.func.layout {
            for &i in &self.func.blocks[b].insts {
                let d = &self.func.insts[i];
                // A dead instruction's uses were already dropped (`remove_dead_values`):
                // discounting them again would leave a still-read value unselected.
                if self.is_unselected(i) {
                    continue;
                }
                if takes_sign_mods(d) {
                    let flushing = user_flushes(d);
                    // The user reads the peeled value instead of `a`. (A sign operation left
                    // unread is not emitted; its own operand's use is still counted, which
                    // can only keep an instruction alive, never drop a needed one.)
                    for &a in &d.args {
                        if self.peel_signs(a, flushing).0 != a {
                            folded.push(a);
                        }
                    }
                }
                if let Some(shift) = self.upper_half_shift(i) {
                    folded.push(shift);
                }
                if let Some((links, _)) = self.f16_upper_half(i) {
                    folded.extend(self.single_use_prefix(&links));
                }
                if let Some((shl, zhi, zlo)) = self.pack_parts(i) {
                    folded.extend([shl, zlo]);
                    // The shift reads the upper extension only if it stays.
                    if self.use_count(shl) == 1 {
                        folded.push(zhi);
                    }
                }
            }
        }
        for v in folded {
            if let Some(n) = self.uses.get_mut(&v) {
                *n = n.saturating_sub(1);
            }
        }
    }

    /// `([h, t, s], w)` if `inst` is `convert.f32 h` of `h = bitcast.f16 t`, `t =
    /// convert.i16 s` (a truncation), `s = shr.i32 w, 16`: the conversion reads the upper
    /// half of `w` (HADD2.F32 `w.H1_H1`) instead of `h`.
    pub(super) fn f16_upper_half(&self, inst: Inst) -> Option<([Value; 3], Value)> {
        let d = &self.func.insts[inst];
        let Aux::Convert(info) = d.aux else { return None };
        if d.op != Opcode::Convert || d.ty != Type::F32 || info.from != Type::F16 || info.ftz {
            return None;
        }
        let h = d.args[0];
        let hd = &self.func.insts[self.def_inst(h)?];
        if hd.op != Opcode::Bitcast || hd.ty != Type::F16 {
            return None;
        }
        let t = hd.args[0];
        let td = &self.func.insts[self.def_inst(t)?];
        let truncation = matches!(td.aux, Aux::Convert(c) if c.from == Type::I32 && !c.sat);
        if td.op != Opcode::Convert || td.ty != Type::I16 || !truncation {
            return None;
        }
        let s = td.args[0];
        let sd = &self.func.insts[self.def_inst(s)?];
        let by_16 = self.foldable(*sd.args.get(1)?) == Some(ptxc_sass::isa::Value::Imm(16));
        (matches!(sd.op, Opcode::ShrU | Opcode::ShrS) && sd.ty == Type::I32 && by_16).then_some(([h, t, s], sd.args[0]))
    }

    /// The links of a chain whose uses a folding user drops: the first, and each next one
    /// while the one before it had no other reader (it is then not selected).
    fn single_use_prefix(&self, links: &[Value]) -> Vec<Value> {
        let mut out = Vec::new();
        for &v in links {
            out.push(v);
            if self.use_count(v) != 1 {
                break;
            }
        }
        out
    }

    /// For `convert.i32 (shr.i64 x, 32)`: the shift's result (the conversion reads `x`'s
    /// upper register).
    pub(super) fn upper_half_shift(&self, inst: Inst) -> Option<Value> {
        self.upper_half_of(inst).map(|(shift, _)| shift)
    }

    /// `(shift result, x)` if `inst` is `convert.i32 (shr.i64 x, 32)` without saturation.
    pub(super) fn upper_half_of(&self, inst: Inst) -> Option<(Value, Value)> {
        let d = &self.func.insts[inst];
        let Aux::Convert(info) = d.aux else { return None };
        if d.op != Opcode::Convert || d.ty.bits() != 32 || !d.ty.is_int() || info.from != Type::I64 || info.sat {
            return None;
        }
        let s = d.args[0];
        let sd = &self.func.insts[self.def_inst(s)?];
        let by_32 = self.foldable(sd.args.get(1).copied()?) == Some(ptxc_sass::isa::Value::Imm(32));
        (matches!(sd.op, Opcode::ShrU | Opcode::ShrS) && sd.ty == Type::I64 && by_32).then_some((s, sd.args[0]))
    }

    /// The 32-bit value `v` zero-extended to 64 bits comes from, if `v` is such an extension.
    fn zext_source(&self, v: Value) -> Option<Value> {
        let d = &self.func.insts[self.def_inst(v)?];
        match d.aux {
            Aux::Convert(c) if d.op == Opcode::Convert && c.from.bits() == 32 && c.from.is_int() && !c.from_signed => {
                Some(d.args[0])
            }
            _ => None,
        }
    }

    /// `(shl, zext hi, zext lo)` if `inst` is `or.i64 (shl (zext hi) 32) (zext lo)`.
    fn pack_parts(&self, inst: Inst) -> Option<(Value, Value, Value)> {
        let d = &self.func.insts[inst];
        if d.op != Opcode::Or || d.ty != Type::I64 {
            return None;
        }
        for (x, y) in [(d.args[0], d.args[1]), (d.args[1], d.args[0])] {
            let Some(sd) = self.def_inst(x).map(|i| &self.func.insts[i]) else {
                continue;
            };
            let by_32 = sd.args.get(1).and_then(|&k| self.foldable(k)) == Some(ptxc_sass::isa::Value::Imm(32));
            if sd.op == Opcode::Shl && by_32 && self.zext_source(sd.args[0]).is_some() && self.zext_source(y).is_some()
            {
                return Some((x, sd.args[0], y));
            }
        }
        None
    }

    /// `(hi, lo)` 32-bit values if `inst` builds a pair from them.
    pub(super) fn packed_halves(&self, inst: Inst) -> Option<(Value, Value)> {
        let (_, zhi, zlo) = self.pack_parts(inst)?;
        Some((self.zext_source(zhi)?, self.zext_source(zlo)?))
    }
}

impl Isel<'_> {
    /// `or.i64 (shl (zext hi) 32) (zext lo)`: the pair of the two registers.
    pub(super) fn lower_pack64(&mut self, inst: Inst) -> Result<(), super::IselError> {
        let (hi, lo) = self.packed_halves(inst).expect("a packing");
        let (lo, hi) = (self.src_op(lo), self.src_op(hi));
        let d = self.def_reg(self.func.results[inst][0]);
        self.push(crate::vcode::MInst::new(crate::vcode::MKind::Wide {
            op: crate::vcode::WideOp::Pack,
            d,
            srcs: smallvec::smallvec![lo, hi],
            tmp: None,
        }));
        Ok(())
    }
}
