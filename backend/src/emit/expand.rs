//! Expansion of one allocated VCode instruction (or one regalloc2 move) into SASS.

use super::{EmitError, Emitted, Locations};
use crate::regalloc::Regions;
use crate::vcode::{MInst, MKind, MOp, Slot, VCode, VReg};
use ptxc_sass::isa::ModSet;
use ptxc_sass::isa::make::make;
use ptxc_sass::isa::values::{BptMode, BranchKind, MemSize};
use ptxc_sass::isa::{Inst, Mod, Op, Operand, PT, RZ, Role, Value as V};
use regalloc2 as ra;

/// Expands instructions into `out`.
pub struct Expander<'a> {
    /// The function.
    pub vcode: &'a VCode,
    /// Register regions of the allocation.
    pub regions: Regions,
    /// Instructions of the current block.
    pub out: Vec<Emitted>,
    /// The stack frame.
    pub frame: crate::regalloc::Frame,
    /// Bytes stored and loaded by spill code so far.
    pub spill_bytes: (u32, u32),
}

impl Expander<'_> {
    pub(super) fn err(&self, what: impl Into<String>) -> EmitError {
        EmitError {
            kernel: self.vcode.name.clone(),
            what: what.into(),
        }
    }

    pub(super) fn push(&mut self, inst: Inst) {
        self.out.push(Emitted::new(inst));
    }

    pub(super) fn make(&self, op: Op, ops: &[(Role, Operand)], mods: &[ModSet]) -> Result<Inst, EmitError> {
        make(self.vcode.arch, op, ops, mods).map_err(|e| self.err(e.to_string()))
    }

    /// The SASS register of an allocation.
    pub(super) fn phys(&self, a: ra::Allocation) -> Result<u8, EmitError> {
        let r = a.as_reg().ok_or_else(|| self.err("a spilled value"))?;
        Ok(self.regions.sass_reg(r))
    }

    pub(super) fn pred_index(&self, a: ra::Allocation) -> Result<u8, EmitError> {
        self.register_number(a, "a spilled predicate")
    }

    /// The uniform register of an allocation.
    pub(super) fn uniform_index(&self, a: ra::Allocation) -> Result<u8, EmitError> {
        self.register_number(a, "a spilled uniform register")
    }

    /// The number of a predicate or uniform register (regalloc2's register index), or
    /// the error `spilled` where the allocation is a stack slot.
    fn register_number(&self, a: ra::Allocation, spilled: &str) -> Result<u8, EmitError> {
        let r = a.as_reg().ok_or_else(|| self.err(spilled))?;
        Ok(r.hw_enc() as u8)
    }

    pub(super) fn loc(&self, locs: &Locations, v: VReg) -> Result<ra::Allocation, EmitError> {
        locs.get(&v)
            .copied()
            .ok_or_else(|| self.err(format!("v{} has no allocation here", v.0)))
    }

    /// The physical value of an operand.
    pub(super) fn value(&self, op: MOp, locs: &Locations) -> Result<V, EmitError> {
        let fixed = |v: VReg| self.vcode.fixed_reg(v);
        Ok(match op {
            MOp::Reg(v) if fixed(v).is_some() => V::Reg(fixed(v).unwrap_or_default()),
            MOp::Sub(v, i) if fixed(v).is_some() => V::Reg(fixed(v).unwrap_or_default() + i),
            MOp::Reg(v) if self.vcode.class(v) == crate::vcode::VClass::Pred => V::Pred {
                idx: self.pred_index(self.loc(locs, v)?)?,
                neg: false,
            },
            MOp::Reg(v) if self.vcode.class(v) == crate::vcode::VClass::Uniform => {
                V::UReg(self.uniform_index(self.loc(locs, v)?)?)
            }
            MOp::Reg(v) if self.vcode.class(v) == crate::vcode::VClass::UniformPair => {
                V::UReg(self.uniform_index(self.loc(locs, v)?)?)
            }
            MOp::Reg(v) => V::Reg(self.phys(self.loc(locs, v)?)?),
            MOp::Sub(v, i) => V::Reg(self.phys(self.loc(locs, v)?)? + i),
            MOp::Pred(v, neg) => V::Pred {
                idx: self.pred_index(self.loc(locs, v)?)?,
                neg,
            },
            MOp::CMem { bank, base, offset } => V::CBank {
                bank,
                offset,
                reg: Some(self.phys(self.loc(locs, base)?)?),
            },
            MOp::Mem { base, offset, uniform } => V::Mem {
                base: self.phys(self.loc(locs, base)?)?,
                uniform,
                offset,
                scale: 0,
            },
            MOp::UMem {
                base,
                ubase,
                offset,
                scale,
            } => V::Mem {
                base: self.phys(self.loc(locs, base)?)?,
                uniform: Some(self.uniform_index(self.loc(locs, ubase)?)?),
                offset,
                scale,
            },
            MOp::UAddr { ubase, offset } => V::Mem {
                base: RZ,
                uniform: Some(self.uniform_index(self.loc(locs, ubase)?)?),
                offset,
                scale: 0,
            },
            MOp::Sp => V::Reg(self.stack_pointer()?),
            MOp::SpMem { offset } => V::Mem {
                base: self.stack_pointer()?,
                uniform: None,
                offset,
                scale: 0,
            },
            MOp::Fixed(v) => v,
        })
    }

    fn operand(&self, s: &Slot, locs: &Locations) -> Result<Operand, EmitError> {
        let mut o = Operand::new(self.value(s.op, locs)?);
        if let V::Pred { neg, .. } = &mut o.value {
            // A negated predicate source carries its negation in the value.
            *neg ^= s.mods.neg;
        } else {
            o.neg = s.mods.neg;
        }
        o.abs = s.mods.abs;
        o.swizzle = s.mods.swizzle;
        Ok(o)
    }

    /// Expands one VCode instruction of block `block`.
    pub fn inst(&mut self, inst: &MInst, locs: &Locations, block: usize) -> Result<(), EmitError> {
        let (guard, guard_neg) = match inst.guard {
            Some((g, neg)) => (self.pred_index(self.loc(locs, g)?)?, neg),
            None => (PT, false),
        };
        let _ = block;
        let start = self.out.len();
        match &inst.kind {
            MKind::Sass { op, slots, mods } => {
                let ops = slots
                    .iter()
                    .map(|s| Ok((s.role, self.operand(s, locs)?)))
                    .collect::<Result<Vec<_>, EmitError>>()?;
                let i = self.make(*op, &ops, mods)?;
                self.out.push(Emitted {
                    target: inst.target.map(|b| b.0 as usize),
                    ..Emitted::new(i)
                });
            }
            MKind::Wide { op, d, srcs, tmp } => self.wide(*op, *d, srcs, *tmp, locs)?,
            MKind::Jump(t) => self.branch(PT, false, t.0 as usize)?,
            MKind::CondJump {
                cond,
                neg,
                taken,
                not_taken,
                active_agree,
                ..
            } => {
                let p = self.pred_index(self.loc(locs, *cond)?)?;
                let kind = if *active_agree {
                    BranchKind::Uniform
                } else {
                    BranchKind::Plain
                };
                self.branch_of_kind(p, *neg, taken.0 as usize, kind)?;
                self.branch(PT, false, not_taken.0 as usize)?;
            }
            MKind::Exit => {
                let i = self.make(Op::Exit, &[], &[])?;
                self.push(i);
            }
            MKind::Trap => {
                let i = self.make(Op::Bpt, &[(Role::A, Operand::imm(1))], &[BptMode::Trap.set()])?;
                self.push(i);
            }
            MKind::Call { target, args, ret } => self.call(*target, args, *ret, locs)?,
            MKind::ArgArea(d) => self.arg_area(*d, locs)?,
            MKind::FuncReturn => self.function_return()?,
            MKind::SubCall(t) => self.sub_call(t.0 as usize)?,
            MKind::Return { to, n } => self.sub_return(*n, to.0 as usize)?,
            MKind::ReturnAddress { of, n } => self.slow_path_return_address(*n, of.0 as usize)?,
        }
        if guard != PT || guard_neg {
            for e in &mut self.out[start..] {
                e.inst.guard = guard;
                e.inst.guard_neg = guard_neg;
            }
        }
        Ok(())
    }

    /// Low and high 32-bit halves of a 64-bit operand.
    pub(super) fn halves(&self, op: MOp, locs: &Locations) -> Result<(V, V), EmitError> {
        Ok(match self.value(op, locs)? {
            V::Reg(r) if r == RZ => (V::Reg(RZ), V::Reg(RZ)),
            V::Reg(r) => (V::Reg(r), V::Reg(r + 1)),
            V::CBank { bank, offset, reg } => (
                V::CBank { bank, offset, reg },
                V::CBank {
                    bank,
                    offset: offset + 4,
                    reg,
                },
            ),
            V::Imm(bits) => (V::Imm(bits & 0xffff_ffff), V::Imm(bits >> 32)),
            other => return Err(self.err(format!("64-bit operand {other:?}"))),
        })
    }

    pub(super) fn mov(&mut self, d: u8, src: V) -> Result<(), EmitError> {
        if src == V::Reg(d) {
            return Ok(());
        }
        let i = self.make(
            Op::Mov,
            &[(Role::Dst, Operand::reg(d)), (Role::B, Operand::new(src))],
            &[],
        )?;
        self.push(i);
        Ok(())
    }

    /// `CALL.REL.NOINC` with its offset still 0 (the layout writes it).
    pub(super) fn call_rel(&self) -> Result<Inst, EmitError> {
        self.make(
            Op::Call,
            &[(Role::Target, Operand::new(V::Rel(0)))],
            &[Mod::NoInc.flag(true)],
        )
    }

    /// `CALL.REL.NOINC` of the slow path starting at block `target`.
    fn sub_call(&mut self, target: usize) -> Result<(), EmitError> {
        let i = self.call_rel()?;
        self.out.push(Emitted {
            target: Some(target),
            ..Emitted::new(i)
        });
        Ok(())
    }

    /// `RET.REL.NODEC Rr` of slow path `n` relative to the kernel's start, back to block `to`
    /// (whose address `Rr` holds; the layout keeps `to` as the instruction's target for the
    /// control-flow graph and writes the kernel's start in its offset). `Rr` is picked later.
    fn sub_return(&mut self, n: u16, to: usize) -> Result<(), EmitError> {
        let i = self.make(
            Op::Ret,
            &[(Role::A, Operand::reg(0)), (Role::Target, Operand::new(V::Rel(0)))],
            &[Mod::NoDec.flag(true)],
        )?;
        self.out.push(Emitted {
            target: Some(to),
            return_pair: Some((n, 0)),
            ..Emitted::new(i)
        });
        Ok(())
    }

    /// Slow path `n`'s return address: `MOV Rr, <address of block of>` (the layout writes the
    /// address) and `MOV Rr+1, 0`; `Rr` is picked later.
    fn slow_path_return_address(&mut self, n: u16, of: usize) -> Result<(), EmitError> {
        let word = |v: V| [(Role::Dst, Operand::reg(0)), (Role::B, Operand::new(v))];
        let low = self.make(Op::Mov, &word(V::Imm(super::layout::ADDRESS_PLACEHOLDER)), &[])?;
        let high = self.make(Op::Mov, &word(V::Imm(0)), &[])?;
        for (inst, target, k) in [(low, Some(of), 0), (high, None, 1)] {
            self.out.push(Emitted {
                target,
                return_pair: Some((n, k)),
                ..Emitted::new(inst)
            });
        }
        Ok(())
    }

    fn branch(&mut self, pred: u8, neg: bool, target: usize) -> Result<(), EmitError> {
        self.branch_of_kind(pred, neg, target, BranchKind::Plain)
    }

    /// A branch of `kind` (`BRA`, `BRA.U`) to block `target` under `pred`.
    fn branch_of_kind(&mut self, pred: u8, neg: bool, target: usize, kind: BranchKind) -> Result<(), EmitError> {
        let mut i = self.make(Op::Bra, &[(Role::Target, Operand::new(V::Rel(0)))], &[kind.set()])?;
        i.guard = pred;
        i.guard_neg = neg;
        self.out.push(Emitted {
            target: Some(target),
            ..Emitted::new(i)
        });
        Ok(())
    }

    /// A move between general registers of one class.
    pub fn gpr_move(&mut self, from: ra::Allocation, to: ra::Allocation) -> Result<(), EmitError> {
        match (from.as_reg(), to.as_reg(), from.as_stack(), to.as_stack()) {
            (Some(f), Some(t), ..) => {
                let (fr, tr) = (self.regions.sass_reg(f), self.regions.sass_reg(t));
                for k in 0..class_width(f.class()) {
                    self.mov(tr + k, V::Reg(fr + k))?;
                }
                Ok(())
            }
            (Some(f), None, None, Some(slot)) => self.spill(Op::Stl, self.regions.sass_reg(f), f.class(), slot),
            (None, Some(t), Some(slot), None) => self.spill(Op::Ldl, self.regions.sass_reg(t), t.class(), slot),
            _ => Err(self.err(format!("a move from {from} to {to}"))),
        }
    }

    /// The stack pointer register.
    pub(super) fn stack_pointer(&self) -> Result<u8, EmitError> {
        self.frame.sp.ok_or_else(|| self.err("a stack access without a frame"))
    }

    /// A spill store (STL) or reload (LDL) of register `r` of `class` to spill slot `slot`.
    fn spill(&mut self, op: Op, r: u8, class: ra::RegClass, slot: ra::SpillSlot) -> Result<(), EmitError> {
        let width = class_width(class);
        let size = match width {
            1 => MemSize::B32,
            2 => MemSize::B64,
            _ => MemSize::B128,
        };
        let offset = (self.frame.spill_base + 4 * slot.index() as u32) as i32;
        let addr = Operand::new(V::Mem {
            base: self.stack_pointer()?,
            uniform: None,
            offset,
            scale: 0,
        });
        let bytes = 4 * width as u32;
        let ops = if op == Op::Stl {
            self.spill_bytes.0 += bytes;
            vec![(Role::Addr, addr), (Role::Data, Operand::reg(r))]
        } else {
            self.spill_bytes.1 += bytes;
            vec![(Role::Dst, Operand::reg(r)), (Role::Addr, addr)]
        };
        let i = self.make(op, &ops, &[size.set()])?;
        self.push(i);
        Ok(())
    }

    /// The stack pointer's setup at the kernel's entry: the driver's stack top minus the frame
    /// (a device function's: `emit/function.rs`).
    pub fn prologue(&mut self) -> Result<(), EmitError> {
        let Some(sp) = self.frame.sp else {
            return Ok(());
        };
        if self.vcode.device_function {
            return self.function_prologue();
        }
        self.mov(
            sp,
            V::CBank {
                bank: 0,
                offset: 0x28,
                reg: None,
            },
        )?;
        let ops = [
            (Role::Dst, Operand::reg(sp)),
            (Role::A, Operand::reg(sp)),
            (
                Role::B,
                Operand::imm((self.frame.size as i32).wrapping_neg() as u32 as u64),
            ),
            (Role::C, Operand::reg(RZ)),
        ];
        let i = self.make(Op::Iadd3, &ops, &[])?;
        self.push(i);
        Ok(())
    }

    /// A move between predicates: `PLOP3.LUT Pt, PT, Pf, PT, PT, 0xf0, 0x0`.
    pub fn pred_move(&mut self, from: ra::Allocation, to: ra::Allocation) -> Result<(), EmitError> {
        let (f, t) = (self.pred_index(from)?, self.pred_index(to)?);
        if f == t {
            return Ok(());
        }
        let ops = [
            (Role::PredDst0, Operand::pred(t, false)),
            (Role::PredDst1, Operand::pred(PT, false)),
            (Role::PredSrc0, Operand::pred(f, false)),
            (Role::PredSrc1, Operand::pred(PT, false)),
            (Role::PredSrc2, Operand::pred(PT, false)),
            (Role::Other, Operand::imm(0xf0)),
            (Role::Aux, Operand::imm(0)),
        ];
        let i = self.make(Op::Plop3, &ops, &[])?;
        self.push(i);
        Ok(())
    }

    /// A move regalloc2 inserted between uniform registers (`UMOV`); uniform registers do
    /// not spill (the allocation fails instead, `regalloc::AllocError::UniformSpill`).
    pub fn uniform_move(&mut self, from: ra::Allocation, to: ra::Allocation) -> Result<(), EmitError> {
        let (f, t) = (self.uniform_index(from)?, self.uniform_index(to)?);
        if f == t {
            return Ok(());
        }
        let width = from.as_reg().map_or(1, |r| class_width(r.class()));
        // A pair moving one register up writes its high half first.
        let halves: &[u8] = if t > f { &[1, 0] } else { &[0, 1] };
        for &k in halves.iter().filter(|&&k| k < width) {
            let ops = [
                (Role::Dst, Operand::new(V::UReg(t + k))),
                (Role::B, Operand::new(V::UReg(f + k))),
            ];
            let i = self.make(Op::Umov, &ops, &[])?;
            self.push(i);
        }
        Ok(())
    }
}

/// Registers per value of a regalloc2 class.
fn class_width(c: ra::RegClass) -> u8 {
    match c {
        ra::RegClass::Int => 1,
        ra::RegClass::Float => 2,
        ra::RegClass::Vector => 4,
    }
}
