//! The warpgroup instructions of sm_90a as ptxas 13.5 selects them (its SASS for Triton's
//! matmul, `tests/hopper/triton_matmul_fp16.ptx`): `wgmma.fence` is WARPGROUP.ARRIVE,
//! `wgmma.commit_group` no instruction of its own (the last HGMMA before it arrives on the
//! group scoreboard, `gsb0`), `wgmma.wait_group n` WARPGROUP.DEPBAR.LE gsb0, n, and
//! `wgmma.mma_async` one `HGMMA.64xNx16.{F32|F16}{.BF16} Rd, gdesc[UR4], Rd` with A's and
//! B's 64-bit matrix descriptors moved into UR4..UR7 by R2UR (UMOV for constants), or
//! `HGMMA ... Rd, Ra, gdesc[UR4], Rd` with A from four registers and B's descriptor in
//! UR6:UR7. The accumulator is the pinned register block of its web
//! (`accumulators.rs`); accumulator arguments outside the web are moved into it first.
//! `fence.proxy.async.shared::cta` is MEMBAR.ALL.CTA and FENCE.VIEW.ASYNC.S, without a
//! state space MEMBAR.ALL.GPU and FENCE.VIEW.ASYNC.S, `.global` FENCE.VIEW.ASYNC.G alone;
//! `stmatrix` is STSM.16.{M88|MT88}.

use super::fit::Arg;
use super::{FIXED_UR, Isel, IselError};
use crate::vcode::{MOp, SrcMods, VReg};
use ptxc_mir::ir::mma::WgmmaFlags;
use ptxc_mir::ir::{Aux, Inst, Opcode, Space, Value};
use ptxc_sass::isa::values::{AsyncView, HmmaAType, HmmaDType, LdsmShape, MembarSem, Scope, VoteMode};
use ptxc_sass::isa::{Arch, Mod, ModSet, Op, Role, Value as V};

/// A uniform register of the descriptor block (UR4 + k).
fn ur(k: u8) -> MOp {
    MOp::Fixed(V::UReg(FIXED_UR + k))
}

