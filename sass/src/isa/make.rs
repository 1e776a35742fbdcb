//! Building instructions by role: pick the form of an operation whose operand slots accept
//! the given values (register, immediate, constant ...), and fill every other operand and
//! modifier with its default.

use super::arch::Arch;
use super::control::Control;
use super::desc::{Form, ImmStyle, Op, OpKind, OperandDesc, Role, Show};
use super::inst::{FormId, Inst, Operand, Value};
use super::modifier::{Mod, ModSet, ModValue};
use super::table::{NotDescribed, arch_view};
use super::values::{
    AtomType, BulkDirection, BulkRedType, FloatAtomType, HmmaDType, HopperAtomType, LdsmCount, MemOrder, MemSem,
    MemSize, Scope, TmaDim,
};
use smallvec::SmallVec;

/// Why no form fits.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MakeError {
    /// The architecture's instruction set is not described.
    #[error(transparent)]
    NotDescribed(#[from] NotDescribed),
    /// No form of the operation accepts these operands and modifiers.
    #[error("no {op:?} form takes {what}")]
    NoForm {
        /// The operation.
        op: Op,
        /// What was counted (operands or modifiers).
        what: String,
    },
}

impl Inst {
    /// An instruction of form `id` with every operand and modifier at its default.
    pub fn with_defaults(id: FormId) -> Inst {
        let form = id.form();
        Inst {
            form: id,
            guard: 7,
            guard_neg: false,
            operands: form.operands.iter().map(default_operand).collect(),
            mods: form.mods.iter().map(|m| m.default).collect(),
            ctrl: Control::default(),
        }
    }

    /// The form description.
    pub fn desc(&self) -> &'static Form {
        self.form.form()
    }

    /// The first operand with `role`.
    pub fn get(&self, role: Role) -> Option<&Operand> {
        self.desc().operand_index(role).and_then(|i| self.operands.get(i))
    }

    /// The code of modifier `id`, if the form has it.
    pub fn mod_code(&self, id: Mod) -> Option<u16> {
        self.desc().mod_index(id).and_then(|i| self.mods.get(i).copied())
    }

    /// The value of the modifier of type `T`, if the form has it (and its code has a meaning).
    pub fn get_mod<T: ModValue>(&self) -> Option<T> {
        self.mod_code(T::ID).and_then(T::from_code)
    }

    /// Whether operand `i` exists: an operand shown only under a modifier (LD's and LDS's
    /// `.ZD` predicate, a carry-in without `.X`, HFMA2's predicate under `.RELU`) is absent
    /// while the modifier is off, whatever its field holds.
    pub fn has_operand(&self, i: usize) -> bool {
        match self.desc().operands[i].show {
            Show::IfMod(k) | Show::IfModAndNotDefault(k) => self.mods.get(k as usize).is_some_and(|&v| v != 0),
            _ => true,
        }
    }

    /// An atomic's data type, however the architecture spells it ([`AtomType`], or Hopper's
    /// [`HopperAtomType`] and [`FloatAtomType`]).
    pub fn atom_type(&self) -> Option<AtomType> {
        self.get_mod::<AtomType>()
            .or_else(|| self.get_mod::<HopperAtomType>().map(HopperAtomType::semantic))
            .or_else(|| self.get_mod::<FloatAtomType>().map(FloatAtomType::semantic))
    }

    /// True if flag `id` is present and set.
    pub fn flag(&self, id: Mod) -> bool {
        self.mod_code(id) == Some(1)
    }

    /// Register width (1, 2 or 4; up to 7 for a TMA instruction's block) of the operand at
    /// `index`; width 0 in the table means "from the modifiers" (memory data, see
    /// `width_from_mods`; uniform blocks, see `block_width`). An address register is a
    /// pair under `.E`, or, in the uniform-address forms, when its suffix is `.64`.
    pub fn reg_width(&self, index: usize) -> u8 {
        let d = &self.desc().operands[index];
        match d.kind {
            OpKind::Gpr { width: 0, .. } | OpKind::Ugpr { width: 0, .. } => self.width_from_mods(),
            OpKind::Gpr { width, .. } | OpKind::Ugpr { width, .. } => width,
            OpKind::UregBlock { width: 0, .. } => self.block_width(index),
            OpKind::UregBlock { width, .. } => width,
            // In the uniform-address forms the register's own width suffix decides:
            // `[R16.U32+UR8]` reads R16 only, even under `.E`.
            OpKind::Mem { .. } if d.swizzle.is_some() => 1 + self.operands[index].swizzle.min(1),
            OpKind::Mem { .. } if self.flag(Mod::E) => 2,
            _ => 1,
        }
    }
}

