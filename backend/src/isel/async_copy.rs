//! Asynchronous copies as ptxas writes them (sm_80 on):
//! * `cp_async` becomes `LDGSTS.E{.BYPASS}{.LTCnB}{.64|.128} [shared+k20], [global.64+k12]`;
//!   with a src-size `n` it becomes `LDGSTS...ZFILL [shared], [global + ((size - n) mod size)], P`
//!   with `P = n != 0`: the low address bits count the bytes to zero-fill (ptxas's lowering;
//!   `sm80/async_copy.rs` of the ISA).
//! * `cp_async_commit` becomes `LDGDEPBAR`, `cp_async_wait n` becomes `DEPBAR.LE SB0, n`: the
//!   control-code pass gives every LDGDEPBAR scoreboard [`COPY_SB`](crate::sched::COPY_SB).
//!
//! ptxas gives LDGSTS a memory descriptor (`ULDC.64 UR4, c[0x0][0x118]`); ptxc uses no
//! uniform registers and leaves it out (bit 76 clear, URZ), as its LDG and STG do.

use super::fit::Arg;
use super::{Isel, IselError};
use crate::vcode::{MInst, MKind, MOp, SrcMods, VClass, WideOp};
use ptxc_mir::ir::{Aux, Inst, Opcode, Space, Value};
use ptxc_sass::isa::values::{ArrivesCount, BoolOp, IntCmp, MemSize, Prefetch};
use ptxc_sass::isa::{Arch, Mod, ModSet, Op, Role, URZ, Value as V};
use smallvec::smallvec;

/// Offsets LDGSTS's shared address holds (signed 20 bits).
const SHARED_OFFSETS: std::ops::Range<i64> = -(1 << 19)..(1 << 19);
/// Offsets ARRIVES's address holds (signed 24 bits).
const ARRIVES_OFFSETS: std::ops::Range<i64> = -(1 << 23)..(1 << 23);
/// Offsets LDGSTS's global address holds (signed 12 bits).
const GLOBAL_OFFSETS: std::ops::Range<i64> = -(1 << 11)..(1 << 11);

