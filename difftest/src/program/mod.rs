//! The shape of a generated kernel: pools of typed registers loaded from the input at entry
//! and stored to the output at exit, and a body of statements (instructions, carry chains,
//! divergent if/else, bounded loops, shared-memory exchanges behind barriers, atomics). The
//! shrinker edits this tree; [`print`] renders it as PTX.

pub mod imm;
pub mod opcode;
pub mod print;
pub mod walk;

pub use imm::{Imm, ImmTy};

/// Register classes of the pools, in their order in the input and output rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// `.b32` integers (`%r`).
    B32,
    /// `.b64` integers (`%rd`).
    B64,
    /// `.b16` integers (`%h`).
    B16,
    /// `.f32` floats (`%f`).
    F32,
    /// `.f64` floats (`%fd`).
    F64,
    /// Predicates (`%p`).
    Pred,
}

impl Class {
    /// Every class in row order.
    pub const ALL: [Class; 6] = [Class::B32, Class::B64, Class::B16, Class::F32, Class::F64, Class::Pred];

    /// Position in [`Class::ALL`].
    pub fn slot(self) -> usize {
        self as usize
    }

    /// Register name prefix.
    pub fn prefix(self) -> &'static str {
        match self {
            Class::B32 => "%r",
            Class::B64 => "%rd",
            Class::B16 => "%h",
            Class::F32 => "%f",
            Class::F64 => "%fd",
            Class::Pred => "%p",
        }
    }

    /// Declared register type.
    pub fn decl(self) -> &'static str {
        match self {
            Class::B32 => ".b32",
            Class::B64 => ".b64",
            Class::B16 => ".b16",
            Class::F32 => ".f32",
            Class::F64 => ".f64",
            Class::Pred => ".pred",
        }
    }

    /// Type used to load and store the register (`u32` for predicates, through a temporary).
    pub fn mem_type(self) -> &'static str {
        match self {
            Class::B32 | Class::Pred => "u32",
            Class::B64 => "u64",
            Class::B16 => "u16",
            Class::F32 => "f32",
            Class::F64 => "f64",
        }
    }

    /// The immediate type that can stand for a register of this class in a plain move.
    pub fn imm_ty(self) -> Option<ImmTy> {
        match self {
            Class::B32 => Some(ImmTy::U32),
            Class::B64 => Some(ImmTy::U64),
            Class::B16 => Some(ImmTy::U16),
            Class::F32 => Some(ImmTy::F32),
            Class::F64 => Some(ImmTy::F64),
            Class::Pred => None,
        }
    }
}

/// A pool register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg {
    /// Its class.
    pub class: Class,
    /// Its number within the class.
    pub index: u8,
}

impl std::fmt::Display for Reg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", self.class.prefix(), self.index)
    }
}

/// An operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// A pool register.
    Reg(Reg),
    /// A negated predicate source `!%p`.
    NotPred(Reg),
    /// An immediate.
    Imm(Imm),
    /// A vector of pool registers `{a, b}`.
    Vector(Vec<Reg>),
    /// Fixed text (membermasks, special and reserved registers, addresses) naming no pool
    /// register.
    Fixed(String),
}

impl Operand {
    /// The pool register the operand names, if any.
    pub fn reg(&self) -> Option<Reg> {
        match self {
            Operand::Reg(r) | Operand::NotPred(r) => Some(*r),
            _ => None,
        }
    }

    /// Every pool register the operand names.
    pub fn regs(&self) -> Vec<Reg> {
        match self {
            Operand::Reg(r) | Operand::NotPred(r) => vec![*r],
            Operand::Vector(v) => v.clone(),
            _ => Vec::new(),
        }
    }

    /// The operand with every pool register renamed by `f`.
    pub fn map_regs(&self, f: &dyn Fn(Reg) -> Reg) -> Operand {
        match self {
            Operand::Reg(r) => Operand::Reg(f(*r)),
            Operand::NotPred(r) => Operand::NotPred(f(*r)),
            Operand::Vector(v) => Operand::Vector(v.iter().map(|&r| f(r)).collect()),
            other => other.clone(),
        }
    }
}

/// A source operand with the immediate type that may replace it (None: registers only).
#[derive(Clone, Debug, PartialEq)]
pub struct Src {
    /// The operand.
    pub op: Operand,
    /// Type of an immediate allowed in this position.
    pub imm: Option<ImmTy>,
}

/// How the destinations are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dsts {
    /// One destination, or none.
    Plain,
    /// `a|b` (setp, shfl).
    Pair,
    /// `{a, b}` (vector loads).
    Vector,
}

