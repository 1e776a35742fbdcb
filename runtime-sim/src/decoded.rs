//! Instructions decoded once at load time into a form the engines execute quickly: operands
//! by role, typed modifier values ([`Mods`]), absolute branch targets, the semantic function
//! that runs the instruction, its timing facts, and the register accesses the hazard model
//! checks.

use crate::exec::semantics::{self, ExecFn};
pub use crate::mods::{AtomicOp, Mods, NumType};
use ptxc_sass::isa::access::{Accesses, Reg, accesses, needs_write_scoreboard, reads_late};
use ptxc_sass::isa::desc::{OpKind, Pipe};
use ptxc_sass::isa::timing::LatCat;
use ptxc_sass::isa::{Control, Inst, Mod, Op, PT, RZ, Role, URZ, Value};

/// A source operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    /// A general register (RZ reads 0).
    Reg(u8),
    /// A uniform register (URZ reads 0).
    UReg(u8),
    /// An immediate (raw bits).
    Imm(u64),
    /// `c[bank][offset]`, optionally indexed by a register.
    Const {
        /// Bank number.
        bank: u8,
        /// Byte offset.
        offset: i32,
        /// Index register (`c[0x3][R2+0x10]`).
        reg: Option<u8>,
    },
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
    /// `~x`.
    pub not: bool,
    /// Suffix field (half swizzle `.H0_H0`/`.H1_H1`/`.F32`, sub-word select, ...).
    pub swizzle: u8,
}

impl SrcOp {
    /// An absent operand.
    pub const NONE: SrcOp = SrcOp {
        src: Src::None,
        neg: false,
        abs: false,
        not: false,
        swizzle: 0,
    };

    /// True if the operand is present.
    pub fn present(&self) -> bool {
        self.src != Src::None
    }
}

/// A predicate operand (general or uniform predicate file).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PredOp {
    /// Index (7 = PT).
    pub idx: u8,
    /// Negated.
    pub neg: bool,
    /// A uniform predicate (UP0..UP6, UPT).
    pub uniform: bool,
}

impl PredOp {
    /// PT.
    pub const TRUE: PredOp = PredOp {
        idx: PT,
        neg: false,
        uniform: false,
    };
}

/// A memory address operand `[Ra + URb + offset]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Addr {
    /// Base register (RZ: none).
    pub base: u8,
    /// Uniform register added to the base (`[R2.64+UR4]`).
    pub ureg: Option<u8>,
    /// Signed byte offset.
    pub offset: i32,
    /// `.X4/.X8/.X16` scaling of the base register (shared memory), as a shift.
    pub scale: u8,
    /// The base is a 64-bit register pair (else a 32-bit register, zero-extended).
    pub wide: bool,
    /// The uniform register is a 64-bit pair (64-bit `.E` addresses of global and generic
    /// accesses, also under a 32-bit `.U32` base: `[R5.U32+UR4]` is `zext(R5) + UR4:UR5`).
    pub ureg_wide: bool,
}

/// A destination register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dst {
    /// First register (RZ / URZ: none).
    pub reg: u8,
    /// Consecutive registers written.
    pub width: u8,
    /// A uniform register.
    pub uniform: bool,
}

impl Dst {
    /// No destination.
    pub const NONE: Dst = Dst {
        reg: RZ,
        width: 1,
        uniform: false,
    };

    /// True if something is written.
    pub fn present(&self) -> bool {
        if self.uniform { self.reg != URZ } else { self.reg != RZ }
    }
}

/// The timing facts of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    /// Latency category.
    pub cat: LatCat,
    /// Execution pipe.
    pub pipe: Pipe,
    /// Result through a write scoreboard.
    pub variable_latency: bool,
    /// Reads registers after issue.
    pub reads_late: bool,
    /// Fixed-latency (reads its operands in the issue window; bank conflicts apply).
    pub coupled: bool,
}

