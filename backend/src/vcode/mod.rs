//! VCode: SASS operations on virtual registers, in SSA form with block parameters, the
//! shape regalloc2 allocates (the model is Cranelift's `machinst::VCode`). Virtual registers
//! have a width class: single 32-bit registers, aligned pairs, aligned quads, or predicates.

pub mod graph;
mod print;
mod ra_view;

pub use ra_view::{File, View, ra_class};

use ptxc_mir::ir::SrcLoc;
use ptxc_sass::isa::Arch;
use ptxc_sass::isa::values::IntCmp;
use ptxc_sass::isa::{ModSet, Op, Role, Value};
use smallvec::SmallVec;

/// A virtual register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VReg(pub u32);

/// The register file and width of a virtual register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VClass {
    /// One 32-bit register.
    Single,
    /// An even-aligned register pair (64-bit values).
    Pair,
    /// A 4-aligned register quad (128-bit values).
    Quad,
    /// A predicate.
    Pred,
    /// One 32-bit uniform register (UR0..UR62): a warp-uniform value (`uniform/`).
    Uniform,
    /// An even-aligned uniform register pair: a warp-uniform 64-bit address, a parameter
    /// pointer that memory accesses read as `[UR]` (`uniform/pointers.rs`).
    UniformPair,
    /// One 32-bit register pinned to `R<n>`, outside the allocator: a warpgroup accumulator,
    /// which HGMMA writes in place asynchronously (`isel/accumulators.rs`).
    Fixed(u8),
}

impl VClass {
    /// Number of 32-bit registers.
    pub fn width(self) -> u8 {
        match self {
            VClass::Single | VClass::Pred | VClass::Uniform | VClass::Fixed(_) => 1,
            VClass::Pair | VClass::UniformPair => 2,
            VClass::Quad => 4,
        }
    }
}

/// A VCode block index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);

/// An operand of a machine instruction before register allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MOp {
    /// A whole virtual register (its width is its class's).
    Reg(VReg),
    /// Register `index` (0..4) of a pair or quad.
    Sub(VReg, u8),
    /// A predicate register, possibly negated.
    Pred(VReg, bool),
    /// A memory address `[base + offset]` (base is a pair for 64-bit addresses).
    Mem {
        /// Address register.
        base: VReg,
        /// Byte offset.
        offset: i32,
        /// A fixed uniform register added to the address or, with `Mod::Desc`, naming the
        /// memory descriptor (the `.L2::cache_hint` policy pair `desc[UR4]`).
        uniform: Option<u8>,
    },
    /// A memory address `[base.scale + ubase + offset]`: a 32-bit or 64-bit general-register
    /// part (`scale` 0 = none, 1 = `.X4`, 2 = `.X8`, 3 = `.X16`) plus a uniform register.
    UMem {
        /// General-register part of the address.
        base: VReg,
        /// Uniform part ([`VClass::Uniform`]).
        ubase: VReg,
        /// Byte offset.
        offset: i32,
        /// Scale field of `base`.
        scale: u8,
    },
    /// A memory address `[ubase + offset]` with no general-register part: a 64-bit
    /// address in a uniform pair ([`VClass::UniformPair`]).
    UAddr {
        /// The uniform pair holding the address.
        ubase: VReg,
        /// Byte offset.
        offset: i32,
    },
    /// A constant-bank operand indexed by a register: `c[bank][base + offset]`.
    CMem {
        /// Constant bank.
        bank: u8,
        /// Index register (32-bit).
        base: VReg,
        /// Byte offset.
        offset: i32,
    },
    /// The stack pointer (a register reserved after allocation when there is a frame).
    Sp,
    /// A local-memory address `[SP + offset]`.
    SpMem {
        /// Byte offset in the frame.
        offset: i32,
    },
    /// A fixed operand: RZ, PT, an immediate, a constant-bank operand, a special register.
    Fixed(Value),
}

