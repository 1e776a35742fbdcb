//! Float selection: the dispatch by type (f32 here, f64 in `fp64.rs`, f16 and f16x2 in
//! `fp16.rs`, the MUFU functions in `mathfn.rs`) and the single-precision instructions:
//! FADD/FMUL/FFMA with rounding, `.FTZ` and `.SAT`; negation and absolute value as FADD
//! with `-RZ` (the source modifiers fold into other users, see `float_fold.rs`); FMNMX
//! (PTX's min/max NaN rule is FMNMX's); flushing as `FMUL.FTZ x, 1`; copysign as one LOP3;
//! FSETP with every condition; FRND; FCHK; and `testp` on the bits with LOP3 and ISETP.

use super::fit::Arg;
use super::{Isel, IselError};
use crate::vcode::{MOp, SrcMods, VClass};
use ptxc_mir::ir::{Aux, Cond, FloatMode, Inst, Opcode, Rounding, Type, Value};
use ptxc_sass::isa::values::{self, BoolOp, DoubleCmp, FloatCmp, FloatPair, FloatType, IntCmp};
use ptxc_sass::isa::{Mod, ModSet, ModValue, Op, Role, Value as V};

/// The FSETP/HSETP2 comparison of a float condition (None for integer conditions).
pub fn float_cmp(c: Cond) -> Option<FloatCmp> {
    Some(match c {
        Cond::Lt => FloatCmp::Lt,
        Cond::Eq => FloatCmp::Eq,
        Cond::Le => FloatCmp::Le,
        Cond::Gt => FloatCmp::Gt,
        Cond::Ne => FloatCmp::Ne,
        Cond::Ge => FloatCmp::Ge,
        Cond::Num => FloatCmp::Num,
        Cond::Nan => FloatCmp::Nan,
        Cond::Ltu => FloatCmp::Ltu,
        Cond::Equ => FloatCmp::Equ,
        Cond::Leu => FloatCmp::Leu,
        Cond::Gtu => FloatCmp::Gtu,
        Cond::Neu => FloatCmp::Neu,
        Cond::Geu => FloatCmp::Geu,
        _ => return None,
    })
}

/// DSETP's comparison for a float condition: FSETP's, whose codes DSETP shares (its codes 0
/// and 15, MIN and MAX, are no conditions).
pub fn double_cmp(c: FloatCmp) -> DoubleCmp {
    DoubleCmp::from_code(c.code()).expect("DSETP has every FSETP code")
}

/// The SASS rounding of a PTX rounding mode (none: to nearest).
pub fn rounding(r: Option<Rounding>) -> values::Rounding {
    match r {
        None | Some(Rounding::Rn) => values::Rounding::Rn,
        Some(Rounding::Rm) => values::Rounding::Rm,
        Some(Rounding::Rp) => values::Rounding::Rp,
        Some(Rounding::Rz) => values::Rounding::Rz,
    }
}

/// The conversion float type of an f16, f32 or f64 MIR type.
pub fn float_type(t: Type) -> FloatType {
    match t {
        Type::F16 => FloatType::F16,
        Type::F64 => FloatType::F64,
        _ => FloatType::F32,
    }
}

/// The float mode of an instruction (default for other extra data).
pub fn mode_of(aux: &Aux) -> FloatMode {
    match aux {
        Aux::Float(m) => *m,
        _ => FloatMode::default(),
    }
}

/// Modifiers `.FTZ`, the rounding and (if set) `.SAT` of a float mode.
pub fn float_mods(aux: &Aux) -> Vec<ModSet> {
    let m = mode_of(aux);
    let mut v = vec![Mod::Ftz.flag(m.ftz), rounding(m.rnd).set()];
    if m.sat {
        v.push(Mod::Sat.flag(true));
    }
    v
}