/// One decoded instruction.
#[derive(Clone, Debug)]
pub struct Decoded {
    /// Byte offset in the kernel.
    pub pc: u32,
    /// Semantic operation.
    pub op: Op,
    /// The function that runs it (see [`semantics`]).
    pub exec: ExecFn,
    /// The function moves program counters itself (control flow).
    pub flow: bool,
    /// The full instruction (for messages and rarely used fields); `None` if it could not
    /// be decoded.
    pub inst: Option<Inst>,
    /// Why the instruction could not be decoded.
    pub decode_error: Option<String>,
    /// Guard predicate.
    pub guard: PredOp,
    /// Destination register.
    pub dst: Dst,
    /// Predicate destinations (PT if none).
    pub pd: [PredOp; 2],
    /// Source A.
    pub a: SrcOp,
    /// Source B.
    pub b: SrcOp,
    /// Source C.
    pub c: SrcOp,
    /// Predicate sources.
    pub ps: [PredOp; 3],
    /// Memory address.
    pub addr: Option<Addr>,
    /// Source address of a memory-to-memory copy (LDGSTS's global address; `addr` is then
    /// the shared destination).
    pub src_addr: Option<Addr>,
    /// Data register of stores and atomics (and its width).
    pub data: Option<(u8, u8)>,
    /// Other immediates (LOP3 table, LEA shift, BAR id...).
    pub other: u64,
    /// Second immediate (PLOP3).
    pub aux: u64,
    /// Absolute branch target.
    pub target: Option<u32>,
    /// Special register / convergence-barrier register number.
    pub special: u8,
    /// Modifiers.
    pub m: Mods,
    /// Register accesses for the hazard model.
    pub accesses: Accesses,
    /// Timing facts.
    pub timing: Timing,
    /// Control code.
    pub ctrl: Control,
    /// The highest general register touched + 1 (for sizing the register file).
    pub regs_used: u16,
    /// The memory space of memory instructions.
    pub space: semantics::Space,
}

/// True if memory operand `i` of `inst` carries its base register's width (`.U32`/`.64`, the
/// uniform-register forms of global and generic accesses).
fn has_width_suffix(inst: &Inst, i: usize) -> bool {
    inst.desc().operands[i].swizzle.is_some()
}

fn src_of(inst: &Inst, role: Role) -> SrcOp {
    let form = inst.desc();
    let Some(i) = form.operand_index(role) else {
        return SrcOp::NONE;
    };
    let o = &inst.operands[i];
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
        not: o.not,
        swizzle: o.swizzle,
    }
}

fn pred_of(inst: &Inst, role: Role) -> PredOp {
    let form = inst.desc();
    let Some(i) = form.operand_index(role) else {
        return PredOp::TRUE;
    };
    let uniform = matches!(
        form.operands[i].kind,
        OpKind::Upred { .. } | OpKind::UpredInverted { .. }
    );
    match inst.operands[i].value {
        Value::Pred { idx, neg } => PredOp { idx, neg, uniform },
        _ => PredOp::TRUE,
    }
}

