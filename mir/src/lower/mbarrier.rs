//! `mbarrier` on shared memory (sm_80), named by a shared or a generic address, lowered as ptxas lowers it for sm_80..sm_89 (the
//! barrier layout is in `docs/MBARRIER.md`): `init` stores the two words `0x40000000 - n`
//! and `0x80000000 - n`; an arrival is a CTA fence and `atom.arrive` (ATOMS.ARRIVE.64); an
//! arrival with a count (`.noComplete`) adds the count to the high word; `arrive_drop` first
//! adds one (or the count) to the low word; `test_wait` compares the phase bit of the high
//! word with the state's (or the parity's); `pending_count` reads the state's high word;
//! `inval` emits nothing.
//!
//! For Hopper ([`LowerOptions::hopper_mbarrier`](super::LowerOptions)) the barrier has
//! Hopper's layout and its own operations, as ptxas's sm_90 code has (`docs/MBARRIER.md`):
//! `init` swaps in `(2^20 - n) << 1` and `(2^20 - n) << 11` (`mbar_init`, SYNCS.EXCH.64; a
//! computed address is stored per thread);
//! every arrival, with its count and `arrive_drop`, is one `mbar_arrive`
//! (SYNCS.ARRIVE.TRANS64; no fence before it, as in ptxas's code); waits are
//! `mbar_phase_test` (SYNCS.PHASECHK.TRANS64); `pending_count` is `2^20 - ((hi >> 11) &
//! 0xfffff)`; `inval` emits nothing (ptxas: SYNCS.CCTL.IV, a cache invalidation).
//!
//! At cluster scope (sm_90), as ptxas 13.5 writes it: a `.release.cluster` arrival is
//! preceded by `MEMBAR.ALL.CTA` and the cluster's release fence (`MEMBAR.ALL.GPU`, ERRBAR,
//! CGAERRBAR), and an `.acquire.cluster` wait invalidates the L1 cache when the phase has
//! completed. Arrivals and transaction counts may name another CTA's barrier
//! (`.shared::cluster`: a `mbar_arrive` in that space, whose state is never read).

use super::LowerError;
use super::context::Lowerer;
use super::memory::Address;
use crate::ir::{AtomInfo, AtomOp, Aux, Cond, InstData, MemInfo, Opcode, Space, Type, Value};
use ptxc_frontend::checked::{CheckedInst, CheckedOperand, MemOrder, MemScope};

