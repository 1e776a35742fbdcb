//! Generic addressing: shared, local and constant addresses become generic ones by adding
//! the base of their window in the generic address space (`c[0x0][0x18]` shared,
//! `c[0x0][0x20]` local, `c[0x0][0x50]` the copy of constant bank 3 in global memory, 64 bits
//! each, as the driver sets them; ptxas reads `c[0x0][0x50]` for `cvta.const`) and back by
//! subtracting it; `isspacep` is QSPC. Global addresses are generic as they are.
//!
//! On Hopper `cvta.param` adds `c[0x0][0x198]`, the generic address of the kernel's
//! parameters, to a parameter's offset (ptxas 13.5's sm_90a SASS).
//!
//! Hopper moves the constant window to `c[0x0][0xd0]` and takes the shared window's high
//! word from `SR_SWINHI` (`Arch::shared_window_in_sreg`): a shared address `a` is generic as
//! `{a, SR_SWINHI}` and a generic one is shared as its low word, as ptxas 13.5 writes
//! `cvta.shared` and `cvta.to.shared` for sm_90. The MIR puts the CTA's rank in its cluster
//! into bits 24..31 of the shared addresses it takes as values (`SR_CgaCtaId`, as ptxas
//! does), so the low word of a generic shared address names the CTA too.
//!
//! A `.shared::cluster` access (sm_90) is a generic one at `{a, SR_SWINHI}` (LD, ST, ATOM),
//! as ptxas 13.5 writes it, and `isspacep.shared::cluster` is `QSPC.E.D`.

use super::address::Base;
use super::fit::Arg;
use super::{Isel, IselError};
use crate::vcode::{MOp, VClass, WideOp};
use ptxc_mir::ir::{Aux, Inst, Opcode, Space, Type, Value};
use ptxc_sass::isa::values::QspcSpace;
use ptxc_sass::isa::{Arch, Mod};
use ptxc_sass::isa::{Op, RZ, Role, Value as V};

/// The constant-bank-0 offset of a space's generic window base on `arch`.
fn window(space: Space, arch: Arch) -> Option<i32> {
    match space {
        Space::Shared => Some(0x18),
        Space::Local => Some(0x20),
        Space::Const => Some(arch.const_window() as i32),
        // Hopper: the kernel parameters' generic address (`cvta.param`, ptxas's TMA maps).
        Space::Param => arch.param_window().map(|w| w as i32),
        _ => None,
    }
}

/// `SR_SWINHI`: the high word of the shared window.
const SR_SWINHI: u8 = 0x2f;

/// QSPC's space code.
fn qspc_space(space: Space) -> Option<QspcSpace> {
    match space {
        Space::Global => Some(QspcSpace::Global),
        Space::Local => Some(QspcSpace::Local),
        Space::Shared => Some(QspcSpace::Shared),
        Space::SharedCluster => Some(QspcSpace::Cluster),
        _ => None,
    }
}

