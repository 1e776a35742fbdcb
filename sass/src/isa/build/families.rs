//! Generators for the operand-form families that share one base opcode: register /
//! immediate / constant / uniform placements of the second and third sources
//! (docs/ENCODING-SM75.md A.4), and the slot-bound float source modifiers.

use super::*;

/// Operand placement of a three-source ALU form (docs/ENCODING-SM75.md A.4).
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
