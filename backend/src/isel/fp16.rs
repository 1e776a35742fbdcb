//! Half precision. An `f16` lives in the lower half of a 32-bit register (the upper half is
//! undefined), an `f16x2` in both halves. Scalars read their sources with the `.H0_H0`
//! swizzle (both lanes compute the same value); HADD2, HMUL2 and HFMA2 carry `.FTZ` and
//! `.SAT` (HFMA2 also `.RELU`, sm_80); negation and absolute value are HADD2 with `-RZ`;
//! compares are HSETP2 (in `float.rs`); rounding to integers is FRND.F16; min and max are
//! HMNMX2 (sm_80; `.NAN`, `.XORSIGN` on `|a|`, `|b|`). bf16 and bf16x2 (sm_80) live like f16
//! and f16x2: fma is HFMA2.BF16_V2, min/max HMNMX2.BF16_V2, negation and absolute value
//! HFMA2.BF16_V2 `d, -RZ, RZ, ±x` (ptxas's choice: there is no bf16 HADD2 before sm_90).

use super::fit::Arg;
use super::float::mode_of;
use super::{Isel, IselError};
use crate::vcode::{MOp, SrcMods};
use ptxc_mir::ir::{Inst, Opcode, Rounding, Type};
use ptxc_sass::isa::values::Fmz;
use ptxc_sass::isa::{Mod, ModSet};
use ptxc_sass::isa::{Op, Role, Value as V};

/// The `.H0_H0` swizzle.
const H0_H0: u8 = 2;

impl Isel<'_> {
    /// `a` reading the lower lane into both (a scalar f16 source).
    pub(super) fn low_half(&self, a: Arg) -> Arg {
        match a {
            Arg::Val(v, m) => Arg::Val(v, SrcMods { swizzle: H0_H0, ..m }),
            Arg::Op(o, m) => Arg::Op(o, SrcMods { swizzle: H0_H0, ..m }),
        }
    }

    /// An f16 or f16x2 (bf16, bf16x2) source with the lane selection of `ty`.
    fn hsrc(&self, ty: Type, a: Arg) -> Arg {
        if matches!(ty, Type::F16 | Type::Bf16) {
            self.low_half(a)
        } else {
            a
        }
    }

    /// `-RZ` with the lane selection of `ty`.
    fn neg_rz_h(&self, ty: Type) -> Arg {
        let rz = Arg::Op(
            MOp::Fixed(V::Reg(ptxc_sass::isa::RZ)),
            SrcMods {
                neg: true,
                ..SrcMods::default()
            },
        );
        self.hsrc(ty, rz)
    }

    /// Half-precision arithmetic.
    pub(super) fn lower_fp16(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let (op, ty, args) = (data.op, data.ty, data.args.clone());
        let m = mode_of(&data.aux);
        if !matches!(m.rnd, None | Some(Rounding::Rn)) && op != Opcode::Frint {
            return Err(self.unsupported(format!("{} on {ty} with directed rounding", op.name())));
        }
        let d = self.dst(inst);
        let dst = [(Role::Dst, d)];
        let f = m.ftz;
        let src = |s: &Self, i: usize| s.hsrc(ty, s.fsrc(args[i], f));
        let bf16 = matches!(ty, Type::Bf16 | Type::Bf16x2);
        if bf16
            && !matches!(
                op,
                Opcode::Ffma | Opcode::Fmin | Opcode::Fmax | Opcode::Fneg | Opcode::Fabs
            )
        {
            return Err(self.unsupported(format!("{} on {ty}", op.name())));
        }
        let mut mods = vec![Mod::Ftz.flag(f)];
        if m.sat {
            mods.push(Mod::Sat.flag(true));
        }
        if bf16 {
            mods.push(Mod::Bf16.flag(true));
        }
        if m.relu {
            mods.push(Mod::Relu.flag(true));
        }
        match op {
            Opcode::Fmin | Opcode::Fmax => self.hmnmx2(inst, op == Opcode::Fmax),
            Opcode::Fneg | Opcode::Fabs if bf16 => {
                let mm = SrcMods {
                    neg: op == Opcode::Fneg,
                    abs: op == Opcode::Fabs,
                    ..SrcMods::default()
                };
                let rz = Arg::Op(MOp::Fixed(V::Reg(ptxc_sass::isa::RZ)), SrcMods::default());
                let srcs = [
                    (Role::A, self.neg_rz_h(ty)),
                    (Role::B, self.hsrc(ty, rz)),
                    (Role::C, self.hsrc(ty, Arg::Val(args[0], mm))),
                ];
                self.emit_sass(Op::Hfma2, &dst, &srcs, &[Mod::Bf16.flag(true)], None)
            }
            Opcode::Fadd | Opcode::Fsub => {
                let b = if op == Opcode::Fsub {
                    match self.fsrc(args[1], f) {
                        Arg::Val(v, mm) => self.hsrc(ty, Arg::Val(v, SrcMods { neg: !mm.neg, ..mm })),
                        // +0.0 (RZ) negated: `x - 0` is `x + -0` (keeps x = -0).
                        _ => self.neg_rz_h(ty),
                    }
                } else {
                    src(self, 1)
                };
                self.emit_sass(Op::Hadd2, &dst, &[(Role::A, src(self, 0)), (Role::B, b)], &mods, None)
            }
            Opcode::Fmul => {
                let mods = hmul_mods(&mods);
                self.emit_sass(
                    Op::Hmul2,
                    &dst,
                    &[(Role::A, src(self, 0)), (Role::B, src(self, 1))],
                    &mods,
                    None,
                )
            }
            Opcode::Ffma => {
                let mods = hmul_mods(&mods);
                let srcs = [
                    (Role::A, src(self, 0)),
                    (Role::B, src(self, 1)),
                    (Role::C, src(self, 2)),
                ];
                self.emit_sass(Op::Hfma2, &dst, &srcs, &mods, None)
            }
            Opcode::Fneg | Opcode::Fabs | Opcode::Fflush => {
                let mm = match op {
                    Opcode::Fneg => SrcMods {
                        neg: true,
                        ..SrcMods::default()
                    },
                    Opcode::Fabs => SrcMods {
                        abs: true,
                        ..SrcMods::default()
                    },
                    _ => SrcMods::default(),
                };
                let a = self.hsrc(ty, Arg::Val(args[0], mm));
                let ftz = f || op == Opcode::Fflush;
                self.emit_sass(
                    Op::Hadd2,
                    &dst,
                    &[(Role::A, a), (Role::B, self.neg_rz_h(ty))],
                    &[Mod::Ftz.flag(ftz)],
                    None,
                )
            }
            Opcode::Fcopysign => {
                let mask = if ty == Type::F16 { 0x8000 } else { 0x8000_8000 };
                let srcs = [
                    (Role::A, Arg::v(args[1])),
                    (Role::B, Arg::imm(mask)),
                    (Role::C, Arg::v(args[0])),
                    (Role::Other, Arg::imm(0xb8)),
                    (Role::PredSrc0, Arg::pt(true)),
                ];
                self.emit_sass(Op::Lop3, &dst, &srcs, &[], None)
            }
            _ => Err(self.unsupported(format!("{} on {ty}", op.name()))),
        }
    }
}