impl MOp {
    /// Calls `f` for every virtual register the operand names (an address's base and
    /// uniform part both).
    pub fn for_each_vreg(&self, mut f: impl FnMut(VReg)) {
        match *self {
            MOp::Reg(v)
            | MOp::Sub(v, _)
            | MOp::Pred(v, _)
            | MOp::Mem { base: v, .. }
            | MOp::CMem { base: v, .. }
            | MOp::UAddr { ubase: v, .. } => f(v),
            MOp::UMem { base, ubase, .. } => {
                f(base);
                f(ubase);
            }
            MOp::Fixed(_) | MOp::Sp | MOp::SpMem { .. } => {}
        }
    }
}

/// Source-operand modifiers kept beside an `MOp`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SrcMods {
    /// `-x`
    pub neg: bool,
    /// `|x|`
    pub abs: bool,
    /// Lane selection of a half-precision source (the ISA's swizzle field value: for HADD2
    /// and its kin 2 = `.H0_H0`, 3 = `.H1_H1`; for conversions and MUFU 1 = `.H1`).
    pub swizzle: u8,
}

impl SrcMods {
    /// `-x`.
    pub const NEG: SrcMods = SrcMods {
        neg: true,
        abs: false,
        swizzle: 0,
    };
    /// `|x|`.
    pub const ABS: SrcMods = SrcMods {
        neg: false,
        abs: true,
        swizzle: 0,
    };
}

/// One operand slot of a SASS instruction: role, value and modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Slot {
    /// The role in the ISA description.
    pub role: Role,
    /// The value.
    pub op: MOp,
    /// Modifiers.
    pub mods: SrcMods,
}

impl Slot {
    /// A slot without modifiers.
    pub fn plain(role: Role, op: MOp) -> Slot {
        Slot {
            role,
            op,
            mods: SrcMods::default(),
        }
    }
}

/// What a machine instruction does. Nearly every instruction is `Sass`, so boxing it to
/// shrink the rare variants would only add an allocation per instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(clippy::large_enum_variant)]
pub enum MKind {
    /// One SASS instruction (the form is chosen by operand kinds at emission).
    Sass {
        /// Operation.
        op: Op,
        /// Operands by role.
        slots: SmallVec<[Slot; 6]>,
        /// Modifiers.
        mods: SmallVec<[ModSet; 4]>,
    },
    /// An operation on register tuples that expands into several SASS instructions after
    /// allocation. The destination is defined early, so it never shares registers with a
    /// source and the expansion may write it in any order.
    Wide {
        /// What to compute.
        op: WideOp,
        /// Destination: a pair or quad (a predicate for comparisons).
        d: VReg,
        /// Sources (tuples, 32-bit values or fixed operands, per `op`).
        srcs: SmallVec<[MOp; 3]>,
        /// A predicate temporary (carry), if the expansion needs one.
        tmp: Option<VReg>,
    },
    /// Unconditional branch.
    Jump(BlockId),
    /// Conditional branch: to `taken` if the predicate (xor `neg`) holds, else `not_taken`.
    CondJump {
        /// Condition.
        cond: VReg,
        /// Branch when the predicate is false.
        neg: bool,
        /// Target when true.
        taken: BlockId,
        /// Target when false.
        not_taken: BlockId,
        /// Every thread of the warp branches the same way (the condition is uniform): no
        /// convergence barrier.
        uniform: bool,
        /// The threads active here all branch the same way (their condition comes from a
        /// vote), which the branch tells the hardware: `BRA.U`.
        active_agree: bool,
    },
    /// End of the thread.
    Exit,
    /// Abort of the kernel (`BPT.TRAP`).
    Trap,
    /// A call of a function the driver provides, with ptxas's ABI: the arguments go to
    /// `R4` and up, the result comes back in `R4` (`R4:R5`). The expansion keeps every
    /// register and predicate in the frame's call save area across the call
    /// (`emit/call.rs`), so the allocator sees only uses and a definition.
    ///
    /// A device function of the kernel (`CallTarget::Function`) is called the same way,
    /// with `CALL.REL.NOINC`; its one argument is the address of the argument area.
    Call {
        /// The function.
        target: CallTarget,
        /// Argument registers, in parameter order.
        args: SmallVec<[VReg; 5]>,
        /// The result (an unused single register for functions without one).
        ret: VReg,
    },
    /// In a device function: the address of the caller's argument area (a pair), which the
    /// prologue keeps in the frame (`emit/function.rs`).
    ArgArea(VReg),
    /// The end of a device function: back to the caller (`RET.REL.NODEC`).
    FuncReturn,
    /// A call of a slow path made a subroutine (`CALL.REL.NOINC`, `isel/subroutine.rs`):
    /// control goes to the block and comes back where its [`MKind::Return`] says.
    SubCall(BlockId),
    /// The end of slow path `n` (`RET.REL.NODEC`): back to the block `to`, whose address
    /// the slow path's return-address pair holds. The pair is a register pair the layout
    /// picks after allocation (`emit/subroutine.rs`), so the allocator does not see it.
    Return {
        /// The block returned to.
        to: BlockId,
        /// The slow path's number.
        n: u16,
    },
    /// Slow path `n`'s return-address pair = the address of block `of` in the kernel's code
    /// (low register) and 0 (high).
    ReturnAddress {
        /// The block.
        of: BlockId,
        /// The slow path's number.
        n: u16,
    },
}

