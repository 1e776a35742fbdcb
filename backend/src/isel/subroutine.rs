//! Slow paths as subroutines, as ptxas calls its own (`__cuda_sm3x_div_rn_ftz_f32_slowpath`
//! and the like; `docs/CUBIN.md`, section 4): the block that calls a slow path
//! ([`crate::legalize::Subroutine`]) sets the return address, the address of the block the
//! slow path returns to, in a register pair (`MOV Rr, <address>`, `MOV Rr+1, 0`) and calls
//! the slow path's first block (`CALL.REL.NOINC`); the slow path's end returns through the
//! pair (`RET.REL.NODEC Rr`, relative to the kernel's start) instead of jumping. For the
//! register allocator the call is a jump to the slow path and the return a jump back, so
//! every value lives across the call as across a branch; the return-address pair is picked
//! after allocation (`emit/subroutine.rs`), leaving the allocation of the rest as it is. A `CALL.REL` makes ptxas write
//! `EIATTR_CRS_STACK_SIZE`, and so it does ptxc.

use super::Isel;
use crate::vcode::{BlockId, MInst, MKind};
use ptxc_mir::ir::Block;

impl Isel<'_> {
    /// The slow path `b` calls, if `b` is a call block: the block it returns to.
    pub(super) fn called_from(&self, b: Block) -> Option<Block> {
        self.subroutines.iter().find(|s| s.call == b).map(|s| s.merge)
    }

    /// Whether a jump to `b` is a slow path's return.
    pub(super) fn returns_to(&self, b: Block) -> bool {
        self.subroutines.iter().any(|s| s.merge == b)
    }

    /// The number of the slow path returning to `merge`.
    fn number(&self, merge: Block) -> u16 {
        self.subroutines.iter().position(|s| s.merge == merge).unwrap_or(0) as u16
    }

    /// Ends a call block: the return address of the slow path returning to `merge` (vcode
    /// block `back`), then the call of the slow path at vcode block `entry`.
    pub(super) fn call_slow_path(&mut self, merge: Block, back: BlockId, entry: BlockId) {
        let n = self.number(merge);
        self.push(MInst::new(MKind::ReturnAddress { of: back, n }));
        self.push(MInst::new(MKind::SubCall(entry)));
    }

    /// Ends a slow path: the return to `merge` (vcode block `back`).
    pub(super) fn return_from_slow_path(&mut self, merge: Block, back: BlockId) {
        let n = self.number(merge);
        self.push(MInst::new(MKind::Return { to: back, n }));
    }
}