impl Inst {
    /// Width of the uniform register block at `index` whose table width is 0: a TMA
    /// instruction's `[URa]` holds the shared address (UTMALDG: and the mbarrier) before the
    /// coordinates; a bulk copy's address is a pair (a 64-bit global address, or a shared
    /// address and its mbarrier) unless it is a shared source.
    fn block_width(&self, index: usize) -> u8 {
        let dims = self.get_mod::<TmaDim>().map_or(1, TmaDim::count);
        let direction = self.get_mod::<BulkDirection>().unwrap_or_default();
        match (self.desc().op, index) {
            (Op::Utmaldg, _) => 2 + dims,
            (Op::Utmastg | Op::Utmaredg, _) => 1 + dims,
            (Op::Utmapf, _) => dims,
            (Op::Ublkcp | Op::Ublkred, 0) => 2,
            (Op::Ublkcp | Op::Ublkred, _) if direction.from_shared() => 1,
            _ => 2,
        }
    }

    /// Register width of memory data: from the access size, the atomic type (64-bit types
    /// 2), LDSM's matrix count or HMMA.1688's result type.
    fn width_from_mods(&self) -> u8 {
        if let Some(size) = self.get_mod::<MemSize>() {
            return size.registers();
        }
        if let Some(t) = self.get_mod::<BulkRedType>() {
            // REDAS's data: a pair for 64-bit types.
            return if matches!(t, BulkRedType::U64 | BulkRedType::S64 | BulkRedType::F64) {
                2
            } else {
                1
            };
        }
        if let Some(d) = self.get_mod::<HmmaDType>() {
            // HMMA's C and D: f16 pairs or f32 quads.
            return if d == HmmaDType::F32 { 4 } else { 2 };
        }
        match (self.atom_type(), self.get_mod::<LdsmCount>()) {
            (Some(AtomType::U64 | AtomType::S64 | AtomType::F64), _) | (_, Some(LdsmCount::X2)) => 2,
            (_, Some(LdsmCount::X4)) => 4,
            _ => 1,
        }
    }
}

fn default_operand(d: &OperandDesc) -> Operand {
    let value = match d.kind {
        OpKind::Gpr { .. } => Value::Reg(d.default as u8),
        OpKind::Ugpr { .. } | OpKind::Gdesc { .. } | OpKind::UregBlock { .. } => Value::UReg(d.default as u8),
        OpKind::Pred { .. } | OpKind::Upred { .. } | OpKind::UpredInverted { .. } => Value::Pred {
            idx: (d.default & 7) as u8,
            neg: d.default >> 3 == 1,
        },
        OpKind::Imm { .. } | OpKind::ImmSplit { .. } => Value::Imm(d.default),
        OpKind::CBank { .. } => Value::CBank {
            bank: 0,
            offset: 0,
            reg: None,
        },
        OpKind::CBankIndexed { .. } => Value::CBank {
            bank: 0,
            offset: 0,
            reg: Some(255),
        },
        OpKind::Mem { .. } => Value::Mem {
            base: 255,
            uniform: None,
            offset: 0,
            scale: 0,
        },
        OpKind::Rel { .. } => Value::Rel(0),
        OpKind::SReg { .. } => Value::SReg(0),
        OpKind::Barrier { .. } => Value::Barrier(0),
        OpKind::Literal(_) => Value::Fixed,
    };
    Operand::new(value)
}

/// True if a value of this kind can go in the slot. An address with a uniform register or
/// a scale goes only where the form has a field for it.
pub fn accepts(kind: OpKind, value: &Value) -> bool {
    if let (
        OpKind::Mem { uniform, scale, .. },
        Value::Mem {
            uniform: u, scale: s, ..
        },
    ) = (kind, value)
    {
        return (u.is_none() || uniform.is_some()) && (*s == 0 || scale.is_some());
    }
    matches!(
        (kind, value),
        (OpKind::Gpr { .. }, Value::Reg(_))
            | (
                OpKind::Ugpr { .. } | OpKind::Gdesc { .. } | OpKind::UregBlock { .. },
                Value::UReg(_)
            )
            | (
                OpKind::Pred { .. } | OpKind::Upred { .. } | OpKind::UpredInverted { .. },
                Value::Pred { .. }
            )
            | (OpKind::Imm { .. } | OpKind::ImmSplit { .. }, Value::Imm(_))
            | (OpKind::CBank { .. }, Value::CBank { reg: None, .. })
            | (OpKind::CBankIndexed { .. }, Value::CBank { reg: Some(_), .. })
            | (OpKind::Rel { .. }, Value::Rel(_))
            | (OpKind::SReg { .. }, Value::SReg(_))
            | (OpKind::Barrier { .. }, Value::Barrier(_))
            | (OpKind::Literal(_), Value::Fixed)
    )
}