/// `-RZ`, the addend of FADD-based negation and absolute value (keeps -0 results).
pub fn neg_rz() -> Arg {
    Arg::Op(
        MOp::Fixed(V::Reg(ptxc_sass::isa::RZ)),
        SrcMods {
            neg: true,
            ..SrcMods::default()
        },
    )
}

impl Isel<'_> {
    /// Selects a float instruction.
    pub(super) fn lower_float_family(&mut self, inst: Inst) -> Result<(), IselError> {
        let d = &self.func.insts[inst];
        let (op, ty) = (d.op, d.ty);
        use Opcode::*;
        match (op, ty) {
            (Fcmp, _) => self.lower_fcmp(inst),
            (Frint, _) => self.lower_frint(inst),
            (FdivCheck, _) => self.lower_fchk(inst),
            (Ftestp, _) => self.lower_testp(inst),
            (
                FrcpApprox | FsqrtApprox | FrsqrtApprox | Fex2Approx | Flg2Approx | FsinApprox | FcosApprox
                | FtanhApprox,
                _,
            ) => self.lower_mufu(inst),
            (_, Type::F64) => self.lower_fp64(inst),
            (_, Type::F16 | Type::F16x2 | Type::Bf16 | Type::Bf16x2) => self.lower_fp16(inst),
            (_, Type::F32) => self.lower_float(inst),
            _ => Err(self.unsupported(format!("{} on {ty}", op.name()))),
        }
    }

    /// A float source: sign operations folded, +0.0 as RZ.
    pub fn fsrc(&self, v: Value, flushing: bool) -> Arg {
        match self.float_src(v, flushing) {
            Arg::Val(x, m) if m == SrcMods::default() && self.foldable(x) == Some(V::Imm(0)) => Arg::rz(),
            a => a,
        }
    }

    /// The two sources of a commutative operation, a register-only one first.
    fn commuted(&self, a: Value, b: Value, flushing: bool) -> (Arg, Arg) {
        let (x, y) = (self.fsrc(a, flushing), self.fsrc(b, flushing));
        let folds = |arg: &Arg| match arg {
            Arg::Val(v, _) => self.foldable(*v).is_some(),
            Arg::Op(..) => true,
        };
        if folds(&x) && !folds(&y) { (y, x) } else { (x, y) }
    }

    /// Single-precision arithmetic.
    pub fn lower_float(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let (op, args) = (data.op, data.args.clone());
        let m = mode_of(&data.aux);
        let mods = float_mods(&data.aux);
        let d = self.dst(inst);
        let dst = [(Role::Dst, d)];
        let f = m.ftz;
        match op {
            Opcode::Fadd | Opcode::Fmul | Opcode::Fsub => {
                let (a, b) = if op == Opcode::Fsub {
                    (self.fsrc(args[0], f), self.negated_float(args[1], f))
                } else {
                    self.commuted(args[0], args[1], f)
                };
                let sop = if op == Opcode::Fmul { Op::Fmul } else { Op::Fadd };
                self.emit_sass(sop, &dst, &[(Role::A, a), (Role::B, b)], &mods, None)
            }
            Opcode::Ffma => {
                let (a, b) = self.commuted(args[0], args[1], f);
                let srcs = [(Role::A, a), (Role::B, b), (Role::C, self.fsrc(args[2], f))];
                self.emit_sass(Op::Ffma, &dst, &srcs, &mods, None)
            }
            Opcode::Fneg | Opcode::Fabs => {
                let a = match op {
                    Opcode::Fneg => Arg::neg(args[0]),
                    _ => Arg::Val(
                        args[0],
                        SrcMods {
                            abs: true,
                            ..SrcMods::default()
                        },
                    ),
                };
                self.emit_sass(Op::Fadd, &dst, &[(Role::A, a), (Role::B, neg_rz())], &mods, None)
            }
            Opcode::Fflush => {
                let srcs = [(Role::A, Arg::v(args[0])), (Role::B, Arg::imm(1.0f32.to_bits()))];
                self.emit_sass(Op::Fmul, &dst, &srcs, &[Mod::Ftz.flag(true)], None)
            }
            Opcode::Fmin | Opcode::Fmax => {
                let (a, b) = if m.xorsign {
                    // `.xorsign.abs`: the registers themselves, with `|x|` (their signs make
                    // the result's).
                    let abs = |v| {
                        let m = SrcMods {
                            abs: true,
                            ..SrcMods::default()
                        };
                        Arg::Val(v, m)
                    };
                    (abs(args[0]), abs(args[1]))
                } else {
                    self.commuted(args[0], args[1], f)
                };
                let srcs = [
                    (Role::A, a),
                    (Role::B, b),
                    (Role::PredSrc0, Arg::pt(op == Opcode::Fmax)),
                ];
                let mut mods = vec![Mod::Ftz.flag(f)];
                for (on, id) in [(m.nan, Mod::Nan), (m.xorsign, Mod::XorSign)] {
                    if on {
                        mods.push(id.flag(true));
                    }
                }
                self.emit_sass(Op::Fmnmx, &dst, &srcs, &mods, None)
            }
            Opcode::Fcopysign => self.copysign32(&dst, args[0], args[1]),
            _ => Err(self.unsupported(format!("{} on f32", op.name()))),
        }
    }

    /// `-v` as a float source: constants negated in place.
    fn negated_float(&self, v: Value, flushing: bool) -> Arg {
        match self.fsrc(v, flushing) {
            Arg::Val(x, m) if m == SrcMods::default() => self.negated(x, true),
            Arg::Val(x, m) => Arg::Val(x, SrcMods { neg: !m.neg, ..m }),
            // +0.0 (RZ) negated is -0.0: `x - 0` is `x + -0`, which keeps x = -0 (and gives
            // -0 for 0 - 0 rounding down), where `x + 0` would not.
            _ => neg_rz(),
        }
    }

    /// `copysign`: the magnitude of `b` with the sign of `a`, `LOP3 (b & ~s) | (a & s)`.
    pub(super) fn copysign32(&mut self, dst: &[(Role, MOp)], a: Value, b: Value) -> Result<(), IselError> {
        let srcs = [
            (Role::A, Arg::v(b)),
            (Role::B, Arg::imm(0x8000_0000)),
            (Role::C, Arg::v(a)),
            (Role::Other, Arg::imm(0xb8)),
            (Role::PredSrc0, Arg::pt(true)),
        ];
        self.emit_sass(Op::Lop3, dst, &srcs, &[], None)
    }

    /// Float comparisons of every type: FSETP, DSETP, HSETP2 (f16 in the lower half).
    fn lower_fcmp(&mut self, inst: Inst) -> Result<(), IselError> {
        let d = self.dst(inst);
        self.emit_fcmp(inst, d, BoolOp::And, Arg::pt(false))
    }

    /// The float comparison `inst` into predicate `d`, combined by `bop` with the predicate
    /// `with` (`PT` and AND for a plain compare).
    pub(super) fn emit_fcmp(&mut self, inst: Inst, d: MOp, bop: BoolOp, with: Arg) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let Aux::Cond(mut cond) = data.aux else {
            return Err(self.unsupported("compare without condition"));
        };
        let ty = data.ty;
        let (mut a, mut b) = (data.args[0], data.args[1]);
        let flushed = self.flushed_operands(&mut a, &mut b);
        let constant = |s: &Self, v: Value| match ty {
            Type::F64 => s.is_wide_constant(v),
            _ => s.foldable(s.peel(v).0).is_some(),
        };
        if constant(self, a) && !constant(self, b) {
            (a, b) = (b, a);
            cond = super::wide::swap_cond(cond);
        }
        let dsts = [
            (Role::PredDst0, d),
            (Role::PredDst1, MOp::Fixed(V::Pred { idx: 7, neg: false })),
        ];
        let (x, y) = (self.fsrc(a, flushed), self.fsrc(b, flushed));
        let code = float_cmp(cond).ok_or_else(|| self.unsupported(format!("float compare {cond:?}")))?;
        let (op, x, y, mods) = match ty {
            Type::F32 => (Op::Fsetp, x, y, vec![code.set(), Mod::Ftz.flag(flushed), bop.set()]),
            Type::F64 => {
                let (x, y) = (self.fsrc64(a, false, false), self.fsrc64(b, true, false));
                (Op::Dsetp, x, y, vec![double_cmp(code).set(), bop.set()])
            }
            Type::F16 => {
                let (x, y) = (self.low_half(x), self.low_half(y));
                (Op::Hsetp2, x, y, vec![code.set(), Mod::Ftz.flag(flushed), bop.set()])
            }
            t => return Err(self.unsupported(format!("fcmp on {t}"))),
        };
        let srcs = [(Role::A, x), (Role::B, y), (Role::PredSrc0, with)];
        self.emit_sass(op, &dsts, &srcs, &mods, None)
    }

    /// Reads through `fflush` operands folded into the compare (`setp.ftz`); true if so.
    fn flushed_operands(&self, a: &mut Value, b: &mut Value) -> bool {
        let mut flushed = false;
        for v in [a, b] {
            if let ptxc_mir::ir::ValueDef::Result(i, _) = self.func.values[*v].def
                && self.func.insts[i].op == Opcode::Fflush
                && self.is_fused(i)
            {
                *v = self.func.insts[i].args[0];
                flushed = true;
            }
        }
        flushed
    }

    /// `FCHK P, a, b`.
    fn lower_fchk(&mut self, inst: Inst) -> Result<(), IselError> {
        let args = self.func.insts[inst].args.clone();
        let d = self.dst(inst);
        let srcs = [
            (Role::A, self.fsrc(args[0], false)),
            (Role::B, self.fsrc(args[1], false)),
        ];
        self.emit_sass(Op::Fchk, &[(Role::PredDst0, d)], &srcs, &[], None)
    }

    /// `frint`: FRND in the instruction's rounding mode (f16, f32, f64).
    fn lower_frint(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let (ty, a) = (data.ty, data.args[0]);
        let m = mode_of(&data.aux);
        let types = FloatPair {
            dst: float_type(ty),
            src: float_type(ty),
        };
        let d = self.dst(inst);
        let src = self.fsrc(a, m.ftz);
        let mods = [Mod::Ftz.flag(m.ftz), types.set(), rounding(m.rnd).set()];
        if !m.sat {
            return self.emit_sass(Op::Frnd, &[(Role::Dst, d)], &[(Role::B, src)], &mods, None);
        }
        let t = self.new_single();
        self.emit_sass(Op::Frnd, &[(Role::Dst, t)], &[(Role::B, src)], &mods, None)?;
        self.saturate_float(d, Arg::op(t), ty, m.ftz)
    }

    /// `testp`: a class test on the bits (f32 and f16 on 32-bit registers, f64 on pairs).
    fn lower_testp(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let (ty, a) = (data.ty, data.args[0]);
        let Aux::Imm(class) = data.aux else {
            return Err(self.unsupported("testp without class"));
        };
        let d = self.dst(inst);
        match ty {
            Type::F32 => self.testp_bits(d, a, class, 0x7fff_ffff, 0x7f80_0000, 0x0080_0000),
            t => Err(self.unsupported(format!("testp on {t}"))),
        }
    }

    /// A class test of a 32-bit float with sign mask, infinity and smallest normal: on
    /// `m = x & mask`, finite `m < inf`, infinite `m == inf`, number `m <= inf`, NaN
    /// `m > inf`, normal `m - min < inf - min` (zero counts as normal, as ptxas has it),
    /// subnormal `m - 1 < min - 1` (all unsigned).
    pub(super) fn testp_bits(
        &mut self,
        d: MOp,
        a: Value,
        class: u64,
        mask: u32,
        inf: u32,
        min: u32,
    ) -> Result<(), IselError> {
        let m = self.lop3_new(Arg::v(a), Arg::imm(mask), 0xc0)?;
        let (value, code, bound) = match class {
            0 => (m, IntCmp::Lt, inf),
            1 => (m, IntCmp::Eq, inf),
            2 => (m, IntCmp::Le, inf),
            3 => (m, IntCmp::Gt, inf),
            4 => (self.iadd_new(m, min.wrapping_neg())?, IntCmp::Lt, inf - min),
            _ => (self.iadd_new(m, u32::MAX)?, IntCmp::Lt, min - 1),
        };
        if class != 4 {
            return self.isetp_imm_u32(d, value, code, bound);
        }
        // Zero is normal for ptxas: `(m - min < inf - min) | (m == 0)`.
        let (p, z) = (self.vcode.new_vreg(VClass::Pred), self.vcode.new_vreg(VClass::Pred));
        self.isetp_imm_u32(MOp::Pred(p, false), value, code, bound)?;
        self.isetp_imm_u32(MOp::Pred(z, false), m, IntCmp::Eq, 0)?;
        self.pred_or(d, p, z)
    }

    /// `d = p | z` on predicates.
    pub(super) fn pred_or(&mut self, d: MOp, p: crate::vcode::VReg, z: crate::vcode::VReg) -> Result<(), IselError> {
        let srcs = [
            (Role::PredSrc0, Arg::op(MOp::Pred(p, false))),
            (Role::PredSrc1, Arg::op(MOp::Pred(z, false))),
            (Role::PredSrc2, Arg::pt(false)),
            (Role::Other, Arg::imm(0xfc)),
            (Role::Aux, Arg::imm(0)),
        ];
        let dsts = [
            (Role::PredDst0, d),
            (Role::PredDst1, MOp::Fixed(V::Pred { idx: 7, neg: false })),
        ];
        self.emit_sass(Op::Plop3, &dsts, &srcs, &[], None)
    }

    /// `d = LOP3(a, b, RZ, lut)` in a new register.
    pub(super) fn lop3_new(&mut self, a: Arg, b: Arg, lut: u32) -> Result<MOp, IselError> {
        let t = MOp::Reg(self.vcode.new_vreg(VClass::Single));
        let srcs = [
            (Role::A, a),
            (Role::B, b),
            (Role::C, Arg::rz()),
            (Role::Other, Arg::imm(lut)),
            (Role::PredSrc0, Arg::pt(true)),
        ];
        self.emit_sass(Op::Lop3, &[(Role::Dst, t)], &srcs, &[], None)?;
        Ok(t)
    }

    /// `x + k` in a new register.
    pub(super) fn iadd_new(&mut self, x: MOp, k: u32) -> Result<MOp, IselError> {
        let t = MOp::Reg(self.vcode.new_vreg(VClass::Single));
        let srcs = [(Role::A, Arg::op(x)), (Role::B, Arg::imm(k)), (Role::C, Arg::rz())];
        self.emit_sass(Op::Iadd3, &[(Role::Dst, t)], &srcs, &[], None)?;
        Ok(t)
    }

    /// `d = x <code> k` (unsigned ISETP).
    pub(super) fn isetp_imm_u32(&mut self, d: MOp, x: MOp, code: IntCmp, k: u32) -> Result<(), IselError> {
        let dsts = [
            (Role::PredDst0, d),
            (Role::PredDst1, MOp::Fixed(V::Pred { idx: 7, neg: false })),
        ];
        let srcs = [
            (Role::A, Arg::op(x)),
            (Role::B, Arg::imm(k)),
            (Role::PredSrc0, Arg::pt(false)),
        ];
        self.emit_sass(
            Op::Isetp,
            &dsts,
            &srcs,
            &[code.set(), Mod::Signed.flag(false), BoolOp::And.set()],
            None,
        )
    }
}
