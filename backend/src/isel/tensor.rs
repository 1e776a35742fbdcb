//! Tensor-core instructions as ptxas selects them: `movmatrix` is one MOVM.16.MT88 (the
//! register transpose through the MIO unit); the integer `mma.sync` shapes are one
//! IMMA.8816 (8-bit), IMMA.8832 (4-bit) or BMMA.88128.XOR.POPC (b1), reading A and B from one
//! register each and C from a register pair, and writing D to a pair; `mma.m16n8k8` is one
//! HMMA.1688 (A a pair, B one register, C and D pairs for f16 or quads for f32); `mma.m8n8k4`
//! is two (f16 D) or four (f32 D) HMMA.884 steps, step `n` writing D pair `n` from the C pair
//! holding its accumulators (C pair `n`, or pair `n / 2` of an f16 C under an f32 D), with A
//! and B pairs and their layouts as operand suffixes (ptxas 13.5's SASS for
//! `tests/tensor/mma_sync.ptx`). On sm_80, sm_86 and sm_89 `mma.m16n8k16` is one
//! HMMA.16816 (A a quad, B a pair), bf16 and tf32 multiplicands add `.BF16` / `.TF32` (tf32:
//! A a quad, B a pair even for k8), and `mma.m16n8k16` / `.m16n8k32` of 8-bit integers is
//! one IMMA.16816 / IMMA.16832 with C and D quads (ptxas 13.5's SASS for
//! `tests/ampere/mma_m16n8.ptx`). `mma.m8n8k4` of f64 (sm_80 on) is one DMMA.884 reading A
//! and B from a register pair each and C from a quad, writing D to a quad (ptxas 13.5's SASS
//! for `tests/ampere/mma_f64.ptx`).

use super::fit::Arg;
use super::{Isel, IselError};
use crate::vcode::{MInst, MKind, MOp, SrcMods, VClass, VReg, WideOp};
use ptxc_mir::ir::mma::{MmaF16Flags, MmaInput, MmaIntFlags};
use ptxc_mir::ir::{Aux, Inst, Opcode, Value};
use ptxc_sass::isa::values::{HmmaAType, HmmaCType, HmmaDType, HmmaStep, ImmaAType, ImmaBType, MmaLayout};
use ptxc_sass::isa::{Arch, Mod, Op, Role};

