//! Choosing operand forms: given the MIR values an instruction reads, fold as many as
//! possible into immediates and constant-bank operands such that some form of the SASS
//! operation encodes them, and put the rest in registers. A 32-bit zero that cannot stay an
//! immediate reads RZ, which costs no instruction (`IMAD R5, R2, 0x84, RZ`, not a `MOV` of
//! `0x84` for `IMAD R5, R2, R5, 0x0`).

use super::{Isel, IselError};
use crate::vcode::{MInst, MKind, MOp, Slot, SrcMods, VClass};
use ptxc_mir::ir::Value;
use ptxc_sass::isa::ModSet;
use ptxc_sass::isa::make::find_form;
use ptxc_sass::isa::{Op, Operand, Role, Value as V};
use smallvec::SmallVec;

/// A source of a SASS instruction.
#[derive(Clone, Copy, Debug)]
pub enum Arg {
    /// A MIR value: folded if possible, else in a register.
    Val(Value, SrcMods),
    /// A fixed operand.
    Op(MOp, SrcMods),
}

impl Arg {
    /// A plain MIR value.
    pub fn v(v: Value) -> Arg {
        Arg::Val(v, SrcMods::default())
    }

    /// A negated MIR value.
    pub fn neg(v: Value) -> Arg {
        Arg::Val(
            v,
            SrcMods {
                neg: true,
                ..SrcMods::default()
            },
        )
    }

    /// A fixed operand.
    pub fn op(op: MOp) -> Arg {
        Arg::Op(op, SrcMods::default())
    }

    /// RZ.
    pub fn rz() -> Arg {
        Arg::op(MOp::Fixed(V::Reg(ptxc_sass::isa::RZ)))
    }

    /// PT (or !PT).
    pub fn pt(neg: bool) -> Arg {
        Arg::op(MOp::Fixed(V::Pred { idx: 7, neg }))
    }

    /// An immediate.
    pub fn imm(bits: u32) -> Arg {
        Arg::op(MOp::Fixed(V::Imm(bits as u64)))
    }
}

/// Whether source `role` of `op` is always one 32-bit register (so an immediate there can
/// be moved into a fresh single register).
fn single_source(op: Op, role: Role) -> bool {
    match op {
        Op::Iadd3 | Op::Imad | Op::ImadHi | Op::Lop3 | Op::Shf => matches!(role, Role::A | Role::B | Role::C),
        Op::ImadWide | Op::Imnmx | Op::Isetp => matches!(role, Role::A | Role::B),
        _ => false,
    }
}

/// A stand-in isa operand with the kind an `MOp` will have after allocation.
pub(crate) fn representative(op: MOp, mods: SrcMods) -> Operand {
    let value = match op {
        MOp::Reg(_) | MOp::Sub(..) => V::Reg(0),
        MOp::Pred(_, neg) => V::Pred { idx: 0, neg },
        MOp::CMem { bank, offset, .. } => V::CBank {
            bank,
            offset,
            reg: Some(0),
        },
        MOp::Mem { offset, uniform, .. } => V::Mem {
            base: 0,
            uniform,
            offset,
            scale: 0,
        },
        MOp::UMem { offset, scale, .. } => V::Mem {
            base: 0,
            uniform: Some(0),
            offset,
            scale,
        },
        MOp::UAddr { offset, .. } => V::Mem {
            base: ptxc_sass::isa::RZ,
            uniform: Some(0),
            offset,
            scale: 0,
        },
        MOp::Sp => V::Reg(0),
        MOp::SpMem { offset } => V::Mem {
            base: 0,
            uniform: None,
            offset,
            scale: 0,
        },
        MOp::Fixed(v) => v,
    };
    Operand {
        value,
        neg: mods.neg,
        abs: mods.abs,
        not: false,
        swizzle: mods.swizzle,
    }
}

