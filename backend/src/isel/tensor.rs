//! Tensor-core instructions as ptxas selects them: `movmatrix` is one MOVM.16.MT88 (the
//! register transpose through the MIO unit); the integer `mma.sync` shapes are one
//! IMMA.8816 (8-bit), IMMA.8832 (4-bit) or BMMA.88128.XOR.POPC (b1), reading A and B from one
//! register each and C from a register pair, and writing D to a pair; `mma.m16n8k8` is one
//! HMMA.1688 (A a pair, B one register, C and D pairs for f16 or quads for f32).

use super::fit::Arg;
use super::{Isel, IselError};
use crate::vcode::{MInst, MKind, MOp, VClass, VReg, WideOp};
use ptxc_mir::ir::{Aux, Inst, Opcode, Value};
use ptxc_sass::isa::values::{HmmaDType, ImmaAType, ImmaBType};
use ptxc_sass::isa::{Mod, Op, Role};

impl Isel<'_> {
    /// Selects a tensor-core instruction.
    pub(super) fn lower_tensor(&mut self, inst: Inst) -> Result<(), IselError> {
        match self.func.insts[inst].op {
            Opcode::Movmatrix => self.movmatrix(inst),
            Opcode::MmaInt => self.mma_int(inst),
            Opcode::MmaF16 => self.mma_f16(inst),
            other => Err(self.unsupported(format!("MIR `{}`", other.name()))),
        }
    }

    /// `movmatrix`: `MOVM.16.MT88 Rd, Ra`.
    fn movmatrix(&mut self, inst: Inst) -> Result<(), IselError> {
        let a = self.reg(self.func.insts[inst].args[0]);
        let d = self.dst(inst);
        self.emit_sass(
            Op::Movm,
            &[(Role::Dst, d)],
            &[(Role::A, Arg::op(MOp::Reg(a)))],
            &[],
            None,
        )?;
        Ok(())
    }

    /// Integer `mma`: IMMA.8816 / IMMA.8832 with the element types of A and B and `.SAT`, or
    /// BMMA.88128.XOR.POPC.
    fn mma_int(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let (args, aux) = (data.args.clone(), data.aux.clone());
        let Aux::Imm(flags) = aux else {
            return Err(self.unsupported("mma without its shape"));
        };
        let (bits, a_signed, b_signed, sat) = (flags & 0xff, flags >> 8 & 1, flags >> 9 & 1, flags >> 10 & 1 == 1);
        let a = self.reg(args[0]);
        let b = self.reg(args[1]);
        let c = self.tuple_of(&args[2..4]);
        let d = self.vcode.new_vreg(VClass::Pair);
        let srcs = [
            (Role::A, Arg::op(MOp::Reg(a))),
            (Role::B, Arg::op(MOp::Reg(b))),
            (Role::C, Arg::op(MOp::Reg(c))),
        ];
        let types = |signed: u64| match (bits, signed) {
            (8, 0) => Ok((ImmaAType::U8, ImmaBType::U8)),
            (8, _) => Ok((ImmaAType::S8, ImmaBType::S8)),
            (4, 0) => Ok((ImmaAType::U4, ImmaBType::U4)),
            (4, _) => Ok((ImmaAType::S4, ImmaBType::S4)),
            _ => Err(()),
        };
        let dsts = [(Role::Dst, MOp::Reg(d))];
        match (types(a_signed), types(b_signed)) {
            (Ok((at, _)), Ok((_, bt))) => {
                let mods = [at.set(), bt.set(), Mod::SatFinite.flag(sat)];
                self.emit_sass(Op::Imma, &dsts, &srcs, &mods, None)?;
            }
            _ if bits == 1 => self.emit_sass(Op::Bmma, &dsts, &srcs, &[], None)?,
            _ => return Err(self.unsupported(format!("mma of {bits}-bit elements"))),
        }
        let results = self.func.results[inst].clone();
        for (i, &r) in results.iter().enumerate() {
            self.alias_sub(r, d, i as u8);
        }
        Ok(())
    }

    /// `mma.m16n8k8`: `HMMA.1688.F32 Rd, Ra, Rb, Rc` (D and C quads) or `HMMA.1688.F16` (pairs),
    /// A a pair, B one register.
    fn mma_f16(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let (args, f32) = (data.args.clone(), matches!(data.aux, Aux::Imm(b) if b & 1 == 1));
        let a = self.tuple_of(&args[0..2]);
        let b = self.reg(args[2]);
        let c = self.tuple_of(&args[3..]);
        let d = self.vcode.new_vreg(if f32 { VClass::Quad } else { VClass::Pair });
        let srcs = [
            (Role::A, Arg::op(MOp::Reg(a))),
            (Role::B, Arg::op(MOp::Reg(b))),
            (Role::C, Arg::op(MOp::Reg(c))),
        ];
        let dtype = if f32 { HmmaDType::F32 } else { HmmaDType::F16 };
        self.emit_sass(Op::Hmma1688, &[(Role::Dst, MOp::Reg(d))], &srcs, &[dtype.set()], None)?;
        let results = self.func.results[inst].clone();
        for (i, &r) in results.iter().enumerate() {
            self.alias_sub(r, d, i as u8);
        }
        Ok(())
    }

    /// A register pair or quad holding `values` in order: the tuple they already are, or a
    /// new one.
    fn tuple_of(&mut self, values: &[Value]) -> VReg {
        let class = if values.len() == 4 { VClass::Quad } else { VClass::Pair };
        if let Some((t, 0)) = self.sub_of(values[0])
            && self.vcode.class(t) == class
            && values
                .iter()
                .enumerate()
                .all(|(i, &v)| self.sub_of(v) == Some((t, i as u8)))
        {
            return t;
        }
        let srcs: Vec<MOp> = values.iter().map(|&v| self.src_op(v)).collect();
        let d = self.vcode.new_vreg(class);
        self.push(MInst::new(MKind::Wide {
            op: WideOp::Pack,
            d,
            srcs: srcs.into_iter().collect(),
            tmp: None,
        }));
        d
    }
}
