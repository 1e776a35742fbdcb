//! Calls of the functions the driver provides (`call_driver`): one [`MKind::Call`] with
//! the arguments in registers; the ABI moves happen at emission (`emit/call.rs`).

use super::{Isel, IselError};
use crate::vcode::{MInst, MKind};
use ptxc_mir::ir::{Aux, DriverFn, Inst};

impl Isel<'_> {
    /// `call_driver`: the arguments' registers and the result's.
    pub fn lower_call_driver(&mut self, inst: Inst) -> Result<(), IselError> {
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
        self.push(MInst::new(MKind::Call { f, slot, args, ret }));
        Ok(())
    }
}