impl Isel<'_> {
    /// The register operand for `v` (predicates fold `not`).
    fn reg_op(&mut self, v: Value) -> MOp {
        self.src_op(v)
    }

    fn vcode_class(&self, v: Value) -> VClass {
        super::class_of(self.func.ty(v))
    }

    fn folded(&self, v: Value) -> Option<V> {
        match self.vcode_class(v) {
            VClass::Pair => self.foldable64(v),
            VClass::Pred => None,
            _ => self.foldable(v),
        }
    }

    /// Emits `op` with destinations `dsts` and sources `srcs`, folding what the forms allow.
    pub fn emit_sass(
        &mut self,
        op: Op,
        dsts: &[(Role, MOp)],
        srcs: &[(Role, Arg)],
        mods: &[ModSet],
        guard: Option<(crate::vcode::VReg, bool)>,
    ) -> Result<(), IselError> {
        let foldable: Vec<Option<V>> = srcs
            .iter()
            .map(|(_, a)| match a {
                Arg::Val(v, _) => self.folded(*v),
                Arg::Op(..) => None,
            })
            .collect();
        let positions: Vec<usize> = (0..srcs.len()).filter(|&i| foldable[i].is_some()).collect();
        // A 32-bit zero left unfolded reads RZ, which costs no instruction.
        let zero = |k: usize| {
            let i = positions[k];
            matches!(srcs[i].1, Arg::Val(v, _) if self.vcode_class(v) == VClass::Single)
                && foldable[i] == Some(V::Imm(0))
        };
        let zeros: u32 = (0..positions.len()).filter(|&k| zero(k)).map(|k| 1 << k).sum();
        let all = (1u32 << positions.len()) - 1;
        let mut masks: Vec<u32> = (0..=all).collect();
        // Fewest values materialised first, then most folds; among equals, keep later
        // operands folded (materialise earlier ones).
        masks.sort_by_key(|m| {
            let materialised = (all & !m & !zeros).count_ones();
            (materialised, std::cmp::Reverse(m.count_ones()), std::cmp::Reverse(*m))
        });
        for mask in masks {
            let fold = |i: usize| {
                positions
                    .iter()
                    .position(|&p| p == i)
                    .is_some_and(|k| mask & (1 << k) != 0)
            };
            let as_rz = |i: usize| {
                !fold(i)
                    && positions
                        .iter()
                        .position(|&p| p == i)
                        .is_some_and(|k| zeros & (1 << k) != 0)
            };
            let mut ops: SmallVec<[(Role, Operand); 8]> = dsts
                .iter()
                .map(|&(r, o)| (r, representative(o, SrcMods::default())))
                .collect();
            for (i, (role, a)) in srcs.iter().enumerate() {
                let (mop, m) = match *a {
                    Arg::Op(o, m) => (o, m),
                    Arg::Val(_, m) if fold(i) => (MOp::Fixed(foldable[i].expect("foldable")), m),
                    Arg::Val(_, m) if as_rz(i) => (MOp::Fixed(V::Reg(ptxc_sass::isa::RZ)), m),
                    Arg::Val(v, m) if self.vcode_class(v) == VClass::Pred => {
                        (MOp::Pred(crate::vcode::VReg(0), false), m)
                    }
                    Arg::Val(_, m) => (MOp::Reg(crate::vcode::VReg(0)), m),
                };
                ops.push((*role, representative(mop, m)));
            }
            let fits = find_form(self.vcode.arch, op, &ops, mods).map_err(|e| self.unsupported(e.to_string()))?;
            let Some(form) = fits else {
                continue;
            };
            // A uniform guard names a uniform predicate: a vector predicate cannot guard it.
            if guard.is_some() && form.form().uniform_guard {
                return Err(self.unsupported(format!("{op:?} under a per-thread guard")));
            }
            let mut slots: SmallVec<[Slot; 6]> = dsts
                .iter()
                .map(|&(role, op)| Slot {
                    role,
                    op,
                    mods: SrcMods::default(),
                })
                .collect();
            for (i, (role, a)) in srcs.iter().enumerate() {
                let (mop, m) = match *a {
                    Arg::Op(o, m) => (o, m),
                    Arg::Val(_, m) if fold(i) => (MOp::Fixed(foldable[i].expect("foldable")), m),
                    Arg::Val(_, m) if as_rz(i) => (MOp::Fixed(V::Reg(ptxc_sass::isa::RZ)), m),
                    Arg::Val(v, m) => (self.reg_op(v), m),
                };
                slots.push(Slot {
                    role: *role,
                    op: mop,
                    mods: m,
                });
            }
            self.push(MInst {
                kind: MKind::Sass {
                    op,
                    slots,
                    mods: mods.iter().copied().collect(),
                },
                guard,
                keep: None,
                target: None,
                srcloc: ptxc_mir::ir::SrcLoc::NONE,
                warp_wide: false,
            });
            return Ok(());
        }
        // No form takes a fixed immediate where it stands (both sources of a compare can be
        // constants once narrowed): move the first immediate of a 32-bit source into a
        // register and retry.
        let data_imm = |(role, a): &(Role, Arg)| {
            single_source(op, *role)
                && matches!(a, Arg::Op(MOp::Fixed(V::Imm(k)), m) if *k >> 32 == 0 && *m == SrcMods::default())
        };
        if let Some(i) = srcs.iter().position(data_imm)
            && let (role, Arg::Op(imm, _)) = srcs[i]
        {
            let r = self.vcode.new_vreg(VClass::Single);
            self.push(super::operand::mov(r, imm));
            let mut retry = srcs.to_vec();
            retry[i] = (role, Arg::op(MOp::Reg(r)));
            return self.emit_sass(op, dsts, &retry, mods, guard);
        }
        Err(self.unsupported(format!("{op:?} with these operands ({srcs:?}, {mods:?})")))
    }
}
