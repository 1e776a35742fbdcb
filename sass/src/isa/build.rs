//! A small builder language for writing [`Form`] tables concisely: operand constructors with
//! the standard field positions, modifier constructors, the [`FormBuilder`], and (in
//! `families`) generators for the operand-form families that share one base opcode.

pub use super::arch::{Arch, Archs};
pub use super::bits::{BitField, bits};
use super::control::Control;
use super::desc::*;
pub use super::modifier::Mod;

mod families;
pub use families::*;

/// Bits 0..12: base opcode and operand form.
pub const OPCODE: BitField = bits(0, 12);
/// Guard predicate index.
pub const GUARD: BitField = bits(12, 3);
/// Guard negation.
pub const GUARD_NEG: BitField = bits(15, 1);

/// Destination register field.
pub const RD: u8 = 16;
/// First source register field.
pub const RA: u8 = 24;
/// Second source register field (register form).
pub const RB: u8 = 32;
/// Third source register field.
pub const RC: u8 = 64;
/// The "uniform operand" bit of the ALU forms with a uniform register (docs/ENCODING-SM75.md A.1).
pub const UNIFORM_BIT: u8 = 91;

/// A register operand at `lo` (8-bit field).
pub fn reg(role: Role, lo: u8) -> OperandDesc {
    OperandDesc {
        role,
        kind: OpKind::Gpr {
            field: bits(lo, 8),
            width: 1,
        },
        neg: None,
        abs: None,
        not: None,
        reuse: None,
        default: 0,
        show: Show::Always,
        is_def: matches!(role, Role::Dst),
        swizzle: None,
        sep: Sep::Comma,
    }
}

/// The destination register.
pub fn rd() -> OperandDesc {
    reg(Role::Dst, RD)
}

/// A uniform register operand at `lo` (6-bit field).
pub fn ureg(role: Role, lo: u8) -> OperandDesc {
    OperandDesc {
        kind: OpKind::Ugpr {
            field: bits(lo, 6),
            width: 1,
        },
        ..reg(role, lo)
    }
}

/// The uniform destination register.
pub fn urd() -> OperandDesc {
    ureg(Role::Dst, RD)
}

/// A predicate operand: 3-bit index at `lo`, negation at `neg`. Default PT (or !PT when
/// `default_neg`).
pub fn pred(role: Role, lo: u8, neg: Option<u8>, default_neg: bool) -> OperandDesc {
    OperandDesc {
        kind: OpKind::Pred {
            field: bits(lo, 3),
            neg,
        },
        default: 7 | u64::from(default_neg) << 3,
        is_def: matches!(role, Role::PredDst0 | Role::PredDst1),
        ..reg(role, lo)
    }
}

/// A uniform predicate operand (like [`pred`], printed `UPn`).
pub fn upred(role: Role, lo: u8, neg: Option<u8>, default_neg: bool) -> OperandDesc {
    OperandDesc {
        kind: OpKind::Upred {
            field: bits(lo, 3),
            neg,
        },
        ..pred(role, lo, neg, default_neg)
    }
}

/// A 32-bit immediate in bits 32..64.
pub fn imm32(role: Role, style: ImmStyle) -> OperandDesc {
    imm(role, bits(32, 32), style)
}

/// An immediate in `field`.
pub fn imm(role: Role, field: BitField, style: ImmStyle) -> OperandDesc {
    OperandDesc {
        kind: OpKind::Imm { field, style },
        ..reg(role, 0)
    }
}

/// `o` with its immediate printed in `style` (an operand that is no immediate unchanged).
pub fn imm_styled(o: OperandDesc, style: ImmStyle) -> OperandDesc {
    match o.kind {
        OpKind::Imm { field, .. } => OperandDesc {
            kind: OpKind::Imm { field, style },
            ..o
        },
        _ => o,
    }
}

/// A constant-bank ALU operand `c[bank][offset]`: bank 54..59, word offset 40..54 (bits 38
/// and 39 are not part of the operand).
pub fn cbank(role: Role) -> OperandDesc {
    OperandDesc {
        kind: OpKind::CBank {
            bank: bits(54, 5),
            offset: bits(40, 14),
            shift: 2,
        },
        ..reg(role, 0)
    }
}

