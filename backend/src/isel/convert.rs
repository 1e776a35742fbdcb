//! Conversions: integer width changes (with extension and saturation; saturating ones with
//! a 64-bit side are legalized first), integers to floats (I2F, reading 8- and 16-bit
//! sources in place), floats to integers (F2I, which saturates; `.NTZ` where ptxas sets it:
//! f16/f32 sources to 32-bit and narrower results), and between float widths (F2F; f16 to
//! f32 is HADD2.F32 as ptxas writes it, reading an upper half as `.H1_H1`), with `.ftz` and `.sat` as extra instructions where
//! ptxas adds them. The halves of 64-bit values need no instruction (see `float_fold.rs`).

use super::fit::Arg;
use super::float::{float_type, neg_rz, rounding};
use super::{Isel, IselError};
use crate::vcode::{MInst, MKind, MOp, SrcMods, WideOp};
use ptxc_mir::ir::{Aux, ConvertInfo, Inst, Opcode, Type, Value};
use ptxc_sass::isa::values::ShfType;
use ptxc_sass::isa::values::{self, FloatPair, IntType};
use ptxc_sass::isa::{Mod, ModValue, Op, Role, Value as V};

/// The `.H1_H1` swizzle: the upper half of a register.
const H1_H1: u8 = 3;

/// The conversion integer type of `t` with signedness `signed`.
fn int_type(t: Type, signed: bool) -> IntType {
    match (t.bits(), signed) {
        (8, false) => IntType::U8,
        (8, true) => IntType::S8,
        (16, false) => IntType::U16,
        (16, true) => IntType::S16,
        (32, false) => IntType::U32,
        (32, true) => IntType::S32,
        (_, false) => IntType::U64,
        (_, true) => IntType::S64,
    }
}

/// F2I's rounding: truncation unless the instruction says otherwise.
fn f2i_rounding(r: Option<ptxc_mir::ir::Rounding>) -> values::Rounding {
    rounding(Some(r.unwrap_or(ptxc_mir::ir::Rounding::Rz)))
}

