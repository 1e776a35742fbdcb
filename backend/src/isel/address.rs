//! Addresses: a MIR address value plus a constant offset becomes the address operand of a
//! memory instruction of its state space: `[Ra.64+imm]` for global and generic memory,
//! `[Ra+imm]` for shared and local memory (32-bit addresses: the low register of a 64-bit
//! value), `c[bank][Ra+imm]` for constant and parameter loads. Additions of constants and
//! the addresses of shared, constant and local variables fold into the offset.

use super::Isel;
use crate::vars::Place;
use crate::vcode::MOp;
use ptxc_mir::ir::{Aux, Opcode, Space, Type, Value};
use ptxc_sass::isa::{RZ, Value as V};

/// What an address is relative to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    /// Nothing: the offset is the address (RZ as the base register).
    Zero,
    /// The stack pointer.
    Sp,
    /// A value in a register (a pair for 64-bit addresses).
    Value(Value),
}

/// True for the spaces with 32-bit addresses.
pub fn is_narrow(space: Space) -> bool {
    matches!(
        space,
        Space::Shared | Space::Local | Space::Const | Space::Param | Space::SharedCluster
    )
}

/// The offsets the address operands of `space` can hold.
fn offset_range(space: Space) -> std::ops::Range<i64> {
    match space {
        Space::Const | Space::Param => -(1 << 15)..(1 << 15),
        _ => -(1 << 23)..(1 << 23),
    }
}

/// The constant-bank offset that a parameter-space address `k` reads (`param_base`: the
/// target's offset of the parameters in bank 0).
fn bank_offset(space: Space, k: i64, param_base: i64) -> i64 {
    if space == Space::Param { param_base + k } else { k }
}