/// The phase bit of the high word.
const PHASE: u64 = 0x8000_0000;
/// Hopper's count fields hold `2^20 - n`.
const HOPPER_COUNT: u64 = 1 << 20;

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
        // `init`, `expect_tx` and `complete_tx` name the barrier first; the rest after a result.
        let standalone_tx = !m.has_flag("arrive") && (m.has_flag("expect_tx") || m.has_flag("complete_tx"));
        let at = if m.has_flag("init") || standalone_tx { 0 } else { 1 };
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
            Space::SharedCluster if !self.options.hopper_mbarrier => {
                return Err(LowerError::new(
                    "an `mbarrier` of another CTA (`.shared::cluster`) needs Hopper's barriers (sm_90)",
                    inst.span,
                ));
            }
            _ => Barrier { addr, space, offset },
        };
        let hopper = self.options.hopper_mbarrier;
        let wait = m.has_flag("test_wait") || m.has_flag("try_wait");
        match (m.has_flag("init"), wait, hopper) {
            (true, _, false) => self.mbarrier_init(inst, bar),
            (true, _, true) => self.hopper_init(inst, bar),
            (_, true, false) => self.mbarrier_test_wait(inst, bar),
            (_, true, true) => self.hopper_test_wait(inst, bar),
            (_, _, false) => self.mbarrier_arrive(inst, bar),
            (_, _, true) => self.hopper_arrive(inst, bar),
        }
    }

    /// Hopper's `init` (ptxas's words, `docs/MBARRIER.md`): `(2^20 - n) << 1` and
    /// `(2^20 - n) << 11`, as one 64-bit `mbar_init` (SYNCS.EXCH.64, as ptxas writes it) of a
    /// shared variable's barrier, or a 64-bit store of a barrier whose address is computed.
    fn hopper_init(&mut self, inst: &CheckedInst, bar: Barrier) -> Result<(), LowerError> {
        let n = self.operand(self.arg(inst, 1)?, Type::I32, false, inst.span)?;
        let word = match self.func.const_value(n) {
            Some(k) => {
                // The same bits as the computation below: `2^20 - n` in 32 bits, widened.
                let c = HOPPER_COUNT.wrapping_sub(k) & 0xffff_ffff;
                self.konst(Type::I64, c << 1 | c.wrapping_shl(43))
            }
            None => {
                let full = self.konst(Type::I32, HOPPER_COUNT);
                let c = self.emit(Opcode::Isub, Type::I32, &[full, n], Aux::None);
                let c = self.coerce(c, Type::I64, false, inst.span)?;
                let (one, high) = (self.konst(Type::I32, 1), self.konst(Type::I32, 43));
                let lo = self.emit(Opcode::Shl, Type::I64, &[c, one], Aux::None);
                let hi = self.emit(Opcode::Shl, Type::I64, &[c, high], Aux::None);
                self.emit(Opcode::Or, Type::I64, &[lo, hi], Aux::None)
            }
        };
        let info = bar.access(0, 1);
        if self.is_symbol_address(bar.addr) {
            self.emit_effect(Opcode::MbarInit, &[bar.addr, word], Aux::Mem(info));
        } else {
            // SYNCS.EXCH swaps one warp-uniform address: barriers that may differ between
            // the threads are stored one per thread.
            self.store(Type::I64, vec![bar.addr, word], info);
        }
        Ok(())
    }

    /// Hopper's `arrive` and `arrive_drop` (with or without a count): one `mbar_arrive`.
    fn hopper_arrive(&mut self, inst: &CheckedInst, bar: Barrier) -> Result<(), LowerError> {
        let m = &inst.mods;
        let tx = m.has_flag("expect_tx") || m.has_flag("complete_tx");
        let at = if tx && !m.has_flag("arrive") { 1 } else { 2 };
        let count = match inst.operands.len() {
            n if n > at => self.operand(self.arg(inst, at)?, Type::I32, false, inst.span)?,
            _ => self.konst(Type::I32, 1),
        };
        let op = match (m.has_flag("arrive"), m.has_flag("expect_tx"), m.has_flag("complete_tx")) {
            (true, true, _) => AtomOp::HopperArriveTx,
            (false, true, _) => AtomOp::HopperExpectTx,
            (_, _, true) => AtomOp::HopperCompleteTx,
            _ if m.has_flag("arrive_drop") => AtomOp::HopperDrop,
            _ => AtomOp::HopperArrive,
        };
        if m.order == Some(MemOrder::Release) && m.scope == Some(MemScope::Cluster) {
            self.emit_effect(Opcode::Fence, &[], Aux::Imm(FENCE_ALL));
            let cluster = super::FENCE_CLUSTER | FENCE_ALL | super::FENCE_RELEASE;
            self.emit_effect(Opcode::Fence, &[], Aux::Imm(cluster));
        }
        let state = self.hopper_op(bar.addr, bar.space, bar.offset, op, count);
        if at == 1 || matches!(inst.operands.first(), Some(CheckedOperand::Sink)) {
            return Ok(());
        }
        let d = self.dst(inst, 0)?;
        self.write_reg(d, state, false, inst.span)
    }

    /// An `mbar_arrive` of `op` with `count` on the barrier at `addr + offset` in `space`:
    /// the barrier as it was.
    pub(super) fn hopper_op(&mut self, addr: Value, space: Space, offset: i64, op: AtomOp, count: Value) -> Value {
        let data = InstData {
            op: Opcode::MbarArrive,
            ty: Type::I64,
            args: smallvec::smallvec![addr, count],
            aux: Aux::Atom(AtomInfo {
                op,
                space,
                offset,
                red: false,
            }),
        };
        let i = self.func.ins(self.cur, data);
        self.func.results[i][0]
    }

    /// Hopper's `test_wait` / `try_wait` (`.parity`): `mbar_phase_test`.
    fn hopper_test_wait(&mut self, inst: &CheckedInst, bar: Barrier) -> Result<(), LowerError> {
        let phase = self.wait_phase(inst)?;
        let info = bar.access(0, 1);
        let done = self.emit_typed(
            Opcode::MbarPhaseTest,
            Type::I64,
            &[bar.addr, phase],
            Aux::Mem(info),
            Type::Pred,
        );
        if inst.mods.order == Some(MemOrder::Acquire) && inst.mods.scope == Some(MemScope::Cluster) {
            self.emit_effect(Opcode::L1Invalidate, &[done], Aux::None);
        }
        let d = self.dst(inst, 0)?;
        self.write_reg(d, done, false, inst.span)
    }

    /// The phase a wait compares with, in bit 31: the parity shifted up, or a state's high
    /// word.
    fn wait_phase(&mut self, inst: &CheckedInst) -> Result<Value, LowerError> {
        if inst.mods.has_flag("parity") {
            let parity = self.operand(self.arg(inst, 2)?, Type::I32, false, inst.span)?;
            let shift = self.konst(Type::I32, 31);
            Ok(self.emit(Opcode::Shl, Type::I32, &[parity, shift], Aux::None))
        } else {
            let state = self.operand(self.arg(inst, 2)?, Type::I64, false, inst.span)?;
            self.high_word(state, inst)
        }
    }

    fn mbarrier_init(&mut self, inst: &CheckedInst, bar: Barrier) -> Result<(), LowerError> {
        let n = self.operand(self.arg(inst, 1)?, Type::I32, false, inst.span)?;
        let lo = self.konst(Type::I32, 0x4000_0000);
        let hi = self.konst(Type::I32, PHASE);
        let lo = self.emit(Opcode::Isub, Type::I32, &[lo, n], Aux::None);
        let hi = self.emit(Opcode::Isub, Type::I32, &[hi, n], Aux::None);
        let info = bar.access(0, 2);
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
        let phase = self.wait_phase(inst)?;
        let info = bar.access(4, 1);
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

    /// `0x80000000 - (hi & 0x7fffffff)` of the state's high word; on Hopper
    /// `2^20 - ((hi >> 11) & 0xfffff)`.
    fn mbarrier_pending_count(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let state = self.operand(self.arg(inst, 1)?, Type::I64, false, inst.span)?;
        let hi = self.high_word(state, inst)?;
        if self.options.hopper_mbarrier {
            let eleven = self.konst(Type::I32, 11);
            let field = self.konst(Type::I32, HOPPER_COUNT - 1);
            let shifted = self.emit(Opcode::ShrU, Type::I32, &[hi, eleven], Aux::None);
            let done = self.emit(Opcode::And, Type::I32, &[shifted, field], Aux::None);
            let full = self.konst(Type::I32, HOPPER_COUNT);
            let pending = self.emit(Opcode::Isub, Type::I32, &[full, done], Aux::None);
            let d = self.dst(inst, 0)?;
            return self.write_reg(d, pending, false, inst.span);
        }
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
                red: false,
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

impl Barrier {
    /// A volatile access of `vector` words at byte `at` of the barrier.
    fn access(self, at: i64, vector: u8) -> MemInfo {
        MemInfo {
            space: self.space,
            offset: self.offset + at,
            vector,
            non_coherent: false,
            volatile: true,
            hint: Default::default(),
        }
    }
}
