//! Calls: of the functions the driver provides (`call_driver`) and of the kernel's device
//! functions (`call_func`), each one [`MKind::Call`] with the arguments in registers (the ABI
//! moves happen at emission, `emit/call.rs`), and a device function's own end: the address
//! of its argument area (`arg_area`) and its `return`.

use super::{Isel, IselError};
use crate::vcode::{CallTarget, MInst, MKind, VClass};
use ptxc_mir::ir::{Aux, DriverFn, Inst, Opcode};

impl Isel<'_> {
    /// `call_driver`, `call_func` or `arg_area`.
    pub fn lower_call(&mut self, inst: Inst) -> Result<(), IselError> {
        match self.func.insts[inst].op {
            Opcode::CallFunc => self.lower_call_func(inst),
            Opcode::ArgArea => self.lower_arg_area(inst),
            _ => self.lower_call_driver(inst),
        }
    }

    /// `call_driver`: the arguments' registers and the result's.
    fn lower_call_driver(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let f = match data.aux {
            Aux::Imm(i) => DriverFn::from_index(i),
            _ => None,
        }
        .ok_or_else(|| self.unsupported("a call of an unknown driver function"))?;
        let slot = self
            .vars
            .driver_slot(f)
            .ok_or_else(|| self.unsupported(format!("`{}` has no address slot", f.name())))?;
        let args = data.args.clone();
        let args = args.iter().map(|&a| self.reg(a)).collect();
        let ret = self.def_reg(self.func.results[inst][0]);
        self.push(MInst::new(MKind::Call {
            target: CallTarget::Driver { f, slot },
            args,
            ret,
        }));
        Ok(())
    }

    /// `call_func`: the argument area's address, and no result.
    fn lower_call_func(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let Aux::Imm(n) = data.aux else {
            return Err(self.unsupported("a call of an unknown device function"));
        };
        let area = self.reg(data.args[0]);
        let ret = self.vcode.new_vreg(VClass::Single);
        self.push(MInst::new(MKind::Call {
            target: CallTarget::Function(n as u32),
            args: smallvec::smallvec![area],
            ret,
        }));
        Ok(())
    }

    /// `arg_area`: the pair the prologue kept.
    fn lower_arg_area(&mut self, inst: Inst) -> Result<(), IselError> {
        if !self.vcode.device_function {
            return Err(self.unsupported("`arg_area` outside a device function"));
        }
        let d = self.def_reg(self.func.results[inst][0]);
        self.push(MInst::new(MKind::ArgArea(d)));
        Ok(())
    }
}
