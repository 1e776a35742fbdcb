//! Instructions decoded once at load time into a form the engine executes quickly: operands
//! by role, modifier values by name, absolute branch targets, and the register accesses the
//! hazard model checks.

use ptxc_backend::isa::access::{Accesses, accesses, needs_write_scoreboard, reads_late};
use ptxc_backend::isa::{Control, Inst, Op, PT, RZ, Role, Value};

/// A source operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    /// A general register (RZ reads 0).
    Reg(u8),
    /// A uniform register.
    UReg(u8),
    /// An immediate (raw bits).
    Imm(u64),
    /// `c[bank][offset]`, optionally indexed by a register.
    Const { bank: u8, offset: i32, reg: Option<u8> },
    /// No operand in this slot.
    None,
}

/// A source with its modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SrcOp {
    /// The value.
    pub src: Src,
    /// `-x` (or `~x` in `.X` integer forms).
    pub neg: bool,
    /// `|x|`.
    pub abs: bool,
}

impl SrcOp {
    const NONE: SrcOp = SrcOp {
        src: Src::None,
        neg: false,
        abs: false,
    };
}

/// A predicate operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PredOp {
    /// Index (7 = PT).
    pub idx: u8,
    /// Negated.
    pub neg: bool,
}

impl PredOp {
    /// PT.
    pub const TRUE: PredOp = PredOp { idx: PT, neg: false };
}

/// Modifier values the engine uses, extracted by name once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct Mods {
    pub signed: bool,
    pub x: bool,
    pub cmp: u8,
    pub bop: u8,
    pub ex: bool,
    pub ftz: bool,
    pub rnd: u8,
    pub sat: bool,
    pub fmz: bool,
    pub size: u8,
    pub hi: bool,
    pub right: bool,
    pub shf_type: u8,
    pub w: bool,
    pub sx32: bool,
    pub func: u8,
    pub e: bool,
    pub sem: u8,
    pub scope: u8,
    pub mode: u8,
    pub wide: bool,
    pub clear: bool,
    pub scale: u8,
}

impl Mods {
    fn from_inst(inst: &Inst) -> Mods {
        let mut m = Mods {
            signed: true,
            size: 4,
            ..Mods::default()
        };
        for (desc, &v) in inst.desc().mods.iter().zip(&inst.mods) {
            let b = v != 0;
            match desc.name {
                "signed" => m.signed = b,
                "x" => m.x = b,
                "cmp" => m.cmp = v as u8,
                "bop" => m.bop = v as u8,
                "ex" => m.ex = b,
                "ftz" => m.ftz = b,
                "rnd" => m.rnd = v as u8,
                "sat" => m.sat = b,
                "fmz" => m.fmz = b,
                "size" => m.size = v as u8,
                "hi" => m.hi = b,
                "right" => m.right = b,
                "type" => m.shf_type = v as u8,
                "w" => m.w = b,
                "sx32" => m.sx32 = b,
                "func" => m.func = v as u8,
                "e" => m.e = b,
                "sem" => m.sem = v as u8,
                "scope" => m.scope = v as u8,
                "mode" => m.mode = v as u8,
                "wide" => m.wide = b,
                "clear" => m.clear = b,
                "scale" => m.scale = v as u8,
                _ => {}
            }
        }
        m
    }
}

