//! Hopper's thread-block clusters (sm_90), as ptxas 13.5 compiles them:
//! * the cluster special registers: `%cluster_nctaid`, `%nclusterid`, `%cluster_nctarank`
//!   and `%cluster_ctarank` are read as they are (constant-bank words and `SR_CgaCtaId` in
//!   the back end); `%clusterid` is `%ctaid / %cluster_nctaid` and `%cluster_ctaid` is
//!   `%ctaid - %clusterid * %cluster_nctaid` (ptxas divides `.x` so too, and `.y` and `.z`
//!   by multiplying with float reciprocals, exact below 65536); `%is_explicit_cluster` is the
//!   launch's cluster word equal to 1; each is computed once, at the start of the kernel;
//! * the rank in shared addresses ([`LowerOptions::rank_in_shared_addresses`]): a shared
//!   variable's address taken as a value (`mov`, `cvta.shared`, `mapa` of a variable) is its
//!   offset plus `%cluster_ctarank << 24`, so that it is also the `.shared::cluster` address of
//!   the executing CTA's own memory; the shift is made once, at the start of the kernel;
//! * `mapa` replaces bits 24..31 of the address (of the low word of a 64-bit one) by the rank
//!   (`prmt` with selector 0x654);
//! * `barrier.cluster.arrive` and `.wait`: on a launch with a cluster shape
//!   (`%is_explicit_cluster`) the cluster's barrier (after the release fence unless
//!   `.relaxed`; the wait invalidates the L1 cache), else nothing for the arrival and a CTA
//!   barrier (`bar.sync 0`) for the wait.
//!
//! [`LowerOptions::rank_in_shared_addresses`]: super::LowerOptions

use super::LowerError;
use super::context::{Lowerer, mir_type};
use super::memory::VarPlace;
use crate::ir::{Aux, Cond, InstData, Opcode, Space, SpecialReg, Type, Value};
use ptxc_frontend::ast::Span;
use ptxc_frontend::checked::{CheckedInst, MemOrder, VarId};

/// `fence` scope (in `Aux::Imm` bits 3..0) of the cluster: `MEMBAR.GPU` with the cluster's
/// error barrier.
pub const FENCE_CLUSTER: u64 = 3;
/// `Aux::Imm` bit of `fence`: the release half alone (no invalidation of the L1 cache).
pub const FENCE_RELEASE: u64 = 1 << 5;

/// The PRMT selector of `mapa`: bytes 0..2 of the address, then byte 0 of the rank.
const MAPA_SELECTOR: u64 = 0x654;
/// Where a shared address keeps the rank of its CTA.
const RANK_SHIFT: u64 = 24;

/// Values a kernel computes once, at the start of its entry block, for every use: the
/// cluster special registers that are computed and the rank of shared addresses.
#[derive(Clone, Debug, Default)]
pub struct Prologue {
    /// Instructions placed at the start of the entry block so far.
    len: usize,
    /// The cluster special registers made so far.
    specials: rustc_hash::FxHashMap<SpecialReg, Value>,
    /// `%cluster_ctarank << 24`.
    rank_tag: Option<Value>,
}