impl Isel<'_> {
    /// HMNMX2: minimum (PT) or maximum (!PT) of two half pairs; under `.xorsign.abs` the
    /// sources are the registers with `|x|` (their own signs make the result's).
    fn hmnmx2(&mut self, inst: Inst, max: bool) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let (ty, args) = (data.ty, data.args.clone());
        let m = mode_of(&data.aux);
        let d = self.dst(inst);
        let src = |s: &Self, v| {
            let a = if m.xorsign {
                let abs = SrcMods {
                    abs: true,
                    ..SrcMods::default()
                };
                Arg::Val(v, abs)
            } else {
                s.fsrc(v, m.ftz)
            };
            s.hsrc(ty, a)
        };
        let srcs = [
            (Role::A, src(self, args[0])),
            (Role::B, src(self, args[1])),
            (Role::PredSrc0, Arg::pt(max)),
        ];
        let mut mods = vec![Mod::Ftz.flag(m.ftz)];
        for (on, id) in [
            (matches!(ty, Type::Bf16 | Type::Bf16x2), Mod::Bf16),
            (m.nan, Mod::Nan),
            (m.xorsign, Mod::XorSign),
        ] {
            if on {
                mods.push(id.flag(true));
            }
        }
        self.emit_sass(Op::Hmnmx2, &[(Role::Dst, d)], &srcs, &mods, None)
    }
}

/// HMUL2/HFMA2 take the flush mode in their zero-product field ([`Fmz::Ftz`]).
fn hmul_mods(mods: &[ModSet]) -> Vec<ModSet> {
    mods.iter()
        .map(|&m| match m.id {
            Mod::Ftz if m.code == 1 => Fmz::Ftz.set(),
            Mod::Ftz => Fmz::Ieee.set(),
            _ => m,
        })
        .collect()
}
