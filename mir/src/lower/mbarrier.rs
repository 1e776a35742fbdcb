//! `mbarrier` on shared memory (sm_80), named by a shared or a generic address, lowered as ptxas lowers it for sm_80..sm_89 (the
//! barrier layout is in `docs/MBARRIER.md`): `init` stores the two words `0x40000000 - n`
//! and `0x80000000 - n`; an arrival is a CTA fence and `atom.arrive` (ATOMS.ARRIVE.64); an
//! arrival with a count (`.noComplete`) adds the count to the high word; `arrive_drop` first
//! adds one (or the count) to the low word; `test_wait` compares the phase bit of the high
//! word with the state's (or the parity's); `pending_count` reads the state's high word;
//! `inval` emits nothing.

use super::LowerError;
use super::context::Lowerer;
use super::memory::Address;
use crate::ir::{AtomInfo, AtomOp, Aux, Cond, InstData, MemInfo, Opcode, Space, Type, Value};
use ptxc_frontend::checked::CheckedInst;

/// The phase bit of the high word.
const PHASE: u64 = 0x8000_0000;

/// `Aux::Imm` bit of `fence`: the fence ptxas puts before an `mbarrier` arrival
/// (`MEMBAR.ALL.CTA`, where `membar.cta` is `MEMBAR.SC.CTA`).
pub const FENCE_ALL: u64 = 1 << 4;