/// One decoded instruction.
#[derive(Clone, Debug)]
pub struct Decoded {
    /// Byte offset in the kernel.
    pub pc: u32,
    /// Semantic operation.
    pub op: Op,
    /// The full instruction (for messages and rarely used fields).
    pub inst: Inst,
    /// Guard predicate.
    pub guard: PredOp,
    /// Destination register (RZ if none) and its width in registers.
    pub dst: u8,
    /// Width of the destination.
    pub dst_width: u8,
    /// Predicate destinations (PT if none).
    pub pd: [u8; 2],
    /// Sources A, B, C.
    pub a: SrcOp,
    /// Source B.
    pub b: SrcOp,
    /// Source C.
    pub c: SrcOp,
    /// Predicate sources.
    pub ps: [PredOp; 3],
    /// Memory address: base register, offset.
    pub addr: Option<(u8, i32)>,
    /// Data register of stores (and its width).
    pub data: Option<(u8, u8)>,
    /// Other immediates (LOP3 table, LEA shift, BAR id...).
    pub other: u64,
    /// Second immediate (PLOP3).
    pub aux: u64,
    /// Absolute branch target.
    pub target: Option<u32>,
    /// Special register / barrier register number.
    pub special: u8,
    /// Modifiers.
    pub m: Mods,
    /// Register accesses for the hazard model.
    pub accesses: Accesses,
    /// Result through a write scoreboard.
    pub variable_latency: bool,
    /// Reads registers after issue.
    pub reads_late: bool,
    /// Control code.
    pub ctrl: Control,
}

fn src_of(inst: &Inst, role: Role) -> SrcOp {
    let Some(o) = inst.get(role) else {
        return SrcOp::NONE;
    };
    let src = match o.value {
        Value::Reg(r) => Src::Reg(r),
        Value::UReg(r) => Src::UReg(r),
        Value::Imm(v) => Src::Imm(v),
        Value::CBank { bank, offset, reg } => Src::Const { bank, offset, reg },
        _ => Src::None,
    };
    SrcOp {
        src,
        neg: o.neg,
        abs: o.abs,
    }
}

fn pred_of(inst: &Inst, role: Role) -> PredOp {
    match inst.get(role).map(|o| o.value) {
        Some(Value::Pred { idx, neg }) => PredOp { idx, neg },
        _ => PredOp::TRUE,
    }
}

impl Decoded {
    /// Decodes `inst` found at byte offset `pc`.
    pub fn new(inst: Inst, pc: u32) -> Decoded {
        let form = inst.desc();
        let index_of = |role: Role| form.operand_index(role);
        let (dst, dst_width) = match index_of(Role::Dst).map(|i| (inst.operands[i].value, inst.reg_width(i))) {
            Some((Value::Reg(r), w)) => (r, w),
            _ => (RZ, 1),
        };
        let pd_of = |role| match inst.get(role).map(|o| o.value) {
            Some(Value::Pred { idx, .. }) => idx,
            _ => PT,
        };
        let addr = inst.get(Role::Addr).and_then(|o| match o.value {
            Value::Mem { base, offset, .. } => Some((base, offset)),
            _ => None,
        });
        let data = index_of(Role::Data).and_then(|i| match inst.operands[i].value {
            Value::Reg(r) => Some((r, inst.reg_width(i))),
            _ => None,
        });
        let imm_of = |role| match inst.get(role).map(|o| o.value) {
            Some(Value::Imm(v)) => v,
            _ => 0,
        };
        let target = inst.get(Role::Target).and_then(|o| match o.value {
            Value::Rel(off) => Some((pc as i64 + 16 + off) as u32),
            _ => None,
        });
        let special = inst
            .operands
            .iter()
            .find_map(|o| match o.value {
                Value::SReg(n) | Value::Barrier(n) => Some(n),
                _ => None,
            })
            .unwrap_or(0);
        Decoded {
            pc,
            op: form.op,
            guard: PredOp {
                idx: inst.guard,
                neg: inst.guard_neg,
            },
            dst,
            dst_width,
            pd: [pd_of(Role::PredDst0), pd_of(Role::PredDst1)],
            a: src_of(&inst, Role::A),
            b: src_of(&inst, Role::B),
            c: src_of(&inst, Role::C),
            ps: [
                pred_of(&inst, Role::PredSrc0),
                pred_of(&inst, Role::PredSrc1),
                pred_of(&inst, Role::PredSrc2),
            ],
            addr,
            data,
            other: imm_of(Role::Other),
            aux: imm_of(Role::Aux),
            target,
            special,
            m: Mods::from_inst(&inst),
            accesses: accesses(&inst),
            variable_latency: needs_write_scoreboard(&inst),
            reads_late: reads_late(&inst),
            ctrl: inst.ctrl,
            inst,
        }
    }
}
