//! The thread's stack frame: the stack pointer, defined at the kernel's entry as the
//! driver's stack top (`c[0x0][0x28]`) minus the frame size, and the addresses of local
//! variables (the stack pointer plus their frame offsets).

use super::fit::Arg;
use super::{Isel, IselError};
use crate::isa::{Op, Role, Value as V};
use crate::vars::Place;
use crate::vcode::{MInst, MKind, MOp, VClass, VReg, WideOp};
use ptxc_mir::ir::Inst;
use smallvec::smallvec;

/// Offset of the stack top in constant bank 0.
const STACK_TOP: i32 = 0x28;

impl Isel<'_> {
    /// Code at the start of the entry block: the stack pointer, if there is a frame.
    pub fn prologue(&mut self) -> Result<(), IselError> {
        if self.vars.frame_size == 0 {
            return Ok(());
        }
        let top = self.vcode.new_vreg(VClass::Single);
        self.push(super::operand::mov(
            top,
            MOp::Fixed(V::CBank {
                bank: 0,
                offset: STACK_TOP,
                reg: None,
            }),
        ));
        let sp = self.vcode.new_vreg(VClass::Single);
        let frame = (self.vars.frame_size as i32).wrapping_neg() as u32;
        self.emit_sass(
            Op::Iadd3,
            &[(Role::Dst, MOp::Reg(sp))],
            &[
                (Role::A, Arg::op(MOp::Reg(top))),
                (Role::B, Arg::imm(frame)),
                (Role::C, Arg::rz()),
            ],
            &[],
            None,
        )?;
        self.sp = Some(sp);
        Ok(())
    }

    /// The stack pointer.
    pub fn stack_pointer(&self) -> Result<VReg, IselError> {
        self.sp
            .ok_or_else(|| self.unsupported("a local-memory access in a kernel without a stack frame"))
    }

    /// `addr` of a local variable: a 64-bit value, the stack pointer plus the variable's
    /// offset, zero-extended. (Other variables' addresses fold into their users.)
    pub fn lower_addr(&mut self, inst: Inst) -> Result<(), IselError> {
        let result = self.func.results[inst][0];
        let Some(Place::Local { offset }) = self.var_place(result) else {
            return Err(self.unsupported("the address of a variable without a place"));
        };
        let sp = self.stack_pointer()?;
        let lo = self.vcode.new_vreg(VClass::Single);
        self.emit_sass(
            Op::Iadd3,
            &[(Role::Dst, MOp::Reg(lo))],
            &[
                (Role::A, Arg::op(MOp::Reg(sp))),
                (Role::B, Arg::imm(offset)),
                (Role::C, Arg::rz()),
            ],
            &[],
            None,
        )?;
        let d = self.def_reg(result);
        self.push(MInst::new(MKind::Wide {
            op: WideOp::Pack,
            d,
            srcs: smallvec![MOp::Reg(lo), MOp::Fixed(V::Reg(crate::isa::RZ))],
            tmp: None,
        }));
        Ok(())
    }
}
