//! The return-address pairs of slow paths called as subroutines (`isel/subroutine.rs`): the
//! pair of slow path `n` is the `n`-th even-aligned pair above every register the allocated
//! code uses, so the allocation of the rest stays as it is; the recolouring that follows
//! (`regalloc/compact.rs`) moves the pairs down into registers the slow paths leave free
//! where there are such.

use super::CodeBlock;
use ptxc_sass::isa::{Role, Value};

/// The highest general register number an instruction may name (R255 is RZ).
const LAST_REGISTER: u32 = 254;

/// Names the return-address registers of the slow paths in `blocks`; false if they do not
/// fit below RZ.
pub fn assign_return_pairs(blocks: &mut [CodeBlock]) -> bool {
    let marked = blocks.iter().flat_map(|b| &b.insts).filter_map(|e| e.return_pair);
    let Some(last) = marked.map(|(n, _)| n as u32).max() else {
        return true;
    };
    let unmarked = blocks.iter().flat_map(|b| &b.insts).filter(|e| e.return_pair.is_none());
    let highest = super::highest_gpr(unmarked.map(|e| &e.inst));
    let base = highest.map_or(0, |h| (h + 2) & !1);
    if base + 2 * last + 1 > LAST_REGISTER {
        return false;
    }
    for e in blocks.iter_mut().flat_map(|b| &mut b.insts) {
        let Some((n, k)) = e.return_pair else {
            continue;
        };
        let role = if e.inst.desc().op == ptxc_sass::isa::Op::Ret {
            Role::A
        } else {
            Role::Dst
        };
        let i = e.inst.desc().operand_index(role).expect("a register operand");
        e.inst.operands[i].value = Value::Reg((base + 2 * n as u32 + k as u32) as u8);
    }
    true
}