impl Isel<'_> {
    /// Selects a warpgroup instruction.
    pub(super) fn lower_warpgroup(&mut self, inst: Inst) -> Result<(), IselError> {
        if self.vcode.arch != Arch::Sm90a {
            return Err(self.unsupported(format!("wgmma on {:?} (it needs sm_90a)", self.vcode.arch)));
        }
        match self.func.insts[inst].op {
            Opcode::Wgmma => self.hgmma(inst),
            Opcode::WgmmaFence => {
                self.prepare_fenced(inst)?;
                self.emit_sass(Op::WarpgroupArrive, &[], &[], &[], None)
            }
            Opcode::WgmmaCommit => Ok(()),
            Opcode::WgmmaWait => {
                let Aux::Imm(n) = self.func.insts[inst].aux else {
                    return Err(self.unsupported("wgmma.wait_group without its count"));
                };
                let srcs = [(Role::A, Arg::imm(0)), (Role::B, Arg::imm(n as u32))];
                self.emit_sass(Op::WarpgroupDepbar, &[], &srcs, &[], None)
            }
            other => Err(self.unsupported(format!("MIR `{}`", other.name()))),
        }
    }

    /// The instructions of the block holding `inst`, and `inst`'s position there.
    fn block_around(&self, inst: Inst) -> Option<(&[Inst], usize)> {
        let block = self
            .func
            .layout
            .iter()
            .find(|&&b| self.func.blocks[b].insts.contains(&inst))?;
        let insts = &self.func.blocks[*block].insts[..];
        Some((insts, insts.iter().position(|&i| i == inst)?))
    }

    /// Whether the `wgmma` `inst` ends its group: no other `wgmma` follows it in its block
    /// before a `wgmma.commit_group` (ending a group early only makes waits stricter).
    fn ends_group(&self, inst: Inst) -> bool {
        let Some((insts, at)) = self.block_around(inst) else {
            return true;
        };
        insts[at + 1..]
            .iter()
            .map(|&i| self.func.insts[i].op)
            .find(|op| matches!(op, Opcode::Wgmma | Opcode::WgmmaCommit | Opcode::WgmmaWait))
            != Some(Opcode::Wgmma)
    }

    /// The arguments and flags of `wgmma` `inst`.
    fn wgmma_of(&self, inst: Inst) -> Result<(Vec<Value>, WgmmaFlags), IselError> {
        let data = &self.func.insts[inst];
        match data.aux {
            Aux::Imm(bits) => Ok((data.args.to_vec(), WgmmaFlags::from_bits(bits))),
            _ => Err(self.unsupported("wgmma without its shape")),
        }
    }

    /// Moves `v` into the pinned register `d` (an accumulator or A register), unless it is
    /// there already.
    pub(super) fn move_to_pinned(&mut self, d: VReg, v: Value) {
        let src = self.fixed_or_src(v);
        let in_place = matches!(src, MOp::Reg(s) if self.vcode.fixed_reg(s) == self.vcode.fixed_reg(d));
        if !in_place {
            self.push(super::operand::mov(d, src));
        }
    }

    /// The `wgmma`s a `wgmma.fence` orders (up to the next fence or wait in its block) whose
    /// operands are all computed before it: their accumulator copies and A tuples are made
    /// here, before WARPGROUP.ARRIVE, as the PTX ISA requires of register writes.
    fn prepare_fenced(&mut self, fence: Inst) -> Result<(), IselError> {
        let Some((insts, at)) = self.block_around(fence) else {
            return Ok(());
        };
        let insts = insts.to_vec();
        let before: rustc_hash::FxHashSet<Value> = insts[..at]
            .iter()
            .flat_map(|&i| self.func.results[i].iter().copied())
            .collect();
        // An earlier `wgmma`'s result is its accumulator, in place: no copy.
        // Copies and bitcasts (of f32 accumulators to b32) name their source's register.
        let defined_before = |v: Value| match self.func.values[super::accumulators::root(self.func, v)].def {
            ptxc_mir::ir::ValueDef::Result(i, k) => {
                before.contains(&self.func.results[i][k as usize])
                    || !insts.contains(&i)
                    || self.func.insts[i].op == Opcode::Wgmma
            }
            ptxc_mir::ir::ValueDef::Param(..) => true,
        };
        for &w in &insts[at + 1..] {
            match self.func.insts[w].op {
                Opcode::WgmmaFence | Opcode::WgmmaWait => break,
                Opcode::Wgmma if self.register_args(w).iter().all(|&v| defined_before(v)) => {
                    let a = self.prepare_wgmma(w)?;
                    self.prepared_wgmma.insert(w, a);
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The arguments of `wgmma` `inst` that go to its registers: A's (register form) and C's.
    fn register_args(&self, inst: Inst) -> Vec<Value> {
        let Ok((args, f)) = self.wgmma_of(inst) else {
            return self.func.insts[inst].args.to_vec();
        };
        let a = if f.a_regs { &args[..4] } else { &[][..] };
        a.iter().chain(&args[f.leading_args()..]).copied().collect()
    }

    /// Whether `wgmma` `inst` may read C: false when scale-d is known false (C is zero).
    fn scales_c(&self, inst: Inst) -> Result<bool, IselError> {
        Ok(self.scale_d(inst)? != Some(false))
    }

    /// scale-d of `wgmma` `inst` when it is a constant.
    fn scale_d(&self, inst: Inst) -> Result<Option<bool>, IselError> {
        Ok(match self.foldable(self.scale_d_value(inst)?) {
            Some(V::Pred { idx: 7, neg }) => Some(!neg),
            _ => None,
        })
    }

    /// The scale-d argument of `wgmma` `inst`.
    fn scale_d_value(&self, inst: Inst) -> Result<Value, IselError> {
        let (args, f) = self.wgmma_of(inst)?;
        Ok(args[f.leading_args() - 1])
    }

    /// HGMMA's scale-d operand: UPT, !UPT, or UP0 from a run-time predicate (`VOTEU.ANY UP0,
    /// Pp`: scale-d is the same in every thread of the warpgroup).
    fn scale_d_operand(&mut self, inst: Inst) -> Result<Arg, IselError> {
        if let Some(known) = self.scale_d(inst)? {
            return Ok(Arg::pt(!known));
        }
        let p = self.scale_d_value(inst)?;
        let p = self.pred(p);
        let up0 = MOp::Fixed(V::Pred { idx: 0, neg: false });
        let dsts = [(Role::PredDst0, up0)];
        let srcs = [(Role::PredSrc0, Arg::op(p))];
        self.emit_sass(Op::Voteu, &dsts, &srcs, &[VoteMode::Any.set()], None)?;
        Ok(Arg::op(up0))
    }

    /// Moves the accumulator arguments of `wgmma` `inst` that are not in its registers there,
    /// and builds A's quad (register form): that A operand.
    fn prepare_wgmma(&mut self, inst: Inst) -> Result<Option<MOp>, IselError> {
        let (args, f) = self.wgmma_of(inst)?;
        let results = self.func.results[inst].clone();
        let d: Vec<VReg> = results.iter().map(|&r| self.def_reg(r)).collect();
        if self.vcode.fixed_reg(d[0]).is_none() {
            return Err(self.unsupported("a wgmma accumulator outside its register block"));
        }
        if self.scales_c(inst)? {
            for (&c, &d) in args[f.leading_args()..].iter().zip(&d) {
                // Prepared at the fence, a bitcast of `c` may not be selected yet: its source.
                self.move_to_pinned(d, super::accumulators::root(self.func, c));
            }
        }
        if !f.a_regs {
            return Ok(None);
        }
        let Some(quad) = self.a_quads.get(&inst).copied() else {
            return Err(self.unsupported("a wgmma's A outside its registers"));
        };
        for (&a, &q) in args[..4].iter().zip(&quad) {
            self.move_to_pinned(q, super::accumulators::root(self.func, a));
        }
        Ok(Some(MOp::Reg(quad[0])))
    }

    /// `wgmma.mma_async`: HGMMA on the accumulator's pinned registers.
    fn hgmma(&mut self, inst: Inst) -> Result<(), IselError> {
        let a_op = match self.prepared_wgmma.remove(&inst) {
            Some(a) => a,
            None => self.prepare_wgmma(inst)?,
        };
        let scale = self.scales_c(inst)?;
        let (args, f) = self.wgmma_of(inst)?;
        let lead = f.leading_args();
        let d0 = self.def_reg(self.func.results[inst][0]);
        let b_desc = args[lead - 2];
        let mut srcs = Vec::new();
        let flag_bits = |set: &[bool]| set.iter().enumerate().map(|(i, &on)| (on as u8) << i).sum::<u8>();
        if let Some(a) = a_op {
            let neg = SrcMods {
                neg: f.neg_a,
                ..SrcMods::default()
            };
            srcs.push((Role::A, Arg::Op(a, neg)));
            self.uniform_pair(b_desc, 2)?;
            let swizzle = flag_bits(&[f.neg_b, f.trans_b]);
            srcs.push((
                Role::B,
                Arg::Op(
                    ur(0),
                    SrcMods {
                        swizzle,
                        ..SrcMods::default()
                    },
                ),
            ));
        } else {
            self.uniform_pair(args[0], 0)?;
            self.uniform_pair(b_desc, 2)?;
            let swizzle = flag_bits(&[f.neg_a, f.neg_b, f.trans_a, f.trans_b]);
            srcs.push((
                Role::B,
                Arg::Op(
                    ur(0),
                    SrcMods {
                        swizzle,
                        ..SrcMods::default()
                    },
                ),
            ));
        }
        let c = if scale { Arg::op(MOp::Reg(d0)) } else { Arg::rz() };
        srcs.push((Role::C, c));
        let scale_d = self.scale_d_operand(inst)?;
        srcs.push((Role::PredSrc0, scale_d));
        let gsb = if self.ends_group(inst) { 0 } else { 7 };
        srcs.push((Role::Other, Arg::imm(gsb)));
        let mods: [ModSet; 3] = [
            if f.f32 { HmmaDType::F32 } else { HmmaDType::F16 }.set(),
            if f.bf16 { HmmaAType::Bf16 } else { HmmaAType::F16 }.set(),
            ModSet {
                id: Mod::GmmaN,
                code: ptxc_sass::isa::sm90::gmma::n_code(f.n),
            },
        ];
        self.emit_sass(Op::Hgmma, &[(Role::Dst, MOp::Reg(d0))], &srcs, &mods, None)
    }

    /// `fence.proxy.async[.shared::cta|.global]`: MEMBAR.ALL.{CTA|GPU}; FENCE.VIEW.ASYNC.S,
    /// or FENCE.VIEW.ASYNC.G.
    pub(super) fn fence_proxy_async(&mut self, inst: Inst) -> Result<(), IselError> {
        if self.vcode.arch < Arch::Sm90 {
            return Err(self.unsupported("fence.proxy.async before sm_90"));
        }
        let scope = match self.func.insts[inst].aux {
            Aux::Imm(0) => Scope::Cta,
            Aux::Imm(1) => return self.emit_sass(Op::FenceViewAsync, &[], &[], &[AsyncView::Global.set()], None),
            _ => Scope::Gpu,
        };
        self.emit_sass(Op::Membar, &[], &[], &[MembarSem::All.set(), scope.set()], None)?;
        self.emit_sass(Op::FenceViewAsync, &[], &[], &[AsyncView::Shared.set()], None)
    }

    /// `stmatrix`: STSM.16.{M88|MT88} with 1, 2 or 4 matrices from a register, pair or quad.
    pub(super) fn stmatrix(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let (args, aux) = (data.args.clone(), data.aux.clone());
        let Aux::Imm(flags) = aux else {
            return Err(self.unsupported("stmatrix without a shape"));
        };
        let (count, trans) = (flags & 7, flags >> 4 & 1 == 1);
        let Some((class, code)) = super::warp::matrix_count(count) else {
            return Err(self.unsupported(format!("stmatrix of {count} matrices")));
        };
        let operand = self.mem_operand(args[0], 0, Space::Shared)?;
        let data_op = if count == 1 {
            MOp::Reg(self.reg(args[1]))
        } else {
            let srcs = args[1..].iter().map(|&v| self.fixed_or_src(v)).collect();
            MOp::Reg(self.pack_tuple(srcs, class))
        };
        let shape = if trans { LdsmShape::Mt88 } else { LdsmShape::M88 };
        self.emit_sass(
            Op::Stsm,
            &[],
            &[(Role::Addr, Arg::op(operand)), (Role::Data, Arg::op(data_op))],
            &[shape.set(), code.set()],
            None,
        )
    }
}
