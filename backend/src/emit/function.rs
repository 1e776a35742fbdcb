//! A device function's own code (`emit/call.rs` has the call): its prologue, the address
//! of the caller's argument area, and its return.
//!
//! The caller (`emit/call.rs`) leaves its stack pointer in `R1`, the argument area's
//! local address in `R0` and the return address, an offset from the kernel's start, in
//! `R2:R3` (as ptxas passes it, in a low pair). The prologue sets the function's stack
//! pointer (above `R3`) below the caller's frame (`R1` minus the frame) and keeps `R2:R3`
//! and `R0` in the frame's link area
//! (`Frame::link`), so the allocator may use every register; the return loads the return
//! address back, restores `R1` and returns (`RET.REL.NODEC`, relative to the kernel's
//! start).

use super::expand::Expander;
use super::{EmitError, Locations};
use crate::vcode::VReg;
use ptxc_sass::isa::{Mod, Op, Operand, RZ, Role, Value as V};

/// The stack pointer of the ABI.
const ABI_SP: u8 = 1;
/// The register that holds the argument area's local address on entry.
const ARG_AREA: u8 = super::call::FUNCTION_ARG_AREA;
/// The return address pair.
const RETURN_ADDRESS: u8 = super::call::FUNCTION_RETURN_ADDRESS;

impl Expander<'_> {
    /// `IADD3 SP, R1, -frame, RZ`, then the return address and the argument area's address
    /// into the link area.
    pub(super) fn function_prologue(&mut self) -> Result<(), EmitError> {
        let sp = self.stack_pointer()?;
        self.add_to(sp, ABI_SP, (self.frame.size as i32).wrapping_neg())?;
        let link = self.frame.link;
        self.frame_access(Op::Stl, RETURN_ADDRESS, 2, link)?;
        self.frame_access(Op::Stl, ARG_AREA, 1, link + 8)
    }

    /// `arg_area`: the pair `d` (a local address, zero-extended) from the link area.
    pub(super) fn arg_area(&mut self, d: VReg, locs: &Locations) -> Result<(), EmitError> {
        let r = self.phys(self.loc(locs, d)?)?;
        self.frame_access(Op::Ldl, r, 1, self.frame.link + 8)?;
        self.mov(r + 1, V::Reg(RZ))
    }

    /// The return: the return address from the link area, `R1` back to the caller's stack
    /// pointer, `RET.REL.NODEC`.
    pub(super) fn function_return(&mut self) -> Result<(), EmitError> {
        let sp = self.stack_pointer()?;
        self.frame_access(Op::Ldl, RETURN_ADDRESS, 2, self.frame.link)?;
        self.add_to(ABI_SP, sp, self.frame.size as i32)?;
        let ret = self.make(
            Op::Ret,
            &[
                (Role::A, Operand::reg(RETURN_ADDRESS)),
                (Role::Target, Operand::new(V::Rel(0))),
            ],
            &[Mod::NoDec.flag(true)],
        )?;
        self.push(ret);
        Ok(())
    }

    /// `IADD3 d, a, k, RZ`.
    fn add_to(&mut self, d: u8, a: u8, k: i32) -> Result<(), EmitError> {
        let ops = [
            (Role::Dst, Operand::reg(d)),
            (Role::A, Operand::reg(a)),
            (Role::B, Operand::imm(k as u32 as u64)),
            (Role::C, Operand::reg(RZ)),
        ];
        let i = self.make(Op::Iadd3, &ops, &[])?;
        self.push(i);
        Ok(())
    }
}
