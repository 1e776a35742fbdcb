//! Which registers and predicates an instruction reads and writes, with the latency
//! category of each access. The scheduler computes stall counts and scoreboards from this,
//! and the simulator checks the same accesses for hazards. Uniform registers and uniform
//! predicates (the uniform datapath) are tracked with their own categories
//! ([`super::uniform_timing`]).

use super::desc::{Op, OpKind, Role};
use super::inst::{Inst, PT, RZ, Value};
use super::modifier::Mod;
use super::timing::LatCat;
use super::uniform_timing::uniform_cat;
use smallvec::SmallVec;

/// A register of one of the four files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reg {
    /// General register R0..R254.
    R(u8),
    /// Predicate P0..P6.
    P(u8),
    /// Uniform register UR0..UR62.
    UR(u8),
    /// Uniform predicate UP0..UP6.
    UP(u8),
}

impl Reg {
    /// True for the uniform files (UR, UP): one value per warp.
    pub fn is_uniform(self) -> bool {
        matches!(self, Reg::UR(_) | Reg::UP(_))
    }
}

/// URZ, the uniform zero register.
const URZ: u8 = 63;

/// One access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// The register.
    pub reg: Reg,
    /// The latency category of this access (the reader row or writer column).
    pub cat: LatCat,
    /// True for the guard predicate.
    pub guard: bool,
}

/// Register reads and writes of an instruction.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Accesses {
    /// Registers read.
    pub reads: SmallVec<[Access; 8]>,
    /// Registers written.
    pub writes: SmallVec<[Access; 4]>,
}

/// The accesses of `inst`.
pub fn accesses(inst: &Inst) -> Accesses {
    let form = inst.desc();
    let cat = form.meta.cat;
    let mut acc = Accesses::default();
    if inst.guard != PT {
        let (reg, cat) = if form.uniform_guard {
            (Reg::UP(inst.guard), uniform_cat(form, false, true))
        } else {
            (Reg::P(inst.guard), cat)
        };
        acc.reads.push(Access { reg, cat, guard: true });
    }
    for (i, (d, op)) in form.operands.iter().zip(&inst.operands).enumerate() {
        if !inst.has_operand(i) {
            continue;
        }
        let width = inst.reg_width(i);
        let is_def = d.is_def;
        let mut add = |reg: Reg, k: u8| {
            let access_cat = if reg.is_uniform() {
                uniform_cat(form, is_def, false)
            } else {
                wide_category(form.op, d.role, is_def, k).unwrap_or(cat)
            };
            let a = Access {
                reg,
                cat: access_cat,
                guard: false,
            };
            if is_def { acc.writes.push(a) } else { acc.reads.push(a) }
        };
        match (d.kind, op.value) {
            (OpKind::Gpr { .. }, Value::Reg(r)) if r != RZ => {
                for k in 0..width {
                    add(Reg::R(r + k), k);
                }
            }
            (OpKind::Pred { .. }, Value::Pred { idx, .. }) if idx != PT => add(Reg::P(idx), 0),
            (OpKind::Ugpr { .. } | OpKind::UregBlock { .. }, Value::UReg(r)) if r != URZ => {
                for k in 0..width {
                    add(Reg::UR(r + k), k);
                }
            }
            (OpKind::Upred { .. } | OpKind::UpredInverted { .. }, Value::Pred { idx, .. }) if idx != PT => {
                add(Reg::UP(idx), 0)
            }
            // HGMMA's descriptors: A's pair (when it has one) and B's.
            (OpKind::Gdesc { a, .. }, Value::UReg(r)) if r != URZ => {
                for k in if a { 0..4 } else { 2..4 } {
                    add(Reg::UR(r + k), k);
                }
            }
            (OpKind::Mem { .. }, Value::Mem { base, uniform, .. }) => {
                if base != RZ {
                    for k in 0..width {
                        add(Reg::R(base + k), k);
                    }
                }
                if let Some(u) = uniform.filter(|&u| u != URZ) {
                    // A global or generic address (or an Ampere memory descriptor) adds a
                    // 64-bit uniform pair; a shared-memory address a 32-bit one.
                    let pair = d.swizzle.is_some() || inst.flag(Mod::E);
                    for k in 0..=(pair as u8) {
                        add(Reg::UR(u + k), k);
                    }
                }
            }
            (OpKind::CBankIndexed { .. }, Value::CBank { reg: Some(r), .. }) if r != RZ => add(Reg::R(r), 0),
            _ => {}
        }
    }
    whole_pr_accesses(inst, cat, &mut acc);
    acc
}

/// `P2R Rd, PR, Ra, mask` reads and `R2P PR, Ra, mask` writes the predicates of `mask`
/// (P0..P6; all seven when the mask is not an immediate), though no operand names them.
fn whole_pr_accesses(inst: &Inst, cat: LatCat, acc: &mut Accesses) {
    let form = inst.desc();
    if !matches!(form.op, Op::P2r | Op::R2p) {
        return;
    }
    let mask = form
        .operands
        .iter()
        .zip(&inst.operands)
        .find(|(d, _)| d.role == Role::B)
        .and_then(|(_, op)| match op.value {
            Value::Imm(k) => Some(k),
            _ => None,
        })
        .unwrap_or(0x7f);
    for p in (0..7u8).filter(|p| mask >> p & 1 == 1) {
        let a = Access {
            reg: Reg::P(p),
            cat,
            guard: false,
        };
        if form.op == Op::R2p {
            acc.writes.push(a)
        } else {
            acc.reads.push(a)
        }
    }
}