/// A memory address `[Ra + offset24]`.
pub fn mem(base_lo: u8) -> OperandDesc {
    mem_with(bits(base_lo, 8), bits(40, 24), None, None)
}

/// A memory address with explicit fields.
pub fn mem_with(base: BitField, offset: BitField, uniform: Option<BitField>, scale: Option<BitField>) -> OperandDesc {
    OperandDesc {
        kind: OpKind::Mem {
            base,
            offset,
            uniform,
            scale,
        },
        ..reg(Role::Addr, base.lo)
    }
}

/// A branch target: signed byte offset in `field`.
pub fn rel(field: BitField) -> OperandDesc {
    rel_scaled(field, 0)
}

/// A branch target counting units of `1 << shift` bytes.
pub fn rel_scaled(field: BitField, shift: u8) -> OperandDesc {
    OperandDesc {
        kind: OpKind::Rel {
            field,
            shift,
            low: None,
        },
        ..reg(Role::Target, 0)
    }
}

/// Fixed operand text without bits.
pub fn literal(text: &'static str) -> OperandDesc {
    OperandDesc {
        kind: OpKind::Literal(text),
        ..reg(Role::Other, 0)
    }
}

/// A suffix field of an operand.
pub const fn suffix(lo: u8, len: u8, values: &'static [(u16, &'static str)]) -> SuffixDesc {
    SuffixDesc {
        field: bits(lo, len),
        values,
    }
}

/// Operand builder methods.
pub trait OperandExt: Sized {
    /// Marks the operand as `width` consecutive registers.
    fn width(self, width: u8) -> Self;
    /// Adds a negation bit.
    fn neg(self, bit: u8) -> Self;
    /// Adds an absolute-value bit.
    fn abs(self, bit: u8) -> Self;
    /// Adds a bitwise-not bit.
    fn not(self, bit: u8) -> Self;
    /// Adds a reuse slot.
    fn reuse(self, slot: u8) -> Self;
    /// Sets the printing rule.
    fn show(self, show: Show) -> Self;
    /// Sets the default field value.
    fn default(self, value: u64) -> Self;
    /// Adds a suffix field.
    fn suffix(self, suffix: SuffixDesc) -> Self;
    /// Prints the operand after a space instead of a comma.
    fn spaced(self) -> Self;
    /// Changes the role.
    fn role(self, role: Role) -> Self;
}

impl OperandExt for OperandDesc {
    fn width(mut self, width: u8) -> Self {
        self.kind = match self.kind {
            OpKind::Gpr { field, .. } => OpKind::Gpr { field, width },
            OpKind::Ugpr { field, .. } => OpKind::Ugpr { field, width },
            OpKind::UregBlock { field, prefix, .. } => OpKind::UregBlock { field, prefix, width },
            k => k,
        };
        self
    }
    fn neg(mut self, bit: u8) -> Self {
        self.neg = Some(bit);
        self
    }
    fn abs(mut self, bit: u8) -> Self {
        self.abs = Some(bit);
        self
    }
    fn not(mut self, bit: u8) -> Self {
        self.not = Some(bit);
        self
    }
    fn reuse(mut self, slot: u8) -> Self {
        self.reuse = Some(slot);
        self
    }
    fn show(mut self, show: Show) -> Self {
        self.show = show;
        self
    }
    fn default(mut self, value: u64) -> Self {
        self.default = value;
        self
    }
    fn suffix(mut self, suffix: SuffixDesc) -> Self {
        self.swizzle = Some(suffix);
        self
    }
    fn spaced(mut self) -> Self {
        self.sep = Sep::Space;
        self
    }
    fn role(mut self, role: Role) -> Self {
        self.role = role;
        self
    }
}

/// A modifier field.
pub const fn modifier(id: Mod, lo: u8, len: u8, values: &'static [(u16, &'static str)], default: u16) -> ModDesc {
    ModDesc {
        id,
        field: bits(lo, len),
        values,
        default,
        upper: None,
    }
}

