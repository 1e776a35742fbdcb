//! The views of a [`VCode`] that regalloc2 allocates: the general registers (three
//! classes: singles, pairs, quads), the predicates (one class) and the uniform registers
//! (one class). Each view lists only the operands of its register file, in the order
//! [`MInst::for_each_reg`] visits them.

use super::{BlockId, MKind, VClass, VCode, VReg};
use regalloc2 as ra;

/// Which register file a view allocates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum File {
    /// R0..R254.
    Gpr,
    /// P0..P6.
    Pred,
    /// The uniform registers UR0..UR62 (those no instruction names itself).
    Uniform,
}

impl File {
    /// True if registers of class `c` belong to this file.
    pub fn holds(self, c: VClass) -> bool {
        match c {
            VClass::Single | VClass::Pair | VClass::Quad => self == File::Gpr,
            VClass::Pred => self == File::Pred,
            VClass::Uniform | VClass::UniformPair => self == File::Uniform,
            VClass::Fixed(_) => false,
        }
    }
}

/// The regalloc2 class of a virtual-register class.
pub fn ra_class(c: VClass) -> ra::RegClass {
    match c {
        VClass::Single | VClass::Pred | VClass::Uniform | VClass::Fixed(_) => ra::RegClass::Int,
        VClass::Pair | VClass::UniformPair => ra::RegClass::Float,
        VClass::Quad => ra::RegClass::Vector,
    }
}

/// A regalloc2 function over one register file of a VCode.
pub struct View<'a> {
    vcode: &'a VCode,
    file: File,
    operands: Vec<ra::Operand>,
    offsets: Vec<u32>,
    params: Lists<ra::VReg>,
    /// One list per block and successor: block `b`'s start at `succ_arg_base[b]`.
    succ_args: Lists<ra::VReg>,
    succ_arg_base: Vec<u32>,
    succs: Lists<ra::Block>,
    preds: Lists<ra::Block>,
}

/// Lists in one allocation: list `i` is `items[start[i]..start[i + 1]]`.
struct Lists<T> {
    start: Vec<u32>,
    items: Vec<T>,
}

impl<T> Lists<T> {
    /// One list per element of `lists`.
    fn of<L: IntoIterator<Item = T>>(lists: impl IntoIterator<Item = L>) -> Lists<T> {
        let mut l = Lists {
            start: vec![0],
            items: Vec::new(),
        };
        for list in lists {
            l.items.extend(list);
            l.start.push(l.items.len() as u32);
        }
        l
    }

    fn get(&self, i: usize) -> &[T] {
        &self.items[self.start[i] as usize..self.start[i + 1] as usize]
    }
}

impl<'a> View<'a> {
    /// Builds the view of `file`.
    pub fn new(vcode: &'a VCode, file: File) -> View<'a> {
        let vr = |v: VReg| ra::VReg::new(v.0 as usize, ra_class(vcode.class(v)));
        let mut operands = Vec::new();
        let mut offsets = Vec::with_capacity(vcode.insts.len() + 1);
        for inst in &vcode.insts {
            offsets.push(operands.len() as u32);
            let early_def = matches!(inst.kind, MKind::Wide { .. });
            let temp = match inst.kind {
                MKind::Wide { tmp, .. } => tmp,
                _ => None,
            };
            let start = operands.len();
            // The operand index of the kept register: the definition reuses its location.
            let mut kept: Option<usize> = None;
            inst.for_each_reg(|v, is_def| {
                if !file.holds(vcode.class(v)) {
                    return;
                }
                if !is_def && Some(v) == inst.keep && kept.is_none() {
                    kept = Some(operands.len() - start);
                }
                operands.push(match (is_def, Some(v) == temp) {
                    (true, true) => ra::Operand::reg_temp(vr(v)),
                    // A kept register is written in place (a guarded 64-bit copy: its own
                    // register, distinct from every source).
                    (true, false) => match kept {
                        Some(k) => ra::Operand::reg_reuse_def(vr(v), k),
                        None if early_def => ra::Operand::reg_def_at_start(vr(v)),
                        None => ra::Operand::reg_def(vr(v)),
                    },
                    (false, _) => ra::Operand::reg_use(vr(v)),
                });
            });
        }
        offsets.push(operands.len() as u32);
        let keep = |vs: &'a [VReg]| {
            vs.iter()
                .filter(move |&&v| file.holds(vcode.class(v)))
                .map(move |&v| vr(v))
        };
        let blk = |b: &BlockId| ra::Block::new(b.0 as usize);
        let mut succ_arg_base = Vec::with_capacity(vcode.blocks.len());
        let mut lists = 0u32;
        for b in &vcode.blocks {
            succ_arg_base.push(lists);
            lists += b.succ_args.len() as u32;
        }
        View {
            vcode,
            file,
            operands,
            offsets,
            params: Lists::of(vcode.blocks.iter().map(|b| keep(&b.params))),
            succ_args: Lists::of(vcode.blocks.iter().flat_map(|b| b.succ_args.iter().map(|a| keep(a)))),
            succ_arg_base,
            succs: Lists::of(vcode.blocks.iter().map(|b| b.succs.iter().map(blk))),
            preds: Lists::of(vcode.blocks.iter().map(|b| b.preds.iter().map(blk))),
        }
    }

    /// The register file of this view.
    pub fn file(&self) -> File {
        self.file
    }
}

impl ra::Function for View<'_> {
    fn num_insts(&self) -> usize {
        self.vcode.insts.len()
    }

    fn num_blocks(&self) -> usize {
        self.vcode.blocks.len()
    }

    fn entry_block(&self) -> ra::Block {
        ra::Block::new(0)
    }

    fn block_insns(&self, block: ra::Block) -> ra::InstRange {
        let b = &self.vcode.blocks[block.index()];
        ra::InstRange::new(ra::Inst::new(b.start as usize), ra::Inst::new(b.end as usize))
    }

    fn block_succs(&self, block: ra::Block) -> &[ra::Block] {
        self.succs.get(block.index())
    }

    fn block_preds(&self, block: ra::Block) -> &[ra::Block] {
        self.preds.get(block.index())
    }

    fn block_params(&self, block: ra::Block) -> &[ra::VReg] {
        self.params.get(block.index())
    }

    fn is_ret(&self, insn: ra::Inst) -> bool {
        self.vcode.insts[insn.index()].ends_function()
    }

    fn is_branch(&self, insn: ra::Inst) -> bool {
        matches!(
            self.vcode.insts[insn.index()].kind,
            MKind::Jump(_) | MKind::CondJump { .. } | MKind::SubCall(_) | MKind::Return { .. }
        )
    }

    fn branch_blockparams(&self, block: ra::Block, _insn: ra::Inst, succ_idx: usize) -> &[ra::VReg] {
        self.succ_args
            .get(self.succ_arg_base[block.index()] as usize + succ_idx)
    }

    fn inst_operands(&self, insn: ra::Inst) -> &[ra::Operand] {
        let i = insn.index();
        &self.operands[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    fn inst_clobbers(&self, _insn: ra::Inst) -> ra::PRegSet {
        ra::PRegSet::empty()
    }

    fn num_vregs(&self) -> usize {
        self.vcode.classes.len()
    }

    fn spillslot_size(&self, regclass: ra::RegClass) -> usize {
        match regclass {
            ra::RegClass::Int => 1,
            ra::RegClass::Float => 2,
            ra::RegClass::Vector => 4,
        }
    }
}
