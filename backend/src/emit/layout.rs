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
                let rel = starts[t] - (addr + 16);
                let i = inst
                    .desc()
                    .operand_index(ptxc_sass::isa::Role::Target)
                    .expect("branch has a target");
                inst.operands[i].value = Value::Rel(rel);
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