/// What a [`MKind::Call`] calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallTarget {
    /// A function the driver provides, at the address in a slot of constant bank 4.
    Driver {
        /// The function.
        f: ptxc_mir::ir::DriverFn,
        /// Offset of the slot of constant bank 4 that holds the function's address.
        slot: u32,
    },
    /// Device function `n` of the kernel (`Function::callees`), placed after the kernel's
    /// code in the same text section.
    Function(u32),
}

/// The operations of [`MKind::Wide`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WideOp {
    /// `d = a + b` (64-bit).
    Add,
    /// `d = a - b` (64-bit).
    Sub,
    /// `d = -a` (64-bit).
    Neg,
    /// Bitwise `a & b`, `a | b`, `a ^ b` with this LOP3 table (64-bit).
    Logic(u8),
    /// `d = (a << k) + b` (64-bit; `k` in 1..=31): LEA + LEA.HI.X.
    Lea(u8),
    /// `d = a + sext(b)`, `a` 64-bit, `b` a 32-bit register: IADD3 + LEA.HI.X.SX32.
    AddSext,
    /// `d = a << s`, `s` a 32-bit amount (64-bit, clamped).
    Shl,
    /// Logical right shift (64-bit, clamped).
    ShrU,
    /// Arithmetic right shift (64-bit, clamped).
    ShrS,
    /// `d = a * b`, low 64 bits.
    Mul,
    /// `d = p ? a : b` (srcs: p, a, b).
    Select,
    /// Copy of a tuple, 64-bit constant-bank operand or 64-bit immediate.
    Mov,
    /// Build the tuple from 32-bit values, lowest register first.
    Pack,
    /// 64-bit comparison into a predicate: the comparison and signedness.
    Cmp(IntCmp, bool),
}

/// A machine instruction with its guard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MInst {
    /// The operation.
    pub kind: MKind,
    /// `@P` / `@!P`.
    pub guard: Option<(VReg, bool)>,
    /// With a guard: the register whose value the definition keeps where the guard is off
    /// (`d = guard ? op(..) : keep`). The allocator places the definition in `keep`'s
    /// register (regalloc2's reuse constraint), so the guarded instruction writes it in
    /// place, as ptxas's `@!P0 FMUL R4, R4, 16777216`; `keep` is read, never encoded.
    pub keep: Option<VReg>,
    /// The block a non-branch instruction refers to (BSSY's reconvergence point).
    pub target: Option<BlockId>,
    /// The PTX instruction it was selected from (for line tables), if known.
    pub srcloc: SrcLoc,
    /// A warp-wide instruction the compiler inserted itself, implementing no PTX warp
    /// operation (`EIATTR_INT_WARP_WIDE_INSTR_OFFSETS`; `isel/aggregate.rs`).
    pub warp_wide: bool,
}