/// One PTX instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct Inst {
    /// Guard predicate (negated?, register).
    pub guard: Option<(bool, Reg)>,
    /// Opcode with its modifiers and types (`add.rz.f32`).
    pub op: String,
    /// Destinations.
    pub dsts: Vec<Operand>,
    /// How the destinations are written.
    pub dst_form: Dsts,
    /// Sources.
    pub srcs: Vec<Src>,
}

/// Bound of a loop.
#[derive(Clone, Debug, PartialEq)]
pub enum LoopCount {
    /// A constant trip count (uniform across threads).
    Const(u32),
    /// `reg & mask` iterations (divergent).
    Reg(Reg, u32),
}

/// Atomic operations whose final memory value does not depend on the order of the threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomOp {
    /// `add`
    Add,
    /// `and`
    And,
    /// `or`
    Or,
    /// `xor`
    Xor,
    /// `min`
    Min,
    /// `max`
    Max,
}

impl AtomOp {
    /// PTX spelling.
    pub fn name(self) -> &'static str {
        match self {
            AtomOp::Add => "add",
            AtomOp::And => "and",
            AtomOp::Or => "or",
            AtomOp::Xor => "xor",
            AtomOp::Min => "min",
            AtomOp::Max => "max",
        }
    }
}

/// An accumulator slot (8 bytes) updated only by atomics of one operation and type.
#[derive(Clone, Debug, PartialEq)]
pub struct Acc {
    /// The operation.
    pub op: AtomOp,
    /// The PTX type (`u32`, `s64`, `b32`, ...).
    pub ty: &'static str,
    /// Initial contents of the slot.
    pub init: u64,
}

impl Acc {
    /// Register class of the operand.
    pub fn class(&self) -> Class {
        if self.ty.ends_with("64") {
            Class::B64
        } else {
            Class::B32
        }
    }
}

/// Where a loop exit goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitKind {
    /// To the end of the loop (`break`).
    Break,
    /// To the loop's next iteration, through its counter (`continue`).
    Continue,
}

/// Memory space of an accumulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// `.global` (in the output buffer, after the rows).
    Global,
    /// `.shared` (copied to every thread's output row at exit).
    Shared,
}

/// A statement of the body.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// One instruction.
    Inst(Inst),
    /// Instructions that must stay together and unguarded (carry chains, safe divisors).
    Group(Vec<Inst>),
    /// `if (cond) then else` with a branch (divergent).
    If {
        /// Condition (negated?, predicate).
        cond: (bool, Reg),
        /// Taken when the condition holds.
        then_: Vec<Stmt>,
        /// Taken otherwise.
        else_: Vec<Stmt>,
    },
    /// A bounded loop.
    Loop {
        /// Trip count.
        count: LoopCount,
        /// Test at the top (`while`) or the bottom (`do while`, one extra iteration).
        top_test: bool,
        /// Body.
        body: Vec<Stmt>,
    },
    /// Store `src` to this thread's shared slot, barrier, load the slot of thread
    /// `(tid + offset) % ntid` into `dst`, barrier.
    Exchange {
        /// Value sent.
        src: Reg,
        /// Value received.
        dst: Reg,
        /// Distance to the partner thread.
        offset: u32,
    },
    /// Leave a loop where the condition holds: to the end (`Break`) or the next iteration
    /// (`Continue`) of the loop `level` loops out from the innermost one around the statement
    /// (an exit with no such loop does nothing).
    Exit {
        /// Condition (negated?, predicate).
        cond: (bool, Reg),
        /// Which loop: 0 is the innermost.
        level: u8,
        /// Break or continue.
        kind: ExitKind,
    },
    /// An atomic update of accumulator `slot` of `space`; `ret` keeps the old value in a sink
    /// register (`atom`), otherwise `red`.
    Atomic {
        /// Memory space.
        space: Space,
        /// Accumulator index.
        slot: usize,
        /// Operand.
        src: Src,
        /// `atom` (true) or `red`.
        ret: bool,
    },
}

/// A generated kernel `difftest(.param .u64 in, .param .u64 out)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// PTX ISA version (major, minor).
    pub version: (u8, u8),
    /// Blocks in the grid (x).
    pub grid: u32,
    /// Threads per block (x).
    pub block: u32,
    /// Registers per class, in [`Class::ALL`] order.
    pub pools: [u8; 6],
    /// The body.
    pub body: Vec<Stmt>,
    /// Shared accumulators.
    pub shared_acc: Vec<Acc>,
    /// Global accumulators.
    pub global_acc: Vec<Acc>,
    /// Input words (a power of two, at least `threads() * row()`).
    pub input_words: u32,
}

impl Program {
    /// Name of the kernel.
    pub const KERNEL: &'static str = "difftest";