/// The highest general register an access list touches, plus one.
fn regs_used(acc: &Accesses) -> u16 {
    acc.reads
        .iter()
        .chain(&acc.writes)
        .filter_map(|a| match a.reg {
            Reg::R(r) if r != RZ => Some(r as u16 + 1),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// `inst` with the operands that exist only under a modifier that is off (`LD`'s `.ZD`
/// predicate, carry-ins without `.X`) replaced by RZ / PT, so that they are neither
/// executed nor tracked.
fn strip_absent(mut inst: Inst) -> Inst {
    let form = inst.desc();
    for (i, d) in form.operands.iter().enumerate() {
        if inst.has_operand(i) {
            continue;
        }
        let o = &mut inst.operands[i];
        o.value = match o.value {
            Value::Reg(_) => Value::Reg(RZ),
            Value::Pred { .. } if d.is_def => Value::Pred { idx: PT, neg: false },
            v => v,
        };
    }
    inst
}

impl Decoded {
    /// Decodes `inst` found at byte offset `pc`.
    pub fn new(inst: Inst, pc: u32) -> Decoded {
        let inst = strip_absent(inst);
        let form = inst.desc();
        let index_of = |role: Role| form.operand_index(role);
        let dst = index_of(Role::Dst)
            .map(|i| match (form.operands[i].kind, inst.operands[i].value) {
                (_, Value::Reg(r)) => Dst {
                    reg: r,
                    width: inst.reg_width(i),
                    uniform: false,
                },
                (_, Value::UReg(r)) => Dst {
                    reg: r,
                    width: inst.reg_width(i),
                    uniform: true,
                },
                _ => Dst::NONE,
            })
            .unwrap_or(Dst::NONE);
        let wide_addr = inst.flag(Mod::E);
        let mem_at = |role: Role| {
            index_of(role).and_then(|i| match inst.operands[i].value {
                Value::Mem {
                    base,
                    uniform,
                    offset,
                    scale,
                } => Some(Addr {
                    base,
                    // A memory descriptor (sm_80 on) is no part of the address.
                    ureg: uniform.filter(|&u| u != URZ && !inst.flag(Mod::Desc)),
                    offset,
                    scale: [0, 2, 3, 4][scale as usize & 3],
                    wide: if has_width_suffix(&inst, i) {
                        inst.operands[i].swizzle == 1
                    } else {
                        wide_addr || inst.reg_width(i) == 2
                    },
                    ureg_wide: wide_addr,
                }),
                _ => None,
            })
        };
        let addr = mem_at(Role::Addr);
        let src_addr = mem_at(Role::SrcAddr);
        let data = index_of(Role::Data).and_then(|i| match inst.operands[i].value {
            Value::Reg(r) => Some((r, inst.reg_width(i))),
            _ => None,
        });
        let imm_of = |role| match inst.get(role).map(|o| o.value) {
            Some(Value::Imm(v)) => v,
            _ => 0,
        };
        // Relative targets count from the next instruction; absolute ones (CALL.ABS) are
        // code offsets.
        let target = inst.get(Role::Target).and_then(|o| match o.value {
            Value::Rel(off) => u32::try_from(pc as i64 + 16 + off).ok(),
            Value::Imm(abs) => u32::try_from(abs).ok(),
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
        let meta = form.meta;
        let acc = accesses(&inst);
        let timing = Timing {
            cat: meta.cat,
            pipe: meta.pipe,
            variable_latency: needs_write_scoreboard(&inst),
            reads_late: reads_late(&inst),
            coupled: meta.cat.is_coupled(),
        };
        let mut d = Decoded {
            pc,
            op: form.op,
            exec: semantics::unsupported,
            flow: false,
            guard: PredOp {
                idx: inst.guard,
                neg: inst.guard_neg,
                uniform: false,
            },
            dst,
            pd: [pred_of(&inst, Role::PredDst0), pred_of(&inst, Role::PredDst1)],
            a: src_of(&inst, Role::A),
            b: src_of(&inst, Role::B),
            c: src_of(&inst, Role::C),
            ps: [
                pred_of(&inst, Role::PredSrc0),
                pred_of(&inst, Role::PredSrc1),
                pred_of(&inst, Role::PredSrc2),
            ],
            addr,
            src_addr,
            data,
            other: imm_of(Role::Other),
            aux: imm_of(Role::Aux),
            target,
            special,
            m: Mods::of(&inst),
            regs_used: regs_used(&acc),
            space: semantics::space_of_op(form.op),
            accesses: acc,
            timing,
            ctrl: inst.ctrl,
            inst: None,
            decode_error: None,
        };
        d.guard.uniform = uniform_guard(&inst);
        d.inst = Some(inst);
        (d.exec, d.flow) = semantics::select(&d);
        d
    }

    /// A placeholder for an instruction that could not be decoded: it faults if executed.
    pub fn undecodable(pc: u32, why: String) -> Decoded {
        Decoded {
            pc,
            op: Op::Nop,
            exec: semantics::undecodable,
            flow: false,
            inst: None,
            decode_error: Some(why),
            guard: PredOp::TRUE,
            dst: Dst::NONE,
            pd: [PredOp::TRUE; 2],
            a: SrcOp::NONE,
            b: SrcOp::NONE,
            c: SrcOp::NONE,
            ps: [PredOp::TRUE; 3],
            addr: None,
            src_addr: None,
            data: None,
            other: 0,
            aux: 0,
            target: None,
            special: 0,
            m: Mods::default(),
            accesses: Accesses::default(),
            timing: Timing {
                cat: LatCat::Disp,
                pipe: Pipe::Misc,
                variable_latency: false,
                reads_late: false,
                coupled: true,
            },
            ctrl: Control::default(),
            regs_used: 0,
            space: semantics::Space::Global,
        }
    }

    /// The instruction as nvdisasm would print it.
    pub fn text(&self) -> String {
        match &self.inst {
            Some(i) => ptxc_sass::isa::text::inst_text(i, self.pc as u64, &ptxc_sass::isa::text::AddressLabels),
            None => format!("<undecodable: {}>", self.decode_error.as_deref().unwrap_or("?")),
        }
    }
}

/// True if the form's guard is a uniform predicate (uniform-datapath instructions).
fn uniform_guard(inst: &Inst) -> bool {
    inst.desc().uniform_guard
}
