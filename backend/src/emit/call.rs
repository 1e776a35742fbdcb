//! The ABI call of a driver function or device function (`MKind::Call`), as ptxas 13.5 calls `vprintf`,
//! `malloc`, `free` and `__assertfail` on sm_75 (`docs/CUBIN.md`, section 11): arguments in
//! `R4` and up (64-bit ones in the next even pair), the stack pointer in `R1`, the
//! function's address from its slot of constant bank 4 (an `R_CUDA_64` relocation), the
//! return address in `R20:R21` from `LEPC`, then `CALL.ABS.NOINC`; the result in `R4`
//! (`R4:R5`).
//!
//! ptxc does not keep values in callee-saved registers: every allocated register and the
//! predicates are stored to the frame's call save area before the call and loaded back
//! after it (all but the result's), so the call is correct whatever the callee clobbers
//! except `R1`, which the ABI preserves. The arguments are loaded from the save area into
//! their ABI registers, which makes the parallel move trivially correct. The distance
//! that `LEPC` adds is fixed after scheduling ([`fix_return_addresses`]).

use super::expand::Expander;
use super::layout::CALL_RETURN_PLACEHOLDER;
use super::{CodeBlock, EmitError, Emitted, Locations};
use crate::vcode::{CallTarget, VReg};
use ptxc_sass::isa::values::MemSize;
use ptxc_sass::isa::{Mod, Op, Operand, RZ, Role, Value as V};

/// First argument register of the ABI.
const FIRST_ARG: u8 = 4;
/// The return address pair of the ABI.
const RETURN_ADDRESS: u8 = 20;
/// The stack pointer of the ABI.
const ABI_SP: u8 = 1;
/// The pair that holds the callee's address.
const TARGET: u8 = 2;
/// Registers the call sequence itself uses (`R0`..`R21`): the stack pointer of a kernel
/// that calls lives above them.
pub const CALL_SEQUENCE_REGS: u32 = 22;
/// The return address pair of a device function's call (`emit/function.rs`).
pub const FUNCTION_RETURN_ADDRESS: u8 = 2;
/// The register that holds the argument area's local address at a device function's call.
pub const FUNCTION_ARG_AREA: u8 = 0;
/// Registers a device function's call uses (`R0`..`R3`: the argument area's address, the
/// stack pointer, the return address): the stack pointer of a kernel that calls only
/// device functions, and of a device function, lives above them.
pub const FUNCTION_CALL_REGS: u32 = 4;
/// All seven predicates, as a `P2R`/`R2P` mask.
const ALL_PREDICATES: u64 = 0x7f;