/// A modifier split over two bit ranges (value = `low | high << low.len`).
pub const fn split_modifier(
    id: Mod,
    low: BitField,
    high: BitField,
    values: &'static [(u16, &'static str)],
    default: u16,
) -> ModDesc {
    ModDesc {
        id,
        field: low,
        values,
        default,
        upper: Some(high),
    }
}

/// A one-bit flag modifier printed as its spelling when set: `flag!(Mod::X, 74, ".X")`.
#[macro_export]
macro_rules! flag {
    ($name:expr, $bit:expr, $spelling:expr) => {
        $crate::isa::build::modifier($name, $bit, 1, &[(0, ""), (1, $spelling)], 0)
    };
}

/// Builds one [`Form`].
pub struct FormBuilder {
    form: Form,
}

/// Starts a form.
pub fn form(mnemonic: &'static str, op: Op, opcode: u16) -> FormBuilder {
    FormBuilder {
        form: Form {
            mnemonic,
            op,
            opcode,
            operands: Vec::new(),
            mods: Vec::new(),
            aliases: Vec::new(),
            fixed: Vec::new(),
            uniform_guard: false,
            desc_printed: false,
            not_under: None,
            invalid: Vec::new(),
            meta: Meta {
                cat: LatCat::Alu,
                pipe: Pipe::Alu,
                reads_late: false,
                terminator: false,
            },
            archs: Archs::default(),
            covered: 0,
            template: 0,
        },
    }
}

impl FormBuilder {
    /// The architectures the form exists on (default: all, from sm_75 on).
    pub fn archs(mut self, archs: Archs) -> Self {
        self.form.archs = archs;
        self
    }

    /// Appends operands in printed order.
    pub fn ops(mut self, ops: impl IntoIterator<Item = OperandDesc>) -> Self {
        self.form.operands.extend(ops);
        self
    }

    /// Appends operand `o`, printed only when flag `id` (already added) is set and `o` is
    /// not its default.
    pub fn op_under(mut self, id: Mod, o: OperandDesc) -> Self {
        let k = self.form.mod_index(id).expect("the flag is added first") as u8;
        self.form.operands.push(o.show(Show::IfModAndNotDefault(k)));
        self
    }

    /// Appends an operand printed only under the flag `id` (which is added first), whatever
    /// its value.
    pub fn op_under_always(mut self, id: Mod, o: OperandDesc) -> Self {
        let k = self.form.mod_index(id).expect("the flag is added first") as u8;
        self.form.operands.push(o.show(Show::IfMod(k)));
        self
    }

    /// Appends modifiers in printed order.
    pub fn mods(mut self, mods: impl IntoIterator<Item = ModDesc>) -> Self {
        self.form.mods.extend(mods);
        self
    }

    /// Adds a printing alias.
    pub fn alias(mut self, infix: &'static str, when: &'static [(u8, AliasCond)]) -> Self {
        self.form.aliases.push(Alias { infix, when });
        self
    }

    /// Fixes bits `lo..lo+len` to `value`.
    pub fn fixed(mut self, lo: u8, len: u8, value: u64) -> Self {
        self.form.fixed.push((bits(lo, len), value));
        self
    }

    /// Sets latency category and pipe.
    pub fn timing(mut self, cat: LatCat, pipe: Pipe) -> Self {
        self.form.meta.cat = cat;
        self.form.meta.pipe = pipe;
        self
    }

    /// Marks register sources as read after issue (read scoreboard protects them).
    pub fn reads_late(mut self) -> Self {
        self.form.meta.reads_late = true;
        self
    }

    /// Marks the form as ending a basic block.
    pub fn terminator(mut self) -> Self {
        self.form.meta.terminator = true;
        self
    }

    /// Marks the guard as a uniform predicate (uniform-datapath instructions).
    pub fn uniform_guard(mut self) -> Self {
        self.form.uniform_guard = true;
        self
    }

    /// Rejects encodings whose listed bits have the listed values (`(bit, value)` pairs).
    pub fn invalid_when(mut self, bits_values: &[(u8, bool)]) -> Self {
        let mut mask = 0u128;
        let mut value = 0u128;
        for &(b, v) in bits_values {
            mask |= 1u128 << b;
            value |= u128::from(v) << b;
        }
        self.form.invalid.push((mask, value));
        self
    }

