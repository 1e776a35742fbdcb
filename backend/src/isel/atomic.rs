//! Atomics: ATOMG (global), ATOM (generic, and the cluster's shared memory through its generic
//! addresses) and ATOMS (shared) returning the old value, their compare-and-swap forms, and
//! RED when a global atomic's result is unused. Global and generic atomics are
//! `.STRONG.GPU`, as ptxas makes them.

use super::fit::Arg;
use super::{Isel, IselError};
use crate::vcode::{MOp, VReg};
use ptxc_mir::ir::{AtomInfo, AtomOp, Aux, Inst, Space, Type};
use ptxc_sass::isa::values::{self, AtomType, CasKind, MemSem, Scope};
use ptxc_sass::isa::{Mod, Op, RZ, Role, Value as V};

/// The SASS operation of an atomic other than compare-and-swap.
fn sass_atom_op(op: AtomOp) -> Option<values::AtomOp> {
    Some(match op {
        AtomOp::Add | AtomOp::Fadd => values::AtomOp::Add,
        AtomOp::MinS | AtomOp::MinU => values::AtomOp::Min,
        AtomOp::MaxS | AtomOp::MaxU => values::AtomOp::Max,
        AtomOp::Inc => values::AtomOp::Inc,
        AtomOp::Dec => values::AtomOp::Dec,
        AtomOp::And => values::AtomOp::And,
        AtomOp::Or => values::AtomOp::Or,
        AtomOp::Xor => values::AtomOp::Xor,
        AtomOp::Exch => values::AtomOp::Exch,
        AtomOp::Cas
        | AtomOp::Arrive
        | AtomOp::HopperArrive
        | AtomOp::HopperDrop
        | AtomOp::HopperPending
        | AtomOp::HopperArriveTx
        | AtomOp::HopperExpectTx
        | AtomOp::HopperCompleteTx => {
            return None;
        }
    })
}

/// The SASS data type of an atomic on `ty`.
fn atom_type(op: AtomOp, ty: Type) -> Option<AtomType> {
    let signed = matches!(op, AtomOp::MinS | AtomOp::MaxS);
    Some(match (op, ty.bits()) {
        (AtomOp::Fadd, 32) if ty == Type::F32 => AtomType::F32,
        (AtomOp::Fadd, 64) if ty == Type::F64 => AtomType::F64,
        (AtomOp::Fadd, _) => return None,
        (AtomOp::Inc | AtomOp::Dec, 64) => return None,
        (_, 32) if signed => AtomType::S32,
        (_, 32) => AtomType::U32,
        (_, 64) if signed => AtomType::S64,
        (_, 64) => AtomType::U64,
        _ => return None,
    })
}

impl Isel<'_> {
    /// Selects an atomic.
    pub(super) fn lower_atomic(&mut self, inst: Inst) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let (ty, args) = (data.ty, data.args.clone());
        let Aux::Atom(info) = data.aux else {
            return Err(self.unsupported("an atomic without its operation"));
        };
        let AtomInfo { op, space, offset, .. } = info;
        let unsupported = || format!("atom.{}.{}.{ty}", space.name(), op.name());
        let atype = atom_type(op, ty).ok_or_else(|| self.unsupported(unsupported()))?;
        let shared = space == Space::Shared;
        if shared && !matches!(atype, AtomType::U32 | AtomType::S32 | AtomType::U64) {
            return Err(self.unsupported(unsupported()));
        }
        if !matches!(
            space,
            Space::Global | Space::Shared | Space::Generic | Space::SharedCluster
        ) {
            return Err(self.unsupported(unsupported()));
        }
        let addr = self.access_operand(args[0], offset, space)?;
        let result = self.func.results[inst][0];
        if op == AtomOp::Arrive {
            if !shared {
                return Err(self.unsupported(unsupported()));
            }
            let d = MOp::Reg(self.def_reg(result));
            return self.emit_sass(
                Op::AtomsArrive,
                &[(Role::Dst, d)],
                &[(Role::Addr, Arg::op(addr))],
                &[AtomType::U64.set()],
                None,
            );
        }
        let used = self.use_count(result) > 0;
        let site = AtomSite { op, space, atype, addr };
        if self.aggregate_atomics && self.aggregated(inst, &site)? {
            return Ok(());
        }
        let b = MOp::Reg(self.reg(args[1]));
        let d = used.then(|| MOp::Reg(self.def_reg(result)));
        let c = (op == AtomOp::Cas).then(|| MOp::Reg(self.reg(args[2])));
        self.emit_atom(&site, b, c, d, None)
    }

    /// One atomic instruction at `site` with operand `b` (and `c`, compare-and-swap's new
    /// value), the old value into `d` (`None`: unused, then a global atomic other than
    /// exchange and compare-and-swap is a RED), under `guard`.
    pub(super) fn emit_atom(
        &mut self,
        site: &AtomSite,
        b: MOp,
        c: Option<MOp>,
        d: Option<MOp>,
        guard: Option<(VReg, bool)>,
    ) -> Result<(), IselError> {
        let AtomSite { op, space, atype, addr } = *site;
        let shared = space == Space::Shared;
        let mut mods = vec![atype.set()];
        if !shared {
            mods.extend([Mod::E.flag(true), MemSem::Strong.set(), Scope::Gpu.set()]);
        }
        if space == Space::Global && d.is_none() && !matches!(op, AtomOp::Exch | AtomOp::Cas) {
            mods.push(sass_atom_op(op).expect("not cas").set());
            return self.emit_sass(
                Op::Red,
                &[],
                &[(Role::Addr, Arg::op(addr)), (Role::Data, Arg::op(b))],
                &mods,
                guard,
            );
        }
        let d = d.unwrap_or(MOp::Fixed(V::Reg(RZ)));
        let pt = MOp::Fixed(V::Pred { idx: 7, neg: false });
        let mut dsts = vec![(Role::Dst, d)];
        if !shared {
            dsts.insert(0, (Role::PredDst0, pt));
        }
        let sass_op = match (op, space) {
            (AtomOp::Cas, Space::Global) => Op::AtomgCas,
            (AtomOp::Cas, Space::Shared) => Op::AtomsCas,
            (AtomOp::Cas, _) => Op::AtomCas,
            (_, Space::Global) => Op::Atomg,
            (_, Space::Shared) => Op::Atoms,
            _ => Op::Atom,
        };
        let srcs = match c {
            Some(c) if op == AtomOp::Cas => {
                mods.push(CasKind::Cas.set());
                vec![
                    (Role::Addr, Arg::op(addr)),
                    (Role::B, Arg::op(b)),
                    (Role::C, Arg::op(c)),
                ]
            }
            _ => {
                let sass =
                    sass_atom_op(op).ok_or_else(|| self.unsupported("compare-and-swap without its new value"))?;
                mods.push(sass.set());
                vec![(Role::Addr, Arg::op(addr)), (Role::Data, Arg::op(b))]
            }
        };
        self.emit_sass(sass_op, &dsts, &srcs, &mods, guard)
    }
}

/// Where and how an atomic accesses memory: its operation, state space, SASS data type and
/// address operand.
#[derive(Clone, Copy, Debug)]
pub(super) struct AtomSite {
    /// The operation.
    pub op: AtomOp,
    /// The state space.
    pub space: Space,
    /// The SASS data type.
    pub atype: AtomType,
    /// The address operand.
    pub addr: MOp,
}