impl Expander<'_> {
    /// A load or store of `width` registers from `r` at `offset` in the frame.
    pub(super) fn frame_access(&mut self, op: Op, r: u8, width: u8, offset: u32) -> Result<(), EmitError> {
        let size = match width {
            1 => MemSize::B32,
            2 => MemSize::B64,
            _ => MemSize::B128,
        };
        let addr = Operand::new(V::Mem {
            base: self.stack_pointer()?,
            uniform: None,
            offset: offset as i32,
            scale: 0,
        });
        let ops = if op == Op::Stl {
            vec![(Role::Addr, addr), (Role::Data, Operand::reg(r))]
        } else {
            vec![(Role::Dst, Operand::reg(r)), (Role::Addr, addr)]
        };
        let i = self.make(op, &ops, &[size.set()])?;
        self.push(i);
        Ok(())
    }

    /// Stores (`STL`) or loads (`LDL`) the registers `regs` (ascending) at their save
    /// slots, four or two at a time where they are consecutive and aligned.
    fn save_or_restore(&mut self, op: Op, regs: &[u8]) -> Result<(), EmitError> {
        let base = self.frame.call_save;
        let mut k = 0;
        while k < regs.len() {
            let r = regs[k];
            let run = |w: usize| (r as usize).is_multiple_of(w) && regs.get(k + w - 1) == Some(&(r + w as u8 - 1));
            let w = if run(4) {
                4
            } else if run(2) {
                2
            } else {
                1
            };
            self.frame_access(op, r, w as u8, base + 4 * u32::from(r))?;
            k += w;
        }
        Ok(())
    }

    /// Expands a call of `target` with arguments `args` and result `ret`.
    pub fn call(&mut self, target: CallTarget, args: &[VReg], ret: VReg, locs: &Locations) -> Result<(), EmitError> {
        let sp = self.stack_pointer()?;
        let total = self.regions.total() as u8;
        let all: Vec<u8> = (0..total).collect();
        let save = self.frame.call_save;
        let pred_slot = save + 4 * u32::from(total);
        // Keep every register and the predicates.
        self.save_or_restore(Op::Stl, &all)?;
        self.p2r(0)?;
        self.frame_access(Op::Stl, 0, 1, pred_slot)?;
        // Arguments from their save slots into the ABI registers (a device function's one
        // argument, the argument area's local address, is 32 bits wide: into R0).
        let mut next = FIRST_ARG;
        for &a in args {
            let from = self.phys(self.loc(locs, a)?)?;
            if let CallTarget::Function(_) = target {
                self.frame_access(Op::Ldl, FUNCTION_ARG_AREA, 1, save + 4 * u32::from(from))?;
                continue;
            }
            let width = self.vcode.class(a).width();
            next = next.next_multiple_of(width);
            self.frame_access(Op::Ldl, next, width, save + 4 * u32::from(from))?;
            next += width;
        }
        self.mov(ABI_SP, V::Reg(sp))?;
        let has_result = match target {
            CallTarget::Driver { f, slot } => {
                self.call_driver(slot)?;
                f.sig().ret.is_some()
            }
            CallTarget::Function(n) => {
                self.call_function(n)?;
                false
            }
        };
        // After the call: the stack pointer from R1 (preserved by the callee), the result,
        // then everything else.
        self.mov(sp, V::Reg(ABI_SP))?;
        let mut keep: Vec<u8> = Vec::new();
        if has_result {
            let d = self.phys(self.loc(locs, ret)?)?;
            for k in 0..self.vcode.class(ret).width() {
                self.mov(d + k, V::Reg(FIRST_ARG + k))?;
                keep.push(d + k);
            }
        }
        let tmp = (0..4u8)
            .find(|r| !keep.contains(r))
            .expect("a result takes at most two registers");
        self.frame_access(Op::Ldl, tmp, 1, pred_slot)?;
        self.r2p(tmp)?;
        let restore: Vec<u8> = all.into_iter().filter(|r| !keep.contains(r)).collect();
        self.save_or_restore(Op::Ldl, &restore)?;
        Ok(())
    }

    /// The call of a driver function whose address is in bank-4 slot `slot`: the address,
    /// the return address from `LEPC`, `CALL.ABS.NOINC`.
    fn call_driver(&mut self, slot: u32) -> Result<(), EmitError> {
        for k in 0..2u8 {
            let half = V::CBank {
                bank: 4,
                offset: slot as i32 + 4 * i32::from(k),
                reg: None,
            };
            self.mov(TARGET + k, half)?;
        }
        self.return_address()?;
        let call = self.make(
            Op::Call,
            &[(Role::A, Operand::reg(TARGET)), (Role::Target, Operand::imm(0))],
            &[Mod::NoInc.flag(true)],
        )?;
        self.push(call);
        Ok(())
    }

    /// The call of device function `n`: the return address (the offset of the instruction
    /// after the `CALL` from the kernel's start, which the layout writes) in `R2:R3`,
    /// then `CALL.REL.NOINC` to the function (`emit/function.rs` has its side).
    fn call_function(&mut self, n: u32) -> Result<(), EmitError> {
        self.mov(FUNCTION_RETURN_ADDRESS, V::Imm(CALL_RETURN_PLACEHOLDER))?;
        self.mov(FUNCTION_RETURN_ADDRESS + 1, V::Reg(RZ))?;
        let call = self.call_rel()?;
        self.out.push(Emitted {
            callee: Some(n),
            ..Emitted::new(call)
        });
        Ok(())
    }

    /// `P2R Rd, PR, RZ, 0x7f`.
    fn p2r(&mut self, d: u8) -> Result<(), EmitError> {
        let ops = [
            (Role::Dst, Operand::reg(d)),
            (Role::A, Operand::reg(RZ)),
            (Role::B, Operand::imm(ALL_PREDICATES)),
        ];
        let i = self.make(Op::P2r, &ops, &[])?;
        self.push(i);
        Ok(())
    }

    /// `R2P PR, Ra, 0x7f`.
    fn r2p(&mut self, a: u8) -> Result<(), EmitError> {
        let ops = [(Role::A, Operand::reg(a)), (Role::B, Operand::imm(ALL_PREDICATES))];
        let i = self.make(Op::R2p, &ops, &[])?;
        self.push(i);
        Ok(())
    }

    /// `LEPC R20; IADD3 R20, P0, R20, d, RZ; IADD3.X R21, R21, RZ, RZ, P0, !PT`: the
    /// address after the `CALL` that follows (`d` is set by [`fix_return_addresses`]).
    fn return_address(&mut self) -> Result<(), EmitError> {
        let lepc = self.make(Op::Lepc, &[(Role::Dst, Operand::reg(RETURN_ADDRESS))], &[])?;
        self.push(lepc);
        let lo = [
            (Role::Dst, Operand::reg(RETURN_ADDRESS)),
            (Role::PredDst0, Operand::pred(0, false)),
            (Role::A, Operand::reg(RETURN_ADDRESS)),
            (Role::B, Operand::imm(0)),
            (Role::C, Operand::reg(RZ)),
        ];
        let i = self.make(Op::Iadd3, &lo, &[])?;
        self.push(i);
        let hi = [
            (Role::Dst, Operand::reg(RETURN_ADDRESS + 1)),
            (Role::A, Operand::reg(RETURN_ADDRESS + 1)),
            (Role::B, Operand::reg(RZ)),
            (Role::C, Operand::reg(RZ)),
            (Role::PredSrc0, Operand::pred(0, false)),
        ];
        let i = self.make(Op::Iadd3, &hi, &[Mod::X.flag(true)])?;
        self.push(i);
        Ok(())
    }
}

/// Sets the distance each return-address `IADD3` adds to its `LEPC`'s address: up to the
/// instruction after the next `CALL` of the block (the scheduler may have moved
/// instructions in between).
pub fn fix_return_addresses(blocks: &mut [CodeBlock]) {
    for b in blocks {
        let insts = &mut b.insts;
        for i in 0..insts.len() {
            if insts[i].inst.desc().op != Op::Lepc {
                continue;
            }
            let Some(j) = (i + 1..insts.len()).find(|&j| insts[j].inst.desc().op == Op::Call) else {
                continue;
            };
            let distance = 16 * (j + 1 - i) as u64;
            let add = (i + 1..j).find(|&k| {
                let inst = &insts[k].inst;
                inst.desc().op == Op::Iadd3
                    && inst.get(Role::Dst).map(|o| o.value) == Some(V::Reg(RETURN_ADDRESS))
                    && inst.get(Role::A).map(|o| o.value) == Some(V::Reg(RETURN_ADDRESS))
            });
            if let Some(k) = add
                && let Some(b) = insts[k].inst.desc().operand_index(Role::B)
            {
                insts[k].inst.operands[b].value = V::Imm(distance);
            }
        }
    }
}