    /// Negation bits print as `~` when the modifier `x` is set.
    pub fn not_under_x(mut self) -> Self {
        self.form.not_under = self.form.mod_index(Mod::X).map(|i| i as u8);
        self
    }

    /// Finishes the form, computing the covered-bits mask and the template.
    pub fn build(mut self) -> Form {
        let f = &mut self.form;
        let mut covered = OPCODE.mask() | GUARD.mask() | GUARD_NEG.mask() | Control::mask();
        let mut template = 0u128;
        OPCODE.set(&mut template, f.opcode as u64);
        GUARD.set(&mut template, 7);
        for o in &f.operands {
            covered |= operand_mask(o);
            set_operand_default(o, &mut template);
        }
        for m in &f.mods {
            covered |= m.mask();
            m.set(&mut template, m.default);
        }
        // Fixed bits stay outside `covered`: the decoder checks them against the template.
        for (field, value) in &f.fixed {
            field.set(&mut template, *value);
        }
        f.covered = covered;
        f.template = template;
        self.form
    }
}

/// Reopens a built form to describe what a later architecture changes in it (the deltas of
/// `sm80`): the result starts with the same opcode, operands, modifiers and fixed bits.
pub fn derive(f: &Form) -> FormBuilder {
    FormBuilder {
        form: Form {
            covered: 0,
            template: 0,
            ..f.clone()
        },
    }
}

impl FormBuilder {
    /// Has opcode `opcode` (bits 0..12).
    pub fn opcode(mut self, opcode: u16) -> Self {
        self.form.opcode = opcode;
        self
    }

    /// Prints as `mnemonic`.
    pub fn mnemonic(mut self, mnemonic: &'static str) -> Self {
        self.form.mnemonic = mnemonic;
        self
    }

    /// nvdisasm prints the memory descriptor whenever the descriptor flag is set.
    pub fn desc_printed(mut self) -> Self {
        self.form.desc_printed = true;
        self
    }

    /// The form exists from `arch` on.
    pub fn since(self, arch: Arch) -> Self {
        self.archs(Archs::since(arch))
    }

    /// Replaces modifier `id` by `with` (in its printed place; an empty list removes it).
    /// References to later modifiers (operand printing rules, `.X`, aliases) follow them; a
    /// reference to the replaced modifier itself must have been changed first.
    pub fn replace_mod(mut self, id: Mod, with: &[ModDesc]) -> Self {
        let f = &mut self.form;
        let at = f
            .mod_index(id)
            .unwrap_or_else(|| panic!("{}: no modifier {id:?}", f.mnemonic));
        let remap = |k: u8| -> u8 {
            let k = k as usize;
            assert!(k != at || with.len() == 1, "{}: still refers to {id:?}", f.mnemonic);
            if k > at { (k + with.len() - 1) as u8 } else { k as u8 }
        };
        let mut operands = f.operands.clone();
        for o in &mut operands {
            o.show = match o.show {
                Show::IfMod(k) => Show::IfMod(remap(k)),
                Show::IfModOrNotDefault(k) => Show::IfModOrNotDefault(remap(k)),
                Show::IfModAndNotDefault(k) => Show::IfModAndNotDefault(remap(k)),
                s => s,
            };
        }
        let not_under = f.not_under.map(remap);
        let aliases = f
            .aliases
            .iter()
            .map(|a| {
                let when: Vec<(u8, AliasCond)> = a
                    .when
                    .iter()
                    .map(|&(i, c)| {
                        if matches!(c, AliasCond::ModIs(_)) {
                            (remap(i), c)
                        } else {
                            (i, c)
                        }
                    })
                    .collect();
                Alias {
                    infix: a.infix,
                    when: Vec::leak(when),
                }
            })
            .collect();
        f.operands = operands;
        f.not_under = not_under;
        f.aliases = aliases;
        f.mods.splice(at..=at, with.iter().copied());
        self
    }