impl Isel<'_> {
    /// The integer constant `v` holds (sign-extended from its width).
    pub(super) fn int_const(&self, v: Value) -> Option<i64> {
        let d = self.def_of(v)?;
        match (d.op, &d.aux, self.func.ty(v)) {
            (Opcode::Const, Aux::Imm(k), Type::I32) => Some(*k as u32 as i32 as i64),
            (Opcode::Const, Aux::Imm(k), Type::I64) => Some(*k as i64),
            _ => None,
        }
    }

    /// True if `v` is computed by an instruction fused into its users (not selected).
    fn fused_value(&self, v: Value) -> bool {
        self.func.def_inst(v).is_some_and(|i| self.is_fused(i))
    }

    /// The place of the variable whose address `v` is, if it is one.
    pub fn var_place(&self, v: Value) -> Option<Place> {
        match self.def_of(v) {
            Some(d) if d.op == Opcode::Addr => match d.aux {
                Aux::Var(i) => self.vars.places.get(i as usize).copied(),
                _ => None,
            },
            _ => None,
        }
    }

    /// The constant `v` is in an address of `space`: an integer constant, or the address of
    /// a variable of `space` whose address is its offset (shared and constant variables),
    /// possibly through copies, conversions and added constants.
    fn address_const(&self, v: Value, space: Space) -> Option<i64> {
        if let Some(k) = self.int_const(v) {
            return Some(k);
        }
        match (self.var_place(v), space) {
            (Some(Place::Shared { offset }), Space::Shared) | (Some(Place::Const { offset }), Space::Const) => {
                return Some(offset as i64);
            }
            _ => {}
        }
        let (next, k) = self.address_step(v, space, false)?;
        self.address_const(next, space).map(|c| c.wrapping_add(k))
    }

    /// One step through `v` towards the base of an address of `space`: `(next value, added
    /// constant)`. With `variables`, an addition may also add an [`Isel::address_const`]
    /// (which itself steps without it, so the search stays linear).
    fn address_step(&self, v: Value, space: Space, variables: bool) -> Option<(Value, i64)> {
        let narrow = is_narrow(space);
        let d = self.def_of(v)?;
        let int_ok = |t: Type| t == Type::I64 || (narrow && t == Type::I32);
        match d.op {
            Opcode::Copy | Opcode::Bitcast if int_ok(d.ty) && int_ok(self.func.ty(d.args[0])) => Some((d.args[0], 0)),
            Opcode::Iadd if int_ok(d.ty) => {
                if let Some(k) = self.int_const(d.args[1]) {
                    Some((d.args[0], k))
                } else if let Some(k) = self.int_const(d.args[0]) {
                    Some((d.args[1], k))
                } else if !variables {
                    None
                } else if let Some(k) = self.address_const(d.args[1], space) {
                    Some((d.args[0], k))
                } else {
                    self.address_const(d.args[0], space).map(|k| (d.args[1], k))
                }
            }
            // Only the low 32 bits of a narrow address matter.
            Opcode::Convert if narrow => match d.aux {
                Aux::Convert(c)
                    if !c.sat
                        && c.rnd.is_none()
                        && matches!(c.from, Type::I32 | Type::I64)
                        && matches!(d.ty, Type::I32 | Type::I64) =>
                {
                    Some((d.args[0], 0))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// Splits the address `addr + offset` of an access to `space` into a base and an offset
    /// that the address operand can hold; `None` if even the bare offset does not fit.
    pub fn decompose(&self, addr: Value, offset: i64, space: Space) -> Option<(Base, i64)> {
        self.decompose_within(addr, offset, space, offset_range(space))
    }

    /// [`Isel::decompose`] for an address operand whose offsets lie in `range`.
    pub fn decompose_within(
        &self,
        addr: Value,
        offset: i64,
        space: Space,
        range: std::ops::Range<i64>,
    ) -> Option<(Base, i64)> {
        let param_base = i64::from(self.param_base());
        let fits = |k: i64| range.contains(&bank_offset(space, k, param_base));
        let (mut v, mut k) = (addr, offset);
        let mut best = fits(offset).then_some((Base::Value(addr), offset));
        loop {
            if let Some(place) = self.var_place(v) {
                let folded = match (place, space) {
                    (Place::Shared { offset }, Space::Shared) => Some((Base::Zero, k + offset as i64)),
                    (Place::Const { offset }, Space::Const) => Some((Base::Zero, k + offset as i64)),
                    (Place::Local { offset }, Space::Local) => Some((Base::Sp, k + offset as i64)),
                    _ => None,
                };
                if let Some((b, total)) = folded.filter(|&(_, t)| fits(t)) {
                    return Some((b, total));
                }
            }
            // A fused value (a shift a LEA computes, say) has no register to be a base.
            let step = self
                .address_step(v, space, true)
                .filter(|&(next, _)| !self.fused_value(next));
            match step {
                Some((next, add)) => {
                    v = next;
                    k = k.wrapping_add(add);
                    if fits(k) {
                        best = Some((Base::Value(v), k));
                    }
                }
                None => return best,
            }
        }
    }

    /// The address values an access folds away (counted as unused by its base's users).
    pub fn folded_address(&self, addr: Value, offset: i64, space: Space) -> bool {
        !matches!(self.decompose(addr, offset, space), Some((Base::Value(v), _)) if v == addr)
    }

    /// The memory operand `[base + offset]` of an access to `space`.
    pub fn mem_operand(&mut self, addr: Value, offset: i64, space: Space) -> Result<MOp, super::IselError> {
        self.mem_operand_within(addr, offset, space, offset_range(space))
    }

    /// [`Isel::mem_operand`] for an address operand whose offsets lie in `range`.
    pub fn mem_operand_within(
        &mut self,
        addr: Value,
        offset: i64,
        space: Space,
        range: std::ops::Range<i64>,
    ) -> Result<MOp, super::IselError> {
        let (base, k) = self
            .decompose_within(addr, offset, space, range)
            .ok_or_else(|| self.unsupported(format!("address offset {offset} in {}-space accesses", space.name())))?;
        let narrow = is_narrow(space);
        if let Base::Value(v) = base
            && !narrow
            && self.func.ty(v) != Type::I64
        {
            return Err(self.unsupported(format!("32-bit addresses in {}-space accesses", space.name())));
        }
        let base_reg = match base {
            Base::Zero => None,
            Base::Sp => return Ok(MOp::SpMem { offset: k as i32 }),
            Base::Value(v) => Some(self.reg(v)),
        };
        let offset = bank_offset(space, k, i64::from(self.param_base())) as i32;
        Ok(match (space, base_reg) {
            (Space::Const | Space::Param, Some(base)) => MOp::CMem {
                bank: if space == Space::Const { 3 } else { 0 },
                base,
                offset,
            },
            (Space::Const | Space::Param, None) => MOp::Fixed(V::CBank {
                bank: if space == Space::Const { 3 } else { 0 },
                offset,
                reg: Some(RZ),
            }),
            (_, Some(base)) => MOp::Mem {
                base,
                offset,
                uniform: None,
            },
            (_, None) => MOp::Fixed(V::Mem {
                base: RZ,
                uniform: None,
                offset,
                scale: 0,
            }),
        })
    }
}
