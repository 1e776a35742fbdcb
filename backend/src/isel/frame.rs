//! Addresses of local variables: the stack pointer (a register the emitter reserves and sets
//! at the kernel's entry) plus their frame offsets, zero-extended to 64 bits.

use super::fit::Arg;
use super::{Isel, IselError};
use crate::vars::Place;
use crate::vcode::{MInst, MKind, MOp, VClass, WideOp};
use ptxc_mir::ir::Inst;
use ptxc_sass::isa::{Op, Role, Value as V};
use smallvec::smallvec;

impl Isel<'_> {
    /// `addr` of a local variable: a 64-bit value, the stack pointer plus the variable's
    /// offset. (Other variables' addresses fold into their users.)
    pub fn lower_addr(&mut self, inst: Inst) -> Result<(), IselError> {
        let result = self.func.results[inst][0];
        let Some(Place::Local { offset }) = self.var_place(result) else {
            return Err(self.unsupported("the address of a variable without a place"));
        };
        let lo = self.vcode.new_vreg(VClass::Single);
        self.emit_sass(
            Op::Iadd3,
            &[(Role::Dst, MOp::Reg(lo))],
            &[
                (Role::A, Arg::op(MOp::Sp)),
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
            srcs: smallvec![MOp::Reg(lo), MOp::Fixed(V::Reg(ptxc_sass::isa::RZ))],
            tmp: None,
        }));
        Ok(())
    }
}