impl Isel<'_> {
    fn space_of(&self, inst: Inst) -> Result<Space, IselError> {
        match self.func.insts[inst].aux {
            Aux::Space(s) => Ok(s),
            _ => Err(self.unsupported("an address-space instruction without a space")),
        }
    }

    /// `to_generic` / `from_generic`: add or subtract the window base.
    pub(super) fn lower_generic_conversion(&mut self, inst: Inst) -> Result<(), IselError> {
        let space = self.space_of(inst)?;
        let data = &self.func.insts[inst];
        let (a, ty, to) = (data.args[0], data.ty, data.op == Opcode::ToGeneric);
        let shared = matches!(space, Space::Shared | Space::SharedCluster);
        if shared && self.vcode.arch.shared_window_in_sreg() {
            return self.lower_shared_window_sreg(inst, a, ty, to);
        }
        let offset = window(space, self.vcode.arch)
            .ok_or_else(|| self.unsupported(format!("generic addresses of {}-space", space.name())))?;
        let base = MOp::Fixed(V::CBank {
            bank: 0,
            offset,
            reg: None,
        });
        let d = self.def_reg(self.func.results[inst][0]);
        if ty == Type::I64 {
            let src = MOp::Reg(self.reg(a));
            let op = if to { WideOp::Add } else { WideOp::Sub };
            self.wide(op, d, &[src, base], true);
            return Ok(());
        }
        let b = if to {
            Arg::op(base)
        } else {
            Arg::Op(
                base,
                crate::vcode::SrcMods {
                    neg: true,
                    ..Default::default()
                },
            )
        };
        let a = MOp::Reg(self.reg(a));
        self.emit_sass(
            Op::Iadd3,
            &[(Role::Dst, MOp::Reg(d))],
            &[(Role::A, Arg::op(a)), (Role::B, b), (Role::C, Arg::rz())],
            &[],
            None,
        )
    }

    /// The address operand of an access to `addr + offset` in `space`: for the cluster's
    /// shared memory, the generic address `[{a, SR_SWINHI} + offset]`.
    pub(super) fn access_operand(&mut self, addr: Value, offset: i64, space: Space) -> Result<MOp, IselError> {
        if space != Space::SharedCluster {
            return self.mem_operand(addr, offset, space);
        }
        let (base, k) = self
            .decompose(addr, offset, space)
            .ok_or_else(|| self.unsupported(format!("address offset {offset} in shared::cluster accesses")))?;
        let pair = match base {
            Base::Value(v) => match self.cluster_pairs.get(&v) {
                Some(&pair) => pair,
                None => {
                    let r = self.reg(v);
                    let lo = if self.func.ty(v) == Type::I64 {
                        MOp::Sub(r, 0)
                    } else {
                        MOp::Reg(r)
                    };
                    let pair = self.window_pair(lo)?;
                    self.cluster_pairs.insert(v, pair);
                    pair
                }
            },
            Base::Zero => self.window_pair(MOp::Fixed(V::Reg(RZ)))?,
            Base::Sp => return Err(self.unsupported("a shared::cluster address on the stack")),
        };
        Ok(MOp::Mem {
            base: pair,
            offset: k as i32,
            uniform: None,
        })
    }

    /// The pair `{lo, SR_SWINHI}`: a shared address in the generic window.
    fn window_pair(&mut self, lo: MOp) -> Result<crate::vcode::VReg, IselError> {
        let hi = self.shared_window_high()?;
        let pair = self.vcode.new_vreg(VClass::Pair);
        self.push(crate::vcode::MInst::new(crate::vcode::MKind::Wide {
            op: WideOp::Pack,
            d: pair,
            srcs: smallvec::smallvec![lo, hi],
            tmp: None,
        }));
        Ok(pair)
    }

    /// `S2R R, SR_SWINHI`: the high word of the shared window (read once per block).
    fn shared_window_high(&mut self) -> Result<MOp, IselError> {
        if let Some(hi) = self.swinhi {
            return Ok(MOp::Reg(hi));
        }
        let hi = self.vcode.new_vreg(VClass::Single);
        self.swinhi = Some(hi);
        let sreg = Arg::op(MOp::Fixed(V::SReg(SR_SWINHI)));
        self.emit_sass(Op::S2r, &[(Role::Dst, MOp::Reg(hi))], &[(Role::A, sreg)], &[], None)?;
        Ok(MOp::Reg(hi))
    }

    /// Hopper's shared window: to generic `{lo(a), SR_SWINHI}`, from generic `{lo(a), 0}`
    /// (32-bit results keep the low word).
    fn lower_shared_window_sreg(&mut self, inst: Inst, a: Value, ty: Type, to: bool) -> Result<(), IselError> {
        let src = self.reg(a);
        let lo = if self.func.ty(a) == Type::I64 {
            MOp::Sub(src, 0)
        } else {
            MOp::Reg(src)
        };
        let result = self.func.results[inst][0];
        if ty != Type::I64 {
            return self.bind(result, lo);
        }
        let hi = if to {
            self.shared_window_high()?
        } else {
            MOp::Fixed(V::Reg(RZ))
        };
        let d = self.def_reg(result);
        self.push(crate::vcode::MInst::new(crate::vcode::MKind::Wide {
            op: WideOp::Pack,
            d,
            srcs: smallvec::smallvec![lo, hi],
            tmp: None,
        }));
        Ok(())
    }

    /// `is_space`: `QSPC.E.<space> P, RZ, [a]`.
    pub(super) fn lower_is_space(&mut self, inst: Inst) -> Result<(), IselError> {
        let space = self.space_of(inst)?;
        let code = qspc_space(space).ok_or_else(|| self.unsupported(format!("isspacep.{}", space.name())))?;
        let a = self.func.insts[inst].args[0];
        if self.func.ty(a) != Type::I64 {
            return Err(self.unsupported("isspacep of a 32-bit address"));
        }
        let base = self.reg(a);
        let p = self.def_reg(self.func.results[inst][0]);
        debug_assert_eq!(self.vcode.class(p), VClass::Pred);
        self.emit_sass(
            Op::Qspc,
            &[
                (Role::PredDst0, MOp::Pred(p, false)),
                (Role::Dst, MOp::Fixed(V::Reg(RZ))),
            ],
            &[(
                Role::Addr,
                Arg::op(MOp::Mem {
                    base,
                    offset: 0,
                    uniform: None,
                }),
            )],
            &[Mod::E.flag(true), code.set()],
            None,
        )
    }
}
