//! A small builder language for writing [`Form`] tables concisely: operand constructors with
//! the standard field positions, modifier constructors, and generators for the operand-form
//! families that share one base opcode (register / immediate / constant / uniform sources).

pub use super::bits::{BitField, bits};
use super::control::Control;
use super::desc::*;

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
/// The "uniform operand" bit of the ALU forms with a uniform register (sm75-encoding.md A.1).
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
        kind: OpKind::Rel { field, shift },
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
pub const fn modifier(
    name: &'static str,
    lo: u8,
    len: u8,
    values: &'static [(u16, &'static str)],
    default: u16,
) -> ModDesc {
    ModDesc {
        name,
        field: bits(lo, len),
        values,
        default,
        upper: None,
    }
}

/// A modifier split over two bit ranges (value = `low | high << low.len`).
pub const fn split_modifier(
    name: &'static str,
    low: BitField,
    high: BitField,
    values: &'static [(u16, &'static str)],
    default: u16,
) -> ModDesc {
    ModDesc {
        name,
        field: low,
        values,
        default,
        upper: Some(high),
    }
}

/// A one-bit flag modifier printed as its spelling when set: `flag!("x", 74, ".X")`.
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
            not_under: None,
            invalid: Vec::new(),
            meta: Meta {
                cat: LatCat::Alu,
                pipe: Pipe::Alu,
                reads_late: false,
                terminator: false,
            },
            covered: 0,
            template: 0,
        },
    }
}

impl FormBuilder {
    /// Appends operands in printed order.
    pub fn ops(mut self, ops: impl IntoIterator<Item = OperandDesc>) -> Self {
        self.form.operands.extend(ops);
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
        self.form.not_under = self.form.mod_index("x").map(|i| i as u8);
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

/// Bits an operand occupies.
pub fn operand_mask(o: &OperandDesc) -> u128 {
    let bit = |b: Option<u8>| b.map_or(0, |b| bits(b, 1).mask());
    let kind = match o.kind {
        OpKind::Gpr { field, .. }
        | OpKind::Ugpr { field, .. }
        | OpKind::Imm { field, .. }
        | OpKind::Rel { field, .. }
        | OpKind::SReg { field }
        | OpKind::Barrier { field } => field.mask(),
        OpKind::Pred { field, neg } | OpKind::Upred { field, neg } => field.mask() | bit(neg),
        OpKind::ImmSplit { lo, hi, .. } => lo.mask() | hi.mask(),
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
        OpKind::Gpr { field, .. } | OpKind::Ugpr { field, .. } => field.set(template, o.default),
        _ => {}
    }
}

/// Operand placement of a three-source ALU form (sm75-encoding.md A.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src3 {
    /// R, R, R (0x2xx)
    Rrr,
    /// R, R, imm (0x4xx)
    Rri,
    /// R, R, c[][] (0x6xx)
    Rrc,
    /// R, imm, R (0x8xx)
    Rir,
    /// R, c[][], R (0xaxx)
    Rcr,
    /// R, UR, R (0xcxx)
    Rur,
    /// R, R, UR (0xexx)
    Rru,
}

/// Every three-source placement.
pub const ALL_SRC3: [Src3; 7] = [
    Src3::Rrr,
    Src3::Rri,
    Src3::Rrc,
    Src3::Rir,
    Src3::Rcr,
    Src3::Rur,
    Src3::Rru,
];

impl Src3 {
    /// The operand-form bits 9..12.
    pub fn form_bits(self) -> u16 {
        match self {
            Src3::Rrr => 1,
            Src3::Rri => 2,
            Src3::Rrc => 3,
            Src3::Rir => 4,
            Src3::Rcr => 5,
            Src3::Rur => 6,
            Src3::Rru => 7,
        }
    }

