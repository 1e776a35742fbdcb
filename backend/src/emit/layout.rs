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

/// The immediate of the `MOV` that sets the return address of a device function's call
/// until the layout writes the address of the instruction after the `CALL`.
pub const CALL_RETURN_PLACEHOLDER: u64 = 0xadd2;

/// Where the code being assembled sits in its kernel's text section: its own start and
/// the start of each of the kernel's device functions (`Emitted::callee` indexes them).
#[derive(Clone, Debug, Default)]
pub struct Placement {
    /// Byte offset of this code's first instruction.
    pub base: i64,
    /// Byte offset of each device function.
    pub functions: Vec<i64>,
}

/// Resolves branch targets to offsets and encodes every instruction, for code at the
/// start of its section that calls no device function.
pub fn assemble(blocks: &[CodeBlock]) -> Result<Assembled, EncodeError> {
    assemble_at(blocks, &Placement::default())
}

/// [`assemble`] for code placed at `at`: addresses (return addresses, the offsets `RET`
/// adds, the listed offsets) count from the section's start, and calls of device functions
/// reach them.
pub fn assemble_at(blocks: &[CodeBlock], at: &Placement) -> Result<Assembled, EncodeError> {
    let mut starts = Vec::with_capacity(blocks.len() + 1);
    let mut addr = at.base;
    for b in blocks {
        starts.push(addr);
        addr += 16 * b.insts.len() as i64;
    }
    starts.push(addr);
    let mut out = Assembled::default();
    let mut addr = at.base;
    for (b, block) in blocks.iter().enumerate() {
        for (k, e) in block.insts.iter().enumerate() {
            let mut inst = e.inst.clone();
            if let Some(t) = e.target {
                resolve(&mut inst, starts[t], addr);
            } else if inst.desc().op == Op::Ret {
                // A device function's return: through its register, from the kernel's start.
                resolve(&mut inst, 0, addr);
            }
            if let Some(f) = e.callee {
                let callee = at.functions.get(f as usize).copied().unwrap_or_default();
                resolve(&mut inst, callee, addr);
            }
            if let Some(o) = inst
                .operands
                .iter_mut()
                .find(|o| o.value == Value::Imm(CALL_RETURN_PLACEHOLDER))
            {
                let call = block.insts[k..].iter().position(|e| e.callee.is_some()).unwrap_or(0);
                o.value = Value::Imm((starts[b] + 16 * (k + call) as i64 + 16) as u64);
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

impl Assembled {
    /// Appends `other`, assembled to follow this code.
    pub fn append(&mut self, other: Assembled) {
        self.insts.extend(other.insts);
        self.code.extend(other.code);
        self.exit_offsets.extend(other.exit_offsets);
        self.srclocs.extend(other.srclocs);
        self.warp_wide_offsets.extend(other.warp_wide_offsets);
    }
}