/// IMAD.WIDE's per-operand categories: A and B read as `ImadWideAB`; the halves of C and of
/// the result as `ImadWideLower` / `ImadWideUpper`.
fn wide_category(op: Op, role: Role, is_def: bool, half: u8) -> Option<LatCat> {
    if op != Op::ImadWide {
        return None;
    }
    let by_half = if half == 0 {
        LatCat::ImadWideLower
    } else {
        LatCat::ImadWideUpper
    };
    match role {
        Role::A | Role::B if !is_def => Some(LatCat::ImadWideAB),
        Role::C | Role::Dst => Some(by_half),
        _ => None,
    }
}

/// True if the instruction's result comes back through a write scoreboard.
pub fn needs_write_scoreboard(inst: &Inst) -> bool {
    inst.desc().meta.cat.needs_write_scoreboard()
}

/// True if the instruction may read its registers after issue (a read scoreboard must
/// protect them from being overwritten).
pub fn reads_late(inst: &Inst) -> bool {
    let m = inst.desc().meta;
    m.reads_late || matches!(m.cat, LatCat::Decoupled | LatCat::Fp64 | LatCat::DecoupledOther)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::{Arch, decode::decode};

    /// The accesses of one instruction word of `arch`.
    fn of(arch: Arch, lo: u64, hi: u64) -> Accesses {
        accesses(&decode(arch, (hi as u128) << 64 | lo as u128, 0).expect("a valid word"))
    }

    #[test]
    fn hfma2_reads_no_predicate_without_relu() {
        // ptxas (sm_80, black_scholes): `HFMA2.MMA R15, -RZ, RZ, 1.5048828125, 33.21875`,
        // whose bits 87..90 (the predicate `.RELU` shows) hold 0: no read of P0.
        let a = of(Arch::Sm80, 0x3e05_5027_ff0f_7435, 0x000f_e200_0000_01ff);
        assert!(a.reads.iter().all(|r| !matches!(r.reg, Reg::P(_))), "{a:?}");
        assert_eq!(a.writes.iter().map(|w| w.reg).collect::<Vec<_>>(), [Reg::R(15)]);
    }

    /// The uniform registers `a` reads, in order.
    fn uniform_reads(a: &Accesses) -> Vec<u8> {
        a.reads
            .iter()
            .filter_map(|r| match r.reg {
                Reg::UR(u) => Some(u),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn tma_loads_read_their_block_of_coordinates_and_the_tensor_map() {
        // ptxas (sm_90a, tests/hopper_isa/tma_load.ptx): `UTMALDG.3D [UR8], [UR16]` reads the
        // destination UR8, the mbarrier UR9, three coordinates UR10..UR12 and the tensor
        // map's address UR16:UR17, after issue (a read scoreboard, no result).
        let a = of(Arch::Sm90, 0x0000_0008_1000_75b4, 0x0001_e200_0801_0000);
        assert_eq!(uniform_reads(&a), [8, 9, 10, 11, 12, 16, 17]);
        assert!(a.reads.iter().all(|r| r.cat == LatCat::UDecoupled), "{a:?}");
        assert!(a.writes.is_empty());
        // `UTMALDG.3D.MULTICAST [UR8], [UR16], UR6, desc[UR4]`: the mask and the policy pair.
        let a = of(Arch::Sm90, 0x0000_0408_1000_73b4, 0x0001_e200_0801_1806);
        assert_eq!(uniform_reads(&a), [8, 9, 10, 11, 12, 16, 17, 6, 4, 5]);
    }

    #[test]
    fn bulk_copies_read_pairs_for_global_addresses_only() {
        // ptxas (sm_90a, tests/hopper_isa/bulk_copy.ptx): `UBLKCP.G.S [UR8], [UR4], UR11`
        // reads the global destination pair, the shared source alone and the size;
        // `UBLKCP.S.G [UR4], [UR14], UR8` the shared destination and its mbarrier, and the
        // global source pair.
        let a = of(Arch::Sm90, 0x0000_0008_0400_73ba, 0x000f_e200_0800_040b);
        assert_eq!(uniform_reads(&a), [8, 9, 4, 11]);
        let a = of(Arch::Sm90, 0x0000_0004_0e00_73ba, 0x000f_e200_0800_0208);
        assert_eq!(uniform_reads(&a), [4, 5, 14, 15, 8]);
    }

    #[test]
    fn usetmaxreg_try_alloc_writes_its_uniform_predicate_through_a_scoreboard() {
        // ptxas (sm_90a, tests/hopper_isa/setmaxnreg.ptx): `USETMAXREG.TRY_ALLOC.CTAPOOL
        // UP0, 0xe8`, then a PLOP3 that waits on SB0 for UP0.
        let a = of(Arch::Sm90, 0x0000_00e8_0000_79c8, 0x000e_2400_0800_0600);
        assert_eq!(a.writes.len(), 1);
        assert_eq!(a.writes[0].reg, Reg::UP(0));
        assert_eq!(a.writes[0].cat, LatCat::UScoreboarded);
    }

    #[test]
    fn uniform_registers_are_accessed_with_uniform_categories() {
        // ptxas (sm_80): `REDUX.SUM UR6, R0` writes UR6 through a scoreboard.
        let a = of(Arch::Sm80, 0x0000_0000_0006_73c4, 0x0000_6200_0000_c000);
        assert_eq!(a.writes.len(), 1);
        assert_eq!(a.writes[0].reg, Reg::UR(6));
        assert_eq!(a.writes[0].cat, LatCat::UScoreboarded);
        assert!(a.reads.iter().any(|r| r.reg == Reg::R(0) && !r.cat.is_uniform()));
    }
}
