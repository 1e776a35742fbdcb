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
//! for `tests/ampere/mma_f64.ptx`). From sm_80 on, too, `mma.m16n8k4` of tf32 is one
//! HMMA.1684.F32.TF32 (A a pair, B one register), the 4-bit m16n8 shapes IMMA.16832 (k32)
//! and IMMA.16864 (k64), the single-bit ones BMMA.168128 / .168256 with `.XOR.POPC` or
//! `.AND.POPC`, and Turing's m8n8 integer shapes the Ampere encodings of IMMA.8816,
//! IMMA.8832 and BMMA.88128 (ptxas 13.5's SASS for `tests/ampere/mma_more.ptx`). The forms a
//! target's tensor cores lack (4-bit and `.xor.popc` on sm_90, m8n8k4 of f16 from sm_80 on)
//! reach selection already expanded by the lowering to MIR.

use super::fit::Arg;
use super::{Isel, IselError};
use crate::vcode::{MInst, MKind, MOp, SrcMods, VClass, VReg, WideOp};
use ptxc_mir::ir::mma::{MmaF16Flags, MmaInput, MmaIntFlags};
use ptxc_mir::ir::{Aux, Inst, Opcode, Value};
use ptxc_sass::isa::values::{BmmaOp, HmmaAType, HmmaCType, HmmaDType, HmmaStep, ImmaAType, ImmaBType, MmaLayout};
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
            Opcode::Wgmma | Opcode::WgmmaFence | Opcode::WgmmaCommit | Opcode::WgmmaWait => self.lower_warpgroup(inst),
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
        let and = flags >> 11 & 1 == 1;
        let arch = self.vcode.arch;
        self.check_hopper_int_mma(bits, and)?;
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
            _ if bits == 1 && arch >= Arch::Sm80 => {
                let op = if and { BmmaOp::And } else { BmmaOp::Xor };
                self.emit_sass(Op::Bmma, &dsts, &srcs, &[op.set()], None)?
            }
            _ if bits == 1 && !and => self.emit_sass(Op::Bmma, &dsts, &srcs, &[], None)?,
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
        let ampere_only = flags.k4 || flags.k16 || flags.input != MmaInput::F16;
        let arch = self.vcode.arch;
        if ampere_only && arch < Arch::Sm80 {
            let shape = match (flags.k4, flags.k16) {
                (true, _) => "m16n8k4",
                (_, true) => "m16n8k16",
                _ => "m16n8k8",
            };
            let ty = ["f16", "bf16", "tf32"][flags.input as usize];
            return Err(self.unsupported(format!("`mma.{shape}` of {ty} on {arch} (it needs sm_80)")));
        }
        let a = self.tuple_op(&args[0..na]);
        let b = self.fragment_op(&args[na..na + nb]);
        let c = self.tuple_op(&args[na + nb..]);
        let d = self.vcode.new_vreg(if flags.f32 { VClass::Quad } else { VClass::Pair });
        let srcs = [(Role::A, Arg::op(a)), (Role::B, Arg::op(b)), (Role::C, Arg::op(c))];
        let dtype = if flags.f32 { HmmaDType::F32 } else { HmmaDType::F16 };
        let op = match (flags.k4, flags.k16) {
            (true, _) => Op::Hmma1684,
            (_, true) => Op::Hmma16816,
            _ => Op::Hmma1688,
        };
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

    /// The m16n8 integer shapes (sm_80): 8-bit `IMMA.16816` / `.16832`, 4-bit `IMMA.16832` /
    /// `.16864`, single-bit `BMMA.168128` / `.168256` (A a pair or a quad, B one register or a
    /// pair, C and D quads) with the element types of A and B and `.SAT`, or the bit
    /// operation.
    fn mma_int_m16n8(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let args = data.args.clone();
        let flags = match data.aux {
            Aux::Imm(b) => MmaIntFlags::from_bits(b),
            _ => return Err(self.unsupported("mma without its types")),
        };
        let arch = self.vcode.arch;
        if arch < Arch::Sm80 {
            return Err(self.unsupported(format!(
                "`mma.m16n8k{}` of {}-bit integers on {arch} (it needs sm_80)",
                flags.k(),
                flags.bits
            )));
        }
        self.check_hopper_int_mma(u64::from(flags.bits), flags.and)?;
        let (na, nb, _) = flags.regs();
        let a = self.tuple_op(&args[0..na]);
        let b = self.fragment_op(&args[na..na + nb]);
        let c = self.tuple_op(&args[na + nb..]);
        let d = self.vcode.new_vreg(VClass::Quad);
        let srcs = [(Role::A, Arg::op(a)), (Role::B, Arg::op(b)), (Role::C, Arg::op(c))];
        let (op, mods) = match (flags.bits, flags.long_k) {
            (1, long) => {
                let bop = if flags.and { BmmaOp::And } else { BmmaOp::Xor };
                let op = if long { Op::Bmma168256 } else { Op::Bmma168128 };
                (op, vec![bop.set()])
            }
            (bits, long) => {
                let nibbles = bits == 4;
                let (at, bt) = match (nibbles, flags.a_signed, flags.b_signed) {
                    (false, a, b) => (
                        if a { ImmaAType::S8 } else { ImmaAType::U8 },
                        if b { ImmaBType::S8 } else { ImmaBType::U8 },
                    ),
                    (true, a, b) => (
                        if a { ImmaAType::S4 } else { ImmaAType::U4 },
                        if b { ImmaBType::S4 } else { ImmaBType::U4 },
                    ),
                };
                let op = match (nibbles, long) {
                    (false, false) => Op::Imma16816,
                    (false, true) | (true, false) => Op::Imma16832,
                    (true, true) => Op::Imma16864,
                };
                (op, vec![at.set(), bt.set(), Mod::SatFinite.flag(flags.sat)])
            }
        };
        self.emit_sass(op, &[(Role::Dst, MOp::Reg(d))], &srcs, &mods, None)?;
        self.alias_results(inst, d);
        Ok(())
    }

    /// Hopper's tensor cores have no 4-bit integer and no XOR single-bit products. The
    /// lowering to MIR for sm_90 expands those forms (`LowerOptions::no_sub_byte_mma`,
    /// `mir/src/lower/mma_sub_byte.rs`), so MIR that still has them was not lowered for this
    /// target and is refused.
    fn check_hopper_int_mma(&self, bits: u64, and: bool) -> Result<(), IselError> {
        let arch = self.vcode.arch;
        if arch < Arch::Sm90 {
            return Ok(());
        }
        match bits {
            4 => Err(self.unsupported(format!(
                "MIR `mma` of 4-bit integers on {arch} (Hopper has no 4-bit IMMA; MIR lowered for {arch} \
                 has it expanded into 8-bit products)"
            ))),
            1 if !and => Err(self.unsupported(format!(
                "MIR `mma` of single bits with `.xor.popc` on {arch} (Hopper's BMMA has only `.and.popc`; \
                 MIR lowered for {arch} has it expanded into two)"
            ))),
            _ => Ok(()),
        }
    }

    /// `mma.m8n8k4`: `HMMA.884.D.C.STEPn Rd, Ra.L, Rb.L, Rc` per step (sm_75; from sm_80 on the
    /// lowering expands it, `mir/src/lower/mma_m8n8k4.rs`).
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
                "MIR `mma_884` (`mma.m8n8k4` of f16) on {arch} (Ampere has no HMMA.884; MIR lowered \
                 for {arch} has it expanded into shuffles and f32 arithmetic)"
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
            self.push(super::operand::wide_mov(pair, MOp::Sub(d, 2 * i as u8)));
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