    /// Changes modifier `id` in place.
    pub fn map_mod(mut self, id: Mod, change: impl FnOnce(ModDesc) -> ModDesc) -> Self {
        let f = &mut self.form;
        let i = f
            .mod_index(id)
            .unwrap_or_else(|| panic!("{}: no modifier {id:?}", f.mnemonic));
        f.mods[i] = change(f.mods[i]);
        self
    }

    /// Removes the operand with `role` (its bits must then be fixed or belong to another
    /// field).
    pub fn remove_operand(mut self, role: Role) -> Self {
        let f = &mut self.form;
        let i = f
            .operand_index(role)
            .unwrap_or_else(|| panic!("{}: no {role:?} operand", f.mnemonic));
        f.operands.remove(i);
        self
    }

    /// Changes the operand with `role`.
    pub fn map_operand(mut self, role: Role, change: impl FnOnce(OperandDesc) -> OperandDesc) -> Self {
        let f = &mut self.form;
        let i = f
            .operand_index(role)
            .unwrap_or_else(|| panic!("{}: no {role:?} operand", f.mnemonic));
        f.operands[i] = change(f.operands[i]);
        self
    }

    /// Changes every operand.
    pub fn map_operands(mut self, change: impl Fn(OperandDesc) -> OperandDesc) -> Self {
        for o in &mut self.form.operands {
            *o = change(*o);
        }
        self
    }

    /// Appends an operand in printed position `at`.
    pub fn insert_operand(mut self, at: usize, o: OperandDesc) -> Self {
        self.form.operands.insert(at, o);
        self
    }

    /// Drops the fixed fields that overlap `field`.
    pub fn unfix(mut self, field: BitField) -> Self {
        self.form.fixed.retain(|(f, _)| f.mask() & field.mask() == 0);
        self
    }

    /// Drops the illegal field combinations.
    pub fn no_invalid(mut self) -> Self {
        self.form.invalid.clear();
        self
    }
}

/// Bits an operand occupies.
pub fn operand_mask(o: &OperandDesc) -> u128 {
    let bit = |b: Option<u8>| b.map_or(0, |b| bits(b, 1).mask());
    let kind = match o.kind {
        OpKind::Gpr { field, .. }
        | OpKind::Ugpr { field, .. }
        | OpKind::UregBlock { field, .. }
        | OpKind::Imm { field, .. }
        | OpKind::SReg { field, .. }
        | OpKind::Barrier { field } => field.mask(),
        OpKind::Pred { field, neg } | OpKind::Upred { field, neg } | OpKind::UpredInverted { field, neg } => {
            field.mask() | bit(neg)
        }
        OpKind::Gdesc { ureg, flags, .. } => flags.iter().fold(ureg.mask(), |m, &(b, _)| m | bits(b, 1).mask()),
        OpKind::ImmSplit { lo, hi, .. } => lo.mask() | hi.mask(),
        OpKind::Rel { field, low, .. } => field.mask() | low.map_or(0, |l| l.mask()),
        OpKind::CBank { bank, offset, .. } => bank.mask() | offset.mask(),
        OpKind::CBankIndexed { bank, offset, reg } => bank.mask() | offset.mask() | reg.mask(),
        OpKind::Mem {
            base,
            offset,
            uniform,
            scale,
        } => base.mask() | offset.mask() | uniform.map_or(0, |f| f.mask()) | scale.map_or(0, |f| f.mask()),
        OpKind::Literal(_) => 0,
    };
    kind | bit(o.neg) | bit(o.abs) | bit(o.not) | o.swizzle.map_or(0, |s| s.field.mask())
}

fn set_operand_default(o: &OperandDesc, template: &mut u128) {
    match o.kind {
        OpKind::Pred { field, neg } | OpKind::Upred { field, neg } => {
            field.set(template, o.default & 7);
            if let Some(n) = neg {
                bits(n, 1).set(template, o.default >> 3);
            }
        }
        OpKind::UpredInverted { field, neg } => {
            field.set(template, o.default & 7 ^ 7);
            if let Some(n) = neg {
                bits(n, 1).set(template, o.default >> 3);
            }
        }
        OpKind::Gpr { field, .. } | OpKind::Ugpr { field, .. } | OpKind::UregBlock { field, .. } => {
            field.set(template, o.default)
        }
        _ => {}
    }
}
