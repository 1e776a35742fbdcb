//! `.L2::cache_hint`: the 64-bit L2 cache policy of a load, store or asynchronous copy goes
//! into the uniform register pair UR4:UR5, which the access names as its memory descriptor
//! (`LDG.E R0, desc[UR4][R2.64]`: `Mod::Desc` and `Mod::PolicyDesc`), as ptxas 13.5 writes
//! it on sm_80, sm_86 and sm_89. The pair is filled as ptxas fills it: `ULDC.64 UR4,
//! c[0x0][k]` for a kernel parameter, `UMOV UR4, lo; UMOV UR5, hi` for a constant (a
//! `createpolicy.fractional` with constant operands), and `R2UR` of each half of the
//! register pair otherwise. R2UR reads one active thread's register: a policy that differs
//! between the threads of a warp (which PTX programs get only by computing it per thread)
//! is taken from one of them, which changes no value (the policy is a hint to the L2
//! cache). ptxc allocates no uniform registers: UR4 is fixed (REDUX uses it too), and the
//! pre-RA scheduler keeps every instruction naming it in order.

use super::fit::Arg;
use super::{Isel, IselError};
use crate::vcode::{MOp, SrcMods};
use ptxc_mir::ir::Value;
use ptxc_sass::isa::values::MemSize;
use ptxc_sass::isa::{Mod, ModSet, Op, Role, Value as V};

impl Isel<'_> {
    /// Moves `policy` into UR4:UR5, makes `addr` name the pair as its memory descriptor and
    /// adds the descriptor modifiers to `mods`. The address operand is 64 bits wide (`.64`).
    pub(super) fn policy_descriptor(
        &mut self,
        policy: Value,
        addr: MOp,
        mods: &mut Vec<ModSet>,
    ) -> Result<Arg, IselError> {
        self.uniform_pair(policy, 0)?;
        let addr = match addr {
            MOp::Mem { base, offset, .. } => MOp::Mem {
                base,
                offset,
                uniform: Some(super::FIXED_UR),
            },
            MOp::Fixed(V::Mem {
                base, offset, scale, ..
            }) => MOp::Fixed(V::Mem {
                base,
                uniform: Some(super::FIXED_UR),
                offset,
                scale,
            }),
            other => return Err(self.unsupported(format!("a cache policy on the address {other:?}"))),
        };
        mods.extend([Mod::Desc.flag(true), Mod::PolicyDesc.flag(true)]);
        let wide = SrcMods {
            swizzle: 1,
            ..SrcMods::default()
        };
        Ok(Arg::Op(addr, wide))
    }

    /// `ULDC.64`, two `UMOV`s or two `R2UR`s of the 64-bit `value` into UR(4 + k),
    /// UR(5 + k) (the cache policy's pair, k = 0; HGMMA's matrix descriptors, k = 0 and 2).
    pub(super) fn uniform_pair(&mut self, value: Value, k: u8) -> Result<(), IselError> {
        let ur = |h: u8| MOp::Fixed(V::UReg(super::FIXED_UR + k + h));
        if let Some(bank @ V::CBank { .. }) = self.foldable64(value) {
            let srcs = [(Role::B, Arg::op(MOp::Fixed(bank)))];
            return self.emit_sass(Op::Uldc, &[(Role::Dst, ur(0))], &srcs, &[MemSize::B64.set()], None);
        }
        if let Some(V::Imm(bits)) = self.const64(value) {
            for h in 0..2u8 {
                let half = (bits >> (32 * h)) as u32;
                self.emit_sass(Op::Umov, &[(Role::Dst, ur(h))], &[(Role::B, Arg::imm(half))], &[], None)?;
            }
            return Ok(());
        }
        let r = self.reg(value);
        for h in 0..2u8 {
            let srcs = [(Role::A, Arg::op(MOp::Sub(r, h)))];
            self.emit_sass(Op::R2ur, &[(Role::Dst, ur(h))], &srcs, &[], None)?;
        }
        Ok(())
    }
}
