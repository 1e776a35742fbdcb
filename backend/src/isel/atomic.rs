//! Atomics: ATOMG (global), ATOM (generic) and ATOMS (shared) returning the old value, their
//! compare-and-swap forms, and RED when a global atomic's result is unused. Global and
//! generic atomics are `.STRONG.GPU`, as ptxas makes them.

use super::fit::Arg;
use super::{Isel, IselError};
use crate::vcode::MOp;
use ptxc_mir::ir::{AtomInfo, AtomOp, Aux, Inst, Space, Type};
use ptxc_sass::isa::{Op, RZ, Role, Value as V};

/// ATOM/ATOMG/ATOMS/RED operation codes (bits 87..91).
fn op_code(op: AtomOp) -> Option<u16> {
    Some(match op {
        AtomOp::Add | AtomOp::Fadd => 0,
        AtomOp::MinS | AtomOp::MinU => 1,
        AtomOp::MaxS | AtomOp::MaxU => 2,
        AtomOp::Inc => 3,
        AtomOp::Dec => 4,
        AtomOp::And => 5,
        AtomOp::Or => 6,
        AtomOp::Xor => 7,
        AtomOp::Exch => 8,
        AtomOp::Cas => return None,
    })
}

/// The type code (bits 73..76): "" (u32), .S32, .64, .F32.FTZ.RN, .F16x2.RN, .S64, .F64.RN.
fn type_code(op: AtomOp, ty: Type) -> Option<u16> {
    let signed = matches!(op, AtomOp::MinS | AtomOp::MaxS);
    Some(match (op, ty.bits()) {
        (AtomOp::Fadd, 32) if ty == Type::F32 => 3,
        (AtomOp::Fadd, 64) if ty == Type::F64 => 6,
        (AtomOp::Fadd, _) => return None,
        (AtomOp::Inc | AtomOp::Dec, 64) => return None,
        (_, 32) if signed => 1,
        (_, 32) => 0,
        (_, 64) if signed => 5,
        (_, 64) => 2,
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
        let AtomInfo { op, space, offset } = info;
        let unsupported = || format!("atom.{}.{}.{ty}", space.name(), op.name());
        let atype = type_code(op, ty).ok_or_else(|| self.unsupported(unsupported()))?;
        let shared = space == Space::Shared;
        if shared && atype > 2 {
            return Err(self.unsupported(unsupported()));
        }
        if !matches!(space, Space::Global | Space::Shared | Space::Generic) {
            return Err(self.unsupported(unsupported()));
        }
        let addr = self.mem_operand(args[0], offset, space)?;
        let result = self.func.results[inst][0];
        let used = self.use_count(result) > 0;
        let b = MOp::Reg(self.reg(args[1]));
        let mut mods = vec![("atype", atype)];
        if !shared {
            mods.extend([("e", 1), ("sem", 2), ("scope", 2)]);
        }
        if space == Space::Global && !used && !matches!(op, AtomOp::Exch | AtomOp::Cas) {
            mods.push(("aop", op_code(op).expect("not cas")));
            return self.emit_sass(
                Op::Red,
                &[],
                &[(Role::Addr, Arg::op(addr)), (Role::Data, Arg::op(b))],
                &mods,
                None,
            );
        }
        let d = if used {
            MOp::Reg(self.def_reg(result))
        } else {
            MOp::Fixed(V::Reg(RZ))
        };
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
        let srcs = if op == AtomOp::Cas {
            mods.push(("cas", 0));
            let c = MOp::Reg(self.reg(args[2]));
            vec![
                (Role::Addr, Arg::op(addr)),
                (Role::B, Arg::op(b)),
                (Role::C, Arg::op(c)),
            ]
        } else {
            mods.push(("aop", op_code(op).expect("not cas")));
            vec![(Role::Addr, Arg::op(addr)), (Role::Data, Arg::op(b))]
        };
        self.emit_sass(sass_op, &dsts, &srcs, &mods, None)
    }
}
