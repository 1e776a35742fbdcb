//! The approximate functions that are one MUFU instruction: f32 `rcp`, `sqrt`, `rsqrt`,
//! `ex2`, `lg2` with `.ftz` (the others are legalized with input scaling first), `tanh`,
//! and `sin`/`cos`, whose MUFU takes the argument in turns: `FMUL.RZ x, 1/(2 pi)` first, as
//! ptxas does; f64 `rcp.approx.ftz` and `rsqrt.approx.ftz` as MUFU.RCP64H / MUFU.RSQ64H on
//! the upper half with a zero lower half; f16 and f16x2 `ex2` and `tanh` as `MUFU.*.F16`
//! per lane (the upper lane read with `.H1`, the two results packed by PRMT).

use super::fit::Arg;
use super::float::mode_of;
use super::{Isel, IselError};
use crate::vcode::{MInst, MKind, MOp, SrcMods, VClass, WideOp};
use ptxc_mir::ir::{Inst, Opcode, Type};
use ptxc_sass::isa::Mod;
use ptxc_sass::isa::values;
use ptxc_sass::isa::values::MufuFunc;
use ptxc_sass::isa::{Op, Role, Value as V};
use smallvec::smallvec;

/// The MUFU function of each approximate function.
const FUNCS: &[(Opcode, MufuFunc)] = &[
    (Opcode::FcosApprox, MufuFunc::Cos),
    (Opcode::FsinApprox, MufuFunc::Sin),
    (Opcode::Fex2Approx, MufuFunc::Ex2),
    (Opcode::Flg2Approx, MufuFunc::Lg2),
    (Opcode::FrcpApprox, MufuFunc::Rcp),
    (Opcode::FrsqrtApprox, MufuFunc::Rsq),
    (Opcode::FsqrtApprox, MufuFunc::Sqrt),
    (Opcode::FtanhApprox, MufuFunc::Tanh),
];

/// 1 / (2 pi) rounded to f32 (0x3e22f983).
const INV_TWO_PI: f32 = 0.159_154_94;

impl Isel<'_> {
    /// Selects an approximate function.
    pub(super) fn lower_mufu(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let (op, ty, a) = (data.op, data.ty, data.args[0]);
        let m = mode_of(&data.aux);
        let func = FUNCS
            .iter()
            .find(|(o, _)| *o == op)
            .map(|(_, f)| *f)
            .expect("a MUFU opcode");
        let needs_flush = !matches!(op, Opcode::FsinApprox | Opcode::FcosApprox | Opcode::FtanhApprox);
        match ty {
            Type::F32 if needs_flush && !m.ftz => Err(self.unsupported(format!("{} without .ftz", op.name()))),
            Type::F32 => {
                let d = self.dst(inst);
                let src = if matches!(op, Opcode::FsinApprox | Opcode::FcosApprox) {
                    let t = MOp::Reg(self.vcode.new_vreg(VClass::Single));
                    let srcs = [
                        (Role::A, self.fsrc(a, false)),
                        (Role::B, Arg::imm(INV_TWO_PI.to_bits())),
                    ];
                    self.emit_sass(Op::Fmul, &[(Role::Dst, t)], &srcs, &[values::Rounding::Rz.set()], None)?;
                    Arg::op(t)
                } else {
                    self.fsrc(a, true)
                };
                self.mufu(d, src, func, false)
            }
            Type::F64 if m.ftz && matches!(op, Opcode::FrcpApprox | Opcode::FrsqrtApprox) => {
                let x = self.reg(a);
                let hi = MOp::Reg(self.vcode.new_vreg(VClass::Single));
                let f = if op == Opcode::FrcpApprox {
                    MufuFunc::Rcp64h
                } else {
                    MufuFunc::Rsq64h
                };
                self.mufu(hi, Arg::op(MOp::Sub(x, 1)), f, false)?;
                let d = self.def_reg(self.func.results[inst][0]);
                self.push(MInst::new(MKind::Wide {
                    op: WideOp::Pack,
                    d,
                    srcs: smallvec![MOp::Fixed(V::Reg(ptxc_sass::isa::RZ)), hi],
                    tmp: None,
                }));
                Ok(())
            }
            Type::F16 if matches!(op, Opcode::Fex2Approx | Opcode::FtanhApprox) => {
                let d = self.dst(inst);
                self.mufu(d, Arg::v(a), func, true)
            }
            Type::F16x2 if matches!(op, Opcode::Fex2Approx | Opcode::FtanhApprox) => {
                let (lo, hi) = (self.new_single(), self.new_single());
                self.mufu(lo, Arg::v(a), func, true)?;
                let upper = Arg::Val(
                    a,
                    SrcMods {
                        swizzle: 1,
                        ..SrcMods::default()
                    },
                );
                self.mufu(hi, upper, func, true)?;
                let d = self.dst(inst);
                let srcs = [
                    (Role::A, Arg::op(lo)),
                    (Role::B, Arg::imm(0x5410)),
                    (Role::C, Arg::op(hi)),
                ];
                self.emit_sass(Op::Prmt, &[(Role::Dst, d)], &srcs, &[], None)
            }
            t => Err(self.unsupported(format!("{} on {t}", op.name()))),
        }
    }

    /// A new 32-bit register operand.
    pub(super) fn new_single(&mut self) -> MOp {
        MOp::Reg(self.vcode.new_vreg(VClass::Single))
    }

    /// `MUFU.func d, src` (`.F16` for a half-precision source).
    fn mufu(&mut self, d: MOp, src: Arg, func: MufuFunc, f16: bool) -> Result<(), IselError> {
        self.emit_sass(
            Op::Mufu,
            &[(Role::Dst, d)],
            &[(Role::B, src)],
            &[func.set(), Mod::MufuF16.flag(f16)],
            None,
        )
    }
}