    /// Total threads.
    pub fn threads(&self) -> u32 {
        self.grid * self.block
    }

    /// Pool registers per thread (input words per thread).
    pub fn row(&self) -> u32 {
        self.pools.iter().map(|&n| n as u32).sum()
    }

    /// Output words per thread: the pool registers, then the shared accumulators.
    pub fn out_row(&self) -> u32 {
        self.row() + self.shared_acc.len() as u32
    }

    /// Output words: every thread's row, then the global accumulators.
    pub fn output_words(&self) -> u32 {
        self.threads() * self.out_row() + self.global_acc.len() as u32
    }

    /// Position of a register in the input and output rows.
    pub fn column(&self, r: Reg) -> u32 {
        let before: u32 = self.pools[..r.class.slot()].iter().map(|&n| n as u32).sum();
        before + r.index as u32
    }

    /// Every pool register in row order.
    pub fn registers(&self) -> Vec<Reg> {
        Class::ALL
            .iter()
            .flat_map(|&class| (0..self.pools[class.slot()]).map(move |index| Reg { class, index }))
            .collect()
    }

    /// Whether any statement (at any depth) satisfies `f`.
    pub fn any_stmt(&self, f: &dyn Fn(&Stmt) -> bool) -> bool {
        fn walk(s: &[Stmt], f: &dyn Fn(&Stmt) -> bool) -> bool {
            s.iter().any(|s| {
                f(s) || match s {
                    Stmt::If { then_, else_, .. } => walk(then_, f) || walk(else_, f),
                    Stmt::Loop { body, .. } => walk(body, f),
                    _ => false,
                }
            })
        }
        walk(&self.body, f)
    }

    /// The `atom`/`red` instruction an atomic statement prints as (None for a missing
    /// accumulator).
    pub fn atomic_inst(&self, space: Space, slot: usize, src: &Src, ret: bool) -> Option<Inst> {
        let (sp, accs) = match space {
            Space::Global => ("global", &self.global_acc),
            Space::Shared => ("shared", &self.shared_acc),
        };
        let a = accs.get(slot)?;
        Some(Inst {
            guard: None,
            op: format!("{}.{sp}.{}.{}", if ret { "atom" } else { "red" }, a.op.name(), a.ty),
            dsts: Vec::new(),
            dst_form: Dsts::Plain,
            srcs: vec![src.clone()],
        })
    }

    /// Whether some instruction has a fixed operand that mentions `name` (a variable).
    pub fn mentions(&self, name: &str) -> bool {
        let inst = |i: &Inst| {
            i.srcs
                .iter()
                .any(|s| matches!(&s.op, Operand::Fixed(t) if t.contains(name)))
        };
        self.any_stmt(&|s| match s {
            Stmt::Inst(i) => inst(i),
            Stmt::Group(g) => g.iter().any(inst),
            _ => false,
        })
    }

    /// Whether the program exchanges values through shared memory.
    pub fn uses_exchange(&self) -> bool {
        self.any_stmt(&|s| matches!(s, Stmt::Exchange { .. }))
    }

    /// The initial output buffer: zeros, with the global accumulators' initial values.
    pub fn initial_output(&self) -> Vec<u64> {
        let mut out = vec![0u64; self.output_words() as usize];
        let base = (self.threads() * self.out_row()) as usize;
        for (i, a) in self.global_acc.iter().enumerate() {
            out[base + i] = a.init;
        }
        out
    }

    /// The class of the register whose value output word `i` holds (None for accumulators).
    pub fn word_class(&self, i: u32) -> Option<Class> {
        if i >= self.threads() * self.out_row() {
            return None;
        }
        self.registers().get((i % self.out_row()) as usize).map(|r| r.class)
    }

    /// What output word `i` holds, for reports (`thread 5 %r3`, `global acc 1 (add.u32)`).
    pub fn describe_word(&self, i: u32) -> String {
        let rows = self.threads() * self.out_row();
        if i >= rows {
            let k = (i - rows) as usize;
            return match self.global_acc.get(k) {
                Some(a) => format!("global accumulator {k} ({}.{})", a.op.name(), a.ty),
                None => format!("word {i} (past the end)"),
            };
        }
        let (thread, col) = (i / self.out_row(), i % self.out_row());
        let what = match self.registers().get(col as usize) {
            Some(r) => r.to_string(),
            None => {
                let k = (col - self.row()) as usize;
                let a = &self.shared_acc[k];
                format!("shared accumulator {k} ({}.{})", a.op.name(), a.ty)
            }
        };
        format!("block {} thread {} {what}", thread / self.block, thread % self.block)
    }
}