impl Isel<'_> {
    /// Selects a conversion.
    pub(super) fn lower_convert(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let Aux::Convert(info) = data.aux else {
            return Err(self.unsupported("conversion"));
        };
        let (to, from, a) = (data.ty, info.from, data.args[0]);
        let result = self.func.results[inst][0];
        if data.op == Opcode::Fpack {
            let b = data.args[1];
            return self.f2fp(result, Arg::v(a), Arg::v(b), &info, to == Type::Bf16x2);
        }
        if from == Type::F32 && (to == Type::Bf16 || to == Type::F16 && info.relu) {
            return self.f2fp(result, Arg::rz(), Arg::v(a), &info, to == Type::Bf16);
        }
        if from == Type::Bf16 && to == Type::F32 {
            // bf16 is the high half of an f32 (ptxas: SHF.L.U32 d, a, 0x10, RZ).
            let d = MOp::Reg(self.def_reg(result));
            let srcs = [(Role::A, Arg::v(a)), (Role::B, Arg::imm(16)), (Role::C, Arg::rz())];
            let mods = [Mod::Right.flag(false), ShfType::U32.set(), Mod::Hi.flag(false)];
            return self.emit_sass(Op::Shf, &[(Role::Dst, d)], &srcs, &mods, None);
        }
        if let Some((_, w)) = self.f16_upper_half(inst) {
            let high = Arg::Val(
                w,
                SrcMods {
                    swizzle: H1_H1,
                    ..SrcMods::default()
                },
            );
            return self.widen_half(result, high, info.sat);
        }
        if let Some((_, x)) = self.upper_half_of(inst) {
            let r = self.reg(x);
            self.alias_sub(result, r, 1);
            return Ok(());
        }
        match (from.is_int(), to.is_int()) {
            (true, true) => self.int_convert(result, a, from, to, info.from_signed, info.to_signed, info.sat),
            (true, false) => self.int_to_float(result, a, &info, to),
            (false, true) => self.float_to_int(result, a, &info, to),
            (false, false) => self.float_to_float(result, a, &info, to),
        }
    }

    /// F2FP.PACK_AB (sm_80): `a` and `b` (f32) rounded (RN or RZ) to f16 or bf16 (`.BF16`),
    /// `.RELU`, `a` into the high half. A scalar result is the low half, with `a` = RZ (the
    /// high half then +0), as ptxas writes `cvt.rn.bf16.f32`.
    fn f2fp(&mut self, result: Value, a: Arg, b: Arg, info: &ConvertInfo, bf16: bool) -> Result<(), IselError> {
        let d = MOp::Reg(self.def_reg(result));
        let mut mods = vec![rounding(info.rnd).set()];
        for (on, id) in [(bf16, Mod::Bf16), (info.relu, Mod::Relu)] {
            if on {
                mods.push(id.flag(true));
            }
        }
        self.emit_sass(Op::F2fp, &[(Role::Dst, d)], &[(Role::A, a), (Role::B, b)], &mods, None)
    }

    /// I2F (then FADD.SAT for `.sat`).
    fn int_to_float(&mut self, result: Value, a: Value, info: &ConvertInfo, to: Type) -> Result<(), IselError> {
        let src = if info.from.bits() == 64 {
            // I2F has no 64-bit immediate form: a constant goes into a register pair.
            match self.wide_src(a) {
                MOp::Fixed(V::Imm(_)) => Arg::op(MOp::Reg(self.reg(a))),
                op => Arg::op(op),
            }
        } else {
            Arg::v(a)
        };
        let mods = [
            float_type(to).set(),
            int_type(info.from, info.from_signed).set(),
            rounding(info.rnd).set(),
        ];
        let d = MOp::Reg(self.def_reg(result));
        if !info.sat {
            return self.emit_sass(Op::I2f, &[(Role::Dst, d)], &[(Role::B, src)], &mods, None);
        }
        let t = self.new_single();
        self.emit_sass(Op::I2f, &[(Role::Dst, t)], &[(Role::B, src)], &mods, None)?;
        self.saturate_float(d, Arg::op(t), to, false)
    }

    /// `d = sat(x)` for f32 (`FADD.SAT d, RZ, x`) or f16 (HADD2.SAT).
    pub(super) fn saturate_float(&mut self, d: MOp, x: Arg, ty: Type, ftz: bool) -> Result<(), IselError> {
        match ty {
            Type::F16 => {
                let x = self.low_half(x);
                let rz = self.low_half(neg_rz());
                self.emit_sass(
                    Op::Hadd2,
                    &[(Role::Dst, d)],
                    &[(Role::A, x), (Role::B, rz)],
                    &[Mod::Sat.flag(true)],
                    None,
                )
            }
            Type::F32 => {
                let mods = [Mod::Ftz.flag(ftz), values::Rounding::Rn.set(), Mod::Sat.flag(true)];
                self.emit_sass(
                    Op::Fadd,
                    &[(Role::Dst, d)],
                    &[(Role::A, Arg::rz()), (Role::B, x)],
                    &mods,
                    None,
                )
            }
            t => Err(self.unsupported(format!("saturating conversion to {t}"))),
        }
    }

    /// F2I (saturating by itself).
    fn float_to_int(&mut self, result: Value, a: Value, info: &ConvertInfo, to: Type) -> Result<(), IselError> {
        let ntz = info.from != Type::F64 && to.bits() <= 32;
        let mods = [
            Mod::Ftz.flag(info.ftz),
            int_type(to, info.to_signed).set(),
            float_type(info.from).set(),
            f2i_rounding(info.rnd).set(),
            Mod::Ntz.flag(ntz),
        ];
        let d = MOp::Reg(self.def_reg(result));
        let src = self.fsrc(a, info.ftz);
        self.emit_sass(Op::F2i, &[(Role::Dst, d)], &[(Role::B, src)], &mods, None)
    }

    /// Conversions between float types.
    /// An f16 half (`x`, with its lane swizzle) widened to f32: `HADD2.F32 d, x.H0_H0, -RZ`,
    /// or for an upper half `HADD2.F32 d, -RZ, x.H1_H1` (as ptxas writes it: sm_80 and later
    /// encode no `.H1_H1` on the A source of HADD2.F32, which nvdisasm rejects).
    fn widen_half(&mut self, result: Value, x: Arg, sat: bool) -> Result<(), IselError> {
        let d = MOp::Reg(self.def_reg(result));
        let rz = self.low_half(neg_rz());
        let mut mods = vec![Mod::HalfF32.flag(true)];
        if sat {
            mods.push(Mod::Sat.flag(true));
        }
        let upper = matches!(x, Arg::Val(_, m) | Arg::Op(_, m) if m.swizzle == H1_H1);
        let (a, b) = if upper { (neg_rz(), x) } else { (x, rz) };
        self.emit_sass(Op::Hadd2, &[(Role::Dst, d)], &[(Role::A, a), (Role::B, b)], &mods, None)
    }

    fn float_to_float(&mut self, result: Value, a: Value, info: &ConvertInfo, to: Type) -> Result<(), IselError> {
        let from = info.from;
        let d = MOp::Reg(self.def_reg(result));
        if from == to {
            // cvt.ftz / cvt.sat on one type (f32): FADD.FTZ x, -RZ or FADD.SAT RZ, x.
            if info.sat {
                return self.saturate_float(d, self.fsrc(a, info.ftz), to, info.ftz);
            }
            let mods = [Mod::Ftz.flag(info.ftz), values::Rounding::Rn.set()];
            let srcs = [(Role::A, self.fsrc(a, info.ftz)), (Role::B, neg_rz())];
            return self.emit_sass(Op::Fadd, &[(Role::Dst, d)], &srcs, &mods, None);
        }
        if from == Type::F16 && to == Type::F32 {
            return self.widen_half(result, self.low_half(self.fsrc(a, false)), info.sat);
        }
        let mut src = self.fsrc(a, info.ftz);
        if info.ftz && from == Type::F32 {
            src = Arg::op(self.flush32(src)?);
        }
        let after = info.sat || (info.ftz && to == Type::F32);
        let out = if after { self.new_single() } else { d };
        let types = FloatPair {
            dst: float_type(to),
            src: float_type(from),
        };
        let mods = [types.set(), rounding(info.rnd).set()];
        self.emit_sass(Op::F2f, &[(Role::Dst, out)], &[(Role::B, src)], &mods, None)?;
        if info.sat {
            return self.saturate_float(d, Arg::op(out), to, info.ftz);
        }
        if after {
            let srcs = [(Role::A, Arg::op(out)), (Role::B, Arg::imm(1.0f32.to_bits()))];
            return self.emit_sass(Op::Fmul, &[(Role::Dst, d)], &srcs, &[Mod::Ftz.flag(true)], None);
        }
        Ok(())
    }

    /// `FMUL.FTZ t, x, 1`: `x` with a subnormal flushed.
    fn flush32(&mut self, x: Arg) -> Result<MOp, IselError> {
        let t = self.new_single();
        let srcs = [(Role::A, x), (Role::B, Arg::imm(1.0f32.to_bits()))];
        self.emit_sass(Op::Fmul, &[(Role::Dst, t)], &srcs, &[Mod::Ftz.flag(true)], None)?;
        Ok(t)
    }

    /// Integer conversions between 8, 16, 32 and 64 bits (narrow values keep garbage above
    /// their width; widening extends them), with optional saturation.
    #[allow(clippy::too_many_arguments)]
    fn int_convert(
        &mut self,
        result: Value,
        a: Value,
        from: Type,
        to: Type,
        from_signed: bool,
        to_signed: bool,
        sat: bool,
    ) -> Result<(), IselError> {
        if sat {
            return self.saturate(result, a, from, to, from_signed, to_signed);
        }
        match (from.bits(), to.bits()) {
            (64, 64) => {
                self.alias_value(result, a);
                Ok(())
            }
            (64, _) => {
                // The lower register of the pair (no instruction).
                match self.sub_of(a) {
                    Some((t, i)) => self.alias_sub(result, t, i),
                    None if self.wide_const_bits(a).is_some() => {
                        let k = self.wide_const_bits(a).expect("constant") as u32;
                        let d = MOp::Reg(self.def_reg(result));
                        return self.emit_sass(Op::Mov, &[(Role::Dst, d)], &[(Role::B, Arg::imm(k))], &[], None);
                    }
                    None => {
                        let r = self.reg(a);
                        self.alias_sub(result, r, 0);
                    }
                }
                Ok(())
            }
            (f, 64) => {
                let lo = self.extended(a, f, from_signed)?;
                let d = self.def_reg(result);
                let hi = if from_signed {
                    let t = self.vcode.new_vreg(crate::vcode::VClass::Single);
                    let srcs = [(Role::A, Arg::rz()), (Role::B, Arg::imm(31)), (Role::C, Arg::op(lo))];
                    let mods = [Mod::Right.flag(true), ShfType::S32.set(), Mod::Hi.flag(true)];
                    self.emit_sass(Op::Shf, &[(Role::Dst, MOp::Reg(t))], &srcs, &mods, None)?;
                    MOp::Reg(t)
                } else {
                    MOp::Fixed(V::Reg(ptxc_sass::isa::RZ))
                };
                let tmp = None;
                self.push(MInst::new(MKind::Wide {
                    op: WideOp::Pack,
                    d,
                    srcs: smallvec::smallvec![lo, hi],
                    tmp,
                }));
                Ok(())
            }
            (f, t) if t > f => {
                let x = self.extended(a, f, from_signed)?;
                self.bind(result, x)
            }
            _ => {
                let x = self.src_op(a);
                self.bind(result, x)
            }
        }
    }

    /// The bits of a 64-bit constant, if `v` is one.
    fn wide_const_bits(&self, v: Value) -> Option<u64> {
        match self.const64(v) {
            Some(V::Imm(k)) => Some(k),
            _ => None,
        }
    }

    /// cvt.sat between integer types of at most 32 bits: clamp to the destination's range.
    fn saturate(
        &mut self,
        result: Value,
        a: Value,
        from: Type,
        to: Type,
        from_signed: bool,
        to_signed: bool,
    ) -> Result<(), IselError> {
        if from.bits() > 32 || to.bits() > 32 {
            return Err(self.unsupported("saturating conversions of 64-bit integers"));
        }
        let x = self.extended(a, from.bits(), from_signed)?;
        let bits = to.bits();
        let (lo, hi): (i64, i64) = if to_signed {
            (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
        } else {
            (0, (1i64 << bits) - 1)
        };
        // Clamp in the source's signedness; bounds outside its range do nothing.
        let (src_lo, src_hi): (i64, i64) = if from_signed {
            (i32::MIN as i64, i32::MAX as i64)
        } else {
            (0, u32::MAX as i64)
        };
        let mut cur = x;
        for (bound, max) in [(lo, true), (hi, false)] {
            if (max && bound <= src_lo) || (!max && bound >= src_hi) {
                continue;
            }
            let t = self.vcode.new_vreg(crate::vcode::VClass::Single);
            let srcs = [
                (Role::A, Arg::op(cur)),
                (Role::B, Arg::imm(bound as u32)),
                (Role::PredSrc0, Arg::pt(max)),
            ];
            self.emit_sass(
                Op::Imnmx,
                &[(Role::Dst, MOp::Reg(t))],
                &srcs,
                &[self.minmax_type(from_signed)],
                None,
            )?;
            cur = MOp::Reg(t);
        }
        self.bind(result, cur)
    }
}
