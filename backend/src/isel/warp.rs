//! Warp-level operations as ptxas selects them: SHFL (the PTX `c` operand is SHFL's
//! clamp/segment-mask operand as it is), VOTE (a full member mask gives VOTE.ALL/ANY/EQ
//! directly; otherwise the ballot is masked and compared), MATCH, the active mask
//! (`VOTE.ANY R, PT, PT`), REDUX for `redux.sync` and LDSM for `ldmatrix`.

use super::fit::Arg;
use super::{Isel, IselError};
use crate::vcode::{MOp, VClass, VReg};
use ptxc_mir::ir::{Aux, Inst, Opcode, Space, Value};
use ptxc_sass::isa::Mod;
use ptxc_sass::isa::values::{BoolOp, IntCmp, LdsmCount, LdsmShape, MatchMode, ShflMode, VoteMode};
use ptxc_sass::isa::{Op, Role, Value as V};

/// LOP3 table of `a & b`.
const AND: u16 = 0xc0;
/// PT as a destination.
const PT_DST: MOp = MOp::Fixed(V::Pred { idx: 7, neg: false });

impl Isel<'_> {
    /// Selects a warp-level instruction.
    pub(super) fn lower_warp(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let (op, args) = (data.op, data.args.clone());
        match op {
            Opcode::Shfl => self.shfl(inst),
            Opcode::VoteAll | Opcode::VoteAny | Opcode::VoteUni => self.vote_pred(inst),
            Opcode::VoteBallot => {
                let ballot = self.ballot(args[0])?;
                self.masked(inst, ballot, args[1])
            }
            Opcode::Activemask => {
                let d = self.dst(inst);
                self.vote_into(d, PT_DST, VoteMode::Any, MOp::Fixed(V::Pred { idx: 7, neg: false }))
            }
            Opcode::MatchAny | Opcode::MatchAll => self.match_(inst),
            Opcode::Redux => self.redux(inst),
            Opcode::Ldmatrix => self.ldmatrix(inst),
            Opcode::Stmatrix => self.stmatrix(inst),
            Opcode::Elect => self.elect(inst),
            other => Err(self.unsupported(format!("MIR `{}`", other.name()))),
        }
    }

    /// True if `mask` is the constant 0xffffffff.
    fn full_mask(&self, mask: Value) -> bool {
        matches!(self.foldable(mask), Some(V::Imm(k)) if k as u32 == u32::MAX)
    }

    /// `VOTE.mode d, pd, p`.
    fn vote_into(&mut self, d: MOp, pd: MOp, mode: VoteMode, p: MOp) -> Result<(), IselError> {
        self.emit_sass(
            Op::Vote,
            &[(Role::Dst, d), (Role::PredDst0, pd)],
            &[(Role::PredSrc0, Arg::op(p))],
            &[mode.set()],
            None,
        )
    }

    /// The mask of the active threads whose `p` holds.
    fn ballot(&mut self, p: Value) -> Result<VReg, IselError> {
        let r = self.vcode.new_vreg(VClass::Single);
        let p = self.pred(p);
        self.vote_into(MOp::Reg(r), PT_DST, VoteMode::Any, p)?;
        Ok(r)
    }

    /// `d = x & mask` (`x` itself with a full mask).
    fn masked(&mut self, inst: Inst, x: VReg, mask: Value) -> Result<(), IselError> {
        if self.full_mask(mask) {
            self.alias(self.func.results[inst][0], x);
            return Ok(());
        }
        let d = self.dst(inst);
        let srcs = [
            (Role::A, Arg::op(MOp::Reg(x))),
            (Role::B, Arg::v(mask)),
            (Role::C, Arg::rz()),
            (Role::Other, Arg::imm(AND as u32)),
            (Role::PredSrc0, Arg::pt(true)),
        ];
        self.emit_sass(Op::Lop3, &[(Role::Dst, d)], &srcs, &[], None)
    }

    /// `ISETP.cmp.U32.bop pd, a, b, combine`.
    fn isetp_u32(&mut self, pd: MOp, a: Arg, b: Arg, cmp: IntCmp, bop: BoolOp, combine: MOp) -> Result<(), IselError> {
        let srcs = [(Role::A, a), (Role::B, b), (Role::PredSrc0, Arg::op(combine))];
        let dsts = [(Role::PredDst0, pd), (Role::PredDst1, PT_DST)];
        self.emit_sass(
            Op::Isetp,
            &dsts,
            &srcs,
            &[cmp.set(), Mod::Signed.flag(false), bop.set()],
            None,
        )
    }

    /// `vote.all/any/uni.pred`.
    fn vote_pred(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let (op, args) = (data.op, data.args.clone());
        let d = self.dst(inst);
        let mode = match op {
            Opcode::VoteAll => VoteMode::All,
            Opcode::VoteAny => VoteMode::Any,
            _ => VoteMode::Eq,
        };
        if self.full_mask(args[1]) {
            let p = self.pred(args[0]);
            return self.vote_into(MOp::Fixed(V::Reg(ptxc_sass::isa::RZ)), d, mode, p);
        }
        let ballot = self.ballot(args[0])?;
        let pt = MOp::Fixed(V::Pred { idx: 7, neg: false });
        if op == Opcode::VoteAny {
            let t = self.lop3_temp(Arg::op(MOp::Reg(ballot)), Arg::v(args[1]), Arg::rz(), AND)?;
            return self.isetp_u32(d, Arg::op(t), Arg::rz(), IntCmp::Ne, BoolOp::And, pt);
        }
        // The participating threads: active and in the mask.
        let active = MOp::Reg(self.vcode.new_vreg(VClass::Single));
        self.vote_into(active, PT_DST, VoteMode::Any, pt)?;
        let members = self.lop3_temp(Arg::op(active), Arg::v(args[1]), Arg::rz(), AND)?;
        let t = self.lop3_temp(Arg::op(MOp::Reg(ballot)), Arg::op(members), Arg::rz(), AND)?;
        if op == Opcode::VoteAll {
            return self.isetp_u32(d, Arg::op(t), Arg::op(members), IntCmp::Eq, BoolOp::And, pt);
        }
        let none = MOp::Pred(self.vcode.new_vreg(VClass::Pred), false);
        self.isetp_u32(none, Arg::op(t), Arg::rz(), IntCmp::Eq, BoolOp::And, pt)?;
        self.isetp_u32(d, Arg::op(t), Arg::op(members), IntCmp::Eq, BoolOp::Or, none)
    }

    /// `redux.sync.op d, a, mask` as ptxas selects it on sm_80: `REDUX.op UR4, a` (a
    /// reduction over the active threads into a uniform register; ptxas uses UR4 for every
    /// REDUX, and ptxc allocates no other uniform register), then `MOV d, UR4`. The active
    /// threads are the mask's when the mask is a constant (every thread running the
    /// instruction is a member, and every member runs it). A mask computed at run time may
    /// differ between threads: as ptxas does (sm_80, 86, 89; all six operations), a
    /// `WARPSYNC.EXCLUSIVE mask` first lets the threads of each mask run the reduction as
    /// their own group.
    fn redux(&mut self, inst: Inst) -> Result<(), IselError> {
        use ptxc_mir::ir::redux::{ReduxFlags, ReduxKind};
        use ptxc_sass::isa::values::ReduxOp;
        let data = &self.func.insts[inst];
        let (args, aux) = (data.args.clone(), data.aux.clone());
        if !matches!(self.foldable(args[1]), Some(V::Imm(_))) {
            self.emit_sass(
                Op::Warpsync,
                &[],
                &[(Role::PredSrc0, Arg::pt(false)), (Role::B, Arg::v(args[1]))],
                &[Mod::Exclusive.flag(true)],
                None,
            )?;
        }
        let flags = ReduxFlags::from_bits(match aux {
            Aux::Imm(b) => b,
            _ => 0,
        });
        let op = match flags.kind {
            ReduxKind::Add => ReduxOp::Sum,
            ReduxKind::Min => ReduxOp::Min,
            ReduxKind::Max => ReduxOp::Max,
            ReduxKind::And => ReduxOp::And,
            ReduxKind::Or => ReduxOp::Or,
            ReduxKind::Xor => ReduxOp::Xor,
        };
        let signed = flags.signed && matches!(flags.kind, ReduxKind::Min | ReduxKind::Max);
        let ur = MOp::Fixed(V::UReg(super::FIXED_UR));
        self.emit_sass(
            Op::Redux,
            &[(Role::Dst, ur)],
            &[(Role::A, Arg::v(args[0]))],
            &[op.set(), Mod::Signed.flag(signed)],
            None,
        )?;
        let d = self.dst(inst);
        self.emit_sass(Op::Mov, &[(Role::Dst, d)], &[(Role::B, Arg::op(ur))], &[], None)
    }

    /// `shfl.mode d|p, a, lane, c, mask`.
    fn shfl(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let (args, aux) = (data.args.clone(), data.aux.clone());
        let Aux::Imm(mode) = aux else {
            return Err(self.unsupported("shfl without a mode"));
        };
        // MIR: 0 up, 1 down, 2 bfly, 3 idx.
        let sass_mode = [ShflMode::Up, ShflMode::Down, ShflMode::Bfly, ShflMode::Idx][mode as usize & 3];
        let results = self.func.results[inst].clone();
        let d = MOp::Reg(self.def_reg(results[0]));
        let p = if results.len() > 1 && self.use_count(results[1]) > 0 {
            MOp::Pred(self.def_reg(results[1]), false)
        } else {
            PT_DST
        };
        let srcs = [
            (Role::A, Arg::v(args[0])),
            (Role::B, Arg::v(args[1])),
            (Role::C, Arg::v(args[2])),
        ];
        self.emit_sass(
            Op::Shfl,
            &[(Role::PredDst0, p), (Role::Dst, d)],
            &srcs,
            &[sass_mode.set()],
            None,
        )
    }

    /// `match.any` / `match.all` (32- or 64-bit values).
    fn match_(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let (op, args) = (data.op, data.args.clone());
        let results = self.func.results[inst].clone();
        let wide = self.func.ty(args[0]).bits() == 64;
        let value = self.reg(args[0]);
        let r = self.vcode.new_vreg(VClass::Single);
        let mut dsts = vec![(Role::Dst, MOp::Reg(r))];
        if op == Opcode::MatchAll {
            let p = if self.use_count(results[1]) > 0 {
                MOp::Pred(self.def_reg(results[1]), false)
            } else {
                PT_DST
            };
            dsts.insert(0, (Role::PredDst0, p));
        }
        let mode = if op == Opcode::MatchAny {
            MatchMode::Any
        } else {
            MatchMode::All
        };
        let srcs = [(Role::A, Arg::op(MOp::Reg(value)))];
        self.emit_sass(Op::Match, &dsts, &srcs, &[mode.set(), Mod::Match64.flag(wide)], None)?;
        self.masked(inst, r, args[1])
    }

    /// `elect.sync`: `ELECT Pd, UR4, PT` and, for the lane, `MOV Rd, UR4`. ptxas 13.5 writes
    /// `PT` whatever the member mask is (the PTX ISA requires every thread of the mask to
    /// execute it), and so does ptxc.
    fn elect(&mut self, inst: Inst) -> Result<(), IselError> {
        if self.vcode.arch < ptxc_sass::isa::Arch::Sm90 {
            return Err(self.unsupported("elect.sync before sm_90"));
        }
        let results = self.func.results[inst].clone();
        let ur4 = MOp::Fixed(V::UReg(super::FIXED_UR));
        let p = if self.use_count(results[1]) > 0 {
            MOp::Pred(self.def_reg(results[1]), false)
        } else {
            MOp::Fixed(V::Pred { idx: 7, neg: false })
        };
        self.emit_sass(
            Op::Elect,
            &[(Role::PredDst0, p), (Role::Dst, ur4)],
            &[(Role::PredSrc0, Arg::pt(false))],
            &[],
            None,
        )?;
        if self.use_count(results[0]) > 0 {
            let d = MOp::Reg(self.def_reg(results[0]));
            self.emit_sass(Op::Mov, &[(Role::Dst, d)], &[(Role::B, Arg::op(ur4))], &[], None)?;
        }
        Ok(())
    }

    /// `ldmatrix`: LDSM.16.M88 (MT88 transposed) with 1, 2 or 4 matrices into a register,
    /// pair or quad whose registers the results name.
    fn ldmatrix(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let (addr, aux) = (data.args[0], data.aux.clone());
        let Aux::Imm(flags) = aux else {
            return Err(self.unsupported("ldmatrix without a shape"));
        };
        let (count, trans) = (flags & 7, flags >> 4 & 1);
        let Some((class, count_code)) = matrix_count(count) else {
            return Err(self.unsupported(format!("ldmatrix of {count} matrices")));
        };
        let operand = self.mem_operand(addr, 0, Space::Shared)?;
        let results = self.func.results[inst].clone();
        let d: VReg = if count == 1 {
            self.def_reg(results[0])
        } else {
            self.vcode.new_vreg(class)
        };
        self.emit_sass(
            Op::Ldsm,
            &[(Role::Dst, MOp::Reg(d))],
            &[(Role::Addr, Arg::op(operand))],
            &[
                if trans == 1 { LdsmShape::Mt88 } else { LdsmShape::M88 }.set(),
                count_code.set(),
            ],
            None,
        )?;
        if count > 1 {
            for (i, &r) in results.iter().enumerate() {
                self.alias_sub(r, d, i as u8);
            }
        }
        Ok(())
    }
}

/// The register tuple and LDSM/STSM count code of 1, 2 or 4 8x8 matrices.
pub(super) fn matrix_count(count: u64) -> Option<(VClass, LdsmCount)> {
    Some(match count {
        1 => (VClass::Single, LdsmCount::X1),
        2 => (VClass::Pair, LdsmCount::X2),
        4 => (VClass::Quad, LdsmCount::X4),
        _ => return None,
    })
}