impl MInst {
    /// An unguarded instruction.
    pub fn new(kind: MKind) -> MInst {
        MInst {
            kind,
            guard: None,
            keep: None,
            target: None,
            srcloc: SrcLoc::NONE,
            warp_wide: false,
        }
    }

    /// Calls `f(vreg, is_def)` for every register operand, guard included; a kept register
    /// ([`MInst::keep`]) is a use, visited after the sources (once, if it is one of them) and
    /// before the definitions.
    pub fn for_each_reg(&self, mut f: impl FnMut(VReg, bool)) {
        if let Some((g, _)) = self.guard {
            f(g, false);
        }
        let keep = self.keep;
        let mut src = |op: &MOp| op.for_each_vreg(|v| f(v, false));
        match &self.kind {
            MKind::Sass { slots, .. } => {
                let mut defs = SmallVec::<[VReg; 2]>::new();
                for s in slots {
                    match (s.op, is_def_role(s.role) && !matches!(s.op, MOp::Fixed(_))) {
                        (MOp::Reg(v) | MOp::Pred(v, _), true) => defs.push(v),
                        (op, _) => src(&op),
                    }
                }
                // A kept register that is also a source is visited once, as that source.
                if let Some(k) = keep.filter(|&k| !slots.iter().any(|s| s.op == MOp::Reg(k) && !is_def_role(s.role))) {
                    src(&MOp::Reg(k));
                }
                for d in defs {
                    f(d, true);
                }
            }
            MKind::Wide { d, srcs, tmp, .. } => {
                srcs.iter().for_each(&mut src);
                if let Some(k) = keep.filter(|&k| !srcs.contains(&MOp::Reg(k))) {
                    src(&MOp::Reg(k));
                }
                if let Some(t) = tmp {
                    f(*t, true);
                }
                f(*d, true);
            }
            MKind::CondJump { cond, .. } => f(*cond, false),
            MKind::Call { args, ret, .. } => {
                for a in args {
                    f(*a, false);
                }
                f(*ret, true);
            }
            MKind::ArgArea(d) => f(*d, true),
            MKind::Jump(_)
            | MKind::Exit
            | MKind::Trap
            | MKind::FuncReturn
            | MKind::SubCall(_)
            | MKind::Return { .. }
            | MKind::ReturnAddress { .. } => {}
        }
    }

    /// The one register the instruction defines, if it defines exactly one.
    pub fn single_def(&self) -> Option<VReg> {
        let mut defs = SmallVec::<[VReg; 2]>::new();
        self.for_each_reg(|v, is_def| {
            if is_def {
                defs.push(v)
            }
        });
        (defs.len() == 1).then(|| defs[0])
    }

    /// Makes the definition of `from` define `to` instead.
    pub fn rename_def(&mut self, from: VReg, to: VReg) {
        if let MKind::Sass { slots, .. } = &mut self.kind {
            for s in slots.iter_mut().filter(|s| is_def_role(s.role)) {
                match &mut s.op {
                    MOp::Reg(v) | MOp::Pred(v, _) if *v == from => *v = to,
                    _ => {}
                }
            }
        }
    }

    /// True for calls (which keep every register in the frame across the call).
    pub fn is_call(&self) -> bool {
        matches!(self.kind, MKind::Call { .. })
    }

    /// True for calls of the kernel's device functions.
    pub fn calls_function(&self) -> bool {
        matches!(
            self.kind,
            MKind::Call {
                target: CallTarget::Function(_),
                ..
            }
        )
    }

    /// True for the end of the thread or of a device function (no successor).
    pub fn ends_function(&self) -> bool {
        matches!(self.kind, MKind::Exit | MKind::Trap | MKind::FuncReturn)
    }