    /// Descriptors of operands B and C for this placement. Register sources get their reuse
    /// slot; `imm_style` is the printing style of an immediate.
    pub fn b_c(self, imm_style: ImmStyle) -> (OperandDesc, OperandDesc) {
        let rb = reg(Role::B, RB).reuse(1);
        let rb_in_c = reg(Role::B, RC).reuse(1);
        let rc = reg(Role::C, RC).reuse(2);
        match self {
            Src3::Rrr => (rb, rc),
            Src3::Rri => (rb_in_c, imm32(Role::C, imm_style)),
            Src3::Rrc => (rb_in_c, cbank(Role::C)),
            Src3::Rir => (imm32(Role::B, imm_style), rc),
            Src3::Rcr => (cbank(Role::B), rc),
            Src3::Rur => (ureg(Role::B, RB), rc),
            Src3::Rru => (rb_in_c, ureg(Role::C, RB)),
        }
    }

    /// True if the placement uses a uniform register (bit 91 set).
    pub fn uniform(self) -> bool {
        matches!(self, Src3::Rur | Src3::Rru)
    }
}

/// Builds one form per placement: `base` is the 9-bit base opcode, `make` receives the
/// opcode, the placement and the B and C operand descriptors.
pub fn src3_family(
    base: u16,
    placements: &[Src3],
    imm_style: ImmStyle,
    make: impl Fn(u16, Src3, OperandDesc, OperandDesc) -> FormBuilder,
) -> Vec<Form> {
    placements
        .iter()
        .map(|&p| {
            let (b, c) = p.b_c(imm_style);
            let f = make(base | p.form_bits() << 9, p, b, c);
            if p.uniform() {
                f.fixed(UNIFORM_BIT, 1, 1).build()
            } else {
                f.build()
            }
        })
        .collect()
}

/// Second-operand placement of a two-source form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src2 {
    /// Register in the Rb field, with the given form bits.
    Reg(u16),
    /// Register in the Rc field (DADD-style).
    RegInC(u16),
    /// 32-bit immediate.
    Imm(u16),
    /// Constant bank.
    Const(u16),
    /// Uniform register in bits 32..38 (bit 91 set).
    Ureg(u16),
}

/// The placements of the common two-source forms (R 0x2, imm 0x8, c 0xa, UR 0xc).
pub const SRC2_RICU: [Src2; 4] = [Src2::Reg(1), Src2::Imm(4), Src2::Const(5), Src2::Ureg(6)];

/// The placements of the single-source forms (R 0x3, imm 0x9, c 0xb, UR 0xd).
pub const SRC1_RICU: [Src2; 4] = [Src2::Reg(1), Src2::Imm(4), Src2::Const(5), Src2::Ureg(6)];

/// Builds one form per placement of operand B of a two-source instruction.
pub fn src2_family(
    base: u16,
    placements: &[Src2],
    imm_style: ImmStyle,
    make: impl Fn(u16, OperandDesc) -> FormBuilder,
) -> Vec<Form> {
    placements
        .iter()
        .map(|&p| match p {
            Src2::Reg(fb) => make(base | fb << 9, reg(Role::B, RB).reuse(1)).build(),
            Src2::RegInC(fb) => make(base | fb << 9, reg(Role::B, RC).reuse(1)).build(),
            Src2::Imm(fb) => make(base | fb << 9, imm32(Role::B, imm_style)).build(),
            Src2::Const(fb) => make(base | fb << 9, cbank(Role::B)).build(),
            Src2::Ureg(fb) => make(base | fb << 9, ureg(Role::B, RB)).fixed(UNIFORM_BIT, 1, 1).build(),
        })
        .collect()
}

/// Float-style source modifiers, which belong to encoding slots rather than roles: the
/// operand in bits 32..64 (register B or a constant) takes negation 63 and absolute value 62;
/// the register in the Rc field takes absolute value 74 and negation 75. Immediates and
/// uniform registers take none.
pub fn float_slot_mods(b: OperandDesc, c: OperandDesc) -> (OperandDesc, OperandDesc) {
    (slot_mods(b), slot_mods(c))
}

fn slot_mods(o: OperandDesc) -> OperandDesc {
    match o.kind {
        OpKind::Gpr { field, .. } if field.lo == RC => o.abs(74).neg(75),
        OpKind::Gpr { .. } | OpKind::CBank { .. } => o.neg(63).abs(62),
        _ => o,
    }
}