impl Lowerer<'_> {
    /// The cluster special registers that are computed: `%clusterid`, `%cluster_ctaid` and
    /// `%is_explicit_cluster` (`None` for the others, which are read as they are). Each is
    /// made once, in the kernel's prologue.
    pub(super) fn cluster_special(&mut self, sr: SpecialReg) -> Option<Value> {
        if !matches!(
            sr,
            SpecialReg::ClusterId(_) | SpecialReg::ClusterCtaId(_) | SpecialReg::IsExplicitCluster
        ) {
            return None;
        }
        if let Some(&v) = self.prologue.specials.get(&sr) {
            return Some(v);
        }
        let v = match sr {
            SpecialReg::ClusterId(d) => {
                let ctaid = self.prologue_special(SpecialReg::Ctaid(d));
                let n = self.prologue_special(SpecialReg::ClusterNctaId(d));
                self.at_start(Opcode::DivU, &[ctaid, n], Aux::None)
            }
            SpecialReg::ClusterCtaId(d) => {
                let ctaid = self.prologue_special(SpecialReg::Ctaid(d));
                let n = self.prologue_special(SpecialReg::ClusterNctaId(d));
                let id = self.cluster_special(SpecialReg::ClusterId(d))?;
                let first = self.at_start(Opcode::Imul, &[id, n], Aux::None);
                self.at_start(Opcode::Isub, &[ctaid, first], Aux::None)
            }
            _ => {
                let word = self.prologue_special(SpecialReg::IsExplicitCluster);
                let one = self.at_start(Opcode::Const, &[], Aux::Imm(1));
                self.at_start(Opcode::Icmp, &[word, one], Aux::Cond(Cond::Eq))
            }
        };
        self.prologue.specials.insert(sr, v);
        Some(v)
    }

    /// A 32-bit special register as it is, read in the prologue.
    fn prologue_special(&mut self, sr: SpecialReg) -> Value {
        self.at_start(Opcode::Special, &[], Aux::Special(sr))
    }

    /// A 32-bit instruction appended to the kernel's prologue (the start of the entry block,
    /// which dominates every block, also those of inlined functions); its first result.
    fn at_start(&mut self, op: Opcode, args: &[Value], aux: Aux) -> Value {
        let entry = self.func.entry().expect("the kernel has an entry block");
        let here = std::mem::replace(&mut self.func.cur_srcloc, crate::ir::SrcLoc::NONE);
        let inst = self.func.create_inst(InstData {
            op,
            ty: Type::I32,
            args: args.into(),
            aux,
        });
        self.func.cur_srcloc = here;
        self.func.blocks[entry].insts.insert(self.prologue.len, inst);
        self.prologue.len += 1;
        self.func.results[inst][0]
    }

    /// `%cluster_ctarank << 24`, made once in the prologue.
    fn shared_rank_tag(&mut self) -> Value {
        if let Some(tag) = self.prologue.rank_tag {
            return tag;
        }
        let rank = self.prologue_special(SpecialReg::ClusterCtaRank);
        let shift = self.at_start(Opcode::Const, &[], Aux::Imm(RANK_SHIFT));
        let tag = self.at_start(Opcode::Shl, &[rank, shift], Aux::None);
        self.prologue.rank_tag = Some(tag);
        tag
    }

    /// The address of variable `var` plus `k` as a value of type `ty`: a shared variable's
    /// carries the rank of the CTA in bits 24..31 where the target asks for it.
    pub(super) fn var_value(&mut self, var: VarId, ty: Type, k: i64, span: Span) -> Result<Value, LowerError> {
        let shared = matches!(self.var_place(var), VarPlace::Mem(_, Space::Shared));
        if !(shared && self.options.rank_in_shared_addresses) {
            return self.var_address(var, ty, k, span);
        }
        // In 32 bits: shared offsets are.
        let mut offset = self.var_address(var, Type::I32, 0, span)?;
        if k != 0 {
            let k = self.konst(Type::I32, k as u64);
            offset = self.emit(Opcode::Iadd, Type::I32, &[offset, k], Aux::None);
        }
        let tag = self.shared_rank_tag();
        let tagged = self.emit(Opcode::Iadd, Type::I32, &[offset, tag], Aux::None);
        self.coerce(tagged, ty, false, span)
    }

    /// `mapa{.shared::cluster}.{u32|u64} d, a, rank`: bits 24..31 of `a` (of its low word)
    /// become the rank.
    pub fn lower_mapa(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let ty = mir_type(self.ptx_type(inst)?);
        let d = self.dst(inst, 0)?;
        let a = self.operand(self.arg(inst, 1)?, ty, false, inst.span)?;
        let rank = self.operand(self.arg(inst, 2)?, Type::I32, false, inst.span)?;
        let low = self.coerce(a, Type::I32, false, inst.span)?;
        let selector = self.konst(Type::I32, MAPA_SELECTOR);
        let mapped = self.emit(Opcode::Prmt, Type::I32, &[rank, low, selector], Aux::Imm(0));
        let v = if ty == Type::I64 {
            self.with_low_word(a, mapped, inst.span)?
        } else {
            mapped
        };
        self.write_reg(d, v, false, inst.span)
    }

    /// The 64-bit `a` with its low word replaced by `low`.
    fn with_low_word(&mut self, a: Value, low: Value, span: Span) -> Result<Value, LowerError> {
        let thirty_two = self.konst(Type::I32, 32);
        let high = self.emit(Opcode::ShrU, Type::I64, &[a, thirty_two], Aux::None);
        let high = self.coerce(high, Type::I32, false, span)?;
        let (high, low) = (self.widen(high, Type::I64), self.widen(low, Type::I64));
        let high = self.emit(Opcode::Shl, Type::I64, &[high, thirty_two], Aux::None);
        Ok(self.emit(Opcode::Or, Type::I64, &[high, low], Aux::None))
    }

    /// `barrier.cluster.arrive{.release|.relaxed}` and `barrier.cluster.wait{.acquire}`
    /// (`.aligned` or not).
    pub(super) fn lower_cluster_barrier(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let explicit = self
            .cluster_special(SpecialReg::IsExplicitCluster)
            .expect("a computed cluster register");
        if inst.mods.has_flag("arrive") {
            let release = inst.mods.order != Some(MemOrder::Relaxed);
            self.if_else(
                explicit,
                |l| {
                    if release {
                        let fence = FENCE_CLUSTER | super::FENCE_ALL | FENCE_RELEASE;
                        l.emit_effect(Opcode::Fence, &[], Aux::Imm(fence));
                    }
                    l.emit_effect(Opcode::ClusterArrive, &[], Aux::None);
                },
                |_| {},
            );
        } else {
            self.if_else(
                explicit,
                |l| {
                    l.emit_effect(Opcode::ClusterWait, &[], Aux::None);
                    l.emit_effect(Opcode::L1Invalidate, &[], Aux::None);
                },
                |l| {
                    let zero = l.konst(Type::I32, 0);
                    l.emit_effect(Opcode::BarSync, &[zero], Aux::None);
                },
            );
        }
        Ok(())
    }

    /// Runs `then` in a block of its own when `cond` holds and `otherwise` in another when it
    /// does not; both continue in a new current block.
    fn if_else(&mut self, cond: Value, then: impl FnOnce(&mut Self), otherwise: impl FnOnce(&mut Self)) {
        let (yes, no, join) = (self.func.add_block(), self.func.add_block(), self.func.add_block());
        self.brif(cond, yes, no);
        self.arm(yes, join, then);
        self.arm(no, join, otherwise);
        self.ssa.seal(&mut self.func, join);
        self.cur = join;
    }

    /// `body` in `block` (reached from the current block), then a jump to `join`.
    fn arm(&mut self, block: crate::ir::Block, join: crate::ir::Block, body: impl FnOnce(&mut Self)) {
        self.ssa.seal(&mut self.func, block);
        self.cur = block;
        body(self);
        self.jump(join);
    }
}