impl Lowerer<'_> {
    /// `mbarrier.*.shared.b64` and `mbarrier.pending_count.b64`.
    pub fn lower_mbarrier(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let m = &inst.mods;
        if m.has_flag("pending_count") {
            return self.mbarrier_pending_count(inst);
        }
        if m.has_flag("inval") {
            return Ok(());
        }
        let at = if m.has_flag("init") { 0 } else { 1 };
        let Address::Value(addr, space, offset) = self.address(inst, at)? else {
            return Err(LowerError::new("`mbarrier` needs a shared-memory address", inst.span));
        };
        let bar = match space {
            // A generic address of a barrier is one in the shared window (the PTX ISA asks
            // for a shared-memory barrier): converted, the shared operations follow. ptxas
            // uses generic memory operations instead (docs/MBARRIER.md); the result is the same.
            Space::Generic => {
                let ty = self.func.ty(addr);
                let addr = self.emit(Opcode::FromGeneric, ty, &[addr], Aux::Space(Space::Shared));
                Barrier {
                    addr,
                    space: Space::Shared,
                    offset,
                }
            }
            _ => Barrier { addr, space, offset },
        };
        if m.has_flag("init") {
            return self.mbarrier_init(inst, bar);
        }
        if m.has_flag("test_wait") {
            return self.mbarrier_test_wait(inst, bar);
        }
        self.mbarrier_arrive(inst, bar)
    }

    fn mbarrier_init(&mut self, inst: &CheckedInst, bar: Barrier) -> Result<(), LowerError> {
        let n = self.operand(self.arg(inst, 1)?, Type::I32, false, inst.span)?;
        let lo = self.konst(Type::I32, 0x4000_0000);
        let hi = self.konst(Type::I32, PHASE);
        let lo = self.emit(Opcode::Isub, Type::I32, &[lo, n], Aux::None);
        let hi = self.emit(Opcode::Isub, Type::I32, &[hi, n], Aux::None);
        let info = MemInfo {
            space: bar.space,
            offset: bar.offset,
            vector: 2,
            non_coherent: false,
            volatile: true,
            hint: Default::default(),
        };
        self.store(Type::I32, vec![bar.addr, lo, hi], info);
        Ok(())
    }

    /// `arrive` and `arrive_drop`, with or without `.noComplete` and a count.
    fn mbarrier_arrive(&mut self, inst: &CheckedInst, bar: Barrier) -> Result<(), LowerError> {
        let count = match inst.operands.len() {
            3 => Some(self.operand(self.arg(inst, 2)?, Type::I32, false, inst.span)?),
            _ => None,
        };
        // The arrival releases at CTA scope (ptxas: MEMBAR.ALL.CTA first).
        self.emit_multi(Opcode::Fence, Type::I32, &[], Aux::Imm(FENCE_ALL));
        if inst.mods.has_flag("arrive_drop") {
            let one = self.konst(Type::I32, 1);
            self.atom(bar, 0, AtomOp::Add, Type::I32, count.unwrap_or(one));
        }
        let state = match count {
            Some(n) => {
                let old = self.atom(bar, 4, AtomOp::Add, Type::I32, n);
                let wide = self.coerce(old, Type::I64, false, inst.span)?;
                let shift = self.konst(Type::I32, 32);
                self.emit(Opcode::Shl, Type::I64, &[wide, shift], Aux::None)
            }
            None => {
                let unused = self.konst(Type::I64, 0);
                self.atom(bar, 0, AtomOp::Arrive, Type::I64, unused)
            }
        };
        let d = self.dst(inst, 0)?;
        self.write_reg(d, state, false, inst.span)
    }

    fn mbarrier_test_wait(&mut self, inst: &CheckedInst, bar: Barrier) -> Result<(), LowerError> {
        let phase = if inst.mods.has_flag("parity") {
            let parity = self.operand(self.arg(inst, 2)?, Type::I32, false, inst.span)?;
            let shift = self.konst(Type::I32, 31);
            self.emit(Opcode::Shl, Type::I32, &[parity, shift], Aux::None)
        } else {
            let state = self.operand(self.arg(inst, 2)?, Type::I64, false, inst.span)?;
            self.high_word(state, inst)?
        };
        let info = MemInfo {
            space: bar.space,
            offset: bar.offset + 4,
            vector: 1,
            non_coherent: false,
            volatile: true,
            hint: Default::default(),
        };
        let data = InstData {
            op: Opcode::Load,
            ty: Type::I32,
            args: smallvec::smallvec![bar.addr],
            aux: Aux::Mem(info),
        };
        let i = self.func.ins(self.cur, data);
        let now = self.func.results[i][0];
        let differ = self.emit(Opcode::Xor, Type::I32, &[now, phase], Aux::None);
        let bit = self.konst(Type::I32, PHASE);
        let flipped = self.emit(Opcode::And, Type::I32, &[differ, bit], Aux::None);
        let zero = self.konst(Type::I32, 0);
        let done = self.emit_typed(
            Opcode::Icmp,
            Type::I32,
            &[flipped, zero],
            Aux::Cond(Cond::Ne),
            Type::Pred,
        );
        let d = self.dst(inst, 0)?;
        self.write_reg(d, done, false, inst.span)
    }

    /// `0x80000000 - (hi & 0x7fffffff)` of the state's high word.
    fn mbarrier_pending_count(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let state = self.operand(self.arg(inst, 1)?, Type::I64, false, inst.span)?;
        let hi = self.high_word(state, inst)?;
        let low_bits = self.konst(Type::I32, PHASE - 1);
        let done = self.emit(Opcode::And, Type::I32, &[hi, low_bits], Aux::None);
        let phase = self.konst(Type::I32, PHASE);
        let pending = self.emit(Opcode::Isub, Type::I32, &[phase, done], Aux::None);
        let d = self.dst(inst, 0)?;
        self.write_reg(d, pending, false, inst.span)
    }

    fn high_word(&mut self, state: Value, inst: &CheckedInst) -> Result<Value, LowerError> {
        let shift = self.konst(Type::I32, 32);
        let hi = self.emit(Opcode::ShrU, Type::I64, &[state, shift], Aux::None);
        self.coerce(hi, Type::I32, false, inst.span)
    }

    /// An atomic on the barrier word at byte `at`: its old value.
    fn atom(&mut self, bar: Barrier, at: i64, op: AtomOp, ty: Type, v: Value) -> Value {
        let data = InstData {
            op: Opcode::Atom,
            ty,
            args: smallvec::smallvec![bar.addr, v],
            aux: Aux::Atom(AtomInfo {
                op,
                space: bar.space,
                offset: bar.offset + at,
            }),
        };
        let i = self.func.ins(self.cur, data);
        self.func.results[i][0]
    }
}

/// The barrier's address.
#[derive(Clone, Copy)]
struct Barrier {
    addr: Value,
    space: Space,
    offset: i64,
}
