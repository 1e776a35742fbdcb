//! Final layout: instruction addresses, branch offsets, and the encoded bytes.

use super::CodeBlock;
use ptxc_sass::isa::{EncodeError, Op, Value, encode};

/// The encoded code of one kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Assembled {
    /// The instructions (with resolved branch offsets), in address order.
    pub insts: Vec<ptxc_sass::isa::Inst>,
    /// The encoded bytes (16 per instruction, no padding).
    pub code: Vec<u8>,
    /// Byte offsets of every EXIT.
    pub exit_offsets: Vec<u32>,
    /// The PTX position of each instruction (for line tables), if known.
    pub srclocs: Vec<ptxc_mir::ir::SrcLoc>,
    /// Byte offsets of the warp-wide instructions the compiler inserted
    /// (`EIATTR_INT_WARP_WIDE_INSTR_OFFSETS`).
    pub warp_wide_offsets: Vec<u32>,
}

/// The immediate a return address's `MOV` holds until the layout writes the address
/// (nonzero: no pass takes the `MOV` for a zeroing).
pub const ADDRESS_PLACEHOLDER: u64 = 0xadd0;

/// Writes the address of the block at `target` into `inst` at `addr`: a branch's or call's
/// offset to it; for a `RET`, which returns where its register says, the offset to the
/// kernel's start; in any other instruction (a return address's `MOV`, or the `IMAD.MOV`
/// pipe balancing made of it) the block's address itself, in place of
/// [`ADDRESS_PLACEHOLDER`].
fn resolve(inst: &mut ptxc_sass::isa::Inst, target: i64, addr: i64) {
    use ptxc_sass::isa::Role;
    let at = |inst: &ptxc_sass::isa::Inst, role| inst.desc().operand_index(role);
    let (i, value) = match inst.desc().op {
        Op::Ret => (at(inst, Role::Target), Value::Rel(-(addr + 16))),
        _ if at(inst, Role::Target).is_some() => (at(inst, Role::Target), Value::Rel(target - (addr + 16))),
        _ => (
            inst.operands
                .iter()
                .position(|o| o.value == Value::Imm(ADDRESS_PLACEHOLDER)),
            Value::Imm(target as u64),
        ),
    };
    let i = i.expect("the operand the target goes to");
    inst.operands[i].value = value;
}

/// Resolves branch targets to offsets and encodes every instruction.
pub fn assemble(blocks: &[CodeBlock]) -> Result<Assembled, EncodeError> {
    let mut starts = Vec::with_capacity(blocks.len() + 1);
    let mut addr = 0i64;
    for b in blocks {
        starts.push(addr);
        addr += 16 * b.insts.len() as i64;
    }
    starts.push(addr);
    let mut out = Assembled::default();
    let mut addr = 0i64;
    for b in blocks {
        for e in &b.insts {
            let mut inst = e.inst.clone();
            if let Some(t) = e.target {
                resolve(&mut inst, starts[t], addr);
            }
            if inst.desc().op == Op::Exit {
                out.exit_offsets.push(addr as u32);
            }
            if e.warp_wide {
                out.warp_wide_offsets.push(addr as u32);
            }
            out.code.extend_from_slice(&encode(&inst)?.to_le_bytes());
            out.insts.push(inst);
            out.srclocs.push(e.srcloc);
            addr += 16;
        }
    }
    Ok(out)
}