    /// Calls `f` for every operand of a SASS or wide instruction.
    pub fn for_each_op(&self, mut f: impl FnMut(&MOp)) {
        match &self.kind {
            MKind::Sass { slots, .. } => slots.iter().for_each(|s| f(&s.op)),
            MKind::Wide { srcs, .. } => srcs.iter().for_each(f),
            _ => {}
        }
    }

    /// True for block terminators.
    pub fn is_terminator(&self) -> bool {
        matches!(
            self.kind,
            MKind::Jump(_)
                | MKind::CondJump { .. }
                | MKind::Exit
                | MKind::Trap
                | MKind::FuncReturn
                | MKind::SubCall(_)
                | MKind::Return { .. }
        )
    }
}

/// True for roles that are results.
pub fn is_def_role(role: Role) -> bool {
    matches!(role, Role::Dst | Role::PredDst0 | Role::PredDst1)
}

/// A VCode block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VBlock {
    /// Index of the first instruction.
    pub start: u32,
    /// One past the last instruction.
    pub end: u32,
    /// Block parameters.
    pub params: Vec<VReg>,
    /// Successors (in the order of the terminator's targets).
    pub succs: Vec<BlockId>,
    /// Predecessors.
    pub preds: Vec<BlockId>,
    /// Arguments passed to each successor's parameters.
    pub succ_args: Vec<Vec<VReg>>,
}

/// A function in VCode.
#[derive(Clone, Debug, Default)]
pub struct VCode {
    /// Kernel name (for messages).
    pub name: String,
    /// The architecture the instructions are for.
    pub arch: Arch,
    /// Instructions of all blocks, block after block.
    pub insts: Vec<MInst>,
    /// Blocks in layout order; block 0 is the entry.
    pub blocks: Vec<VBlock>,
    /// Class of every virtual register.
    pub classes: Vec<VClass>,
    /// Bytes of local variables at the bottom of the stack frame.
    pub local_bytes: u32,
    /// Alignment the stack frame needs for its local variables (8 or more).
    pub local_align: u32,
    /// The loads of several registers that the code does not read in full: the PTX
    /// instruction and the mask of the bytes it reads (4 bits per register, first register
    /// lowest), for `EIATTR_UNUSED_LOAD_BYTE_OFFSET`.
    pub partly_used_loads: Vec<(SrcLoc, u32)>,
    /// Some loop is left by a divergent branch (its threads leave in different iterations).
    pub divergent_loop: bool,
    /// Registers R0 up to this one (exclusive) hold [`VClass::Fixed`] values; the
    /// allocator's regions start after them (a multiple of 4).
    pub reserved: u8,
    /// A device function (called by its kernel), not a kernel: its frame starts below the
    /// caller's stack pointer and it ends with [`MKind::FuncReturn`].
    pub device_function: bool,
    /// The first convergence barrier the code may use: a device function's callers hold
    /// the barriers below it across their calls.
    pub barrier_base: u8,
}

impl VCode {
    /// A new virtual register of class `c`.
    pub fn new_vreg(&mut self, c: VClass) -> VReg {
        self.classes.push(c);
        VReg(self.classes.len() as u32 - 1)
    }

    /// The class of `v`.
    pub fn class(&self, v: VReg) -> VClass {
        self.classes[v.0 as usize]
    }

    /// The register `v` is pinned to, if it is [`VClass::Fixed`].
    pub fn fixed_reg(&self, v: VReg) -> Option<u8> {
        match self.class(v) {
            VClass::Fixed(r) => Some(r),
            _ => None,
        }
    }

    /// The instructions of block `b`.
    pub fn block_insts(&self, b: BlockId) -> &[MInst] {
        let blk = &self.blocks[b.0 as usize];
        &self.insts[blk.start as usize..blk.end as usize]
    }

    /// Fills in every block's predecessor list from the successor lists.
    pub fn compute_preds(&mut self) {
        for b in &mut self.blocks {
            b.preds.clear();
        }
        for i in 0..self.blocks.len() {
            for s in self.blocks[i].succs.clone() {
                self.blocks[s.0 as usize].preds.push(BlockId(i as u32));
            }
        }
    }
}