impl Isel<'_> {
    /// Selects an asynchronous copy or a group operation.
    pub(super) fn lower_async_copy(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let (op, args) = (data.op, data.args.clone());
        let imm = match data.aux {
            Aux::Imm(k) => k,
            _ => 0,
        };
        match op {
            Opcode::CpAsync => self.ldgsts(&args, imm),
            Opcode::CpAsyncCommit => self.emit_sass(Op::Ldgdepbar, &[], &[], &[], None),
            Opcode::CpAsyncArrive => self.arrives(args[0], imm),
            Opcode::BulkCopy => self.ublkcp(&args, imm),
            Opcode::TmaLoad => self.utmaldg(&args, imm),
            Opcode::TmaStore => self.utmastg(&args, imm),
            Opcode::BulkCommit => self.utmacmdflush(),
            Opcode::BulkWait => self.bulk_wait(imm),
            Opcode::CpAsyncWait => {
                let srcs = [
                    (Role::A, Arg::imm(u32::from(crate::sched::COPY_SB))),
                    (Role::B, Arg::imm(imm as u32)),
                ];
                self.emit_sass(Op::Depbar, &[], &srcs, &[Mod::DepbarLe.flag(true)], None)
            }
            other => Err(self.unsupported(format!("MIR `{}`", other.name()))),
        }
    }

    /// `ARRIVES.LDGSTSBAR.64` of `cp_async_arrive (bar)`, as ptxas writes it: `[URZ+bar]`
    /// for a constant barrier address; a barrier in a register (which the MIR lowering makes
    /// the same in every thread that executes the arrival, see `mir/src/lower/async_copy.rs`)
    /// goes to UR4 first: `R2UR UR4, Rbar; ARRIVES.LDGSTSBAR.64 [UR4+k]`.
    fn arrives(&mut self, bar: Value, flags: u64) -> Result<(), IselError> {
        let hopper = flags & ptxc_mir::lower::CP_ASYNC_ARRIVE_HOPPER != 0;
        if self.vcode.arch >= Arch::Sm90 && !hopper {
            // Hopper's ARRIVES.LDGSTSBAR arrives on a barrier in Hopper's layout
            // (`runtime-sim/src/exec/semantics/syncs.rs`), which the MIR lowering makes only
            // when told the target is Hopper (`LowerOptions::hopper_mbarrier`).
            return Err(self.unsupported(format!(
                "`cp.async.mbarrier.arrive` on {} of an mbarrier in Ampere's layout (lower for sm_90)",
                self.vcode.arch
            )));
        }
        let at = self.mem_operand_within(bar, 0, Space::Shared, ARRIVES_OFFSETS)?;
        let (base, uniform, offset) = match at {
            MOp::Fixed(V::Mem { base, offset, .. }) => (base, URZ, offset),
            MOp::Mem { base, offset, .. } => {
                let srcs = [(Role::A, Arg::op(MOp::Reg(base)))];
                self.emit_sass(
                    Op::R2ur,
                    &[(Role::Dst, MOp::Fixed(V::UReg(super::FIXED_UR)))],
                    &srcs,
                    &[],
                    None,
                )?;
                (ptxc_sass::isa::RZ, super::FIXED_UR, offset)
            }
            other => return Err(self.unsupported(format!("`cp.async.mbarrier.arrive` on the address {other:?}"))),
        };
        let at = MOp::Fixed(V::Mem {
            base,
            uniform: Some(uniform),
            offset,
            scale: 0,
        });
        let mut mods = vec![MemSize::B64.set()];
        if hopper {
            let announced = flags & ptxc_mir::lower::CP_ASYNC_ARRIVE_ANNOUNCED != 0;
            mods.push(
                if announced {
                    ArrivesCount::TransCnt
                } else {
                    ArrivesCount::ArvCnt
                }
                .set(),
            );
        }
        self.emit_sass(Op::ArrivesLdgstsbar, &[], &[(Role::Addr, Arg::op(at))], &mods, None)
    }

    /// `LDGSTS` of `cp_async (shared, global[, src-size])`.
    fn ldgsts(&mut self, args: &[Value], imm: u64) -> Result<(), IselError> {
        let bytes = (imm & 0xff) as u32;
        let size = MemSize::of_bytes(bytes)
            .filter(|_| matches!(bytes, 4 | 8 | 16))
            .ok_or_else(|| self.unsupported(format!("{bytes}-byte asynchronous copies")))?;
        let prefetch = match (imm >> ptxc_mir::lower::CP_ASYNC_L2_SHIFT) & 3 {
            1 => Prefetch::B64,
            2 => Prefetch::B128,
            3 => Prefetch::B256,
            _ => Prefetch::None,
        };
        let cached = imm & ptxc_mir::lower::CP_ASYNC_CG == 0;
        // `.L2::cache_hint`: the policy is the last argument.
        let (args, policy) = match imm & ptxc_mir::lower::CP_ASYNC_POLICY {
            0 => (args, None),
            _ => (&args[..args.len() - 1], args.last().copied()),
        };
        let to = self.mem_operand_within(args[0], 0, Space::Shared, SHARED_OFFSETS)?;
        let (from, guard) = match args.get(2) {
            None => (
                self.mem_operand_within(args[1], 0, Space::Global, GLOBAL_OFFSETS)?,
                None,
            ),
            Some(&n) => {
                let (from, p) = self.zero_filled(args[1], n, bytes)?;
                (from, Some(p))
            }
        };
        let mut mods: Vec<ModSet> = vec![
            size.set(),
            Mod::L1Allocate.flag(cached),
            prefetch.set(),
            Mod::Zfill.flag(guard.is_some()),
        ];
        let from = match policy {
            Some(p) => self.policy_descriptor(p, from, &mut mods)?,
            None => {
                mods.push(Mod::Desc.flag(false));
                let wide = SrcMods {
                    swizzle: 1,
                    ..SrcMods::default()
                };
                Arg::Op(from, wide)
            }
        };
        let mut srcs: Vec<(Role, Arg)> = vec![(Role::Addr, Arg::op(to)), (Role::SrcAddr, from)];
        if let Some(p) = guard {
            srcs.push((Role::PredSrc0, Arg::op(p)));
        }
        self.emit_sass(Op::Ldgsts, &[], &srcs, &mods, None)
    }

    /// The global address operand of a copy of `bytes` bytes with src-size `n`, and the
    /// predicate `n != 0`: `[global + ((bytes - n) & (bytes - 1))]`.
    fn zero_filled(&mut self, global: Value, n: Value, bytes: u32) -> Result<(MOp, MOp), IselError> {
        let left = self.emit_temp(
            Op::Iadd3,
            &[(Role::A, Arg::neg(n)), (Role::B, Arg::imm(bytes)), (Role::C, Arg::rz())],
            &[],
        )?;
        let fill = self.lop3_temp(Arg::op(left), Arg::imm(bytes - 1), Arg::rz(), 0xc0)?;
        let (base, k) = self
            .decompose_within(global, 0, Space::Global, GLOBAL_OFFSETS)
            .ok_or_else(|| self.unsupported("an asynchronous copy's global address"))?;
        let base = match base {
            super::address::Base::Value(v) if self.func.ty(v) == ptxc_mir::ir::Type::I64 => MOp::Reg(self.reg(v)),
            _ => return Err(self.unsupported("an asynchronous copy from a global address not in a 64-bit register")),
        };
        let fill64 = self.vcode.new_vreg(VClass::Pair);
        self.push(MInst::new(MKind::Wide {
            op: WideOp::Pack,
            d: fill64,
            srcs: smallvec![fill, MOp::Fixed(V::Reg(ptxc_sass::isa::RZ))],
            tmp: None,
        }));
        let addr = self.vcode.new_vreg(VClass::Pair);
        self.wide(WideOp::Add, addr, &[base, MOp::Reg(fill64)], true);
        let p = self.vcode.new_vreg(VClass::Pred);
        let srcs = [
            (Role::A, Arg::v(n)),
            (Role::B, Arg::rz()),
            (Role::PredSrc0, Arg::pt(false)),
        ];
        let pd = [
            (Role::PredDst0, MOp::Pred(p, false)),
            (Role::PredDst1, MOp::Fixed(V::Pred { idx: 7, neg: false })),
        ];
        self.emit_sass(
            Op::Isetp,
            &pd,
            &srcs,
            &[IntCmp::Ne.set(), Mod::Signed.flag(false), BoolOp::And.set()],
            None,
        )?;
        Ok((
            MOp::Mem {
                base: addr,
                offset: k as i32,
                uniform: None,
            },
            MOp::Pred(p, false),
        ))
    }
}