impl Isel<'_> {
    /// Selects a tensor-core instruction.
    pub(super) fn lower_tensor(&mut self, inst: Inst) -> Result<(), IselError> {
        match self.func.insts[inst].op {
            Opcode::Movmatrix => self.movmatrix(inst),
            Opcode::MmaInt => self.mma_int(inst),
            Opcode::MmaF16 => self.mma_f16(inst),
            Opcode::MmaIntM16n8 => self.mma_int_m16n8(inst),
            Opcode::Mma884 => self.mma_884(inst),
            Opcode::MmaF64 => self.mma_f64(inst),
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
        let arch = self.vcode.arch;
        if arch >= Arch::Sm80 {
            let shape = match bits {
                8 => "m8n8k16",
                4 => "m8n8k32",
                _ => "m8n8k128",
            };
            return Err(self.unsupported(format!(
                "`mma.{shape}` (or a `wmma` integer shape built on it) on {arch} (Ampere's IMMA.8816, \
                 IMMA.8832 and BMMA are not described)"
            )));
        }
        let a = self.reg(args[0]);
        let b = self.reg(args[1]);
        let c = self.tuple_op(&args[2..4]);
        let d = self.vcode.new_vreg(VClass::Pair);
        let srcs = [
            (Role::A, Arg::op(MOp::Reg(a))),
            (Role::B, Arg::op(MOp::Reg(b))),
            (Role::C, Arg::op(c)),
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
        self.alias_results(inst, d);
        Ok(())
    }

    /// `mma.m16n8k8` and `mma.m16n8k16`: `HMMA.1688.F32 Rd, Ra, Rb, Rc` (D and C quads) or
    /// `HMMA.1688.F16` (pairs), A a pair and B one register; on sm_80 also `HMMA.16816` (A a
    /// quad, B a pair) and the bf16 and tf32 multiplicands (`.BF16`, `.TF32`: A a quad and B a
    /// pair for tf32).
    fn mma_f16(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let args = data.args.clone();
        let flags = match data.aux {
            Aux::Imm(b) => MmaF16Flags::from_bits(b),
            _ => return Err(self.unsupported("mma without its types")),
        };
        let (na, nb, _) = flags.regs();
        let ampere_only = flags.k16 || flags.input != MmaInput::F16;
        let arch = self.vcode.arch;
        if ampere_only && arch < Arch::Sm80 {
            let shape = if flags.k16 { "m16n8k16" } else { "m16n8k8" };
            let ty = ["f16", "bf16", "tf32"][flags.input as usize];
            return Err(self.unsupported(format!("`mma.{shape}` of {ty} on {arch} (it needs sm_80)")));
        }
        let a = self.tuple_op(&args[0..na]);
        let b = self.fragment_op(&args[na..na + nb]);
        let c = self.tuple_op(&args[na + nb..]);
        let d = self.vcode.new_vreg(if flags.f32 { VClass::Quad } else { VClass::Pair });
        let srcs = [(Role::A, Arg::op(a)), (Role::B, Arg::op(b)), (Role::C, Arg::op(c))];
        let dtype = if flags.f32 { HmmaDType::F32 } else { HmmaDType::F16 };
        let op = if flags.k16 { Op::Hmma16816 } else { Op::Hmma1688 };
        let mut mods = vec![dtype.set()];
        if arch >= Arch::Sm80 {
            mods.push(
                match flags.input {
                    MmaInput::F16 => HmmaAType::F16,
                    MmaInput::Bf16 => HmmaAType::Bf16,
                    MmaInput::Tf32 => HmmaAType::Tf32,
                }
                .set(),
            );
        }
        self.emit_sass(op, &[(Role::Dst, MOp::Reg(d))], &srcs, &mods, None)?;
        self.alias_results(inst, d);
        Ok(())
    }

    /// `mma.m16n8k16` and `mma.m16n8k32` of 8-bit integers (sm_80): `IMMA.16816` (A a pair,
    /// B one register) or `IMMA.16832` (A a quad, B a pair), C and D quads, with the element
    /// types of A and B and `.SAT`.
    fn mma_int_m16n8(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let args = data.args.clone();
        let flags = match data.aux {
            Aux::Imm(b) => MmaIntFlags::from_bits(b),
            _ => return Err(self.unsupported("mma without its types")),
        };
        let arch = self.vcode.arch;
        let shape = if flags.k32 { "m16n8k32" } else { "m16n8k16" };
        if arch < Arch::Sm80 {
            return Err(self.unsupported(format!("`mma.{shape}` of 8-bit integers on {arch} (it needs sm_80)")));
        }
        let (na, nb, _) = flags.regs();
        let a = self.tuple_op(&args[0..na]);
        let b = self.fragment_op(&args[na..na + nb]);
        let c = self.tuple_op(&args[na + nb..]);
        let d = self.vcode.new_vreg(VClass::Quad);
        let srcs = [(Role::A, Arg::op(a)), (Role::B, Arg::op(b)), (Role::C, Arg::op(c))];
        let at = if flags.a_signed { ImmaAType::S8 } else { ImmaAType::U8 };
        let bt = if flags.b_signed { ImmaBType::S8 } else { ImmaBType::U8 };
        let op = if flags.k32 { Op::Imma16832 } else { Op::Imma16816 };
        let mods = [at.set(), bt.set(), Mod::SatFinite.flag(flags.sat)];
        self.emit_sass(op, &[(Role::Dst, MOp::Reg(d))], &srcs, &mods, None)?;
        self.alias_results(inst, d);
        Ok(())
    }

    /// `mma.m8n8k4`: `HMMA.884.D.C.STEPn Rd, Ra.L, Rb.L, Rc` per step.
    fn mma_884(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let args = data.args.clone();
        let Aux::Imm(flags) = data.aux else {
            return Err(self.unsupported("mma without its types"));
        };
        let (d32, c32) = (flags & 1 == 1, flags >> 1 & 1 == 1);
        let arch = self.vcode.arch;
        if arch >= Arch::Sm80 {
            return Err(self.unsupported(format!(
                "`mma.m8n8k4` of f16 on {arch} (Ampere has no HMMA.884; ptxas emulates the shape \
                 with scalar code)"
            )));
        }
        let layout = |col: bool| SrcMods {
            swizzle: if col { MmaLayout::Col } else { MmaLayout::Row }.code(),
            ..SrcMods::default()
        };
        let a = self.tuple_op(&args[0..2]);
        let b = self.tuple_op(&args[2..4]);
        let c = &args[4..];
        let dtype = if d32 { HmmaDType::F32 } else { HmmaDType::F16 };
        let ctype = if c32 { HmmaCType::F32 } else { HmmaCType::F16 };
        let steps = [HmmaStep::Step0, HmmaStep::Step1, HmmaStep::Step2, HmmaStep::Step3];
        let results = self.func.results[inst].clone();
        for (n, step) in steps.into_iter().enumerate().take(if d32 { 4 } else { 2 }) {
            let cb = if c32 || !d32 { 2 * n } else { 2 * (n / 2) };
            let cp = self.tuple_op(&c[cb..cb + 2]);
            let d = self.vcode.new_vreg(VClass::Pair);
            let srcs = [
                (Role::A, Arg::Op(a, layout(flags >> 2 & 1 == 1))),
                (Role::B, Arg::Op(b, layout(flags >> 3 & 1 == 1))),
                (Role::C, Arg::op(cp)),
            ];
            let mods = [dtype.set(), ctype.set(), step.set()];
            self.emit_sass(Op::Hmma884, &[(Role::Dst, MOp::Reg(d))], &srcs, &mods, None)?;
            for k in 0..2 {
                self.alias_sub(results[2 * n + k], d, k as u8);
            }
        }
        Ok(())
    }

    /// `mma.m8n8k4` of f64 (sm_80): `DMMA.884 Rd, Ra, Rb, Rc` with A and B pairs (one f64
    /// each) and C and D quads (two f64 each).
    fn mma_f64(&mut self, inst: Inst) -> Result<(), IselError> {
        let args = self.func.insts[inst].args.clone();
        let arch = self.vcode.arch;
        if arch < Arch::Sm80 {
            return Err(self.unsupported(format!("`mma.m8n8k4` of f64 on {arch} (it needs sm_80)")));
        }
        let a = self.reg(args[0]);
        let b = self.reg(args[1]);
        let mut halves = smallvec::SmallVec::new();
        for &v in &args[2..4] {
            let pair = self.reg(v);
            halves.extend([MOp::Sub(pair, 0), MOp::Sub(pair, 1)]);
        }
        let c = self.pack_tuple(halves, VClass::Quad);
        let d = self.vcode.new_vreg(VClass::Quad);
        let srcs = [
            (Role::A, Arg::op(MOp::Reg(a))),
            (Role::B, Arg::op(MOp::Reg(b))),
            (Role::C, Arg::op(MOp::Reg(c))),
        ];
        self.emit_sass(Op::Dmma, &[(Role::Dst, MOp::Reg(d))], &srcs, &[], None)?;
        let results = self.func.results[inst].clone();
        for (i, &r) in results.iter().enumerate() {
            let pair = self.def_reg(r);
            self.push(MInst::new(MKind::Wide {
                op: WideOp::Mov,
                d: pair,
                srcs: smallvec::smallvec![MOp::Sub(d, 2 * i as u8)],
                tmp: None,
            }));
        }
        Ok(())
    }

    /// The results of `inst` as the registers of the tuple `d`, in order.
    fn alias_results(&mut self, inst: Inst, d: VReg) {
        let results = self.func.results[inst].clone();
        for (i, &r) in results.iter().enumerate() {
            self.alias_sub(r, d, i as u8);
        }
    }

    /// An mma fragment: one register, or the pair or quad of [`Isel::tuple_op`].
    fn fragment_op(&mut self, values: &[Value]) -> MOp {
        match values {
            [v] => MOp::Reg(self.reg(*v)),
            _ => self.tuple_op(values),
        }
    }

    /// A register pair or quad holding `values` in order: the tuple they already are, the
    /// aligned part of a wider tuple they are (a pair of an `ldmatrix.x4` quad), or a new
    /// tuple.
    fn tuple_op(&mut self, values: &[Value]) -> MOp {
        let class = if values.len() == 4 { VClass::Quad } else { VClass::Pair };
        if let Some((t, first)) = self.sub_of(values[0])
            && (first as usize).is_multiple_of(values.len())
            && (self.vcode.class(t) == class || values.len() == 2 && self.vcode.class(t) == VClass::Quad)
            && values
                .iter()
                .enumerate()
                .all(|(i, &v)| self.sub_of(v) == Some((t, first + i as u8)))
        {
            return if first == 0 { MOp::Reg(t) } else { MOp::Sub(t, first) };
        }
        let srcs = values.iter().map(|&v| self.src_op(v)).collect();
        MOp::Reg(self.pack_tuple(srcs, class))
    }

    /// A new tuple of `class` holding `srcs` in order (one move each after allocation).
    pub(super) fn pack_tuple(&mut self, srcs: smallvec::SmallVec<[MOp; 3]>, class: VClass) -> VReg {
        let d = self.vcode.new_vreg(class);
        self.push(MInst::new(MKind::Wide {
            op: WideOp::Pack,
            d,
            srcs,
            tmp: None,
        }));
        d
    }
}