/// True if `form` can encode these operands (kinds, source modifiers) and modifiers.
pub fn fits(form: &Form, operands: &[(Role, Operand)], mods: &[ModSet]) -> bool {
    operands.iter().all(|(role, o)| {
        form.operands.iter().find(|d| d.role == *role).is_some_and(|d| {
            accepts(d.kind, &o.value)
                && (!o.neg || d.neg.is_some() || matches!(d.kind, OpKind::Pred { neg: Some(_), .. }))
                && (!o.abs || d.abs.is_some())
                && (o.swizzle == 0 || d.swizzle.is_some() || matches!(d.kind, OpKind::Gdesc { .. }))
                && imm_fits(d.kind, &o.value)
        })
    }) && mods.iter().all(|set| {
        form.mods
            .iter()
            .any(|m| m.id == set.id && m.values.iter().any(|&(k, _)| k == set.code))
    })
}

/// Whether the immediate fits its field. The back end's constants are whole values, so the
/// upper-word integer immediates (I2F from a 64-bit constant) are never chosen for them.
fn imm_fits(kind: OpKind, value: &Value) -> bool {
    match (kind, value) {
        (
            OpKind::Imm {
                style: ImmStyle::HexHi | ImmStyle::SignedHexHi,
                ..
            },
            _,
        ) => false,
        (OpKind::Imm { field, .. }, Value::Imm(v)) => field.fits_unsigned(*v),
        (OpKind::ImmSplit { lo, hi, .. }, Value::Imm(v)) => v >> (lo.len + hi.len) == 0,
        _ => true,
    }
}

/// The modifiers of `op` as `arch` spells them: from sm_80 on, the semantics and scope of a
/// global or generic access (`Mod::Sem`, `Mod::Scope`, sm_75's pair) are one `Mod::Order`
/// code; from sm_90 on, the data type of RED, ATOMG and ATOM is [`AtomType::on_hopper`].
pub fn for_arch(arch: Arch, op: Op, mods: &[ModSet]) -> SmallVec<[ModSet; 8]> {
    let mods = hopper_atom_type(arch, op, mods);
    let code = |id: Mod| mods.iter().find(|m| m.id == id).map(|m| m.code);
    let Some(sem) = code(Mod::Sem) else {
        return mods;
    };
    if arch < Arch::Sm80 {
        return mods;
    }
    let sem = MemSem::from_code(sem).unwrap_or_default();
    let scope = code(Mod::Scope).and_then(Scope::from_code).unwrap_or_default();
    mods.iter()
        .filter(|m| !matches!(m.id, Mod::Sem | Mod::Scope | Mod::Private))
        .copied()
        .chain([MemOrder::of(sem, scope).set()])
        .collect()
}

/// Hopper's RED, ATOMG and ATOM spell their data type in their own codes.
fn hopper_atom_type(arch: Arch, op: Op, mods: &[ModSet]) -> SmallVec<[ModSet; 8]> {
    let hopper = arch >= Arch::Sm90 && matches!(op, Op::Red | Op::Atomg | Op::Atom);
    mods.iter()
        .map(|&m| match AtomType::from_code(m.code) {
            Some(t) if hopper && m.id == Mod::AtomType => t.on_hopper(),
            _ => m,
        })
        .collect()
}

/// The first form of `op` on `arch` that [`fits`] the operands and modifiers (named as on
/// sm_75: see [`for_arch`]).
pub fn find_form(
    arch: Arch,
    op: Op,
    operands: &[(Role, Operand)],
    mods: &[ModSet],
) -> Result<Option<FormId>, NotDescribed> {
    let mods = &for_arch(arch, op, mods)[..];
    Ok(arch_view(arch)?
        .of_op(op)
        .iter()
        .copied()
        .find(|&id| fits(id.form(), operands, mods)))
}

/// Builds an instruction of `op` for `arch`: operands by role (the first slot with that role), modifiers
/// by [`Mod`]; everything else at its default. The first form that accepts them is used.
pub fn make(arch: Arch, op: Op, operands: &[(Role, Operand)], mods: &[ModSet]) -> Result<Inst, MakeError> {
    let mods = &for_arch(arch, op, mods)[..];
    let id = find_form(arch, op, operands, mods)?.ok_or_else(|| MakeError::NoForm {
        op,
        what: format!(
            "{:?} with {:?}",
            operands.iter().map(|(r, o)| (r, o.value)).collect::<Vec<_>>(),
            mods
        ),
    })?;
    let mut inst = Inst::with_defaults(id);
    let form = id.form();
    for (role, o) in operands {
        if let Some(i) = form.operand_index(*role) {
            inst.operands[i] = *o;
        }
    }
    for set in mods {
        if let Some(i) = form.mod_index(set.id) {
            inst.mods[i] = set.code;
        }
    }
    Ok(inst)
}

/// Operand values of an instruction paired with their roles.
pub fn by_role(inst: &Inst) -> SmallVec<[(Role, Operand); 8]> {
    inst.desc()
        .operands
        .iter()
        .map(|d| d.role)
        .zip(inst.operands.iter().copied())
        .collect()
}
